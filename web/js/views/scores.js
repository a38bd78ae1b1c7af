// The scores: the running score and bags with the game's limits and house
// rules in words, each hand's breakdown, and the last trick on request.

import { cx, h } from '../dom.js';
import { fullPackForThree } from '../cards.js';
import { handSizeOf, playersOf } from '../state.js';
import { teamName, who } from '../seating.js';
import { CardFace } from './card.js';

function limitsOf(rules) {
  if (!rules) return '';
  return [
    `Game to ${rules.target}`,
    rules.mercy !== null && rules.mercy !== undefined ? `loss at ${rules.mercy}` : null,
    rules.max_hands ? `${rules.max_hands} ${rules.max_hands === 1 ? 'hand' : 'hands'} at most` : null,
    rules.bag_penalty ? `${rules.bag_limit} bags cost ${rules.bag_penalty}` : null,
    ...rulesInWords(rules),
  ].filter(Boolean).join(' · ');
}

/** The running score and bags of every team, with the game's limits. */
export function ScoreTable({ state }) {
  const limits = limitsOf(state.rules);
  const mine = state.seat === null ? null : state.teamOf(state.seat);
  return h('section', { class: 'card-panel', 'aria-labelledby': 'score-title' },
    h('h2', { id: 'score-title' }, 'Score'),
    h('table', { class: 'scores' },
      h('caption', {}, state.handScores.length ? `After hand ${state.lastHandScore.hand + 1}` : 'Running score'),
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, state.hasPartners ? 'Team' : 'Player'),
        h('th', { scope: 'col' }, 'Score'),
        h('th', { scope: 'col' }, 'Bags'))),
      h('tbody', {}, state.teams.map((_, team) => h('tr', { key: team, class: cx(mine === team && 'us') },
        h('th', { scope: 'row' }, teamName(state, team)),
        h('td', {}, String(state.score[team] ?? 0)),
        h('td', {}, String(state.bags[team] ?? 0)))))),
    limits ? h('p', { class: 'hint' }, limits) : null);
}

/** The house rules a rule set turns on, each in a few words. */
export function rulesInWords(rules) {
  const words = [];
  if (playersOf(rules) === 3) {
    const out = fullPackForThree(rules.deck) ? 'all 52 cards and both jokers' : 'the two of clubs out';
    words.push(`three players, each on his own, ${handSizeOf(rules)} cards each (${out})`);
  } else if (rules.partners === false) words.push('solo: each player on his own, no partners');
  if (rules.deck === 'jokers') words.push('jokers: big joker, little joker and the two of spades above the ace');
  if (rules.deck === 'new_york_city') words.push('New York jokers: big joker, little joker, the two of spades and the two of diamonds above the ace');
  if (rules.deck === 'new_york') words.push('jokers with both red twos out: big joker, little joker and the two of spades above the ace');
  if (rules.deck === 'deuce_high') words.push('the two of spades is the highest trump');
  const bidding = { suicide: 'suicide: one partner bids nil, the other 4 or more', whiz: 'whiz: bid your spades or nil', mirror: 'mirror: bid your spades' };
  if (bidding[rules.bidding]) words.push(bidding[rules.bidding]);
  if (rules.nil === false) words.push('no nil');
  if (rules.nil_after_partner) words.push('nil only after your partner bids');
  if (rules.min_team_bid && rules.max_team_bid) words.push(`teams bid ${rules.min_team_bid} to ${rules.max_team_bid}`);
  else if (rules.min_team_bid) words.push(`teams bid at least ${rules.min_team_bid}`);
  else if (rules.max_team_bid) words.push(`teams bid at most ${rules.max_team_bid}`);
  if (rules.ten_for_two_hundred) words.push('10 for 200');
  const all = handSizeOf(rules);
  if (rules.moon) words.push(`a moon (${all}) is worth ${rules.ten_for_two_hundred ? 500 : 200}`);
  if (rules.boston_wins) words.push(`taking all ${all} on a bid of 10 or more wins`);
  if (rules.bag_value !== undefined && rules.bag_value !== 1) words.push(`a bag is worth ${rules.bag_value}`);
  if (rules.max_overtricks !== null && rules.max_overtricks !== undefined) words.push(`set with more than ${rules.max_overtricks} overtricks`);
  if (rules.set_at_double) words.push('set when taking twice the bid');
  if (rules.unbid_first_hand) words.push('the first hand is played without bids, 10 points a trick');
  if (rules.team_blind) {
    const who = rules.team_blind_min_deficit > 0 ? `a team ${rules.team_blind_min_deficit} or more behind` : 'a team';
    const upTo = rules.max_team_bid ? `to ${rules.max_team_bid}` : 'or more';
    words.push(`${who} may bid blind ${rules.team_blind} ${upTo} for double`
      + (rules.team_blind_set_doubled === false ? ', losing single if set' : ''));
  }
  if (rules.sets_to_lose) words.push(`${rules.sets_to_lose} sets in a row lose`);
  if (rules.leading === 'dealer') words.push('the dealer leads');
  if (rules.leading === 'two_of_clubs') {
    // The lowest club in play leads: the two is out with the jokers at
    // four, and without them at three.
    const twoOut = fullPackForThree(rules.deck) === (playersOf(rules) === 4);
    words.push(`the ${twoOut ? 'three' : 'two'} of clubs leads`);
  }
  if (rules.spades_lead === 'any_time') words.push('spades may be led at any time');
  if (rules.spades_lead === 'from_fourth_trick') words.push('spades may be led from the fourth trick');
  if (rules.nil_value !== 100 || rules.blind_nil_value !== 200) words.push(`nil ${rules.nil_value}, blind nil ${rules.blind_nil_value}`);
  return words;
}

