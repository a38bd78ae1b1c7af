// Duplicate tournaments (README, "Tournaments"): every table of a round is
// dealt the same boards, one per hand, and a partnership is scored against
// the others that held the same cards. From the tournament's view and its
// tables' hand histories (docs/hand-history.md) this works out what the
// tournament page shows: each board table by table with the matchpoints
// each side earned, and each entry's share of the matchpoints he could
// have had. It counts as the server does (crates/lobby/src/tournament/
// duplicate.rs), so that the page's figures add up to the standings.
// Pure, for the tournament view and its tests.

import { sideBids } from './same-deals.js';
import { teamsFromRules } from './state.js';

/** Whether a tournament's format is one of the duplicate ones. */
export const isDuplicate = (format) => format === 'duplicate_pairs' || format === 'duplicate_individual';

// A tournament seats partnerships: North–South (seats 0 and 2) is team 0,
// East–West team 1, in the view's `seats` as in the histories.
const SIDES = teamsFromRules(null);

/** A tournament's format in words: "Knockout", "Swiss, 7 rounds", "Duplicate, fixed partners, 3 rounds of 4 boards". */
export function formatText(t) {
  const rounds = `${t.rounds} round${t.rounds === 1 ? '' : 's'}`;
  const boards = t.rules?.max_hands;
  const ofBoards = boards ? ` of ${boards} board${boards === 1 ? '' : 's'}` : '';
  switch (t.format) {
    case 'swiss': return `Swiss, ${rounds}`;
    case 'duplicate_pairs': return `Duplicate, fixed partners, ${rounds}${ofBoards}`;
    case 'duplicate_individual': return `Duplicate, partners change each round, ${rounds}${ofBoards}`;
    default: return 'Knockout';
  }
}

/**
 * Whether every table of a round has finished: only then are its deals
 * no longer secret (the server refuses their histories before, with
 * `deals_in_play`).
 */
export const roundOver = (stage) => stage.tables.length > 0 && stage.tables.every((table) => table.status === 'finished');

/**
 * Whether the standings count the round at `index`: the server adds a
 * round's matchpoints when it seats the next round, in the same write, or
 * when it ends the tournament. So the last round counts only in a
 * finished tournament: while one runs it is being played (or has just
 * ended, a moment before the next round is written), and in a cancelled
 * one it was never counted, even if its tables played on to the end.
 */
export function roundCounted(view, index) {
  const stage = view.stages[index];
  if (!stage || !roundOver(stage)) return false;
  return index < view.stages.length - 1 || view.status === 'finished';
}

/** 2 for each of `others` below `mine`, 1 for each equal to it. */
export function matchpointsAgainst(mine, others) {
  return others.reduce((sum, theirs) => sum + (mine > theirs ? 2 : mine === theirs ? 1 : 0), 0);
}

/**
 * A round's boards, table by table: `histories[i]` is the hand records of
 * the round's table i (`stage.tables[i]`), or null for a table without a
 * game. Gives one entry per board any table played, in order, `{hand,
 * top, rows}`: `top` the most a side could earn on it, and a row per table
 * that played it, `{table, game, sides}`, each side (North–South, then
 * East–West) `{entries, bids, tricks, points, matchpoints, above}`:
 * `entries` the entry numbers in its seats, `points` its `hand_score`,
 * `above` the points it scored above the others who held its cards.
 *
 * A side is compared with the same side at the other tables that played
 * the board: a hand past the round's last board, played to break a tie,
 * is compared only where another table played it too.
 */
export function roundBoards(stage, histories) {
  const byHand = new Map();
  stage.tables.forEach((table, index) => {
    for (const record of histories[index] ?? []) {
      if (!byHand.has(record.hand)) byHand.set(record.hand, []);
      byHand.get(record.hand).push({ table, record });
    }
  });
  return [...byHand.keys()].sort((a, b) => a - b).map((hand) => {
    const played = byHand.get(hand).sort((a, b) => a.table.table - b.table.table);
    const rows = played.map(({ table, record }, index) => {
      const others = played.filter((_, other) => other !== index).map((other) => other.record.hand_score);
      return {
        table: table.table,
        game: table.game,
        sides: SIDES.map((seats, team) => {
          const points = record.hand_score[team];
          const theirs = others.map((score) => score[team]);
          return {
            entries: seats.map((seat) => table.seats[seat]),
            bids: sideBids(record, seats),
            tricks: seats.reduce((sum, seat) => sum + (record.tricks_won[seat] ?? 0), 0),
            points,
            matchpoints: matchpointsAgainst(points, theirs),
            above: theirs.reduce((sum, other) => sum + points - other, 0),
          };
        }),
      };
    });
    return { hand, top: 2 * (rows.length - 1), rows };
  });
}

/**
 * Each entry's matchpoints as a share of the most he could have had in
 * the rounds the standings count: a Map from entry number to `{points,
 * most, percent}`, `percent` null while `most` is 0. On each board a
 * side's most is 2 for each other table that played it, and an entry's
 * is the sum over the boards he played. `loaded` maps a round's number
 * to its `roundBoards`, for the rounds whose boards the page has: only
 * they tell of a hand added to break a tie; for the others every finished
 * table is taken to have played the round's `rules.max_hands` boards.
 */
export function percentages(view, loaded = {}) {
  const most = new Map(view.entrants.map((entrant) => [entrant.entry, 0]));
  const boards = view.rules?.max_hands ?? 0;
  view.stages.forEach((stage, index) => {
    if (!roundCounted(view, index)) return;
    const known = loaded[stage.stage];
    for (const table of stage.tables) {
      const top = known
        ? known.reduce((sum, board) => sum + (board.rows.some((row) => row.table === table.table) ? board.top : 0), 0)
        : boards * 2 * (stage.tables.length - 1);
      for (const entry of table.seats) most.set(entry, (most.get(entry) ?? 0) + top);
    }
  });
  return new Map(view.entrants.map((entrant) => {
    const max = most.get(entrant.entry) ?? 0;
    return [entrant.entry, { points: entrant.points, most: max, percent: max ? (100 * entrant.points) / max : null }];
  }));
}

/** A percentage as the standings show it: "57.1%", or "—" before any round counts. */
export const percentText = (percent) => (percent === null ? '—' : `${percent.toFixed(1)}%`);
