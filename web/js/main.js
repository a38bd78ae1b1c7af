// The page: one connection, one table state, one lobby state, the header
// and the banners, and a router that mounts one screen at a time. Screens
// are loaded when first shown, so the first load carries only this file,
// the protocol and the state.

import { Client, STATUS } from './protocol.js';
import { Api } from './api.js';
import { LobbyState, TableState } from './state.js';
import { hashFor, parseRoute } from './router.js';
import { describe, describeClose } from './messages.js';
import { fill, h, redraw } from './dom.js';

const SCREENS = {
  signin: () => import('./views/signin.js'),
  lobby: () => import('./views/lobby.js'),
  room: () => import('./views/table.js'),
  tournaments: () => import('./views/tournaments.js'),
  tournament: () => import('./views/tournament.js'),
  replay: () => import('./views/replay.js'),
  profile: () => import('./views/profile.js'),
};

const socketUrl = `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/ws`;
const client = new Client({ url: socketUrl });

const app = {
  client,
  api: new Api({ token: () => client.token }),
  table: new TableState(),
  lobby: new LobbyState(),
  player: null,
  me: null,
  queue: null,
  tableReady: null,
  seatRoom: null,
  route: parseRoute(location.hash, location.pathname),

  navigate(name, param) {
    const hash = hashFor(name, param);
    if (location.hash === hash) showRoute();
    else location.hash = hash;
  },

  /** Shows a short message; errors are described in plain words. */
  notify(what, kind = 'info') {
    const text = typeof what === 'string' ? what : describe(what);
    const toast = h('div', { class: `toast toast-${kind}`, 'data-testid': 'toast', 'data-kind': kind }, text);
    document.getElementById('toasts').append(toast);
    setTimeout(() => toast.remove(), kind === 'error' ? 8000 : 5000);
  },

  /** Says something to screen readers without showing it. */
  announce(text) {
    const region = document.getElementById('announcer');
    clearTimeout(announceTimer);
    if (region.textContent !== text) {
      region.textContent = text;
      return;
    }
    // The same words again are read only if they come back after a tick
    // as a fresh text node. Other words are set at once: every played
    // card is announced, and two changes would cost every page two frames.
    region.textContent = '';
    announceTimer = setTimeout(() => {
      region.textContent = text;
    }, 30);
  },

  /**
   * Asks every part of the page to draw itself again, once per task: at
   * the end of the task that changed something (a message from the
   * server, a click), so that what changed is drawn in the next frame. A
   * timer would let every task queued meanwhile run first, and on a busy
   * machine that can miss several frames.
   */
  refresh() {
    if (refreshQueued) return;
    refreshQueued = true;
    queueMicrotask(() => {
      refreshQueued = false;
      drawHeader();
      drawBanners();
      current?.update?.();
    });
  },

  /** Loads the caller's profile (permissions, whether registered). */
  async loadMe() {
    try {
      app.me = await app.api.me();
    } catch {
      app.me = null;
    }
    app.refresh();
  },

  /** Ends this page's session after logging out or a refused token. */
  signedOut(message) {
    app.player = null;
    app.me = null;
    app.queue = null;
    app.table.clear();
    if (message) app.notify(message, 'error');
    app.navigate('signin');
  },
};

let current = null;
let currentKey = '';
let refreshQueued = false;
let announceTimer = null;

// The connection's messages feed the two states; every message may change
// what is shown.
client.on('room', (message) => app.table.apply(message));
for (const type of ['rooms', 'lobby_room', 'lobby_room_closed']) {
  client.on(type, (message) => app.lobby.apply(message));
}
client.on('message', () => app.refresh());

client.on('welcome', (welcome) => {
  app.player = welcome.player;
  app.table.me = welcome.player.id;
  app.seatRoom = welcome.room ?? null;
  app.loadMe();
  app.refresh();
});

client.on('status', (status, detail) => {
  // A claim ends the guest session on purpose and comes back with the new
  // token; a log-out ends it on purpose too and needs no warning.
  if (status === STATUS.ENDED && !app.claiming) {
    app.signedOut(app.loggingOut ? null : describe(detail.code ?? 'session_ended'));
    app.loggingOut = false;
  }
  if (status === STATUS.RECONNECTING && app.queue) {
    app.queue = null;
    app.notify('The connection dropped, which takes you out of the quick-play queue. Queue again when it is back.', 'error');
  }
  // A refused hello on the sign-in screen is shown by that screen.
  if (status === STATUS.FAILED && app.route.name !== 'signin') {
    app.notify(typeof detail.code === 'number' ? describeClose(detail.code) : describe(detail.code ?? 'closed'), 'error');
  }
  app.refresh();
});

client.on('room_lost', ({ room }) => {
  if (app.table.room === room || app.table.room === null) app.table.clear();
  app.notify(`Table ${room} is no longer open.`, 'error');
  app.refresh();
});

client.on('matched', (message) => {
  app.queue = null;
  app.announce('Your quick-play table is ready.');
  app.navigate('room', message.room);
});

client.on('unqueued', (message) => {
  app.queue = null;
  app.notify(message.reason === 'partner_left'
    ? 'Your partner left the queue, so you are no longer waiting.'
    : 'You queued again somewhere else.', 'error');
});

client.on('tournament_table', (message) => {
  app.tableReady = message;
  app.announce('Your tournament table is ready.');
  app.refresh();
  setTimeout(() => document.querySelector('[data-testid="table-ready-go"]')?.focus(), 50);
});

client.on('error', (error) => app.notify(error, 'error'));

// The header and the banners.

