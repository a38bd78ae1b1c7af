// A game of a house-rules preset through the page: four pages play two
// hands of the jokers pack, the first of them without bids (a rule option).
// The room's rules are told in words, the jokers are drawn and named on
// the cards, the four hands first dealt are the joker pack (the big and
// little joker in, the twos of clubs and hearts out), and the first hand
// goes straight to play.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { byId, guestSignIn, launch, newPlayer, shoot, skipReason, waitIn, WIDE } from './support.mjs';
import { playGame } from './play.mjs';

const skip = skipReason();

let browser;
before(async () => {
  if (!skip) browser = await launch();
});
after(async () => browser?.close());

const JOKER_PACK = [...'CDHS'].flatMap((suit) => [...'23456789TJQKA'].map((rank) => rank + suit))
  .filter((card) => card !== '2C' && card !== '2H')
  .concat(['BJ', 'LJ'])
  .sort();

/** A page per name (four, or three), seated in that order. */
async function fourPages(names) {
  const players = [];
  for (const [seat, name] of names.entries()) {
    const player = await newPlayer(browser, name, { device: { viewport: WIDE } });
    Object.assign(player, { seat, name });
    players.push(player);
  }
  return players;
}

/**
 * The host opens the table his form describes and sits in seat 0; the
 * other pages sign in, join it from the lobby and take their seats.
 */
async function openAndFill(host, players) {
  await byId(host.page, 'create-room').click();
  await byId(host.page, 'room-code').waitFor();
  const code = await byId(host.page, 'room-code').textContent();
  await byId(host.page, 'sit-0').click();
  for (const player of players.slice(1)) {
    await guestSignIn(player.page, player.name);
    await player.page.locator(`[data-testid="room-join"][data-room="${code}"]`).click();
    await byId(player.page, 'room-code').waitFor();
    await byId(player.page, `sit-${player.seat}`).click();
  }
  await waitIn(host.page, (count) => [...Array(count).keys()].every((seat) => document.querySelector(`[data-testid="seat-name-${seat}"]`)?.textContent !== 'Empty seat'), players.length);
}

test('four pages play the jokers preset, the first hand without bids', { skip: skip ?? false, timeout: 240_000 }, async () => {
  const names = ['Ida', 'Jo', 'Kit', 'Lee'];
  const players = await fourPages(names);
  const [ida] = players;

  // Ida opens a jokers table of two hands, the first without bids; the
  // summary under the list says what the preset changes.
  await guestSignIn(ida.page, 'Ida');
  await byId(ida.page, 'room-name').fill('Jokers table');
  await byId(ida.page, 'room-preset').selectOption('jokers');
  await waitIn(ida.page, () => /joker/i.test(document.querySelector('[data-testid="room-preset-summary"]')?.textContent ?? ''));
  await byId(ida.page, 'rule-options').click();
  // A value the server would refuse is stopped by the form itself, which
  // says the bound and takes the player to the box; nothing is sent.
  await byId(ida.page, 'rule-nil_pass').fill('5');
  await byId(ida.page, 'create-room').click();
  const stopped = await byId(ida.page, 'rule-nil_pass').evaluate((input) => ({
    over: input.validity.rangeOverflow, message: input.validationMessage, focused: document.activeElement === input,
  }));
  assert.ok(stopped.over && stopped.focused, `the form let 5 cards of exchange through: ${JSON.stringify(stopped)}`);
  assert.match(stopped.message, /4/);
  await ida.page.waitForTimeout(300);
  assert.equal(await byId(ida.page, 'room-code').count(), 0, 'a table was opened with 5 cards of exchange');
  await byId(ida.page, 'rule-nil_pass').fill('');
  await byId(ida.page, 'rule-max_hands').fill('2');
  await byId(ida.page, 'rule-unbid_first_hand').selectOption('true');
  await openAndFill(ida, players);
  // The table tells its rules in words.
  const limits = await byId(ida.page, 'score-table').locator('xpath=..').textContent();
  assert.match(limits, /jokers: big joker, little joker and the two of spades above the ace/);
  assert.match(limits, /the first hand is played without bids/);
  await byId(ida.page, 'start-game').click();

  // Each page's hand as first shown to it, and a photograph of a hand
  // that holds a joker.
  const dealt = new Map();
  const firstTurns = new Map();
  let photographed = false;
  const hooks = {
    async before(player, turn) {
      if (!firstTurns.has(player.seat)) firstTurns.set(player.seat, turn.kind);
      if (!dealt.has(player.seat) && turn.hand.length === 13) dealt.set(player.seat, turn.hand);
      if (turn.kind === 'play' && !player.sawNoBids) {
        player.sawNoBids = true;
        const label = await byId(player.page, `seat-bid-${player.seat}`).textContent();
        assert.equal(label, 'No bids this hand');
      }
      const joker = turn.hand.find((card) => card === 'BJ' || card === 'LJ');
      if (joker && !photographed) {
        photographed = true;
        const label = await player.page.locator(`[data-testid="hand-card"][data-card="${joker}"]`).getAttribute('aria-label');
        assert.equal(label, joker === 'BJ' ? 'big joker' : 'little joker');
        // In the hand the jokers come first, above the spades.
        assert.equal(turn.hand[0], turn.hand.includes('BJ') ? 'BJ' : 'LJ');
        await shoot(player.page, 'jokers', { table: true });
      }
      return null;
    },
  };
  const results = await Promise.all(players.map((player) => playGame(player, hooks)));
  assert.ok(results.every((result) => result.kind === 'over'));
  assert.equal(dealt.size, 4, 'every page was shown its hand');
  // The first hand went straight to play: every page's first turn was a card.
  assert.deepEqual([...firstTurns.values()], ['play', 'play', 'play', 'play']);
  assert.deepEqual([...dealt.values()].flat().sort(), JOKER_PACK);
  assert.ok(photographed, 'a joker was shown in a hand');
  await Promise.all(players.map((player) => player.context.close()));
});

