// What one seat (or a spectator) knows of a room, rebuilt from the
// snapshot and the events that follow it. This mirrors crates/client's
// TableState and adds what a person at the table wants to see: names,
// who is away, the hand scores, the chat. Nothing here touches the DOM or
// the network, so the tests can feed it recorded sessions.

import { fullPackForThree, sortForDisplay, suitOf } from './cards.js';

// A three-player game (`players: 3`) is played in seats 0 to 2. Without
// rules (before a game is known) the table is taken to have four seats.
// Who plays with whom is the server's to say: a room's snapshot carries its
// `teams`, which TableState keeps.
export const playersOf = (rules) => (rules?.players === 3 ? 3 : 4);
export const seatsOf = (rules) => Array.from({ length: playersOf(rules) }, (_, seat) => seat);

/**
 * The teams the server would send for these rules, in its order: with
 * partners (any rule set but `partners: false`), seats 0 and 2 against 1
 * and 3; in solo and at three, each seat a team of its own, numbered as the
 * seat. Only for pages that show a game without a room's snapshot (a
 * replay or a tournament read over HTTP); a table takes `teams` from its
 * snapshot.
 */
export function teamsFromRules(rules) {
  if (rules?.partners === false || playersOf(rules) === 3) return seatsOf(rules).map((seat) => [seat]);
  return [[0, 2], [1, 3]];
}

export const nextSeat = (seat, rules) => (seat + 1) % playersOf(rules);
/** Cards dealt to each player: 13, or 17 for three (18 with the jokers). */
export const handSizeOf = (rules) => {
  if (playersOf(rules) === 4) return 13;
  return fullPackForThree(rules?.deck) ? 18 : 17;
};

// Events that an action of a seat causes, with the seat that acted. They
// confirm an action of ours, and they end that seat's part of the turn.
function actorOf(message) {
  switch (message.type) {
    case 'bid_made':
    case 'hand_revealed':
    case 'pass_chosen':
    case 'card_played':
      return message.seat;
    case 'cards_passed':
      return message.from;
    default:
      return null;
  }
}

const MAX_CHAT = 200;
const MAX_LOG = 40;

export class TableState {
  /**
   * @param {{me?: string|null, now?: () => number}} options
   *   `me` is this client's player id (from its welcome), used to find its
   *   seat; `now` is the clock, replaceable in tests.
   */
  constructor({ me = null, now = () => Date.now() } = {}) {
    this.me = me;
    this.now = now;
    this.clear();
  }

  /** Forgets the room, as when the player leaves it. */
  clear() {
    this.room = null;
    this.name = '';
    this.private = false;
    // Whether the room's games count for the ratings; a server from
    // before rated rooms sends nothing, and its rooms are casual.
    this.rated = false;
    this.rules = null;
    this.botLevel = 'basic';
    // The table's pace and full turn clock; a server from before speeds
    // sends neither.
    this.speed = 'normal';
    this.turnSeconds = null;
    this.status = 'waiting';
    this.owner = null;
    this.seats = [null, null, null, null];
    this.spectators = 0;
    this.games = 0;
    this.lastSeq = 0;
    this.seat = null;
    // The seats of each team, in team order, as the snapshot says.
    this.teams = [];
    this.chat = [];
    this.log = [];
    // The last trick won and how many were won while watching this room.
    // They outlive the hand, so that a view can still show the hand's
    // last trick when the next hand was dealt in the same breath.
    this.lastWon = null;
    this.wonCount = 0;
    // When the last trick was won, on this.now(), so that a view can
    // leave it on the felt a moment.
    this.wonAt = 0;
    this.resetGame();
  }

  resetGame() {
    this.gameNumber = null;
    this.gameId = null;
    this.phase = 'waiting';
    // One running total per team of the room's rules, zero before a game.
    this.score = this.teams.map(() => 0);
    this.bags = this.teams.map(() => 0);
    this.handScores = [];
    this.winner = null;
    this.abandoned = false;
    /**
     * After a game, who asked for a rematch and of which kind: `{asked:
     * [seat], waitingFor: [seat], sameDeals}`, `sameDeals` true for one on
     * the finished game's deals; null before anyone asked.
     */
    this.rematch = null;
    this.resetHand();
  }

