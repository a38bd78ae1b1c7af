// TableState and LobbyState, fed with protocol.md's example session and
// with sessions recorded against the real server (test/fixtures).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LobbyState, TableState, teamsFromRules } from '../js/state.js';
import { exampleSession, loadSession } from './support.mjs';

/** Applies messages until `until` returns true for one (included). */
function replay(state, messages, until = () => false) {
  for (const message of messages) {
    state.apply(message);
    if (until(message)) break;
  }
  return state;
}

// What protocol.js hands a TableState: snapshots, turns and room events.
const roomMessages = (messages) => messages.filter((m) =>
  m.type === 'snapshot' || m.type === 'turn' || (typeof m.seq === 'number' && typeof m.room === 'string'));

test('the example session: entering the room and sitting down', () => {
  const { me, messages } = exampleSession();
  const state = new TableState({ me });
  replay(state, messages, (m) => m.type === 'snapshot');
  assert.equal(state.room, '7B4SEA');
  assert.equal(state.seat, null, 'North enters as a spectator');
  assert.equal(state.isOwner, true);
  assert.equal(state.status, 'waiting');
  replay(state, messages.slice(messages.findIndex((m) => m.seq === 8)), (m) => m.seq === 8);
  assert.equal(state.seat, 0, 'the seats event puts North in seat 0');
  assert.deepEqual(state.seats.map((s) => s.player.name), ['North', 'East', 'South', 'West']);
  assert.equal(state.seatedCount, 4);
});

test('the example session: blind nil, the exchange and the first trick', () => {
  const { me, messages } = exampleSession();
  const state = new TableState({ me, now: () => 0 });
  const at = (seq) => replay(state, messages.filter((m) => !state.lastSeq || (m.seq ?? m.after ?? 0) >= state.lastSeq), (m) => m.seq === seq);
  at(10);
  assert.equal(state.phase, 'bidding');
  assert.equal(state.hidden, true, 'offered blind nil, North does not see his cards');
  assert.deepEqual(state.cards, []);
  assert.equal(state.handSizes[0], 13);

  const blindTurn = messages.find((m) => m.type === 'turn' && m.after === 12);
  replay(state, messages.slice(messages.findIndex((m) => m.seq === 11)), (m) => m === blindTurn);
  assert.equal(state.expected, 'blind_nil_or_look');
  assert.equal(state.clockLeft, 29999);

  replay(state, messages.slice(messages.findIndex((m) => m.seq === 13)), (m) => m.seq === 14);
  assert.deepEqual(state.bids[0], { bid: 0, blind: true });
  assert.equal(state.hidden, false);
  assert.equal(state.cards.length, 13);
  assert.equal(state.myTurn, false, 'the turn passed on when North bid');

  replay(state, messages.slice(messages.findIndex((m) => m.seq === 15)), (m) => m.seq === 21);
  assert.equal(state.phase, 'passing');
  assert.deepEqual(state.exchange, { gave: ['JH', 'JC'], got: ['2H', '3D'] });
  assert.ok(!state.cards.includes('JH') && state.cards.includes('3D'));
  assert.deepEqual(state.handSizes, [13, 13, 13, 13], 'two cards went each way');

  const legalTurn = messages.find((m) => m.type === 'turn' && m.after === 23);
  replay(state, messages.slice(messages.findIndex((m) => m.seq === 22)), (m) => m === legalTurn);
  assert.equal(state.phase, 'playing');
  assert.deepEqual(state.trick.plays, [{ seat: 3, card: '2D' }]);
  assert.deepEqual(state.legalCards, ['TD', '3D']);
  assert.equal(state.sortedHand[0][1], 'S', 'the hand is shown spades first');

  replay(state, messages.slice(messages.findIndex((m) => m.seq === 24)), (m) => m.seq === 27);
  assert.equal(state.trick, null);
  assert.equal(state.tricks.length, 1);
  assert.deepEqual(state.lastTrick.plays.map((p) => p.card), ['2D', '3D', '4D', '5D']);
  assert.equal(state.lastTrick.winner, 2);
  assert.equal(state.tricksWon[2], 1);
  assert.equal(state.cards.length, 12);
});

