// Moderation and account care through the pages, as the people of a
// community site do them. First:
// Rhea opens a private table and Tom sits at it; Tom insults the table in
// the chat; Rhea reports him from his chat line, then, as the host,
// removes him from his seat. The moderator (an account tests/browser.rs
// made) logs in, finds the report with Tom's line on the moderation page,
// and suspends him for a day with a reason. Tom's page then says why and
// until when, is disconnected, and stays so after a reload (it does not
// start a new guest). The administrator finds the suspension in the audit
// log, and his notice to everyone reaches Rhea's open page; once he
// lifts the suspension, Tom's page lets him back in.
//
// Then: Ozzy opens a rated table, which the lobby says; Nora blocks and
// reports him from his profile, and his chat reaches her hidden; she
// downloads her data, unblocks him and changes her password. The
// moderator warns and then mutes Ozzy, whose page tells him each; the
// administrator gives Nora a reset link that signs her in on another
// device and makes her a moderator; maintenance is announced, shown to
// a page that comes later, and ended; and Ozzy deletes his account.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import {
  BASE, button, formNamed, guestSignIn, lobbyReady, logIn, navLink, newPlayer, PHONE_TALL, registerAccount, roomCodeOf,
  seatNamed, sharedBrowser, shoot, STAFF, WIDE,
} from './support.mjs';

const shared = sharedBrowser();
const skip = shared.skip ?? (STAFF ? null : 'the staff accounts are made by tests/browser.rs (STAFF_PASSWORD is not set)');

// The screenshots of these pages: a tall phone and a laptop.
const SIZES = [[PHONE_TALL, '390'], [WIDE, '1280']];
const INSULT = 'you all play like idiots';
const REASON = 'Insults at the table';
const connection = (page) => page.getByRole('status', { name: 'Connection' });