  resetHand() {
    this.hand = null;
    this.dealer = null;
    this.cards = [];
    this.hidden = false;
    this.blindNilOffered = false;
    this.handSizes = seatsOf(this.rules).map(() => 0);
    this.bids = seatsOf(this.rules).map(() => null);
    this.passes = [];
    this.exchanges = [];
    this.passChosen = [];
    this.myPassChosen = null;
    this.trick = null;
    this.tricks = [];
    this.tricksWon = seatsOf(this.rules).map(() => 0);
    this.spadesBroken = false;
    this.turn = null;
    this.pending = null;
    this.lastActedTurn = null;
  }

  /**
   * Folds one server message into the state. Returns false when a room
   * event skipped sequence numbers, which means something was missed and
   * the caller should resync (protocol.js does that before it gets here).
   */
  apply(message) {
    if (message.type !== 'snapshot' && message.room !== undefined && this.room !== null
      && message.room !== this.room) {
      return true;
    }
    let inOrder = true;
    // Replies such as `ack` carry a seq too, but only events carry a room.
    if (typeof message.seq === 'number' && typeof message.room === 'string' && message.type !== 'snapshot') {
      inOrder = this.lastSeq === 0 || message.seq === this.lastSeq + 1;
      this.lastSeq = message.seq;
    }
    const actor = actorOf(message);
    if (actor !== null) {
      if (actor === this.seat) this.pending = null;
      this.endTurnOf(actor);
    }
    const handler = HANDLERS[message.type];
    if (handler) handler.call(this, message);
    return inOrder;
  }

  /** The seat acted: it no longer has to, until the next turn message says so. */
  endTurnOf(seat) {
    if (!this.turn) return;
    const seats = this.turn.seats.filter((s) => s !== seat);
    this.turn = seats.length ? { ...this.turn, seats } : null;
  }

  /**
   * Adds a line to the chat: `{seq, from, seat, text, hidden}` for what a
   * player said, `{seq, event, player, seat}` for what happened to a
   * player that the table should read in its flow (`removed`).
   */
  addChat(line) {
    this.chat.push(line);
    if (this.chat.length > MAX_CHAT) this.chat.shift();
  }

  addLog(entry) {
    this.log.push(entry);
    if (this.log.length > MAX_LOG) this.log.shift();
  }

  // Derived views. They only read the fields above.

  get isSpectator() {
    return this.seat === null;
  }

  get isOwner() {
    return Boolean(this.owner && this.me && this.owner.id === this.me);
  }

  get playing() {
    return this.status === 'playing';
  }

  get seatedCount() {
    return this.seats.filter(Boolean).length;
  }

  /** Whether the hand being played has no bids (the first, under `unbid_first_hand`). */
  get unbidHand() {
    return Boolean(this.rules?.unbid_first_hand) && this.hand === 0;
  }

  /** One's cards in the order they are shown. */
  get sortedHand() {
    return sortForDisplay(this.cards, this.rules?.deck);
  }

  /** Whether the last turn message asks this seat to act. */
  get myTurn() {
    return this.playing && this.seat !== null && this.turn !== null
      && this.turn.seats.includes(this.seat);
  }

  /** What this seat must do now, or null: `bid`, `blind_nil_or_look`, `pass` or `play`. */
  get expected() {
    return this.myTurn ? this.turn.expected : null;
  }

  /** The cards this seat may play now (empty when it is not its turn to play). */
  get legalCards() {
    if (this.expected !== 'play' || this.pending) return [];
    return this.turn.legal ?? [];
  }

  /** How many cards this seat must give now, or 0. */
  get passCount() {
    return this.expected === 'pass' && !this.pending ? (this.turn.passCount ?? 0) : 0;
  }

  /** Milliseconds left on the turn clock, or null when nobody's clock runs. */
  get clockLeft() {
    if (!this.turn || !this.playing) return null;
    return Math.max(0, this.turn.endsAt - this.now());
  }

  /** The last complete trick of this hand, or null. */
  get lastTrick() {
    return this.tricks.length ? this.tricks[this.tricks.length - 1] : null;
  }

  /** The passes this seat gave and got this hand, as card lists. */
  get exchange() {
    const gave = this.passes.filter((p) => p.from === this.seat).flatMap((p) => p.cards);
    const got = this.passes.filter((p) => p.to === this.seat).flatMap((p) => p.cards);
    return { gave, got };
  }

  /** The hand score of the last hand scored in this game, or null. */
  get lastHandScore() {
    return this.handScores.length ? this.handScores[this.handScores.length - 1] : null;
  }

  /** Whether some team has more than one seat. */
  get hasPartners() {
    return this.teams.some((team) => team.length > 1);
  }

