// Cards as the protocol writes them: two characters, rank then suit
// ("QH" is the queen of hearts, "TS" the ten of spades), and "BJ" and "LJ"
// for the big and little joker of the joker pack. Everything here is pure
// so that the state, the replays and the tests can share it.
//
// The order of the trumps depends on the room's pack (`rules.deck`): in the
// `jokers` and `new_york` packs the big joker, the little joker and then
// the two of spades rank above the ace, in `new_york_city` the two of
// diamonds follows them (above the ace, and a spade for following suit),
// and in `deuce_high` the two of spades does. A raised two keeps its
// string ("2S", "2D") and its name. Functions that compare cards take the
// pack's name, `standard` when it is left out.

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
/** Whether a card is New York City's trump two of diamonds in the given pack. */
const isTrumpDiamond = (card, deck) => card === '2D' && deck === 'new_york_city';
/**
 * The suit a card follows as in the given pack: the jokers are spades, and
 * so is the two of diamonds in `new_york_city`. Without a pack, the suit
 * printed on the card.
 */
export const suitOf = (card, deck = 'standard') => (isJoker(card) || isTrumpDiamond(card, deck) ? 'S' : card[1]);
/** Whether three players keep the twos of clubs and hearts (54 cards, 18 each) with this pack. */
export const fullPackForThree = (deck) => deck === 'jokers' || deck === 'new_york_city';
export const isRed = (card) => card === 'BJ' || card[1] === 'H' || card[1] === 'D';

/** How high a card stands within the suit it follows, in the given pack. */
export function rankValue(card, deck = 'standard') {
  if (card === 'BJ') return 16;
  if (card === 'LJ') return 15;
  if (card === '2S' && deck !== 'standard') return 14;
  if (isTrumpDiamond(card, deck)) return 13;
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
    DISPLAY_SUIT_ORDER[suitOf(a, deck)] - DISPLAY_SUIT_ORDER[suitOf(b, deck)]
      || rankValue(b, deck) - rankValue(a, deck));
}

/** A copy in the protocol's own order for sets: spades, hearts, diamonds, clubs, high first. */
export function sortForProtocol(cards, deck = 'standard') {
  return [...cards].sort((a, b) =>
    SUITS.indexOf(suitOf(b, deck)) - SUITS.indexOf(suitOf(a, deck)) || rankValue(b, deck) - rankValue(a, deck));
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
    const beats = suitOf(b, deck) === suitOf(a, deck)
      ? rankValue(b, deck) > rankValue(a, deck)
      : suitOf(b, deck) === 'S';
    if (beats) best = i;
  }
  return (leader + best) % cards.length;
}
