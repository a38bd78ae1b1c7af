// The weight and speed of the first load: bytes on the wire for a new
// visitor (the page, through signing in, to the lobby), and the time from
// navigation to a usable lobby for a player coming back (cold cache).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BASE, button, lobbyReady, newPlayer, recordMetrics, round, sharedBrowser, shoot,
} from './support.mjs';

const shared = sharedBrowser();
const { skip } = shared;

// Notes, in the page's own clock, when the lobby first became usable: the
// quick-play button is there, the connection is ready and the table list
// has been drawn.
function lobbyClock() {
  window.__lobbyUsableAt = null;
  const check = () => {
    if (window.__lobbyUsableAt !== null) return;
    const ready = document.querySelector('[role="status"][aria-label="Connection"]')?.textContent === 'Connected';
    const list = [...document.querySelectorAll('h2')].find((heading) => heading.textContent === 'Open tables');
    const rows = list?.closest('section').querySelector('tbody')?.childElementCount ?? 0;
    if (ready && rows > 0 && [...document.querySelectorAll('button')].some((b) => b.textContent === 'Quick play')) {
      window.__lobbyUsableAt = performance.now();
    }
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true, attributes: true });
}

/** Counts compressed bytes (headers and bodies) of every HTTP response. */
async function countBytes(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const state = { bytes: 0, files: new Map(), sockets: 0 };
  const urls = new Map();
  cdp.on('Network.responseReceived', (event) => urls.set(event.requestId, event.response.url));
  cdp.on('Network.loadingFinished', (event) => {
    state.bytes += event.encodedDataLength;
    const url = urls.get(event.requestId) ?? event.requestId;
    state.files.set(url.replace(BASE, ''), event.encodedDataLength);
  });
  return state;
}

test('the first load is light and the lobby is usable quickly', { skip: skip ?? false }, async () => {
  const { page, context, errors } = await newPlayer(shared.browser, 'loader', { initScripts: [lobbyClock] });
  const counted = await countBytes(page);
  // A new visitor: the page and the sign-in screen, then the lobby's
  // module once he has signed in.
  const navigation = Date.now();
  await page.goto(`${BASE}/`);
  await page.getByLabel('Your name').waitFor();
  const signInShownMs = Date.now() - navigation;
  await page.getByLabel('Your name').fill('Loader');
  await button(page, 'Play as guest').click();
  await lobbyReady(page);
  await page.waitForFunction(() => window.__lobbyUsableAt !== null);
  const firstVisitBytes = counted.bytes;
  const firstVisitFiles = Object.fromEntries(counted.files);
  await shoot(page, 'lobby-empty');

  // The same player comes back with nothing cached: how long until the
  // lobby is usable, from navigation.
  counted.bytes = 0;
  counted.files.clear();
  await page.reload();
  await page.waitForFunction(() => window.__lobbyUsableAt !== null, null, { timeout: 10_000 });
  const lobbyUsableMs = await page.evaluate(() => window.__lobbyUsableAt);
  const returnBytes = counted.bytes;
  const timing = await page.evaluate(() => {
    const [nav] = performance.getEntriesByType('navigation');
    return { domContentLoaded: nav.domContentLoadedEventEnd, load: nav.loadEventEnd };
  });
  await context.close();

  const figures = {
    first_load_bytes: firstVisitBytes,
    first_load_files: firstVisitFiles,
    return_load_bytes: returnBytes,
    signin_shown_ms: signInShownMs,
    lobby_usable_ms: round(lobbyUsableMs),
    dom_content_loaded_ms: round(timing.domContentLoaded),
  };
  recordMetrics(figures);
  console.log(`# metrics: first load ${(firstVisitBytes / 1024).toFixed(1)} KB compressed (target < 150 KB); `
    + `return visit ${(returnBytes / 1024).toFixed(1)} KB; lobby usable ${round(lobbyUsableMs)} ms after navigation (target < 500 ms)`);
  assert.deepEqual(errors, []);
  assert.ok(firstVisitBytes > 1000, `some bytes were counted: ${firstVisitBytes}`);
  assert.ok(firstVisitBytes < 150 * 1024, `the first load is ${firstVisitBytes} bytes: ${JSON.stringify(firstVisitFiles)}`);
  // Not a timing limit: only a gross failure.
  assert.ok(lobbyUsableMs < 10_000, `the lobby took ${lobbyUsableMs} ms`);
});
