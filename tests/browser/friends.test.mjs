// Friends through the pages: Fay and Gus register, Fay asks Gus by name
// from the lobby's Friends list, and Gus accepts there. Each sees the
// other online. Fay opens a table and invites Gus from it; Gus's page
// shows the invitation, whose button takes him to her table, where he
// sits. Gus then invites Fay from his own new table, the other way
// round. On the way: a quick phrase at the table, and the picture
// chooser on the profile.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BASE, button, formNamed, newPlayer, PHONE_TALL, registerAccount, roomCodeOf, seatNamed, sharedBrowser, shoot, WIDE,
} from './support.mjs';

const shared = sharedBrowser();
const SIZES = [[PHONE_TALL, '390'], [WIDE, '1280']];
const PASSWORD = 'friends at the table';

const friendsPanel = (page) => page.getByRole('region', { name: 'Friends' });

/** Opens a table from the lobby's form; the creator sits down by himself. */
async function openTable(page, name) {
  const open = formNamed(page, 'Open a table');
  await open.getByLabel('Table name').fill(name);
  await button(open, 'Open table').click();
  await page.waitForFunction(() => location.hash.startsWith('#/room/'));
  return roomCodeOf(page);
}

/** Shows the table's side panel on a narrow page (a drawer there). */
async function sidePanel(page) {
  const toggle = page.getByRole('button', { name: 'Scores and chat', exact: true });
  if (await toggle.isVisible() && (await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click();
}

test('two friends find each other, invite each other and land at one table', { skip: shared.skip ?? false, timeout: 120_000 }, async () => {
  const fay = await newPlayer(shared.browser, 'Fay');
  const gus = await newPlayer(shared.browser, 'Gus');
  await registerAccount(fay.page, 'Fay', PASSWORD);
  await registerAccount(gus.page, 'Gus', PASSWORD);

  // Fay asks Gus by name; Gus is told, and accepts from his list.
  const ask = friendsPanel(fay.page);
  await ask.getByLabel('Add a friend').fill('gus');
  await button(ask, 'Ask').click();
  await ask.getByText('Waiting for: Gus').waitFor();
  await gus.page.locator('#toasts').getByText('Fay asks to be your friend', { exact: false }).waitFor();
  await button(friendsPanel(gus.page), 'Accept Fay').click();
  await friendsPanel(gus.page).getByRole('list', { name: 'Your friends' }).getByText('Fay').waitFor();
  // Fay's list is read again every few seconds: Gus shows online.
  await fay.page.reload();
  const list = friendsPanel(fay.page).getByRole('list', { name: 'Your friends' });
  await list.getByText('Online').waitFor({ timeout: 20_000 });
  await shoot(fay.page, 'friends-lobby', { sizes: SIZES });

  // Fay opens a table and invites Gus from it.
  const code = await openTable(fay.page, 'Fay and friends');
  await seatNamed(fay.page, 'Fay (you)').waitFor();
  await sidePanel(fay.page);
  const invite = fay.page.getByText(/^Invite friends/);
  await invite.waitFor({ timeout: 20_000 });
  await invite.click();
  await button(fay.page, 'Invite Gus to this table').click();
  const invitation = gus.page.getByRole('region', { name: 'Invitations' });
  await invitation.getByText(`Fay invites you to table ${code}.`).waitFor();
  await shoot(gus.page, 'friends-invitation', { sizes: SIZES });
  await button(invitation, 'Go to the table').click();
  await gus.page.waitForFunction((room) => location.hash === `#/room/${room}`, code);
  await button(seatNamed(gus.page, 'Empty seat (South)'), 'Sit here').click();
  await seatNamed(fay.page, 'Gus (partner)').waitFor();

  // A quick phrase from Gus reaches Fay's chat.
  await sidePanel(gus.page);
  await gus.page.getByText('Quick chat', { exact: true }).click();
  await button(gus.page.getByRole('group', { name: 'Quick chat' }), 'Say Good luck!').click();
  await sidePanel(fay.page);
  await fay.page.getByRole('list', { name: 'Chat messages' }).getByText('Good luck!').waitFor();
  // It shows beside Gus's seat for a few seconds too.
  await seatNamed(fay.page, 'Gus (partner)').getByText('Good luck!').waitFor();
  await shoot(fay.page, 'friends-table', { table: true, sizes: SIZES });

  // The other way round: Gus opens his own table and invites Fay, who
  // lands at it too.
  await gus.page.goto(`${BASE}/#/lobby`);
  const second = await openTable(gus.page, 'Gus returns the favour');
  await sidePanel(gus.page);
  await gus.page.getByText(/^Invite friends/).click();
  await button(gus.page, 'Invite Fay to this table').click();
  const back = fay.page.getByRole('region', { name: 'Invitations' });
  await back.getByText(`Gus invites you to table ${second}.`).waitFor();
  await button(back, 'Go to the table').click();
  await fay.page.waitForFunction((room) => location.hash === `#/room/${room}`, second);
  await button(seatNamed(fay.page, 'Empty seat (South)'), 'Sit here').click();
  await seatNamed(gus.page, 'Fay (partner)').waitFor();

  // Fay chooses a picture on her profile; her next table shows it.
  await fay.page.goto(`${BASE}/#/profile/me`);
  await button(fay.page, 'Picture: owl').click();
  await fay.page.locator('#toasts').getByText('Your picture is saved', { exact: false }).waitFor();
  assert.equal(await button(fay.page, 'Picture: owl').getAttribute('aria-pressed'), 'true');
  await shoot(fay.page, 'friends-picture', { sizes: SIZES });
});
