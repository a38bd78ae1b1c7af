// The protocol client against a fake WebSocket whose server side each test
// plays: replies matched by id, events in seq order, resync after a lost
// connection, actions sent again with their ids, and the close codes
// after which it must not reconnect.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ProtocolError, STATUS } from '../js/protocol.js';
import { FakeClock, fakeWebSocketClass, memoryStorage } from './support.mjs';

const ROOM = 'ABC123';
const PLAYER = { id: 'p-1', name: 'Ann' };

/** A client with a fake socket and clock, and helpers that play the server. */
function setup({ token = null, random = () => 0.5 } = {}) {
  const clock = new FakeClock();
  const { FakeWebSocket, sockets } = fakeWebSocketClass();
  const storage = memoryStorage(token ? { 'spades.token': token } : {});
  const client = new Client({
    url: 'ws://test/ws', WebSocket: FakeWebSocket, storage, random, idPrefix: 't-',
    now: clock.now, setTimeout: clock.setTimeout, clearTimeout: clock.clearTimeout,
    backoff: { base: 1000, max: 8000 }, heartbeatMs: 0,
  });
  const room = [];
  client.on('room', (message) => room.push(message));
  const socket = () => sockets[sockets.length - 1];
  const welcome = async (s = socket(), extra = {}) => {
    s.open();
    const hello = s.last('hello');
    s.receive({ type: 'welcome', id: hello.id, version: 1, player: PLAYER, token: 'g_tok', ...extra });
    await settle();
    return hello;
  };
  const snapshot = (s, id, seq) => s.receive({
    type: 'snapshot', id, seq,
    state: { room: ROOM, name: 'T', private: false, rules: {}, bots: 'basic', status: 'playing', owner: PLAYER, seats: [null, null, null, null], spectators: 0, games: 1 },
  });
  const event = (seq, type = 'chat_message', extra = {}) => ({ type, room: ROOM, seq, from: PLAYER, text: `line ${seq}`, ...extra });
  return { client, clock, sockets, socket, storage, room, welcome, snapshot, event };
}

/** Lets promise callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Connects, enters ROOM with a snapshot as of `seq`. */
async function inRoom(t, seq = 5) {
  const connected = t.client.connect({ name: 'Ann' });
  await t.welcome();
  await connected;
  const joined = t.client.joinRoom(ROOM);
  t.snapshot(t.socket(), t.socket().last('join_room').id, seq);
  await joined;
}

test('hello as a guest, and the token kept for next time', async () => {
  const t = setup();
  const connected = t.client.connect({ name: 'Ann' });
  const hello = await t.welcome();
  assert.deepEqual({ ...hello, id: undefined }, { type: 'hello', id: undefined, version: 1, name: 'Ann' });
  const welcome = await connected;
  assert.equal(welcome.player.name, 'Ann');
  assert.equal(t.storage.getItem('spades.token'), 'g_tok');
  assert.equal(t.client.status, STATUS.READY);
});

test('hello with the kept token when there is one', async () => {
  const t = setup({ token: 'g_old' });
  const connected = t.client.connect();
  const hello = await t.welcome();
  assert.equal(hello.token, 'g_old');
  assert.equal(hello.name, undefined);
  await connected;
});

test('replies are matched to their requests by id, whatever their order', async () => {
  const t = setup();
  const connected = t.client.connect({ name: 'Ann' });
  await t.welcome();
  await connected;
  const rooms = t.client.listRooms();
  const ping = t.client.ping();
  const sit = t.client.sit(2);
  const [roomsId, pingId, sitId] = t.socket().sent.slice(1).map((m) => m.id);
  assert.equal(new Set([roomsId, pingId, sitId]).size, 3, 'each request has its own id');
  assert.deepEqual(t.socket().last('sit'), { type: 'sit', id: sitId, seat: 2 });
  t.socket().receive({ type: 'error', id: sitId, code: 'seat_taken', message: 'taken' });
  t.socket().receive({ type: 'pong', id: pingId });
  t.socket().receive({ type: 'rooms', id: roomsId, rooms: [] });
  assert.deepEqual(await rooms, { type: 'rooms', id: roomsId, rooms: [] });
  assert.equal((await ping).type, 'pong');
  await assert.rejects(sit, (error) => error instanceof ProtocolError && error.code === 'seat_taken');
});

