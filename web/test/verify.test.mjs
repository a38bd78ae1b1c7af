// Deals anyone can verify (js/verify.js): the generator against the
// values pinned in crates/engine/src/rng.rs, the deals and the play
// against games the engine itself played (fixtures/verify-sim, from
// `spades simulate`), changed histories refused at the right hand, the
// commitments the browser keeps, and the server's own verifier's cases
// (fixtures/verify) when they are there.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { parseLines } from '../js/api.js';
import { GameRng, NEEDS_SECURE_PAGE, checkDeals, dealCommitment, deals, packOrder, parseSeed, verifyHistory } from '../js/verify.js';
import { KEEP, receivedCommitment, rememberCommitment } from '../js/commitments.js';
import { DealCheck } from '../js/views/replay.js';
import { suitOf } from '../js/cards.js';
import { memoryStorage, readFixture } from './support.mjs';

const SIMULATED = readdirSync(new URL('fixtures/verify-sim/', import.meta.url)).filter((name) => name.endsWith('.jsonl')).sort();
const SERVER_CASES = new URL('fixtures/verify/', import.meta.url);

/** The seed of game `g` in a `spades simulate --seed 5` file (simulate.rs, `game_seeds`). */
const SIMULATE_SEEDS = (() => {
  const master = new GameRng(5n);
  return Array.from({ length: 3 }, () => master.nextU64());
})();

/**
 * Each game of a simulated file, its lines given the fields the server
 * adds to a stored game's (`game_id`, `seed`, `deal_commitment`), as the
 * history of a finished game gives them.
 */
async function simulatedGames(name) {
  const lines = parseLines(readFixture(`verify-sim/${name}`));
  const games = [];
  for (const number of [...new Set(lines.map((line) => line.game))]) {
    const seed = SIMULATE_SEEDS[number];
    const gameId = `5e1ec7ed-0000-4000-8000-${String(number).padStart(12, '0')}`;
    const commitment = await dealCommitment(gameId, seed);
    const records = lines.filter((line) => line.game === number)
      .map((line) => ({ ...line, game_id: gameId, seed: seed.toString(), deal_commitment: commitment }));
    games.push({ name, number, seed, gameId, commitment, records });
  }
  return games;
}

const allGames = async () => (await Promise.all(SIMULATED.map(simulatedGames))).flat();
const copy = (records) => structuredClone(records);
/** What the tests compare of a verdict: whether it passed, and where it failed. */
const pick = ({ ok, hand }) => ({ ok, hand });

/** Every card of a hand's tricks with who played it: `{t, i, seat, card}`. */
function plays(record) {
  const players = record.hands.length;
  return record.tricks.flatMap((trick, t) => trick.cards.map((card, i) => ({ t, i, seat: (trick.leader + i) % players, card })));
}
/** A classic game with three hands, for the changes below. */
const classicGame = async () => (await simulatedGames('classic.jsonl')).find((game) => game.records.length >= 3);

test('the generator draws what the engine draws for seed 0', () => {
  const rng = new GameRng(0n);
  assert.deepEqual(Array.from({ length: 8 }, () => rng.below(52)), [16, 19, 18, 0, 25, 1, 44, 43]);
  const shuffled = new GameRng(0n).shuffle(Array.from({ length: 52 }, (_, i) => i));
  assert.deepEqual(shuffled, [
    25, 36, 28, 22, 50, 2, 5, 18, 32, 49, 8, 6, 4, 39, 19, 47, 31, 46, 21, 43, 30, 24, 1, 45, 34, 41,
    23, 13, 20, 7, 9, 27, 12, 37, 48, 35, 3, 0, 42, 40, 14, 11, 15, 10, 26, 17, 29, 51, 33, 38, 44,
    16,
  ]);
  // Outputs stay within 64 bits, and seeds past 2^53 are kept whole.
  const big = new GameRng((1n << 64n) - 1n);
  for (let i = 0; i < 100; i += 1) {
    const x = big.nextU64();
    assert.ok(x >= 0n && x < 1n << 64n);
  }
  assert.notDeepEqual(new GameRng(2n ** 60n).nextU64(), new GameRng(2n ** 60n + 1n).nextU64());
});

