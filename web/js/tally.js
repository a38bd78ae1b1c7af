// Tricks against bids, the way a player keeps count at a real table: per
// seat "2/4" (two taken of four bid), and per team a sentence, "We bid 7,
// need 3 more" or "Opponents bid 5, took 6". Pure functions of a
// TableState (or of any object with its fields), so they are unit-tested.

import { bidText, teamName } from './seating.js';

/**
 * A seat's count: `short` for the eye ("2/4", "0/Nil", "1" in a hand
 * without bids, "2/–" before it bids) and `words` for screen readers
 * ("Bid 4 · Took 2").
 */
export function seatTally(state, seat) {
  const took = state.tricksWon[seat] ?? 0;
  const bid = state.bids[seat];
  if (state.unbidHand) return { short: String(took), words: `No bids this hand · Took ${took}` };
  if (!bid) return { short: `${took}/–`, words: `No bid yet · Took ${took}` };
  // A team's blind bid binds both partners; the count is the team's.
  const target = bid.bid === 0 ? (bid.blind ? 'Blind nil' : 'Nil') : (bid.blind ? `Blind ${bid.bid}` : String(bid.bid));
  return { short: `${took}/${target}`, words: `${bidText(bid)} · Took ${took}` };
}

/**
 * What a team bid: the sum of its players' bids (a nil counts nothing),
 * or its blind bid; `complete` once every player of the team has bid.
 */
export function teamContract(state, team) {
  const seats = state.teams[team] ?? [];
  const bids = seats.map((seat) => state.bids[seat]);
  const blind = bids.find((bid) => bid && bid.blind && bid.bid > 0);
  if (blind) return { contract: blind.bid, complete: true, any: true };
  return {
    contract: bids.reduce((sum, bid) => sum + (bid ? bid.bid : 0), 0),
    complete: bids.every(Boolean),
    any: bids.some(Boolean),
  };
}

/** The tricks a team took this hand. */
export function teamTricks(state, team) {
  return (state.teams[team] ?? []).reduce((sum, seat) => sum + (state.tricksWon[seat] ?? 0), 0);
}

/** Who a team is in the sentence: "We", "Opponents", or its name. */
function subject(state, team) {
  const seats = state.teams[team] ?? [];
  const mine = state.seat !== null && state.seat !== undefined && seats.includes(state.seat);
  if (mine) return seats.length > 1 ? 'We' : 'You';
  return teamName(state, team);
}

/**
 * A team's bid against its tricks, as a sentence: "We bid 7, need 3
 * more", "We bid 7, took 8", "Opponents bid 5, took 6", "We bid 3 so
 * far", or null before the hand's bidding.
 */
export function teamLine(state, team) {
  if (state.hand === null || state.hand === undefined || state.phase === 'waiting' || state.phase === 'game over') return null;
  const who = subject(state, team);
  const took = teamTricks(state, team);
  if (state.unbidHand) return `${who} took ${took}`;
  const { contract, complete, any } = teamContract(state, team);
  if (!any) return `${who}: no bid yet`;
  if (!complete) return `${who} bid ${contract} so far`;
  const need = contract - took;
  if (who === 'We' || who === 'You') return need > 0 ? `${who} bid ${contract}, need ${need} more` : `${who} bid ${contract}, took ${took}`;
  return `${who} bid ${contract}, took ${took}`;
}
