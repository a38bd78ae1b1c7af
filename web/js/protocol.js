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
//
// The Client's methods are divided among three modules, each a class
// built on the one before: protocol-connection.js (the socket,
// reconnecting with backoff, the handshake, the close codes),
// protocol-requests.js (ids, sending, replies matched to requests) and
// protocol-room.js (events in order, resync). Here are its state and its
// one method per message; this module stays the one to import from.

import { defaultStorage, STATUS } from './protocol-connection.js';
import { randomPrefix } from './protocol-requests.js';
import { RoomEvents } from './protocol-room.js';

export { PROTOCOL_VERSION } from './protocol-connection.js';
export { STATUS };
export { ProtocolError } from './protocol-requests.js';

export class Client extends RoomEvents {
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
    super();
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
    /** Resyncs answered `server_busy` in a row (see `RESYNC_TRIES` in protocol-room.js). */
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
    /**
     * Set when a moderator keeps this player out (a `hello` refused
     * `suspended` or `banned`, or a 4009 close): `{code, message}`. While
     * it is set, the kept token goes with every `hello`, even one that
     * names a new guest, so that the server refuses it rather than this
     * page starting someone new.
     */
    this.keptOut = null;
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

  /**
   * @param {{name?: string, rules?: object, private?: boolean, bots?: 'beginner'|'basic'|'strong'|'expert', rated?: boolean}} options
   *   `rated` only for a public room (a private one is always casual)
   */
  createRoom(options = {}) { return this.request('create_room', options); }
  joinRoom(room) { return this.request('join_room', { room }); }
  leaveRoom() { return this.request('leave_room'); }
  sit(seat) { return this.request('sit', seat === undefined || seat === null ? {} : { seat }); }
  stand() { return this.request('stand'); }
  startGame() { return this.request('start_game'); }
  /** Seats a bot in `seat` (or the first free one) of `level` (or the room's). */
  addBot(seat, level) {
    const body = {};
    if (seat !== undefined && seat !== null) body.seat = seat;
    if (level) body.level = level;
    return this.request('add_bot', body);
  }
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
  /** One of the set phrases (protocol.md, `quick_chat`). */
  quickChat(phrase) { return this.request('quick_chat', { phrase }); }
  /**
   * After a game, asks for another with the same seats; with `sameDeals`,
   * for one dealt the finished game's hands again, everyone moved one seat
   * to the left (protocol.md, "Play these deals again"). The field is
   * left out of a plain rematch, which a server from before it reads as
   * it always did.
   */
  rematch(sameDeals = false) { return this.request('rematch', sameDeals ? { same_deals: true } : {}); }
  /** Invites a friend (his id) to this room (`table`) or to quick play as partners (`queue`). */
  invite(player, to, rules = 'classic') { return this.request('invite', { player, to, rules }); }

  /** Reports a player of the room to the moderators; the ack comes once the report is stored. */
  report(player, reason) { return this.request('report', { player, reason }); }
  /** The owner of a private room removes a player from it for good. */
  removePlayer(player) { return this.request('remove_player', { player }); }
}
