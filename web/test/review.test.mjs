// The expert's review in words (js/review.js): each mark as a sentence,
// the summary, the wait, and the replay's step of each marked choice, on
// a review the server gave (fixtures/same-deals/review.json, of the game
// in again.jsonl).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLines } from '../js/api.js';
import { handSteps } from '../js/replay.js';
import {
  actionWords, handMarks, isReview, markStep, markWords, pendingWords, reviewSummary,
} from '../js/review.js';
import { readFixture } from './support.mjs';

const review = JSON.parse(readFixture('same-deals/review.json'));
const records = parseLines(readFixture('same-deals/again.jsonl'));

test('a marked card and a marked bid in plain words', () => {
  assert.equal(markWords({ hand: 2, trick: 7, played: 'play AS', better: 'play 4S', loss: 12.25 }),
    'Trick 7: you played A♠; the expert prefers 4♠ — about 12 points better on average');
  assert.equal(markWords({ hand: 0, played: 'bid 10', better: 'bid 3', loss: 94.5 }),
    'Your bid of 10: the expert prefers 3 — about 95 points better');
  assert.equal(markWords({ hand: 0, played: 'bid nil', better: 'bid 2', loss: 40 }),
    'Your bid of nil: the expert prefers 2 — about 40 points better');
  assert.equal(markWords({ hand: 0, trick: 1, played: 'play TH', better: 'play BJ', loss: 0.6 }),
    'Trick 1: you played 10♥; the expert prefers big joker — about 1 point better on average',
    'a loss under a point is still "about 1 point", never 0');
});

test('stored actions read as the page writes bids and cards', () => {
  assert.deepEqual(actionWords('bid blind_nil'), { kind: 'bid', text: 'blind nil' });
  assert.deepEqual(actionWords('bid blind_6'), { kind: 'bid', text: 'blind 6' });
  assert.deepEqual(actionWords('play QD'), { kind: 'play', text: 'Q♦' });
  assert.deepEqual(actionWords('look'), { kind: 'look', text: 'look' }, 'an action it does not know is kept as it came');
});

test('the summary counts the marks among the choices', () => {
  assert.equal(reviewSummary(review), 'The expert marked 2 of your 23 choices.');
  assert.equal(reviewSummary({ ...review, marks: [] }), 'The expert found nothing clearly better in your 23 choices.');
  assert.equal(reviewSummary({ ...review, decisions: 1, marks: [] }), 'The expert found nothing clearly better in your 1 choice.');
});

test('a review waiting says where it is', () => {
  assert.equal(pendingWords({ status: 'queued', ahead: 3 }), 'Queued (3 ahead)…');
  assert.equal(pendingWords({ status: 'working', ahead: 0 }), 'The expert is going through your game…');
  assert.ok(isReview(review));
  assert.ok(!isReview({ status: 'queued', ahead: 0 }));
});

test('each mark is found at the step where the player made it', () => {
  const steps = handSteps(records[0]);
  for (const mark of review.marks) {
    const at = markStep(records[mark.hand], mark, review.seat);
    assert.ok(at > 0, `${mark.played} is in the replay`);
    assert.deepEqual([steps[at].kind, steps[at].seat, steps[at].trick + 1, steps[at].card],
      ['play', review.seat, mark.trick, mark.played.slice(5)]);
  }
  const bid = markStep(records[0], { hand: 0, played: 'bid 2', better: 'bid 1', loss: 20 }, review.seat);
  assert.deepEqual([steps[bid].kind, steps[bid].seat], ['bid', review.seat]);
});

test("a hand's marks: only that hand's, with their words and steps", () => {
  const first = handMarks(review, 0, records[0]);
  assert.equal(first.length, 2);
  assert.match(first[0].words, /^Trick 8: you played K♣; the expert prefers 10♣ — about 11 points better on average$/);
  assert.ok(first.every((item) => item.step > 0));
  assert.deepEqual(handMarks(review, 1, records[1]), []);
});
