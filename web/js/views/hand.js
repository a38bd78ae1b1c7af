// One's hand: a toolbar of card buttons, one tab stop, the arrow keys,
// Home and End moving within it, Enter or Space playing (or choosing) the
// card. Hidden cards (blind nil offered) are shown as backs.

import { cx, h } from '../dom.js';
import { handSizeOf } from '../state.js';
import { CardBack, CardButton } from './card.js';

const MOVES = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };

// Arrow keys move within the hand; Tab leaves it (one tab stop).
function moveInHand(event, cards, actions) {
  const buttons = [...event.currentTarget.querySelectorAll('button')];
  const index = buttons.indexOf(document.activeElement);
  if (index < 0) return;
  let target;
  if (event.key in MOVES) target = index + MOVES[event.key];
  else if (event.key === 'Home') target = 0;
  else if (event.key === 'End') target = buttons.length - 1;
  else return;
  event.preventDefault();
  const next = buttons[Math.max(0, Math.min(buttons.length - 1, target))];
  for (const button of buttons) button.tabIndex = button === next ? 0 : -1;
  actions.focusCard(cards[buttons.indexOf(next)]);
  next.focus();
}

/** Whether the hand is on show at all. */
export function handShown(state) {
  return state.seat !== null && state.phase !== 'waiting' && state.phase !== 'game over';
}

export function Hand({ state, view, actions }) {
  if (!handShown(state)) return h('div', { class: 'hand', hidden: true });
  if (state.hidden) {
    const count = state.handSizes[state.seat] || handSizeOf(state.rules);
    return h('div', { class: 'hand', role: 'toolbar', 'aria-label': 'Your hand (hidden)' },
      Array.from({ length: count }, (_, at) => h(CardBack, { key: at, extra: 'in-hand' })));
  }
  const legal = state.legalCards;
  const choosing = state.passCount > 0;
  const received = state.exchange.got;
  const cards = state.sortedHand;
  // One tab stop: the card last focused, else the first playable one.
  const enabled = (card) => choosing || legal.includes(card);
  const stop = cards.find((card) => card === view.handFocus) ?? cards.find(enabled) ?? cards[0];
  return h('div', {
    // Cards look unplayable only when a choice is being made; the rest of
    // the time the hand is simply shown. A three-player hand of 17 or 18
    // cards overlaps more to fit the screen.
    class: cx('hand', (choosing || state.expected === 'play') && 'acting', cards.length > 13 && 'many'),
    role: 'toolbar',
    'aria-label': choosing ? `Your hand: choose ${state.passCount} cards` : 'Your hand',
    onkeydown: (event) => moveInHand(event, cards, actions),
  }, cards.map((card) => h(CardButton, {
    key: card,
    card,
    enabled: enabled(card),
    pressed: choosing ? view.selected.includes(card) : undefined,
    extra: cx(received.includes(card) && 'received', view.selected.includes(card) && 'selected'),
    tabIndex: card === stop ? 0 : -1,
    onclick: () => actions.pressCard(card),
  })));
}