test('the commitment is the documented digest', async () => {
  // The values pinned in crates/engine/src/verify.rs.
  assert.equal(await dealCommitment('00000000-0000-0000-0000-000000000000', 0n),
    'b1d5eafb4aec4ca0345b2006be8ddf83c59025ad9506a1af8b804a9798f721c2');
  assert.equal(await dealCommitment('6f9619ff-8b86-d011-b42d-00c04fc964ff', (1n << 64n) - 1n),
    'df17552a8cf48a4fabd45ed8414011c0aac91bbdfa95fe80de131d35437db916');
  assert.equal(parseSeed('18446744073709551615'), (1n << 64n) - 1n);
  assert.equal(parseSeed('18446744073709551616'), null);
  assert.equal(parseSeed('-1'), null);
  assert.equal(parseSeed('1e5'), null);
});

test('each pack starts its shuffle in the engine\'s order', () => {
  // crates/engine/src/deck.rs, each_pack_starts_its_shuffle_in_the_documented_order.
  const run = (suit, from) => [...'23456789TJQKA'.slice(from)].map((rank) => rank + suit);
  const expected = {
    standard: [...run('C', 0), ...run('D', 0), ...run('H', 0), ...run('S', 0)],
    jokers: [...run('C', 1), ...run('D', 0), ...run('H', 1), ...run('S', 1), '2S', 'LJ', 'BJ'],
    deuce_high: [...run('C', 0), ...run('D', 0), ...run('H', 0), ...run('S', 1), '2S'],
    new_york: [...run('C', 0), ...run('D', 1), ...run('H', 1), ...run('S', 1), '2S', 'LJ', 'BJ'],
    new_york_city: [...run('C', 1), ...run('D', 1), ...run('H', 1), ...run('S', 1), '2D', '2S', 'LJ', 'BJ'],
  };
  for (const [deck, order] of Object.entries(expected)) {
    assert.deepEqual(packOrder(deck, 4), order, deck);
    // Three players: the two of clubs out (51), or the twos of clubs and
    // hearts back in where the jokers put them out (54).
    const three = packOrder(deck, 3);
    const full = deck === 'jokers' || deck === 'new_york_city';
    assert.equal(three.length, full ? 54 : 51, deck);
    assert.equal(three.includes('2C'), full, deck);
    assert.equal(three.filter((card) => !order.includes(card)).sort().join(' '), full ? '2C 2H' : '', deck);
  }
  assert.deepEqual(packOrder('jokers', 3).slice(0, 2), ['2C', '3C'], 'in byte order, the two of clubs first');
  assert.equal(packOrder('no_such_pack'), null);
});

test('the deals are the engine\'s, for every pack, at four and at three', async () => {
  for (const { name, number, seed, records } of await allGames()) {
    const dealt = deals(records[0].rule_set, seed, records.length);
    records.forEach((record, hand) => {
      const where = `${name}, game ${number}, hand ${hand}`;
      assert.equal(dealt[hand].dealer, record.dealer, where);
      // Both list each hand highest first.
      assert.deepEqual(dealt[hand].hands, record.hands, where);
    });
  }
});

test('games the engine played pass the whole check', async () => {
  const games = await allGames();
  assert.ok(games.length >= 20);
  assert.ok(games.some((game) => game.records.some((record) => record.passes.length)), 'with exchanges');
  for (const { name, number, records, commitment } of games) {
    assert.deepEqual(await verifyHistory(records), { ok: true, hands: records.length }, `${name}, game ${number}`);
    assert.equal((await verifyHistory(records, { commitment: ` ${commitment.toUpperCase()} ` })).ok, true, 'the received commitment read loosely');
  }
});

test('a card changed in a dealt hand is refused at that hand', async () => {
  const { records } = await classicGame();
  // Two players' cards exchanged before the play: the play itself still holds.
  const traded = copy(records);
  const hands = traded[2].hands;
  [hands[0][0], hands[1][0]] = [hands[1][0], hands[0][0]];
  const result = await verifyHistory(traded);
  assert.equal(result.ok, false);
  assert.equal(result.hand, 2);
  assert.match(result.reason, /North are not the ones the seed dealt/);
  // A card that is not in the pack at all.
  const foreign = copy(records);
  foreign[1].hands[3][5] = 'BJ';
  assert.deepEqual(pick(await verifyHistory(foreign)), { ok: false, hand: 1 });
  // The dealer changed.
  const dealer = copy(records);
  dealer[1].dealer = (dealer[1].dealer + 1) % 4;
  assert.match((await verifyHistory(dealer)).reason, /the seed makes \w+ the dealer/);
});

