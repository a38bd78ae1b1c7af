// The controller's part for the screens other than the table: the lobby,
// the tournaments, a tournament, a replay and a profile. Each screen's data
// is loaded when it is shown (`enter`) and let go when it is left
// (`leave`); the actions change app-state.js's fields and nothing else.

import { describe } from './messages.js';
import { findStep, findStepBack, handSteps } from './replay.js';
import { receivedCommitment } from './commitments.js';

const AUTOPLAY_MS = 700;
// How often a review that waits in the server's queue is asked for again.
const REVIEW_EVERY_MS = 2000;
const TOURNAMENTS_EVERY_MS = 15000;

// The number fields of the "open a table" form, sent as numbers when filled.
export const RULE_NUMBERS = [
  'target', 'mercy', 'max_hands', 'nil_value', 'blind_nil_value', 'blind_nil_min_deficit', 'nil_pass',
  'blind_nil_pass', 'bag_limit', 'bag_penalty', 'bag_value', 'min_team_bid', 'max_team_bid', 'max_overtricks',
  'sets_to_lose', 'team_blind', 'team_blind_min_deficit',
];

/**
 * The rules of a new table from the form's fields (strings, and `true`
 * for a ticked box): empty fields keep the preset's values.
 */
export function rulesFromForm(fields, choiceKeys) {
  const rules = { preset: fields.preset };
  for (const key of RULE_NUMBERS) if (fields[key]) rules[key] = Number(fields[key]);
  if (fields.no_mercy) rules.no_mercy = true;
  if (fields.blind_nil) rules.blind_nil = fields.blind_nil === 'true';
  if (fields.pass_order) rules.pass_order = fields.pass_order;
  for (const key of choiceKeys) {
    const value = fields[key];
    if (value === 'true' || value === 'false') rules[key] = value === 'true';
    else if (value) rules[key] = value;
  }
  // Three players sit without partners.
  if (rules.partners === 'three') {
    rules.partners = false;
    rules.players = 3;
  } else if (rules.partners !== undefined) {
    rules.players = 4;
  }
  // Solo has nobody to pass cards to: the exchanges are off unless the
  // player set them (and the server then says why it refuses).
  if (rules.partners === false) {
    rules.nil_pass ??= 0;
    rules.blind_nil_pass ??= 0;
  }
  return rules;
}

