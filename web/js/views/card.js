// Card faces drawn with CSS: the rank and the suit symbol in a corner and
// a large symbol in the middle. Suits differ by symbol as well as colour,
// and each card carries its spoken name ("queen of hearts").

import { cx, h } from '../dom.js';
import { cardName, cardSymbol, isJoker, isRed, rankLabel, suitOf } from '../cards.js';

function faceParts(card) {
  const symbol = cardSymbol(card);
  return [
    h('span', { class: 'card-corner', 'aria-hidden': 'true' },
      h('span', { class: 'card-rank' }, rankLabel(card)),
      h('span', { class: 'card-suit' }, symbol)),
    h('span', { class: 'card-pip', 'aria-hidden': 'true' }, symbol),
  ];
}

function faceClass(card, extra) {
  const kind = isJoker(card) ? 'joker' : `suit-${suitOf(card).toLowerCase()}`;
  return cx('card', isRed(card) ? 'red' : 'black', kind, extra);
}

/**
 * A card that is only looked at (a trick, a replay): an image named after
 * the card, or `label` ("Ann (partner) played queen of hearts").
 */
export function CardFace({ card, label, extra, hidden = false }) {
  // A hidden face is only drawn (a trick on its way to its winner while
  // the next is already played): the page's words are about the new one.
  if (hidden) return h('div', { class: faceClass(card, extra), 'aria-hidden': 'true' }, faceParts(card));
  return h('div', { class: faceClass(card, extra), role: 'img', 'aria-label': label ?? cardName(card) }, faceParts(card));
}

/**
 * A card that can be pressed: a real button named after the card.
 * `enabled` false makes it `aria-disabled` (it stays focusable, so that
 * the arrow keys still move over it); `pressed` is for choosing cards.
 */
export function CardButton({ card, enabled = true, pressed, extra, tabIndex, onclick }) {
  return h('button', {
    type: 'button',
    class: faceClass(card, extra),
    'aria-label': cardName(card),
    'aria-disabled': enabled ? null : 'true',
    'aria-pressed': pressed === undefined ? null : String(pressed),
    tabIndex,
    onclick,
  }, faceParts(card));
}

/** The back of a card, for the hidden hands. */
export function CardBack({ extra }) {
  return h('div', { class: cx('card', 'back', extra), 'aria-hidden': 'true' });
}
