// A player's profile: rating and record, tournaments entered, and for
// one's own profile the recent games (with their replays) and, for a
// guest, the form that keeps the name with a password.

import { formatDate, h } from '../dom.js';
import { describe } from '../messages.js';
import { hashFor } from '../router.js';

function stat(label, value) {
  return [h('dt', {}, label), h('dd', {}, value)];
}

function GamesTable({ games }) {
  return h('section', { class: 'card-panel', 'aria-labelledby': 'games-title' }, h('h2', { id: 'games-title' }, 'Recent games'),
    games.length ? h('table', { 'aria-labelledby': 'games-title' },
      h('thead', {}, h('tr', {}, ['Table', 'Started', 'Result', ''].map((l) => h('th', { scope: 'col' }, l)))),
      h('tbody', {}, games.map((g) => h('tr', { key: g.id },
        h('th', { scope: 'row' }, g.room_name),
        h('td', {}, formatDate(g.started_at)),
        h('td', {}, g.status === 'playing' ? 'being played' : `${g.status}, ${g.score0 ?? '?'} to ${g.score1 ?? '?'}`),
        h('td', {}, g.status === 'playing'
          ? h('a', { href: hashFor('room', g.room) }, 'Go to table')
          : h('a', { href: hashFor('replay', g.id), 'aria-label': `Replay ${g.room_name}, ${formatDate(g.started_at)}` }, 'Replay'))))))
      : h('p', { class: 'hint' }, 'No games yet.'));
}

function ClaimForm({ app, actions }) {
  return h('form', {
    class: 'card-panel',
    'aria-labelledby': 'claim-title',
    onsubmit: (event) => {
      event.preventDefault();
      actions.claimName(event.currentTarget.elements.password.value);
    },
  },
  h('h2', { id: 'claim-title' }, 'Keep this name'),
  h('p', { class: 'hint' }, 'You are playing as a guest. Set a password to keep your name, rating and games.'),
  // Password managers want the name beside a new password.
  h('input', { type: 'text', class: 'visually-hidden', autocomplete: 'username', value: app.player?.name ?? '', tabIndex: -1, 'aria-hidden': 'true', readonly: true }),
  h('label', { for: 'claim-password' }, 'Password (8 characters or more)'),
  h('input', { id: 'claim-password', name: 'password', type: 'password', minlength: 8, required: true, autocomplete: 'new-password' }),
  h('button', { type: 'submit', class: 'primary' }, 'Keep my name'));
}

function Tournaments({ tournaments }) {
  return h('section', { class: 'card-panel', 'aria-labelledby': 'profile-tournaments-title' },
    h('h2', { id: 'profile-tournaments-title' }, 'Tournaments'),
    h('ul', {}, tournaments.map((t) => h('li', { key: t.id },
      h('a', { href: hashFor('tournament', t.id) }, t.name),
      ` · ${t.status}${t.place ? ` · place ${t.place}` : ''} · ${t.points} points`))));
}

export function Screen({ app, actions }) {
  const { data, error } = app.profile;
  if (!data) {
    return h('section', { class: 'profile' },
      error ? h('p', { class: 'error', role: 'alert' }, describe(error)) : h('p', { class: 'loading' }, 'Loading…'));
  }
  const { own, profile: p, games, tournaments } = data;
  const percent = (a, b) => (b ? `${Math.round((100 * a) / b)}%` : '–');
  return h('section', { class: 'profile', 'aria-labelledby': 'profile-title' },
    h('h1', { id: 'profile-title' }, p.name, p.registered ? null : h('span', { class: 'badge' }, 'Guest')),
    h('dl', { class: 'stats' },
      stat('Rating', `${Math.round(p.rating)} ± ${Math.round(p.rating_deviation)}`),
      stat('Games', `${p.games_won} won of ${p.games_played}`),
      stat('Games abandoned', String(p.games_abandoned)),
      stat('Bids made', `${p.bids_made} of ${p.bids_total} (${percent(p.bids_made, p.bids_total)})`),
      stat('Nils made', `${p.nils_made} of ${p.nils_tried} (${percent(p.nils_made, p.nils_tried)})`)),
    own && !p.registered ? h(ClaimForm, { app, actions }) : null,
    !own && app.me?.is_admin && p.registered ? h('div', { class: 'button-row' },
      h('button', { type: 'button', onclick: () => actions.grantOrganizer(p) }, 'Allow to run tournaments')) : null,
    games ? h(GamesTable, { games }) : null,
    tournaments && tournaments.length ? h(Tournaments, { tournaments }) : null);
}