/** One hand's score, broken down by team. */
function HandScoreTable({ state, scored }) {
  const rows = [
    ['Bid', (t) => (t.blind ? `blind ${t.contract}` : t.contract)],
    ['Took', (t) => t.tricks],
    ['Contract', (t) => signed(t.contract_points)],
    ['Nil', (t) => signed(t.nil_points)],
    ['Bags taken', (t) => t.bags_taken],
    ['Bag points', (t) => signed(t.bag_points ?? t.bags_taken)],
    ['Bag penalty', (t) => signed(-Math.abs(t.bag_penalty))],
    ['Hand total', (t) => signed(t.change)],
    ['Score', (t) => t.score],
    ['Bags', (t) => t.bags],
  ];
  const nils = scored.bids
    .map((bid, seat) => (bid && bid.bid === 0
      ? `${state.nameOf(seat)} ${bid.blind ? 'blind nil' : 'nil'}: ${scored.tricksWon[seat] === 0 ? 'made' : 'failed'}`
      : null))
    .filter(Boolean);
  return h('table', { class: 'hand-score' },
    h('caption', {}, `Hand ${scored.hand + 1}`),
    h('thead', {}, h('tr', {}, h('td', {}), scored.teams.map((_, team) => h('th', { scope: 'col' }, teamName(state, team))))),
    h('tbody', {}, rows.map(([label, value]) => h('tr', {},
      h('th', { scope: 'row' }, label),
      scored.teams.map((team) => h('td', {}, String(value(team))))))),
    nils.length ? h('tfoot', {}, h('tr', {}, h('td', { colspan: scored.teams.length + 1 }, nils.join('. ')))) : null);
}

/** Every scored hand of the game, newest first. */
export function HandScores({ state }) {
  if (!state.handScores.length) return null;
  return h('section', { class: 'card-panel', 'aria-labelledby': 'hands-title' },
    h('h2', { id: 'hands-title' }, 'Hands'),
    [...state.handScores].reverse().map((scored) => h(HandScoreTable, { key: `${scored.gameId} ${scored.hand}`, state, scored })));
}

function signed(value) {
  return value > 0 ? `+${value}` : String(value);
}

/** The last complete trick as a small list, shown on request. */
export function LastTrick({ state, view }) {
  if (!view.showLastTrick) return null;
  const trick = state.lastTrick;
  return h('section', { class: 'card-panel', 'aria-labelledby': 'last-trick-title' },
    h('h2', { id: 'last-trick-title' }, 'Last trick'),
    trick ? h('div', {},
      h('ol', { class: 'trick-list' }, trick.plays.map(({ seat, card }) => h('li', { key: card },
        h(CardFace, { card, extra: 'small' }),
        ` ${who(state, seat)}${seat === trick.winner ? ': won it' : ''}`))),
      h('p', {}, `${who(state, trick.winner)} won trick ${state.tricks.length}.`))
      : h('p', { class: 'hint' }, 'No trick has been played yet this hand.'));
}
