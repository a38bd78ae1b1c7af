// The felt's pace: cards one after another, a finished trick held then
// gathered, the next lead after it, and never too far behind the table.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CARD_MS, FeltPace, GATHER_MS, HOLD_MS, MAX_LAG_MS, cardKey } from '../js/pace.js';

test('a card on a free felt is shown at once', () => {
  const felt = new FeltPace();
  assert.equal(felt.card(cardKey(0, 'AS'), 1000), 1000);
  assert.equal(felt.startOf(cardKey(0, 'AS')), 1000);
  assert.equal(felt.startOf(cardKey(0, 'KS')), undefined, 'a card never queued (from a snapshot) has no moment');
});

test('three cards arriving together are shown one after another', () => {
  const felt = new FeltPace();
  const starts = ['2C', '3C', '4C'].map((card) => felt.card(cardKey(0, card), 5000));
  assert.deepEqual(starts, [5000, 5000 + CARD_MS, 5000 + 2 * CARD_MS]);
  // Asked again, a card keeps its moment.
  assert.equal(felt.card(cardKey(0, '3C'), 9000), 5000 + CARD_MS);
});

test('cards arriving at a human pace are not delayed', () => {
  const felt = new FeltPace();
  assert.equal(felt.card('0:2C', 0), 0);
  assert.equal(felt.card('0:3C', 800), 800);
  assert.equal(felt.card('0:4C', 1700), 1700);
});

test('a won trick stays a second, is gathered, and the next lead waits for it', () => {
  const felt = new FeltPace();
  for (const [at, card] of [[0, '2C'], [700, '3C'], [1400, '4C'], [2100, '5C']]) felt.card(cardKey(0, card), at);
  const { gatherAt, goneAt } = felt.won(0, 2100, 2100);
  assert.equal(gatherAt, 2100 + HOLD_MS);
  assert.equal(goneAt, gatherAt + GATHER_MS);
  assert.ok(felt.held(0, goneAt - 1));
  assert.ok(!felt.held(0, goneAt));
  // The winner leads at once: his card shows after the gathering.
  assert.equal(felt.card(cardKey(1, 'AS'), 2200), goneAt);
});

test('a trick won while its last card still waits is held from that card on', () => {
  const felt = new FeltPace();
  const last = ['2C', '3C', '4C', '5C'].map((card) => felt.card(cardKey(0, card), 0)).pop();
  assert.equal(last, 3 * CARD_MS);
  // Held a second from the last card, but no later than the lag allows.
  assert.equal(felt.won(0, 0, last).gatherAt, Math.min(last + HOLD_MS, MAX_LAG_MS));
});

test('the felt never falls more than the lag behind', () => {
  const felt = new FeltPace();
  let now = 0;
  // Four bots and a fast player: a card every 10 ms for many tricks.
  for (let trick = 0; trick < 10; trick += 1) {
    let last = 0;
    for (const card of ['2H', '3H', '4H', '5H']) {
      now += 10;
      last = felt.card(cardKey(trick, card), now);
      assert.ok(last - now <= MAX_LAG_MS, `trick ${trick}: shown ${last - now} ms late`);
    }
    const { gatherAt } = felt.won(trick, now, last);
    assert.ok(gatherAt >= last + CARD_MS, 'the last card is seen a moment');
    assert.ok(gatherAt - now <= MAX_LAG_MS + CARD_MS, `trick ${trick}: gathered ${gatherAt - now} ms late`);
  }
});

test('reset forgets the queue', () => {
  const felt = new FeltPace();
  felt.card('0:2C', 0);
  felt.card('0:3C', 0);
  felt.reset();
  assert.equal(felt.card('0:4C', 10), 10);
});
