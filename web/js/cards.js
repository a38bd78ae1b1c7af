// Cards as the protocol writes them: two characters, rank then suit
// ("QH" is the queen of hearts, "TS" the ten of spades). Everything here is
// pure so that the state, the replays and the tests can share it.

export const RANKS = '23456789TJQKA';
export const SUITS = 'CDHS';

export const SUIT_NAMES = { S: 'spades', H: 'hearts', D: 'diamonds', C: 'clubs' };
export const SUIT_SYMBOLS = { S: '\u2660', H: '\u2665', D: '\u2666', C: '\u2663' };

const RANK_NAMES = {
  2: 'two', 3: 'three', 4: 'four', 5: 'five', 6: 'six', 7: 'seven', 8: 'eight',
  9: 'nine', T: 'ten', J: 'jack', Q: 'queen', K: 'king', A: 'ace',
};

// The hand is shown spades, hearts, clubs, diamonds so that the colours
// alternate, which makes a long hand easier to read at a glance.
const DISPLAY_SUIT_ORDER = { S: 0, H: 1, C: 2, D: 3 };

export const rankOf = (card) => card[0];
export const suitOf = (card) => card[1];
export const rankValue = (card) => RANKS.indexOf(card[0]);
export const isRed = (card) => card[1] === 'H' || card[1] === 'D';

export function isCard(text) {
  return typeof text === 'string' && text.length === 2
    && RANKS.includes(text[0]) && SUITS.includes(text[1]);
}

/** "queen of hearts": the accessible name of a card. */
export function cardName(card) {
  return `${RANK_NAMES[rankOf(card)]} of ${SUIT_NAMES[suitOf(card)]}`;
}

/** The rank as printed on a card face: "10" rather than "T". */
export function rankLabel(card) {
  return rankOf(card) === 'T' ? '10' : rankOf(card);
}

/** "Q♥": a short form for logs and tables. */
export function shortName(card) {
  return rankLabel(card) + SUIT_SYMBOLS[suitOf(card)];
}

/** A copy of the cards in the order a hand is shown: by suit, high to low. */
export function sortForDisplay(cards) {
  return [...cards].sort((a, b) =>
    DISPLAY_SUIT_ORDER[suitOf(a)] - DISPLAY_SUIT_ORDER[suitOf(b)] || rankValue(b) - rankValue(a));
}

/** A copy in the protocol's own order for sets: spades, hearts, diamonds, clubs, high first. */
export function sortForProtocol(cards) {
  return [...cards].sort((a, b) =>
    SUITS.indexOf(suitOf(b)) - SUITS.indexOf(suitOf(a)) || rankValue(b) - rankValue(a));
}

/** The seat that wins a complete trick, given its leader and cards in play order. */
export function trickWinner(leader, cards) {
  let best = 0;
  for (let i = 1; i < cards.length; i += 1) {
    const a = cards[best];
    const b = cards[i];
    const beats = suitOf(b) === suitOf(a)
      ? rankValue(b) > rankValue(a)
      : suitOf(b) === 'S';
    if (beats) best = i;
  }
  return (leader + best) % 4;
}
