// Duplicate tournaments (js/duplicate.js): each board table by table with
// the matchpoints each side earned, and the standings' percentages, from
// made-up rounds and from one the server played
// (fixtures/duplicate, see its README).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLines } from '../js/api.js';
import {
  formatText, isDuplicate, matchpointsAgainst, percentages, percentText, roundBoards, roundCounted, roundOver,
} from '../js/duplicate.js';
import { readFixture } from './support.mjs';

/** A hand record with what the boards read: bids, tricks and the hand's points. */
function record(hand, handScore, { bids = [3, 3, 3, 3], tricks = [3, 3, 4, 3] } = {}) {
  return {
    hand,
    bids: bids.map((bid, seat) => ({ seat, bid, blind: false })),
    tricks_won: tricks,
    hand_score: handScore,
  };
}

const table = (number, seats, status = 'finished') => ({ table: number, seats, room: `R${number}`, game: `g${number}`, status, winner: null, score: null });

// The server's own example (crates/lobby/src/tournament/duplicate.rs):
// three tables, two boards; the third table has no record of board 2.
const stage = { stage: 0, tables: [table(0, [0, 1, 2, 3]), table(1, [4, 5, 6, 7]), table(2, [8, 9, 10, 11])] };
const histories = [
  [record(0, [60, -40]), record(1, [-100, 50])],
  [record(0, [40, 20]), record(1, [-100, 70])],
  [record(0, [60, 30])],
];

test('2 matchpoints for each score beaten, 1 for each tie', () => {
  assert.equal(matchpointsAgainst(60, [40, 60]), 3);
  assert.equal(matchpointsAgainst(-100, [-100]), 1);
  assert.equal(matchpointsAgainst(-40, [20, 30]), 0);
  assert.equal(matchpointsAgainst(10, []), 0);
});

test('a side is compared only with the same side at the tables that played the same board', () => {
  const boards = roundBoards(stage, histories);
  assert.deepEqual(boards.map((board) => [board.hand, board.top, board.rows.map((row) => row.table)]), [
    [0, 4, [0, 1, 2]],
    // The third table did not play board 2: a side there was worth at
    // most 2, against the one other table.
    [1, 2, [0, 1]],
  ]);
  const matchpoints = (board) => boards[board].rows.map((row) => row.sides.map((side) => side.matchpoints));
  // Board 1: North–South scored 60, 40 and 60, East–West -40, 20 and 30.
  // Table 1 beats table 2 and ties table 3 in North–South (2 + 1); its
  // East–West beat nobody.
  assert.deepEqual(matchpoints(0), [[3, 0], [0, 2], [3, 4]]);
  // Board 2: North–South -100 at both tables (a tie each), East–West 50 and 70.
  assert.deepEqual(matchpoints(1), [[1, 0], [1, 2]]);
  // Each board gives away as many matchpoints in each direction as it
  // has pairs of tables, twice: the ties share them.
  for (const board of boards) {
    for (const team of [0, 1]) {
      const given = board.rows.reduce((sum, row) => sum + row.sides[team].matchpoints, 0);
      assert.equal(given, board.rows.length * (board.rows.length - 1), `board ${board.hand + 1}, team ${team}`);
    }
  }
});

test("each entry's matchpoints and tie-break add up to the server's", () => {
  const totals = new Map();
  for (const board of roundBoards(stage, histories)) {
    for (const row of board.rows) {
      for (const side of row.sides) {
        for (const entry of side.entries) {
          const [points, above] = totals.get(entry) ?? [0, 0];
          totals.set(entry, [points + side.matchpoints, above + side.above]);
        }
      }
    }
  }
  // The figures of the server's own test of the same round.
  assert.deepEqual(totals.get(0), [4, 20]);
  assert.deepEqual(totals.get(2), [4, 20]);
  assert.deepEqual(totals.get(4), [1, -40]);
  assert.deepEqual(totals.get(8), [3, 20]);
  assert.deepEqual(totals.get(1), [0, -150]);
  assert.deepEqual(totals.get(5), [4, 70]);
  assert.deepEqual(totals.get(9), [4, 80]);
});

test('a row names the entries of each side, its bids and tricks', () => {
  const played = [
    [{ ...record(0, [-100, 62], { tricks: [2, 4, 1, 6] }), bids: [{ seat: 0, bid: 4, blind: false }, { seat: 1, bid: 0, blind: true }, { seat: 2, bid: 0, blind: false }, { seat: 3, bid: 6, blind: false }] }],
    [record(0, [62, -100])],
  ];
  const [board] = roundBoards({ stage: 1, tables: [table(0, [3, 1, 0, 2]), table(1, [7, 5, 6, 4])] }, played);
  const [first] = board.rows;
  assert.equal(first.game, 'g0');
  assert.deepEqual(first.sides.map((side) => side.entries), [[3, 0], [1, 2]], 'seats 0 and 2 are North–South');
  assert.deepEqual(first.sides.map((side) => side.bids), ['4 + Nil', 'Blind nil + 6']);
  assert.deepEqual(first.sides.map((side) => side.tricks), [3, 10]);
  assert.deepEqual(first.sides.map((side) => side.points), [-100, 62]);
  assert.deepEqual(first.sides.map((side) => side.above), [-162, 162]);
});

