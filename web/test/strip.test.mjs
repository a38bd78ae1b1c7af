// How long a hand's score stays in the strip's place.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { popupOpen } from '../js/views/strip.js';
import { SCORE_LEAST_MS, SCORE_POPUP_MS } from '../js/seating.js';

const scored = { hand: 0, scoredAt: 1000 };
const table = (bidding) => ({
  lastHandScore: scored, hand: bidding ? 1 : 0, bids: bidding ? [{ bid: 3 }, null, null, null] : [null, null, null, null],
  now: () => 0,
});
const view = { popupClosed: null };

test('a hand score stays a moment even when the next bidding begins at once', () => {
  assert.equal(popupOpen(table(true), view, 1000 + 100), true, 'a quick bid does not hide it');
  assert.equal(popupOpen(table(true), view, 1000 + SCORE_LEAST_MS), false, 'then the bidding has the eyes');
  assert.equal(popupOpen(table(false), view, 1000 + SCORE_LEAST_MS + 1), true, 'without bids it stays');
  assert.equal(popupOpen(table(false), view, 1000 + SCORE_POPUP_MS), false, 'until its time is up');
  assert.equal(popupOpen(table(false), { popupClosed: 0 }, 1100), false, 'or the player closes it');
});
