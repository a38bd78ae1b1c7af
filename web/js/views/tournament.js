// One tournament, followed live with watch_tournament: its entrants, the
// bracket (knockout) or standings (Swiss), the final places, registering
// and withdrawing, and the organiser's controls.

import { fill, formatDate, h } from '../dom.js';
import { describe } from '../messages.js';
import { hashFor } from '../router.js';

export function mount(root, app, id) {
  const { client, api } = app;
  let tournament = null;
  let error = null;
  const section = h('section', { class: 'tournament', 'aria-live': 'polite' });
  root.append(section);

  const offView = client.on('tournament', (message) => {
    if (message.tournament?.id === id) {
      tournament = message.tournament;
      app.refresh();
    }
  });
  client.watchTournament(id).catch((failure) => {
    error = failure;
    app.refresh();
  });
  // The HTTP answer may come first while the connection is still opening.
  api.tournament(id).then((view) => {
    tournament = tournament ?? view;
    app.refresh();
  }, (failure) => {
    if (!tournament) error = failure;
    app.refresh();
  });

  const run = (promise, done) => promise.then(async () => {
    if (done) app.notify(done);
    tournament = await api.tournament(id);
    app.refresh();
  }, (failure) => app.notify(failure, 'error'));

  function draw() {
    if (!tournament) {
      fill(section, error
        ? h('p', { class: 'error', role: 'alert' }, describe(error))
        : h('p', { class: 'loading' }, 'Loading the tournament…'));
      return;
    }
    const t = tournament;
    const me = app.player?.id;
    const entry = t.entrants.find((e) => e.account_id === me);
    const organiser = app.me && (app.me.can_organize || app.me.is_admin);
    const names = new Map(t.entrants.map((e) => [e.entry, e]));
    const controls = [];
    if (t.status === 'open') {
      controls.push(entry
        ? h('button', { type: 'button', 'data-testid': 'tournament-withdraw', onclick: () => run(api.withdraw(id), 'You have withdrawn.') }, 'Withdraw')
        : h('button', { type: 'button', class: 'primary', 'data-testid': 'tournament-register', onclick: () => run(api.enter(id), 'You are registered.') }, 'Register'));
    }
    if (organiser && t.status === 'open') {
      const count = h('input', { id: 'bots-count', type: 'number', min: 1, max: t.max_players, value: Math.max(1, 4 - t.players), 'data-testid': 'tournament-bots-count' });
      controls.push(h('span', { class: 'inline-field' },
        h('label', { for: 'bots-count' }, 'Bots'), count,
        h('button', { type: 'button', 'data-testid': 'tournament-add-bots', onclick: () => run(api.addBots(id, Number(count.value))) }, 'Add bots')));
      controls.push(h('button', { type: 'button', class: 'primary', 'data-testid': 'tournament-start', onclick: () => run(api.start(id), 'The tournament has started.') }, 'Start now'));
    }
    if (organiser && (t.status === 'open' || t.status === 'running')) {
      controls.push(h('button', {
        type: 'button', 'data-testid': 'tournament-cancel',
        onclick: () => confirm('Cancel this tournament? Tables being played finish as ordinary games.') && run(api.cancel(id), 'The tournament was cancelled.'),
      }, 'Cancel tournament'));
    }
    const mine = myTable(t, entry);
    fill(section,
      h('h1', { 'data-testid': 'tournament-title' }, t.name),
      h('p', {},
        h('span', { class: 'badge', 'data-testid': 'tournament-status' }, t.status), ' ',
        t.format === 'swiss' ? `Swiss, ${t.rounds} rounds` : 'Knockout',
        ` · ${t.players}/${t.max_players} players · organised by ${t.organizer_name}`,
        t.starts_at && t.status === 'open' ? ` · starts ${formatDate(t.starts_at)}` : '',
        t.status === 'open' && !t.starts_at ? ' · starts when full' : ''),
      entry ? h('p', { 'data-testid': 'tournament-entry' }, `You are entry ${entry.entry + 1}.`) : null,
      mine ? h('p', { class: 'banner good' }, 'Your table is being played. ',
        h('a', { class: 'button primary', href: hashFor('room', mine.room), 'data-testid': 'tournament-my-table' }, 'Go to your table')) : null,
      controls.length ? h('div', { class: 'button-row' }, controls) : null,
      t.status === 'finished' ? places(t) : null,
      t.format === 'swiss' && t.entrants.length ? standings(t) : null,
      t.stages.length ? bracket(t, names) : null,
      entrants(t));
  }

  return {
    update: draw,
    unmount() {
      offView();
      client.unwatchTournament(id).catch(() => {});
    },
  };
}

