// The pieces of the table screen that only draw the state: seats, the
// trick, the scores, the hand-score breakdowns. Each returns new elements;
// table.js decides where they go and handles the player's actions.

import { h } from '../dom.js';
import { cardBack, cardFace } from './card.js';
import { cardName, fullPackForThree, shortName } from '../cards.js';
import { handSizeOf, hasPartners, playersOf, teamOf, teamsOf } from '../state.js';

export const SEAT_NAMES = ['North', 'East', 'South', 'West'];
export const POSITIONS = ['bottom', 'left', 'top', 'right'];
/** Three players sit at the bottom and on either side; the top stays empty. */
export const POSITIONS_OF_THREE = ['bottom', 'left', 'right'];

/**
 * Where a seat sits on screen: one's own seat at the bottom; for a
 * watcher or a replay, South at the bottom, so that North is at the top,
 * East on the right and West on the left, as their names say. At a
 * three-player table the player to one's left plays next, as at four.
 */
export function positionOf(state, seat) {
  const base = state.seat ?? 2;
  const players = playersOf(state.rules);
  const places = players === 3 ? POSITIONS_OF_THREE : POSITIONS;
  return places[(seat - base + players) % players];
}

/** A team's name: its players' names, or its compass name while seats are empty. */
export function teamName(state, team) {
  if (!hasPartners(state.rules)) return state.seats[team]?.player.name ?? `Seat ${team + 1}`;
  const a = state.seats[team];
  const b = state.seats[team + 2];
  if (a && b) return `${a.player.name} & ${b.player.name}`;
  return team === 0 ? 'North–South' : 'East–West';
}

/** "Bid 3", "Nil", "Blind nil", "Blind 6" (a team's blind bid), or null before the seat has bid. */
export function bidText(bid) {
  if (!bid) return null;
  if (bid.bid === 0) return bid.blind ? 'Blind nil' : 'Nil';
  return bid.blind ? `Blind ${bid.bid}` : `Bid ${bid.bid}`;
}

/** What the seat must do, in words, for the turn indicator. */
export function expectedText(expected, passCount) {
  switch (expected) {
    case 'bid': return 'bid';
    case 'blind_nil_or_look': return 'bid blind or look at the cards';
    case 'pass': return passCount ? `give ${passCount} cards to the partner` : 'exchange cards';
    case 'play': return 'play a card';
    default: return expected;
  }
}

/**
 * What a seat is to the viewer: "You", "Partner", "Left" or "Right" for a
 * player (the left opponent plays next), the compass name for a watcher.
 * In solo everyone else is an opponent, the one across included.
 */
export function seatRole(state, seat) {
  if (state.seat === null) return SEAT_NAMES[seat];
  if (playersOf(state.rules) === 3) return ['You', 'Left opponent', 'Right opponent'][(seat - state.seat + 3) % 3];
  const across = hasPartners(state.rules) ? 'Partner' : 'Opponent across';
  return ['You', 'Left opponent', across, 'Right opponent'][(seat - state.seat + 4) % 4];
}

/**
 * A seat as a sentence names it: "You", or the name with the seat's role
 * ("Basic bot, partner"), since several players may share a name.
 */
export function who(state, seat) {
  if (seat === state.seat) return 'You';
  if (state.seat === null) return `${state.nameOf(seat)} (${SEAT_NAMES[seat]})`;
  return `${state.nameOf(seat)} (${seatRole(state, seat).toLowerCase()})`;
}

/** Everything `seatPanel` reads, as a key for `redraw`. */
export function seatKey(state, seat) {
  const info = state.seats[seat];
  return JSON.stringify([
    state.seat, info && [info.player.id, info.player.name, info.player.bot], state.absence(seat),
    state.dealer, state.phase, state.status, state.hand, state.owner?.id, state.isOwner,
    state.bids[seat], state.tricksWon[seat], state.handSizes[seat],
    Boolean(state.turn && state.turn.seats.includes(seat)),
  ]);
}

/** The names of the seats, which most sentences on the table use. */
export function namesKey(state) {
  return state.seats.map((info) => info?.player.name ?? null);
}

