// The Client's requests (see protocol.js, which puts the Client
// together): their ids, sending them, which are safe to send again after
// a lost connection, the messages received, and replies matched to their
// requests by `id`. Built on the connection's class; the room's builds on
// this one.

import { Connection, STATUS } from './protocol-connection.js';

// Requests the server recognises when they come again with the same id
// (it answers `ack` with `duplicate`), so they are safe to send again
// after a lost connection. Chat is remembered only until a restart, which
// at worst shows a line twice.
const RETRY_SAFE = new Set(['bid', 'look', 'pass_cards', 'play', 'chat']);

// Requests that change nothing when they are repeated, so they too are
// simply sent again after a lost connection.
const IDEMPOTENT = new Set(['ping', 'list_rooms', 'watch_lobby', 'unwatch_lobby', 'watch_tournament', 'unwatch_tournament', 'join_room']);

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

// Ids are strings with a random prefix, as protocol.md advises for a page
// that reloads: a reloaded page starts a new counter, and the prefix keeps
// its ids apart from those of the page before.
export function randomPrefix(random) {
  let prefix = '';
  for (let i = 0; i < 8; i += 1) prefix += Math.floor(random() * 36).toString(36);
  return `${prefix}-`;
}

/** The Client's methods that send requests and read what comes back. */
export class Requests extends Connection {
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
    // Put out of the room by its owner or by a moderator: the room no
    // longer writes to this connection, and a resync would be refused.
    if ((message.code === 'removed' || message.code === 'room_ended') && this.room) this.enterRoom(null, 0);
    // A `rate_limited` notice is reported like any other: the server drops
    // nothing over the rate, it reads the next frames later, so the
    // actions in flight are answered in their turn and none is resent.
    this.emit('error', new ProtocolError(message.code, message.message, message));
  }
}