// Solo chosen as a rule option on the classic preset: the lobby turns the
// partners' exchange off by itself, the table says who plays alone, the
// score table has a row for each player under his own name, and the end of
// the game gives four scores.
test('four pages play a solo game, each on his own', { skip: skip ?? false, timeout: 240_000 }, async () => {
  const names = ['Mo', 'Ned', 'Oz', 'Pia'];
  const players = await fourPages(names);
  const [mo] = players;
  await guestSignIn(mo.page, 'Mo');
  await byId(mo.page, 'room-name').fill('Solo table');
  await byId(mo.page, 'rule-options').click();
  await byId(mo.page, 'rule-max_hands').fill('1');
  await byId(mo.page, 'rule-partners').selectOption('false');
  await openAndFill(mo, players);
  const limits = await byId(mo.page, 'score-table').locator('xpath=..').textContent();
  assert.match(limits, /solo: each player on his own/);
  await byId(mo.page, 'start-game').click();

  let photographed = false;
  const hooks = {
    async before(player, turn) {
      if (!photographed && turn.kind === 'play') {
        photographed = true;
        // One row per player, each under his own name.
        const rows = await player.page.locator('[data-testid^="score-team-"]').allTextContents();
        assert.equal(rows.length, 4, rows.join(' | '));
        for (const [seat, name] of names.entries()) assert.match(rows[seat], new RegExp(`^${name}`));
        // Nobody is a partner: the player across is an opponent too.
        const across = (player.seat + 2) % 4;
        const role = await player.page.locator(`[data-testid="seat-name-${across}"]`).locator("xpath=..").locator(".seat-compass").textContent();
        assert.match(role, /opponent across/i);
        // Nor do the seats wear the two partnerships' colours.
        const coloured = await player.page.locator('.seat.team-0, .seat.team-1').count();
        assert.equal(coloured, 0);
        await shoot(player.page, 'solo-table', { table: true });
      }
      return null;
    },
  };
  const results = await Promise.all(players.map((player) => playGame(player, hooks)));
  assert.ok(results.every((result) => result.kind === 'over'));
  assert.ok(photographed, 'the score table was seen during play');
  const over = await byId(mo.page, 'game-over').textContent();
  for (const name of names) assert.match(over, new RegExp(`${name} -?\\d+`), over);
  await shoot(mo.page, 'solo-over', { table: true });
  await Promise.all(players.map((player) => player.context.close()));
});

