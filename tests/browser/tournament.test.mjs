// A knockout tournament followed from registration to the final places:
// the organiser (the first account registered on the server, so its
// administrator) creates it on the page, two people register, bots fill
// the other entries, the organiser starts it, the "your table is ready"
// notice takes both people to their table, they play, and the final
// places are shown.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { byId, launch, newPlayer, registerAccount, shoot, skipReason, waitIn } from './support.mjs';
import { playGame } from './play.mjs';

const skip = skipReason();
let browser;
before(async () => {
  if (!skip) browser = await launch();
});
after(async () => browser?.close());

test('a tournament of two people and two bots, from registration to the final places', { skip: skip ?? false, timeout: 150_000 }, async () => {
  const organiser = await newPlayer(browser, 'Olga');
  const entrant = await newPlayer(browser, 'Pete');
  await registerAccount(organiser.page, 'Olga', 'organiser-password');
  await registerAccount(entrant.page, 'Pete', 'entrant-password');

  // The organiser creates a knockout for up to eight (so that it waits for
  // her start rather than starting when full), one hand a game.
  const { page } = organiser;
  await byId(page, 'nav-tournaments').click();
  await byId(page, 'create-tournament-form').waitFor();
  await byId(page, 'tournament-name').fill('Browser cup');
  await byId(page, 'tournament-format').selectOption('knockout');
  await byId(page, 'tournament-max-players').fill('8');
  await byId(page, 'tournament-hands').fill('1');
  await byId(page, 'create-tournament').click();
  await byId(page, 'tournament-title').waitFor();
  const id = await page.evaluate(() => location.hash.split('/').pop());
  await byId(page, 'tournament-register').click();
  await waitIn(page, () => document.querySelector('[data-testid="tournament-entry"]'));

  // Pete finds it in the list and registers.
  await byId(entrant.page, 'nav-tournaments').click();
  await entrant.page.locator(`[data-testid="tournament-row"][data-tournament="${id}"] [data-testid="tournament-link"]`).click();
  await byId(entrant.page, 'tournament-register').click();
  await waitIn(entrant.page, () => document.querySelector('[data-testid="tournament-entry"]'));

  // Two bots fill the draw; the organiser starts it.
  await waitIn(page, () => document.querySelectorAll('[data-testid="tournament-entrant"]').length === 2);
  await byId(page, 'tournament-bots-count').fill('2');
  await byId(page, 'tournament-add-bots').click();
  await waitIn(page, () => document.querySelectorAll('[data-testid="tournament-entrant"]').length === 4);
  await byId(page, 'tournament-start').click();

  // Both see the notice and follow it to the table.
  for (const player of [organiser, entrant]) {
    await byId(player.page, 'table-ready-go').click({ timeout: 30_000 });
    await waitIn(player.page, () => location.hash.startsWith('#/room/') && document.querySelector('[data-testid="hand"]'));
  }
  await waitIn(entrant.page, () => document.querySelector('[data-testid="bracket"]') === null);
  const results = await Promise.all([organiser, entrant].map((player) => playGame(player)));
  assert.equal(results[0].winner, results[1].winner);

  // Back to the tournament: the bracket with the finished table, and the
  // final places.
  for (const player of [organiser, entrant]) {
    await byId(player.page, 'nav-tournaments').click();
    await player.page.locator(`[data-testid="tournament-row"][data-tournament="${id}"] [data-testid="tournament-link"]`).click();
    await waitIn(player.page, () => document.querySelectorAll('[data-testid="final-place"]').length === 4);
    assert.equal(await byId(player.page, 'tournament-status').textContent(), 'finished');
    assert.equal(await player.page.locator('[data-testid="bracket-table"][data-status="finished"]').count(), 1);
  }
  const places = await entrant.page.locator('[data-testid="final-place"]').evaluateAll((rows) => rows.map((row) => [row.dataset.place, row.textContent]));
  assert.deepEqual(places.map(([place]) => place).sort(), ['1', '1', '2', '2'], JSON.stringify(places));
  await shoot(entrant.page, 'bracket');
  assert.deepEqual([...organiser.errors, ...entrant.errors], []);
  await organiser.context.close();
  await entrant.context.close();
});
