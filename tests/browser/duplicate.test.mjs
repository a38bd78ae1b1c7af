// A duplicate tournament to its end: the organiser (an administrator
// made by tests/browser.rs, see tournament.test.mjs) creates one on the
// page, with fields of another format filled first and left behind,
// registers, fills it with bots, plays her table's two boards, and reads
// the matchpoint standings and the boards of the round, table by table;
// the boards first meet the server's refusal of deals still in play.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BASE, button, formNamed, handOf, logIn, navLink, newPlayer, sharedBrowser, shoot, STAFF, WIDE,
} from './support.mjs';
import { playGame } from './play.mjs';

const shared = sharedBrowser();
const skip = shared.skip ?? (STAFF ? null : 'the organiser account is made by tests/browser.rs (STAFF_PASSWORD is not set)');

// The standings and the boards are read more than played: a phone's
// screen as it is, and a desktop's.
const SIZES = [[{ width: 360, height: 740 }, '360'], [WIDE, '1280']];

/** The cells of each body row of `table`, as text. */
const rowsOf = (table) => table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.cells].map((cell) => cell.textContent)));

test('a duplicate tournament of eight: matchpoint standings and each board table by table', { skip: skip ?? false, timeout: 240_000 }, async () => {
  const organiser = await newPlayer(shared.browser, STAFF.organiser);
  const { page } = organiser;
  await logIn(page, STAFF.organiser, STAFF.password);

  // She starts with a knockout's target, then chooses duplicate pairs: the
  // target and the hands per game go, the rounds and boards come.
  await navLink(page, 'Tournaments').click();
  const form = formNamed(page, 'Create a tournament');
  await form.waitFor();
  await form.getByLabel('Name').fill('Duplicate cup');
  await form.getByLabel('Points to win a game').fill('250');
  await form.getByLabel('Format').selectOption({ label: 'Duplicate, fixed partners' });
  assert.equal(await form.getByLabel('Points to win a game').isVisible(), false);
  assert.equal(await form.getByLabel('Hands per game').isVisible(), false);
  await form.getByLabel('Most players').fill('8');
  await form.getByLabel('Rounds', { exact: true }).fill('1');
  await form.getByLabel('Boards per round').fill('2');
  await shoot(page, 'duplicate-create', { sizes: SIZES });
  const request = page.waitForRequest((r) => r.method() === 'POST' && r.url() === `${BASE}/api/tournaments`);
  await button(form, 'Create').click();
  assert.deepEqual(JSON.parse((await request).postData()),
    { name: 'Duplicate cup', format: 'duplicate_pairs', max_players: 8, rounds: 1, hands: 2 }, 'no target for a duplicate game');
  await page.getByRole('heading', { name: 'Duplicate cup', level: 1 }).waitFor();
  await page.getByText('Duplicate, fixed partners, 1 round of 2 boards', { exact: false }).waitFor();

  // She registers and seven bots fill it: full, it starts by itself.
  await button(page, 'Register').click();
  await page.getByText(/^You are entry \d+\.$/).waitFor();
  await page.getByLabel('Bots').fill('7');
  await button(page, 'Add bots').click();
  await button(page, 'Go to your table').click({ timeout: 30_000 });
  await handOf(page).waitFor();
  await playGame(organiser);

  // Back to the tournament once both tables are over.
  await navLink(page, 'Tournaments').click();
  await page.getByRole('link', { name: 'Duplicate cup', exact: true }).click();
  await page.getByText('Status: finished', { exact: true }).waitFor({ timeout: 60_000 });
  const standings = page.getByRole('table', { name: 'Standings' });
  for (const header of ['Matchpoints', 'Percentage', '+/− points vs. the same cards']) {
    await standings.getByRole('columnheader', { name: header, exact: true }).waitFor();
  }
  const standing = await rowsOf(standings);
  assert.equal(standing.length, 8);
  for (const [name, , percent] of standing) assert.match(percent, /^\d+\.\d%$/, name);
  await page.getByText(/^On each board a pair earns 2 matchpoints/).waitFor();
  await shoot(page, 'duplicate-standings', { sizes: SIZES });

  // The boards, the first time refused as if another table still played
  // them: the page says so, and shows them when asked again.
  const history = '**/api/games/*/history';
  await page.route(history, (route) => route.fulfill({
    status: 409, contentType: 'application/json', body: JSON.stringify({ error: 'deals_in_play', message: 'the round is being played' }),
  }));
  const open = button(page, 'Boards of round 1');
  assert.equal(await open.getAttribute('aria-expanded'), 'false');
  await open.click();
  const round = page.getByRole('region', { name: 'Boards of round 1' });
  await round.getByRole('alert').getByText(/still being played at another table/).waitFor();
  await page.unroute(history);
  await button(round, 'Try again').click();
  const boards = round.getByRole('table');
  await boards.first().waitFor();
  assert.equal(await open.getAttribute('aria-expanded'), 'true');
  const count = await boards.count();
  assert.ok(count >= 2, `${count} boards`);
  let compared = 0;
  for (let index = 0; index < count; index += 1) {
    const rows = await rowsOf(boards.nth(index));
    for (const row of rows) assert.match(row[1], / & /, 'a side is a pair');
    // Both tables played the two boards; a game tied after them plays
    // another hand, which the other table may not have played.
    assert.ok(rows.length === 2 || (index >= 2 && rows.length === 1), `board ${index + 1}: ${rows.length} tables`);
    if (rows.length < 2) continue;
    // Table, then each side: players, bids, tricks, points, matchpoints.
    const [north, east] = [5, 10].map((mp) => rows.map((row) => Number(row[mp])));
    assert.deepEqual([north, east].map((mps) => mps[0] + mps[1]), [2, 2], `board ${index + 1}: 2 matchpoints a direction, ${JSON.stringify(rows)}`);
    compared += 1;
  }
  // Every matchpoint of the boards went to the players of the standings:
  // 2 a direction on each board both tables played, to each of a pair.
  const points = standing.map((row) => Number(row[1]));
  assert.equal(points.reduce((sum, value) => sum + value, 0), compared * 2 * 2 * 2);
  assert.ok(points.every((value) => value >= 0 && value <= 2 * compared), JSON.stringify(standing));
  await shoot(page, 'duplicate-boards', { sizes: SIZES });
  assert.deepEqual(organiser.errors, []);
  await organiser.context.close();
});
