// The bot levels the page offers and the words it shows for them.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { BOT_LEVELS, levelLabel } from '../js/levels.js';

test('the four levels come weakest first, as the protocol names them', () => {
  assert.deepEqual(BOT_LEVELS.map(([name]) => name), ['beginner', 'basic', 'strong', 'expert']);
});

test('each level has a label, and an unknown one is shown as it comes', () => {
  assert.equal(levelLabel('expert'), 'Expert');
  assert.equal(levelLabel('beginner'), 'Beginner');
  assert.equal(levelLabel('grandmaster'), 'grandmaster');
  assert.equal(levelLabel(undefined), 'Basic');
});
