// The Client's connection (see protocol.js, which puts the Client
// together): its listeners and status, the session token and where it is
// kept, opening the WebSocket and closing it, reconnecting with backoff
// and jitter, the `hello` handshake, the heartbeat, and what each close
// code means. Only the Client is meant to be made: this class and those
// built on it (protocol-requests.js, protocol-room.js) divide its methods
// by what they do, call one another's through `this`, and share the state
// declared in the Client's constructor.

export const PROTOCOL_VERSION = 1;

// Close codes after which reconnecting would only fail the same way: the
// page itself broke the protocol.
// 4009: a moderator suspended or banned the player; coming back would be
// refused until it ends, and the notice before the close said when.
const FATAL_CLOSES = new Set([1002, 1007, 1009, 4009]);

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
export function defaultStorage() {
  try {
    if (globalThis.localStorage) return globalThis.localStorage;
  } catch {
    // Fall through to memory.
  }
  return memoryStorage();
}

/** The Client's methods that keep its connection. */
export class Connection {
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
      // A name asks for a new guest, whatever token was kept before;
      // except the token of a player a moderator keeps out, which goes
      // with the hello so that the server says no (protocol.md,
      // "Moderation": a hello with a token and a name is the token's).
      if (!(this.keptOut && this.token)) this.setToken(null);
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
    this.keptOut = null;
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
    // A suspended or banned player keeps his token: it is his, and a new
    // guest in its place would walk round the moderator's decision.
    if (error.code === 'suspended' || error.code === 'banned') this.keptOut = { code: error.code, message: error.message };
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
    if (code === 4009) this.keptOut ??= { code, message: reason };
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
}

function detach(socket) {
  socket.onopen = null;
  socket.onmessage = null;
  socket.onclose = null;
  socket.onerror = null;
}
