// Cards as the protocol writes them: two characters, rank then suit
// ("QH" is the queen of hearts, "TS" the ten of spades), and "BJ" and "LJ"
// for the big and little joker of the joker pack. Everything here is pure
// so that the state, the replays and the tests can share it.
//
// The order of the trumps depends on the room's pack (`rules.deck`): in the
// `jokers` pack the big joker, the little joker and then the two of spades
// rank above the ace, and in `deuce_high` the two of spades does. Functions
// that compare cards take the pack's name, `standard` when it is left out.

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

export const isJoker = (card) => card === 'BJ' || card === 'LJ';
export const rankOf = (card) => card[0];
/** The suit a card follows as: the jokers are spades. */
export const suitOf = (card) => (isJoker(card) ? 'S' : card[1]);
export const isRed = (card) => card === 'BJ' || card[1] === 'H' || card[1] === 'D';

/** How high a card stands within the suit it follows, in the given pack. */
export function rankValue(card, deck = 'standard') {
  if (card === 'BJ') return 15;
  if (card === 'LJ') return 14;
  if (card === '2S' && deck !== 'standard') return 13;
  return RANKS.indexOf(card[0]);
}

export function isCard(text) {
  return typeof text === 'string' && text.length === 2
    && (isJoker(text) || (RANKS.includes(text[0]) && SUITS.includes(text[1])));
}

/** "queen of hearts", "big joker": the accessible name of a card. */
export function cardName(card) {
  if (card === 'BJ') return 'big joker';
  if (card === 'LJ') return 'little joker';
  return `${RANK_NAMES[rankOf(card)]} of ${SUIT_NAMES[suitOf(card)]}`;
}

/** The rank as printed on a card face: "10" rather than "T", and "BIG" or "LITTLE" on a joker. */
export function rankLabel(card) {
  if (card === 'BJ') return 'BIG';
  if (card === 'LJ') return 'LITTLE';
  return rankOf(card) === 'T' ? '10' : rankOf(card);
}

/** The symbol printed on a card: its suit's, or a star on a joker. */
export function cardSymbol(card) {
  return isJoker(card) ? '\u2605' : SUIT_SYMBOLS[suitOf(card)];
}

/** "Q♥", "big joker": a short form for logs and tables. */
export function shortName(card) {
  return isJoker(card) ? cardName(card) : rankLabel(card) + SUIT_SYMBOLS[suitOf(card)];
}

/** A copy of the cards in the order a hand is shown: by suit, high to low. */
export function sortForDisplay(cards, deck = 'standard') {
  return [...cards].sort((a, b) =>
    DISPLAY_SUIT_ORDER[suitOf(a)] - DISPLAY_SUIT_ORDER[suitOf(b)]
      || rankValue(b, deck) - rankValue(a, deck));
}

/** A copy in the protocol's own order for sets: spades, hearts, diamonds, clubs, high first. */
export function sortForProtocol(cards, deck = 'standard') {
  return [...cards].sort((a, b) =>
    SUITS.indexOf(suitOf(b)) - SUITS.indexOf(suitOf(a)) || rankValue(b, deck) - rankValue(a, deck));
}

/**
 * The seat that wins a complete trick, given its leader, its cards in play
 * order and the pack. A complete trick holds a card from each player, so
 * its length is the number of seats it went round.
 */
export function trickWinner(leader, cards, deck = 'standard') {
  let best = 0;
  for (let i = 1; i < cards.length; i += 1) {
    const a = cards[best];
    const b = cards[i];
    const beats = suitOf(b) === suitOf(a)
      ? rankValue(b, deck) > rankValue(a, deck)
      : suitOf(b) === 'S';
    if (beats) best = i;
  }
  return (leader + best) % cards.length;
}
