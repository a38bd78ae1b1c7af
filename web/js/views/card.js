// Card faces drawn with CSS: the rank and the suit symbol in a corner and
// a large symbol in the middle. Suits differ by symbol as well as colour,
// and each card carries its spoken name ("queen of hearts").

import { h } from '../dom.js';
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
  return ['card', isRed(card) ? 'red' : 'black', kind, extra]
    .filter(Boolean).join(' ');
}

/** A card that is only looked at (a trick, a replay), with its name for screen readers. */
export function cardFace(card, { label, testid, seat, extra } = {}) {
  return h('div', {
    class: faceClass(card, extra),
    role: 'img',
    'aria-label': label ?? cardName(card),
    'data-card': card,
    'data-testid': testid,
    'data-seat': seat,
  }, faceParts(card));
}

/** A card that can be pressed: a real button named after the card. */
export function cardButton(card, { testid = 'hand-card', onclick, ...looks } = {}) {
  const button = h('button', {
    type: 'button',
    'aria-label': cardName(card),
    'data-card': card,
    'data-testid': testid,
    onclick,
  }, faceParts(card));
  setCardButton(button, looks);
  return button;
}

/**
 * Sets how a card button looks (playable or not, chosen or not) on the
 * button already on the page. Only what differs is written, so that a
 * hand whose cards stay the same costs the browser no new elements and
 * keeps the keyboard's focus where it is.
 */
export function setCardButton(button, { enabled = true, pressed, extra } = {}) {
  const wanted = {
    class: faceClass(button.dataset.card, extra),
    'aria-disabled': enabled ? null : 'true',
    'aria-pressed': pressed === undefined ? null : String(pressed),
    'data-legal': String(enabled),
  };
  for (const [name, value] of Object.entries(wanted)) {
    if (button.getAttribute(name) === value) continue;
    if (value === null) button.removeAttribute(name);
    else button.setAttribute(name, value);
  }
}

/** The back of a card, for the hidden hands. */
export function cardBack(extra) {
  return h('div', { class: ['card', 'back', extra].filter(Boolean).join(' '), 'aria-hidden': 'true' });
}
