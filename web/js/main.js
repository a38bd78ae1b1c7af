// The page: one connection, the state (app-state.js), the controller that
// changes it, and the drawing of the header, the banners, the notices and
// one screen at a time. Screens are loaded when first shown, so the first
// load carries only this, the protocol, the state, the controller, the
// rendering library and the shell's views.

import { Client, STATUS } from './protocol.js';
import { Api } from './api.js';
import { AppState } from './app-state.js';
import { createController } from './controller.js';
import { hashFor, parseRoute } from './router.js';
import { Fragment, h, render } from './dom.js';
import { Banners, Connection, KeptOut, Nav, Toasts, User } from './views/shell.js';
import { ReportDialog } from './views/report.js';
import { Invitations } from './views/social-bits.js';
import { roleOf } from './moderation.js';

const SCREENS = {
  signin: () => import('./views/signin.js'),
  lobby: () => import('./views/lobby.js'),
  room: () => import('./views/table.js'),
  tournaments: () => import('./views/tournaments.js'),
  tournament: () => import('./views/tournament.js'),
  replay: () => import('./views/replay.js'),
  profile: () => import('./views/profile.js'),
  reset: () => import('./views/reset.js'),
  moderation: () => import('./views/moderation.js'),
  admin: () => import('./views/admin.js'),
};

// Screens that work without a session: a reset link is opened by someone
// who cannot sign in.
const OPEN_SCREENS = new Set(['signin', 'reset']);

const socketUrl = `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/ws`;
const client = new Client({ url: socketUrl });
const api = new Api({ token: () => client.token, refused: (error, path) => actions.apiRefused(error, path) });
const app = new AppState();
const { actions, listen, beforeDraw } = createController(app, { client, api, changed, say, navigateTo });

let drawQueued = false;
let announceTimer = null;
let shownKey = '';

/**
 * Asks the page to draw itself again, once per task: at the end of the
 * task that changed something (a message from the server, a click), so
 * that what changed is drawn in the next frame. A timer would let every
 * task queued meanwhile run first, and on a busy machine that can miss
 * several frames.
 */
function changed() {
  if (drawQueued) return;
  drawQueued = true;
  queueMicrotask(() => {
    drawQueued = false;
    draw();
  });
}

const roots = {
  nav: document.getElementById('nav'),
  connection: document.getElementById('connection'),
  user: document.getElementById('user'),
  banners: document.getElementById('banners'),
  view: document.getElementById('view'),
  toasts: document.getElementById('toasts'),
  dialog: document.getElementById('dialog'),
};

function draw() {
  beforeDraw();
  render(h(Nav, { route: app.route, role: roleOf(app.me) }), roots.nav);
  render(h(Connection, { connection: app.connection }), roots.connection);
  render(h(User, { player: app.player, keptOut: Boolean(app.keptOut), actions }), roots.user);
  render(h(Fragment, {}, h(Banners, { app, actions }), h(Invitations, { app, actions })), roots.banners);
  render(h(Toasts, { toasts: app.toasts }), roots.toasts);
  const report = app.report;
  render(report ? h(ReportDialog, { key: `${report.via}-${report.player.id}`, report, actions }) : null, roots.dialog);
  // A player a moderator keeps out sees why, and nothing else, whatever
  // the address says.
  const screen = app.screen;
  let content = screen ? h(screen.Screen, { app, actions }) : h('p', { class: 'loading' }, 'Loading…');
  if (app.keptOut) content = h(KeptOut, { keptOut: app.keptOut, actions });
  render(content, roots.view);
}

/** Says something to screen readers without showing it. */
function say(text) {
  const region = document.getElementById('announcer');
  clearTimeout(announceTimer);
  if (region.textContent !== text) {
    region.textContent = text;
    return;
  }
  // The same words again are read only if they come back after a tick as
  // a fresh text node. Other words are set at once: every played card is
  // announced, and two changes would cost every page two frames.
  region.textContent = '';
  announceTimer = setTimeout(() => {
    region.textContent = text;
  }, 30);
}

function navigateTo(name, param) {
  const hash = hashFor(name, param);
  if (location.hash === hash) showRoute();
  else location.hash = hash;
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
  if (!client.token && !app.player && !OPEN_SCREENS.has(route.name)) {
    actions.signInFirst(route);
    route = { name: 'signin', param: null };
  }
  const key = `${route.name}/${route.param ?? ''}`;
  if (key === shownKey) {
    changed();
    return;
  }
  if (shownKey) actions.leave(app.route);
  shownKey = key;
  // The table fills the window exactly; other screens scroll as pages do.
  document.body.dataset.screen = route.name;
  actions.showing(route, null);
  draw();
  const screen = await SCREENS[route.name]();
  if (shownKey !== key) return;
  actions.showing(route, screen);
  actions.enter(route);
  draw();
  // Move focus to the new screen so that keyboard and screen-reader users
  // start from its top, as after a page load, unless the screen put it on
  // its first field itself (the sign-in name).
  const root = roots.view;
  if (!root.contains(document.activeElement) || document.activeElement === root) root.focus({ preventScroll: true });
}

listen();
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

// For curious people at the console.
globalThis.spades = app;
