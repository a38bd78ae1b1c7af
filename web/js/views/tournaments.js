// The tournaments: the list by status, and for organisers a form that
// creates one.

import { formatDate, h } from '../dom.js';
import { formatText, isDuplicate } from '../duplicate.js';
import { describe } from '../messages.js';
import { hashFor } from '../router.js';

const FILTERS = [['', 'All'], ['upcoming', 'Open'], ['running', 'Running'], ['finished', 'Finished']];

function Rows({ list, error }) {
  if (error) return h('tr', {}, h('td', { colspan: 6, class: 'error' }, describe(error)));
  if (!list) return h('tr', {}, h('td', { colspan: 6, class: 'empty' }, 'Loading…'));
  if (!list.length) return h('tr', {}, h('td', { colspan: 6, class: 'empty' }, 'No tournaments here yet.'));
  return list.map((t) => h('tr', { key: t.id },
    h('th', { scope: 'row' }, h('a', { href: hashFor('tournament', t.id) }, t.name)),
    h('td', {}, formatText(t)),
    h('td', {}, t.status),
    h('td', {}, `${t.players}/${t.max_players}`),
    h('td', {}, t.started_at ? `Started ${formatDate(t.started_at)}` : (t.starts_at ? formatDate(t.starts_at) : 'When full')),
    h('td', {}, t.organizer_name)));
}

function Field({ id, label, hidden, children }) {
  return h('div', { class: 'field', hidden }, h('label', { for: id }, label), children);
}

const FORMATS = [
  ['knockout', 'Knockout'], ['swiss', 'Swiss'],
  ['duplicate_pairs', 'Duplicate, fixed partners'], ['duplicate_individual', 'Duplicate, partners change each round'],
];

function CreateForm({ app, actions }) {
  // A field that does not apply to the format is hidden and disabled:
  // disabled, it is neither checked nor sent.
  const field = (id, label, name, { hidden = false, ...attrs }) => h(Field, { id, label, hidden },
    h('input', { id, name, disabled: hidden, ...attrs }));
  const { format } = app.tournaments;
  const duplicate = isDuplicate(format);
  return h('form', {
    class: 'card-panel',
    'aria-labelledby': 'create-tournament-title',
    onsubmit: (event) => {
      event.preventDefault();
      actions.createTournament(Object.fromEntries(new FormData(event.currentTarget)));
    },
  },
  h('h2', { id: 'create-tournament-title' }, 'Create a tournament'),
  field('tournament-name', 'Name', 'name', { required: true, maxlength: 60 }),
  h(Field, { id: 'tournament-format', label: 'Format' },
    h('select', { id: 'tournament-format', name: 'format', value: format, onchange: (event) => actions.setTournamentFormat(event.currentTarget.value) },
      FORMATS.map(([value, label]) => h('option', { key: value, value }, label)))),
  field('tournament-max-players', 'Most players', 'max_players', { type: 'number', min: 4, max: 1024, defaultValue: 16 }),
  field('tournament-starts-at', 'Starts at (empty: when full)', 'starts_at', { type: 'datetime-local' }),
  // Empty fields leave the server's defaults, which the placeholders show.
  field('tournament-rounds', 'Rounds', 'rounds', {
    type: 'number', min: 1, max: 30, placeholder: duplicate ? '3' : '7', hidden: format !== 'swiss' && !duplicate,
  }),
  // A duplicate game plays every board of its round, whatever the score.
  field('tournament-boards', 'Boards per round', 'boards', { type: 'number', min: 1, max: 13, placeholder: '4', hidden: !duplicate }),
  field('tournament-target', 'Points to win a game', 'target', { type: 'number', placeholder: '300', hidden: duplicate }),
  field('tournament-loss-threshold', 'Loss threshold', 'loss_threshold', { type: 'number', placeholder: '-300', hidden: duplicate }),
  field('tournament-hands', 'Hands per game', 'hands', { type: 'number', min: 1, max: 50, placeholder: '7', hidden: duplicate }),
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
