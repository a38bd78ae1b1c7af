// A player's profile: rating and record, tournaments entered; on another
// player's, blocking him and reporting him; on one's own, the recent
// games (with their replays), for a guest the form that keeps the name
// with a password, and the account's care: its password, its data, the
// players it blocks, and its deletion.

import { formatDate, h } from '../dom.js';
import { describe } from '../messages.js';
import { hashFor } from '../router.js';
import { shortTime } from '../moderation.js';
import { Avatar } from './avatar.js';
import { AvatarPicker } from './social-bits.js';

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
      // A duplicate tournament's points are matchpoints.
      ` · ${t.status}${t.place ? ` · place ${t.place}` : ''} · ${t.points} ${t.format?.startsWith('duplicate_') ? 'matchpoints' : 'points'}`))));
}

/** Another player: block or unblock him, report him. */
function PlayerTools({ app, actions, profile }) {
  const list = app.blocks.list;
  const player = { id: profile.id, name: profile.name };
  const blocked = Boolean(list?.some((entry) => entry.id === profile.id));
  return h('div', { class: 'button-row' },
    list ? h('button', {
      type: 'button', onclick: () => actions.setBlocked(player, !blocked),
      'aria-describedby': 'block-hint',
    }, blocked ? `Unblock ${profile.name}` : `Block ${profile.name}`) : null,
    h('button', { type: 'button', onclick: () => actions.openReport(player, 'profile') }, `Report ${profile.name}`),
    h('p', { class: 'hint', id: 'block-hint' }, blocked
      ? 'You block this player: his chat lines are hidden from you, and quick play never seats you together.'
      : 'Blocking hides his chat lines from you and keeps quick play from seating you together.'));
}

function PasswordForm({ actions }) {
  const submit = (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const { old_password: old, new_password: fresh } = form.elements;
    actions.changePassword(old.value, fresh.value).then((done) => done && form.reset());
  };
  return h('form', { class: 'account-part', 'aria-labelledby': 'password-title', onsubmit: submit },
    h('h3', { id: 'password-title' }, 'Change password'),
    h('p', { class: 'hint' }, 'Your other devices are signed out; this one stays signed in.'),
    h('label', { for: 'old-password' }, 'Current password'),
    h('input', { id: 'old-password', name: 'old_password', type: 'password', required: true, autocomplete: 'current-password' }),
    h('label', { for: 'new-password' }, 'New password (8 characters or more)'),
    h('input', { id: 'new-password', name: 'new_password', type: 'password', required: true, minlength: 8, maxlength: 256, autocomplete: 'new-password' }),
    h('button', { type: 'submit' }, 'Change password'));
}

function BlockedList({ blocks, actions }) {
  const { list, error } = blocks;
  let body;
  if (error) body = h('p', { class: 'error' }, describe(error));
  else if (!list) body = h('p', { class: 'hint' }, 'Loading…');
  else if (!list.length) body = h('p', { class: 'hint' }, 'You block nobody.');
  else {
    body = h('ul', { class: 'plain-list' }, list.map((entry) => h('li', { key: entry.id },
      h('a', { href: hashFor('profile', entry.id) }, entry.name),
      h('span', { class: 'hint' }, ` since ${shortTime(entry.since)} `),
      h('button', { type: 'button', class: 'link', onclick: () => actions.setBlocked(entry, false) }, `Unblock ${entry.name}`))));
  }
  return h('section', { class: 'account-part', 'aria-labelledby': 'blocked-title' },
    h('h3', { id: 'blocked-title' }, 'Blocked players'), body);
}

function DeleteForm({ registered, actions }) {
  const submit = (event) => {
    event.preventDefault();
    actions.deleteAccount(registered ? event.currentTarget.elements.password.value : '');
  };
  return h('form', { class: 'account-part danger-zone', 'aria-labelledby': 'delete-title', onsubmit: submit },
    h('h3', { id: 'delete-title' }, 'Delete my account'),
    h('p', { class: 'hint' }, 'Your name, password and blocks are removed for good. Your games stay, under "Deleted player", and the name becomes free.'),
    registered ? [
      h('label', { for: 'delete-password' }, 'Password, to confirm'),
      h('input', { id: 'delete-password', name: 'password', type: 'password', required: true, autocomplete: 'current-password' }),
    ] : null,
    h('button', { type: 'submit', class: 'danger' }, 'Delete my account'));
}

/** One's own account: password, data, blocks, deletion. */
function Account({ app, actions, profile }) {
  return h('section', { class: 'card-panel account', 'aria-labelledby': 'account-title' },
    h('h2', { id: 'account-title' }, 'Account'),
    // Names can be shared by guests; the id is what the staff's tools take.
    h('p', { class: 'player-id' }, 'Your player id: ', h('code', {}, profile.id),
      h('span', { class: 'hint' }, ' (a moderator or an administrator may ask you for it)')),
    h('div', { class: 'account-grid' },
      profile.registered ? h(PasswordForm, { actions }) : null,
      h('section', { class: 'account-part', 'aria-labelledby': 'data-title' },
        h('h3', { id: 'data-title' }, 'Your data'),
        h('p', { class: 'hint' }, 'Everything the server keeps about you (account, profile, games, sanctions, blocks), as one JSON file.'),
        h('button', { type: 'button', onclick: actions.downloadData }, 'Download my data')),
      h(BlockedList, { blocks: app.blocks, actions }),
      h(DeleteForm, { registered: profile.registered, actions })));
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
    h('h1', { id: 'profile-title', class: 'profile-title' },
      h(Avatar, { player: { id: p.id, name: p.name, avatar: p.avatar }, size: 'large' }), p.name,
      p.registered ? null : h('span', { class: 'badge' }, 'Guest')),
    h('dl', { class: 'stats' },
      stat('Rating', `${Math.round(p.rating)} ± ${Math.round(p.rating_deviation)}`),
      stat('Games', `${p.games_won} won of ${p.games_played}`),
      stat('Games abandoned', String(p.games_abandoned)),
      stat('Bids made', `${p.bids_made} of ${p.bids_total} (${percent(p.bids_made, p.bids_total)})`),
      stat('Nils made', `${p.nils_made} of ${p.nils_tried} (${percent(p.nils_made, p.nils_tried)})`)),
    !own && app.player ? h(PlayerTools, { app, actions, profile: p }) : null,
    own && !p.registered ? h(ClaimForm, { app, actions }) : null,
    own && p.registered ? h(AvatarPicker, { current: p.avatar ?? null, actions }) : null,
    !own && p.registered && app.me?.registered ? h('div', { class: 'button-row' },
      h('button', { type: 'button', onclick: () => actions.askFriend(p.name) }, 'Add friend')) : null,
    !own && app.me?.is_admin && p.registered ? h('div', { class: 'button-row' },
      h('button', { type: 'button', onclick: () => actions.grantOrganizer(p) }, 'Allow to run tournaments')) : null,
    games ? h(GamesTable, { games }) : null,
    tournaments && tournaments.length ? h(Tournaments, { tournaments }) : null,
    own ? h(Account, { app, actions, profile: p }) : null);
}