test('a report from the table, a suspension, the audit log and a notice to everyone', { skip: skip ?? false, timeout: 150_000 }, async () => {
  const host = await newPlayer(shared.browser, 'Rhea');
  // Tom's browser keeps New York's time: his page gives the end of his
  // suspension in that time, whatever the server's clock says.
  const rude = await newPlayer(shared.browser, 'Tom', { device: { viewport: WIDE, timezoneId: 'America/New_York' } });
  await guestSignIn(host.page, 'Rhea');
  await guestSignIn(rude.page, 'Tom');

  // Rhea opens a private table: a private table cannot be rated, and the
  // table says it is casual.
  const open = formNamed(host.page, 'Open a table');
  await open.getByLabel('Table name').fill('Rhea den');
  await open.getByLabel('Private (not listed; share the link)').check();
  assert.equal(await open.getByLabel('Rated (the games count for the ratings)').isDisabled(), true);
  await button(open, 'Open table').click();
  await host.page.waitForFunction(() => location.hash.startsWith('#/room/'));
  const code = await roomCodeOf(host.page);
  await host.page.locator('.table-bar').getByText('Casual', { exact: true }).waitFor();

  // Rhea sat down by herself, in the first seat. Tom comes by the
  // link, sits on her left, and insults the table.
  await seatNamed(host.page, 'Rhea (you)').waitFor();
  await rude.page.goto(`${BASE}/r/${code}`);
  await button(seatNamed(rude.page, 'Empty seat (East)'), 'Sit here').click();
  await seatNamed(host.page, 'Tom (left opponent)').waitFor();
  await rude.page.getByRole('textbox', { name: 'Chat message' }).fill(INSULT);
  await button(rude.page, 'Send').click();

  // Rhea reports him from his chat line.
  const chat = host.page.getByRole('region', { name: 'Chat' });
  await chat.getByText(INSULT).waitFor();
  await button(chat, 'Report Tom').click();
  const dialog = host.page.getByRole('dialog', { name: 'Report Tom' });
  await dialog.getByLabel('What happened?').fill('He insults everyone in the chat.');
  await shoot(host.page, 'report-form', { sizes: SIZES });
  await button(dialog, 'Send report').click();
  await host.page.locator('#toasts').getByText('Your report about Tom is with the moderators.', { exact: false }).waitFor();
  assert.equal(await dialog.count(), 0, 'the form closes once the report is stored');

  // As the host of a private table she removes him from his seat; both
  // pages say so.
  host.page.once('dialog', (question) => question.accept());
  await button(seatNamed(host.page, 'Tom (left opponent)'), 'Remove Tom from the table').click();
  await chat.getByText('Tom was removed from the table by its host.').waitFor();
  await seatNamed(host.page, 'Empty seat (left opponent)').waitFor();
  await rude.page.getByRole('alert').getByText('The owner of this table removed you from it.').waitFor();
  await rude.page.getByRole('link', { name: 'Back to the lobby' }).click();

  // The moderator finds the report, with the chat line the table kept.
  const moderator = await newPlayer(shared.browser, STAFF.moderator);
  await logIn(moderator.page, STAFF.moderator, STAFF.password);
  await navLink(moderator.page, 'Moderation').click();
  const report = moderator.page.getByRole('article', { name: 'Report about Tom' });
  await report.waitFor();
  await report.getByText('He insults everyone in the chat.').waitFor();
  await report.getByRole('list', { name: 'Chat at the table' }).getByText(INSULT).waitFor();
  await report.getByText(`at table ${code} (Rhea den)`).waitFor();
  await shoot(moderator.page, 'moderation', { sizes: SIZES });
  await report.getByLabel('Reason (Tom is shown it)').fill(REASON);
  await button(report, 'Suspend 1 day').click();
  await moderator.page.locator('#toasts').getByText('Tom: Suspended for 1 day.').waitFor();

  // Tom's page says why and until when, in his own time, and is
  // disconnected.
  const keptOut = async () => {
    await rude.page.getByRole('heading', { name: 'Your account is suspended' }).waitFor();
    await rude.page.getByRole('alert').getByText(REASON, { exact: false }).waitFor();
    await rude.page.getByText(/^Until .+ EST \(in (23|24) hours\)\.$/).waitFor();
    await rude.page.waitForFunction(() => document.querySelector('[role="status"][aria-label="Connection"]')?.textContent === 'Disconnected');
  };
  await keptOut();
  await shoot(rude.page, 'suspended', { sizes: SIZES });
  // A reload does not let him back in, nor start a new guest in his place.
  await rude.page.reload();
  await keptOut();
  assert.equal(await rude.page.getByRole('form', { name: 'Play as a guest' }).count(), 0);
  assert.notEqual(await connection(rude.page).textContent(), 'Connected');
  assert.equal(await button(rude.page, 'Log out').count(), 0);

  // The moderator resolves the report; its resolution starts with what was done.
  const resolution = report.getByLabel('Resolution (what was done)');
  assert.equal(await resolution.inputValue(), 'Suspended for 1 day.');
  await button(report, 'Resolve').click();
  await report.waitFor({ state: 'detached' });
  await moderator.page.getByText('No open reports.').waitFor();

  // The administrator sees the suspension in force and in the audit log.
  const admin = await newPlayer(shared.browser, STAFF.admin);
  await logIn(admin.page, STAFF.admin, STAFF.password);
  await navLink(admin.page, 'Admin').click();
  const audit = admin.page.getByRole('list', { name: 'Audit log entries' });
  const line = audit.getByRole('listitem').filter({ hasText: `Reason: ${REASON}` });
  await line.waitFor();
  assert.match(await line.textContent(), new RegExp(`${STAFF.moderator} sanctioned Tom: suspend, until \\d`));
  await admin.page.getByRole('list', { name: 'Sanctions in force' }).getByRole('button', { name: "Lift Tom's suspension" }).waitFor();
  await shoot(admin.page, 'admin', { sizes: SIZES });

  // His notice reaches Rhea's open page, and the moderator's.
  const notice = formNamed(admin.page, 'Notice to everyone');
  await notice.getByLabel('Message').fill('The server restarts at noon.');
  await button(notice, 'Send notice').click();
  for (const page of [host.page, moderator.page]) {
    const banner = page.getByRole('alert').filter({ hasText: 'The server restarts at noon.' });
    await banner.waitFor();
    assert.match(await banner.textContent(), /Notice from the administrators/);
  }
  await button(host.page, 'Dismiss the notice').click();
  await host.page.getByText('The server restarts at noon.').waitFor({ state: 'detached' });

  // The administrator lifts the suspension; Tom's page lets him back in
  // when he tries again.
  await admin.page.getByLabel('Reason for lifting (for the audit log; optional)').fill('He apologised');
  await admin.page.getByRole('button', { name: "Lift Tom's suspension" }).click();
  await admin.page.getByText('No sanction is in force.').waitFor();
  await button(rude.page, 'Try again').click();
  await rude.page.getByRole('heading', { name: 'Your account is suspended' }).waitFor({ state: 'detached' });
  await lobbyReady(rude.page);

  assert.deepEqual([...host.errors, ...rude.errors, ...moderator.errors, ...admin.errors], []);
  for (const player of [host, rude, moderator, admin]) await player.context.close();
});