test('the example session: the hand score and the return after a lost connection', () => {
  const { me, messages } = exampleSession();
  const state = new TableState({ me, now: () => 0 });
  const mine = messages.slice(0, messages.findIndex((m) => m.type === 'replaced'));
  replay(state, mine, (m) => m.seq === 88);
  assert.deepEqual(state.score, [-186, 44]);
  assert.deepEqual(state.bags, [4, 4]);
  const scored = state.lastHandScore;
  assert.equal(scored.teams[0].nil_points, -200);
  assert.equal(scored.teams[0].contract_points, 10);
  assert.deepEqual(scored.tricksWon, [1, 4, 4, 4]);
  assert.deepEqual(scored.bids[0], { bid: 0, blind: true }, 'the bids stay with the hand they scored');

  replay(state, mine.slice(mine.findIndex((m) => m.seq === 89)), (m) => m.seq === 91);
  assert.equal(state.hand, 1);
  assert.equal(state.cards.length, 13, 'the look applied before the drop revealed the cards');
  assert.equal(state.absence(0), 'disconnected');
  replay(state, mine.slice(mine.findIndex((m) => m.seq === 92)));
  assert.equal(state.absence(0), null);
  assert.equal(state.expected, 'bid');
  assert.equal(state.handScores.length, 1, 'the breakdown of hand 1 is kept');
});

test('events of another room are ignored', () => {
  const { me, messages } = exampleSession();
  const state = new TableState({ me });
  replay(state, messages);
  assert.equal(state.room, '7B4SEA');
  assert.equal(state.chat.length, 0, 'the chat line of room H2AU5Z is not ours');
  assert.notEqual(state.phase, 'game over');
});

test('a gap in seq is reported', () => {
  const state = new TableState();
  const { messages } = exampleSession();
  state.apply(messages.find((m) => m.type === 'snapshot'));
  assert.equal(state.apply({ type: 'seats', room: '7B4SEA', seq: 2, seats: [null, null, null, null], spectators: 2, owner: { id: 'x', name: 'x' } }), true);
  assert.equal(state.apply({ type: 'seats', room: '7B4SEA', seq: 7, seats: [null, null, null, null], spectators: 2, owner: { id: 'x', name: 'x' } }), false);
});

test('a recorded game with bots: a whole hand, then the game over', () => {
  const { me, messages } = loadSession('seated-game.jsonl');
  const state = new TableState({ me, now: () => 0 });
  let turnsToPlay = 0;
  for (const message of roomMessages(messages)) {
    assert.ok(state.apply(message), `seq ${message.seq} follows ${state.lastSeq}`);
    if (state.expected === 'play') {
      turnsToPlay += 1;
      assert.ok(state.legalCards.length > 0);
      for (const card of state.legalCards) assert.ok(state.cards.includes(card), `${card} is in the hand`);
    }
  }
  assert.equal(turnsToPlay, 13);
  assert.equal(state.phase, 'game over');
  assert.equal(state.status, 'finished');
  assert.equal(state.tricks.length, 13);
  assert.equal(state.tricksWon.reduce((a, b) => a + b), 13);
  assert.deepEqual(state.handSizes, [0, 0, 0, 0]);
  assert.deepEqual(state.cards, []);
  const over = messages.find((m) => m.type === 'game_over');
  assert.equal(state.winner, over.winner);
  assert.deepEqual(state.score, over.score);
  assert.equal(state.turn, null);
  assert.ok(state.seats.slice(1).every((s) => s.player.bot));
  assert.deepEqual(state.bids[0], { bid: 0, blind: true });
  assert.equal(state.exchange.gave.length, 2);
});

