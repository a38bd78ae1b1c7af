// Deals anyone can verify (protocol.md, "Verifiable deals"): the server
// commits to a game's seed when the game starts and publishes the seed
// with the hand history once it is over. This module checks, in the
// browser and with nothing from the server but the history, that the seed
// is the one committed to, that every hand was dealt from it exactly as
// the engine deals (crates/engine/src/rng.rs, docs/rules.md "The deal"),
// and that the cards were then played by the rules of play. It does not
// score the bids again: the server's `spades verify` command replays whole
// games with the engine and checks the scores too.
//
// Pure: no DOM and no storage, so that the tests run it in Node.

import { fullPackForThree, rankValue, shortName, sortForProtocol, suitOf, trickWinner, SUITS } from './cards.js';
import { SEAT_NAMES } from './seating.js';

const MASK = (1n << 64n) - 1n;
const TWO_TO_64 = 1n << 64n;

/** How many shuffle draws come from one 64-bit output, as rng.rs's BATCH. */
const BATCH = 6;

const rotl = (x, k) => ((x << k) | (x >> (64n - k))) & MASK;

/**
 * The engine's generator, draw for draw: xoshiro256++ seeded from a u64 by
 * SplitMix64 (as rand_xoshiro's `seed_from_u64`), Lemire's unbiased
 * `below`, and the shuffle with draws batched six to an output. Numbers
 * are BigInts cut to 64 bits, since a JavaScript number holds only 53.
 */
export class GameRng {
  /** @param {bigint} seed  from 0 to 2^64 - 1 */
  constructor(seed) {
    let x = BigInt.asUintN(64, BigInt(seed));
    const splitMix = () => {
      x = (x + 0x9e3779b97f4a7c15n) & MASK;
      let z = x;
      z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
      z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
      return z ^ (z >> 31n);
    };
    // rand_xoshiro fills the 32 bytes of state with SplitMix64's outputs,
    // little-endian, and reads them back as four words in the same order.
    this.s = [splitMix(), splitMix(), splitMix(), splitMix()];
  }

  /** The next 64-bit output, as a BigInt. */
  nextU64() {
    const s = this.s;
    const result = (rotl((s[0] + s[3]) & MASK, 23n) + s[0]) & MASK;
    const t = (s[1] << 17n) & MASK;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45n);
    return result;
  }

  /** A uniform whole number in `0..n`, by Lemire's multiply-and-reject. */
  below(n) {
    const range = BigInt(n);
    let m = this.nextU64() * range;
    if ((m & MASK) < range) {
      // The threshold is 2^64 mod n; computing it only when the low half
      // is that small saves a division almost every time, as rng.rs does.
      const threshold = (TWO_TO_64 - range) % range;
      while ((m & MASK) < threshold) m = this.nextU64() * range;
    }
    return Number(m >> 64n);
  }

  /**
   * Shuffles `items` in place and returns it: Fisher-Yates from the last
   * place down, the draws for six places taken from one output. Exact for
   * lists up to a few hundred items (a pack is 51 to 54), as in the engine.
   */
  shuffle(items) {
    let top = items.length;
    const swapFrom = (draws) => draws.forEach((draw, t) => {
      const place = top - 1 - t;
      [items[place], items[draw]] = [items[draw], items[place]];
    });
    while (top > BATCH) {
      swapFrom(this.batch(top, BATCH));
      top -= BATCH;
    }
    if (top > 1) swapFrom(this.batch(top, top - 1));
    return items;
  }

  /**
   * `count` uniform draws from the ranges `top`, `top - 1`, ... out of one
   * output (Brackett-Rozinsky and Lemire): each range's draw is the high
   * half of `x * range` and the low half is the next `x`; the batch is
   * drawn again when the last `x` falls below 2^64 mod the ranges' product.
   */
  batch(top, count) {
    let product = 1n;
    for (let t = 0; t < count; t += 1) product *= BigInt(top - t);
    // rng.rs also accepts `x >= product`, which this implies: 2^64 mod
    // the product is below the product.
    const threshold = (TWO_TO_64 - product) % product;
    for (;;) {
      let x = this.nextU64();
      const draws = [];
      for (let t = 0; t < count; t += 1) {
        const m = x * BigInt(top - t);
        draws.push(Number(m >> 64n));
        x = m & MASK;
      }
      if (x >= threshold) return draws;
    }
  }
}