  /** The team a seat plays for, or null. */
  teamOf(seat) {
    const team = this.teams.findIndex((seats) => seats.includes(seat));
    return team < 0 ? null : team;
  }

  /** A seat's partner, or null in solo and at three. */
  partnerOf(seat) {
    const team = this.teamOf(seat);
    return team === null ? null : (this.teams[team].find((other) => other !== seat) ?? null);
  }

  /** A seat's display name, or a placeholder for an empty seat. */
  nameOf(seat) {
    return this.seats[seat]?.player.name ?? `Seat ${seat + 1}`;
  }

  /** Whether a seated player is gone: disconnected, or played for by the server. */
  absence(seat) {
    const info = this.seats[seat];
    if (!info || info.player.bot) return null;
    if (info.away) return 'away';
    if (!info.connected) {
      return info.holdUntil && this.now() >= info.holdUntil ? 'away' : 'disconnected';
    }
    return null;
  }

  /**
   * Whether a program playing this seat should act now: it is its turn, by
   * a turn message it has not acted on, and its last action was confirmed.
   * The server sends a turn again when the table changes (someone comes
   * back), and that is not a new turn.
   */
  shouldAct() {
    return this.myTurn && !this.pending && this.lastActedTurn !== this.turn.after;
  }

  /** Notes that this seat sent `move` for the current turn. */
  acted(move) {
    this.pending = move;
    if (this.turn) this.lastActedTurn = this.turn.after;
  }

  /** Notes the cards this seat chose to give, until they are given. */
  chosePass(cards) {
    this.myPassChosen = [...cards];
  }

  /** Notes that the server refused this seat's last action. */
  refused() {
    this.pending = null;
  }
}