test('a player looks after himself and his account; the staff warn, mute, reset and pause', { skip: skip ?? false, timeout: 150_000 }, async () => {
  const nora = await newPlayer(shared.browser, 'Nora');
  const ozzy = await newPlayer(shared.browser, 'Ozzy');
  await registerAccount(nora.page, 'Nora', 'nora first password');
  await guestSignIn(ozzy.page, 'Ozzy');
  const idOf = async (page) => {
    await navLink(page, 'Profile').click();
    const text = await page.getByText(/^Your player id:/).textContent();
    return /[0-9a-f-]{36}/.exec(text)[0];
  };
  const ozzyId = await idOf(ozzy.page);
  const noraId = await idOf(nora.page);

  // Ozzy opens a rated table, which the lobby and the table say.
  await navLink(ozzy.page, 'Lobby').click();
  const open = formNamed(ozzy.page, 'Open a table');
  await open.getByLabel('Table name').fill('Ozzy rated');
  await open.getByLabel('Rated (the games count for the ratings)').check();
  await button(open, 'Open table').click();
  await ozzy.page.waitForFunction(() => location.hash.startsWith('#/room/'));
  const code = await roomCodeOf(ozzy.page);
  await ozzy.page.locator('.table-bar').getByText('Rated', { exact: true }).waitFor();
  await navLink(nora.page, 'Lobby').click();
  const row = nora.page.getByRole('table', { name: 'Open tables' }).getByRole('row').filter({ hasText: 'Ozzy rated' });
  await row.getByText('Rated', { exact: true }).waitFor();

  // Nora blocks and reports him from his profile.
  await nora.page.goto(`${BASE}/#/profile/${ozzyId}`);
  await nora.page.getByRole('heading', { name: 'Ozzy', level: 1 }).waitFor();
  await button(nora.page, 'Block Ozzy').click();
  await button(nora.page, 'Unblock Ozzy').waitFor();
  await button(nora.page, 'Report Ozzy').click();
  const dialog = nora.page.getByRole('dialog', { name: 'Report Ozzy' });
  await dialog.getByText('the last game you played together').waitFor();
  await dialog.getByLabel('What happened?').fill('He sends me rude messages.');
  await button(dialog, 'Send report').click();
  await dialog.waitFor({ state: 'detached' });

  // At his table, his chat reaches her hidden.
  await nora.page.goto(`${BASE}/#/room/${code}`);
  // Ozzy sat at North by himself when he opened it.
  await seatNamed(nora.page, 'Empty seat (East)').waitFor();
  await ozzy.page.getByRole('textbox', { name: 'Chat message' }).fill('hello from Ozzy');
  await button(ozzy.page, 'Send').click();
  const chat = nora.page.getByRole('region', { name: 'Chat' });
  await chat.getByText('(message from a player you block)').waitFor();
  assert.equal(await chat.getByText('hello from Ozzy').count(), 0);

  // Her account: the players she blocks, her data, a new password.
  await navLink(nora.page, 'Profile').click();
  const account = nora.page.getByRole('region', { name: 'Account' });
  const blocked = account.getByRole('region', { name: 'Blocked players' });
  await blocked.getByRole('link', { name: 'Ozzy' }).waitFor();
  await shoot(nora.page, 'account', { sizes: SIZES });
  const [download] = await Promise.all([nora.page.waitForEvent('download'), button(account, 'Download my data').click()]);
  assert.equal(download.suggestedFilename(), 'spades-Nora.json');
  const data = JSON.parse(await readFile(await download.path(), 'utf8'));
  assert.equal(data.account.name, 'Nora');
  assert.ok(JSON.stringify(data.blocked).includes(ozzyId), JSON.stringify(data.blocked));
  await button(blocked, 'Unblock Ozzy').click();
  await blocked.getByText('You block nobody.').waitFor();
  const password = formNamed(nora.page, 'Change password');
  await password.getByLabel('Current password').fill('nora first password');
  await password.getByLabel('New password (8 characters or more)').fill('nora second password');
  await button(password, 'Change password').click();
  await nora.page.locator('#toasts').getByText('Your password is changed.', { exact: false }).waitFor();
  await nora.page.waitForFunction(() => document.querySelector('[role="status"][aria-label="Connection"]')?.textContent === 'Connected');
  await nora.page.reload();
  await nora.page.getByRole('link', { name: 'Your profile: Nora' }).waitFor();

  // A moderator warns Ozzy for Nora's report, then mutes him: his page
  // tells him each, and his chat is refused with why.
  const moderator = await newPlayer(shared.browser, STAFF.moderator);
  await logIn(moderator.page, STAFF.moderator, STAFF.password);
  await navLink(moderator.page, 'Moderation').click();
  const report = moderator.page.getByRole('article', { name: 'Report about Ozzy' });
  await report.getByText('from a profile').waitFor();
  await report.getByLabel('Reason (Ozzy is shown it)').fill('Be kind to the others');
  await button(report, 'Warn').click();
  await ozzy.page.locator('#toasts [data-kind="warn"]').getByText('A moderator warns you: Be kind to the others').waitFor();
  await button(report, 'Mute 1 hour').click();
  await ozzy.page.locator('#toasts [data-kind="warn"]').getByText(/^A moderator muted you .*Until .*\(in 60 minutes\)\.$/).waitFor();
  await ozzy.page.getByRole('textbox', { name: 'Chat message' }).fill('why?');
  await button(ozzy.page, 'Send').click();
  await ozzy.page.locator('#toasts [data-kind="error"]').getByText('A moderator muted you: you cannot chat for now.', { exact: false }).waitFor();
  // His record holds both.
  await button(report, "Show Ozzy's record").click();
  const record = report.getByRole('list', { name: "Ozzy's sanctions" });
  await record.getByRole('listitem').filter({ hasText: 'Warning' }).waitFor();
  await record.getByRole('listitem').filter({ hasText: 'Mute' }).getByText('in force').waitFor();

  // The administrator gives Nora a reset link; on another device it sets
  // her password and signs her in, and her first page is signed out.
  const admin = await newPlayer(shared.browser, STAFF.admin);
  await logIn(admin.page, STAFF.admin, STAFF.password);
  await admin.page.goto(`${BASE}/#/admin/${noraId}`);
  const roles = formNamed(admin.page, 'Roles and accounts');
  assert.equal(await roles.getByLabel('Player id').inputValue(), noraId);
  await button(roles, 'Make a password reset link').click();
  const link = await roles.getByLabel('Reset link').inputValue();
  assert.match(link, new RegExp(`^${BASE}/#/reset/[0-9a-f]+$`));
  const device = await newPlayer(shared.browser, 'Nora elsewhere');
  await device.page.goto(link);
  await device.page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
  await shoot(device.page, 'reset', { sizes: SIZES });
  await device.page.getByLabel('New password (8 characters or more)').fill('nora third password');
  await button(device.page, 'Set password and sign in').click();
  await device.page.getByRole('link', { name: 'Your profile: Nora' }).waitFor();
  await formNamed(nora.page, 'Log in').waitFor();
  // He then makes her a moderator, which the audit log keeps and her
  // navigation shows.
  await roles.getByLabel('Role').selectOption('moderator');
  await roles.getByLabel('Reason (for the audit log; optional)').fill('A trusted regular');
  await button(roles, 'Set role').click();
  await admin.page.getByRole('list', { name: 'Audit log entries' }).getByRole('listitem')
    .filter({ hasText: 'Reason: A trusted regular' }).getByText(`${STAFF.admin} changed the role of Nora: role: moderator`).waitFor();
  await device.page.reload();
  await navLink(device.page, 'Moderation').waitFor();

  // Maintenance: announced on the open pages, shown by the lobby to a page
  // that comes later, and over when the administrator ends it.
  await navLink(admin.page, 'Admin').click();
  // Leaving the player's address draws the screen anew, without the reset
  // link: text typed before that goes to the form being replaced.
  await admin.page.locator('#reset-link-url').waitFor({ state: 'detached' });
  const maintenance = formNamed(admin.page, 'Maintenance');
  await maintenance.getByLabel('Message to the players').fill('Upgrading the tables');
  await maintenance.getByLabel('Expected to last (minutes)').fill('30');
  await button(maintenance, 'Start maintenance').click();
  await button(maintenance, 'End maintenance').waitFor();
  const banner = (page) => page.locator('#banners').getByRole('status').filter({ hasText: 'Maintenance.' });
  let live;
  try {
    await banner(ozzy.page).getByText('Upgrading the tables', { exact: false }).waitFor();
    live = await banner(ozzy.page).innerText();
    await device.page.reload();
    await banner(device.page).getByText('Upgrading the tables', { exact: false }).waitFor();
    await shoot(device.page, 'maintenance', { sizes: SIZES });
  } catch (error) {
    // What the page showed, for whoever reads the failure; and the
    // maintenance ends, so that the page tests after this one can still
    // open tables.
    const seen = await ozzy.page.evaluate(() => ({
      connection: document.querySelector('[role="status"][aria-label="Connection"]')?.textContent,
      banners: document.getElementById('banners')?.innerText,
      route: location.hash,
    })).catch((reason) => String(reason));
    await shoot(ozzy.page, 'maintenance-missed', { sizes: [[WIDE, '1280']] }).catch(() => {});
    await button(maintenance, 'End maintenance').click().catch(() => {});
    throw new Error(`the maintenance did not show: ${JSON.stringify(seen)}`, { cause: error });
  }
  await button(maintenance, 'End maintenance').click();
  // The banner a live notice drew says what is closed once, in the page's
  // words, beside the administrator's message.
  assert.equal(live.match(/no new/gi)?.length, 1, live);
  await banner(ozzy.page).waitFor({ state: 'detached' });
  await ozzy.page.locator('#toasts').getByText('The maintenance is over', { exact: false }).waitFor();

  // Ozzy, a guest, deletes his account (a guest has no password to give):
  // the page asks first, then signs him out.
  await navLink(ozzy.page, 'Profile').click();
  const erase = formNamed(ozzy.page, 'Delete my account');
  assert.equal(await erase.getByLabel('Password, to confirm').count(), 0);
  ozzy.page.once('dialog', (question) => question.accept());
  await button(erase, 'Delete my account').click();
  await formNamed(ozzy.page, 'Play as a guest').waitFor();
  await ozzy.page.locator('#toasts').getByText('Your account is deleted.').waitFor();

  assert.deepEqual([...nora.errors, ...ozzy.errors, ...moderator.errors, ...admin.errors, ...device.errors], []);
  for (const player of [nora, ozzy, moderator, admin, device]) await player.context.close();
});
