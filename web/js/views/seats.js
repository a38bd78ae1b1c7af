// A seat around the felt: who sits there, his badges, bid and tricks, the
// cards he holds, his clock while he must act, the buttons to sit or to
// add and remove bots between games, and at any time those to report the
// player or (the host of a private table) to remove him.

import { cx, h } from '../dom.js';
import { BOT_LEVELS, levelLabel } from '../levels.js';
import { positionOf, seatRole } from '../seating.js';
import { seatTally } from '../tally.js';
import { Avatar } from './avatar.js';
import { Clock, Ticking } from './clock.js';
import { seatBubbles } from '../social.js';

/** The seat's name for screen readers: "Ann (partner)", "Empty seat (North)". */
export function seatLabel(state, seat) {
  const info = state.seats[seat];
  const role = seatRole(state, seat);
  const place = state.seat === null ? role : role.toLowerCase();
  return `${info ? info.player.name : 'Empty seat'} (${place})`;
}

function Badges({ state, seat }) {
  const info = state.seats[seat];
  const absence = state.absence(seat);
  const badges = [];
  if (info.player.bot) {
    const level = info.player.level ?? state.botLevel;
    badges.push(h('span', { class: cx('badge bot', `bot-${level}`), title: `A bot of the ${levelLabel(level).toLowerCase()} level` }, `${levelLabel(level)} bot`));
  }
  if (absence === 'away') badges.push(h('span', { class: 'badge away' }, 'Away: played by a bot'));
  if (absence === 'disconnected') badges.push(h('span', { class: 'badge away' }, 'Disconnected'));
  if (state.dealer === seat && state.phase !== 'waiting') badges.push(h('span', { class: 'badge dealer', title: 'Dealer' }, 'Dealer'));
  if (state.owner && info.player.id === state.owner.id) badges.push(h('span', { class: 'badge owner' }, 'Host'));
  return badges.length ? h('div', { class: 'badges' }, badges) : null;
}

/**
 * The cards a player holds, as backs fanned by their count (one's own
 * hand is shown below the felt); the count in words for screen readers.
 */
function Fan({ count }) {
  const backs = Math.min(count, 18);
  return h('div', { class: 'seat-cards' },
    h('span', { class: 'fan', 'data-count': backs, 'aria-hidden': 'true' },
      Array.from({ length: backs }, (_, at) => h('span', { key: at, class: 'fan-back' }))),
    h('span', { class: 'visually-hidden' }, `${count} cards`));
}

/** Tricks taken against the bid ("2/4"), and the cards still held. */
function HandCount({ state, seat }) {
  const tally = seatTally(state, seat);
  const mine = seat === state.seat;
  return [
    h('div', { class: 'seat-score' },
      h('span', { class: 'visually-hidden' }, tally.words),
      h('span', { class: 'tally', 'aria-hidden': 'true', title: 'Tricks taken / bid' }, tally.short)),
    !mine && state.handSizes[seat] > 0 && state.phase !== 'game over' ? h(Fan, { count: state.handSizes[seat] }) : null,
  ];
}

function SeatControls({ state, seat, actions }) {
  const info = state.seats[seat];
  if (state.playing) return null;
  const controls = [];
  if (!info && state.seat === null) {
    controls.push(h('button', { type: 'button', onclick: () => actions.sit(seat) }, 'Sit here'));
  } else if (!info) {
    controls.push(h('button', { type: 'button', class: 'link', onclick: () => actions.sit(seat) }, 'Move here'));
  }
  if (state.isOwner && !info) {
    // The bot's level, the room's unless the host picks another.
    const pick = `bot-level-${seat}`;
    controls.push(
      h('select', { id: pick, class: 'bot-level', 'aria-label': `Level of the bot for seat ${seat + 1}`, value: state.botLevel },
        BOT_LEVELS.map(([value, label]) => h('option', { key: value, value }, label))),
      h('button', { type: 'button', onclick: () => actions.addBot(seat, document.getElementById(pick)?.value) }, 'Add bot'));
  }
  if (state.isOwner && info?.player.bot) controls.push(h('button', { type: 'button', onclick: () => actions.removeBot(seat) }, 'Remove bot'));
  return controls.length ? h('div', { class: 'seat-controls' }, controls) : null;
}