function drawHeader() {
  const status = client.status;
  const label = {
    idle: 'Offline', connecting: 'Connecting…', ready: 'Connected', reconnecting: 'Reconnecting…',
    replaced: 'Open elsewhere', ended: 'Signed out', failed: 'Disconnected', closed: 'Disconnected',
  }[status] ?? status;
  redraw(document.getElementById('connection'), status, () => [
    h('span', { class: `dot dot-${status}`, 'aria-hidden': 'true' }),
    h('span', { 'data-testid': 'connection-status', 'data-status': status }, label),
  ]);
  const name = app.player?.name ?? null;
  redraw(document.getElementById('user'), JSON.stringify(name), () => (name === null ? [] : [
    h('a', { href: hashFor('profile', 'me'), 'data-testid': 'user-name' }, name),
    h('button', { type: 'button', class: 'link', 'data-testid': 'logout', onclick: logOut }, 'Log out'),
  ]));
}

function drawBanners() {
  const { table, route, tableReady, seatRoom } = app;
  const key = JSON.stringify([
    client.status, client.shuttingDown, tableReady, seatRoom, route?.name, route?.param,
    table.room, table.seat, table.playing, table.name,
  ]);
  redraw(document.getElementById('banners'), key, bannerParts);
}

function bannerParts() {
  const banners = [];
  const status = client.status;
  if (status === STATUS.RECONNECTING) {
    banners.push(h('div', { class: 'banner warn', 'data-testid': 'connection-banner', role: 'status' },
      client.shuttingDown ? 'The server is restarting. Reconnecting…' : 'Connection lost. Reconnecting…',
      h('button', { type: 'button', onclick: () => client.reconnect() }, 'Retry now')));
  }
  if (status === STATUS.REPLACED) {
    banners.push(h('div', { class: 'banner warn', 'data-testid': 'replaced-banner', role: 'alert' },
      describeClose(4001),
      h('button', { type: 'button', 'data-testid': 'use-here', onclick: () => client.reconnect() }, 'Use it here')));
  }
  const ready = app.tableReady;
  if (ready && app.table.room !== ready.room) {
    banners.push(h('div', { class: 'banner good', 'data-testid': 'table-ready', role: 'alert' },
      `Your tournament table is ready (stage ${ready.stage + 1}, table ${ready.table + 1}).`,
      h('button', {
        type: 'button',
        'data-testid': 'table-ready-go',
        onclick: () => {
          app.tableReady = null;
          app.navigate('room', ready.room);
        },
      }, 'Go to your table')));
  }
  const seat = app.seatRoom;
  if (seat && app.table.room !== seat && !(app.route.name === 'room' && app.route.param === seat)) {
    banners.push(h('div', { class: 'banner', 'data-testid': 'return-banner' },
      `You have a seat at table ${seat}.`,
      h('button', { type: 'button', 'data-testid': 'return-to-table', onclick: () => app.navigate('room', seat) },
        'Return to your table')));
  }
  const room = app.table.room;
  if (room && app.route.name !== 'room' && app.table.seat !== null && app.table.playing) {
    banners.push(h('div', { class: 'banner' },
      `Your game at ${app.table.name || room} goes on.`,
      h('button', { type: 'button', 'data-testid': 'back-to-table', onclick: () => app.navigate('room', room) },
        'Back to the table')));
  }
  return banners;
}

async function logOut() {
  if (app.me && !app.me.registered
    && !confirm('You are playing as a guest. Logging out loses this name and its games unless you set a password first (on your profile). Log out anyway?')) {
    return;
  }
  app.loggingOut = true;
  try {
    await app.api.logout();
  } catch (error) {
    // The session may already be gone; sign out here all the same.
    if (error.code !== 'unauthorized') app.notify(error, 'error');
  }
  client.close();
  client.setToken(null);
  app.loggingOut = false;
  if (app.player) app.signedOut();
}

// The router.

async function showRoute() {
  const path = location.pathname;
  let route = parseRoute(location.hash, path);
  if (/^\/r\//.test(path)) {
    // A room link: keep the page at / so that the assets and later
    // reloads find their way, with the room in the hash.
    history.replaceState(null, '', `/${hashFor('room', route.param)}`);
  }
  if (!client.token && !app.player && route.name !== 'signin') {
    app.afterSignIn = route;
    route = { name: 'signin', param: null };
  }
  app.route = route;
  const key = `${route.name}/${route.param ?? ''}`;
  if (key === currentKey && current) {
    app.refresh();
    return;
  }
  current?.unmount?.();
  current = null;
  currentKey = key;
  const root = document.getElementById('view');
  fill(root, h('p', { class: 'loading' }, 'Loading…'));
  const screen = await SCREENS[route.name]();
  if (currentKey !== key) return;
  fill(root);
  current = screen.mount(root, app, route.param);
  markNavigation(route.name);
  app.refresh();
  // Move focus to the new screen so that keyboard and screen-reader
  // users start from its top, as after a page load, unless the screen
  // put it on its first field itself (the sign-in name).
  if (!root.contains(document.activeElement) || document.activeElement === root) root.focus({ preventScroll: true });
}

function markNavigation(name) {
  for (const link of document.querySelectorAll('#nav a')) {
    const active = link.dataset.route === name || (name === 'tournament' && link.dataset.route === 'tournaments');
    if (active) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

window.addEventListener('hashchange', showRoute);
window.addEventListener('online', () => {
  if (client.status === STATUS.RECONNECTING) client.reconnect();
});

if (client.token) {
  client.connect().catch(() => {
    // A refused token ends the session; the status listener shows sign-in.
  });
}
showRoute();

// For the browser tests and for curious people at the console.
globalThis.spades = app;
