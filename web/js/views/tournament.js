// One tournament, followed live: its entrants, the bracket (knockout) or
// standings (Swiss), the final places, registering and withdrawing, and
// the organiser's controls.

import { formatDate, h } from '../dom.js';
import { describe } from '../messages.js';
import { hashFor } from '../router.js';
import { teamsFromRules } from '../state.js';

// A tournament table is a partnership game; the tournament's view says
// which entry sits in each seat, and no snapshot says who partners whom.
const TEAMS = teamsFromRules(null);

function Controls({ t, entry, organiser, actions }) {
  const controls = [];
  if (t.status === 'open') {
    controls.push(entry
      ? h('button', { type: 'button', onclick: actions.tournamentWithdraw }, 'Withdraw')
      : h('button', { type: 'button', class: 'primary', onclick: actions.tournamentRegister }, 'Register'));
  }
  if (organiser && t.status === 'open') {
    controls.push(h('form', {
      class: 'inline-field',
      onsubmit: (event) => {
        event.preventDefault();
        actions.tournamentAddBots(Number(event.currentTarget.elements.count.value));
      },
    },
    h('label', { for: 'bots-count' }, 'Bots'),
    h('input', { id: 'bots-count', name: 'count', type: 'number', min: 1, max: t.max_players, defaultValue: Math.max(1, 4 - t.players) }),
    h('button', { type: 'submit' }, 'Add bots')));
    controls.push(h('button', { type: 'button', class: 'primary', onclick: actions.tournamentStart }, 'Start now'));
  }
  if (organiser && (t.status === 'open' || t.status === 'running')) {
    controls.push(h('button', { type: 'button', onclick: actions.tournamentCancel }, 'Cancel tournament'));
  }
  return controls.length ? h('div', { class: 'button-row' }, controls) : null;
}

export function Screen({ app, actions }) {
  const { data: t, error } = app.tournament;
  if (!t) {
    return h('section', { class: 'tournament' }, error
      ? h('p', { class: 'error', role: 'alert' }, describe(error))
      : h('p', { class: 'loading' }, 'Loading the tournament…'));
  }
  const entry = t.entrants.find((e) => e.account_id === app.player?.id);
  const organiser = app.me && (app.me.can_organize || app.me.is_admin);
  const names = new Map(t.entrants.map((e) => [e.entry, e]));
  const mine = myTable(t, entry);
  return h('section', { class: 'tournament', 'aria-labelledby': 'tournament-title', 'aria-live': 'polite' },
    h('h1', { id: 'tournament-title' }, t.name),
    h('p', {},
      h('span', { class: 'badge' }, h('span', { class: 'visually-hidden' }, 'Status: '), t.status), ' ',
      t.format === 'swiss' ? `Swiss, ${t.rounds} rounds` : 'Knockout',
      ` · ${t.players}/${t.max_players} players · organised by ${t.organizer_name}`,
      t.starts_at && t.status === 'open' ? ` · starts ${formatDate(t.starts_at)}` : '',
      t.status === 'open' && !t.starts_at ? ' · starts when full' : ''),
    entry ? h('p', {}, `You are entry ${entry.entry + 1}.`) : null,
    mine ? h('p', { class: 'banner good' }, 'Your table is being played. ',
      h('a', { class: 'button primary', href: hashFor('room', mine.room) }, 'Go to your table')) : null,
    h(Controls, { t, entry, organiser, actions }),
    t.status === 'finished' ? places(t) : null,
    t.format === 'swiss' && t.entrants.length ? standings(t) : null,
    t.stages.length ? bracket(t, names) : null,
    entrants(t));
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

function bracketTable(stage, table, names) {
  const team = (index) => TEAMS[index].map((seat) => entrantName(names, table.seats[seat])).join(' & ');
  const line = (index) => h('li', { class: table.winner === index ? 'winner' : '' }, team(index),
    table.score ? h('span', { class: 'score' }, ` ${table.score[index]}`) : null,
    table.winner === index ? h('span', { class: 'visually-hidden' }, ' (won)') : null);
  const title = `stage-${stage.stage}-table-${table.table}`;
  return h('div', { key: table.table, class: 'bracket-table card-panel', role: 'group', 'aria-labelledby': title },
    h('h3', { id: title }, `Table ${table.table + 1}`, h('span', { class: 'hint' }, ` · ${table.status}`)),
    h('ul', {}, TEAMS.map((_, index) => line(index))),
    table.status === 'playing' && table.room ? h('a', { href: hashFor('room', table.room) }, 'Watch') : null,
    table.status === 'finished' && table.game ? h('a', { href: hashFor('replay', table.game) }, 'Replay') : null);
}

function bracket(t, names) {
  const label = t.format === 'swiss' ? 'Round' : 'Stage';
  return h('section', { class: 'bracket', 'aria-label': t.format === 'swiss' ? 'Rounds' : 'Bracket' },
    t.stages.map((stage) => h('div', { key: stage.stage, class: 'bracket-stage' },
      h('h2', {}, `${label} ${stage.stage + 1}`),
      stage.tables.map((table) => bracketTable(stage, table, names)))));
}

function standings(t) {
  const rows = [...t.entrants].sort((a, b) => b.points - a.points || b.score_diff - a.score_diff);
  return h('section', { class: 'card-panel', 'aria-labelledby': 'standings-title' }, h('h2', { id: 'standings-title' }, 'Standings'),
    h('table', { 'aria-labelledby': 'standings-title' },
      h('thead', {}, h('tr', {}, ['Player', 'Points', 'Margin'].map((l) => h('th', { scope: 'col' }, l)))),
      h('tbody', {}, rows.map((e) => h('tr', { key: e.entry },
        h('th', { scope: 'row' }, e.bot ? `${e.name} (bot)` : e.name),
        h('td', {}, String(e.points)), h('td', {}, String(e.score_diff)))))));
}

function places(t) {
  const rows = t.entrants.filter((e) => e.place !== null && e.place !== undefined)
    .sort((a, b) => a.place - b.place || a.name.localeCompare(b.name));
  return h('section', { class: 'card-panel', 'aria-labelledby': 'places-title' }, h('h2', { id: 'places-title' }, 'Final places'),
    // Places can be shared, so the list carries its own numbers.
    h('ul', { class: 'places', 'aria-labelledby': 'places-title' }, rows.map((e) => h('li', { key: e.entry },
      h('strong', {}, `${ordinal(e.place)} `), e.bot ? `${e.name} (bot)` : e.name))));
}

function ordinal(place) {
  const suffix = place % 10 === 1 && place % 100 !== 11 ? 'st'
    : place % 10 === 2 && place % 100 !== 12 ? 'nd'
      : place % 10 === 3 && place % 100 !== 13 ? 'rd' : 'th';
  return `${place}${suffix}`;
}

function entrants(t) {
  return h('section', { class: 'card-panel', 'aria-labelledby': 'entrants-title' },
    h('h2', { id: 'entrants-title' }, `Entrants (${t.entrants.length})`),
    t.entrants.length
      ? h('ul', { class: 'entrants', 'aria-labelledby': 'entrants-title' }, t.entrants.map((e) => h('li', { key: e.entry },
        e.bot ? `${e.name} (bot)` : e.name)))
      : h('p', { class: 'hint' }, 'Nobody has registered yet.'));
}
