// The table's controls: starting a game, the blind bid and the look, the
// bidding box, choosing the cards to give, the exchange, the end of the
// game, and the last trick on request. They sit under the felt, above
// one's hand, where the hand's player looks.

import { h } from '../dom.js';
import { shortName } from '../cards.js';
import { hashFor } from '../router.js';
import { bidText, teamName, teamPlayers } from '../seating.js';

function StartPanel({ state, actions }) {
  const missing = state.seatedCount < state.seats.length;
  return [
    h('button', { type: 'button', class: 'primary', disabled: missing, onclick: actions.startGame }, 'Start game'),
    missing ? h('p', { class: 'hint' }, state.isOwner
      ? 'Fill the empty seats with bots, or share the link and wait for players.'
      : 'Waiting for players to fill the empty seats.') : null,
  ];
}

/** The cards are hidden: blind bids, when open now, and looking at them. */
function BlindPanel({ state, expected, actions }) {
  // The turn lists the blind bids open now: 0 for blind nil, and numbers
  // for the team's blind bid, which binds the partner too.
  const blindBids = expected === 'blind_nil_or_look' ? (state.turn?.bids ?? [0]) : [];
  const teamBlind = blindBids.some((bid) => bid > 0);
  return [
    h('p', { class: 'hint' }, 'You are offered a blind bid: your cards stay hidden until you look. A blind bid scores double.'
      + (teamBlind ? ' A blind number is your team\'s bid: your partner does not bid.' : '')),
    h('div', { class: 'button-row' },
      blindBids.map((bid) => h('button', {
        key: bid,
        type: 'button',
        class: bid === 0 ? 'primary' : '',
        'aria-label': bid === 0 ? 'Bid blind nil' : `Bid blind ${bid} for your team`,
        onclick: () => actions.bid(bid, true),
      }, bid === 0 ? 'Bid blind nil' : `Blind ${bid}`)),
      h('button', { key: 'look', type: 'button', 'data-primary': '', onclick: actions.look }, 'Look at my cards')),
  ];
}

function BidPanel({ state, actions }) {
  const partnerSeat = state.partnerOf(state.seat);
  const partner = partnerSeat === null ? null : state.bids[partnerSeat];
  // Only the bids the table's rules allow now (all of them unless a house
  // rule such as board, suicide or whiz narrows the choice).
  const bids = state.turn?.bids ?? Array.from({ length: 14 }, (_, bid) => bid);
  return h('div', { class: 'bid-panel', role: 'group', 'aria-labelledby': 'bid-title' },
    h('h2', { id: 'bid-title', tabIndex: -1, 'data-primary': '' }, 'Your bid'),
    partner ? h('p', { class: 'hint' }, `Your partner: ${bidText(partner)}.`) : null,
    h('div', { class: 'bid-buttons' }, bids.map((bid) => h('button', {
      key: bid,
      type: 'button',
      class: bid === 0 ? 'nil' : '',
      'aria-label': bid === 0 ? 'Bid nil' : `Bid ${bid}`,
      onclick: () => actions.bid(bid),
    }, bid === 0 ? 'Nil' : String(bid)))));
}

function PassPanel({ state, view, actions }) {
  const count = state.passCount;
  const partner = state.nameOf(state.partnerOf(state.seat));
  return h('div', { class: 'pass-panel' },
    h('p', {}, `Choose ${count} cards to give to ${partner}, then confirm. Chosen: ${view.selected.length} of ${count}.`),
    h('button', { type: 'button', class: 'primary', disabled: view.selected.length !== count, onclick: actions.passSelected },
      `Give ${count} cards`));
}

function ExchangeSummary({ state }) {
  const lines = [];
  if (state.myPassChosen && state.passChosen.includes(state.seat)) {
    lines.push(h('p', { class: 'exchange' },
      `You chose ${state.myPassChosen.map(shortName).join(' ')}. They go to your partner once he has chosen too.`));
  }
  const { gave, got } = state.exchange;
  if (gave.length || got.length) {
    lines.push(h('p', { class: 'exchange' },
      gave.length ? `You gave ${gave.map(shortName).join(' ')} to ${state.nameOf(state.partnerOf(state.seat))}. ` : '',
      got.length ? `You got ${got.map(shortName).join(' ')}.` : ''));
  }
  return lines;
}

function GameOver({ state, actions }) {
  const won = state.winner;
  let headline = 'The game was abandoned.';
  if (won !== null) headline = state.teamOf(state.seat) === won ? 'You won!' : `${teamName(state, won)} won.`;
  // The final score names the players, so that it reads the same on
  // every page, the watchers' too.
  const scores = state.teams.map((_, team) => `${teamPlayers(state, team)} ${state.score[team]}`).join(', ');
  return h('div', { class: 'game-over', role: 'alert', 'aria-labelledby': 'game-over-title' },
    h('h2', { id: 'game-over-title' }, headline),
    h('p', {}, `Final score: ${scores}.`),
    h('div', { class: 'button-row' },
      state.seat !== null ? h('button', { type: 'button', class: 'primary', 'data-primary': '', onclick: actions.startGame }, 'New game') : null,
      state.gameId ? h('a', { class: 'button', href: hashFor('replay', state.gameId) }, 'Replay this game') : null,
      h('a', { class: 'button', href: hashFor('lobby') }, 'Lobby')));
}

function PlayingControls({ state, view, actions }) {
  const expected = state.pending ? null : state.expected;
  return [
    state.hidden ? h(BlindPanel, { state, expected, actions }) : null,
    expected === 'bid' ? h(BidPanel, { state, actions }) : null,
    expected === 'pass' ? h(PassPanel, { state, view, actions }) : null,
    h(ExchangeSummary, { state }),
  ];
}

/** Everything the player can do at the table now. */
export function Controls({ state, view, actions }) {
  const seated = state.seat !== null;
  return h('div', { class: 'actions' },
    state.isSpectator ? h('p', { class: 'hint' }, state.playing
      ? 'You are watching. Only public information is shown.'
      : 'You are watching. Take an empty seat to play.') : null,
    !state.playing && state.phase !== 'game over' && seated ? h(StartPanel, { state, actions }) : null,
    state.phase === 'game over' ? h(GameOver, { state, actions }) : null,
    state.playing && seated ? h(PlayingControls, { state, view, actions }) : null,
    state.playing && state.tricks.length ? h('button', {
      type: 'button', class: 'link', 'aria-expanded': String(view.showLastTrick), onclick: actions.toggleLastTrick,
    }, view.showLastTrick ? 'Hide the last trick' : 'Show the last trick') : null);
}
