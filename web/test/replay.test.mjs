// Replays from a hand history recorded by the real server
// (fixtures/history.jsonl, the hand of fixtures/seated-game.jsonl).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLines } from '../js/api.js';
import { findStep, findStepBack, handSteps, positionAt, scoreBefore } from '../js/replay.js';
import { trickWinner } from '../js/cards.js';
import { readFixture } from './support.mjs';

const records = parseLines(readFixture('history.jsonl'));
const record = records[0];

test('a hand is cut into the deal, bids, exchanges, cards, tricks and the score', () => {
  const steps = handSteps(record);
  assert.equal(steps.length, 1 + 4 + record.passes.length + 13 * 5 + 1);
  assert.equal(steps[0].kind, 'deal');
  assert.equal(steps.at(-1).kind, 'score');
  assert.equal(steps.filter((s) => s.kind === 'play').length, 52);
});

test('the table at the start, after the exchange, mid-trick and at the end', () => {
  const start = positionAt(record, 0);
  assert.deepEqual(start.hands.map((h) => h.length), [13, 13, 13, 13]);
  assert.deepEqual(start.bids, [null, null, null, null]);

  const steps = handSteps(record);
  const afterPasses = positionAt(record, findStep(steps, 0, (s) => s.kind === 'play') - 1);
  for (const pass of record.passes) {
    for (const card of pass.cards.filter((c) => !record.passes.some((p) => p.from === pass.to && p.cards.includes(c)))) {
      assert.ok(afterPasses.hands[pass.to].includes(card), `${card} went to seat ${pass.to}`);
    }
  }
  assert.ok(afterPasses.bids.every(Boolean), 'every bid is made before play');

  const secondCard = findStep(steps, 0, (s) => s.kind === 'play' && s.index === 1);
  const mid = positionAt(record, secondCard);
  assert.deepEqual(mid.trick.plays.map((p) => p.card), record.tricks[0].cards.slice(0, 2));
  assert.equal(mid.trick.leader, record.tricks[0].leader);

  const end = positionAt(record, steps.length - 1);
  assert.ok(end.scored);
  assert.deepEqual(end.hands, [[], [], [], []]);
  assert.deepEqual(end.tricksWon, record.tricks_won);
  assert.equal(end.lastTrick.winner, record.tricks[12].winner);
});

test('stepping back finds the start of the trick before', () => {
  const steps = handSteps(record);
  const thirdTrickStart = findStep(steps, 0, (s) => s.kind === 'play' && s.trick === 2 && s.index === 0);
  const back = findStepBack(steps, thirdTrickStart, (s) => s.kind === 'play' && s.index === 0);
  assert.equal(steps[back].trick, 1);
});

test('every recorded trick winner agrees with the rules of play', () => {
  for (const trick of record.tricks) {
    assert.equal(trickWinner(trick.leader, trick.cards), trick.winner);
  }
});

test('the score before a hand is the score after the one before', () => {
  assert.deepEqual(scoreBefore(records, 0), { score: [0, 0], bags: [0, 0] });
  const two = [record, { ...record, hand: 1 }];
  assert.deepEqual(scoreBefore(two, 1).score, record.score);
});
