// A game of a house-rules preset through the page: four pages play two
// hands of the jokers pack, the first of them without bids (a rule option).
// The room's rules are told in words, the jokers are drawn and named on
// the cards, the four hands first dealt are the joker pack (the big and
// little joker in, the twos of clubs and hearts out), and the first hand
// goes straight to play.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  button, formNamed, guestSignIn, handCard, newPlayer, roomCodeOf, seatNamed, sharedBrowser, shoot, waitCount, WIDE,
} from './support.mjs';
import { playGame } from './play.mjs';

const shared = sharedBrowser();
const { skip } = shared;

const JOKER_PACK = [...'CDHS'].flatMap((suit) => [...'23456789TJQKA'].map((rank) => rank + suit))
  .filter((card) => card !== '2C' && card !== '2H')
  .concat(['BJ', 'LJ'])
  .sort();

/** A page per name (four, or three), seated in that order. */
async function fourPages(names) {
  const players = [];
  for (const [seat, name] of names.entries()) {
    const player = await newPlayer(shared.browser, name, { device: { viewport: WIDE } });
    Object.assign(player, { seat, name });
    players.push(player);
  }
  return players;
}

/**
 * The host opens the table his form describes and sits in seat 0 (by
 * himself, as the page does for whoever opens a table); the
 * other pages sign in, join it from the lobby and take their seats.
 */
async function openAndFill(host, players) {
  await button(formNamed(host.page, 'Open a table'), 'Open table').click();
  await host.page.getByRole('button', { name: 'Copy link' }).waitFor();
  const code = await roomCodeOf(host.page);
  // He sits down by himself, in the first seat.
  await seatNamed(host.page, `${host.name} (you)`).waitFor();
  for (const player of players.slice(1)) {
    await guestSignIn(player.page, player.name);
    await player.page.getByRole('button', { name: new RegExp(`^Join .*, table ${code}$`) }).click();
    await player.page.getByRole('button', { name: 'Copy link' }).waitFor();
    await button(seatNamed(player.page, `Empty seat (${COMPASS[player.seat]})`), 'Sit here').click();
  }
  await waitCount(host.page.getByRole('region', { name: /^Empty seat/ }), 0);
}

const COMPASS = ['North', 'East', 'South', 'West'];
/** The table's rules in words, under the score. */
const limitsOf = (page) => page.getByRole('region', { name: 'Score' }).textContent();
/** The rows of the score table, one per team. */
const scoreRows = async (page) => (await page.getByRole('region', { name: 'Score' }).getByRole('row').allTextContents()).slice(1);

