// A client of the Spades WebSocket protocol (protocol.md), for the browser
// and for Node. It says `hello`, matches replies to requests by `id`,
// hands a room's events on in `seq` order, and comes back after a lost
// connection: it reconnects with backoff, says `hello` with the session
// token, sends `resync` with the last `seq` it saw, and then sends again,
// with the same ids, the game actions that were never answered. It knows
// nothing of the DOM; under Node, pass a WebSocket constructor (Node 22
// has one built in, Node 20 with --experimental-websocket).
//
//   const client = new Client({ url: 'ws://127.0.0.1:8080/ws' });
//   client.on('room', (message) => state.apply(message));
//   await client.connect({ name: 'Ann' });
//   await client.createRoom({ name: 'Friday night' });

export const PROTOCOL_VERSION = 1;

// Requests the server recognises when they come again with the same id
// (it answers `ack` with `duplicate`), so they are safe to send again
// after a lost connection. Chat is remembered only until a restart, which
// at worst shows a line twice.
const RETRY_SAFE = new Set(['bid', 'look', 'pass_cards', 'play', 'chat']);

// Requests that change nothing when they are repeated, so they too are
// simply sent again after a lost connection.
const IDEMPOTENT = new Set(['ping', 'list_rooms', 'watch_lobby', 'unwatch_lobby', 'watch_tournament', 'unwatch_tournament', 'join_room']);

// Close codes after which reconnecting would only fail the same way: the
// page itself broke the protocol.
const FATAL_CLOSES = new Set([1002, 1007, 1009]);

/**
 * How often, and how far apart, a resync answered `server_busy` is tried
 * again: in a cluster, a room whose server is gone opens on another within
 * seconds.
 */
const RESYNC_TRIES = 20;
const RESYNC_RETRY_MS = 750;

export const STATUS = Object.freeze({
  IDLE: 'idle',
  CONNECTING: 'connecting',
  READY: 'ready',
  RECONNECTING: 'reconnecting',
  REPLACED: 'replaced',
  ENDED: 'ended',
  FAILED: 'failed',
  CLOSED: 'closed',
});

/** A request the server refused, or one that could not be answered. */
export class ProtocolError extends Error {
  constructor(code, message = code, reply = null) {
    super(message);
    this.name = 'ProtocolError';
    this.code = code;
    this.reply = reply;
    this.source = 'ws';
  }
}

function memoryStorage() {
  const items = new Map();
  return {
    getItem: (key) => (items.has(key) ? items.get(key) : null),
    setItem: (key, value) => items.set(key, String(value)),
    removeItem: (key) => items.delete(key),
  };
}

// Reading localStorage throws in some private modes, so a failure falls
// back to memory: the session then lasts as long as the page.
function defaultStorage() {
  try {
    if (globalThis.localStorage) return globalThis.localStorage;
  } catch {
    // Fall through to memory.
  }
  return memoryStorage();
}

// Ids are strings with a random prefix, as protocol.md advises for a page
// that reloads: a reloaded page starts a new counter, and the prefix keeps
// its ids apart from those of the page before.
function randomPrefix(random) {
  let prefix = '';
  for (let i = 0; i < 8; i += 1) prefix += Math.floor(random() * 36).toString(36);
  return `${prefix}-`;
}

