// The table screen: four seats around the felt, the trick, one's hand,
// the controls, the scores and the chat, each drawn by its own component
// from app.table (a TableState) and app.tableView. Clicks and keys call
// the controller's actions; the state changes when the server's events
// come back.

import { Component, cx, h } from '../dom.js';
import { hashFor } from '../router.js';
import { describeWithDetail } from '../messages.js';
import { Seat } from './seats.js';
import { Trick, TurnIndicator } from './trick.js';
import { Hand } from './hand.js';
import { Controls, ScorePopup } from './controls.js';
import { HandScores, LastTrick, ScoreTable } from './scores.js';
import { Chat } from './chat.js';

function Bar({ state, actions }) {
  const seated = state.seat !== null;
  return h('div', { class: 'table-bar' },
    h('h1', { id: 'table-title' }, state.name || `Table ${state.room}`),
    h('span', { class: 'room-code' }, 'Code ', h('code', {}, state.room)),
    h('button', { type: 'button', onclick: actions.copyLink }, 'Copy link'),
    state.private ? h('span', { class: 'badge' }, 'Private') : null,
    // Whether the games here move the ratings, said in words (not by colour alone).
    h('span', { class: cx('badge', state.rated ? 'rated' : 'casual'), title: state.rated ? 'The games here count for the ratings.' : 'The games here do not count for the ratings.' },
      state.rated ? 'Rated' : 'Casual'),
    h('span', { class: 'hint' }, state.isSpectator ? `Watching · ${state.spectators} watching` : `${state.spectators} watching`),
    h('span', { class: 'spacer' }),
    seated && !state.playing ? h('button', { type: 'button', onclick: actions.stand }, 'Stand up') : null,
    h('button', { type: 'button', onclick: actions.leaveTable },
      state.playing && seated ? 'Leave (a bot plays for you)' : 'Leave table'));
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
    const controls = [h(ScorePopup, { key: 'popup', state, view, actions }), h(Controls, { key: 'controls', state, view, actions })];
    return h('section', { class: 'table-screen', 'aria-labelledby': 'table-title' },
      h(Bar, { state, actions }),
      h('div', { class: 'table-layout' },
        h('div', { class: 'table-play' },
          h('div', { class: 'felt' },
            state.seats.map((_, seat) => h(Seat, { key: seat, state, seat, actions })),
            h('div', { class: 'felt-center' }, h(Trick, { state }), h(TurnIndicator, { state }), app.wide ? controls : null)),
          h('div', { class: 'dock' },
            h('div', { class: 'below-felt' }, app.wide ? null : controls),
            h(Hand, { state, view, actions }))),
        h('div', { class: 'table-side' },
          h(ScoreTable, { state }),
          h(LastTrick, { state, view }),
          h(HandScores, { state }),
          h(Chat, { state, actions }))));
  }
}

export function Screen({ app, actions }) {
  const code = app.route.param;
  if (app.table.room !== code) return h('div', { class: 'table-placeholder' }, h(Joining, { view: app.tableView, code }));
  return h(TableScreen, { app, view: app.tableView, actions });
}
