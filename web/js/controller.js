// The controller: every change of the page's state (app-state.js) happens
// here, in answer to the server's messages, to the address and to the
// player's clicks and keys, which the views turn into calls of these
// actions. It sends requests through the protocol client and the HTTP API,
// and asks the page to draw itself again (`changed`) after each change.

import { STATUS } from './protocol.js';
import { roomCodeFrom } from './router.js';
import { chatProblem, describe, describeClose, describeWithDetail } from './messages.js';
import { sortForProtocol } from './cards.js';
import { SCORE_LEAST_MS, SCORE_POPUP_MS, describeEntry, expectedText } from './seating.js';
import { cardKey } from './pace.js';
import { playSound } from './sound.js';
import { alertTurn } from './alerts.js';
import { loadPrefs, notificationPermission, saveSound } from './prefs.js';
import { screenActions } from './controller-screens.js';
import { moderationActions } from './controller-moderation.js';
import { socialActions } from './controller-social.js';
import { KEPT_OUT } from './moderation.js';
import { rememberCommitment } from './commitments.js';

// How long a short notice stays: errors and a moderator's words longer
// than the rest, so that they can be read whole.
const TOAST_MS = { info: 5000, error: 8000, warn: 15000 };


/**
 * Makes the page's actions over `app` (an AppState). `changed()` asks for
 * a new drawing; `say(text)` reads text to screen readers.
 */
