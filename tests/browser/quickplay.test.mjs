// Quick play: one page queues for the tournament preset, nobody else
// comes, bots complete the table (the server's queue wait is short in
// these tests), and the page plays the game to its end.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { byId, guestSignIn, launch, newPlayer, skipReason, waitIn } from './support.mjs';
import { playGame } from './play.mjs';

const skip = skipReason();
let browser;
before(async () => {
  if (!skip) browser = await launch();
});
after(async () => browser?.close());

test('a quick-play page gets a table completed by bots and finishes the game', { skip: skip ?? false, timeout: 150_000 }, async () => {
  const player = await newPlayer(browser, 'Quinn');
  const { page } = player;
  await guestSignIn(page, 'Quinn');
  await byId(page, 'quick-play-preset').selectOption('tournament');
  await byId(page, 'quick-play').click();
  // The wait is shown (unless the table came at once), then the table.
  await waitIn(page, () => ['waiting', 'idle'].includes(document.querySelector('[data-testid="queue-status"]')?.dataset.state)
    || location.hash.startsWith('#/room/'));
  await waitIn(page, () => location.hash.startsWith('#/room/'), null, 60_000);
  await waitIn(page, () => document.querySelectorAll('[data-testid^="seat-bot-"]').length === 3);
  const result = await playGame(player);
  assert.ok(['0', '1'].includes(result.winner), `a winner: ${result.winner}`);
  assert.match(await byId(page, 'game-winner').textContent(), /won/);
  assert.ok(player.plays.length >= 13, `${player.plays.length} cards played`);
  assert.deepEqual(player.errors, []);
  await player.context.close();
});
