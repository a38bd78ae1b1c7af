// A seated page playing its game through the page: by clicking, or with
// the keyboard alone. Each turn is read from the page's controls; each
// action is a click or a key press; then the loop waits until the page
// has taken it in.

import assert from 'node:assert/strict';
import { cardName } from '../../web/js/cards.js';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  button, chooseBid, codeOf, focused, handCard, handOf, nextTurn, settled, SHOTS, tabTo,
} from './support.mjs';

export const nowMs = () => performance.timeOrigin + performance.now();

// The cards of a hand overlap, the more so on a phone: a finger (and the
// test) touches a card near its left edge, which the next card leaves
// uncovered.
const VISIBLE_EDGE = { x: 6, y: 24 };

/**
 * Plays until the game is over. `player.keyboard` plays with keys only,
 * `player.phone` with taps;
 * `hooks.before(player, turn)` runs before each action (screenshots, a
 * reload) and may return 'again' to read the turn again; `hooks.blindNil(
 * player, turn)` says whether to bid blind nil when offered, and
 * `hooks.blindBid(player, turn)` may name a blind bid of those offered;
 * `player.plays` collects {card, t} for each card played, and the key
 * (`Enter` or `Space`) for a card played with the keyboard;
 * `player.thinkMs`, when set, is how long the player looks at each turn
 * before acting, as a person does.
 */
export async function playGame(player, hooks = {}) {
  const { page } = player;
  player.plays ??= [];
  for (;;) {
    const turn = await nextTurn(page);
    if (turn.kind === 'over') return turn;
    if (turn.kind === 'error') throw new Error(`${player.label}: ${turn.text}`);
    if (hooks.before && (await hooks.before(player, turn)) === 'again') continue;
    if (player.thinkMs) await sleep(player.thinkMs);
    const act = player.keyboard ? keyboardAct : clickAct;
    const done = await act(player, turn, hooks);
    await settled(page, done).catch(() => {
      // A refused action or a lost reply: the turn is read again.
    });
  }
}

async function clickAct(player, turn, hooks) {
  const { page } = player;
  // A phone's player taps; the others click.
  const press = (locator, options) => (player.phone ? locator.tap(options) : locator.click(options));
  switch (turn.kind) {
    case 'blind': {
      let bid = hooks.blindBid?.(player, turn) ?? null;
      if (bid === null && turn.blindBids.includes(0) && hooks.blindNil?.(player, turn)) bid = 0;
      if (bid !== null && turn.blindBids.includes(bid)) {
        // The cards are still hidden when a blind bid is made.
        assert.equal(turn.hand.length, 0, `${player.label} sees cards before bidding blind`);
        await press(button(page, bid === 0 ? 'Bid blind nil' : `Bid blind ${bid} for your team`));
        player.bidBlind = bid;
        if (bid === 0) player.bidBlindNil = true;
        return { kind: 'blind' };
      }
      await press(button(page, 'Look at my cards'));
      return { kind: 'look' };
    }
    case 'bid':
      const bid = chooseBid(turn.hand, turn.bids);
      await press(button(page, bid === 0 ? 'Bid nil' : `Bid ${bid}`));
      return { kind: 'bid' };
    case 'pass': {
      // The highest cards go to the partner (the nil bidder keeps low ones).
      const cards = turn.hand.slice(-turn.count);
      for (const card of cards) {
        await pressCard(player, press, card);
        await handOf(page).getByRole('button', { name: cardName(card), exact: true, pressed: true }).waitFor();
      }
      await hooks.choseCards?.(player, cards);
      await press(page.getByRole('button', { name: /^Give \d+ cards$/, disabled: false }));
      player.passed = cards;
      return { kind: 'pass' };
    }
    case 'play': {
      const card = turn.legal[0];
      player.plays.push({ card, t: nowMs() });
      await pressCard(player, press, card);
      return { kind: 'play', card };
    }
    default:
      throw new Error(`unknown turn ${turn.kind}`);
  }
}

/**
 * Clicks (or taps) a card of the hand. Playwright clicks only an element
 * whose box stays the same over two frames; a card that keeps moving for
 * ten seconds is described (its boxes over a dozen frames, whether the
 * pointer is on it, a screenshot of the page as it is) on the test's
 * output, so that the movement can be looked into, and then clicked where
 * it is, as a person would.
 */
async function pressCard(player, press, card) {
  const locator = handCard(player.page, card);
  try {
    await press(locator, { position: VISIBLE_EDGE, timeout: 10_000 });
  } catch (error) {
    if (!/not stable/.test(error.message)) throw error;
    const boxes = await locator.evaluate(async (element) => {
      const seen = [];
      for (let frame = 0; frame < 12; frame += 1) {
        await new Promise((resolve) => requestAnimationFrame(resolve));
        const box = element.getBoundingClientRect();
        seen.push([Math.round(box.left), Math.round(box.top), element.matches(':hover')]);
      }
      return seen;
    });
    // At the page's own size: the two sizes of `shoot` would lay the page
    // out anew and could stop the very movement being recorded.
    const shot = SHOTS ? join(SHOTS, `unstable-${player.label}-${card}.png`) : null;
    if (shot) await player.page.screenshot({ path: shot });
    console.log(`note: ${player.label}'s card ${card} kept moving: [left, top, hovered] over 12 frames ${JSON.stringify(boxes)}; ${shot ?? 'no screenshot'}`);
    await press(locator, { position: VISIBLE_EDGE, force: true });
  }
}

async function keyboardAct(player, turn) {
  const { page } = player;
  switch (turn.kind) {
    case 'blind':
      await tabTo(page, button(page, 'Look at my cards'));
      await page.keyboard.press('Enter');
      return { kind: 'look' };
    case 'bid': {
      const bid = chooseBid(turn.hand, turn.bids);
      await tabTo(page, button(page, bid === 0 ? 'Bid nil' : `Bid ${bid}`));
      await page.keyboard.press('Enter');
      return { kind: 'bid' };
    }
    case 'pass': {
      await focusHand(page);
      let chosen = 0;
      await page.keyboard.press('End');
      while (chosen < turn.count) {
        const at = await focused(page);
        await page.keyboard.press('Space');
        await handOf(page).getByRole('button', { name: at.name, exact: true, pressed: true }).waitFor();
        chosen += 1;
        if (chosen < turn.count) await page.keyboard.press('ArrowLeft');
      }
      await tabTo(page, page.getByRole('button', { name: /^Give \d+ cards$/ }));
      await page.keyboard.press('Enter');
      return { kind: 'pass' };
    }
    case 'play': {
      await focusHand(page);
      // Arrow to a playable card: right to the end, then from the start.
      let at = await focused(page);
      for (let moves = 0; !at.enabled && moves < 30; moves += 1) {
        await page.keyboard.press(moves === 13 ? 'Home' : 'ArrowRight');
        at = await focused(page);
      }
      assert.ok(at.inHand && at.enabled, `${player.label} found no playable card with the arrows`);
      const key = Math.random() < 0.5 ? 'Enter' : 'Space';
      const card = codeOf(at.name);
      player.plays.push({ card, t: nowMs(), key });
      await page.keyboard.press(key);
      return { kind: 'play', card };
    }
    default:
      throw new Error(`unknown turn ${turn.kind}`);
  }
}

/** Focus on a card of the hand: where the page put it, or Tab to it. */
async function focusHand(page) {
  const at = await focused(page);
  if (!at?.inHand) await tabTo(page, handOf(page).getByRole('button'));
}
