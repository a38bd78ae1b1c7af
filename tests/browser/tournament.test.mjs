// A knockout tournament followed from registration to the final places:
// the organiser (an administrator, made by the operator's command line in
// tests/browser.rs before the pages start, since registering makes no one
// one) logs in and creates it on the page, two people register, bots fill
// the other entries, the organiser starts it, the "your table is ready"
// notice takes both people to their table, they play, and the final
// places are shown.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  button, formNamed, handOf, logIn, navLink, newPlayer, registerAccount, sharedBrowser, shoot, STAFF, waitCount,
} from './support.mjs';
import { playGame } from './play.mjs';

const shared = sharedBrowser();
const skip = shared.skip ?? (STAFF ? null : 'the organiser account is made by tests/browser.rs (STAFF_PASSWORD is not set)');

const entrantsOf = (page) => page.getByRole('region', { name: /^Entrants/ }).getByRole('listitem');

test('a tournament of two people and two bots, from registration to the final places', { skip: skip ?? false, timeout: 150_000 }, async () => {
  const organiser = await newPlayer(shared.browser, STAFF.organiser);
  const entrant = await newPlayer(shared.browser, 'Pete');
  await logIn(organiser.page, STAFF.organiser, STAFF.password);
  await registerAccount(entrant.page, 'Pete', 'entrant-password');

  // The organiser creates a knockout for up to eight (so that it waits for
  // her start rather than starting when full), one hand a game.
  const { page } = organiser;
  await navLink(page, 'Tournaments').click();
  const form = formNamed(page, 'Create a tournament');
  await form.waitFor();
  await form.getByLabel('Name').fill('Browser cup');
  await form.getByLabel('Format').selectOption('knockout');
  await form.getByLabel('Most players').fill('8');
  await form.getByLabel('Hands per game').fill('1');
  await button(form, 'Create').click();
  await page.getByRole('heading', { name: 'Browser cup', level: 1 }).waitFor();
  const id = await page.evaluate(() => location.hash.split('/').pop());
  await button(page, 'Register').click();
  await page.getByText(/^You are entry \d+\.$/).waitFor();

  // Pete finds it in the list and registers.
  await navLink(entrant.page, 'Tournaments').click();
  await entrant.page.getByRole('link', { name: 'Browser cup', exact: true }).click();
  assert.equal(await entrant.page.evaluate(() => location.hash.split('/').pop()), id);
  await button(entrant.page, 'Register').click();
  await entrant.page.getByText(/^You are entry \d+\.$/).waitFor();

  // Two bots fill the draw; the organiser starts it.
  await waitCount(entrantsOf(page), 2);
  await page.getByLabel('Bots').fill('2');
  await button(page, 'Add bots').click();
  await waitCount(entrantsOf(page), 4);
  await button(page, 'Start now').click();

  // Both see the notice and follow it to the table.
  for (const player of [organiser, entrant]) {
    await button(player.page, 'Go to your table').click({ timeout: 30_000 });
    await handOf(player.page).waitFor();
  }
  const results = await Promise.all([organiser, entrant].map((player) => playGame(player)));
  assert.equal(results[0].final, results[1].final);

  // Back to the tournament: the bracket with the finished table, and the
  // final places.
  for (const player of [organiser, entrant]) {
    await navLink(player.page, 'Tournaments').click();
    await player.page.getByRole('link', { name: 'Browser cup', exact: true }).click();
    await waitCount(player.page.getByRole('region', { name: 'Final places' }).getByRole('listitem'), 4);
    await player.page.getByText('Status: finished', { exact: true }).waitFor();
    const tables = player.page.getByRole('region', { name: 'Bracket' }).getByRole('group');
    assert.equal(await tables.filter({ hasText: 'finished' }).count(), 1);
  }
  const places = await entrant.page.getByRole('region', { name: 'Final places' }).getByRole('listitem').allTextContents();
  assert.deepEqual(places.map((place) => /^\d+/.exec(place)[0]).sort(), ['1', '1', '2', '2'], JSON.stringify(places));
  await shoot(entrant.page, 'bracket');
  assert.deepEqual([...organiser.errors, ...entrant.errors], []);
  await organiser.context.close();
  await entrant.context.close();
});