test('events are handed on in seq order; a gap asks for a resync and is filled', async () => {
  const t = setup();
  await inRoom(t, 5);
  const s = t.socket();
  s.receive(t.event(6));
  s.receive(t.event(8));
  s.receive({ type: 'turn', room: ROOM, after: 8, seats: [0], expected: 'play', clock_ms: 1000, deadline: 0 });
  assert.deepEqual(t.room.map((m) => m.seq ?? m.after), [5, 6], 'event 8 and its turn wait for 7');
  const resync = s.last('resync');
  assert.deepEqual({ ...resync, id: undefined }, { type: 'resync', id: undefined, room: ROOM, last_seq: 6 });
  s.receive(t.event(7));
  s.receive(t.event(8));
  s.receive({ type: 'ack', id: resync.id, seq: 8 });
  await settle();
  assert.deepEqual(t.room.map((m) => `${m.type}:${m.seq ?? m.after}`),
    ['snapshot:5', 'chat_message:6', 'chat_message:7', 'chat_message:8', 'turn:8'],
    'the missed event, then the held one, then the turn, each once');
  s.receive(t.event(8));
  s.receive({ ...t.event(9), room: 'OTHER' });
  assert.equal(t.room.length, 5, 'duplicates and other rooms are dropped');
});

test('a lost connection: backoff, hello with the token, resync, then the unanswered action again with the same id', async () => {
  const t = setup();
  await inRoom(t, 5);
  const first = t.socket();
  const played = t.client.play('QH');
  const play = first.last('play');
  const statuses = [];
  t.client.on('status', (status, detail) => statuses.push([status, detail.delay]));
  first.serverClose(1006);
  assert.equal(t.client.status, STATUS.RECONNECTING);
  assert.deepEqual(statuses[0], [STATUS.RECONNECTING, 750], 'half fixed, half random: 500 + 0.5 * 500');
  assert.equal(t.sockets.length, 1);
  const chat = t.client.chat('back soon');
  t.clock.advance(750);
  assert.equal(t.sockets.length, 2, 'a new connection after the delay');
  const second = t.socket();
  const hello = await t.welcome(second, { room: ROOM });
  assert.equal(hello.token, 'g_tok');
  const resync = second.last('resync');
  assert.deepEqual({ ...resync, id: undefined }, { type: 'resync', id: undefined, room: ROOM, last_seq: 5 });
  assert.equal(second.last('play'), undefined, 'actions wait until the room has caught up');
  second.receive(t.event(6, 'card_played', { seat: 0, card: 'QH' }));
  second.receive(t.event(7, 'player_away', { seat: 0, hold_ms: 60000 }));
  second.receive(t.event(8, 'player_back', { seat: 0 }));
  second.receive({ type: 'ack', id: resync.id, seq: 8 });
  await settle();
  assert.equal(t.client.status, STATUS.READY);
  const again = second.last('play');
  assert.deepEqual(again, play, 'the same message with the same id');
  assert.equal(second.sent.filter((m) => m.type === 'chat').length, 1, 'the chat made while away goes out once');
  second.receive({ type: 'ack', id: play.id, seq: 6, duplicate: true });
  assert.equal((await played).duplicate, true);
  second.receive({ type: 'ack', id: second.last('chat').id, seq: 9 });
  await chat;
  assert.deepEqual(t.room.map((m) => m.seq), [5, 6, 7, 8]);
});

test('requests that are not safe to repeat fail when the connection drops', async () => {
  const t = setup();
  await inRoom(t, 5);
  const created = t.client.createRoom({ name: 'x' });
  t.socket().serverClose(1006);
  await assert.rejects(created, (error) => error.code === 'connection_lost');
});

test('backoff doubles up to its cap, and a welcome resets it', async () => {
  const t = setup({ random: () => 1 });
  const connected = t.client.connect({ name: 'Ann' });
  const delays = [];
  t.client.on('status', (status, detail) => status === STATUS.RECONNECTING && detail.delay && delays.push(detail.delay));
  for (let i = 0; i < 6; i += 1) {
    t.socket().serverClose(1006);
    t.clock.advance(10_000);
  }
  assert.deepEqual(delays, [1000, 2000, 4000, 8000, 8000, 8000]);
  await t.welcome();
  await connected;
  t.socket().serverClose(1006);
  assert.equal(delays.at(-1), 1000);
});

test('a server restart (shutting_down, 1001) is ridden through', async () => {
  const t = setup();
  await inRoom(t, 5);
  t.socket().receive({ type: 'shutting_down', message: 'restarting' });
  t.socket().serverClose(1001);
  assert.equal(t.client.status, STATUS.RECONNECTING);
  assert.equal(t.client.shuttingDown, true);
  t.clock.advance(1000);
  t.socket().readyState = 3;
  t.socket().serverClose(1006);
  t.clock.advance(2000);
  await t.welcome(t.socket(), { room: ROOM });
  const resync = t.socket().last('resync');
  t.snapshot(t.socket(), resync.id, 1500);
  await settle();
  assert.equal(t.client.status, STATUS.READY);
  assert.equal(t.room.at(-1).seq, 1500, 'a resync across a restart gets a snapshot');
});

