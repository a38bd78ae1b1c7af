// The table screen: the score strip, four seats around the felt, the
// trick, the controls and one's hand, all within the window, and beside
// them (or, on a small screen, in a drawer) the scores and the chat, each
// drawn by its own component from app.table (a TableState) and
// app.tableView. Clicks and keys call
// the controller's actions; the state changes when the server's events
// come back.

import { Component, cx, h } from '../dom.js';
import { hashFor } from '../router.js';
import { describeWithDetail } from '../messages.js';
import { Seat } from './seats.js';
import { Trick, TurnIndicator } from './trick.js';
import { Hand } from './hand.js';
import { Controls } from './controls.js';
import { HandScores, LastTrick, ScoreTable } from './scores.js';
import { ScoreStrip } from './strip.js';
import { Chat } from './chat.js';
import { Speaker } from './icons.js';
import { InviteFriends } from './friends.js';
import { Rematch } from './social-bits.js';

/** Sound on or off, right on the bar. */
function SoundToggle({ prefs, actions }) {
  return h('button', {
    type: 'button', class: 'sound-toggle', 'aria-label': 'Sound', 'aria-pressed': String(prefs.sound),
    title: prefs.sound ? 'Sound is on' : 'Sound is off', onclick: actions.toggleSound,
  }, h(Speaker, { on: prefs.sound }));
}

/**
 * The table's settings, beside the scores: turn notifications, which the
 * browser is asked to allow only when the player presses the button.
 */
function Settings({ prefs, actions }) {
  const permission = prefs.notifications;
  const said = {
    granted: 'A notification tells you when it is your turn while this page is in the background.',
    denied: 'Notifications are blocked for this site in your browser; the tab\'s title still tells you when it is your turn.',
    unsupported: 'This browser cannot notify; the tab\'s title tells you when it is your turn.',
  };
  return h('section', { class: 'card-panel settings', 'aria-labelledby': 'settings-title' },
    h('h2', { id: 'settings-title' }, 'Settings'),
    permission === 'default'
      ? [h('p', { class: 'hint' }, 'Be told when it is your turn while this page is in the background.'),
        h('button', { type: 'button', onclick: actions.allowNotifications }, 'Allow notifications')]
      : h('p', { class: 'hint' }, said[permission] ?? said.unsupported),
    prefs.motion ? null : h('p', { class: 'hint' }, 'Your system asks for less motion: cards appear without travelling.'));
}

function Bar({ state, view, prefs, actions }) {
  const seated = state.seat !== null;
  return h('div', { class: 'table-bar' },
    h('h1', { id: 'table-title' }, state.name || `Table ${state.room}`),
    h('span', { class: 'room-code' }, 'Code ', h('code', {}, state.room)),
    h('button', { type: 'button', onclick: actions.copyLink }, 'Copy link'),
    state.private ? h('span', { class: 'badge' }, 'Private') : null,
    // Whether the games here move the ratings, said in words (not by colour alone).
    h('span', { class: cx('badge', state.rated ? 'rated' : 'casual'), title: state.rated ? 'The games here count for the ratings.' : 'The games here do not count for the ratings.' },
      state.rated ? 'Rated' : 'Casual'),
    h('span', { class: 'hint watching' }, state.isSpectator ? `Watching · ${state.spectators} watching` : `${state.spectators} watching`),
    h('span', { class: 'spacer' }),
    h(SoundToggle, { prefs, actions }),
    h('button', { type: 'button', class: 'side-toggle', 'aria-expanded': String(view.sideOpen), onclick: actions.toggleSide }, 'Scores and chat'),
    seated && !state.playing ? h('button', { type: 'button', onclick: actions.stand }, 'Stand up') : null,
    // On a phone the bar is narrow: the button says "Leave", its name the whole.
    h('button', { type: 'button', onclick: actions.leaveTable },
      state.playing && seated
        ? [h('span', { class: 'short-word', 'aria-hidden': 'true' }, 'Leave'), h('span', { class: 'long-word' }, 'Leave (a bot plays for you)')]
        : 'Leave table'));
}

function Joining({ view, code }) {
  if (!view.joinError) return h('p', { class: 'loading' }, `Joining table ${code}…`);
  return h('div', { class: 'card-panel', role: 'alert' },
    h('p', {}, describeWithDetail(view.joinError)),
    h('a', { class: 'button', href: hashFor('lobby') }, 'Back to the lobby'));
}

/**
 * The table once entered. Focus follows the game for keyboard players:
 * when a turn of this seat begins (the controller names it in
 * `view.focusTurn`), or when the focused control went away (a card
 * played, a bid made), focus moves to what matters now, unless the player
 * is typing or is elsewhere on the page.
 */
class TableScreen extends Component {
  componentDidMount() {
    this.followTurn(false);
  }

  getSnapshotBeforeUpdate() {
    const active = document.activeElement;
    return Boolean(active && active !== document.body && this.base.contains(active));
  }

  componentDidUpdate(_props, _state, hadFocus) {
    this.followTurn(hadFocus && !this.base.contains(document.activeElement));
  }

  followTurn(lostFocus) {
    const { view } = this.props;
    const current = document.activeElement;
    if (current && this.base.contains(current) && current.matches('input, textarea, select')) return;
    const newTurn = view.focusTurn !== null && view.focusTurn !== this.followed;
    this.followed = view.focusTurn;
    const idle = !current || current === document.body || lostFocus;
    if ((newTurn && (idle || this.base.contains(current))) || lostFocus) this.focusPrimary();
  }

  focusPrimary() {
    const target = this.base.querySelector('.actions [data-primary]')
      ?? this.base.querySelector('.hand button[tabindex="0"]')
      ?? this.base.querySelector('.actions button:not([disabled])');
    target?.focus();
  }

  render({ app, actions }) {
    const state = app.table;
    const view = app.tableView;
    const motion = app.prefs.motion;
    return h('section', { class: cx('table-screen', state.playing && 'in-game'), 'aria-labelledby': 'table-title' },
      h(Bar, { state, view, prefs: app.prefs, actions }),
      h('div', { class: 'table-layout' },
        h(ScoreStrip, { state, view, actions, motion }),
        h('div', { class: 'felt', 'data-players': state.seats.length },
          state.seats.map((_, seat) => h(Seat, { key: seat, state, seat, actions })),
          h('div', { class: 'felt-center' }, h(Trick, { state, felt: app.felt, motion }), h(TurnIndicator, { state }))),
        h('div', { class: 'dock' },
          h(Rematch, { table: state, actions }),
          h(Controls, { state, view, actions }),
          h(Hand, { state, view, actions })),
        // On a small screen, a drawer opened from the bar.
        h('div', { class: cx('table-side', view.sideOpen && 'open') },
          h('button', { type: 'button', class: 'side-close', onclick: actions.toggleSide }, 'Close scores and chat'),
          h(ScoreTable, { state }),
          h(Settings, { prefs: app.prefs, actions }),
          h(LastTrick, { state, view }),
          h(HandScores, { state }),
          h(InviteFriends, { app, actions }),
          h(Chat, { state, actions }))));
  }
}

export function Screen({ app, actions }) {
  const code = app.route.param;
  if (app.table.room !== code) return h('div', { class: 'table-placeholder' }, h(Joining, { view: app.tableView, code }));
  return h(TableScreen, { app, view: app.tableView, actions });
}
