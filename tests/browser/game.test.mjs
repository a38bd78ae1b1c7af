// Four pages play a whole game of the tournament preset through the page,
// with a blind nil and the exchange; one of them plays with the keyboard
// alone; one reloads in the middle of a hand and carries on; a fifth page
// watches and is never shown a hidden card. Then the game is replayed
// from a player's recent games. Along the way: screenshots of each stage
// of a hand, and how long a played card takes to show on the other pages.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BASE, button, codeOf, formNamed, guestSignIn, handOf, lobbyReady, navLink, newPlayer, PHONE, percentile,
  recordMetrics, roomCodeOf, round, seatNamed, sharedBrowser, shoot, tabTo, waitCount, waitIn, WIDE,
} from './support.mjs';
import { nowMs, playGame } from './play.mjs';

const shared = sharedBrowser();
const { skip } = shared;

// The game is the preset's own: to 300 points, or 7 hands at most. For a
// quicker run while working on the page, BROWSER_GAME_HANDS=2 shortens it
// with the page's rule option "Most hands".
const HANDS = process.env.BROWSER_GAME_HANDS ?? '';
// Each player looks at his turn for this long before acting, as a quick
// person does, so that a card's trip to the other pages is timed at the
// pace of a real game. BROWSER_THINK_MS=0 plays as fast as the pages
// allow, which times the pages while five of them and Node share the
// machine's cores.
const THINK_MS = Number(process.env.BROWSER_THINK_MS ?? 300);

// In every player's page: when each card reached the trick on the felt,
// and when this page's own cards were clicked (by mouse or by key), both
// on the machine's clock (timeOrigin + now, as Node's).
function trickWatch() {
  window.__trickSeen = [];
  window.__clicks = [];
  const now = () => performance.timeOrigin + performance.now();
  // Cards are seen by their names ("queen of hearts"); Node maps them to codes.
  document.addEventListener('click', (event) => {
    const button = event.target.closest?.('[role="toolbar"][aria-label^="Your hand"] button');
    if (button) window.__clicks.push({ card: button.getAttribute('aria-label'), t: now() });
  }, true);
  // When each card_played frame arrived, before the page handled it.
  window.__arrived = [];
  // And when this page sent each of its plays.
  window.__sent = [];
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    send(data) {
      if (typeof data === 'string' && data.includes('"play"')) {
        const message = JSON.parse(data);
        if (message.card) window.__sent.push({ card: message.card, t: now() });
      }
      return super.send(data);
    }

    constructor(...args) {
      super(...args);
      this.addEventListener('message', (event) => {
        if (typeof event.data === 'string' && event.data.includes('"card_played"')) {
          window.__arrived.push({ card: JSON.parse(event.data).card, t: now() });
        }
      });
    }
  };
  new MutationObserver((records) => {
    const t = now();
    const added = [];
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType !== 1) continue;
        const trickCard = '[role="group"][aria-label="Cards on the table"] > [role="img"]';
        const cards = node.matches(trickCard) ? [node] : node.querySelectorAll(trickCard);
        for (const card of cards) {
          const seen = { card: card.getAttribute('aria-label').split(' played ').pop(), t };
          window.__trickSeen.push(seen);
          added.push(seen);
        }
      }
    }
    // The frame after: when the card is on the screen.
    if (added.length) requestAnimationFrame(() => { const p = now(); for (const seen of added) seen.painted = p; });
  }).observe(document, { childList: true, subtree: true });
}

// In the spectator's page: after every change, no hand of cards and no
// card face anywhere but on the felt's trick or in the last trick.
function privacyWatch() {
  window.__leaks = [];
  window.__checks = 0;
  const check = () => {
    window.__checks += 1;
    for (const element of document.querySelectorAll('[role="toolbar"][aria-label^="Your hand"] button, .card:not(.back)')) {
      const onTable = element.closest('[role="group"][aria-label="Cards on the table"], [aria-labelledby="last-trick-title"]');
      if (element.tagName === 'BUTTON' || !onTable) {
        window.__leaks.push(`${element.className}: ${element.getAttribute('aria-label') ?? element.textContent}`);
      }
    }
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['aria-label', 'class'] });
}

const sum = (values) => values.reduce((total, value) => total + value, 0);

/**
 * Starts counting what a page's renderer spends: its CPU time (the whole
 * process and its main thread, as Chromium counts them for the DevTools
 * protocol) and its style and layout passes. Unlike the latencies, these
 * hardly depend on how busy the machine is, so they compare two versions
 * of the client fairly. The returned function reads the counts since.
 */
