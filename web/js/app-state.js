// The page's state, declared in one place. Every field the page keeps is
// here, with what it means; the controller (controller.js) is the only
// code that changes them, and the server's messages change the table and
// the lobby through their own `apply`. Views read this and nothing else.

import { LobbyState, TableState } from './state.js';
import { parseRoute } from './router.js';
import { FeltPace } from './pace.js';

export class AppState {
  constructor() {
    /** The room this page is at, as the server tells it (state.js). */
    this.table = new TableState();
    /** The lobby's live list of public tables. */
    this.lobby = new LobbyState();
    /** The signed-in player `{id, name}` from the welcome, or null. */
    this.player = null;
    /** The caller's profile from GET /api/me (permissions, registered), or null. */
    this.me = null;
    /** The connection's status (protocol.js's STATUS) and whether the server said it restarts. */
    this.connection = { status: 'idle', shuttingDown: false };
    /** The room where this player holds a seat, from the welcome after a reload. */
    this.seatRoom = null;
    /** The quick-play wait: `{rules, partner, waitingForPartner, since, maxWaitMs}`, or null. */
    this.queue = null;
    /** A tournament table ready for this player: `{room, stage, table}`, or null. */
    this.tableReady = null;
    /** The screen shown: `{name, param}`. */
    this.route = parseRoute(globalThis.location?.hash ?? '', globalThis.location?.pathname ?? '/');
    /** The view module of the screen, once loaded (null while it loads). */
    this.screen = null;
    /** Where to go after signing in, when a screen asked for a session. */
    this.afterSignIn = null;
    /**
     * True while the session is replaced on purpose (a guest claims his
     * name, a player changes his password), or ends on purpose (logging
     * out, deleting the account): its end is then no surprise to report.
     */
    this.claiming = false;
    this.loggingOut = false;
    /** Short notices `{id, text, kind}` (`info` or `error`), oldest first. */
    this.toasts = [];
    /** The table's preferences (prefs.js): `{sound, motion, notifications}`, the last the permission. */
    this.prefs = { sound: false, motion: false, notifications: 'unsupported' };
    /** When the felt shows each card and gathers each trick (pace.js), queued as the events arrive. */
    this.felt = new FeltPace();

    /** An administrator's notices to everyone, `{id, message}`, shown until dismissed. */
    this.broadcasts = [];
    /** Maintenance in force, `{active, message, until}` (GET /api/maintenance or a notice), or null. */
    this.maintenance = null;
    /** A `suspended` or `banned` notice, kept until the connection closes with 4009. */
    this.keptOutNotice = null;
    /**
     * A moderator keeps this player out: what the server said (`{kind,
     * message, until}` from the notice, or `{code, message}` from a refused
     * hello or request). While set, the page shows only that.
     */
    this.keptOut = null;
    /** The report being written: `{player: {id, name}, via: 'table'|'profile', sending, error}`, or null. */
    this.report = null;
    /** The players this player blocks (GET /api/me/blocks), loaded with a profile. */
    this.blocks = { list: null, error: null };
    /** Sanctions in force (GET /api/sanctions), for the moderators' and administrators' pages. */
    this.sanctions = { list: null, error: null };

    /**
     * Friends (GET /api/friends: `{friends, incoming, outgoing,
     * hide_table}`) or a refusal in words, and the invitations friends
     * sent that wait for an answer (the server's `invitation`, with an `id`).
     */
    this.social = { friends: null, error: null, loading: false, invitations: [] };

    /** The sign-in screen: the last refusal, in words. */
    this.signin = { error: '' };

    /**
     * The table screen: `code` of the room shown; `joining` and
     * `joinError` while entering it; `leaving` once the player asked to
     * leave; `selected` cards chosen to give; `handFocus` the card the
     * hand's tab stop is on; `showLastTrick`; `popupClosed` the hand whose
     * score summary the player closed; `sideOpen` whether the drawer of
     * scores and chat is open on a small screen; `announced` the last log entry read
     * to screen readers; `focusTurn` the turn (its `after`) to which
     * focus should move, set when a turn of this seat begins.
     */
    this.tableView = {
      code: null, joining: false, joinError: null, leaving: false,
      selected: [], handFocus: null, showLastTrick: false, popupClosed: null, sideOpen: false,
      announced: 0, focusTurn: null,
    };

    /**
     * The lobby: the presets from the server (`{name, summary, rules}`),
     * the presets chosen for quick play and for a new table, whether the
     * new table is to be private and rated (a private table never is), and the
     * leaderboard's page with its answer or refusal.
     */
    this.lobbyView = {
      presets: null, quickPreset: 'classic', roomPreset: 'classic', roomFormat: null, roomPrivate: false, roomRated: false,
      leaderboardPage: 1, leaderboard: null, leaderboardError: null,
    };

    /** The tournament list: its filter, its rows, a refusal. */
    this.tournaments = { filter: '', list: null, error: null, format: 'knockout' };

    /**
     * One tournament followed live: its id, its view from the server, a
     * refusal, and for a duplicate tournament the boards of the rounds
     * the player opened, by round number: `{open, loading, histories,
     * error}`, `histories` the hand records of each of the round's tables
     * (null for one without a game), loaded when first opened.
     */
    this.tournament = { id: null, data: null, error: null, boards: {} };

    /**
     * A replay: the game's id, summary and hand records, a refusal, the
     * hand and step shown, whether it plays on its own, what the check
     * of its deals found (verify.js's `checkDeals`; null until it is done),
     * the other game on the same deals (`{id, first, game, records,
     * error}`, `first` when it was played before this one; null when there
     * is none), and the player's review (`{asking, pending, data, error}`:
     * `pending` the queue's `{status, ahead}` while it waits, `data` the
     * review once worked out, `error` a refusal).
     */
    this.replay = {
      gameId: null, game: null, records: null, error: null, hand: 0, step: 0, playing: false, deals: null,
      sameDeals: null, review: { asking: false, pending: null, data: null, error: null },
    };

    /** A profile: whose (`me` or an id), what was loaded, a refusal. */
    this.profile = { param: null, data: null, error: null };

    /** The reset link's page: its token, whether the new password is on its way, a refusal in words. */
    this.resetView = { token: null, sending: false, error: null };

    /**
     * The moderation page: the open reports (or the refusal), the
     * players' records shown (`{data, error}` by player id), each form's
     * error in words and what was done from it (by form key: a report's
     * id), which suggests the report's resolution.
     */
    this.moderation = { reports: null, error: null, records: {}, formErrors: {}, done: {} };

    /**
     * The administration page: the player id its role form starts with
     * (from `#/admin/ID`), the last reset link issued, and the audit log
     * shown (`lines` newest first, whether `more` are older, a refusal).
     */
    this.admin = { playerId: '', resetLink: null, audit: { lines: [], more: false, error: null } };
  }
}
