// Two games on the same deals side by side (protocol.md, "Play these deals
// again"): the second is dealt exactly the hands of the first, seat by
// seat, but everyone sits one seat to the left, so the same cards are
// held by other people. The comparison follows the cards of seat 0's side
// (North–South with partners, North alone in solo and at three) through
// both games. Pure, for the replay view and its tests.

import { SEAT_NAMES } from './seating.js';
import { teamsFromRules } from './state.js';

/** The other game of a record on the same deals, or null: the one it played again, else the first that played it again. */
export function otherGameId(game) {
  return game?.same_deals_as ?? game?.played_again?.[0] ?? null;
}

/** A bid as a short cell: "4", "Nil", "Blind nil", "Blind 6". */
function shortBid({ bid, blind }) {
  if (bid === 0) return blind ? 'Blind nil' : 'Nil';
  return blind ? `Blind ${bid}` : String(bid);
}

/**
 * The side's bids in one cell: "4 + 3", "Nil + 5". A team's blind bid is
 * listed under both partners with the same number and counts once, so it
 * is written once; a hand played without bids is "—".
 */
export function sideBids(record, side) {
  const bids = side.map((seat) => record.bids.find((bid) => bid.seat === seat)).filter(Boolean);
  if (!bids.length) return '—';
  const teamBlind = bids.length > 1 && bids.every((bid) => bid.blind && bid.bid > 0 && bid.bid === bids[0].bid);
  return teamBlind ? shortBid(bids[0]) : bids.map(shortBid).join(' + ');
}

/** The players in `side`'s seats of a game record: "Ann & Cy". */
export function sideNames(game, side) {
  const name = (seat) => game.players?.find((player) => player.seat === seat)?.name ?? SEAT_NAMES[seat];
  return side.map(name).join(' & ');
}

const sameCards = (a, b) => JSON.stringify(a.hands) === JSON.stringify(b.hands);

/**
 * The comparison of two games on the same deals, each `{game, records}`
 * (the game record and its hand records), `first` the one played first:
 * `{side, sideName, names: [first, second], rows, total}`. A row is a hand
 * present in both games, `{hand, first, second, difference, sameCards}`,
 * each game's part `{bids, tricks, points}` for the side's seats, and the
 * difference the second game's points less the first's for those cards.
 */
export function compareDeals(first, second) {
  const rules = first.game.rules ?? first.records[0]?.rule_set;
  const side = teamsFromRules(rules)[0];
  // Seat 0's side is team 0 in both games: the teams follow the seats.
  const part = (record) => ({
    bids: sideBids(record, side),
    tricks: side.reduce((sum, seat) => sum + (record.tricks_won[seat] ?? 0), 0),
    points: record.hand_score[0],
  });
  const later = new Map(second.records.map((record) => [record.hand, record]));
  const rows = first.records.filter((record) => later.has(record.hand)).map((record) => {
    const again = later.get(record.hand);
    const a = part(record);
    const b = part(again);
    return { hand: record.hand, first: a, second: b, difference: b.points - a.points, sameCards: sameCards(record, again) };
  });
  const sum = (pick) => rows.reduce((total, row) => total + pick(row), 0);
  return {
    side,
    sideName: side.map((seat) => SEAT_NAMES[seat]).join('–'),
    names: [sideNames(first.game, side), sideNames(second.game, side)],
    rows,
    total: { first: sum((row) => row.first.points), second: sum((row) => row.second.points), difference: sum((row) => row.difference) },
  };
}

/** A difference as written in the table: "+20", "-10", "0". */
export const signed = (value) => (value > 0 ? `+${value}` : String(value));
