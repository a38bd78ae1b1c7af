// Tricks against bids per seat and per team, the teams' names as a
// seated player and a watcher read them, and the players' pictures.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seatTally, teamContract, teamLine } from '../js/tally.js';
import { teamName } from '../js/seating.js';
import { avatarKind, initialsOf } from '../js/views/avatar.js';

const player = (name, extra = {}) => ({ player: { id: name.toLowerCase(), name, ...extra } });

function table(fields = {}) {
  return {
    seat: 0, hand: 0, phase: 'playing', unbidHand: false, teams: [[0, 2], [1, 3]],
    seats: [player('Ann'), player('Ben'), player('Cy'), player('Dee')],
    bids: [{ bid: 4, blind: false }, { bid: 3, blind: false }, { bid: 3, blind: false }, { bid: 2, blind: false }],
    tricksWon: [2, 3, 2, 3],
    ...fields,
  };
}

test('a seat counts its tricks against its bid', () => {
  assert.deepEqual(seatTally(table(), 0), { short: '2/4', words: 'Bid 4 · Took 2' });
  const nil = table({ bids: [{ bid: 0, blind: false }, null, null, null], tricksWon: [0, 0, 0, 0] });
  assert.equal(seatTally(nil, 0).short, '0/Nil');
  assert.equal(seatTally(nil, 1).short, '0/–');
  assert.equal(seatTally(nil, 1).words, 'No bid yet · Took 0');
  assert.equal(seatTally(table({ unbidHand: true }), 1).short, '3');
});

test('a team says its bid against its tricks, as "we" or "opponents"', () => {
  assert.equal(teamLine(table(), 0), 'We bid 7, need 3 more');
  assert.equal(teamLine(table(), 1), 'Opponents bid 5, took 6');
  assert.equal(teamLine(table({ tricksWon: [5, 0, 3, 0] }), 0), 'We bid 7, took 8');
  assert.equal(teamLine(table({ bids: [{ bid: 4, blind: false }, null, null, null] }), 0), 'We bid 4 so far');
  assert.equal(teamLine(table({ bids: [null, null, null, null] }), 1), 'Opponents: no bid yet');
  // A watcher reads the teams' names.
  assert.equal(teamLine(table({ seat: null }), 0), 'Ann & Cy bid 7, took 4');
  assert.equal(teamLine(table({ phase: 'waiting', hand: null }), 0), null);
});

test('a team blind bid is the team\'s contract', () => {
  const blind = table({ bids: [{ bid: 6, blind: true }, null, null, null] });
  assert.deepEqual(teamContract(blind, 0), { contract: 6, complete: true, any: true });
});

test('teams are "You & Partner" and "Opponents" to a seated player, names to a watcher, names in solo', () => {
  assert.equal(teamName(table(), 0), 'You & Partner');
  assert.equal(teamName(table({ seat: 1 }), 0), 'Opponents');
  assert.equal(teamName(table({ seat: null }), 1), 'Ben & Dee');
  assert.equal(teamName(table({ seat: null, seats: [player('Ann'), null, player('Cy'), null] }), 1), 'East–West');
  const solo = table({ teams: [[0], [1], [2], [3]] });
  assert.equal(teamName(solo, 0), 'Ann');
  assert.equal(teamName(solo, 2), 'Cy');
});

test('a player\'s picture: his chosen one, a bot\'s face by level, else his initials', () => {
  assert.equal(avatarKind({ id: 'a', name: 'Ann', avatar: 'fox' }), 'fox');
  assert.equal(avatarKind({ id: 'a', name: 'Ann', avatar: 'dragon' }), 'initials');
  assert.equal(avatarKind({ id: 'a', name: 'Ann' }), 'initials');
  assert.equal(avatarKind({ id: 'b', name: 'Clover', bot: true, level: 'strong' }), 'bot-strong');
  assert.equal(avatarKind({ id: 'b', name: 'Basic bot', bot: true }), 'bot-basic');
  assert.equal(avatarKind({ id: 'b', name: 'Pip', bot: true, level: 'beginner' }), 'bot-beginner');
  assert.equal(avatarKind({ id: 'b', name: 'Sage', bot: true, level: 'expert' }), 'bot-expert');
  assert.equal(avatarKind({ id: 'b', name: 'Newer', bot: true, level: 'grandmaster' }), 'bot-basic');
  assert.equal(initialsOf('Ann Lee'), 'AL');
  assert.equal(initialsOf('juniper'), 'J');
  assert.equal(initialsOf(''), '?');
});