test("a hand's last trick outlives the next hand's deal", () => {
  const { me, messages } = loadSession('seated-game.jsonl');
  const state = new TableState({ me, now: () => 0 });
  const room = roomMessages(messages);
  const lastWon = room.filter((m) => m.type === 'trick_won').at(-1);
  for (const message of room) {
    state.apply(message);
    if (message === lastWon) break;
  }
  const plays = room.filter((m) => m.type === 'card_played').slice(-4).map(({ seat, card }) => ({ seat, card }));
  const won = { winner: lastWon.winner, plays };
  const hand = state.hand;
  // The next hand starts in the same batch as the last card.
  state.apply({ type: 'hand_started', room: state.room, seq: state.lastSeq + 1, hand: hand + 1, dealer: 1, cards: [] });
  assert.deepEqual(state.tricks, [], 'the new hand has no tricks yet');
  assert.equal(state.wonCount, 13);
  assert.deepEqual({ winner: state.lastWon.winner, plays: state.lastWon.plays }, won);
});

test('a spectator who comes in mid-hand sees public information only', () => {
  const { me, messages } = loadSession('spectator.jsonl');
  const state = new TableState({ me });
  for (const message of roomMessages(messages)) {
    state.apply(message);
    assert.equal(state.seat, null);
    assert.deepEqual(state.cards, []);
    assert.equal(state.hidden, false);
    assert.equal(state.myTurn, false);
    assert.deepEqual(state.legalCards, []);
    assert.deepEqual(state.passes, [], 'a spectator is told of no exchanged cards');
    if (state.turn) assert.equal(state.turn.legal, null);
  }
  assert.equal(state.phase, 'game over');
  assert.equal(state.chat[0].text, 'hello from the rail');
  assert.equal(state.chat[0].seat, null);
  assert.ok(state.tricks.length === 13);
});

test('a page reloaded mid-hand comes back to the same cards', () => {
  const { me, messages } = loadSession('reload.jsonl');
  const state = new TableState({ me, now: () => 0 });
  const snapshot = messages.find((m) => m.type === 'snapshot');
  state.apply(snapshot);
  assert.equal(state.seat, 0);
  assert.deepEqual(state.cards, snapshot.state.game.cards);
  assert.equal(state.phase, 'playing');
  assert.deepEqual(state.bids, snapshot.state.game.bids);
  assert.equal(state.exchange.gave.length, 2, 'the exchange North took part in is in the snapshot');
  assert.equal(state.tricks.length, snapshot.state.game.tricks.length);
  for (const message of roomMessages(messages).slice(1)) state.apply(message);
  assert.equal(state.phase, 'game over');
  assert.deepEqual(state.cards, []);
});

test('a bot acts once per turn message, and again after a refusal only on a new turn', () => {
  const { me, messages } = exampleSession();
  const state = new TableState({ me });
  const turn = messages.find((m) => m.type === 'turn' && m.after === 23);
  replay(state, messages, (m) => m === turn);
  assert.equal(state.shouldAct(), true);
  state.acted({ type: 'play', card: '8S' });
  assert.equal(state.shouldAct(), false);
  assert.deepEqual(state.legalCards, [], 'nothing is playable while a card is on its way');
  state.refused();
  assert.equal(state.shouldAct(), false, 'the same turn message is not acted on twice');
  state.apply({ ...turn });
  assert.equal(state.shouldAct(), false, 'a repeated turn is not a new turn');
  state.apply({ ...turn, after: 23, clock_ms: 1000 });
  state.turn.after = 24;
  assert.equal(state.shouldAct(), true);
});

test('a player away past the hold is shown as played by a bot', () => {
  let now = 0;
  const { me, messages } = exampleSession();
  const state = new TableState({ me, now: () => now });
  replay(state, messages, (m) => m.seq === 8);
  state.apply({ type: 'player_away', room: '7B4SEA', seq: 9, seat: 1, hold_ms: 60000 });
  assert.equal(state.absence(1), 'disconnected');
  now = 60001;
  assert.equal(state.absence(1), 'away');
  state.apply({ type: 'player_back', room: '7B4SEA', seq: 10, seat: 1 });
  assert.equal(state.absence(1), null);
});

