// A host chooses how well the bots play: the room's level when he opens
// the table, and another for one seat beside the button that seats a bot.
// Each seat then says its bot's level in words and shows its face.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { button, formNamed, guestSignIn, seatNamed, sharedBrowser, shoot, waitCount } from './support.mjs';

const shared = sharedBrowser();
const { skip } = shared;

test('the host picks the room\'s bot level and another for one seat, and each seat shows its level', { skip: skip ?? false, timeout: 120_000 }, async () => {
  const context = await shared.browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await guestSignIn(page, 'Lev');

  const form = formNamed(page, 'Open a table');
  await form.getByLabel('Table name').fill('Levels table');
  const levels = await form.getByLabel('Bot level').locator('option').allTextContents();
  assert.deepEqual(levels, ['Beginner', 'Basic', 'Strong', 'Expert']);
  await form.getByLabel('Bot level').selectOption('expert');
  await button(form, 'Open table').click();
  await page.getByRole('heading', { name: 'Levels table', level: 1 }).waitFor();
  await seatNamed(page, 'Lev (you)').waitFor();

  // Each empty seat offers the room's level first.
  const empty = page.getByRole('region', { name: /^Empty seat/ });
  await waitCount(empty, 3);
  const pick = empty.first().getByLabel(/^Level of the bot for seat/);
  assert.equal(await pick.inputValue(), 'expert');
  await pick.selectOption('beginner');
  await button(empty.first(), 'Add bot').click();
  await waitCount(empty, 2);
  await button(empty.first(), 'Add bot').click();
  await waitCount(empty, 1);

  const badges = await page.locator('.badge.bot').allTextContents();
  assert.deepEqual(badges.sort(), ['Beginner bot', 'Expert bot']);
  assert.equal(await page.locator('.avatar-bot-beginner').count() >= 1, true);
  assert.equal(await page.locator('.avatar-bot-expert').count() >= 1, true);
  await shoot(page, 'levels-table', { table: true });
  assert.deepEqual(errors, []);
  await context.close();
});