test('a table without a game, or a hand played to break a tie, has nothing to compare', () => {
  const tied = [[record(0, [50, 40]), record(1, [20, 30])], null];
  const boards = roundBoards({ stage: 0, tables: [table(0, [0, 1, 2, 3]), { ...table(1, [4, 5, 6, 7]), game: null }] }, tied);
  assert.deepEqual(boards.map((board) => [board.hand, board.top, board.rows.length]), [[0, 0, 1], [1, 0, 1]]);
  assert.deepEqual(boards[0].rows[0].sides.map((side) => side.matchpoints), [0, 0]);
});

/** A tournament view of `stages`, four boards a round. */
function view(stages, status = 'finished') {
  const entries = [...new Set(stages.flatMap((s) => s.tables.flatMap((t) => t.seats)))];
  return {
    format: 'duplicate_pairs', status, rounds: 3, rules: { max_hands: 4 },
    entrants: entries.map((entry) => ({ entry, name: `P${entry}`, bot: false, points: 6, score_diff: 0, place: null })),
    stages,
  };
}

test('a round counts once the server has added it to the standings', () => {
  const over = { stage: 0, tables: [table(0, [0, 1, 2, 3]), table(1, [4, 5, 6, 7])] };
  const playing = { stage: 1, tables: [table(0, [0, 5, 2, 7]), table(1, [4, 1, 6, 3], 'playing')] };
  const ended = { stage: 1, tables: [table(0, [0, 5, 2, 7]), table(1, [4, 1, 6, 3])] };
  assert.equal(roundOver(over), true);
  assert.equal(roundOver(playing), false);
  assert.deepEqual([0, 1].map((i) => roundCounted(view([over, playing], 'running'), i)), [true, false]);
  // Just over, a moment before the server writes the next round with the standings.
  assert.deepEqual([0, 1].map((i) => roundCounted(view([over, ended], 'running'), i)), [true, false]);
  assert.deepEqual([0, 1].map((i) => roundCounted(view([over, ended], 'finished'), i)), [true, true]);
  // Cancelled mid-round: the tables played on, but the standings stopped.
  assert.deepEqual([0, 1].map((i) => roundCounted(view([over, ended], 'cancelled'), i)), [true, false]);
});

test('the percentage is of the most an entry could have had on the boards he played', () => {
  const three = { stage: 0, tables: [table(0, [0, 1, 2, 3]), table(1, [4, 5, 6, 7]), table(2, [8, 9, 10, 11])] };
  // Four boards, two other tables each: 16 at most; 6 of them is 37.5%.
  const shares = percentages(view([three]));
  assert.deepEqual(shares.get(0), { points: 6, most: 16, percent: 37.5 });
  assert.equal(percentText(shares.get(0).percent), '37.5%');
  // Once the boards are loaded they are counted as played: here two
  // boards, the second missing at the third table.
  const loaded = { 0: roundBoards(three, [[record(0, [1, 1]), record(1, [1, 1])], [record(0, [1, 1]), record(1, [1, 1])], [record(0, [1, 1])]]) };
  const counted = percentages(view([three]), loaded);
  assert.equal(counted.get(0).most, 4 + 2);
  assert.equal(counted.get(8).most, 4);
  // Nothing counts yet while the first round is played.
  const running = percentages(view([{ ...three, tables: three.tables.map((t) => ({ ...t, status: 'playing' })) }], 'running'));
  assert.deepEqual(running.get(0), { points: 6, most: 0, percent: null });
  assert.equal(percentText(null), '—');
});

test("a round the server played: its boards add up to the server's standings", () => {
  const t = JSON.parse(readFixture('duplicate/tournament.json'));
  const histories = [1, 2].map((table) => parseLines(readFixture(`duplicate/table-${table}.jsonl`)));
  const [round] = t.stages;
  // Every table was dealt the same cards, board by board.
  for (const [hand, record] of histories[0].entries()) assert.deepEqual(histories[1][hand].hands, record.hands);
  const boards = roundBoards(round, histories);
  assert.deepEqual(boards.map((board) => [board.hand, board.top, board.rows.length]), [[0, 2, 2], [1, 2, 2]]);
  const totals = new Map(t.entrants.map((e) => [e.entry, { points: 0, score_diff: 0 }]));
  for (const row of boards.flatMap((board) => board.rows)) {
    for (const side of row.sides) {
      for (const entry of side.entries) {
        totals.get(entry).points += side.matchpoints;
        totals.get(entry).score_diff += side.above;
      }
    }
  }
  for (const e of t.entrants) assert.deepEqual(totals.get(e.entry), { points: e.points, score_diff: e.score_diff }, e.name);
  // Two boards against one other table: 4 matchpoints at most, whether
  // counted from the rules or from the boards.
  for (const shares of [percentages(t), percentages(t, { 0: boards })]) {
    for (const e of t.entrants) assert.deepEqual(shares.get(e.entry), { points: e.points, most: 4, percent: 25 * e.points });
  }
});

test('the formats in words', () => {
  assert.equal(isDuplicate('duplicate_pairs') && isDuplicate('duplicate_individual'), true);
  assert.equal(isDuplicate('swiss') || isDuplicate('knockout'), false);
  assert.equal(formatText({ format: 'knockout', rounds: null }), 'Knockout');
  assert.equal(formatText({ format: 'swiss', rounds: 7 }), 'Swiss, 7 rounds');
  assert.equal(formatText({ format: 'duplicate_pairs', rounds: 3, rules: { max_hands: 4 } }), 'Duplicate, fixed partners, 3 rounds of 4 boards');
  assert.equal(formatText({ format: 'duplicate_individual', rounds: 1 }), 'Duplicate, partners change each round, 1 round');
});