// New York City's game with the team's blind bid offered at any score: the first
// hand is played without bids, and in the second the first page offered a
// blind bid takes the lowest, 6, with its cards still hidden. Its partner
// never bids, and both seats then show the team's blind bid.
test('four pages play New York, a team bidding blind 6', { skip: skip ?? false, timeout: 240_000 }, async () => {
  const names = ['Quin', 'Rae', 'Sol', 'Tam'];
  const players = await fourPages(names);
  const [quin] = players;
  await guestSignIn(quin.page, 'Quin');
  await byId(quin.page, 'room-name').fill('New York table');
  await byId(quin.page, 'room-preset').selectOption('new-york');
  await byId(quin.page, 'rule-options').click();
  await byId(quin.page, 'rule-max_hands').fill('2');
  await byId(quin.page, 'rule-team_blind_min_deficit').fill('0');
  await openAndFill(quin, players);
  const limits = await byId(quin.page, 'score-table').locator('xpath=..').textContent();
  assert.match(limits, /New York jokers: big joker, little joker, the two of spades and the two of diamonds above the ace/);
  assert.match(limits, /teams bid 4 to 10/);
  assert.match(limits, /a team may bid blind 6 to 10 for double, losing single if set/);
  await byId(quin.page, 'start-game').click();

  let blindBidder = null;
  const bidTurns = new Map();
  const hooks = {
    blindBid(player, turn) {
      // New York has no nil: the blind bids offered are the team's, 6 to
      // its maximum of 10.
      assert.deepEqual(turn.blindBids, [6, 7, 8, 9, 10]);
      if (blindBidder !== null) return null;
      blindBidder = player;
      return 6;
    },
    async before(player, turn) {
      // Bids are counted up to the blind bidder's first card: a tie after
      // the second hand plays a third, in which everyone bids.
      if (turn.kind === 'bid' && !blindBidder?.sawBlindLabels) bidTurns.set(player.seat, (bidTurns.get(player.seat) ?? 0) + 1);
      if (turn.kind === 'blind' && blindBidder === null) {
        await shoot(player.page, 'team-blind-offer', { table: true });
      }
      if (turn.kind === 'play' && player === blindBidder && !player.sawBlindLabels) {
        player.sawBlindLabels = true;
        const partner = (player.seat + 2) % 4;
        for (const seat of [player.seat, partner]) {
          assert.equal(await byId(player.page, `seat-bid-${seat}`).textContent(), 'Blind 6');
        }
        await shoot(player.page, 'team-blind-play', { table: true });
      }
      return null;
    },
  };
  const results = await Promise.all(players.map((player) => playGame(player, hooks)));
  assert.ok(results.every((result) => result.kind === 'over'));
  assert.ok(blindBidder, 'a page was offered the team blind bid');
  assert.ok(blindBidder.sawBlindLabels, 'the blind bidder played a card after bidding');
  // The blind bidder's partner was not asked to bid in that hand.
  assert.equal(bidTurns.get((blindBidder.seat + 2) % 4) ?? 0, 0);
  await Promise.all(players.map((player) => player.context.close()));
});

// The three-player preset: three pages at a table of three seats, the
// fourth place empty. Each is dealt 17 cards, a trick is three cards, the
// table says who plays, and the score table has a row per player.
test('three pages play the three-player preset', { skip: skip ?? false, timeout: 240_000 }, async () => {
  const names = ['Quin', 'Rae', 'Sol'];
  const players = await fourPages(names);
  const [quin] = players;
  await guestSignIn(quin.page, 'Quin');
  await byId(quin.page, 'room-name').fill('Three table');
  await byId(quin.page, 'room-preset').selectOption('three-player');
  await waitIn(quin.page, () => /three players/i.test(document.querySelector('[data-testid="room-preset-summary"]')?.textContent ?? ''));
  await byId(quin.page, 'rule-options').click();
  await byId(quin.page, 'rule-max_hands').fill('1');
  await openAndFill(quin, players);
  // Three seats and no fourth: nobody can sit in seat 3.
  assert.equal(await byId(quin.page, 'seat-name-3').count(), 0);
  assert.equal(await byId(quin.page, 'sit-3').count(), 0);
  const limits = await byId(quin.page, 'score-table').locator('xpath=..').textContent();
  assert.match(limits, /three players, each on his own, 17 cards each/);
  assert.match(limits, /the three of clubs leads/);
  await byId(quin.page, 'start-game').click();

  const dealt = new Map();
  let photographed = false;
  const hooks = {
    async before(player, turn) {
      if (!dealt.has(player.seat) && turn.hand.length > 0) dealt.set(player.seat, turn.hand.length);
      if (!photographed && turn.kind === 'play') {
        photographed = true;
        const rows = await player.page.locator('[data-testid^="score-team-"]').allTextContents();
        assert.equal(rows.length, 3, rows.join(' | '));
        for (const [seat, name] of names.entries()) assert.match(rows[seat], new RegExp(`^${name}`));
        // The players to the left and right are opponents; nobody sits across.
        const left = (player.seat + 1) % 3;
        const role = await player.page.locator(`[data-testid="seat-name-${left}"]`).locator('xpath=..').locator('.seat-compass').textContent();
        assert.match(role, /left opponent/i);
        await shoot(player.page, 'three-player-table', { table: true });
      }
      return null;
    },
  };
  const results = await Promise.all(players.map((player) => playGame(player, hooks)));
  assert.ok(results.every((result) => result.kind === 'over'));
  assert.deepEqual([...dealt.values()], [17, 17, 17], 'each page was dealt 17 cards');
  // Seventeen tricks a hand, and each page played a card to every one of
  // them. The game has one hand unless it ends tied at the top, when
  // another hand is played (docs/rules.md, "End of the game").
  const played = players.map((player) => player.plays.length);
  assert.ok(played[0] > 0 && played[0] % 17 === 0, `${played[0]} cards is not whole hands of 17`);
  assert.deepEqual(played, [played[0], played[0], played[0]], 'every page played to every trick');
  await Promise.all(players.map((player) => player.context.close()));
});
