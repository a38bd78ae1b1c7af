// A player whose page is in the background is told that it is his turn:
// the tab's title says so until the page is seen again, and a
// notification appears, since he allowed them. The page's visibility is
// emulated (hidden, then shown again with a visibilitychange event), and
// the system's notifications are stood in for by a recorder. Sound can
// be turned on and off at the table, and is remembered.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { button, guestSignIn, sharedBrowser, waitIn } from './support.mjs';
import { tableWithBots } from './table-setup.mjs';

const shared = sharedBrowser();
const { skip } = shared;

function backgroundDouble() {
  let hidden = false;
  Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => hidden });
  Object.defineProperty(Document.prototype, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
  window.__setHidden = (value) => {
    hidden = value;
    document.dispatchEvent(new Event('visibilitychange'));
  };
  window.__notices = [];
  window.Notification = class {
    static permission = 'granted';

    static requestPermission() {
      return Promise.resolve('granted');
    }

    constructor(title, options) {
      window.__notices.push({ title, body: options?.body ?? '' });
    }

    close() {}
  };
}

test('a page in the background is told it is its turn, in its title and by a notification', { skip: skip ?? false, timeout: 120_000 }, async () => {
  const context = await shared.browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce' });
  await context.addInitScript(backgroundDouble);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await guestSignIn(page, 'Bea');

  // Sound is off by default under reduced motion, and can be turned on.
  await tableWithBots(page, 'Background table', { start: false });
  const sound = button(page, 'Sound');
  assert.equal(await sound.getAttribute('aria-pressed'), 'false');
  await sound.click();
  assert.equal(await sound.getAttribute('aria-pressed'), 'true');
  // Remembered for the next visit (a reload here would close this
  // table of one person and bots before its game).
  assert.equal(await page.evaluate(() => localStorage.getItem('spades.sound')), 'on');
  // Notifications are allowed already: nothing to ask.
  assert.equal(await button(page, 'Allow notifications').count(), 0);

  await page.evaluate(() => window.__setHidden(true));
  await button(page, 'Start game').click();
  await waitIn(page, () => document.title === '● Your turn — Spades', null, 60_000);
  const notices = await page.evaluate(() => window.__notices);
  assert.ok(notices.length >= 1, 'a notification');
  assert.equal(notices[0].title, 'Your turn at Spades');
  assert.match(notices[0].body, /^Your turn: /);
  // Seen again, the page's title is its own.
  await page.evaluate(() => window.__setHidden(false));
  await waitIn(page, () => document.title === 'Spades', null, 5_000);
  assert.deepEqual(errors, []);
  await context.close();
});
