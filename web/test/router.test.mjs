// Addresses to screens, and room codes from what people paste.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashFor, parseRoute, roomCodeFrom } from '../js/router.js';

test('hash routes', () => {
  assert.deepEqual(parseRoute('', '/'), { name: 'lobby', param: null });
  assert.deepEqual(parseRoute('#/lobby', '/'), { name: 'lobby', param: null });
  assert.deepEqual(parseRoute('#/room/ab12cd', '/'), { name: 'room', param: 'AB12CD' });
  assert.deepEqual(parseRoute('#/tournaments', '/'), { name: 'tournaments', param: null });
  const id = 'ec4323d0-fbf7-47c8-8966-edf25b5f1150';
  assert.deepEqual(parseRoute(`#/tournament/${id}`, '/'), { name: 'tournament', param: id });
  assert.deepEqual(parseRoute(`#/replay/${id}`, '/'), { name: 'replay', param: id });
  assert.deepEqual(parseRoute('#/profile/me', '/'), { name: 'profile', param: 'me' });
  assert.deepEqual(parseRoute('#/nowhere', '/'), { name: 'lobby', param: null });
});

test('the reset, moderation and administration pages', () => {
  const token = '72f894942cbe44508ec33bf37175ff3736f501d742de415592c5b3cad78a38bf';
  // The path the API gives for a reset link, as a browser splits it.
  const link = new URL(`http://spades.example/#/reset/${token}`);
  assert.deepEqual(parseRoute(link.hash, link.pathname), { name: 'reset', param: token });
  assert.deepEqual(parseRoute('#/moderation', '/'), { name: 'moderation', param: null });
  assert.deepEqual(parseRoute('#/admin', '/'), { name: 'admin', param: null });
  const id = 'ec4323d0-fbf7-47c8-8966-edf25b5f1150';
  assert.deepEqual(parseRoute(hashFor('admin', id), '/'), { name: 'admin', param: id });
  // A token keeps its case (unlike a room code), and nothing else passes for one.
  assert.equal(parseRoute('#/reset/AbC-1_x', '/').param, 'AbC-1_x');
  assert.deepEqual(parseRoute('#/reset/', '/'), { name: 'lobby', param: null });
  assert.deepEqual(parseRoute('#/reset/a b', '/'), { name: 'lobby', param: null });
  assert.deepEqual(parseRoute('#/admin/not an id', '/'), { name: 'lobby', param: null });
});

test('a /r/CODE link opens the room whatever the hash', () => {
  assert.deepEqual(parseRoute('', '/r/FE5MF595V3'), { name: 'room', param: 'FE5MF595V3' });
  assert.deepEqual(parseRoute('#/lobby', '/r/7b4sea/'), { name: 'room', param: '7B4SEA' });
});

test('hashes round-trip', () => {
  assert.deepEqual(parseRoute(hashFor('room', 'XYZ123'), '/'), { name: 'room', param: 'XYZ123' });
  assert.equal(hashFor('lobby'), '#/lobby');
});

test('room codes from codes and links', () => {
  assert.equal(roomCodeFrom(' 7b4sea '), '7B4SEA');
  assert.equal(roomCodeFrom('http://127.0.0.1:8080/r/FE5MF595V3'), 'FE5MF595V3');
  assert.equal(roomCodeFrom('https://spades.example/#/room/H2AU5Z'), 'H2AU5Z');
  assert.equal(roomCodeFrom('not a code!'), null);
  assert.equal(roomCodeFrom(''), null);
});