export class Client {
  /**
   * @param {object} options
   * @param {string} options.url  the WebSocket address, `ws://host:port/ws`
   * @param {Function} [options.WebSocket]  defaults to globalThis.WebSocket
   * @param {{getItem: Function, setItem: Function, removeItem: Function}} [options.storage]
   *   where the session token is kept; defaults to localStorage, else memory
   * @param {string} [options.tokenKey]  the storage key of the token
   * @param {{base?: number, max?: number}} [options.backoff]  reconnect delays in ms
   * @param {number} [options.heartbeatMs]  a quiet connection is pinged after this, and
   *   given up after twice this; 0 turns the check off
   */
  constructor(options = {}) {
    this.url = options.url;
    this.WebSocket = options.WebSocket ?? globalThis.WebSocket;
    this.storage = options.storage ?? defaultStorage();
    this.tokenKey = options.tokenKey ?? 'spades.token';
    this.random = options.random ?? Math.random;
    this.now = options.now ?? (() => Date.now());
    this.setTimer = options.setTimeout ?? ((fn, ms) => globalThis.setTimeout(fn, ms));
    this.clearTimer = options.clearTimeout ?? ((handle) => globalThis.clearTimeout(handle));
    this.backoff = { base: 500, max: 15000, ...options.backoff };
    this.heartbeatMs = options.heartbeatMs ?? 25000;
    this.idPrefix = options.idPrefix ?? randomPrefix(this.random);
    if (!this.WebSocket) {
      throw new Error('no WebSocket: pass one as options.WebSocket (Node 20 needs --experimental-websocket)');
    }

    this.listeners = new Map();
    this.status = STATUS.IDLE;
    this.socket = null;
    this.nextId = 1;
    this.token = this.storage.getItem(this.tokenKey);
    this.name = null;
    this.player = null;
    this.welcomeRoom = null;
    this.everWelcomed = false;
    this.welcomes = 0;
    this.helloToken = null;
    this.shuttingDown = false;

    // The room this connection is in and the last event of it handed on.
    this.room = null;
    this.lastSeq = 0;
    // Events and turns that came ahead of a gap, waiting for it to fill.
    this.heldEvents = new Map();
    this.heldTurns = [];
    this.resyncing = false;
    /** Resyncs answered `server_busy` in a row (see `RESYNC_TRIES`). */
    this.resyncTries = 0;

    // Requests by id: {message, resolve, reject, retry, sent, internal}.
    this.pending = new Map();
    this.watchingLobby = false;
    this.watchedTournaments = new Set();

    this.attempt = 0;
    this.reconnectTimer = null;
    this.heartbeatTimer = null;
    this.lastHeard = 0;
    this.stopped = false;
    this.firstWelcome = null;
  }

  // Listeners.