/**
 * Reporting the player in a seat, and removing him for the host of a
 * private table. The buttons show a sign on a phone's narrow seat and a
 * word beside it where there is room; their names say the whole.
 */
function SeatTools({ state, seat, actions }) {
  const info = state.seats[seat];
  if (!info || info.player.bot || info.player.id === state.me) return null;
  const player = { id: info.player.id, name: info.player.name };
  return h('div', { class: 'seat-tools' },
    h('button', {
      type: 'button', class: 'seat-tool', 'aria-label': `Report ${player.name}`, title: 'Report to the moderators',
      onclick: () => actions.openReport(player, 'table'),
    }, h('span', { 'aria-hidden': 'true' }, '⚑'), h('span', { class: 'tool-word', 'aria-hidden': 'true' }, 'Report')),
    state.isOwner && state.private ? h('button', {
      type: 'button', class: 'seat-tool', 'aria-label': `Remove ${player.name} from the table`, title: 'Remove from the table',
      onclick: () => actions.removePlayer(player),
    }, h('span', { 'aria-hidden': 'true' }, '✕'), h('span', { class: 'tool-word', 'aria-hidden': 'true' }, 'Remove')) : null);
}

/** The line under a seat while it must act: its clock. */
function SeatTurn({ state, turn }) {
  if (turn) {
    return h('div', { class: 'seat-turn' }, h('span', { class: 'visually-hidden' }, 'To act. '), h(Clock, { state }));
  }
  // The clock's line keeps its place, unseen, while the seat waits: a seat
  // that grew and shrank with every turn would move the whole table, and
  // the browser would paint it all again each time.
  return state.playing ? h('div', { class: 'seat-turn idle', 'aria-hidden': 'true' }, '0:00') : null;
}

/** One seat's panel, a region named after its player. */
/**
 * A quick phrase said lately from the seat, in a bubble beside it for a
 * few seconds. The chat's log reads it to screen readers; the bubble is
 * for the eyes only.
 */
function Bubble({ state, seat }) {
  if (!seatBubbles(state.chat, Date.now()).has(seat)) return null;
  return h(Ticking, {
    every: 500,
    draw: () => {
      const text = seatBubbles(state.chat, Date.now()).get(seat);
      return text ? h('div', { class: 'seat-bubble', 'aria-hidden': 'true' }, text) : null;
    },
  });
}

export function Seat({ state, seat, actions }) {
  const info = state.seats[seat];
  const turn = Boolean(state.turn && state.turn.seats.includes(seat) && state.playing);
  const team = state.teamOf(seat);
  return h('section', {
    class: cx('seat', `pos-${positionOf(state, seat)}`, state.hasPartners && team !== null && `team-${team}`,
      turn && 'is-turn', seat === state.seat && 'is-me', !info && 'is-empty'),
    'aria-label': seatLabel(state, seat),
  },
  h('div', { class: 'seat-compass', 'aria-hidden': 'true' }, seatRole(state, seat)),
  info
    ? [h('div', { class: 'seat-who', 'aria-hidden': 'true' }, h(Avatar, { player: info.player }), h('span', { class: 'seat-name' }, info.player.name)),
      h(Badges, { state, seat })]
    : h('div', { class: 'seat-who', 'aria-hidden': 'true' }, h('span', { class: 'seat-name empty' }, 'Empty seat')),
  state.phase !== 'waiting' && state.hand !== null ? h(HandCount, { state, seat }) : null,
  h(SeatTurn, { state, turn }),
  h(Bubble, { state, seat }),
  h(SeatControls, { state, seat, actions }),
  h(SeatTools, { state, seat, actions }));
}