/** The cards each pack leaves out of the standard 52 for four players, and the jokers it adds. */
const PACKS = {
  standard: { out: [], jokers: false },
  jokers: { out: ['2C', '2H'], jokers: true },
  deuce_high: { out: [], jokers: false },
  new_york: { out: ['2D', '2H'], jokers: true },
  new_york_city: { out: ['2C', '2H'], jokers: true },
};

/** Where a card stands in the engine's byte order: by suit as the pack ranks it, then by rank. */
const byteOrder = (deck) => (card) => SUITS.indexOf(suitOf(card, deck)) * 32 + rankValue(card, deck);

/**
 * The pack dealt to `players` players, in the order the engine shuffles it
 * from (the cards' bytes, crates/engine/src/card/mod.rs): clubs, diamonds,
 * hearts, then spades with the cards a pack raises above the ace after it
 * (the two of diamonds, the two of spades, the little and the big joker).
 * Three players drop the two of clubs (51 cards), except with the packs
 * that put the twos of clubs and hearts out for the jokers, which take
 * those twos back (54 cards). Null for a pack this page does not know.
 */
export function packOrder(deck = 'standard', players = 4) {
  const pack = PACKS[deck];
  if (!pack) return null;
  let cards = [...SUITS].flatMap((suit) => [...'23456789TJQKA'].map((rank) => rank + suit))
    .filter((card) => !pack.out.includes(card));
  if (pack.jokers) cards.push('LJ', 'BJ');
  if (players === 3) {
    cards = fullPackForThree(deck) ? [...cards, '2C', '2H'] : cards.filter((card) => card !== '2C');
  }
  const order = byteOrder(deck);
  return cards.sort((a, b) => order(a) - order(b));
}

/**
 * The first `count` deals of a game of these rules from `seed`: the first
 * dealer is the generator's first draw, then each hand's pack is shuffled
 * and dealt one card at a time from the dealer's left, and the deal moves
 * one seat to the left. Each seat's cards are listed highest first, as in
 * the history. Nothing else in a game draws from the generator, so the
 * deals do not depend on the play.
 */
export function deals(ruleSet, seed, count) {
  const players = ruleSet?.players === 3 ? 3 : 4;
  const deck = ruleSet?.deck ?? 'standard';
  const pack = packOrder(deck, players);
  if (!pack) throw new Error(`unknown pack ${deck}`);
  const rng = new GameRng(BigInt(seed));
  let dealer = rng.below(players);
  const result = [];
  for (let hand = 0; hand < count; hand += 1) {
    const shuffled = rng.shuffle([...pack]);
    const hands = Array.from({ length: players }, () => []);
    shuffled.forEach((card, k) => hands[(dealer + 1 + (k % players)) % players].push(card));
    result.push({ dealer, hands: hands.map((cards) => sortForProtocol(cards, deck)) });
    dealer = (dealer + 1) % players;
  }
  return result;
}

const COMMITMENT_PREFIX = 'spades-deal-v1:';

/**
 * The commitment to a game's seed: the lowercase hex SHA-256 of
 * `spades-deal-v1:{game_id}:{seed}`, the seed in decimal. Null when the
 * page cannot hash: browsers give `crypto.subtle` only to secure pages
 * (https, or the machine's own address), and a promise of a check that
 * was not made would be worse than none.
 */
