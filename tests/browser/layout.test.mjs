// The table fits the window: at five sizes, from a small phone to a large
// desktop, in the bidding, in play and with a hand's score shown, the
// page does not scroll, the table, one's hand and the buttons to act lie
// within the window, and nothing covers a card on the felt. Each screen
// is photographed at each size into SCREENSHOTS, with a short series of
// frames of a trick being played and gathered (motion on).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  SHOTS, button, chooseBid, formNamed, guestSignIn, handCard, nextTurn, seatNamed, settled, sharedBrowser, waitCount,
} from './support.mjs';

const shared = sharedBrowser();
const { skip } = shared;

const SIZES = [
  { width: 360, height: 640 },
  { width: 390, height: 844 },
  { width: 844, height: 390 },
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
];
const label = (size) => `${size.width}x${size.height}`;

// Runs in the page: what does not fit. The table is the region named by
// its heading; the cards on the felt are those of the group "Cards on the
// table"; the buttons to act are every button of the table outside the
// drawer of scores and chat. A card is covered when, at its middle or
// near a corner, the topmost element is neither it nor another card of
// the trick.
function misfits() {
  const problems = [];
  const width = innerWidth;
  const height = innerHeight;
  const scroller = document.scrollingElement;
  if (scroller.scrollHeight > height) problems.push(`the page scrolls ${scroller.scrollHeight - height} px`);
  if (scroller.scrollWidth > width) problems.push(`the page scrolls ${scroller.scrollWidth - width} px sideways`);
  const title = document.querySelector('main h1');
  const table = title?.closest('section[aria-labelledby]');
  if (!table) return ['no table'];
  const within = (element, what) => {
    const box = element.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) return;
    if (box.left < -1 || box.top < -1 || box.right > width + 1 || box.bottom > height + 1) {
      problems.push(`${what} is outside the window: ${Math.round(box.left)},${Math.round(box.top)} to ${Math.round(box.right)},${Math.round(box.bottom)}`);
    }
  };
  for (const region of table.querySelectorAll('section[aria-label]')) within(region, `seat ${region.getAttribute('aria-label')}`);
  const hand = document.querySelector('[role="toolbar"][aria-label^="Your hand"]');
  if (hand && !hand.hidden) within(hand, 'the hand');
  // The hand scrolls sideways within itself when it must; each card's
  // corner is then in the hand's box, which is in the window.
  for (const control of table.querySelectorAll('button, select, input')) {
    const name = control.getAttribute('aria-label') ?? control.textContent;
    const drawer = control.closest('[aria-labelledby="score-title"], [aria-labelledby="chat-title"], [aria-labelledby="hands-title"], [aria-labelledby="last-trick-title"]');
    if (control.offsetParent === null || drawer || control.closest('[role="toolbar"]')) continue;
    within(control, `the control "${name}"`);
  }
  const trick = document.querySelector('[role="group"][aria-label="Cards on the table"]');
  const cards = trick ? [...trick.children] : [];
  for (const card of cards) {
    // A trick gathered to its winner, about to leave the page.
    if (Number(getComputedStyle(card).opacity) < 0.5) continue;
    const box = card.getBoundingClientRect();
    within(card, `the card ${card.getAttribute('aria-label') ?? 'gathered'}`);
    const points = [[0.5, 0.5], [0.15, 0.12], [0.85, 0.12], [0.15, 0.88], [0.85, 0.88]];
    for (const [fx, fy] of points) {
      const x = box.left + box.width * fx;
      const y = box.top + box.height * fy;
      const top = document.elementFromPoint(x, y);
      if (top && !cards.some((other) => other.contains(top))) {
        problems.push(`${top.tagName.toLowerCase()}.${top.className} "${(top.getAttribute('aria-label') ?? top.textContent).slice(0, 30)}" covers the card ${card.getAttribute('aria-label')}`);
        break;
      }
    }
  }
  return problems;
}

// Runs in the page: whether the felt is at rest, every card in its place
// (none travelling, none waiting for its moment, no trick being gathered).
function atRest() {
  const trick = document.querySelector('[role="group"][aria-label="Cards on the table"]');
  return !trick || [...trick.children].every((card) => card.getAttribute('aria-hidden') !== 'true'
    && card.getAnimations().every((animation) => animation.playState === 'finished'));
}