  /** Calls `listener` for each `type`; returns a function that stops it. */
  on(type, listener) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type).add(listener);
    return () => this.listeners.get(type)?.delete(listener);
  }

  emit(type, ...args) {
    for (const listener of [...(this.listeners.get(type) ?? [])]) {
      try {
        listener(...args);
      } catch (error) {
        // A listener's bug must not stop the messages after it, but it
        // should not go unseen either.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  setStatus(status, detail = {}) {
    this.status = status;
    this.emit('status', status, detail);
  }

  // The session token.

  setToken(token) {
    this.token = token;
    if (token) this.storage.setItem(this.tokenKey, token);
    else this.storage.removeItem(this.tokenKey);
  }

  // Opening and closing.

  /**
   * Opens the connection: `hello` as a new guest called `name`, or with
   * `token`, or with the token kept in storage. Resolves with the first
   * `welcome`; rejects when the server refuses the hello (`bad_name`,
   * `bad_token`). A server that cannot be reached is tried again with
   * backoff meanwhile.
   */
  connect({ name, token } = {}) {
    if (token) {
      this.setToken(token);
    } else if (name) {
      // A name asks for a new guest, whatever token was kept before.
      this.setToken(null);
      this.name = name;
    }
    this.stopped = false;
    const promise = new Promise((resolve, reject) => {
      this.firstWelcome = { resolve, reject };
    });
    this.open();
    return promise;
  }

  /**
   * Uses a new session token (after `POST /api/claim`, say). The server
   * ends the old session's connection with 4004; this comes back with the
   * new token whether that close came before or comes after.
   */
  switchToken(token) {
    this.setToken(token);
    if (this.status === STATUS.ENDED) {
      this.stopped = false;
      this.open();
    }
  }

  /** Reconnects now: after `replaced` to take the game back here, or when the network returns. */
  reconnect() {
    if (this.stopped) return;
    this.attempt = 0;
    if (this.socket) this.drop(this.socket, 1006);
    this.open();
  }

  /** Closes the connection for good; pending requests fail with `closed`. */
  close() {
    this.stopped = true;
    this.clearTimers();
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      detach(socket);
      try {
        socket.close(1000);
      } catch {
        // Already closed.
      }
    }
    this.failPending(() => true, 'closed');
    // A later connect may be another player's: nothing of this session's
    // room or subscriptions carries over.
    this.enterRoom(null, 0);
    this.watchingLobby = false;
    this.watchedTournaments.clear();
    this.setStatus(STATUS.CLOSED);
  }

  open() {
    this.clearTimers();
    if (this.socket) {
      const old = this.socket;
      this.socket = null;
      detach(old);
      try {
        old.close(1000);
      } catch {
        // Already closed.
      }
    }
    this.setStatus(this.everWelcomed ? STATUS.RECONNECTING : STATUS.CONNECTING, { attempt: this.attempt });
    let socket;
    try {
      socket = new this.WebSocket(this.url);
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    socket.onopen = () => socket === this.socket && this.sayHello();
    socket.onmessage = (event) => socket === this.socket && this.receive(event.data);
    socket.onclose = (event) => socket === this.socket && this.lost(event.code, event.reason);
    socket.onerror = () => {};
  }

  clearTimers() {
    if (this.reconnectTimer !== null) this.clearTimer(this.reconnectTimer);
    if (this.heartbeatTimer !== null) this.clearTimer(this.heartbeatTimer);
    this.reconnectTimer = null;
    this.heartbeatTimer = null;
  }

  scheduleReconnect() {
    const cap = Math.min(this.backoff.max, this.backoff.base * 2 ** this.attempt);
    // Half the delay is fixed and half random, so that the clients of a
    // restarted server do not all come back in the same instant, and none
    // comes back at once after a refusal.
    const delay = Math.round(cap / 2 + (this.random() * cap) / 2);
    this.attempt += 1;
    this.setStatus(STATUS.RECONNECTING, { delay, attempt: this.attempt, shuttingDown: this.shuttingDown });
    this.reconnectTimer = this.setTimer(() => {
      this.reconnectTimer = null;
      this.open();
    }, delay);
  }

  // The handshake.

  sayHello() {
    this.lastHeard = this.now();
    const fields = { version: PROTOCOL_VERSION };
    if (this.token) fields.token = this.token;
    else fields.name = this.name ?? 'Guest';
    this.helloToken = this.token;
    this.send('hello', fields, { internal: true }).then(
      (welcome) => this.welcomed(welcome),
      (error) => this.helloRefused(error),
    );
  }

  welcomed(welcome) {
    this.attempt = 0;
    this.shuttingDown = false;
    this.everWelcomed = true;
    this.welcomes += 1;
    this.player = welcome.player;
    this.welcomeRoom = welcome.room ?? null;
    this.setToken(welcome.token);
    // The session this connection runs under: a 4004 for it ends the
    // session, unless the token has changed since (a claim).
    this.helloToken = welcome.token;
    this.emit('welcome', welcome);
    if (this.firstWelcome) {
      this.firstWelcome.resolve(welcome);
      this.firstWelcome = null;
    }
    if (this.room) this.resync(true);
    else this.ready();
  }

  helloRefused(error) {
    if (error.code === 'connection_lost') return;
    if (error.code === 'store_unavailable') {
      // The store is down and this token is not known yet: wait and retry.
      if (this.socket) this.drop(this.socket, 1006);
      return;
    }
    if (error.code === 'bad_token') this.setToken(null);
    const fatal = error.code === 'bad_token' ? STATUS.ENDED : STATUS.FAILED;
    this.stopped = true;
    if (this.socket) {
      const socket = this.socket;
      this.socket = null;
      detach(socket);
      socket.close(1000);
    }
    this.failPending(() => true, error.code);
    this.setStatus(fatal, { code: error.code, message: error.message });
    if (this.firstWelcome) {
      this.firstWelcome.reject(error);
      this.firstWelcome = null;
    }
  }

  ready() {
    this.setStatus(STATUS.READY, { reconnected: this.welcomes > 1 });
    const waiting = (type, field, value) => [...this.pending.values()]
      .some((entry) => entry.message.type === type && (!field || entry.message[field] === value));
    if (this.watchingLobby && !waiting('watch_lobby')) this.send('watch_lobby', {}, { internal: true }).catch(() => {});
    for (const id of this.watchedTournaments) {
      if (!waiting('watch_tournament', 'tournament', id)) {
        this.send('watch_tournament', { tournament: id }, { internal: true }).catch(() => {});
      }
    }
    for (const entry of this.pending.values()) {
      if (!entry.sent) this.write(entry);
    }
    this.armHeartbeat();
  }

  // Sending.

  newId() {
    const id = `${this.idPrefix}${this.nextId}`;
    this.nextId += 1;
    return id;
  }

  /**
   * Sends a request and resolves with its reply, or rejects with a
   * ProtocolError carrying the server's error code. A request made while
   * the connection is down is sent once it is back.
   */
  request(type, fields = {}) {
    if (this.stopped) {
      return Promise.reject(new ProtocolError('closed', 'the connection is closed'));
    }
    return this.send(type, fields, {});
  }

  send(type, fields, { internal = false }) {
    const id = this.newId();
    const message = { type, id, ...fields };
    return new Promise((resolve, reject) => {
      const retry = RETRY_SAFE.has(type) || IDEMPOTENT.has(type);
      const entry = { message, resolve, reject, retry, sent: false, internal };
      this.pending.set(id, entry);
      // Handshake messages go out at once; the others wait for the handshake.
      if (internal || this.status === STATUS.READY) this.write(entry);
    });
  }

  write(entry) {
    const socket = this.socket;
    if (!socket || socket.readyState !== 1) return;
    socket.send(JSON.stringify(entry.message));
    entry.sent = true;
  }

  failPending(which, code) {
    for (const [id, entry] of this.pending) {
      if (which(entry)) {
        this.pending.delete(id);
        entry.reject(new ProtocolError(code));
      }
    }
  }

  // Receiving.

  receive(data) {
    this.lastHeard = this.now();
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      this.emit('error', new ProtocolError('bad_reply'));
      return;
    }
    this.emit('message', message);
    switch (message.type) {
      case 'snapshot':
        this.takeSnapshot(message);
        break;
      case 'turn':
        this.takeTurn(message);
        break;
      case 'replaced':
        this.emit('replaced', message);
        break;
      case 'shutting_down':
        this.shuttingDown = true;
        this.emit('shutting_down', message);
        break;
      default:
        if (typeof message.seq === 'number' && typeof message.room === 'string') {
          this.takeEvent(message);
        } else if (!['welcome', 'ack', 'pong', 'error'].includes(message.type)) {
          this.emit(message.type, message);
        }
    }
    this.answer(message);
  }

  answer(message) {
    const id = message.id;
    const entry = id !== undefined ? this.pending.get(id) : undefined;
    if (!entry) {
      if (message.type === 'error') this.refusedUnmatched(message);
      return;
    }
    this.pending.delete(id);
    if (message.type === 'error') {
      entry.reject(new ProtocolError(message.code, message.message, message));
      return;
    }
    if (entry.message.type === 'leave_room') this.enterRoom(null, 0);
    entry.resolve(message);
  }

  refusedUnmatched(message) {
    // A `rate_limited` notice is reported like any other: the server drops
    // nothing over the rate, it reads the next frames later, so the
    // actions in flight are answered in their turn and none is resent.
    this.emit('error', new ProtocolError(message.code, message.message, message));
  }

  // A room's events, in order.

  enterRoom(room, seq) {
    if (room !== this.room) {
      this.heldEvents.clear();
      this.heldTurns = [];
    }
    this.room = room;
    this.lastSeq = seq;
  }

  takeSnapshot(message) {
    this.enterRoom(message.state.room, message.seq);
    for (const seq of [...this.heldEvents.keys()]) {
      if (seq <= message.seq) this.heldEvents.delete(seq);
    }
    // The snapshot holds the turn as of its seq; older turns are stale.
    this.heldTurns = this.heldTurns.filter((turn) => turn.after > message.seq);
    this.emit('room', message);
    this.emit('snapshot', message);
    this.drain();
  }

  takeEvent(message) {
    if (message.room !== this.room || message.seq <= this.lastSeq) return;
    if (message.seq === this.lastSeq + 1) {
      this.handOn(message);
      this.drain();
      return;
    }
    this.heldEvents.set(message.seq, message);
    if (!this.resyncing && this.status === STATUS.READY) this.resync(false);
  }

  takeTurn(message) {
    if (message.room !== this.room) return;
    if (message.after <= this.lastSeq) {
      this.emit('room', message);
      this.emit('turn', message);
    } else {
      this.heldTurns.push(message);
    }
  }

  handOn(message) {
    this.lastSeq = message.seq;
    this.emit('room', message);
    this.emit(message.type, message);
  }

  drain() {
    while (this.heldEvents.has(this.lastSeq + 1)) {
      const next = this.heldEvents.get(this.lastSeq + 1);
      this.heldEvents.delete(this.lastSeq + 1);
      this.handOn(next);
    }
    const due = this.heldTurns.filter((turn) => turn.after <= this.lastSeq);
    this.heldTurns = this.heldTurns.filter((turn) => turn.after > this.lastSeq);
    for (const turn of due) {
      this.emit('room', turn);
      this.emit('turn', turn);
    }
  }

  /**
   * Asks for the events after the last one handed on. After a reconnect
   * (`connecting`), the connection is ready once it is answered.
   */
  resync(connecting) {
    const room = this.room;
    this.resyncing = true;
    this.send('resync', { room, last_seq: this.lastSeq }, { internal: true }).then(
      () => {
        this.resyncing = false;
        this.resyncTries = 0;
        this.drain();
        if (connecting) this.ready();
        else if (this.heldEvents.size) this.resync(false);
      },
      (error) => {
        this.resyncing = false;
        if (error.code === 'connection_lost') return;
        // In a cluster, a room whose server is gone opens on another within
        // seconds; until then its server answers server_busy.
        if (error.code === 'server_busy' && this.room === room && this.resyncTries < RESYNC_TRIES) {
          this.resyncTries += 1;
          this.setTimer(() => {
            if (this.room === room && this.socket) this.resync(connecting);
          }, RESYNC_RETRY_MS);
          return;
        }
        this.resyncTries = 0;
        // The room closed while we were away, or cannot be entered.
        if (this.room === room) this.enterRoom(null, 0);
        this.emit('room_lost', { room, error });
        if (connecting) this.ready();
      },
    );
  }

  // Losing the connection.

  lost(code, reason = '') {
    const socket = this.socket;
    this.socket = null;
    if (socket) detach(socket);
    this.clearTimers();
    this.resyncing = false;
    // The handshake dies with its socket. Game actions that went out are
    // sent again with the same id after the resync; other requests that
    // went out cannot be known to be safe to repeat, so they fail.
    this.failPending((entry) => entry.internal || (entry.sent && !entry.retry), 'connection_lost');
    for (const entry of this.pending.values()) entry.sent = false;
    this.emit('close', { code, reason });
    if (this.stopped) {
      this.setStatus(STATUS.CLOSED);
      return;
    }
    if (code === 4001) {
      this.setStatus(STATUS.REPLACED, { code });
      return;
    }
    if (code === 4004) {
      if (this.token && this.token !== this.helloToken) {
        // The guest claimed his name: come back at once with the new token.
        this.open();
        return;
      }
      this.setToken(null);
      this.stopped = true;
      this.failPending(() => true, 'session_ended');
      this.setStatus(STATUS.ENDED, { code });
      return;
    }
    if (FATAL_CLOSES.has(code)) {
      this.stopped = true;
      this.failPending(() => true, 'closed');
      this.setStatus(STATUS.FAILED, { code });
      return;
    }
    this.scheduleReconnect();
  }

  /** Gives up a socket without waiting for its closing handshake. */
  drop(socket, code) {
    if (socket !== this.socket) return;
    try {
      socket.close(1000);
    } catch {
      // Already closed.
    }
    this.lost(code);
  }

  // A connection that has gone quiet may be dead without the browser
  // knowing (a laptop that slept, a proxy that dropped it). The server
  // pings us, but nothing tells us when it is the server that is gone.
  armHeartbeat() {
    if (!this.heartbeatMs) return;
    this.heartbeatTimer = this.setTimer(() => {
      this.heartbeatTimer = null;
      const socket = this.socket;
      if (!socket || this.status !== STATUS.READY) return;
      const quiet = this.now() - this.lastHeard;
      if (quiet >= 2 * this.heartbeatMs) {
        this.drop(socket, 1006);
        return;
      }
      if (quiet >= this.heartbeatMs) this.send('ping', {}, { internal: true }).catch(() => {});
      this.armHeartbeat();
    }, this.heartbeatMs);
  }

  // One method per client message of protocol.md.

  ping() { return this.request('ping'); }
  listRooms() { return this.request('list_rooms'); }

  watchLobby() {
    this.watchingLobby = true;
    return this.request('watch_lobby');
  }

  unwatchLobby() {
    this.watchingLobby = false;
    return this.request('unwatch_lobby');
  }

  /** @param {{name?: string, rules?: object, private?: boolean, bots?: 'basic'|'strong'}} options */
  createRoom(options = {}) { return this.request('create_room', options); }
  joinRoom(room) { return this.request('join_room', { room }); }
  leaveRoom() { return this.request('leave_room'); }
  sit(seat) { return this.request('sit', seat === undefined || seat === null ? {} : { seat }); }
  stand() { return this.request('stand'); }
  startGame() { return this.request('start_game'); }
  addBot(seat) { return this.request('add_bot', seat === undefined || seat === null ? {} : { seat }); }
  removeBot(seat) { return this.request('remove_bot', { seat }); }

  queue({ rules = 'classic', partner } = {}) {
    return this.request('queue', partner ? { rules, partner } : { rules });
  }

  leaveQueue() { return this.request('leave_queue'); }

  watchTournament(tournament) {
    this.watchedTournaments.add(tournament);
    return this.request('watch_tournament', { tournament });
  }

  unwatchTournament(tournament) {
    this.watchedTournaments.delete(tournament);
    return this.request('unwatch_tournament', { tournament });
  }

  bid(bid, blind = false) { return this.request('bid', { bid, blind }); }
  look() { return this.request('look'); }
  passCards(cards) { return this.request('pass_cards', { cards }); }
  play(card) { return this.request('play', { card }); }
  chat(text) { return this.request('chat', { text }); }
}

function detach(socket) {
  socket.onopen = null;
  socket.onmessage = null;
  socket.onclose = null;
  socket.onerror = null;
}
