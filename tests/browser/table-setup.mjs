// Opening a table of one page and three bots, through the page's forms
// and buttons, for the tests of the table's look and pace.

import { button, formNamed, seatNamed, waitCount } from './support.mjs';

/**
 * The page (signed in, on the lobby) opens a table named `name` of one
 * hand (or `hands`), sits down by itself, adds three bots and, unless
 * `start` is false, starts the game.
 */
export async function tableWithBots(page, name, { speed = 'normal', start = true, hands = 1 } = {}) {
  const form = formNamed(page, 'Open a table');
  await form.getByLabel('Table name').fill(name);
  await form.getByLabel('Speed').selectOption(speed);
  await form.getByText('Rule options').click();
  await form.getByLabel('Most hands').fill(String(hands));
  await button(form, 'Open table').click();
  await page.getByRole('heading', { name, level: 1 }).waitFor();
  const me = await page.getByRole('link', { name: /^Your profile: / }).textContent();
  // The one who opens a table sits at it by himself.
  await seatNamed(page, `${me} (you)`).waitFor();
  const empty = page.getByRole('region', { name: /^Empty seat/ });
  for (let left = 3; left > 0; left -= 1) {
    await button(empty.first(), 'Add bot').click();
    await waitCount(empty, left - 1);
  }
  if (start) await button(page, 'Start game').click();
}