/** One seat's panel: name, badges, bid and tricks, and the owner's controls. */
export function seatPanel(state, seat, actions) {
  const info = state.seats[seat];
  const turn = state.turn && state.turn.seats.includes(seat) && state.playing;
  const mine = seat === state.seat;
  const between = !state.playing;
  const label = seatRole(state, seat);
  const children = [h('div', { class: 'seat-compass' }, label)];
  if (info) {
    const absence = state.absence(seat);
    children.push(h('div', { class: 'seat-name', 'data-testid': `seat-name-${seat}`, 'data-seat': seat }, info.player.name));
    const badges = [];
    if (info.player.bot) badges.push(h('span', { class: 'badge bot', 'data-testid': `seat-bot-${seat}` }, 'Bot'));
    if (absence === 'away') badges.push(h('span', { class: 'badge away', 'data-testid': `seat-away-${seat}` }, 'Away: played by a bot'));
    if (absence === 'disconnected') badges.push(h('span', { class: 'badge away', 'data-testid': `seat-away-${seat}` }, 'Disconnected'));
    if (state.dealer === seat && state.phase !== 'waiting') badges.push(h('span', { class: 'badge dealer', title: 'Dealer' }, 'Dealer'));
    if (state.owner && info.player.id === state.owner.id) badges.push(h('span', { class: 'badge owner' }, 'Host'));
    if (badges.length) children.push(h('div', { class: 'badges' }, badges));
  } else {
    children.push(h('div', { class: 'seat-name empty', 'data-testid': `seat-name-${seat}`, 'data-seat': seat }, 'Empty seat'));
  }
  if (state.phase !== 'waiting' && state.hand !== null) {
    const bid = bidText(state.bids[seat]);
    children.push(h('div', { class: 'seat-score' },
      h('span', { 'data-testid': `seat-bid-${seat}` }, bid ?? (state.unbidHand ? 'No bids this hand' : 'No bid yet')),
      ' · ',
      h('span', { 'data-testid': `seat-tricks-${seat}` }, `Took ${state.tricksWon[seat]}`)));
    if (!mine && state.handSizes[seat] > 0 && state.phase !== 'game over') {
      children.push(h('div', { class: 'seat-cards', 'data-testid': `seat-cards-${seat}` },
        h('span', { class: 'mini-backs', 'aria-hidden': 'true' }),
        `${state.handSizes[seat]} cards`));
    }
  }
  if (turn) {
    children.push(h('div', { class: 'seat-turn' },
      h('span', { class: 'visually-hidden' }, 'To act. '),
      h('span', { class: 'clock', 'data-testid': `seat-clock-${seat}`, 'data-clock': '' })));
  } else if (state.playing) {
    // The clock's line keeps its place, unseen, while the seat waits: a
    // seat that grew and shrank with every turn would move the whole
    // table, and the browser would paint it all again each time.
    children.push(h('div', { class: 'seat-turn idle', 'aria-hidden': 'true' }, '0:00'));
  }
  const controls = [];
  if (between && !info && state.seat === null) {
    controls.push(h('button', { type: 'button', 'data-testid': `sit-${seat}`, onclick: () => actions.sit(seat) }, 'Sit here'));
  } else if (between && !info && state.seat !== null) {
    controls.push(h('button', { type: 'button', class: 'link', 'data-testid': `sit-${seat}`, onclick: () => actions.sit(seat) }, 'Move here'));
  }
  if (between && state.isOwner && !info) {
    controls.push(h('button', { type: 'button', 'data-testid': `add-bot-${seat}`, onclick: () => actions.addBot(seat) }, 'Add bot'));
  }
  if (between && state.isOwner && info?.player.bot) {
    controls.push(h('button', { type: 'button', 'data-testid': `remove-bot-${seat}`, onclick: () => actions.removeBot(seat) }, 'Remove bot'));
  }
  if (controls.length) children.push(h('div', { class: 'seat-controls' }, controls));
  return h('section', {
    class: ['seat', `pos-${positionOf(state, seat)}`, hasPartners(state.rules) && `team-${teamOf(seat, state.rules)}`, turn && 'is-turn', mine && 'is-me', !info && 'is-empty'].filter(Boolean).join(' '),
    'data-testid': `seat-${seat}`,
    'data-seat': seat,
    'aria-label': info ? `${label}: ${info.player.name}` : `${label}: empty`,
  }, children);
}

/** The cards on the table, each toward the seat that played it. */
export function trickCards(state, trick, { won = false } = {}) {
  if (!trick) return [];
  return trick.plays.map(({ seat, card }) => cardFace(card, {
    testid: `trick-card-${seat}`,
    seat,
    label: `${who(state, seat)} played ${cardName(card)}`,
    extra: ['in-trick', `pos-${positionOf(state, seat)}`, won && trick.winner === seat && 'winner'].filter(Boolean).join(' '),
  }));
}

/** The last complete trick as a small list, for "last trick" on request. */
export function lastTrickPanel(state) {
  const trick = state.lastTrick;
  if (!trick) return h('p', { class: 'hint' }, 'No trick has been played yet this hand.');
  return h('div', {},
    h('ol', { class: 'trick-list' }, trick.plays.map(({ seat, card }) => h('li', {},
      cardFace(card, { extra: 'small' }),
      ` ${who(state, seat)}${seat === trick.winner ? ': won it' : ''}`))),
    h('p', {}, `${who(state, trick.winner)} won trick ${state.tricks.length}.`));
}

