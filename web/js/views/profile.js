// A player's profile: rating and record, tournaments entered, and for
// one's own profile the recent games (with their replays) and, for a
// guest, the form that keeps the name with a password.

import { fill, formatDate, h } from '../dom.js';
import { describe } from '../messages.js';
import { hashFor } from '../router.js';

export function mount(root, app, param) {
  const section = h('section', { class: 'profile', 'data-testid': 'profile' });
  root.append(section);
  let data = null;
  let error = null;

  async function load() {
    try {
      const own = param === 'me' || param === app.player?.id;
      const profile = own ? await app.api.me() : await app.api.player(param);
      const [games, tournaments] = await Promise.all([
        own ? app.api.myGames(20).then((answer) => answer.games) : Promise.resolve(null),
        app.api.playerTournaments(profile.id).catch(() => []),
      ]);
      data = { own, profile, games, tournaments };
    } catch (failure) {
      error = failure;
    }
    app.refresh();
  }

  function draw() {
    if (!data) {
      fill(section, error ? h('p', { class: 'error', role: 'alert' }, describe(error)) : h('p', { class: 'loading' }, 'Loading…'));
      return;
    }
    const { own, profile: p, games, tournaments } = data;
    const percent = (a, b) => (b ? `${Math.round((100 * a) / b)}%` : '–');
    fill(section,
      h('h1', { 'data-testid': 'profile-name' }, p.name, p.registered ? null : h('span', { class: 'badge' }, 'Guest')),
      h('dl', { class: 'stats' },
        stat('Rating', `${Math.round(p.rating)} ± ${Math.round(p.rating_deviation)}`, 'profile-rating'),
        stat('Games', `${p.games_won} won of ${p.games_played}`, 'profile-games'),
        stat('Games abandoned', String(p.games_abandoned)),
        stat('Bids made', `${p.bids_made} of ${p.bids_total} (${percent(p.bids_made, p.bids_total)})`),
        stat('Nils made', `${p.nils_made} of ${p.nils_tried} (${percent(p.nils_made, p.nils_tried)})`)),
      own && !p.registered ? claimForm(app, load) : null,
      !own && app.me?.is_admin && p.registered ? permissionButton(app, p) : null,
      games ? gamesTable(games) : null,
      tournaments && tournaments.length ? h('section', { class: 'card-panel' }, h('h2', {}, 'Tournaments'),
        h('ul', { 'data-testid': 'profile-tournaments' }, tournaments.map((t) => h('li', {},
          h('a', { href: hashFor('tournament', t.id) }, t.name),
          ` · ${t.status}${t.place ? ` · place ${t.place}` : ''} · ${t.points} points`)))) : null);
  }

  load();
  return { update: draw, unmount() {} };
}

function stat(label, value, testid) {
  return [h('dt', {}, label), h('dd', { 'data-testid': testid }, value)];
}

function gamesTable(games) {
  return h('section', { class: 'card-panel' }, h('h2', {}, 'Recent games'),
    games.length ? h('table', { 'data-testid': 'recent-games' },
      h('thead', {}, h('tr', {}, ['Table', 'Started', 'Result', ''].map((l) => h('th', { scope: 'col' }, l)))),
      h('tbody', {}, games.map((g) => h('tr', { 'data-testid': 'game-row', 'data-game': g.id },
        h('th', { scope: 'row' }, g.room_name),
        h('td', {}, formatDate(g.started_at)),
        h('td', {}, g.status === 'playing' ? 'being played' : `${g.status}, ${g.score0 ?? '?'} to ${g.score1 ?? '?'}`),
        h('td', {}, g.status === 'playing'
          ? h('a', { href: hashFor('room', g.room) }, 'Go to table')
          : h('a', { href: hashFor('replay', g.id), 'data-testid': 'replay-link' }, 'Replay'))))))
      : h('p', { class: 'hint' }, 'No games yet.'));
}

function claimForm(app, reload) {
  const password = h('input', { id: 'claim-password', type: 'password', minlength: 8, required: true, autocomplete: 'new-password', 'data-testid': 'claim-password' });
  return h('form', {
    class: 'card-panel',
    'data-testid': 'claim-form',
    onsubmit: async (event) => {
      event.preventDefault();
      app.claiming = true;
      try {
        const answer = await app.api.claim(password.value);
        // The server ends the guest session's connection; the client
        // comes back with the new token.
        app.client.switchToken(answer.token);
        app.notify('Your name is now yours: log in with it and this password from anywhere.');
        await app.loadMe();
        reload();
      } catch (failure) {
        app.notify(failure, 'error');
      } finally {
        app.claiming = false;
      }
    },
  },
  h('h2', {}, 'Keep this name'),
  h('p', { class: 'hint' }, 'You are playing as a guest. Set a password to keep your name, rating and games.'),
  // Password managers want the name beside a new password.
  h('input', { type: 'text', class: 'visually-hidden', autocomplete: 'username', value: app.player?.name ?? '', tabindex: '-1', 'aria-hidden': 'true', readonly: true }),
  h('label', { for: 'claim-password' }, 'Password (8 characters or more)'), password,
  h('button', { type: 'submit', class: 'primary', 'data-testid': 'claim-submit' }, 'Keep my name'));
}

function permissionButton(app, profile) {
  return h('div', { class: 'button-row' },
    h('button', {
      type: 'button', 'data-testid': 'grant-organizer',
      onclick: () => app.api.setPermissions(profile.id, { organizer: true })
        .then(() => app.notify(`${profile.name} may now run tournaments.`), (failure) => app.notify(failure, 'error')),
    }, 'Allow to run tournaments'));
}
