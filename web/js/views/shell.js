// The parts of the page around the screen: the main navigation, the
// connection's state, the signed-in player, the banners, the notices, and
// what a player kept out by a moderator sees instead of any screen.

import { Component, h } from '../dom.js';
import { hashFor } from '../router.js';
import { describeClose } from '../messages.js';
import { keptOutView, localTime, staffLinks } from '../moderation.js';

const LINKS = [['lobby', 'Lobby'], ['tournaments', 'Tournaments'], ['profile', 'Profile', 'me']];

/** The main navigation; moderators and administrators also get their pages. */
export function Nav({ route, role }) {
  const current = route.name === 'tournament' ? 'tournaments' : route.name;
  const links = [...LINKS, ...staffLinks(role)];
  return links.map(([name, label, param]) => h('a', {
    key: name, href: hashFor(name, param), 'aria-current': current === name ? 'page' : null,
  }, label));
}

const STATUS_WORDS = {
  idle: 'Offline', connecting: 'Connecting…', ready: 'Connected', reconnecting: 'Reconnecting…',
  replaced: 'Open elsewhere', ended: 'Signed out', failed: 'Disconnected', closed: 'Disconnected',
};

/** The connection's state in words, a live region named "Connection". */
export function Connection({ connection }) {
  const { status } = connection;
  return [
    h('span', { class: `dot dot-${status}`, 'aria-hidden': 'true' }),
    h('span', { role: 'status', 'aria-label': 'Connection', class: 'connection-word' }, STATUS_WORDS[status] ?? status),
  ];
}

/**
 * The signed-in player. One kept out by a moderator is not offered to log
 * out: this browser would then start a new guest in his place.
 */
export function User({ player, keptOut, actions }) {
  if (!player) return null;
  return [
    h('a', { href: hashFor('profile', 'me'), 'aria-label': `Your profile: ${player.name}` }, player.name),
    keptOut ? null : h('button', { type: 'button', class: 'link', onclick: actions.logOut }, 'Log out'),
  ];
}

/**
 * What a player suspended or banned sees instead of any screen: the
 * server's words (why, and until when) and the end in his own time. It
 * stays until a hello is welcomed again.
 */
export function KeptOut({ keptOut, actions }) {
  const view = keptOutView(keptOut);
  return h('section', { class: 'kept-out card-panel', 'aria-labelledby': 'kept-out-title' },
    h(FocusOnShow, { now: true }, h('h1', { id: 'kept-out-title', tabIndex: -1 }, view.heading)),
    h('div', { role: 'alert' },
      h('p', { class: 'kept-out-message' }, view.message),
      h('p', { class: 'kept-out-until' }, view.untilText)),
    h('p', { class: 'hint' },
      'Until then this account cannot play, chat or sign in, and this browser cannot start a guest in its place. If you think this is a mistake, ask the site\'s moderators.'),
    h('button', { type: 'button', onclick: actions.retryKeptOut }, 'Try again'));
}

/**
 * A control that takes the keyboard's focus when it appears: at once with
 * `now`, else a moment later (a banner, once the screen has settled).
 */
export class FocusOnShow extends Component {
  componentDidMount() {
    if (this.props.now) this.base?.focus();
    else setTimeout(() => this.base?.focus(), 50);
  }

  render() {
    return this.props.children;
  }
}

function banner(key, kind, role, text, button) {
  return h('div', { key, class: `banner ${kind}`, role }, text, button);
}

export function Banners({ app, actions }) {
  const { table, route } = app;
  const { status, shuttingDown } = app.connection;
  const list = [];
  // An administrator's notice to everyone stays until the player has read it.
  for (const notice of app.broadcasts) {
    list.push(banner(`broadcast-${notice.id}`, 'notice', 'alert',
      h('span', {}, h('strong', {}, 'Notice from the administrators: '), notice.message),
      h('button', { type: 'button', 'aria-label': 'Dismiss the notice', onclick: () => actions.dismissBroadcast(notice.id) }, 'Dismiss')));
  }
  const maintenance = app.maintenance;
  if (maintenance?.active) {
    list.push(banner('maintenance', 'warn', 'status',
      h('span', {},
        h('strong', {}, 'Maintenance. '),
        maintenance.message ? `${maintenance.message}${/[.!?]$/.test(maintenance.message) ? '' : '.'} ` : '',
        'No new tables, games or quick play meanwhile; games being played go on.',
        maintenance.until ? ` Expected to end ${localTime(maintenance.until)}.` : ''),
      null));
  }
  if (status === 'reconnecting') {
    list.push(banner('reconnecting', 'warn', 'status',
      shuttingDown ? 'The server is restarting. Reconnecting…' : 'Connection lost. Reconnecting…',
      h('button', { type: 'button', onclick: actions.reconnect }, 'Retry now')));
  }
  if (status === 'replaced') {
    list.push(banner('replaced', 'warn', 'alert', describeClose(4001),
      h('button', { type: 'button', onclick: actions.reconnect }, 'Use it here')));
  }
  const ready = app.tableReady;
  if (ready && table.room !== ready.room) {
    list.push(banner('ready', 'good', 'alert',
      `Your tournament table is ready (stage ${ready.stage + 1}, table ${ready.table + 1}).`,
      h(FocusOnShow, {}, h('button', { type: 'button', onclick: actions.goToReadyTable }, 'Go to your table'))));
  }
  const seat = app.seatRoom;
  if (seat && table.room !== seat && !(route.name === 'room' && route.param === seat)) {
    list.push(banner('seat', '', null, `You have a seat at table ${seat}.`,
      h('button', { type: 'button', onclick: () => actions.navigate('room', seat) }, 'Return to your table')));
  }
  const room = table.room;
  if (room && route.name !== 'room' && table.seat !== null && table.playing) {
    list.push(banner('playing', '', null, `Your game at ${table.name || room} goes on.`,
      h('button', { type: 'button', onclick: () => actions.navigate('room', room) }, 'Back to the table')));
  }
  return list;
}

/** Short notices; `data-kind` is `info` or `error`. */
export function Toasts({ toasts }) {
  return toasts.map((toast) => h('div', { key: toast.id, class: `toast toast-${toast.kind}`, 'data-kind': toast.kind }, toast.text));
}