test('the lobby list follows rooms, lobby_room and lobby_room_closed', () => {
  const lobby = new LobbyState();
  const room = (code, status, name = code) => ({ room: code, name, rules: 'classic', private: false, status, seats: [null, null, null, null], spectators: 0 });
  lobby.apply({ type: 'rooms', id: 1, rooms: [room('B', 'playing'), room('A', 'waiting')] });
  assert.deepEqual(lobby.list.map((r) => r.room), ['A', 'B'], 'waiting rooms first');
  lobby.apply({ type: 'lobby_room', room: room('C', 'waiting', 'Alpha') });
  lobby.apply({ type: 'lobby_room', room: room('A', 'playing') });
  assert.deepEqual(lobby.list.map((r) => r.room), ['C', 'A', 'B']);
  lobby.apply({ type: 'lobby_room_closed', room: 'B' });
  assert.deepEqual(lobby.list.map((r) => r.room), ['C', 'A']);
});

test('a solo game keeps four scores, and every seat is a team of its own', () => {
  const state = new TableState({ me: 'p0' });
  const room = 'SOLO42';
  const rules = { partners: false, target: 500 };
  state.apply({
    type: 'snapshot', seq: 0,
    state: { room, name: 'Solo', private: false, rules, bots: 'basic', status: 'waiting', owner: null, seats: [null, null, null, null], teams: [[0], [1], [2], [3]], spectators: 1, games: 0 },
  });
  state.apply({ type: 'game_started', room, seq: 1, game: 0, game_id: 'g', rules });
  assert.deepEqual(state.score, [0, 0, 0, 0]);
  assert.deepEqual(state.bags, [0, 0, 0, 0]);
  const team = (score, bags) => ({ contract: 3, tricks: 3, contract_points: 30, set: false, nil_points: 0, bags_taken: 0, bag_points: 0, bag_penalty: 0, change: 30, score, bags });
  state.apply({ type: 'hand_scored', room, seq: 2, hand: 0, tricks_won: [3, 3, 3, 4], teams: [team(30, 0), team(31, 1), team(-20, 0), team(100, 2)] });
  assert.deepEqual(state.score, [30, 31, -20, 100]);
  assert.deepEqual(state.bags, [0, 1, 0, 2]);
  state.apply({ type: 'game_over', room, seq: 3, game_id: 'g', winner: 3, score: [30, 31, -20, 510] });
  assert.deepEqual(state.score, [30, 31, -20, 510]);
  assert.equal(state.winner, 3);
  assert.equal(state.hasPartners, false);
  assert.equal(state.teamOf(2), 2);
  assert.equal(state.partnerOf(2), null);
});

test('the teams come from the snapshot', () => {
  const { me, messages } = loadSession('seated-game.jsonl');
  const state = new TableState({ me });
  state.apply(messages.find((m) => m.type === 'snapshot'));
  assert.deepEqual(state.teams, [[0, 2], [1, 3]]);
  assert.equal(state.hasPartners, true);
  assert.equal(state.teamOf(2), 0);
  assert.equal(state.teamOf(3), 1);
  assert.equal(state.partnerOf(1), 3);
  // A table of three, as the server describes it.
  const three = new TableState();
  three.apply({
    type: 'snapshot', seq: 0,
    state: { room: 'THREE1', name: 'Three', private: false, rules: { players: 3, partners: false }, bots: 'basic', status: 'waiting', owner: null, seats: [null, null, null], teams: [[0], [1], [2]], spectators: 1, games: 0 },
  });
  assert.deepEqual(three.score, [0, 0, 0]);
  assert.equal(three.partnerOf(0), null);
});