export async function dealCommitment(gameId, seed) {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return null;
  const text = `${COMMITMENT_PREFIX}${gameId}:${BigInt(seed).toString()}`;
  const digest = await subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * The sentence shown when the page cannot hash (see `dealCommitment`): a
 * whole sentence, unlike the faults, since it is shown alone.
 */
export const NEEDS_SECURE_PAGE = 'The deal check needs a secure (https) page.';

/**
 * The seed as the server writes it, a decimal string, read as a BigInt;
 * null when it is not a number from 0 to 2^64 - 1. A leading `+` and
 * leading zeros are read, as Rust's own parsing of a u64 reads them.
 */
export function parseSeed(text) {
  if (typeof text !== 'string' || !/^\+?[0-9]+$/.test(text)) return null;
  const seed = BigInt(text.replace(/^\+/, ''));
  return seed <= MASK ? seed : null;
}

const seatName = (seat) => SEAT_NAMES[seat] ?? `seat ${seat}`;
const cardText = (card) => (typeof card === 'string' && card.length === 2 ? shortName(card) : JSON.stringify(card));
const sameCards = (a, b) => Array.isArray(a) && a.length === b.length && new Set(a).size === a.length && a.every((card) => b.includes(card));
const isSeat = (seat, players) => Number.isInteger(seat) && seat >= 0 && seat < players;

/**
 * Checks a finished game's history (the lines of GET
 * /api/games/{id}/history, one game): that every line names the same
 * game, seed and commitment; that the seed is the one committed to, and
 * the commitment the one the player was sent when the game started, when
 * the caller has it (`commitment`); then, hand by hand, the numbering, the
 * deal, the exchanges and the tricks. Resolves with `{ok: true, hands}` or
 * `{ok: false, hand, reason}`, `hand` counted from 0 as in the records and
 * null for a fault of the whole game; `unchecked: true` is added when the
 * page could not check at all (no `crypto.subtle`).
 */
export async function verifyHistory(records, { commitment } = {}) {
  const fault = (hand, reason, extra = {}) => ({ ok: false, hand, reason, ...extra });
  if (!Array.isArray(records) || !records.length) return fault(null, 'the history has no hands');
  const first = records[0];
  const { game_id: gameId, seed: seedText, deal_commitment: committed } = first;
  if (typeof gameId !== 'string' || typeof seedText !== 'string' || typeof committed !== 'string') {
    return fault(null, 'the history has no game id, seed and commitment: only a finished game\'s stored history can be checked');
  }
  const other = records.findIndex((line) => line?.game_id !== gameId || line.seed !== seedText || line.deal_commitment !== committed);
  if (other >= 0) return fault(null, `hand ${other + 1} names another game, seed or commitment than hand 1`);
  const seed = parseSeed(seedText);
  if (seed === null) return fault(null, `the seed ${JSON.stringify(seedText)} is not a number from 0 to 2^64 - 1`);
  const computed = await dealCommitment(gameId, seed);
  if (computed === null) return fault(null, NEEDS_SECURE_PAGE, { unchecked: true });
  if (computed !== committed) return fault(null, 'the seed does not match the commitment');
  if (commitment !== undefined && commitment !== null && String(commitment).trim().toLowerCase() !== committed) {
    return fault(null, 'the history\'s commitment is not the one this browser received when the game started');
  }

  const ruleSet = first.rule_set;
  const players = ruleSet?.players === 3 ? 3 : 4;
  if (!ruleSet || !packOrder(ruleSet.deck ?? 'standard', players)) {
    return fault(null, 'the history does not give a rule set this page knows');
  }
  const dealt = deals(ruleSet, seed, records.length);
  for (let index = 0; index < records.length; index += 1) {
    const record = records[index];
    if (record.hand !== index) return fault(index, 'the hands are not numbered in order from the first');
    if (index > 0 && records[index - 1].winner !== null && records[index - 1].winner !== undefined) {
      return fault(index, 'the game was already over');
    }
    let problem;
    try {
      problem = dealProblem(record, dealt[index], players) ?? playProblem(record, ruleSet, players);
    } catch {
      // A field missing or of the wrong kind deep in the record: the
      // history cannot be read, which the player must hear, not a crash.
      problem = 'the record of this hand is not in the hand-history format';
    }
    if (problem) return fault(index, problem);
  }
  return { ok: true, hands: records.length };
}

/** Why a hand's dealer or cards are not the seed's, or null. */
function dealProblem(record, deal, players) {
  if (record.dealer !== deal.dealer) {
    return `the record says ${seatName(record.dealer)} dealt, but the seed makes ${seatName(deal.dealer)} the dealer`;
  }
  if (!Array.isArray(record.hands) || record.hands.length !== players) return `the record does not give ${players} hands`;
  for (let seat = 0; seat < players; seat += 1) {
    if (!sameCards(record.hands[seat], deal.hands[seat])) return `the cards of ${seatName(seat)} are not the ones the seed dealt`;
  }
  return null;
}

/**
 * The club that leads the first trick when the rules say the two of clubs
 * leads: the lowest club of the pack dealt, which is the three where the
 * two is out (the joker packs at four, every other pack at three).
 */
function lowestClub(deck, players) {
  const twoIn = players === 3 ? fullPackForThree(deck) : !fullPackForThree(deck);
  return twoIn ? '2C' : '3C';
}

/**
 * Why the exchanges and tricks of a hand break the rules of play, or
 * null: every card given or played must be held by its player at that
 * moment; the leads follow the rule set's `leading` and `spades_lead`;
 * each player follows suit when he can; each trick goes to its highest
 * spade, or else to the highest card of the suit led, and its winner leads
 * the next; every card is played and the tricks add up to `tricks_won`.
 */
function playProblem(record, ruleSet, players) {
  const deck = ruleSet.deck ?? 'standard';
  const held = record.hands.map((cards) => new Set(cards));
  const problem = exchangeProblem(record, ruleSet, held, players);
  if (problem) return problem;
  if (!Array.isArray(record.tricks)) return 'the record has no tricks';
  const won = Array.from({ length: players }, () => 0);
  let spadesBroken = false;
  let leader = firstLeader(record, ruleSet, held, players);
  for (const [t, trick] of record.tricks.entries()) {
    const number = t + 1;
    if (!Array.isArray(trick.cards) || trick.cards.length !== players) return `trick ${number} does not have ${players} cards`;
    if (trick.leader !== leader) {
      return t === 0
        ? `trick 1 was led by ${seatName(trick.leader)}, but the rules make ${seatName(leader)} lead it`
        : `trick ${number} was led by ${seatName(trick.leader)}, but ${seatName(leader)} won the trick before`;
    }
    const led = suitOf(trick.cards[0], deck);
    for (const [i, card] of trick.cards.entries()) {
      const seat = (leader + i) % players;
      const hand = held[seat];
      if (!hand.has(card)) return `trick ${number}: ${seatName(seat)} plays ${cardText(card)}, which he does not hold`;
      if (i === 0) {
        const leadProblem = leadRule(card, hand, { ruleSet, deck, players, t, spadesBroken });
        if (leadProblem) return `trick ${number}: ${seatName(seat)} ${leadProblem}`;
      } else if (suitOf(card, deck) !== led && [...hand].some((other) => suitOf(other, deck) === led)) {
        return `trick ${number}: ${seatName(seat)} plays ${cardText(card)} but holds a card of the suit led`;
      }
      hand.delete(card);
      if (suitOf(card, deck) === 'S') spadesBroken = true;
    }
    const winner = trickWinner(leader, trick.cards, deck);
    if (trick.winner !== winner) {
      return `trick ${number} was won by ${seatName(winner)}, not ${seatName(trick.winner)} as recorded`;
    }
    won[winner] += 1;
    leader = winner;
  }
  if (held.some((hand) => hand.size)) return 'the hand ends with cards not played';
  if (!Array.isArray(record.tricks_won) || won.some((count, seat) => record.tricks_won[seat] !== count)) {
    return 'the tricks won differ from the tricks played';
  }
  return null;
}

/**
 * Moves the exchanged cards, or says why one cannot be made: each pass
 * goes to the giver's partner with cards he holds. In a simultaneous
 * exchange (the rule set's, or the one of two partners who both bid nil)
 * both partners chose before either got the other's cards, so the second
 * giver cannot hand back what the first gave him.
 */
function exchangeProblem(record, ruleSet, held, players) {
  if (!Array.isArray(record.passes)) return 'the record has no list of exchanges';
  const nil = (seat) => (record.bids ?? []).some((bid) => bid.seat === seat && bid.bid === 0);
  const received = held.map(() => new Set());
  for (const pass of record.passes) {
    const { from, to, cards } = pass;
    if (!isSeat(from, players) || ruleSet.partners === false || players !== 4 || to !== (from + 2) % 4) {
      return `${seatName(from)} gives cards to ${seatName(to)}, who is not his partner`;
    }
    if (!Array.isArray(cards) || new Set(cards).size !== cards.length) return `${seatName(from)} gives a card twice`;
    const simultaneous = ruleSet.pass_order === 'simultaneous' || (nil(from) && nil(to));
    for (const card of cards) {
      if (!held[from].has(card) || (simultaneous && received[from].has(card))) {
        return `${seatName(from)} gives ${cardText(card)}, which he does not hold`;
      }
    }
    for (const card of cards) {
      held[from].delete(card);
      held[to].add(card);
      received[to].add(card);
    }
  }
  return null;
}

/** The seat that must lead the first trick, after the exchanges. */
function firstLeader(record, ruleSet, held, players) {
  const left = (record.dealer + 1) % players;
  switch (ruleSet.leading) {
    case 'dealer': return record.dealer;
    case 'two_of_clubs': {
      const club = lowestClub(ruleSet.deck ?? 'standard', players);
      const holder = held.findIndex((hand) => hand.has(club));
      return holder >= 0 ? holder : left;
    }
    default: return left;
  }
}

/**
 * Why a lead breaks the rules, or null: the first lead of a hand is the
 * lowest club where the rules say so, and a spade may not be led while
 * spades are closed unless the leader holds nothing else.
 */
function leadRule(card, hand, { ruleSet, deck, players, t, spadesBroken }) {
  if (t === 0 && ruleSet.leading === 'two_of_clubs') {
    const club = lowestClub(deck, players);
    if (hand.has(club) && card !== club) return `leads ${cardText(card)} instead of ${cardText(club)}`;
  }
  const closed = ruleSet.spades_lead === 'any_time' ? false
    : !spadesBroken && (ruleSet.spades_lead !== 'from_fourth_trick' || t < 3);
  if (closed && suitOf(card, deck) === 'S' && [...hand].some((other) => suitOf(other, deck) !== 'S')) {
    return `leads ${cardText(card)} before spades are broken`;
  }
  return null;
}

/**
 * What the replay page says about a game's deals: `{kind: 'old'}` for a
 * game stored before deals were committed (no line carries the fields,
 * and this browser was sent no commitment for it); otherwise
 * verifyHistory's answer (`kind` 'verified' or 'failed') with the seed and
 * commitment it was about, and `received` when the history's commitment
 * was compared with the one this browser was sent when the game started.
 * `gameId` is the game the page asked for: another game's history, however
 * honest, is no proof for this one.
 */
export async function checkDeals(records, { gameId = null, received = null } = {}) {
  const lines = Array.isArray(records) ? records : [];
  const committed = lines.some((line) => 'seed' in line || 'deal_commitment' in line || 'game_id' in line);
  if (!committed && !received) return { kind: 'old' };
  let result;
  try {
    result = await verifyHistory(lines, { commitment: received });
  } catch {
    // Hashing refused by the browser, say: nothing was checked.
    result = { ok: false, hand: null, reason: 'The deals could not be checked in this browser.', unchecked: true };
  }
  if (result.ok && gameId && lines[0].game_id !== gameId.toLowerCase()) {
    result = { ok: false, hand: null, reason: 'the history is of another game' };
  }
  const first = lines[0] ?? {};
  return { kind: result.ok ? 'verified' : 'failed', ...result, seed: first.seed, commitment: first.deal_commitment, received: Boolean(received) };
}
