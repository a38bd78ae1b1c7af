// The plain data of friends and table talk: presence in words, the order
// of the friends list, invitations, and the quick phrases' bubbles.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BUBBLE_MS, QUICK_PHRASES, invitationWords, presenceWords, rematchWords, seatBubbles, sortFriends,
} from '../js/social.js';
import { readDoc } from './support.mjs';

const friend = (name, presence, room) => ({ player: { id: name, name }, presence, room });

test('a friend reads as playing at his table, online or offline', () => {
  assert.equal(presenceWords(friend('Ann', 'playing', 'F723F9')), 'Playing at table F723F9');
  assert.equal(presenceWords(friend('Ann', 'playing')), 'Playing', 'a hidden table is not named');
  assert.equal(presenceWords(friend('Ann', 'online')), 'Online');
  assert.equal(presenceWords(friend('Ann', 'offline')), 'Offline');
});

test('friends who are on come first, each group by name', () => {
  const sorted = sortFriends([
    friend('Zed', 'offline'), friend('Bob', 'online'), friend('Cy', 'playing', 'X'), friend('Al', 'online'),
  ]);
  assert.deepEqual(sorted.map((f) => f.player.name), ['Cy', 'Al', 'Bob', 'Zed']);
});

test('an invitation says who invites and to what', () => {
  const from = { id: '1', name: 'Ann' };
  assert.equal(invitationWords({ from, to: 'table', room: 'F723F9' }), 'Ann invites you to table F723F9.');
  assert.equal(invitationWords({ from, to: 'queue', rules: 'suicide' }),
    'Ann invites you to quick play (suicide) as partners.');
});

test('the quick phrases are those of protocol.md, with their words', () => {
  const doc = readDoc('protocol.md');
  for (const { phrase, words } of QUICK_PHRASES) {
    assert.ok(doc.includes(`\`${phrase}\``), `${phrase} is documented`);
    assert.ok(doc.includes(words), `${phrase}'s words are documented`);
  }
});

test('a seat shows its last quick phrase for a while, and no typed line or hidden one', () => {
  const chat = [
    { seat: 1, quick: 'hello', text: 'Hello!', at: 0 },
    { seat: 1, quick: 'oops', text: 'Oops!', at: 1000 },
    { seat: 2, text: 'typed', at: 1000 },
    { seat: 3, quick: 'wow', text: '', hidden: true, at: 1000 },
    { seat: null, quick: 'thanks', text: 'Thanks!', at: 1000 },
  ];
  assert.deepEqual([...seatBubbles(chat, 2000)], [[1, 'Oops!']]);
  assert.deepEqual([...seatBubbles(chat, 1000 + BUBBLE_MS + 1)], []);
});

test('what the others asked for after a game: a rematch, or these deals again', () => {
  const names = ['Ann', 'Ben', 'Cy', 'Dee'];
  const nameOf = (seat) => names[seat];
  assert.equal(rematchWords(null, 0, nameOf), null);
  assert.equal(rematchWords({ asked: [0], waitingFor: [2], sameDeals: false }, 0, nameOf), null, 'one\'s own request is not news');
  assert.equal(rematchWords({ asked: [1], waitingFor: [0], sameDeals: false }, 0, nameOf), 'Ben asks for a rematch.');
  assert.equal(rematchWords({ asked: [0, 1], waitingFor: [2], sameDeals: true }, 0, nameOf), 'Ben asks to play these deals again.');
  assert.equal(rematchWords({ asked: [1, 2, 3], waitingFor: [0], sameDeals: true }, 0, nameOf),
    'Ben, Cy and Dee ask to play these deals again.');
  assert.equal(rematchWords({ asked: [1, 3], waitingFor: [], sameDeals: false }, 2, nameOf), 'Ben and Dee ask for a rematch.');
});
