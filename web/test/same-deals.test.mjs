// Two games on the same deals side by side (js/same-deals.js): a game the
// server played and the one that played its deals again, everyone one
// seat to the left (fixtures/same-deals).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLines } from '../js/api.js';
import { compareDeals, otherGameId, sideBids, sideNames, signed } from '../js/same-deals.js';
import { readFixture } from './support.mjs';

const load = (name) => ({
  game: JSON.parse(readFixture(`same-deals/${name}.json`)),
  records: parseLines(readFixture(`same-deals/${name}.jsonl`)),
});
const first = load('first');
const again = load('again');

test('each game names the other', () => {
  assert.equal(otherGameId(again.game), first.game.id);
  assert.equal(otherGameId(first.game), again.game.id);
  assert.equal(otherGameId({ id: 'x', players: [] }), null);
  assert.equal(otherGameId({ id: 'x', same_deals_as: 'a', played_again: ['b'] }), 'a', 'the game it played again comes first');
});

test('the same cards are held by the other side, one seat to the left', () => {
  for (const [hand, record] of first.records.entries()) {
    assert.deepEqual(again.records[hand].hands, record.hands, `hand ${hand + 1} is dealt the same, seat by seat`);
  }
  // Every player sits one seat to the left of where he sat.
  for (const player of first.game.players.filter((p) => p.name === 'Dana')) {
    assert.equal(again.game.players.find((p) => p.name === 'Dana').seat, (player.seat + 1) % 4);
  }
});

test('a row per hand of both games: the North–South bids, tricks and points, and the difference', () => {
  const compared = compareDeals(first, again);
  assert.deepEqual(compared.side, [0, 2]);
  assert.equal(compared.sideName, 'North–South');
  assert.deepEqual(compared.names, [sideNames(first.game, [0, 2]), sideNames(again.game, [0, 2])]);
  assert.equal(compared.rows.length, first.records.length);
  for (const [index, row] of compared.rows.entries()) {
    const [a, b] = [first.records[index], again.records[index]];
    assert.equal(row.hand, index);
    assert.ok(row.sameCards);
    assert.equal(row.first.tricks, a.tricks_won[0] + a.tricks_won[2]);
    assert.equal(row.second.tricks, b.tricks_won[0] + b.tricks_won[2]);
    assert.equal(row.first.points, a.hand_score[0]);
    assert.equal(row.difference, b.hand_score[0] - a.hand_score[0]);
  }
  assert.equal(compared.total.difference, compared.rows.reduce((sum, row) => sum + row.difference, 0));
  assert.equal(compared.total.first, first.records.at(-1).score[0], 'the points add up to the first game\'s score');
});

test('only the hands both games played are compared', () => {
  const shorter = { game: again.game, records: again.records.slice(0, 1) };
  assert.deepEqual(compareDeals(first, shorter).rows.map((row) => row.hand), [0]);
  const changed = { game: again.game, records: [{ ...again.records[0], hands: [...again.records[0].hands].reverse() }] };
  assert.equal(compareDeals(first, changed).rows[0].sameCards, false, 'a hand dealt otherwise is said to be');
});

test("a side's bids in one cell", () => {
  const record = (bids) => ({ bids });
  assert.equal(sideBids(record([{ seat: 0, bid: 4, blind: false }, { seat: 1, bid: 2, blind: false }, { seat: 2, bid: 3, blind: false }]), [0, 2]), '4 + 3');
  assert.equal(sideBids(record([{ seat: 2, bid: 0, blind: true }, { seat: 0, bid: 0, blind: false }]), [0, 2]), 'Nil + Blind nil');
  assert.equal(sideBids(record([{ seat: 0, bid: 6, blind: true }, { seat: 2, bid: 6, blind: true }]), [0, 2]), 'Blind 6', 'a team blind bid counts once');
  assert.equal(sideBids(record([]), [0, 2]), '—', 'a hand played without bids');
});

test('in solo the comparison follows North alone', () => {
  const solo = (game) => ({ ...game, game: { ...game.game, rules: { ...game.game.rules, partners: false } } });
  const compared = compareDeals(solo(first), solo(again));
  assert.deepEqual(compared.side, [0]);
  assert.equal(compared.sideName, 'North');
  assert.equal(compared.rows[0].first.tricks, first.records[0].tricks_won[0]);
});

test('a difference is signed', () => {
  assert.deepEqual([signed(20), signed(-10), signed(0)], ['+20', '-10', '0']);
});