export function createController(app, { client, api, changed, say, navigateTo }) {
  const table = app.table;
  const view = app.tableView;
  let toastId = 0;
  app.prefs = loadPrefs();
  const sound = (name, at) => playSound(name, () => app.prefs.sound, at);

  const actions = {
    changed,
    navigate: navigateTo,

    /**
     * Shows a short notice; errors are described in plain words. `kind`
     * is `info`, `warn` (a moderator's word) or `error`.
     */
    notify(what, kind = 'info') {
      // A player kept out is told so by the whole page; the requests that
      // failed because of it need no notice each.
      if (app.keptOut && typeof what !== 'string' && (KEPT_OUT.has(what?.code) || what?.code === 'closed')) return;
      const toast = { id: (toastId += 1), text: typeof what === 'string' ? what : describeWithDetail(what), kind };
      app.toasts = [...app.toasts, toast];
      setTimeout(() => {
        app.toasts = app.toasts.filter((other) => other !== toast);
        changed();
      }, TOAST_MS[kind] ?? TOAST_MS.info);
      changed();
    },

    /** The screen of `route` is shown; `screen` is its view module once loaded. */
    showing(route, screen) {
      app.route = route;
      app.screen = screen;
    },

    /** `route` needs a session: sign in first, then go there. */
    signInFirst(route) {
      app.afterSignIn = route;
    },

    /** Sound on or off, remembered; turned on, it says so with a sound (which also wakes the page's audio). */
    toggleSound() {
      app.prefs.sound = !app.prefs.sound;
      saveSound(app.prefs.sound);
      if (app.prefs.sound) sound('turn');
      changed();
    },

    /** Asks the browser, at the player's request only, to allow turn notifications. */
    async allowNotifications() {
      if (!globalThis.Notification) return;
      try {
        await globalThis.Notification.requestPermission();
      } catch {
        // An old browser's callback form, or a refusal: the permission says which.
      }
      app.prefs.notifications = notificationPermission();
      changed();
    },

    /** The drawer of scores and chat on a small screen. */
    toggleSide() {
      view.sideOpen = !view.sideOpen;
      changed();
    },

    /** Loads the caller's profile (permissions, whether registered). */
    async loadMe() {
      try {
        app.me = await api.me();
      } catch {
        app.me = null;
      }
      // The friends list waits for the profile, which says whether the
      // player is registered.
      if (app.route.name === 'lobby' || app.route.name === 'room') actions.loadFriends();
      changed();
    },

    /** Ends this page's session after logging out or a refused token. */
    signedOut(message) {
      app.player = null;
      app.me = null;
      app.queue = null;
      table.clear();
      if (message) actions.notify(message, 'error');
      navigateTo('signin');
    },

    async logOut() {
      if (app.me && !app.me.registered
        && !confirm('You are playing as a guest. Logging out loses this name and its games unless you set a password first (on your profile). Log out anyway?')) {
        return;
      }
      app.loggingOut = true;
      try {
        await api.logout();
      } catch (error) {
        // The session may already be gone; sign out here all the same.
        if (error.code !== 'unauthorized') actions.notify(error, 'error');
      }
      client.close();
      client.setToken(null);
      app.loggingOut = false;
      if (app.player) actions.signedOut();
    },

    reconnect() {
      client.reconnect();
    },

    goToReadyTable() {
      const ready = app.tableReady;
      app.tableReady = null;
      if (ready) navigateTo('room', ready.room);
    },

    // Signing in. A new connection is made for each sign-in, so that an
    // earlier session's connection never lingers.

    signInAsGuest(name) {
      signIn(() => connectWith({ name: name.trim() }));
    },

    /** `kind` is `login` or `register`. */
    signInWithAccount(kind, name, password) {
      const call = kind === 'register' ? api.register : api.login;
      signIn(() => call.call(api, name.trim(), password).then((answer) => connectWith({ token: answer.token })));
    },

    // The lobby's own controls.

    joinByCode(text) {
      const code = roomCodeFrom(text);
      if (!code) actions.notify('That does not look like a table code or link.', 'error');
      else navigateTo('room', code);
    },

    // The table.

    copyLink() {
      const link = `${location.origin}/r/${table.room}`;
      const done = () => actions.notify('Link copied. Send it to your friends.');
      if (navigator.clipboard) navigator.clipboard.writeText(link).then(done, () => actions.notify(link));
      else actions.notify(link);
    },

    leaveTable() {
      view.leaving = true;
      const leave = () => {
        table.clear();
        navigateTo('lobby');
      };
      client.leaveRoom().then(leave, (error) => {
        if (error.code === 'not_in_room') {
          leave();
          return;
        }
        view.leaving = false;
        actions.notify(error, 'error');
      });
    },

    stand: () => send(client.stand()),
    sit: (seat) => send(client.sit(seat)),
    addBot: (seat, level) => send(client.addBot(seat, level)),
    removeBot: (seat) => send(client.removeBot(seat)),
    startGame: () => send(client.startGame()),
    look: () => act({ type: 'look' }, client.look()),
    bid: (bid, blind = false) => act({ type: 'bid', bid, blind }, client.bid(bid, blind)),

    /** A card of the hand pressed: played, or chosen (or unchosen) to give. */
    pressCard(card) {
      if (table.expected === 'play' && table.legalCards.includes(card)) {
        view.handFocus = card;
        act({ type: 'play', card }, client.play(card));
      } else if (table.passCount) {
        const chosen = view.selected.includes(card);
        if (chosen) view.selected = view.selected.filter((other) => other !== card);
        else if (view.selected.length < table.passCount) view.selected = [...view.selected, card];
        else say(`You have chosen ${table.passCount} cards already. Unselect one first.`);
        view.handFocus = card;
        changed();
      }
    },

    /** The hand's tab stop moved to `card` (arrow keys). */
    focusCard(card) {
      view.handFocus = card;
    },

    passSelected() {
      const cards = sortForProtocol(view.selected, table.rules?.deck);
      view.selected = [];
      // In a simultaneous exchange the cards stay in the hand until the
      // partner has chosen too; remember them to say so.
      table.chosePass(cards);
      act({ type: 'pass', cards }, client.passCards(cards));
    },

    toggleLastTrick() {
      view.showLastTrick = !view.showLastTrick;
      changed();
    },

    closeScorePopup() {
      view.popupClosed = table.lastHandScore?.hand ?? null;
      changed();
    },

    /** Sends a chat line; false when it is refused here (the line stays in the box). */
    chat(text) {
      const line = text.trim();
      if (!line) return false;
      const problem = chatProblem(line);
      if (problem) {
        actions.notify(problem, 'error');
        return false;
      }
      send(client.chat(line));
      return true;
    },
  };
  const notify = (...args) => actions.notify(...args);
  const screens = screenActions(app, { client, api, changed, navigateTo, notify });
  const moderation = moderationActions(app, {
    client, api, changed, navigateTo, notify,
    signInWith: (token) => connectWith({ token }),
    signedOut: () => actions.signedOut(),
  });
  const social = socialActions(app, { client, api, changed, navigateTo, notify });
  Object.assign(actions, screens, moderation, social, {
    /** A screen is shown: each part of the controller loads what it needs for it. */
    enter(route) {
      screens.enter(route);
      moderation.enter(route);
      social.enter(route);
    },
    leave(route) {
      screens.leave(route);
      social.leave(route);
    },
  });

  // Requests. Each shows its refusal in plain words; game actions also
  // mark the state as waiting, so the controls cannot be pressed twice.
  function send(promise) {
    return promise.catch((error) => actions.notify(error, 'error'));
  }

  function act(move, promise) {
    table.acted(move);
    changed();
    promise.catch((error) => {
      table.refused();
      actions.notify(error, 'error');
      changed();
    });
  }

  function connectWith(fields) {
    client.close();
    return client.connect(fields);
  }

  async function signIn(start) {
    app.signin.error = '';
    changed();
    try {
      await start();
      const next = app.afterSignIn;
      app.afterSignIn = null;
      if (next && next.name !== 'signin') navigateTo(next.name, next.param);
      else navigateTo('lobby');
    } catch (failure) {
      // A suspended or banned player's login is refused with why and until when.
      app.signin.error = describeWithDetail(failure);
      changed();
    }
  }

  function joinTable(code) {
    if (table.room === code || view.joining || view.joinError || view.leaving) return;
    view.joining = true;
    view.joinError = null;
    client.joinRoom(code).then(() => {
      view.joining = false;
      if (app.seatRoom === code) app.seatRoom = null;
      changed();
    }, (error) => {
      view.joining = false;
      view.joinError = error;
      changed();
    });
  }

  // The server's messages.

  function listen() {
    client.on('room', (message) => {
      const room = table.room;
      const spadesBroken = table.spadesBroken;
      table.apply(message);
      if (table.room !== room) app.felt.reset();
      present(message, spadesBroken);
    });
    // Kept so that the game's replay can show its seed was committed to
    // before this browser saw any card.
    client.on('game_started', (message) => rememberCommitment(message.game_id, message.deal_commitment));
    for (const type of ['rooms', 'lobby_room', 'lobby_room_closed']) {
      client.on(type, (message) => app.lobby.apply(message));
    }
    client.on('message', () => changed());
    client.on('welcome', (welcome) => {
      const wasKeptOut = Boolean(app.keptOut);
      app.keptOut = null;
      app.player = welcome.player;
      table.me = welcome.player.id;
      app.seatRoom = welcome.room ?? null;
      actions.loadMe();
      actions.loadMaintenance();
      if (wasKeptOut) {
        // The sanction that kept the player out has ended: the screen
        // behind it loads again what it could not load meanwhile.
        view.joinError = null;
        actions.leave(app.route);
        actions.enter(app.route);
      }
      changed();
    });
    client.on('status', statusChanged);
    client.on('room_lost', ({ room }) => {
      if (table.room === room || table.room === null) table.clear();
      actions.notify(`Table ${room} is no longer open.`, 'error');
    });
    client.on('matched', (message) => {
      app.queue = null;
      say('Your quick-play table is ready.');
      navigateTo('room', message.room);
    });
    client.on('unqueued', (message) => {
      app.queue = null;
      actions.notify(message.reason === 'partner_left'
        ? 'Your partner left the queue, so you are no longer waiting.'
        : 'You queued again somewhere else.', 'error');
    });
    client.on('tournament_table', (message) => {
      app.tableReady = message;
      say('Your tournament table is ready.');
      changed();
    });
    client.on('tournament', (message) => {
      if (message.tournament?.id === app.tournament.id) {
        app.tournament.data = message.tournament;
        changed();
      }
    });
    client.on('notice', (notice) => actions.noticeReceived(notice));
    client.on('error', (error) => {
      if (error.code === 'removed' || error.code === 'room_ended') putOutOfRoom(error);
      else actions.notify(error, 'error');
    });
  }

  /**
   * Queues what the felt shows of an event (pace.js), with its sound at
   * the moment it is shown, and asks for a drawing when something shown
   * is to leave by itself: a gathered trick, a hand's score.
   */
  function present(message, spadesBroken) {
    const now = Date.now();
    const felt = app.felt;
    if (message.type === 'card_played') {
      const at = felt.card(cardKey(table.wonCount, message.card), now);
      sound('card', at);
      if (!spadesBroken && table.spadesBroken && table.phase === 'playing') sound('spades', at + 120);
    } else if (message.type === 'trick_won' && table.lastWon) {
      const index = table.wonCount - 1;
      const last = table.lastWon.plays[table.lastWon.plays.length - 1];
      const lastAt = last ? (felt.startOf(cardKey(index, last.card)) ?? now) : now;
      const { gatherAt, goneAt } = felt.won(index, now, lastAt);
      sound('trick', gatherAt);
      setTimeout(changed, goneAt - now + 20);
    } else if (message.type === 'hand_scored') {
      const scored = table.lastHandScore;
      const nils = scored.bids.map((bid, seat) => (bid && bid.bid === 0 ? scored.tricksWon[seat] === 0 : null)).filter((made) => made !== null);
      if (nils.includes(false)) sound('nilSet', felt.free);
      else if (nils.length) sound('nilMade', felt.free);
      setTimeout(changed, SCORE_LEAST_MS + 20);
      setTimeout(changed, SCORE_POPUP_MS + 20);
    }
  }

  /**
   * The room's owner removed this player, or a moderator closed the room:
   * the table screen says so where the table was, with the way back to
   * the lobby; elsewhere a notice says it.
   */
  function putOutOfRoom(error) {
    const room = table.room;
    table.clear();
    if (app.route.name === 'room' && (app.route.param === room || room === null)) {
      view.code = app.route.param;
      view.joining = false;
      view.joinError = error;
    } else {
      actions.notify(error, 'error');
    }
    changed();
  }

  function statusChanged(status, detail) {
    app.connection = { status, shuttingDown: Boolean(client.shuttingDown) };
    // A claim ends the guest session on purpose and comes back with the new
    // token; a log-out ends it on purpose too and needs no warning.
    if (status === STATUS.ENDED && !app.claiming) {
      actions.signedOut(app.loggingOut ? null : describe(detail.code ?? 'session_ended'));
      app.loggingOut = false;
    }
    if (status === STATUS.RECONNECTING && app.queue) {
      app.queue = null;
      actions.notify('The connection dropped, which takes you out of the quick-play queue. Queue again when it is back.', 'error');
    }
    // A player kept out by a moderator is told so by the whole page; any
    // other refused hello on the sign-in screen is shown by that screen.
    if (status === STATUS.FAILED && !actions.connectionFailed(detail) && app.route.name !== 'signin') {
      actions.notify(typeof detail.code === 'number' ? describeClose(detail.code) : describe(detail.code ?? 'closed'), 'error');
    }
    // After a reconnect the client watches the lobby again by itself, but
    // the list it had may be stale.
    if (status === STATUS.READY && detail.reconnected && app.route.name === 'lobby') client.listRooms().catch(() => {});
    changed();
  }

  /**
   * Brings what follows from the state up to date before each drawing:
   * the table is entered, its events and a new turn of this seat are read
   * to screen readers, and focus is asked to move to that turn.
   */
  function beforeDraw() {
    if (app.route.name !== 'room') return;
    const code = app.route.param;
    if (view.code !== code) resetTableView(code);
    if (table.room !== code) {
      joinTable(code);
      return;
    }
    for (const card of view.selected) {
      if (!table.cards.includes(card) || !table.passCount) view.selected = view.selected.filter((other) => other !== card);
    }
    const fresh = table.log.filter((entry) => entry.seq > view.announced);
    const lines = [];
    if (fresh.length) {
      view.announced = fresh[fresh.length - 1].seq;
      lines.push(...fresh.slice(-3).map((entry) => describeEntry(table, entry)));
    }
    if (table.myTurn && view.focusTurn !== table.turn.after) {
      view.focusTurn = table.turn.after;
      const what = `Your turn: ${expectedText(table.turn.expected, table.turn.passCount)}.`;
      lines.push(what);
      // The bell rings when the cards before this turn have been shown.
      sound('turn', app.felt.free);
      if (globalThis.document) alertTurn(document, what);
    }
    if (lines.length) say(lines.join(' '));
  }

  function resetTableView(code) {
    Object.assign(view, {
      code, joining: false, joinError: null, leaving: false, selected: [], handFocus: null, showLastTrick: false, sideOpen: false,
      popupClosed: table.lastHandScore?.hand ?? null,
      announced: table.log.length ? table.log[table.log.length - 1].seq : 0,
      focusTurn: null,
    });
  }

  return { actions, listen, beforeDraw };
}