// One function per message type. `this` is the TableState.
const HANDLERS = {
  snapshot(message) {
    const state = message.state;
    const previousRoom = this.room;
    this.room = state.room;
    this.name = state.name;
    this.private = state.private;
    this.rated = Boolean(state.rated);
    this.rules = state.rules;
    this.botLevel = state.bots;
    this.speed = state.speed ?? 'normal';
    this.turnSeconds = state.turn_seconds ?? null;
    this.status = state.status;
    this.owner = state.owner;
    this.seats = state.seats.map((info) => (info ? { ...info } : null));
    this.teams = state.teams.map((team) => [...team]);
    this.spectators = state.spectators;
    this.games = state.games;
    this.seat = state.your_seat ?? null;
    this.lastSeq = message.seq;
    if (previousRoom !== state.room) {
      this.chat = [];
      this.log = [];
    }
    const game = state.game;
    const handScores = previousRoom === state.room ? this.handScores : [];
    this.resetGame();
    if (!game) return;
    // Hand scores are not in a snapshot; those seen before it still hold
    // when it is the same game.
    if (game.game_id && handScores.length && handScores[0].gameId === game.game_id) {
      this.handScores = handScores;
    }
    this.gameNumber = game.game;
    this.gameId = game.game_id;
    this.rules = game.rules;
    this.phase = game.phase;
    this.hand = game.hand;
    this.dealer = game.dealer;
    this.score = [...game.score];
    this.bags = [...game.bags];
    this.seat = game.seat ?? this.seat;
    this.cards = game.cards ? [...game.cards] : [];
    this.hidden = !game.cards && game.seat !== undefined && game.seat !== null && game.phase === 'bidding';
    this.blindNilOffered = game.blind_nil_offered;
    this.handSizes = [...game.hand_sizes];
    this.bids = game.bids.map((bid) => (bid ? { ...bid } : null));
    this.passes = game.passes.map((pass) => ({ ...pass, cards: [...pass.cards] }));
    this.exchanges = this.passes.map(({ from, to, cards }) => ({ from, to, count: cards.length }));
    this.myPassChosen = game.pass_chosen ? [...game.pass_chosen] : null;
    this.passChosen = this.myPassChosen && this.seat !== null ? [this.seat] : [];
    const players = playersOf(game.rules);
    this.trick = game.trick && game.trick.cards.length ? playsOf(game.trick, players) : null;
    this.tricks = game.tricks.map((trick) => ({ ...playsOf(trick, players), winner: trick.winner }));
    this.tricksWon = [...game.tricks_won];
    this.spadesBroken = game.spades_broken;
    this.turn = game.turn ? turnOf(game.turn, message.seq, this.now()) : null;
    if (game.phase === 'game over') {
      this.winner = game.winner ?? null;
      this.abandoned = game.winner === undefined || game.winner === null;
      this.turn = null;
    }
  },

  seats(message) {
    const old = this.seats;
    this.seats = message.seats.map((info, seat) => {
      if (!info) return null;
      const before = old[seat];
      const sameHolder = before && before.player.id === info.player.id && !info.connected;
      return { ...info, holdUntil: sameHolder ? before.holdUntil : undefined };
    });
    this.spectators = message.spectators;
    this.owner = message.owner;
    if (this.me) {
      const mine = this.seats.find((info) => info && info.player.id === this.me);
      this.seat = mine ? mine.seat : null;
    }
  },

  game_started(message) {
    this.resetGame();
    this.status = 'playing';
    this.gameNumber = message.game;
    this.gameId = message.game_id;
    this.games = message.game + 1;
    this.rules = message.rules;
    // One running total per team: two with partners, four in solo.
    this.score = this.teams.map(() => 0);
    this.bags = this.teams.map(() => 0);
    this.addLog({ seq: message.seq, kind: 'game_started', game: message.game });
  },

  hand_started(message) {
    this.resetHand();
    this.phase = 'bidding';
    this.hand = message.hand;
    this.dealer = message.dealer;
    this.cards = message.cards ? [...message.cards] : [];
    this.blindNilOffered = Boolean(message.blind_nil_offered);
    this.hidden = !message.cards && this.blindNilOffered;
    this.handSizes = seatsOf(this.rules).map(() => handSizeOf(this.rules));
    this.addLog({ seq: message.seq, kind: 'hand_started', hand: message.hand, dealer: message.dealer });
  },

  hand_revealed(message) {
    if (message.seat === this.seat && message.cards) {
      this.cards = [...message.cards];
      this.hidden = false;
    }
  },

  bid_made(message) {
    this.bids[message.seat] = { bid: message.bid, blind: message.blind };
    this.addLog({ seq: message.seq, kind: 'bid', seat: message.seat, bid: message.bid, blind: message.blind });
  },

  passing_started() {
    this.phase = 'passing';
  },

  pass_chosen(message) {
    if (!this.passChosen.includes(message.seat)) this.passChosen.push(message.seat);
  },

  cards_passed(message) {
    const { from, to, count } = message;
    this.handSizes[from] -= count;
    this.handSizes[to] += count;
    this.exchanges.push({ from, to, count });
    this.passChosen = this.passChosen.filter((seat) => seat !== from);
    if (from === this.seat) this.myPassChosen = null;
    if (message.cards) {
      if (from === this.seat) this.cards = this.cards.filter((card) => !message.cards.includes(card));
      if (to === this.seat) this.cards = [...this.cards, ...message.cards.filter((c) => !this.cards.includes(c))];
      this.passes.push({ from, to, cards: [...message.cards] });
    }
    this.addLog({ seq: message.seq, kind: 'pass', from, to, count, cards: message.cards ?? null });
  },

  play_started(message) {
    this.phase = 'playing';
    this.trick = null;
    this.addLog({ seq: message.seq, kind: 'play_started', leader: message.leader });
  },

  card_played(message) {
    const { seat, card } = message;
    if (seat === this.seat) this.cards = this.cards.filter((c) => c !== card);
    this.handSizes[seat] = Math.max(0, this.handSizes[seat] - 1);
    if (suitOf(card, this.rules?.deck) === 'S') this.spadesBroken = true;
    if (!this.trick || this.trick.plays.length === playersOf(this.rules)) this.trick = { leader: seat, plays: [] };
    this.trick.plays.push({ seat, card });
    this.addLog({ seq: message.seq, kind: 'play', seat, card });
  },

  trick_won(message) {
    if (this.trick) {
      this.lastWon = { ...this.trick, winner: message.winner };
      this.tricks.push(this.lastWon);
      this.wonCount += 1;
      this.wonAt = this.now();
    }
    this.tricksWon[message.winner] += 1;
    this.trick = null;
    this.addLog({ seq: message.seq, kind: 'trick', trick: message.trick, winner: message.winner });
  },

  hand_scored(message) {
    this.tricksWon = [...message.tricks_won];
    this.score = message.teams.map((team) => team.score);
    this.bags = message.teams.map((team) => team.bags);
    this.handScores.push({
      gameId: this.gameId,
      hand: message.hand,
      tricksWon: [...message.tricks_won],
      bids: this.bids.map((bid) => (bid ? { ...bid } : null)),
      teams: message.teams.map((team) => ({ ...team })),
      scoredAt: this.now(),
    });
    this.addLog({ seq: message.seq, kind: 'hand_scored', hand: message.hand });
  },

  game_over(message) {
    this.status = 'finished';
    this.phase = 'game over';
    this.winner = message.winner ?? null;
    this.abandoned = message.winner === undefined || message.winner === null;
    this.score = [...message.score];
    this.turn = null;
    this.pending = null;
    this.addLog({ seq: message.seq, kind: 'game_over', winner: this.winner });
  },

  turn(message) {
    // A turn sent before the events already applied is out of date.
    if (this.turn && message.after < this.turn.after) return;
    this.turn = turnOf(message, message.after, this.now());
  },

  auto_played(message) {
    if (message.reason === 'away' && this.seats[message.seat]) {
      this.seats[message.seat] = { ...this.seats[message.seat], away: true };
    }
    this.addLog({ seq: message.seq, kind: 'auto', seat: message.seat, reason: message.reason });
  },

  player_away(message) {
    const info = this.seats[message.seat];
    if (info) {
      const holdUntil = message.hold_ms > 0 ? this.now() + message.hold_ms : this.now();
      this.seats[message.seat] = { ...info, connected: false, holdUntil };
    }
    this.addLog({ seq: message.seq, kind: 'away', seat: message.seat, holdMs: message.hold_ms });
  },

  player_back(message) {
    const info = this.seats[message.seat];
    if (info) this.seats[message.seat] = { ...info, connected: true, away: false, holdUntil: undefined };
    this.addLog({ seq: message.seq, kind: 'back', seat: message.seat });
  },

  chat_message(message) {
    // A line from a player this one blocks comes without its text; it is
    // kept as such, so that the chat can say a line was hidden.
    // A quick phrase keeps its name, and when it came, for the bubble
    // beside its seat.
    this.addChat({
      seq: message.seq, from: message.from, seat: message.seat ?? null,
      text: message.hidden ? '' : message.text, hidden: Boolean(message.hidden),
      quick: message.hidden ? null : (message.quick ?? null), at: Date.now(),
    });
  },

  rematch_asked(message) {
    // The two kinds of rematch do not mix: the server drops the requests
    // for one kind when someone asks for the other, and so does this.
    const sameDeals = Boolean(message.same_deals);
    const before = this.rematch?.sameDeals === sameDeals ? this.rematch.asked : [];
    const asked = before.includes(message.seat) ? before : [...before, message.seat];
    this.rematch = { asked, waitingFor: message.waiting_for ?? [], sameDeals };
  },

  player_removed(message) {
    const seat = message.seat ?? null;
    // Between games his seat is freed (a `seats` event follows); during
    // one the server plays it and `player_away` follows.
    this.addLog({ seq: message.seq, kind: 'removed', seat, player: message.player });
    this.addChat({ seq: message.seq, event: 'removed', player: message.player, seat });
  },
};

