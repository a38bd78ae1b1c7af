// Quick play: one page queues for the tournament preset, nobody else
// comes, bots complete the table (the server's queue wait is short in
// these tests), and the page plays the game to its end.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { button, formNamed, guestSignIn, newPlayer, sharedBrowser, waitCount, waitIn } from './support.mjs';
import { playGame } from './play.mjs';

const shared = sharedBrowser();
const { skip } = shared;

test('a quick-play page gets a table completed by bots and finishes the game', { skip: skip ?? false, timeout: 150_000 }, async () => {
  const player = await newPlayer(shared.browser, 'Quinn');
  const { page } = player;
  await guestSignIn(page, 'Quinn');
  const form = formNamed(page, 'Quick play');
  await form.getByLabel('Rules').selectOption('tournament');
  await button(form, 'Quick play').click();
  // The wait is shown (unless the table came at once), then the table.
  await waitIn(page, () => /Looking for players|Bots fill/.test(document.querySelector('[role="status"][aria-label="Quick-play queue"]')?.textContent ?? '')
    || location.hash.startsWith('#/room/'));
  await waitIn(page, () => location.hash.startsWith('#/room/'), null, 60_000);
  // A new guest is rated 1500, so basic bots complete his table, and each
  // seat says its bot's level.
  await waitCount(page.locator('.felt').getByText('Basic bot', { exact: true }), 3);
  const result = await playGame(player);
  assert.match(result.headline, /won/);
  assert.match(result.final, /^Final score: /);
  assert.ok(player.plays.length >= 13, `${player.plays.length} cards played`);
  assert.deepEqual(player.errors, []);
  await player.context.close();
});
