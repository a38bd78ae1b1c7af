// Shared helpers of the browser tests: the browser, one context per
// player, signing in through the page, the players' turn loops, and
// screenshots. Everything goes through the page (clicks and keys); the
// pages' DOM is only read.

import { after, before } from 'node:test';
import { mkdirSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { cardName } from '../../web/js/cards.js';

export const BASE = (process.env.SPADES_URL ?? '').replace(/\/$/, '');
export const SHOTS = process.env.SCREENSHOTS ?? null;
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

/**
 * The accounts tests/browser.rs makes before the pages start, since no
 * page can make an administrator: the tournament's organiser and the
 * administrator (both administrators, by the operator's command line) and
 * the moderator (named by the administrator). Null when the tests run
 * without that harness.
 */
export const STAFF = process.env.STAFF_PASSWORD ? {
  password: process.env.STAFF_PASSWORD,
  organiser: process.env.ORGANISER_NAME,
  moderator: process.env.MODERATOR_NAME,
  admin: process.env.ADMIN_NAME,
} : null;

// Without the background-networking flags, Chromium on a machine with no
// outside network stalls on its own requests.
export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  // Five pages share one machine: none of them may be slowed as "hidden".
  '--disable-background-timer-throttling', '--disable-renderer-backgrounding',
  '--disable-backgrounding-occluded-windows',
];

/** Whether the browser tests can run here; otherwise why not. */
export function skipReason() {
  if (!BASE) return 'SPADES_URL is not set';
  if (!existsSync(CHROMIUM)) return `${CHROMIUM} is missing`;
  return null;
}