test('no reconnect after 4001 (replaced) until asked', async () => {
  const t = setup();
  await inRoom(t, 5);
  t.socket().receive({ type: 'replaced' });
  t.socket().serverClose(4001);
  assert.equal(t.client.status, STATUS.REPLACED);
  t.clock.advance(60_000);
  assert.equal(t.sockets.length, 1);
  t.client.reconnect();
  assert.equal(t.sockets.length, 2);
  await t.welcome();
  assert.ok(t.socket().last('resync'), 'taking the game back resyncs the room');
});

test('no reconnect after 4004 (session ended); the token is forgotten', async () => {
  const t = setup();
  await inRoom(t, 5);
  const pending = t.client.bid(3);
  t.socket().serverClose(4004);
  assert.equal(t.client.status, STATUS.ENDED);
  assert.equal(t.storage.getItem('spades.token'), null);
  await assert.rejects(pending, (error) => error.code === 'session_ended');
  t.clock.advance(60_000);
  assert.equal(t.sockets.length, 1);
  await assert.rejects(t.client.ping(), (error) => error.code === 'closed');
});

test('after a claim, 4004 brings the client back with the new token', async () => {
  const t = setup();
  await inRoom(t, 5);
  t.client.switchToken('a_new');
  t.socket().serverClose(4004);
  assert.equal(t.sockets.length, 2);
  t.socket().open();
  assert.equal(t.socket().last('hello').token, 'a_new');
});

test('a refused token ends the session and rejects connect', async () => {
  const t = setup({ token: 'g_gone' });
  const connected = t.client.connect();
  t.socket().open();
  t.socket().receive({ type: 'error', id: t.socket().last('hello').id, code: 'bad_token', message: 'unknown' });
  await assert.rejects(connected, (error) => error.code === 'bad_token');
  assert.equal(t.client.status, STATUS.ENDED);
  assert.equal(t.storage.getItem('spades.token'), null);
  t.clock.advance(60_000);
  assert.equal(t.sockets.length, 1);
});

test('a room that closed while away is reported, and the client goes on', async () => {
  const t = setup();
  await inRoom(t, 5);
  const lost = [];
  t.client.on('room_lost', (event) => lost.push(event));
  t.socket().serverClose(1006);
  t.clock.advance(1000);
  await t.welcome();
  const resync = t.socket().last('resync');
  t.socket().receive({ type: 'error', id: resync.id, code: 'room_not_found', message: 'gone' });
  await settle();
  assert.equal(lost[0].room, ROOM);
  assert.equal(t.client.room, null);
  assert.equal(t.client.status, STATUS.READY);
});

test('the lobby and tournaments are watched again after a reconnect', async () => {
  const t = setup();
  const connected = t.client.connect({ name: 'Ann' });
  await t.welcome();
  await connected;
  const watched = Promise.all([t.client.watchLobby(), t.client.watchTournament('t-1')]);
  t.socket().serverClose(1006);
  t.clock.advance(1000);
  await t.welcome();
  const types = t.socket().sent.map((m) => m.type);
  assert.equal(types.filter((type) => type === 'watch_lobby').length, 1);
  const again = t.socket().last('watch_tournament');
  assert.equal(again.tournament, 't-1');
  t.socket().receive({ type: 'ack', id: t.socket().last('watch_lobby').id });
  t.socket().receive({ type: 'tournament', id: again.id, tournament: { id: 't-1' } });
  await watched;
});

test('a quiet connection is pinged, then given up', async () => {
  const clock = new FakeClock();
  const { FakeWebSocket, sockets } = fakeWebSocketClass();
  const client = new Client({
    url: 'ws://test/ws', WebSocket: FakeWebSocket, storage: memoryStorage(), random: () => 0,
    now: clock.now, setTimeout: clock.setTimeout, clearTimeout: clock.clearTimeout, heartbeatMs: 1000,
  });
  const connected = client.connect({ name: 'Ann' });
  sockets[0].open();
  sockets[0].receive({ type: 'welcome', id: sockets[0].last('hello').id, version: 1, player: PLAYER, token: 'g' });
  await connected;
  clock.advance(1000);
  assert.ok(sockets[0].last('ping'), 'a ping after a quiet interval');
  clock.advance(1000);
  assert.equal(sockets[0].closedWith, 1000, 'given up after two');
  assert.equal(client.status, STATUS.RECONNECTING);
});

test('errors without an id are reported, and rate_limited sends nothing again', async () => {
  const t = setup();
  await inRoom(t, 5);
  const errors = [];
  t.client.on('error', (error) => errors.push(error.code));
  t.client.play('2C');
  t.socket().receive({ type: 'error', code: 'rate_limited', message: 'slow down' });
  assert.deepEqual(errors, ['rate_limited']);
  t.clock.advance(1000);
  // The server reads a slowed connection's frames later rather than
  // dropping them, so the play is answered in its turn, once.
  assert.equal(t.socket().sent.filter((m) => m.type === 'play').length, 1);
});