test('two cards of different players swapped between tricks are refused at that hand', async () => {
  let tried = 0;
  for (const { name, records } of await allGames()) {
    for (const [hand, record] of records.entries()) {
      const all = plays(record);
      // A few pairs of each hand: cards from two tricks, played by two seats.
      for (let k = 0; k < all.length; k += 7) {
        const a = all[k];
        const b = all.find((other) => other.t > a.t && other.seat !== a.seat && (other.t + k) % 3 === 0);
        if (!b) continue;
        const changed = copy(records);
        changed[hand].tricks[a.t].cards[a.i] = b.card;
        changed[hand].tricks[b.t].cards[b.i] = a.card;
        assert.deepEqual(pick(await verifyHistory(changed)), { ok: false, hand }, `${name} hand ${hand}: ${a.card} and ${b.card}`);
        tried += 1;
      }
    }
  }
  assert.ok(tried > 200, `${tried} swaps`);
});

test('a player who does not follow suit, or leads a spade too soon, is refused', async () => {
  let revokes = 0;
  let leads = 0;
  for (const { records } of await allGames()) {
    const deck = records[0].rule_set.deck;
    for (const [hand, record] of records.entries()) {
      const all = plays(record);
      // One player's two cards swapped between two tricks: he held both, so
      // only the rules of play can tell.
      const spade = (card) => suitOf(card, deck) === 'S';
      // One change of each kind a hand, at most.
      const tried = { revoke: false, early: false };
      for (const a of all) {
        const led = suitOf(record.tricks[a.t].cards[0], deck);
        const later = all.filter((other) => other.t > a.t && other.seat === a.seat);
        // He followed suit, and plays another suit later: swapped, he
        // does not follow though he can.
        const revoke = !tried.revoke && a.i > 0 && suitOf(a.card, deck) === led && later.find((b) => suitOf(b.card, deck) !== led);
        // He led the second trick with another suit, no spade having
        // been played, and plays a spade later: swapped, he leads it.
        const early = !tried.early && a.i === 0 && a.t === 1 && record.rule_set.spades_lead === 'broken' && !spade(a.card)
          && !record.tricks[0].cards.some(spade) && later.find((b) => spade(b.card));
        const b = revoke || early;
        if (!b) continue;
        const changed = copy(records);
        changed[hand].tricks[a.t].cards[a.i] = b.card;
        changed[hand].tricks[b.t].cards[b.i] = a.card;
        const result = await verifyHistory(changed);
        assert.deepEqual(pick(result), { ok: false, hand });
        if (revoke) {
          assert.match(result.reason, new RegExp(`trick ${a.t + 1}: .* holds a card of the suit led`));
          tried.revoke = true;
          revokes += 1;
        } else {
          assert.match(result.reason, /trick 2: .* before spades are broken/);
          tried.early = true;
          leads += 1;
        }
      }
    }
  }
  assert.ok(revokes > 10 && leads > 10, `${revokes} revokes, ${leads} early spade leads`);
});

test('where the two of clubs leads, it must lead the first trick', async () => {
  for (const name of ['two-of-clubs.jsonl', 'three-player-jokers.jsonl', 'three-player.jsonl']) {
    const { records } = (await simulatedGames(name))[0];
    const club = records[0].tricks[0].cards[0];
    assert.equal(club, name === 'three-player.jsonl' ? '3C' : '2C', name);
    const all = plays(records[0]);
    const later = all.find((other) => other.t > 0 && other.seat === all[0].seat);
    const changed = copy(records);
    changed[0].tricks[0].cards[0] = later.card;
    changed[0].tricks[later.t].cards[later.i] = club;
    const result = await verifyHistory(changed);
    assert.deepEqual(pick(result), { ok: false, hand: 0 }, name);
    assert.match(result.reason, /trick 1: .* instead of 2♣|trick 1: .* instead of 3♣/, name);
  }
});