/** At each size: what does not fit, and a photograph named `name`. */
async function checkSizes(page, name, { fit = true } = {}) {
  const original = page.viewportSize();
  const found = [];
  await page.waitForFunction(atRest, null, { polling: 50, timeout: 10_000 }).catch(async (e) => {
    console.log('DEBUG', await page.evaluate(() => { const t = document.querySelector('[role="group"][aria-label="Cards on the table"]'); return [...t.children].map((c) => `${c.outerHTML.slice(0, 120)} ${c.getAnimations().map((a) => a.playState + a.currentTime + '/' + a.effect.getTiming().delay).join(',')}`).join('\n') + JSON.stringify({won: spades.table.wonCount, tricks: [...spades.felt.tricks], now: Date.now()}); }));
    throw e;
  });
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    if (fit) found.push(...(await page.evaluate(misfits)).map((problem) => `${name} at ${label(size)}: ${problem}`));
    if (SHOTS) await page.screenshot({ path: join(SHOTS, `layout-${name}-${label(size)}.png`) });
  }
  await page.setViewportSize(original);
  return found;
}

/** Frames of the felt every ~120 ms for `ms`, as layout-trick-NN.png. */
async function frames(page, ms) {
  if (!SHOTS) return 0;
  const end = Date.now() + ms;
  let count = 0;
  while (Date.now() < end) {
    await page.screenshot({ path: join(SHOTS, `layout-trick-${String(count).padStart(2, '0')}.png`), scale: 'css' });
    count += 1;
    await new Promise((r) => setTimeout(r, 60));
  }
  return count;
}

test('the table fits the window at five sizes, and nothing covers the cards on the felt', { skip: skip ?? false, timeout: 240_000 }, async () => {
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  // Motion on, as most players have it, so that the frames show it.
  const context = await shared.browser.newContext({ viewport: SIZES[3], reducedMotion: 'no-preference' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await guestSignIn(page, 'Lay');
  const problems = [];
  await checkSizes(page, 'lobby', { fit: false });

  const form = formNamed(page, 'Open a table');
  await form.getByLabel('Table name').fill('Layout table');
  await form.getByLabel('Speed').selectOption('fast');
  await form.getByText('Rule options').click();
  await form.getByLabel('Most hands').fill('1');
  await button(form, 'Open table').click();
  // The one who opens a table sits at it by himself.
  await seatNamed(page, 'Lay (you)').waitFor();
  const empty = page.getByRole('region', { name: /^Empty seat/ });
  for (let left = 3; left > 0; left -= 1) {
    await button(empty.first(), 'Add bot').click();
    await waitCount(empty, left - 1);
  }
  problems.push(...(await checkSizes(page, 'waiting')));
  await button(page, 'Start game').click();

  const shot = new Set();
  let frameCount = 0;
  for (;;) {
    const turn = await nextTurn(page);
    if (turn.kind === 'over') break;
    if (turn.kind === 'bid') {
      if (!shot.has('bid')) {
        shot.add('bid');
        problems.push(...(await checkSizes(page, 'bidding')));
      }
      const bid = chooseBid(turn.hand, turn.bids);
      await button(page, bid === 0 ? 'Bid nil' : `Bid ${bid}`).click();
      await settled(page, { kind: 'bid' });
      continue;
    }
    if (turn.kind === 'blind') {
      await button(page, 'Look at my cards').click();
      await settled(page, { kind: 'look' });
      continue;
    }
    if (turn.kind !== 'play') throw new Error(`unexpected turn ${turn.kind}`);
    const card = turn.legal[0];
    const onTable = await page.getByRole('group', { name: 'Cards on the table' }).getByRole('img').count();
    if (!shot.has('play') && onTable >= 1) {
      shot.add('play');
      problems.push(...(await checkSizes(page, 'play')));
    }
    await handCard(page, card).click();
    // Once, a trick played from one's own card to its gathering, frame by frame.
    if (!frameCount) frameCount = await frames(page, 3600);
    await settled(page, { kind: 'play', card });
    if (turn.hand.length === 1) {
      await page.getByRole('status', { name: 'Hand 1 scored' }).waitFor();
      problems.push(...(await checkSizes(page, 'hand-score')));
    }
  }
  problems.push(...(await checkSizes(page, 'game-over')));
  console.log(`# note: layout frames of a trick: ${frameCount}`);
  assert.deepEqual(problems, []);
  assert.deepEqual(errors, []);
  await context.close();
});

