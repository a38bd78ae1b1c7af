// Shared helpers of the browser tests: the browser, one context per
// player, signing in through the page, the players' turn loops, and
// screenshots. Everything goes through the page (clicks and keys); the
// pages' DOM is only read.

import { mkdirSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export const BASE = (process.env.SPADES_URL ?? '').replace(/\/$/, '');
export const SHOTS = process.env.SCREENSHOTS ?? null;
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

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

export const WIDE = { width: 1280, height: 800 };
export const NARROW = { width: 360, height: 780 };
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

export const byId = (page, id) => page.locator(`[data-testid="${id}"]`);

/** Signs in as a guest by clicking. Ends on the lobby. */
export async function guestSignIn(page, name) {
  await page.goto(`${BASE}/`);
  await byId(page, 'guest-name').fill(name);
  await byId(page, 'guest-submit').click();
  await lobbyReady(page);
}

/** Registers an account through the page's form. Ends on the lobby. */
export async function registerAccount(page, name, password) {
  await page.goto(`${BASE}/`);
  await byId(page, 'register-name').fill(name);
  await byId(page, 'register-password').fill(password);
  await byId(page, 'register-submit').click();
  await lobbyReady(page);
}

export async function lobbyReady(page) {
  await page.waitForFunction(() => document.querySelector('[data-testid="quick-play"]')
    && document.querySelector('[data-testid="connection-status"]')?.dataset.status === 'ready',
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

export function focused(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    return el ? { testid: el.dataset?.testid ?? null, card: el.dataset?.card ?? null, legal: el.dataset?.legal ?? null, tag: el.tagName } : null;
  });
}

/** Presses Tab (then Shift+Tab) until the focused element's test id matches. */
export async function tabTo(page, testid, limit = 80) {
  const match = (f) => f && (typeof testid === 'string' ? f.testid === testid : testid.test(f.testid ?? ''));
  for (const key of ['Tab', 'Shift+Tab']) {
    for (let i = 0; i < limit; i += 1) {
      if (match(await focused(page))) return;
      await page.keyboard.press(key);
    }
  }
  throw new Error(`could not reach ${testid} with Tab`);
}

// What a seated page shows it must do, read from its controls.
function readTurn() {
  const q = (id) => document.querySelector(`[data-testid="${id}"]`);
  if (q('game-over')) return { kind: 'over', winner: q('game-winner')?.dataset.winner ?? '' };
  if (q('join-error')) return { kind: 'error', text: q('join-error').textContent };
  const text = q('turn-indicator')?.textContent ?? '';
  if (!text.startsWith('Your turn')) return null;
  const hand = [...document.querySelectorAll('[data-testid="hand-card"]')].map((b) => b.dataset.card);
  // With the cards hidden, the blind bids offered (0 for blind nil) and a
  // look; otherwise the bids the rules allow now.
  if (q('look')) {
    const blindBids = [...document.querySelectorAll('[data-testid^="bid-blind-"]')]
      .map((b) => (b.dataset.testid === 'bid-blind-nil' ? 0 : Number(b.dataset.testid.slice('bid-blind-'.length))));
    return { kind: 'blind', hand, blindBids };
  }
  const bids = [...document.querySelectorAll('.bid-buttons [data-testid^="bid-"]')].map((b) => Number(b.dataset.testid.slice(4)));
  if (bids.length) return { kind: 'bid', hand, bids };
  if (q('pass-confirm')) {
    const count = Number(/Choose (\d+)/.exec(q('action-panel').textContent)?.[1] ?? 0);
    return { kind: 'pass', hand, count };
  }
  if (text.includes('play a card')) {
    const legal = [...document.querySelectorAll('[data-testid="hand-card"][data-legal="true"]')].map((b) => b.dataset.card);
    if (legal.length) return { kind: 'play', hand, legal };
  }
  return null;
}

/** Waits until the page must act (or the game is over) and says what to do. */
export function nextTurn(page, timeout = 90_000) {
  return watchIn(page, readTurn, null, timeout);
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
  await watchIn(page, ({ kind, card }) => {
    const q = (id) => document.querySelector(`[data-testid="${id}"]`);
    if (q('game-over')) return true;
    const text = q('turn-indicator')?.textContent ?? '';
    if (text === 'Sending…') return false;
    switch (kind) {
      case 'play': return !document.querySelector(`[data-testid="hand-card"][data-card="${card}"]`);
      case 'bid': return !document.querySelector('.bid-buttons');
      case 'blind': return !q('look');
      case 'look': return !q('look');
      case 'pass': return !q('pass-confirm');
      default: return true;
    }
  }, what, 30_000);
}

/**
 * Saves a screenshot at the phone's width and the desktop's. At the
 * table, the phone's shot is the screen as the phone shows it (the hand
 * and the controls are docked at its bottom); elsewhere the whole page.
 */
export async function shoot(page, name, { table = false } = {}) {
  if (!SHOTS) return [];
  mkdirSync(SHOTS, { recursive: true });
  const original = page.viewportSize();
  const files = [];
  for (const [size, label] of [[NARROW, '360'], [WIDE, '1280']]) {
    await page.setViewportSize(size);
    // Two frames so that the layout for the new width is drawn.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const file = join(SHOTS, `${name}-${label}.png`);
    await page.screenshot({ path: file, fullPage: !(table && size === NARROW) });
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
