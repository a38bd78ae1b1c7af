// The tournaments: the list by status, and for organisers a form that
// creates one.

import { formatDate, h } from '../dom.js';
import { describe } from '../messages.js';
import { hashFor } from '../router.js';

const FILTERS = [['', 'All'], ['upcoming', 'Open'], ['running', 'Running'], ['finished', 'Finished']];

function Rows({ list, error }) {
  if (error) return h('tr', {}, h('td', { colspan: 6, class: 'error' }, describe(error)));
  if (!list) return h('tr', {}, h('td', { colspan: 6, class: 'empty' }, 'Loading…'));
  if (!list.length) return h('tr', {}, h('td', { colspan: 6, class: 'empty' }, 'No tournaments here yet.'));
  return list.map((t) => h('tr', { key: t.id },
    h('th', { scope: 'row' }, h('a', { href: hashFor('tournament', t.id) }, t.name)),
    h('td', {}, t.format === 'swiss' ? `Swiss, ${t.rounds} rounds` : 'Knockout'),
    h('td', {}, t.status),
    h('td', {}, `${t.players}/${t.max_players}`),
    h('td', {}, t.started_at ? `Started ${formatDate(t.started_at)}` : (t.starts_at ? formatDate(t.starts_at) : 'When full')),
    h('td', {}, t.organizer_name)));
}

function Field({ id, label, hidden, children }) {
  return h('div', { class: 'field', hidden }, h('label', { for: id }, label), children);
}

function CreateForm({ app, actions }) {
  const input = (id, name, attrs) => h('input', { id, name, ...attrs });
  const swiss = app.tournaments.format === 'swiss';
  return h('form', {
    class: 'card-panel',
    'aria-labelledby': 'create-tournament-title',
    onsubmit: (event) => {
      event.preventDefault();
      actions.createTournament(Object.fromEntries(new FormData(event.currentTarget)));
    },
  },
  h('h2', { id: 'create-tournament-title' }, 'Create a tournament'),
  h(Field, { id: 'tournament-name', label: 'Name' }, input('tournament-name', 'name', { required: true, maxlength: 60 })),
  h(Field, { id: 'tournament-format', label: 'Format' },
    h('select', { id: 'tournament-format', name: 'format', value: app.tournaments.format, onchange: (event) => actions.setTournamentFormat(event.currentTarget.value) },
      h('option', { value: 'knockout' }, 'Knockout'), h('option', { value: 'swiss' }, 'Swiss'))),
  h(Field, { id: 'tournament-max-players', label: 'Most players' },
    input('tournament-max-players', 'max_players', { type: 'number', min: 4, max: 1024, defaultValue: 16 })),
  h(Field, { id: 'tournament-starts-at', label: 'Starts at (empty: when full)' }, input('tournament-starts-at', 'starts_at', { type: 'datetime-local' })),
  h(Field, { id: 'tournament-rounds', label: 'Rounds (Swiss)', hidden: !swiss },
    input('tournament-rounds', 'rounds', { type: 'number', min: 1, max: 30, placeholder: '7' })),
  h(Field, { id: 'tournament-target', label: 'Points to win a game' }, input('tournament-target', 'target', { type: 'number', placeholder: '300' })),
  h(Field, { id: 'tournament-loss-threshold', label: 'Loss threshold' },
    input('tournament-loss-threshold', 'loss_threshold', { type: 'number', placeholder: '-300' })),
  h(Field, { id: 'tournament-hands', label: 'Hands per game' }, input('tournament-hands', 'hands', { type: 'number', min: 1, max: 50, placeholder: '7' })),
  h('button', { type: 'submit', class: 'primary' }, 'Create'));
}

export function Screen({ app, actions }) {
  const { filter, list, error } = app.tournaments;
  const canOrganize = app.me && (app.me.can_organize || app.me.is_admin);
  return h('section', { class: 'tournaments', 'aria-labelledby': 'tournaments-title' },
    h('h1', { id: 'tournaments-title' }, 'Tournaments'),
    h('div', { class: 'button-row', role: 'group', 'aria-label': 'Show' }, FILTERS.map(([value, label]) => h('button', {
      key: label, type: 'button', 'aria-pressed': String(filter === value), onclick: () => actions.setTournamentFilter(value),
    }, label))),
    h('div', { class: 'card-panel' },
      h('table', { class: 'tournament-list', 'aria-labelledby': 'tournaments-title' },
        h('thead', {}, h('tr', {},
          ['Name', 'Format', 'Status', 'Players', 'Start', 'Organiser'].map((label) => h('th', { scope: 'col' }, label)))),
        h('tbody', {}, h(Rows, { list, error })))),
    canOrganize ? h(CreateForm, { app, actions }) : null);
}
