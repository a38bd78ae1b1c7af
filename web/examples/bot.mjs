#!/usr/bin/env node
// A tiny Spades bot on top of the web client's library, to show bot
// authors how protocol.js and state.js fit together under Node:
//
//   node web/examples/bot.mjs ws://127.0.0.1:8080/ws ROOMCODE [name]
//
// It joins the room, takes the first free seat, and plays when the turn
// messages say so, until the game ends. Its play is deliberately plain
// (lowest legal card, a cautious bid); the decision is one function,
// chooseMove, for you to replace.

import { pathToFileURL } from 'node:url';
import { Client } from '../js/protocol.js';
import { TableState } from '../js/state.js';
import { rankValue, suitOf } from '../js/cards.js';
import { WebSocketForNode } from './node-websocket.mjs';

/**
 * The move for the current turn, or null when this seat need not act:
 * {type: 'bid', bid, blind} | {type: 'look'} | {type: 'pass', cards} | {type: 'play', card}.
 */
export function chooseMove(state, { blindNil = false } = {}) {
  if (!state.myTurn) return null;
  const turn = state.turn;
  switch (turn.expected) {
    case 'blind_nil_or_look':
      // The turn lists the blind bids open now; 0 is blind nil.
      return blindNil && (turn.bids ?? [0]).includes(0) ? { type: 'bid', bid: 0, blind: true } : { type: 'look' };
    case 'bid':
      return { type: 'bid', bid: nearest(cautiousBid(state.cards), turn.bids), blind: false };
    case 'pass': {
      // A nil bidder gives away his highest cards; his partner his lowest.
      const mine = state.bids[state.seat];
      const order = [...state.cards].sort((a, b) => rankValue(a) - rankValue(b));
      if (mine && mine.bid === 0) order.reverse();
      return { type: 'pass', cards: order.slice(0, turn.passCount) };
    }
    case 'play': {
      const legal = turn.legal ?? [];
      const lowest = [...legal].sort((a, b) =>
        rankValue(a) - rankValue(b) || Number(suitOf(a) === 'S') - Number(suitOf(b) === 'S'));
      return lowest.length ? { type: 'play', card: lowest[0] } : null;
    }
    default:
      return null;
  }
}

/** Of the bids the rules allow now (all when the turn does not say), the nearest to `wanted`. */
export function nearest(wanted, allowed) {
  if (!allowed?.length) return wanted;
  return allowed.reduce((best, bid) => (Math.abs(bid - wanted) < Math.abs(best - wanted) ? bid : best));
}

/** Aces, and spades beyond the third: at least 1. */
export function cautiousBid(cards) {
  const aces = cards.filter((card) => card[0] === 'A').length;
  const spades = cards.filter((card) => suitOf(card) === 'S').length;
  return Math.max(1, Math.min(13, aces + Math.max(0, spades - 3)));
}

/** Sends a move as its protocol message. */
export function sendMove(client, move) {
  switch (move.type) {
    case 'bid': return client.bid(move.bid, move.blind);
    case 'look': return client.look();
    case 'pass': return client.passCards(move.cards);
    case 'play': return client.play(move.card);
    default: throw new Error(`unknown move ${move.type}`);
  }
}

/**
 * Plays at `room` until its game ends. Resolves with the final state.
 * `decide` is called with the TableState whenever this seat may act.
 */
export async function runBot({ url, room, name = 'Example bot', WebSocket = WebSocketForNode, decide = chooseMove }) {
  const client = new Client({ url, WebSocket, storage: memoryStorage() });
  const state = new TableState();
  let finish;
  const done = new Promise((resolve) => { finish = resolve; });

  const act = () => {
    if (!state.shouldAct()) return;
    const move = decide(state);
    if (!move) return;
    state.acted(move);
    sendMove(client, move).catch((error) => {
      // A refused move is tried again on the next turn message.
      state.refused();
      console.error(`refused ${JSON.stringify(move)}: ${error.code}`);
    });
  };

  client.on('room', (message) => {
    state.apply(message);
    if (message.type === 'game_over') finish(state);
    else act();
  });
  const welcome = await client.connect({ name });
  state.me = welcome.player.id;
  await client.joinRoom(room);
  if (state.seat === null) await client.sit();
  act();
  await done;
  client.close();
  return state;
}

function memoryStorage() {
  const items = new Map();
  return { getItem: (k) => items.get(k) ?? null, setItem: (k, v) => items.set(k, v), removeItem: (k) => items.delete(k) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [url, room, name] = process.argv.slice(2);
  if (!url || !room) {
    console.error('usage: node web/examples/bot.mjs ws://HOST:PORT/ws ROOM [name]');
    process.exit(2);
  }
  runBot({ url, room, name }).then((state) => {
    console.log(`game over: score ${state.score.join(' to ')}, winner team ${state.winner}`);
  }, (error) => {
    console.error(error.message);
    process.exit(1);
  });
}