/** A trick view as `{leader, plays: [{seat, card}]}`, among `players` seats. */
function playsOf(trick, players) {
  return {
    leader: trick.leader,
    plays: trick.cards.map((card, i) => ({ seat: (trick.leader + i) % players, card })),
  };
}

// The clock is kept as a local moment computed from `clock_ms`, not from
// the server's `deadline`, because the two machines' clocks may disagree
// by more than the turn lasts.
function turnOf(turn, after, now) {
  return {
    seats: [...turn.seats],
    expected: turn.expected,
    clockMs: turn.clock_ms,
    endsAt: now + turn.clock_ms,
    deadline: turn.deadline,
    legal: turn.legal ? [...turn.legal] : null,
    passCount: turn.pass_count ?? null,
    bids: turn.bids ? [...turn.bids] : null,
    after,
  };
}

/**
 * The rooms of the lobby, kept from a `rooms` reply and the `lobby_room`
 * and `lobby_room_closed` updates that follow `watch_lobby`.
 */
export class LobbyState {
  constructor() {
    this.rooms = new Map();
  }

  apply(message) {
    switch (message.type) {
      case 'rooms':
        this.rooms = new Map(message.rooms.map((room) => [room.room, room]));
        break;
      case 'lobby_room':
        this.rooms.set(message.room.room, message.room);
        break;
      case 'lobby_room_closed':
        this.rooms.delete(message.room);
        break;
      default:
    }
  }

  /** Waiting rooms first, then the others, each by name. */
  get list() {
    const order = { waiting: 0, playing: 1, finished: 2 };
    return [...this.rooms.values()].sort((a, b) =>
      (order[a.status] ?? 3) - (order[b.status] ?? 3) || a.name.localeCompare(b.name));
  }
}
