// Who sits where at a table, and the words the page uses for seats, teams,
// bids, turns and the events of a hand. Pure functions of a TableState (or
// of `{seat, rules, teams}` for a replay), shared by the views and by the
// controller, which reads events aloud to screen readers.

import { cardName, shortName } from './cards.js';
import { playersOf } from './state.js';

// A hand's score summary stays this long, unless the next hand's bidding
// starts first. (How long a won trick stays is the felt's pace, pace.js.)
export const SCORE_POPUP_MS = 7000;
/**
 * The least time a hand's score is on show, even once the next hand's
 * bidding has begun: quick players bid within a fraction of a second,
 * and a score gone that soon is a score nobody read.
 */
export const SCORE_LEAST_MS = 3000;

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

/**
 * A team's name. To a seated player of a partnership game, his own team is
 * "You & Partner" and the other "Opponents", which is how he thinks of
 * them; to a watcher, its players' names ("Ann & Cy"), or while a seat is
 * empty its seats' compass names ("North–South"). A player alone is his
 * own team, under his name.
 */
export function teamName(state, team) {
  const seats = state.teams[team] ?? [];
  if (seats.length === 1) return state.seats[seats[0]]?.player.name ?? `Seat ${seats[0] + 1}`;
  if (state.seat !== null && state.seat !== undefined && state.teams.length === 2 && state.teams.some((t) => t.includes(state.seat))) {
    return seats.includes(state.seat) ? 'You & Partner' : 'Opponents';
  }
  return teamPlayers(state, team);
}

/**
 * A team by its players' names ("Ann & Cy"), the same on every page: for
 * what players compare between them, such as a game's final score.
 */
export function teamPlayers(state, team) {
  const seats = state.teams[team] ?? [];
  if (seats.length === 1) return state.seats[seats[0]]?.player.name ?? `Seat ${seats[0] + 1}`;
  const players = seats.map((seat) => state.seats[seat]);
  if (players.every(Boolean)) return players.map((info) => info.player.name).join(' & ');
  return seats.map((seat) => SEAT_NAMES[seat]).join('–');
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
 * What a seat is to the viewer: "You", "Partner", "Left opponent" or
 * "Right opponent" for a player (the left opponent plays next), the
 * compass name for a watcher. In solo everyone else is an opponent, the
 * one across included.
 */
export function seatRole(state, seat) {
  if (state.seat === null) return SEAT_NAMES[seat];
  if (playersOf(state.rules) === 3) return ['You', 'Left opponent', 'Right opponent'][(seat - state.seat + 3) % 3];
  const across = state.partnerOf(state.seat) === seat ? 'Partner' : 'Opponent across';
  return ['You', 'Left opponent', across, 'Right opponent'][(seat - state.seat + 4) % 4];
}

/**
 * A seat as a sentence names it: "You", or the name with the seat's role
 * ("Basic bot (partner)"), since several players may share a name.
 */
export function who(state, seat) {
  if (seat === state.seat) return 'You';
  if (state.seat === null) return `${state.nameOf(seat)} (${SEAT_NAMES[seat]})`;
  return `${state.nameOf(seat)} (${seatRole(state, seat).toLowerCase()})`;
}

/** A line for screen readers about one event of the table's log. */
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
    case 'removed': return `${entry.player.name} was removed from the table by its host.`;
    case 'game_over': return entry.winner === null ? 'The game was abandoned.' : `Game over: ${teamName(state, entry.winner)} win.`;
    default: return '';
  }
}