test('without a snapshot, the teams follow the rules as the server sets them', () => {
  assert.deepEqual(teamsFromRules({ partners: true, players: 4 }), [[0, 2], [1, 3]]);
  assert.deepEqual(teamsFromRules(null), [[0, 2], [1, 3]]);
  assert.deepEqual(teamsFromRules({ partners: false }), [[0], [1], [2], [3]]);
  assert.deepEqual(teamsFromRules({ partners: false, players: 3 }), [[0], [1], [2]]);
});

test('rated or casual, a hidden chat line, and a player the host removed', () => {
  const { me, messages } = exampleSession();
  const snapshot = messages.find((m) => m.type === 'snapshot');
  const state = new TableState({ me });
  // The example's server may say nothing of `rated`: a room is then casual.
  state.apply({ ...snapshot, state: { ...snapshot.state, rated: undefined } });
  assert.equal(state.rated, false);
  state.apply({ ...snapshot, state: { ...snapshot.state, rated: true } });
  assert.equal(state.rated, true);

  const room = snapshot.state.room;
  let seq = snapshot.seq;
  const tom = { id: 'tom', name: 'Tom' };
  state.apply({ type: 'chat_message', room, seq: (seq += 1), from: tom, seat: 1, text: 'hello' });
  state.apply({ type: 'chat_message', room, seq: (seq += 1), from: tom, seat: 1, text: '', hidden: true });
  state.apply({ type: 'player_removed', room, seq: (seq += 1), seat: 1, player: tom });
  assert.deepEqual(state.chat.map((line) => [line.hidden ?? null, line.event ?? null, line.text ?? null]), [
    [false, null, 'hello'], [true, null, ''], [null, 'removed', null],
  ]);
  const removed = state.log.at(-1);
  assert.deepEqual({ kind: removed.kind, seat: removed.seat, player: removed.player }, { kind: 'removed', seat: 1, player: tom });
});

test('a rematch asked: its kind is kept, and a request of the other kind starts the list again', () => {
  const { me, messages } = exampleSession();
  const snapshot = messages.find((m) => m.type === 'snapshot');
  const state = new TableState({ me });
  state.apply(snapshot);
  const room = snapshot.state.room;
  let seq = snapshot.seq;
  const asked = (seat, waiting, sameDeals) => state.apply({
    type: 'rematch_asked', room, seq: (seq += 1), seat, waiting_for: waiting, ...(sameDeals ? { same_deals: true } : {}),
  });
  asked(1, [0, 2, 3]);
  assert.deepEqual(state.rematch, { asked: [1], waitingFor: [0, 2, 3], sameDeals: false });
  asked(3, [0, 2]);
  assert.deepEqual(state.rematch.asked, [1, 3]);
  // The server drops the plain requests when someone asks for the same deals.
  asked(2, [0, 1, 3], true);
  assert.deepEqual(state.rematch, { asked: [2], waitingFor: [0, 1, 3], sameDeals: true });
  asked(2, [0, 1, 3], true);
  assert.deepEqual(state.rematch.asked, [2], 'asking twice is one request');
  asked(0, [1, 2, 3]);
  assert.deepEqual(state.rematch, { asked: [0], waitingFor: [1, 2, 3], sameDeals: false });
});

test('everyone one seat to the left: the seats event moves this player too', () => {
  const state = new TableState({ me: 'ann' });
  const owner = { id: 'ann', name: 'Ann' };
  const players = ['ann', 'ben', 'cy', 'dee'].map((id) => ({ id, name: id }));
  const seatsEvent = (seq, order) => ({
    type: 'seats', room: 'R', seq, spectators: 0, owner,
    seats: order.map((player, seat) => ({ seat, player, connected: true, away: false })),
  });
  state.apply(seatsEvent(1, players));
  assert.equal(state.seat, 0);
  // After "play these deals again" each player sits one seat to the left.
  state.apply(seatsEvent(2, [players[3], players[0], players[1], players[2]]));
  assert.equal(state.seat, 1);
  assert.deepEqual(state.seats.map((info) => info.player.id), ['dee', 'ann', 'ben', 'cy']);
});
