// The tournaments: the list by status, and for organisers a form that
// creates one.

import { fill, formatDate, h } from '../dom.js';
import { describe } from '../messages.js';
import { hashFor } from '../router.js';

const FILTERS = [['', 'All'], ['upcoming', 'Open'], ['running', 'Running'], ['finished', 'Finished']];

export function mount(root, app) {
  let filter = '';
  const body = h('tbody');
  const filters = h('div', { class: 'button-row', role: 'group', 'aria-label': 'Show' });
  const createSlot = h('div');

  async function load() {
    fill(filters, FILTERS.map(([value, label]) => h('button', {
      type: 'button',
      'data-testid': `tournament-filter-${value || 'all'}`,
      'aria-pressed': String(filter === value),
      onclick: () => { filter = value; load(); },
    }, label)));
    try {
      const list = await app.api.tournaments(filter || undefined);
      fill(body, list.length ? list.map((t) => h('tr', { 'data-testid': 'tournament-row', 'data-tournament': t.id },
        h('th', { scope: 'row' }, h('a', { href: hashFor('tournament', t.id), 'data-testid': 'tournament-link' }, t.name)),
        h('td', {}, t.format === 'swiss' ? `Swiss, ${t.rounds} rounds` : 'Knockout'),
        h('td', { 'data-testid': 'tournament-row-status' }, t.status),
        h('td', {}, `${t.players}/${t.max_players}`),
        h('td', {}, t.started_at ? `Started ${formatDate(t.started_at)}` : (t.starts_at ? formatDate(t.starts_at) : 'When full')),
        h('td', {}, t.organizer_name)))
        : h('tr', {}, h('td', { colspan: 6, class: 'empty' }, 'No tournaments here yet.')));
    } catch (error) {
      fill(body, h('tr', {}, h('td', { colspan: 6, class: 'error' }, describe(error))));
    }
  }

  function drawCreate() {
    const canOrganize = app.me && (app.me.can_organize || app.me.is_admin);
    if (!canOrganize) {
      fill(createSlot);
      return;
    }
    if (createSlot.childElementCount) return;
    fill(createSlot, createForm(app));
  }

  root.append(h('section', { class: 'tournaments', 'aria-labelledby': 'tournaments-title' },
    h('h1', { id: 'tournaments-title' }, 'Tournaments'),
    filters,
    h('div', { class: 'card-panel' },
      h('table', { class: 'tournament-list', 'data-testid': 'tournament-list' },
        h('thead', {}, h('tr', {},
          ['Name', 'Format', 'Status', 'Players', 'Start', 'Organiser'].map((label) => h('th', { scope: 'col' }, label)))),
        body)),
    createSlot));
  load();
  const refresher = setInterval(load, 15000);
  return {
    update: drawCreate,
    unmount() { clearInterval(refresher); },
  };
}

function createForm(app) {
  const input = (id, attrs) => h('input', { id, 'data-testid': id, ...attrs });
  const field = (id, label, control) => h('div', { class: 'field' }, h('label', { for: id }, label), control);
  const name = input('tournament-name', { required: true, maxlength: 60 });
  const format = h('select', { id: 'tournament-format', 'data-testid': 'tournament-format' },
    h('option', { value: 'knockout' }, 'Knockout'), h('option', { value: 'swiss' }, 'Swiss'));
  const maxPlayers = input('tournament-max-players', { type: 'number', min: 4, max: 1024, value: 16 });
  const startsAt = input('tournament-starts-at', { type: 'datetime-local' });
  const rounds = input('tournament-rounds', { type: 'number', min: 1, max: 30, placeholder: '7' });
  const target = input('tournament-target', { type: 'number', placeholder: '300' });
  const lossThreshold = input('tournament-loss-threshold', { type: 'number', placeholder: '-300' });
  const hands = input('tournament-hands', { type: 'number', min: 1, max: 50, placeholder: '7' });
  const roundsField = field('tournament-rounds', 'Rounds (Swiss)', rounds);
  const showRounds = () => { roundsField.hidden = format.value !== 'swiss'; };
  format.addEventListener('change', showRounds);
  showRounds();
  return h('form', {
    class: 'card-panel',
    'data-testid': 'create-tournament-form',
    onsubmit: async (event) => {
      event.preventDefault();
      const settings = { name: name.value.trim(), format: format.value, max_players: Number(maxPlayers.value) };
      if (startsAt.value) settings.starts_at = new Date(startsAt.value).toISOString();
      if (format.value === 'swiss' && rounds.value) settings.rounds = Number(rounds.value);
      if (target.value) settings.target = Number(target.value);
      if (lossThreshold.value) settings.loss_threshold = Number(lossThreshold.value);
      if (hands.value) settings.hands = Number(hands.value);
      try {
        const created = await app.api.createTournament(settings);
        app.navigate('tournament', created.id);
      } catch (error) {
        app.notify(describe(error) + (error.code === 'bad_request' && error.message ? ` (${error.message})` : ''), 'error');
      }
    },
  },
  h('h2', {}, 'Create a tournament'),
  field('tournament-name', 'Name', name),
  field('tournament-format', 'Format', format),
  field('tournament-max-players', 'Most players', maxPlayers),
  field('tournament-starts-at', 'Starts at (empty: when full)', startsAt),
  roundsField,
  field('tournament-target', 'Points to win a game', target),
  field('tournament-loss-threshold', 'Loss threshold', lossThreshold),
  field('tournament-hands', 'Hands per game', hands),
  h('button', { type: 'submit', class: 'primary', 'data-testid': 'create-tournament' }, 'Create'));
}