test('a wrong trick winner, leader or count of tricks is refused', async () => {
  const { records } = await classicGame();
  const winner = copy(records);
  const trick = winner[1].tricks[4];
  trick.winner = (trick.winner + 1) % 4;
  assert.deepEqual(pick(await verifyHistory(winner)), { ok: false, hand: 1 });
  const leader = copy(records);
  leader[2].tricks[0].leader = (leader[2].tricks[0].leader + 1) % 4;
  assert.deepEqual(pick(await verifyHistory(leader)), { ok: false, hand: 2 });
  const won = copy(records);
  won[0].tricks_won = [...won[0].tricks_won].reverse();
  if (won[0].tricks_won.join() !== records[0].tricks_won.join()) {
    assert.deepEqual(pick(await verifyHistory(won)), { ok: false, hand: 0 });
  }
  const short = copy(records);
  short[1].tricks.pop();
  assert.deepEqual(pick(await verifyHistory(short)), { ok: false, hand: 1 });
});

test('an exchange of cards the giver did not hold is refused', async () => {
  const game = (await simulatedGames('exchanges.jsonl'))[0];
  const hand = game.records.findIndex((record) => record.passes.length);
  const changed = copy(game.records);
  const pass = changed[hand].passes[0];
  const other = changed[hand].hands[pass.to].find((card) => !pass.cards.includes(card));
  pass.cards[0] = other;
  assert.deepEqual(pick(await verifyHistory(changed)), { ok: false, hand });
  const away = copy(game.records);
  away[hand].passes[0].to = (away[hand].passes[0].from + 1) % 4;
  assert.match((await verifyHistory(away)).reason, /not his partner/);
});

test('a wrong seed or commitment is refused for the whole game', async () => {
  const { records, gameId, seed, commitment } = await classicGame();
  const withFields = (changes) => records.map((line) => ({ ...line, ...changes }));
  // Another seed under the same commitment.
  const seedChanged = await verifyHistory(withFields({ seed: (seed + 1n).toString() }));
  assert.deepEqual(pick(seedChanged), { ok: false, hand: null });
  assert.match(seedChanged.reason, /does not match the commitment/);
  // Another commitment for the same seed.
  assert.deepEqual(pick(await verifyHistory(withFields({ deal_commitment: 'f'.repeat(64) }))), { ok: false, hand: null });
  // A seed made up afterwards, with a commitment to match: only the deals
  // (at the first hand) or the commitment received at the start tell.
  const madeUp = withFields({ seed: '12345', deal_commitment: await dealCommitment(gameId, 12345n) });
  assert.deepEqual(pick(await verifyHistory(madeUp)), { ok: false, hand: 0 });
  const notReceived = await verifyHistory(madeUp, { commitment });
  assert.deepEqual(pick(notReceived), { ok: false, hand: null });
  assert.match(notReceived.reason, /not the one this browser received/);
  // The commitment is bound to the game's id too.
  const otherGame = withFields({ game_id: '00000000-0000-4000-8000-000000000000' });
  assert.deepEqual(pick(await verifyHistory(otherGame)), { ok: false, hand: null });
});

test('lines without the fields, or that disagree, or out of order, are refused', async () => {
  const { records, seed } = await classicGame();
  const bare = records.map(({ game_id: _, seed: __, deal_commitment: ___, ...line }) => line);
  const missing = await verifyHistory(bare);
  assert.deepEqual(pick(missing), { ok: false, hand: null });
  assert.match(missing.reason, /no game id, seed and commitment/);
  const mixed = copy(records);
  mixed[2].seed = (seed + 1n).toString();
  assert.deepEqual(pick(await verifyHistory(mixed)), { ok: false, hand: null });
  const lacking = copy(records);
  delete lacking[1].deal_commitment;
  assert.deepEqual(pick(await verifyHistory(lacking)), { ok: false, hand: null });
  const skipped = [records[0], records[2]];
  assert.deepEqual(pick(await verifyHistory(skipped)), { ok: false, hand: 1 });
  const broken = copy(records);
  broken[1].tricks[3] = null;
  assert.deepEqual(await verifyHistory(broken), { ok: false, hand: 1, reason: 'the record of this hand is not in the hand-history format' });
  assert.deepEqual(pick(await verifyHistory([])), { ok: false, hand: null });
});