test('four pages play the jokers preset, the first hand without bids', { skip: skip ?? false, timeout: 240_000 }, async () => {
  const names = ['Ida', 'Jo', 'Kit', 'Lee'];
  const players = await fourPages(names);
  const [ida] = players;

  // Ida opens a jokers table of two hands, the first without bids; the
  // summary under the list says what the preset changes.
  await guestSignIn(ida.page, 'Ida');
  const form = formNamed(ida.page, 'Open a table');
  await form.getByLabel('Table name').fill('Jokers table');
  await form.getByLabel('Rules', { exact: true }).selectOption('jokers');
  await form.getByText(/Big and little joker/).waitFor();
  await form.getByText('Rule options').click();
  // A value the server would refuse is stopped by the form itself, which
  // says the bound and takes the player to the box; nothing is sent.
  const nilPass = form.getByLabel('Cards exchanged after nil');
  await nilPass.fill('5');
  await button(form, 'Open table').click();
  const stopped = await nilPass.evaluate((input) => ({
    over: input.validity.rangeOverflow, message: input.validationMessage, focused: document.activeElement === input,
  }));
  assert.ok(stopped.over && stopped.focused, `the form let 5 cards of exchange through: ${JSON.stringify(stopped)}`);
  assert.match(stopped.message, /4/);
  await ida.page.waitForTimeout(300);
  assert.equal(await ida.page.getByRole('button', { name: 'Copy link' }).count(), 0, 'a table was opened with 5 cards of exchange');
  await nilPass.fill('');
  await form.getByLabel('Most hands').fill('2');
  await form.getByLabel('First hand without bids').selectOption('true');
  await openAndFill(ida, players);
  // The table tells its rules in words.
  const limits = await limitsOf(ida.page);
  assert.match(limits, /jokers: big joker, little joker and the two of spades above the ace/);
  assert.match(limits, /the first hand is played without bids/);
  await button(ida.page, 'Start game').click();

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
        const own = await seatNamed(player.page, `${player.name} (you)`).textContent();
        assert.match(own, /No bids this hand/);
      }
      const joker = turn.hand.find((card) => card === 'BJ' || card === 'LJ');
      if (joker && !photographed) {
        photographed = true;
        // The joker's button is named as people say it.
        assert.equal(await handCard(player.page, joker).count(), 1);
        await player.page.getByRole('button', { name: joker === 'BJ' ? 'big joker' : 'little joker', exact: true }).waitFor();
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
  const form = formNamed(mo.page, 'Open a table');
  await form.getByLabel('Table name').fill('Solo table');
  await form.getByText('Rule options').click();
  await form.getByLabel('Most hands').fill('1');
  await form.getByLabel('Players', { exact: true }).selectOption('false');
  await openAndFill(mo, players);
  const limits = await limitsOf(mo.page);
  assert.match(limits, /solo: each player on his own/);
  await button(mo.page, 'Start game').click();

  let photographed = false;
  const hooks = {
    async before(player, turn) {
      if (!photographed && turn.kind === 'play') {
        photographed = true;
        // One row per player, each under his own name.
        const rows = await scoreRows(player.page);
        assert.equal(rows.length, 4, rows.join(' | '));
        for (const [seat, name] of names.entries()) assert.match(rows[seat], new RegExp(`^${name}`));
        // Nobody is a partner: the player across is an opponent too.
        const across = names[(player.seat + 2) % 4];
        await seatNamed(player.page, `${across} (opponent across)`).waitFor();
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
  const over = await mo.page.getByText(/^Final score: /).textContent();
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
  const form = formNamed(quin.page, 'Open a table');
  await form.getByLabel('Table name').fill('New York table');
  await form.getByLabel('Rules', { exact: true }).selectOption('new-york');
  await form.getByText('Rule options').click();
  await form.getByLabel('Most hands').fill('2');
  await form.getByLabel('Team blind offered when behind by').fill('0');
  await openAndFill(quin, players);
  const limits = await limitsOf(quin.page);
  assert.match(limits, /New York jokers: big joker, little joker, the two of spades and the two of diamonds above the ace/);
  assert.match(limits, /teams bid 4 to 10/);
  assert.match(limits, /a team may bid blind 6 to 10 for double, losing single if set/);
  await button(quin.page, 'Start game').click();

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
        const partner = names[(player.seat + 2) % 4];
        for (const seat of [`${player.name} (you)`, `${partner} (partner)`]) {
          assert.match(await seatNamed(player.page, seat).textContent(), /Blind 6 ·/);
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
  const form = formNamed(quin.page, 'Open a table');
  await form.getByLabel('Table name').fill('Three table');
  await form.getByLabel('Rules', { exact: true }).selectOption('three-player');
  await form.getByText(/Three players, each alone/).waitFor();
  await form.getByText('Rule options').click();
  await form.getByLabel('Most hands').fill('1');
  await openAndFill(quin, players);
  // Three seats and no fourth: nobody can sit in a fourth seat.
  assert.equal(await quin.page.getByRole('region', { name: / \((you|left opponent|right opponent|partner|opponent across)\)$/ }).count(), 3);
  assert.equal(await quin.page.getByRole('button', { name: /^(Sit|Move) here$/ }).count(), 0);
  const limits = await limitsOf(quin.page);
  assert.match(limits, /three players, each on his own, 17 cards each/);
  assert.match(limits, /the three of clubs leads/);
  await button(quin.page, 'Start game').click();

  const dealt = new Map();
  let photographed = false;
  const hooks = {
    async before(player, turn) {
      if (!dealt.has(player.seat) && turn.hand.length > 0) dealt.set(player.seat, turn.hand.length);
      if (!photographed && turn.kind === 'play') {
        photographed = true;
        const rows = await scoreRows(player.page);
        assert.equal(rows.length, 3, rows.join(' | '));
        for (const [seat, name] of names.entries()) assert.match(rows[seat], new RegExp(`^${name}`));
        // The players to the left and right are opponents; nobody sits across.
        const left = names[(player.seat + 1) % 3];
        await seatNamed(player.page, `${left} (left opponent)`).waitFor();
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