/** The running score and bags of both teams, with the game's limits. */
export function scoreTable(state) {
  const rules = state.rules;
  const limits = rules ? [
    `Game to ${rules.target}`,
    rules.mercy !== null && rules.mercy !== undefined ? `loss at ${rules.mercy}` : null,
    rules.max_hands ? `${rules.max_hands} ${rules.max_hands === 1 ? 'hand' : 'hands'} at most` : null,
    rules.bag_penalty ? `${rules.bag_limit} bags cost ${rules.bag_penalty}` : null,
    ...rulesInWords(rules),
  ].filter(Boolean).join(' · ') : '';
  return h('div', {},
    h('table', { class: 'scores', 'data-testid': 'score-table' },
      h('caption', {}, state.handScores.length ? `After hand ${state.lastHandScore.hand + 1}` : 'Running score'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, hasPartners(state.rules) ? 'Team' : 'Player'), h('th', { scope: 'col' }, 'Score'), h('th', { scope: 'col' }, 'Bags'))),
      h('tbody', {}, teamsOf(state.rules).map((team) => h('tr', {
        'data-testid': `score-team-${team}`,
        class: state.seat !== null && teamOf(state.seat, state.rules) === team ? 'us' : '',
      },
      h('th', { scope: 'row' }, teamName(state, team)),
      h('td', { 'data-testid': `score-${team}` }, String(state.score[team])),
      h('td', { 'data-testid': `bags-${team}` }, String(state.bags[team])))))),
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
export function handScoreTable(state, scored) {
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
  return h('table', { class: 'hand-score', 'data-testid': 'hand-score', 'data-hand': scored.hand },
    h('caption', {}, `Hand ${scored.hand + 1}`),
    h('thead', {}, h('tr', {}, h('td', {}), scored.teams.map((_, team) => h('th', { scope: 'col' }, teamName(state, team))))),
    h('tbody', {}, rows.map(([label, value]) => h('tr', {},
      h('th', { scope: 'row' }, label),
      scored.teams.map((team, index) => h('td', { 'data-testid': `hand-score-${label.toLowerCase().replace(/ /g, '-')}-${index}` }, String(value(team))))))),
    nils.length ? h('tfoot', {}, h('tr', {}, h('td', { colspan: scored.teams.length + 1 }, nils.join('. ')))) : null);
}

/** A hand's score in a line per team, for the moment it is scored. */
export function handScoreSummary(state, scored) {
  return h('div', { class: 'score-summary' },
    h('h3', {}, `Hand ${scored.hand + 1} scored`),
    h('ul', {}, scored.teams.map((t, team) => h('li', { 'data-testid': `hand-score-summary-${team}` },
      h('strong', {}, `${teamName(state, team)}: ${signed(t.change)}`),
      ` (bid ${t.contract}, took ${t.tricks}: contract ${signed(t.contract_points)}, nil ${signed(t.nil_points)}, `,
      `${t.bags_taken} bags, penalty ${signed(-Math.abs(t.bag_penalty))}) → ${t.score}`))));
}

function signed(value) {
  return value > 0 ? `+${value}` : String(value);
}

/** A line for the log and for screen readers about one event. */
export function describeEntry(state, entry) {
  const name = (seat) => who(state, seat);
  switch (entry.kind) {
    case 'bid': return `${name(entry.seat)} bid ${bidText({ bid: entry.bid, blind: entry.blind }).replace(/^Bid /, '').toLowerCase()}.`;
    case 'play': return `${name(entry.seat)} played ${cardName(entry.card)}.`;
    case 'trick': return `${name(entry.winner)} won the trick.`;
    case 'pass': return entry.cards
      ? `${name(entry.from)} gave ${entry.cards.map(shortName).join(' ')} to ${name(entry.to)}.`
      : `${name(entry.from)} gave ${entry.count} cards to ${name(entry.to)}.`;
    case 'auto': return `The server acted for ${name(entry.seat)} (${entry.reason === 'clock' ? 'time ran out' : 'away'}).`;
    case 'away': return `${name(entry.seat)} lost the connection.`;
    case 'back': return `${name(entry.seat)} is back.`;
    case 'hand_started': return `Hand ${entry.hand + 1}: ${name(entry.dealer)} dealt.`;
    case 'play_started': return `${name(entry.leader)} leads.`;
    case 'hand_scored': return `Hand ${entry.hand + 1} is scored.`;
    case 'game_started': return 'A new game starts.';
    case 'game_over': return entry.winner === null ? 'The game was abandoned.' : `Game over: ${teamName(state, entry.winner)} win.`;
    default: return '';
  }
}

/** Backs standing for a hidden hand (blind nil offered). */
export function hiddenHand(count) {
  return Array.from({ length: count }, () => cardBack('in-hand'));
}