test('without crypto.subtle the page says it cannot check, and claims nothing', async (t) => {
  const { records } = await classicGame();
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'crypto');
  Object.defineProperty(globalThis, 'crypto', { value: {}, configurable: true });
  t.after(() => Object.defineProperty(globalThis, 'crypto', descriptor));
  assert.equal(await dealCommitment('x', 1n), null);
  const result = await verifyHistory(records);
  assert.deepEqual(result, { ok: false, hand: null, reason: NEEDS_SECURE_PAGE, unchecked: true });
  const shown = await checkDeals(records);
  assert.equal(text(DealCheck({ deals: shown })), 'The deal check needs a secure (https) page.');
});

/** The text of an element made with `h`, as a reader would get it. */
function text(node) {
  if (node === null || node === undefined || typeof node === 'boolean') return '';
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map(text).join('');
  return text(node.props.children);
}

test('the replay says what the check found, in a line', async () => {
  const { records, gameId, commitment, seed } = await classicGame();
  const count = records.length;
  const said = async (lines, options) => text(DealCheck({ deals: await checkDeals(lines, options) }));
  assert.equal(await said(records, { gameId }),
    `Deals verified. Hands 1–${count} were dealt from seed ${seed}, which matches the commitment ${commitment.slice(0, 12)}….`);
  assert.equal(await said(records, { gameId, received: commitment }),
    `Deals verified. Hands 1–${count} were dealt from seed ${seed}, which matches the commitment ${commitment.slice(0, 12)}…, the same commitment this browser received when the game started.`);
  const traded = copy(records);
  [traded[2].hands[0][0], traded[2].hands[1][0]] = [traded[2].hands[1][0], traded[2].hands[0][0]];
  assert.equal(await said(traded, { gameId }), 'Deal check failed: hand 3: the cards of North are not the ones the seed dealt.');
  assert.equal(await said(records, { gameId: '00000000-0000-4000-8000-000000000000' }), 'Deal check failed: the history is of another game.');
  assert.equal(await said(records, { gameId: gameId.toUpperCase() }).then((line) => line.startsWith('Deals verified.')), true);
  // A game stored before deals were committed is no alarm, unless this
  // browser was sent a commitment for it.
  const old = parseLines(readFixture('history.jsonl'));
  assert.equal(await said(old, {}), 'This game was stored before deals were committed.');
  assert.match(await said(old, { received: commitment }), /^Deal check failed: the history has no game id, seed and commitment/);
  assert.equal(text(DealCheck({ deals: null })), 'Checking the deals…');
});

test('the browser keeps the last games\' commitments, and copes without storage', () => {
  const storage = memoryStorage();
  for (let i = 0; i < KEEP + 5; i += 1) rememberCommitment(`game-${i}`, `c${i}`, storage);
  assert.equal(receivedCommitment('game-0', storage), null, 'the oldest are forgotten');
  assert.equal(receivedCommitment(`game-${KEEP + 4}`, storage), `c${KEEP + 4}`);
  assert.equal(JSON.parse(storage.getItem('spades.commitments')).length, KEEP);
  // A game seen again is kept as the newest, once.
  rememberCommitment('game-5', 'c5', storage);
  rememberCommitment('game-200', 'c200', storage);
  assert.equal(receivedCommitment('game-5', storage), 'c5');
  const refusing = { getItem() { throw new Error('denied'); }, setItem() { throw new Error('denied'); } };
  assert.doesNotThrow(() => rememberCommitment('g', 'c', refusing));
  assert.equal(receivedCommitment('g', refusing), null);
  assert.equal(receivedCommitment('g', memoryStorage({ 'spades.commitments': 'not json' })), null);
  assert.equal(receivedCommitment('g', undefined), null);
});

// The server's verifier (`spades verify --json`) over histories written by
// the server, each case with the verdict it gave. Cases marked `"js":
// false` turn on what this page does not check (the bids and scores).
test('the server verifier\'s cases get the same verdict here', async () => {
  assert.ok(existsSync(SERVER_CASES), 'the server writes fixtures/verify (SPADES_WRITE_FIXTURES=1)');
  const { cases } = JSON.parse(readFixture('verify/expected.json'));
  assert.ok(cases.length > 0);
  for (const entry of cases.filter((c) => c.js !== false)) {
    const records = parseLines(readFixture(`verify/${entry.file}`));
    const result = await verifyHistory(records, { commitment: entry.commitment ?? undefined });
    assert.deepEqual({ ok: result.ok, hand: result.hand ?? null }, { ok: entry.ok, hand: entry.hand ?? null },
      `${entry.file}: ${result.reason ?? 'verified'}`);
  }
});