async function rendererMeter(page) {
  const session = await page.context().newCDPSession(page);
  await session.send('Performance.enable');
  const read = async () => Object.fromEntries((await session.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const start = await read();
  return async () => {
    const end = await read();
    const since = (name) => end[name] - start[name];
    return {
      process_s: since('ProcessTime'),
      main_thread_s: since('ThreadTime'),
      tasks_s: since('TaskDuration'),
      script_s: since('ScriptDuration'),
      layout_s: since('LayoutDuration'),
      style_s: since('RecalcStyleDuration'),
      layouts: since('LayoutCount'),
      style_passes: since('RecalcStyleCount'),
    };
  };
}

const collect = async (page) => {
  const observed = await page.evaluate(() => ({
    seen: window.__trickSeen ?? [], clicks: window.__clicks ?? [], arrived: window.__arrived ?? [], sent: window.__sent ?? [],
  }));
  for (const key of ['seen', 'clicks']) for (const entry of observed[key]) entry.card = codeOf(entry.card);
  return observed;
};

test('four pages play a whole tournament game; a fifth watches; the game is replayed', { skip: skip ?? false, timeout: 420_000 }, async () => {
  const names = ['Ann', 'Ben', 'Cy', 'Dee'];
  const players = [];
  for (const [seat, name] of names.entries()) {
    // Ann and Ben play at a desktop, Ben with the keyboard alone; Cy and
    // Dee on phones, with taps.
    const phone = seat >= 2;
    const player = await newPlayer(shared.browser, name, { initScripts: [trickWatch], device: phone ? PHONE : { viewport: WIDE } });
    Object.assign(player, { seat, name, keyboard: seat === 1, phone, thinkMs: THINK_MS, observed: { seen: [], clicks: [], arrived: [], sent: [] } });
    players.push(player);
  }
  const [ann, ben, cy, dee] = players;
  const eve = await newPlayer(shared.browser, 'Eve', { initScripts: [privacyWatch, trickWatch] });

  // Ann signs in and opens a table of the tournament preset, with blind
  // nil offered from the first hand (a rule option of the page).
  await guestSignIn(ann.page, 'Ann');
  const form = formNamed(ann.page, 'Open a table');
  await form.getByLabel('Table name').fill('Browser game');
  await form.getByLabel('Rules', { exact: true }).selectOption('tournament');
  await form.getByText('Rule options').click();
  await form.getByLabel('Blind nil offered when behind by').fill('0');
  if (HANDS) await form.getByLabel('Most hands').fill(HANDS);
  await button(form, 'Open table').click();
  await ann.page.getByRole('heading', { name: 'Browser game' }).waitFor();
  const code = await roomCodeOf(ann.page);
  // Whoever opens a table sits at it by himself, in the first seat (North).
  await seatNamed(ann.page, 'Ann (you)').waitFor();

  // Ben does everything with the keyboard: his name, Enter; Tab to the
  // code box, the code, Enter; Tab to his seat, Enter.
  await ben.page.goto(`${BASE}/`);
  await formNamed(ben.page, 'Play as a guest').waitFor();
  await tabTo(ben.page, ben.page.getByLabel('Your name'));
  await ben.page.keyboard.type('Ben');
  await ben.page.keyboard.press('Enter');
  await lobbyReady(ben.page);
  await tabTo(ben.page, ben.page.getByLabel('Table code or link'));
  await ben.page.keyboard.type(code);
  await ben.page.keyboard.press('Enter');
  await ben.page.getByRole('heading', { name: 'Browser game' }).waitFor();
  await tabTo(ben.page, button(seatNamed(ben.page, 'Empty seat (East)'), 'Sit here'));
  await ben.page.keyboard.press('Enter');

  // Cy and Dee find the table in the lobby's list; so does Eve, who only
  // watches. The lobby is photographed with the table listed.
  const compass = ['North', 'East', 'South', 'West'];
  for (const player of [cy, dee, eve]) {
    await guestSignIn(player.page, player.label);
    // The last comes to a full table, which the list offers to watch.
    await player.page.getByRole('button', { name: new RegExp(`^(Join|Watch) Browser game, table ${code}$`) }).click();
    await player.page.getByRole('heading', { name: 'Browser game' }).waitFor();
    if (player !== eve) await button(seatNamed(player.page, `Empty seat (${compass[player.seat]})`), 'Sit here').click();
  }
  await waitCount(ann.page.getByRole('region', { name: /^Empty seat/ }), 0);
  {
    const lobbyPage = await newPlayer(shared.browser, 'lobby');
    await guestSignIn(lobbyPage.page, 'Lou');
    await lobbyPage.page.getByRole('button', { name: new RegExp(`, table ${code}$`) }).waitFor();
    await shoot(lobbyPage.page, 'lobby');
    await lobbyPage.context.close();
  }
  await button(ann.page, 'Start game').click();

  // Eve photographs the first hand's score while it is shown.
  const eveShots = (async () => {
    await eve.page.getByRole('status', { name: 'Hand 1 scored' }).waitFor({ timeout: 300_000 });
    await shoot(eve.page, 'hand-score', { table: true });
  })();

  const shots = new Set();
  let reloaded = null;
  const hooks = {
    // Dee, in the first hand, bids blind nil before looking.
    blindNil: (player, turn) => player === dee && !player.bidBlindNil,
    async choseCards(player) {
      if (player === dee && !shots.has('exchange')) {
        shots.add('exchange', { table: true });
        await shoot(player.page, 'exchange', { table: true });
      }
    },
    async before(player, turn) {
      if (player === ann && turn.kind === 'bid' && !shots.has('bidding')) {
        shots.add('bidding', { table: true });
        await shoot(player.page, 'bidding', { table: true });
      }
      if (player === ann && turn.kind === 'play' && !shots.has('play')) {
        const onTable = await player.page.getByRole('group', { name: 'Cards on the table' }).getByRole('img').count();
        if (onTable >= 2) {
          shots.add('play', { table: true });
          await shoot(player.page, 'play', { table: true });
        }
      }
      // Cy reloads his page in the middle of the first hand, on his turn,
      // and must come back to the same cards.
      if (player === cy && turn.kind === 'play' && !reloaded && turn.hand.length <= 10) {
        const before = [...turn.hand].sort();
        const observed = await collect(player.page);
        for (const key of Object.keys(player.observed)) player.observed[key].push(...observed[key]);
        await player.page.reload();
        await waitCount(handOf(player.page).getByRole('button'), before.length);
        const after = (await handOf(player.page).getByRole('button').evaluateAll((cards) => cards.map((c) => c.getAttribute('aria-label')))).map(codeOf).sort();
        assert.deepEqual(after, before, 'the same cards after the reload');
        reloaded = { cards: before.length, seconds_in: Number(((nowMs() - started) / 1000).toFixed(1)) };
        return 'again';
      }
      return null;
    },
  };

  // Cy's page reloads, which starts its counts again: it is left out.
  const meters = await Promise.all([ann, ben, dee, eve].map((player) => rendererMeter(player.page)));
  const started = nowMs();
  const results = await Promise.all(players.map((player) => playGame(player, hooks)));
  const gameMs = nowMs() - started;
  const spent = await Promise.all(meters.map((read) => read()));
  await eveShots;

  // Everyone, the watcher too, sees the same end: a winner and one final score.
  const finals = results.map((result) => result.final);
  assert.match(finals[0], /^Final score: /);
  assert.deepEqual(new Set(finals).size, 1, `one final score everywhere: ${finals}`);
  const eveOver = eve.page.getByRole('alert').filter({ has: eve.page.getByRole('heading', { name: /won/ }) });
  await eveOver.waitFor();
  assert.equal(await eveOver.getByText(/^Final score: /).textContent(), finals[0]);
  for (const result of results) assert.match(result.headline, /won/);
  const winners = results.map((result) => result.headline);
  assert.ok(reloaded, 'Cy reloaded mid-hand');
  assert.ok(dee.bidBlindNil, 'Dee bid blind nil');
  assert.ok(dee.passed?.length === 2, 'Dee gave two cards after her blind nil');
  const hands = await ann.page.getByRole('region', { name: 'Hands' }).getByRole('table').count();
  assert.ok(hands >= 1, 'hands were scored');

  // The watcher never had a hidden card on the page.
  const privacy = await eve.page.evaluate(() => ({ leaks: window.__leaks, checks: window.__checks }));
  assert.deepEqual(privacy.leaks, [], 'the watcher saw hidden cards');
  assert.ok(privacy.checks > 100, `the watcher's page was checked (${privacy.checks} times)`);
  assert.equal(await handOf(eve.page).getByRole('button').count(), 0);
  assert.equal(await eve.page.getByText('You are watching.', { exact: false }).count(), 1);

  // How long each played card took to show on the three other players'
  // pages: from the click (or key) in the player's page, and from the
  // click as Node sent it.
  for (const player of players) {
    const observed = await collect(player.page);
    for (const key of Object.keys(player.observed)) player.observed[key].push(...observed[key]);
  }
  // Each sighting splits into the way there (click to the frame's arrival
  // in the other page), the page's handling (arrival to the card in the
  // DOM) and the drawing (to the next frame).
  const fromClick = [];
  const fromNode = [];
  const toScreen = [];
  // Arrival, frame and on-screen times by the page that showed the card,
  // to tell a page that is slow to draw from a machine that is busy for
  // all of them.
  const byPage = {};
  const parts = { arrival: [], handling: [], frame: [] };
  let missing = 0;
  const unseen = [];
  // The slowest sightings, with when they happened, to tell a slow path
  // from a busy moment of the test.
  const slowest = [];
  const byInput = {};
  for (const player of players) {
    for (const play of player.plays) {
      const click = player.observed.clicks.find((c) => c.card === play.card && c.t >= play.t - 5);
      for (const other of players) {
        if (other === player) continue;
        // The same card comes again in a later hand: only a sighting
        // within seconds of the play counts.
        const seen = other.observed.seen.find((s) => s.card === play.card && s.t >= play.t - 5 && s.t < play.t + 5000);
        if (!seen) {
          missing += 1;
          unseen.push(`${play.card} of ${player.name} on ${other.name}'s page, ${((play.t - started) / 1000).toFixed(1)} s in; clicks then: ${JSON.stringify(player.observed.clicks.filter((c) => Math.abs(c.t - play.t) < 2000).map((c) => [c.card, Math.round(c.t - play.t)]))}`);
          continue;
        }
        fromNode.push(seen.t - play.t);
        if (!click) continue;
        fromClick.push(seen.t - click.t);
        const sent = player.observed.sent.find((x) => x.card === play.card && x.t >= click.t - 1 && x.t <= seen.t + 1);
        const arrived = other.observed.arrived.find((a) => a.card === play.card && a.t >= click.t - 1 && a.t <= seen.t + 1);
        (byInput[play.key ?? 'pointer'] ??= []).push(seen.t - click.t);
        slowest.push({
          ms: round(seen.t - click.t),
          sent: sent ? round(sent.t - click.t) : null,
          arrived: arrived ? round(arrived.t - click.t) : null,
          on_screen: seen.painted ? round(seen.painted - click.t) : null,
          card: play.card, by: player.name, on: other.name, s: round((click.t - started) / 1000),
        });
        const page = (byPage[other.name] ??= { arrival: [], frame: [], on_screen: [] });
        if (seen.painted) {
          toScreen.push(seen.painted - click.t);
          page.on_screen.push(seen.painted - click.t);
          page.frame.push(seen.painted - seen.t);
          parts.frame.push(seen.painted - seen.t);
        }
        if (arrived) {
          page.arrival.push(arrived.t - click.t);
          parts.arrival.push(arrived.t - click.t);
          parts.handling.push(seen.t - arrived.t);
        }
      }
    }
  }
  const plays = sum(players.map((player) => player.plays.length));
  const stats = (values) => ({
    count: values.length, p50: round(percentile(values, 50)), p99: round(percentile(values, 99)), max: round(Math.max(...values)),
  });
  const latency = stats(fromClick);
  const latencyNode = stats(fromNode);
  const screen = stats(toScreen);
  const split = Object.fromEntries(Object.entries(parts).map(([key, values]) => [key, stats(values)]));
  // What the renderers of four pages (three players and the watcher)
  // spent over the game, in all and per card played.
  const total = (name) => sum(spent.map((counts) => counts[name]));
  const rendererCpu = {
    process_s: round(total('process_s')),
    main_thread_s: round(total('main_thread_s')),
    process_ms_per_card: round((1000 * total('process_s')) / plays),
    main_thread_ms_per_card: round((1000 * total('main_thread_s')) / plays),
    tasks_ms_per_card: round((1000 * total('tasks_s')) / plays),
    script_ms_per_card: round((1000 * total('script_s')) / plays),
    layout_ms_per_card: round((1000 * total('layout_s')) / plays),
    style_ms_per_card: round((1000 * total('style_s')) / plays),
    layouts_per_card: round(total('layouts') / plays),
    style_passes_per_card: round(total('style_passes') / plays),
  };
  recordMetrics({
    game: { hands, cards_played: plays, ms: gameMs, think_ms: THINK_MS, winner: winners.find((headline) => headline !== 'You won!'), reloaded },
    card_latency_ms: latency,
    card_latency_to_frame_ms: screen,
    card_latency_parts_ms: split,
    card_latency_from_node_ms: latencyNode,
    card_sightings_missing: missing,
    // The same, apart for cards played by mouse or tap and by each key.
    card_latency_by_input_ms: Object.fromEntries(Object.entries(byInput).map(([input, values]) => [input, stats(values)])),
    card_latency_by_page_ms: Object.fromEntries(Object.entries(byPage).map(([name, times]) => [
      name, Object.fromEntries(Object.entries(times).map(([part, values]) => [part, stats(values)])),
    ])),
    card_latency_slowest: [...slowest].sort((a, b) => b.ms - a.ms).slice(0, 12),
    card_latency_slowest_on_screen: [...slowest].sort((a, b) => (b.on_screen ?? 0) - (a.on_screen ?? 0)).slice(0, 12),
    renderer_cpu: rendererCpu,
  });
  const show = (s) => `p50 ${s.p50}, p99 ${s.p99}, max ${s.max}`;
  console.log(`# metrics: game of ${hands} hands, ${plays} cards in ${(gameMs / 1000).toFixed(1)} s, ${THINK_MS} ms to think each turn; `
    + `card in the other three pages' DOM ${show(latency)} ms over ${latency.count} sightings, on screen (next frame) ${show(screen)} ms `
    + `(target p99 < 50 ms); arrival ${show(split.arrival)}, handling ${show(split.handling)}, to the frame ${show(split.frame)}; `
    + `from Node's click: ${show(latencyNode)}; ${missing} not seen; four pages' renderers spent `
    + `${rendererCpu.process_ms_per_card} ms of CPU per card`);
  assert.ok(plays >= 52, `${plays} cards were played`);
  assert.deepEqual(unseen, [], 'every card played was shown on the three other pages');
  assert.ok(fromClick.length >= plays * 2, `sightings: ${fromClick.length} of ${plays * 3}`);
  // Not a timing target: only a gross failure.
  assert.ok(latency.p50 < 1000, `a card took ${latency.p50} ms (median) to show`);

  // The game, replayed from Ann's recent games: step through tricks and
  // hands.
  const gameId = await ann.page.getByRole('link', { name: 'Replay this game' }).getAttribute('href').then((href) => href.split('/').pop());
  await navLink(ann.page, 'Profile').click();
  const link = ann.page.getByRole('region', { name: 'Recent games' }).getByRole('link', { name: /^Replay Browser game/ });
  await link.waitFor();
  assert.equal(await link.getAttribute('href'), `#/replay/${gameId}`);
  await link.click();
  const label = ann.page.getByText(/^Hand \d+ of \d+ · dealer/);
  await label.waitFor();
  assert.match(await label.textContent(), new RegExp(`^Hand 1 of ${hands}`));
  const position = ann.page.getByRole('status', { name: 'Replay position' });
  const seenPositions = new Set([await position.textContent()]);
  for (let i = 0; i < 3; i += 1) {
    await button(ann.page, 'Next trick').click();
    seenPositions.add(await position.textContent());
  }
  assert.ok(seenPositions.size >= 3, `the trick steps moved: ${[...seenPositions]}`);
  const trick = ann.page.getByRole('group', { name: 'Cards on the table' }).getByRole('img');
  await trick.first().waitFor();
  await shoot(ann.page, 'replay');
  if (hands > 1) {
    await button(ann.page, 'Next hand').click();
    await ann.page.getByText(new RegExp(`^Hand 2 of ${hands} · `)).waitFor();
    await button(ann.page, 'Previous hand').click();
    await ann.page.getByText(/^Hand 1 of \d+ · /).waitFor();
  }
  // The keys step too: the arrow moves one step on.
  const beforeKey = await position.textContent();
  await button(ann.page, 'Next step').focus();
  await ann.page.keyboard.press('ArrowRight');
  await waitIn(ann.page, (text) => document.querySelector('[role="status"][aria-label="Replay position"]')?.textContent !== text, beforeKey);

  const errors = [...players, eve].flatMap((player) => player.errors);
  assert.deepEqual(errors, []);
  for (const player of [...players, eve]) await player.context.close();
});