function myTable(t, entry) {
  if (!entry || t.status !== 'running') return null;
  for (const stage of t.stages) {
    for (const table of stage.tables) {
      if (table.status === 'playing' && table.seats.includes(entry.entry)) return table;
    }
  }
  return null;
}

function entrantName(names, number) {
  const e = names.get(number);
  if (!e) return `Entry ${number + 1}`;
  return e.bot ? `${e.name} (bot)` : e.name;
}

function bracket(t, names) {
  const label = t.format === 'swiss' ? 'Round' : 'Stage';
  return h('section', { class: 'bracket', 'data-testid': 'bracket', 'aria-label': t.format === 'swiss' ? 'Rounds' : 'Bracket' },
    t.stages.map((stage) => h('div', { class: 'bracket-stage', 'data-stage': stage.stage },
      h('h2', {}, `${label} ${stage.stage + 1}`),
      stage.tables.map((table) => {
        const team = (index) => `${entrantName(names, table.seats[index])} & ${entrantName(names, table.seats[index + 2])}`;
        const line = (index) => h('li', {
          class: table.winner === index ? 'winner' : '',
          'data-testid': 'bracket-team',
        }, team(index),
        table.score ? h('span', { class: 'score' }, ` ${table.score[index]}`) : null,
        table.winner === index ? h('span', { class: 'visually-hidden' }, ' (won)') : null);
        return h('div', { class: 'bracket-table card-panel', 'data-testid': 'bracket-table', 'data-stage': stage.stage, 'data-table': table.table, 'data-status': table.status },
          h('h3', {}, `Table ${table.table + 1}`, h('span', { class: 'hint' }, ` · ${table.status}`)),
          h('ul', {}, line(0), line(1)),
          table.status === 'playing' && table.room ? h('a', { href: hashFor('room', table.room), 'data-testid': 'bracket-watch' }, 'Watch') : null,
          table.status === 'finished' && table.game ? h('a', { href: hashFor('replay', table.game), 'data-testid': 'bracket-replay' }, 'Replay') : null);
      }))));
}

function standings(t) {
  const rows = [...t.entrants].sort((a, b) => b.points - a.points || b.score_diff - a.score_diff);
  return h('section', { class: 'card-panel' }, h('h2', {}, 'Standings'),
    h('table', { 'data-testid': 'standings' },
      h('thead', {}, h('tr', {}, ['Player', 'Points', 'Margin'].map((l) => h('th', { scope: 'col' }, l)))),
      h('tbody', {}, rows.map((e) => h('tr', { 'data-testid': 'standings-row' },
        h('th', { scope: 'row' }, e.bot ? `${e.name} (bot)` : e.name),
        h('td', {}, String(e.points)), h('td', {}, String(e.score_diff)))))));
}

function places(t) {
  const rows = t.entrants.filter((e) => e.place !== null && e.place !== undefined)
    .sort((a, b) => a.place - b.place || a.name.localeCompare(b.name));
  return h('section', { class: 'card-panel' }, h('h2', {}, 'Final places'),
    // Places can be shared, so the list carries its own numbers.
    h('ul', { class: 'places', 'data-testid': 'final-places' }, rows.map((e) => h('li', { 'data-testid': 'final-place', 'data-place': e.place },
      h('strong', {}, `${ordinal(e.place)} `), e.bot ? `${e.name} (bot)` : e.name))));
}

function ordinal(place) {
  const suffix = place % 10 === 1 && place % 100 !== 11 ? 'st'
    : place % 10 === 2 && place % 100 !== 12 ? 'nd'
      : place % 10 === 3 && place % 100 !== 13 ? 'rd' : 'th';
  return `${place}${suffix}`;
}

function entrants(t) {
  return h('section', { class: 'card-panel' }, h('h2', {}, `Entrants (${t.entrants.length})`),
    t.entrants.length
      ? h('ul', { class: 'entrants', 'data-testid': 'tournament-entrants' }, t.entrants.map((e) => h('li', { 'data-testid': 'tournament-entrant' },
        e.bot ? `${e.name} (bot)` : e.name)))
      : h('p', { class: 'hint' }, 'Nobody has registered yet.'));
}