export async function launch() {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/**
 * One browser for the tests of the file that calls this (at its top
 * level): launched before them, unless they are skipped, and closed after
 * them. Gives `skip`, why the tests are skipped (else null), and
 * `browser`, set once it is launched.
 */
export function sharedBrowser() {
  const shared = { skip: skipReason(), browser: undefined };
  before(async () => {
    if (!shared.skip) shared.browser = await launch();
  });
  after(async () => shared.browser?.close());
  return shared;
}

export const WIDE = { width: 1280, height: 800 };
export const NARROW = { width: 360, height: 780 };
/** A larger phone, for the pages that are read more than played. */
export const PHONE_TALL = { width: 390, height: 844 };
/** A phone: its screen's width, touch, and no hover. */
export const PHONE = { viewport: NARROW, isMobile: true, hasTouch: true };

/** A new player: his own context (his own localStorage) and one page. */
export async function newPlayer(browser, label, { initScripts = [], device = { viewport: WIDE } } = {}) {
  const context = await browser.newContext({ ...device, reducedMotion: 'reduce' });
  for (const script of initScripts) await context.addInitScript(script);
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const errors = [];
  page.on('pageerror', (error) => errors.push(`${label}: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/WebSocket|Failed to load resource/.test(message.text())) {
      errors.push(`${label} console: ${message.text()}`);
    }
  });
  return { label, context, page, errors };
}

// Cards are found by their accessible names ("queen of hearts"); the
// tests think in the protocol's codes ("QH"), as the server does.
const CODES = [...'CDHS'].flatMap((suit) => [...'23456789TJQKA'].map((rank) => rank + suit)).concat(['BJ', 'LJ']);
const BY_NAME = new Map(CODES.map((code) => [cardName(code), code]));
/** The code of a card's name: "queen of hearts" is "QH". */
export const codeOf = (name) => BY_NAME.get(name) ?? name;
export { cardName };

/** A button by its exact accessible name. */
export const button = (scope, name) => scope.getByRole('button', { name, exact: true });
/** One's hand, and a card button in it. */
export const handOf = (page) => page.getByRole('toolbar', { name: /^Your hand/ });
export const handCard = (page, code) => button(handOf(page), cardName(code));
/** A seat around the table, by its name: "Ann (you)", "Empty seat (North)". */
export const seatNamed = (page, name) => page.getByRole('region', { name, exact: true });
/** A form by its heading. */
export const formNamed = (page, name) => page.getByRole('form', { name, exact: true });
/** The main navigation's link to a screen. */
export const navLink = (page, name) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
/** The room code of the table a page shows, from its address. */
export const roomCodeOf = (page) => page.evaluate(() => location.hash.split('/').pop());

/** Waits until `locator` matches `count` elements. */
export async function waitCount(locator, count, timeout = 60_000) {
  const end = Date.now() + timeout;
  for (;;) {
    const now = await locator.count();
    if (now === count) return;
    if (Date.now() > end) throw new Error(`${locator} matched ${now}, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Signs in as a guest by clicking. Ends on the lobby. */
export async function guestSignIn(page, name) {
  await page.goto(`${BASE}/`);
  await page.getByLabel('Your name').fill(name);
  await button(page, 'Play as guest').click();
  await lobbyReady(page);
}

/** Registers an account through the page's form. Ends on the lobby. */
export async function registerAccount(page, name, password) {
  await page.goto(`${BASE}/`);
  const form = formNamed(page, 'Register');
  await form.getByLabel('Name').fill(name);
  await form.getByLabel('Password').fill(password);
  await button(form, 'Register').click();
  await lobbyReady(page);
}

/** Logs in to an existing account through the page's form. Ends on the lobby. */
export async function logIn(page, name, password) {
  await page.goto(`${BASE}/`);
  const form = formNamed(page, 'Log in');
  await form.getByLabel('Name').fill(name);
  await form.getByLabel('Password').fill(password);
  await button(form, 'Log in').click();
  await lobbyReady(page);
}

export async function lobbyReady(page) {
  await page.waitForFunction(() => [...document.querySelectorAll('button')].some((b) => b.textContent === 'Quick play')
    && document.querySelector('[role="status"][aria-label="Connection"]')?.textContent === 'Connected',
  null, { polling: 20 });
}

/** Waits for a condition in the page, polling often (the page may be busy). */
export function waitIn(page, fn, arg, timeout = 60_000) {
  return page.waitForFunction(fn, arg, { polling: 15, timeout });
}

// Runs in the page: calls `check(arg)` now and after each change of the
// document, and resolves with its first truthy answer.
function watchDocument(check, arg, timeout) {
  return new Promise((resolve, reject) => {
    let observer = null;
    let timer = null;
    const test = () => {
      const value = check(arg);
      if (!value) return false;
      observer?.disconnect();
      clearTimeout(timer);
      resolve(value);
      return true;
    };
    if (test()) return;
    observer = new MutationObserver(test);
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    timer = setTimeout(() => {
      observer.disconnect();
      reject(new Error(`timed out after ${timeout} ms`));
    }, timeout);
  });
}

/**
 * Waits for a condition in the page without polling: it is checked each
 * time the page's document changes. Five pages share two cores with the
 * server, and a poll every few milliseconds in each would slow the very
 * pages whose speed the tests measure.
 */
export function watchIn(page, fn, arg = null, timeout = 60_000) {
  return page.evaluate(`(${watchDocument})(${fn}, ${JSON.stringify(arg)}, ${timeout})`);
}

// Keyboard helpers: where focus is, and Tab until it is somewhere.

/** The focused element: its accessible name (as the page gives it), whether it is a card of the hand and may be used. */
export function focused(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el) return null;
    const inHand = Boolean(el.closest('[role="toolbar"][aria-label^="Your hand"]'));
    return { name: el.getAttribute('aria-label') ?? el.textContent, inHand, enabled: el.getAttribute('aria-disabled') !== 'true', tag: el.tagName };
  });
}

/** Presses Tab (then Shift+Tab) until one of the elements of `locator` has the focus. */
export async function tabTo(page, locator, limit = 80) {
  const there = () => locator.evaluateAll((elements) => elements.includes(document.activeElement));
  for (const key of ['Tab', 'Shift+Tab']) {
    for (let i = 0; i < limit; i += 1) {
      if (await there()) return;
      await page.keyboard.press(key);
    }
  }
  throw new Error(`could not reach ${locator} with Tab`);
}

// What a seated page shows it must do, read from its controls by their
// roles and names. Cards are given by name.
function readTurn() {
  const buttons = (root) => [...(root ?? document).querySelectorAll('button')];
  const named = (name) => buttons().find((b) => (b.getAttribute('aria-label') ?? b.textContent) === name);
  const over = [...document.querySelectorAll('[role="alert"]')].find((el) => el.querySelector('h2'));
  if (over) {
    const texts = [...over.querySelectorAll('h2, p')].map((el) => el.textContent);
    return { kind: 'over', headline: texts[0], final: texts[1] ?? '' };
  }
  const refused = [...document.querySelectorAll('[role="alert"]')].find((el) => el.textContent.includes('Back to the lobby'));
  if (refused) return { kind: 'error', text: refused.textContent };
  const text = document.querySelector('[role="status"][aria-label="Turn"]')?.textContent ?? '';
  if (!text.startsWith('Your turn')) return null;
  const handButtons = buttons(document.querySelector('[role="toolbar"][aria-label^="Your hand"]'));
  const hand = handButtons.map((b) => b.getAttribute('aria-label'));
  // With the cards hidden, the blind bids offered (0 for blind nil) and a
  // look; otherwise the bids the rules allow now.
  if (named('Look at my cards')) {
    const blindBids = buttons().map((b) => /^Bid blind (nil|\d+)/.exec(b.getAttribute('aria-label') ?? ''))
      .filter(Boolean).map((match) => (match[1] === 'nil' ? 0 : Number(match[1])));
    return { kind: 'blind', hand, blindBids };
  }
  const heading = [...document.querySelectorAll('h2')].find((h) => h.textContent === 'Your bid');
  if (heading) {
    const bids = buttons(heading.closest('[role="group"]')).map((b) => (b.getAttribute('aria-label') === 'Bid nil' ? 0 : Number(b.getAttribute('aria-label').slice(4))));
    if (bids.length) return { kind: 'bid', hand, bids };
  }
  const give = buttons().find((b) => /^Give \d+ cards$/.test(b.textContent));
  if (give) return { kind: 'pass', hand, count: Number(/\d+/.exec(give.textContent)[0]) };
  if (text.includes('play a card')) {
    const legal = handButtons.filter((b) => b.getAttribute('aria-disabled') !== 'true').map((b) => b.getAttribute('aria-label'));
    if (legal.length) return { kind: 'play', hand, legal };
  }
  return null;
}

/** Waits until the page must act (or the game is over) and says what to do. */
export async function nextTurn(page, timeout = 90_000) {
  const turn = await watchIn(page, readTurn, null, timeout);
  for (const key of ['hand', 'legal']) if (turn[key]) turn[key] = turn[key].map(codeOf);
  return turn;
}

/**
 * A plausible bid for a hand: high spades, aces and long spades; of the
 * `allowed` bids (when the turn names them), the nearest to it.
 */
export function chooseBid(hand, allowed = null) {
  const spades = hand.filter((c) => c.endsWith('S'));
  let tricks = hand.filter((c) => c[0] === 'A').length;
  tricks += spades.filter((c) => 'KQ'.includes(c[0])).length;
  tricks += Math.max(0, spades.length - 3);
  const wanted = Math.max(1, Math.min(6, tricks));
  if (!allowed?.length) return wanted;
  return allowed.reduce((best, bid) => (Math.abs(bid - wanted) < Math.abs(best - wanted) ? bid : best));
}

/** Waits until the page has taken in its own action (or the turn moved on). */
export async function settled(page, what) {
  const arg = { ...what, card: what.card ? cardName(what.card) : null };
  await watchIn(page, ({ kind, card }) => {
    const buttons = [...document.querySelectorAll('button')];
    const named = (name) => buttons.some((b) => (b.getAttribute('aria-label') ?? b.textContent) === name);
    if ([...document.querySelectorAll('[role="alert"]')].some((el) => el.querySelector('h2'))) return true;
    const text = document.querySelector('[role="status"][aria-label="Turn"]')?.textContent ?? '';
    if (text === 'Sending…') return false;
    const hand = document.querySelector('[role="toolbar"][aria-label^="Your hand"]');
    switch (kind) {
      case 'play': return ![...(hand?.querySelectorAll('button') ?? [])].some((b) => b.getAttribute('aria-label') === card);
      case 'bid': return ![...document.querySelectorAll('h2')].some((h) => h.textContent === 'Your bid');
      case 'blind': return !named('Look at my cards');
      case 'look': return !named('Look at my cards');
      case 'pass': return !buttons.some((b) => /^Give \d+ cards$/.test(b.textContent));
      default: return true;
    }
  }, arg, 30_000);
}

/**
 * Saves a screenshot at the phone's width and the desktop's (or at
 * `sizes`, `[viewport, label]` pairs). At the table, the phone's shot is
 * the screen as the phone shows it (the hand and the controls are docked
 * at its bottom); elsewhere the whole page.
 */
export async function shoot(page, name, { table = false, sizes = [[NARROW, '360'], [WIDE, '1280']] } = {}) {
  if (!SHOTS) return [];
  mkdirSync(SHOTS, { recursive: true });
  const original = page.viewportSize();
  const files = [];
  for (const [size, label] of sizes) {
    await page.setViewportSize(size);
    // Two frames so that the layout for the new width is drawn.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const file = join(SHOTS, `${name}-${label}.png`);
    await page.screenshot({ path: file, fullPage: !(table && size.width < 700) });
    files.push(file);
  }
  await page.setViewportSize(original);
  return files;
}

/** Merges figures into SCREENSHOTS/metrics.json (each test file adds its own). */
export function recordMetrics(figures) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  const file = join(SHOTS, 'metrics.json');
  let all = {};
  try {
    all = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    all = {};
  }
  writeFileSync(file, `${JSON.stringify({ ...all, ...figures }, null, 2)}\n`);
}

export function percentile(values, p) {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)];
}

export const round = (value, digits = 1) => (value === null ? null : Number(value.toFixed(digits)));
