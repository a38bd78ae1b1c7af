// The middle of the felt: the cards of the trick, each toward the seat
// that played it, and whose turn it is. The cards in the page are always
// the table's state; their motion follows the felt's pace (pace.js): a
// card waits for its moment and travels in from its player, and a won
// trick stays with its winner marked, then travels to him, even when the
// next lead is already played (that card is in the page, named, and
// shows once the trick has gone).

import { cx, h } from '../dom.js';
import { cardName } from '../cards.js';
import { GATHER_MS, HOLD_MS, cardKey } from '../pace.js';
import { expectedText, positionOf, who } from '../seating.js';
import { CardFace } from './card.js';
import { Clock } from './clock.js';
import { TrickCard } from './motion.js';

/**
 * The tricks to draw: the one being played (`current`, index `wonCount`)
 * and the last one won while it is still on the felt (`held`).
 */
export function shownTricks(state, felt, now = Date.now()) {
  const heldIndex = state.wonCount - 1;
  let held = null;
  if (state.lastWon) {
    const moments = felt.trickOf(heldIndex);
    const on = moments ? now < moments.goneAt : now < state.wonAt + HOLD_MS + GATHER_MS;
    if (on) held = { trick: state.lastWon, index: heldIndex, gatherAt: moments?.gatherAt ?? state.wonAt + HOLD_MS };
  }
  return { current: state.trick ? { trick: state.trick, index: state.wonCount } : null, held };
}

function seatSelector(state, seat) {
  return seat === state.seat ? '.hand' : `.seat.pos-${positionOf(state, seat)}`;
}

/** The cards on the table. */
export function Trick({ state, felt, motion }) {
  const { current, held } = shownTricks(state, felt);
  const cards = [];
  if (held) {
    const { trick, index, gatherAt } = held;
    for (const { seat, card } of trick.plays) {
      cards.push(h(TrickCard, {
        key: cardKey(index, card), motion, startAt: felt.startOf(cardKey(index, card)), from: seatSelector(state, seat),
        gatherAt, to: `.seat.pos-${positionOf(state, trick.winner)}`,
      }, h(CardFace, {
        card,
        // Once the next trick has begun, the page's words are about it.
        hidden: Boolean(current),
        label: `${who(state, seat)} played ${cardName(card)}`,
        extra: cx('in-trick', `pos-${positionOf(state, seat)}`, trick.winner === seat && 'winner'),
      })));
    }
  }
  if (current) {
    for (const { seat, card } of current.trick.plays) {
      const key = cardKey(current.index, card);
      cards.push(h(TrickCard, { key, motion, startAt: felt.startOf(key), from: seatSelector(state, seat) },
        h(CardFace, { card, label: `${who(state, seat)} played ${cardName(card)}`, extra: cx('in-trick', `pos-${positionOf(state, seat)}`) })));
    }
  }
  const count = current ? current.trick.plays.length : (held?.trick.plays.length ?? 0);
  return h('div', {
    class: cx('trick', !cards.length && state.phase !== 'playing' && 'idle'),
    role: 'group',
    'aria-label': 'Cards on the table',
    'data-count': count,
  }, cards);
}

function turnText(state) {
  const turn = state.turn;
  if (state.phase === 'game over') return 'Game over.';
  if (!state.playing) {
    if (state.seatedCount < state.seats.length) return `Waiting for ${state.seats.length === 3 ? 'three' : 'four'} players.`;
    return 'Ready to start.';
  }
  if (state.pending) return 'Sending…';
  if (!turn) return 'Waiting…';
  if (state.myTurn) return `Your turn: ${expectedText(turn.expected, turn.passCount)}.`;
  const names = turn.seats.map((seat) => state.nameOf(seat)).join(' and ');
  return `${names} to ${expectedText(turn.expected, null)}.`;
}

/**
 * Whose turn, in words, and the clock. The words are a live region; the
 * clock beside them is not, or a screen reader would read every tick.
 */
export function TurnIndicator({ state }) {
  const turn = state.turn;
  const showClock = Boolean(turn && state.playing && turn.clockMs > 0);
  return h('div', { class: cx('turn-indicator', state.myTurn && 'mine') },
    h('span', { role: 'status', 'aria-label': 'Turn' }, turnText(state)),
    h(Clock, { state, hidden: !showClock }));
}