export function screenActions(app, { client, api, changed, navigateTo, notify }) {
  const timers = { tournaments: null, autoplay: null, review: null };
  const lobby = app.lobbyView;

  const actions = {
    // The lobby.

    setQuickPreset(name) {
      lobby.quickPreset = name;
      changed();
    },

    setRoomPreset(name) {
      lobby.roomPreset = name;
      changed();
    },

    async quickPlay(partner) {
      try {
        const queued = await client.queue({ rules: lobby.quickPreset, partner: partner.trim() || undefined });
        app.queue = {
          rules: queued.rules, partner: queued.partner ?? null,
          waitingForPartner: Boolean(queued.waiting_for_partner),
          since: Date.now(), maxWaitMs: queued.max_wait_ms,
        };
        changed();
      } catch (error) {
        notify(error, 'error');
      }
    },

    async leaveQueue() {
      try {
        await client.leaveQueue();
      } catch (error) {
        if (error.code !== 'not_queued') notify(error, 'error');
      }
      app.queue = null;
      changed();
    },

    /** The new table is to be private (never rated) or not. */
    setRoomPrivate(value) {
      lobby.roomPrivate = value;
      changed();
    },

    setRoomRated(value) {
      lobby.roomRated = value;
      changed();
    },

    /** `fields` are the form's; `options` its name, privacy, bots and whether its games are rated. */
    async createRoom(fields, choiceKeys) {
      const options = { rules: rulesFromForm(fields, choiceKeys), private: Boolean(fields.private), bots: fields.bots };
      if (fields.name?.trim()) options.name = fields.name.trim();
      // Normal is the server's default; leaving it out keeps the request
      // readable by a server from before speeds.
      if (fields.speed && fields.speed !== 'normal') options.speed = fields.speed;
      // Only a public table may be rated; `rated` is left out otherwise,
      // which a server from before rated tables reads as it always did.
      if (fields.rated && !fields.private) options.rated = true;
      try {
        const snapshot = await client.createRoom(options);
        navigateTo('room', snapshot.state.room);
        // Whoever opens a table means to play at it: he sits at once, in
        // the first free seat, rather than being left watching. A refusal
        // leaves him watching, with the seats' buttons to try again.
        client.sit().catch((error) => notify(describe(error), 'error'));
      } catch (error) {
        notify(describe(error), 'error');
      }
    },

    leaderboardPage(page) {
      lobby.leaderboardPage = page;
      loadLeaderboard();
    },

    // The tournaments.

    setTournamentFilter(filter) {
      app.tournaments.filter = filter;
      loadTournaments();
    },

    setTournamentFormat(format) {
      app.tournaments.format = format;
      changed();
    },

    async createTournament(fields) {
      const settings = { name: fields.name.trim(), format: fields.format, max_players: Number(fields.max_players) };
      if (fields.starts_at) settings.starts_at = new Date(fields.starts_at).toISOString();
      // Named here rather than imported from duplicate.js, which only the
      // tournament pages load.
      const duplicate = fields.format === 'duplicate_pairs' || fields.format === 'duplicate_individual';
      if ((fields.format === 'swiss' || duplicate) && fields.rounds) settings.rounds = Number(fields.rounds);
      if (duplicate) {
        // A duplicate game plays every board, whatever the score: the
        // server refuses a target or a loss threshold for it, and its
        // `hands` are the boards of each round.
        if (fields.boards) settings.hands = Number(fields.boards);
      } else {
        if (fields.target) settings.target = Number(fields.target);
        if (fields.loss_threshold) settings.loss_threshold = Number(fields.loss_threshold);
        if (fields.hands) settings.hands = Number(fields.hands);
      }
      try {
        const created = await api.createTournament(settings);
        navigateTo('tournament', created.id);
      } catch (error) {
        notify(describe(error) + (error.code === 'bad_request' && error.message ? ` (${error.message})` : ''), 'error');
      }
    },

    tournamentRegister: () => runTournament(api.enter(app.tournament.id), 'You are registered.'),
    tournamentWithdraw: () => runTournament(api.withdraw(app.tournament.id), 'You have withdrawn.'),
    tournamentAddBots: (count) => runTournament(api.addBots(app.tournament.id, count)),
    tournamentStart: () => runTournament(api.start(app.tournament.id), 'The tournament has started.'),
    tournamentCancel() {
      if (confirm('Cancel this tournament? Tables being played finish as ordinary games.')) {
        runTournament(api.cancel(app.tournament.id), 'The tournament was cancelled.');
      }
    },

    /**
     * Opens or closes the boards of a duplicate round (`open` says which;
     * by default the other way). Its tables' histories are loaded when it
     * opens without them, the first time or after a refusal: the server
     * gives them only once the round is over at every table.
     */
    tournamentBoards(stage, open = !app.tournament.boards[stage]?.open) {
      const { id, data, boards } = app.tournament;
      const round = data?.stages.find((s) => s.stage === stage);
      const shown = boards[stage] ?? { open: false, loading: false, histories: null, error: null };
      boards[stage] = { ...shown, open };
      if (open && round && !shown.histories && !shown.loading) {
        boards[stage] = { open, loading: true, histories: null, error: null };
        Promise.all(round.tables.map((table) => (table.game ? api.history(table.game) : null))).then((histories) => {
          if (app.tournament.id === id) app.tournament.boards[stage] = { ...app.tournament.boards[stage], loading: false, histories, error: null };
          changed();
        }, (error) => {
          if (app.tournament.id === id) app.tournament.boards[stage] = { ...app.tournament.boards[stage], loading: false, histories: null, error };
          changed();
        });
      }
      changed();
    },

    // A replay.

    /** Moves the replay: `next-step`, `prev-trick`, `next-hand`… */
    replayMove(kind) {
      const { records } = app.replay;
      if (!records?.length) return;
      const target = replayTarget(app.replay, kind);
      if (!target) {
        if (kind === 'next-step') stopAutoplay();
        return;
      }
      app.replay.hand = Math.max(0, Math.min(records.length - 1, target[0]));
      app.replay.step = Math.max(0, target[1]);
      changed();
    },

    /** Shows `step` of `hand`: where a mark of the review was made. */
    replayShow(hand, step) {
      if (!app.replay.records?.[hand]) return;
      stopAutoplay();
      app.replay.hand = hand;
      app.replay.step = Math.max(0, step);
      changed();
    },

    /**
     * Asks for the player's review of the game shown, and asks again every
     * 2 s while the server says it waits (README, "Reviews"), until it
     * comes, is refused, or the page is left.
     */
    async reviewAsk() {
      const { gameId } = app.replay;
      clearTimeout(timers.review);
      app.replay.review = { ...app.replay.review, asking: true, error: null };
      changed();
      let answer = null;
      let error = null;
      let isReview = null;
      try {
        // Like the screen, the review's module is loaded only by those who
        // open a replay, not with the first page.
        [answer, { isReview }] = await Promise.all([api.askReview(gameId), import('./review.js')]);
      } catch (failure) {
        error = failure;
      }
      // The page may have moved to another replay meanwhile.
      if (app.replay.gameId !== gameId) return;
      if (error) app.replay.review = { asking: false, pending: null, data: null, error };
      else if (isReview(answer)) app.replay.review = { asking: false, pending: null, data: answer, error: null };
      else {
        app.replay.review = { asking: false, pending: answer, data: null, error: null };
        timers.review = setTimeout(() => actions.reviewAsk(), REVIEW_EVERY_MS);
      }
      changed();
    },

    replayToggle() {
      if (timers.autoplay) stopAutoplay();
      else {
        timers.autoplay = setInterval(() => actions.replayMove('next-step'), AUTOPLAY_MS);
        app.replay.playing = true;
      }
      changed();
    },

    // A profile.

    async claimName(password) {
      app.claiming = true;
      try {
        const answer = await api.claim(password);
        // The server ends the guest session's connection; the client
        // comes back with the new token.
        client.switchToken(answer.token);
        notify('Your name is now yours: log in with it and this password from anywhere.');
        app.me = await api.me().catch(() => null);
        loadProfile();
      } catch (failure) {
        notify(failure, 'error');
      } finally {
        app.claiming = false;
      }
    },

    grantOrganizer(profile) {
      api.setPermissions(profile.id, { organizer: true })
        .then(() => notify(`${profile.name} may now run tournaments.`), (failure) => notify(failure, 'error'));
    },

    /** A screen is shown: its data is loaded and followed. */
    enter(route) {
      switch (route.name) {
        case 'lobby': return enterLobby();
        case 'tournaments':
          timers.tournaments = setInterval(loadTournaments, TOURNAMENTS_EVERY_MS);
          return loadTournaments();
        case 'tournament': return enterTournament(route.param);
        case 'replay': return enterReplay(route.param);
        case 'profile':
          app.profile = { param: route.param, data: null, error: null };
          return loadProfile();
        default: return null;
      }
    },

    /** A screen is left: what it followed is let go. */
    leave(route) {
      // Coming back to a table starts its screen afresh (joining, a refusal).
      if (route.name === 'room') app.tableView.code = null;
      if (route.name === 'lobby') client.unwatchLobby().catch(() => {});
      if (route.name === 'tournaments') clearInterval(timers.tournaments);
      if (route.name === 'tournament') client.unwatchTournament(route.param).catch(() => {});
      if (route.name === 'replay') {
        stopAutoplay();
        clearTimeout(timers.review);
      }
    },
  };

  function enterLobby() {
    client.watchLobby().catch((error) => notify(error, 'error'));
    client.listRooms().catch((error) => notify(error, 'error'));
    loadLeaderboard();
    if (!lobby.presets) {
      api.presets().then((presets) => {
        lobby.presets = presets;
        for (const key of ['quickPreset', 'roomPreset']) {
          if (!presets.some((preset) => preset.name === lobby[key])) lobby[key] = 'classic';
        }
        changed();
      }, () => {});
    }
  }

  async function loadLeaderboard() {
    try {
      lobby.leaderboard = await api.leaderboard(lobby.leaderboardPage, 10);
      lobby.leaderboardError = null;
    } catch (error) {
      lobby.leaderboardError = error;
    }
    changed();
  }

  async function loadTournaments() {
    const filter = app.tournaments.filter;
    changed();
    try {
      const list = await api.tournaments(filter || undefined);
      if (app.tournaments.filter === filter) app.tournaments = { ...app.tournaments, list, error: null };
    } catch (error) {
      app.tournaments = { ...app.tournaments, list: null, error };
    }
    changed();
  }

  function enterTournament(id) {
    app.tournament = { id, data: null, error: null, boards: {} };
    client.watchTournament(id).catch((failure) => {
      if (app.tournament.id === id) app.tournament.error = failure;
      changed();
    });
    // The HTTP answer may come first while the connection is still opening.
    api.tournament(id).then((data) => {
      if (app.tournament.id === id) app.tournament.data ??= data;
      changed();
    }, (failure) => {
      if (app.tournament.id === id && !app.tournament.data) app.tournament.error = failure;
      changed();
    });
  }

  function runTournament(promise, done) {
    const id = app.tournament.id;
    return promise.then(async () => {
      if (done) notify(done);
      const data = await api.tournament(id);
      if (app.tournament.id === id) app.tournament.data = data;
      changed();
    }, (failure) => notify(failure, 'error'));
  }

  function enterReplay(gameId) {
    stopAutoplay();
    clearTimeout(timers.review);
    app.replay = {
      gameId, game: null, records: null, error: null, hand: 0, step: 0, playing: false, deals: null,
      sameDeals: null, review: { asking: false, pending: null, data: null, error: null },
    };
    Promise.all([api.game(gameId), api.history(gameId)]).then(([game, records]) => {
      if (app.replay.gameId !== gameId) return;
      Object.assign(app.replay, { game, records });
      changed();
      loadSameDeals(gameId, game).catch(() => {});
      // The replay is shown at once; the deals' check follows it, its
      // module loaded only by those who open a replay, like the screen.
      return import('./verify.js')
        .then(({ checkDeals }) => checkDeals(records, { gameId, received: receivedCommitment(gameId) }))
        .catch(() => ({ kind: 'failed', ok: false, hand: null, unchecked: true, reason: 'The deals could not be checked.' }))
        .then((deals) => {
          if (app.replay.gameId !== gameId) return;
          app.replay.deals = deals;
          changed();
        });
    }, (error) => {
      if (app.replay.gameId === gameId) app.replay.error = error;
      changed();
    });
  }

  /**
   * The other game on the same deals, when there is one: the game this
   * one played again, else the first that played this one again. Loaded
   * after the replay is shown, for the comparison beneath it.
   */
  async function loadSameDeals(gameId, game) {
    const { otherGameId } = await import('./same-deals.js');
    const id = otherGameId(game);
    if (!id || app.replay.gameId !== gameId) return;
    const first = id === game.same_deals_as;
    app.replay.sameDeals = { id, first, game: null, records: null, error: null };
    Promise.all([api.game(id), api.history(id)]).then(([other, records]) => {
      if (app.replay.gameId !== gameId) return;
      app.replay.sameDeals = { id, first, game: other, records, error: null };
      changed();
    }, (error) => {
      if (app.replay.gameId !== gameId) return;
      app.replay.sameDeals = { id, first, game: null, records: null, error };
      changed();
    });
  }

  function stopAutoplay() {
    clearInterval(timers.autoplay);
    timers.autoplay = null;
    app.replay.playing = false;
  }

  async function loadProfile() {
    const { param } = app.profile;
    let data = null;
    let error = null;
    try {
      const own = param === 'me' || param === app.player?.id;
      const profile = own ? await api.me() : await api.player(param);
      const [games, tournaments] = await Promise.all([
        own ? api.myGames(20).then((answer) => answer.games) : Promise.resolve(null),
        api.playerTournaments(profile.id).catch(() => []),
      ]);
      data = { own, profile, games, tournaments };
    } catch (failure) {
      error = failure;
    }
    if (app.profile.param === param) app.profile = { param, data, error };
    changed();
  }

  return actions;
}

/** Where a replay move goes: `[hand, step]`, or null when it cannot go on. */
function replayTarget({ records, hand, step }, kind) {
  const steps = handSteps(records[hand]);
  const isTrickStart = (s) => s.kind === 'play' && s.index === 0;
  switch (kind) {
    case 'next-step':
      if (step < steps.length - 1) return [hand, step + 1];
      return hand < records.length - 1 ? [hand + 1, 0] : null;
    case 'prev-step':
      if (step > 0) return [hand, step - 1];
      return hand > 0 ? [hand - 1, handSteps(records[hand - 1]).length - 1] : null;
    case 'next-trick': {
      const next = findStep(steps, step + 1, (s) => s.kind === 'trick');
      return [hand, next < 0 ? steps.length - 1 : next];
    }
    case 'prev-trick': {
      const back = findStepBack(steps, step, isTrickStart);
      return [hand, back < 0 ? 0 : back];
    }
    case 'next-hand': return [hand + 1, 0];
    case 'prev-hand': return [hand - 1, 0];
    default: return null;
  }
}