test('a room moving to another server (1012, then server_busy) is waited for, not lost', async () => {
  const t = setup();
  await inRoom(t, 5);
  const lost = [];
  t.client.on('room_lost', (event) => lost.push(event));
  t.socket().serverClose(1012);
  t.clock.advance(1000);
  await t.welcome();
  const first = t.socket().last('resync');
  t.socket().receive({ type: 'error', id: first.id, code: 'server_busy', message: 'moving' });
  await settle();
  assert.equal(t.client.room, ROOM, 'the room is kept while it moves');
  t.clock.advance(1000);
  const second = t.socket().last('resync');
  assert.notEqual(second.id, first.id, 'the resync is asked again');
  assert.equal(second.last_seq, 5);
  t.snapshot(t.socket(), second.id, 1500);
  await settle();
  assert.deepEqual(lost, []);
  assert.equal(t.client.status, STATUS.READY);
  assert.equal(t.room.at(-1).seq, 1500);
});

test('a hello refused for a suspension keeps the token and does not reconnect', async () => {
  const t = setup({ token: 'a_held' });
  const connected = t.client.connect();
  t.socket().open();
  t.socket().receive({
    type: 'error', id: t.socket().last('hello').id, code: 'suspended', message: 'you are suspended until 2026-11-29 16:47 UTC: cheating',
  });
  await assert.rejects(connected, (error) => error.code === 'suspended' && /cheating/.test(error.message));
  assert.equal(t.client.status, STATUS.FAILED);
  assert.equal(t.storage.getItem('spades.token'), 'a_held');
  t.clock.advance(60_000);
  assert.equal(t.sockets.length, 1);
});

test('after a 4009 close, signing in as a new guest still sends the kept token', async () => {
  const t = setup();
  await inRoom(t, 5);
  const notices = [];
  t.client.on('notice', (notice) => notices.push(notice));
  t.socket().receive({ type: 'notice', kind: 'suspended', message: 'You are suspended until …: cheating', until: '2026-11-29T16:47:40Z' });
  t.socket().serverClose(4009);
  assert.equal(notices[0].kind, 'suspended');
  assert.equal(t.client.status, STATUS.FAILED);
  t.clock.advance(60_000);
  assert.equal(t.sockets.length, 1, 'no reconnect after 4009');
  // The page is asked for a new guest: the server must see the token, and say no.
  const again = t.client.connect({ name: 'Someone else' });
  t.socket().open();
  assert.equal(t.socket().last('hello').token, 'g_tok');
  t.socket().receive({ type: 'error', id: t.socket().last('hello').id, code: 'suspended', message: 'you are suspended' });
  await assert.rejects(again, (error) => error.code === 'suspended');
  assert.equal(t.storage.getItem('spades.token'), 'g_tok');
});

test('once welcomed again, a new guest is a new guest', async () => {
  const t = setup({ token: 'g_tok' });
  const first = t.client.connect();
  t.socket().open();
  t.socket().receive({ type: 'error', id: t.socket().last('hello').id, code: 'banned', message: 'banned' });
  await assert.rejects(first);
  // The ban was lifted: the kept token is welcomed, and the page may then start afresh.
  const second = t.client.connect();
  await t.welcome();
  await second;
  assert.equal(t.client.keptOut, null);
  const third = t.client.connect({ name: 'Ann' });
  t.socket().open();
  assert.equal(t.socket().last('hello').token, undefined);
  assert.equal(t.socket().last('hello').name, 'Ann');
  t.socket().receive({ type: 'welcome', id: t.socket().last('hello').id, version: 1, player: PLAYER, token: 'g_new' });
  await third;
});

test('a player removed from the room, or a room a moderator closed, is out of it', async () => {
  for (const code of ['removed', 'room_ended']) {
    const t = setup();
    await inRoom(t, 5);
    const errors = [];
    t.client.on('error', (error) => errors.push(error.code));
    t.socket().receive({ type: 'error', code, message: 'out' });
    assert.deepEqual(errors, [code]);
    assert.equal(t.client.room, null, code);
    // A reconnect does not try to come back to it.
    t.socket().serverClose(1006);
    t.clock.advance(1000);
    await t.welcome();
    assert.equal(t.socket().last('resync'), undefined, code);
  }
});

test('a rematch is asked plainly, or on the same deals', async () => {
  const t = setup();
  await inRoom(t);
  t.client.rematch();
  assert.deepEqual({ ...t.socket().last('rematch'), id: undefined }, { type: 'rematch', id: undefined });
  t.client.rematch(true);
  assert.deepEqual({ ...t.socket().last('rematch'), id: undefined }, { type: 'rematch', id: undefined, same_deals: true });
});
