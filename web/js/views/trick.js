// The middle of the felt: the cards of the trick, each toward the seat
// that played it (a won trick stays a moment with its winner marked), and
// whose turn it is.

import { cx, h } from '../dom.js';
import { cardName } from '../cards.js';
import { TRICK_HOLD_MS, expectedText, positionOf, who } from '../seating.js';
import { CardFace } from './card.js';
import { Clock } from './clock.js';

/** The trick to show: the one being played, or the last one won a moment ago. */
export function shownTrick(state) {
  if (state.trick) return { trick: state.trick, won: false };
  const held = state.lastWon && state.now() < state.wonAt + TRICK_HOLD_MS;
  return held ? { trick: state.lastWon, won: true } : { trick: null, won: false };
}

/** The cards on the table; each new card deals itself in (`fresh`). */
export function Trick({ state }) {
  const { trick, won } = shownTrick(state);
  const plays = trick?.plays ?? [];
  return h('div', {
    class: cx('trick', !trick && state.phase !== 'playing' && 'idle'),
    role: 'group',
    'aria-label': 'Cards on the table',
    'data-count': plays.length,
  }, plays.map(({ seat, card }) => h(CardFace, {
    key: card,
    card,
    label: `${who(state, seat)} played ${cardName(card)}`,
    extra: cx('in-trick', 'fresh', `pos-${positionOf(state, seat)}`, won && trick.winner === seat && 'winner'),
  })));
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
