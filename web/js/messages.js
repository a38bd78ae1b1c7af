// Plain sentences for every error code the server can send, over the
// WebSocket (protocol.md's error table), over HTTP (the README's API
// errors), and for the close codes. The server's own `message` is also
// meant for people, but these are written for a player at a table rather
// than for a programmer, and they stay the same if the server's wording
// changes. A test checks that every code in both documents is here.

export const SOCKET_ERRORS = {
  bad_json: 'The game could not understand what this page sent. Reloading the page should fix it.',
  unknown_type: 'This page asked the server for something it does not know. Reloading the page should fix it.',
  bad_message: 'This page sent a request the server could not read. Reloading the page should fix it.',
  frame_too_large: 'That was too long to send.',
  rate_limited: 'Too much at once: the server is taking your messages more slowly.',
  hello_first: 'The connection had not been set up yet. Trying again should fix it.',
  already_hello: 'The connection was already set up.',
  unsupported_version: 'This page is older than the server. Reload it to get the current version.',
  bad_token: 'Your session has ended. Please sign in again.',
  bad_name: 'Names are 1 to 24 characters, start with a visible character, and cannot hold invisible or control characters.',
  room_not_found: 'There is no open table with that code. Check the code, or the table may have closed.',
  not_in_room: 'You are not at a table.',
  seat_taken: 'That seat is taken.',
  not_seated: 'Take a seat first.',
  no_such_seat: 'That seat does not exist at this table.',
  game_in_progress: 'Not while a game is being played.',
  not_enough_players: 'A game needs every seat filled. Add bots or wait for players.',
  no_game: 'No game has started at this table yet.',
  bad_rules: 'Those rule settings do not make a playable game.',
  not_owner: 'Only the person who opened the table can do that.',
  not_a_bot: 'No bot sits in that seat.',
  not_queued: 'You are not waiting for quick play.',
  bad_partner: 'Name another player as your partner (not yourself); solo and three-player games are played without partners.',
  tournament_not_found: 'There is no such tournament.',
  tournament_table: 'A tournament table plays one game, and the tournament seats it.',
  chat_too_long: 'Chat messages are at most 300 characters.',
  chat_rate_limited: 'You are chatting too fast. Wait a few seconds.',
  muted: 'A moderator muted you: you cannot chat for now.',
  suspended: 'Your account is suspended.',
  banned: 'Your account is banned.',
  maintenance: 'The server is in maintenance: no new tables, games or quick play for now.',
  blocked: 'One of you blocks the other, so you cannot play as partners.',
  removed: 'The owner of this table removed you from it.',
  quick_play_paused: 'You left games at rated tables lately, so quick play is paused for you for a while.',
  too_many_reports: 'You have many reports waiting for the moderators. Wait until they are looked at.',
  not_friends: 'You can invite only your friends.',
  player_offline: 'Your friend is not online now.',
  too_many_invitations: 'You sent many invitations in the last minute. Wait a little.',
  room_ended: 'A moderator closed this table.',
  game_over: 'This game is over. Start a new game to play again.',
  wrong_phase: 'That does not belong to this part of the hand.',
  not_your_turn: 'It is not your turn.',
  invalid_bid: 'Bid nil, or a number of tricks up to the cards in your hand.',
  bid_not_allowed: "This table's rules do not allow that bid now.",
  blind_nil_not_allowed: 'Blind nil is not allowed now: your team must be far enough behind.',
  blind_nil_after_looking: 'You have looked at your cards, so blind nil is no longer possible.',
  must_look_at_hand: 'Look at your cards first, or bid blind.',
  blind_bid_not_allowed: 'Your team cannot bid blind now: it must be far enough behind, before either of you has looked or bid, and bid at least the lowest blind bid.',
  hand_already_visible: 'Your cards are already showing.',
  nothing_to_pass: 'You have no cards to pass now.',
  wrong_pass_count: 'Choose the number of cards the exchange asks for.',
  card_not_in_hand: 'That card is not in your hand.',
  must_follow_suit: 'You must follow the suit that was led.',
  spades_not_broken: 'Spades cannot be led until a spade has been played.',
  must_lead: 'The first trick must be led with the two of clubs.',
  server_busy: 'The server has as many tables open as it can. Try again in a moment.',
  store_unavailable: 'The server cannot reach its storage right now. Games go on; try again in a moment.',
  shutting_down: 'The server is restarting. Try again when it is back.',
  internal: 'Something went wrong on the server. Try again.',
};

export const API_ERRORS = {
  bad_json: 'The server could not read that request. Reloading the page should fix it.',
  bad_fields: 'Some of the details are missing or out of range.',
  unsupported_media_type: 'The server could not read that request. Reloading the page should fix it.',
  payload_too_large: 'That is too much to send at once.',
  bad_path: 'That link is not valid.',
  bad_query: 'That page number or filter is not valid.',
  bad_request: 'Those settings are not valid.',
  not_found: 'Not found: it may have been removed, or the link is wrong.',
  method_not_allowed: 'The server does not allow that.',
  unauthorized: 'Please sign in first.',
  forbidden: 'Your account is not allowed to do that.',
  suspended: 'Your account is suspended.',
  banned: 'Your account is banned.',
  wrong_password: 'That password is not right.',
  guest_account: 'A guest has no password to change. Register first.',
  bad_reset_link: 'This reset link does not work: it was used, it expired, or it is mistyped. Ask an administrator for a new one.',
  too_many_reports: 'You have many reports waiting for the moderators. Wait until they are looked at.',
  too_many_friends: 'Your friends list is full. Remove someone first.',
  bad_avatar: 'Choose one of the pictures on offer.',
  bad_name: 'Names are 1 to 24 characters, start with a visible character, and cannot hold invisible or control characters.',
  bad_password: 'A password is 8 to 256 characters.',
  name_taken: 'Someone has registered that name already. Choose another.',
  already_registered: 'You are registered already.',
  bad_credentials: 'Wrong name or password.',
  too_many_attempts: 'Too many failed sign-ins. Wait a while and try again.',
  game_in_progress: 'This game is still being played; its replay is ready once it ends.',
  not_open: 'This tournament is no longer open for that.',
  full: 'This tournament is full.',
  not_registered: 'You have not entered this tournament.',
  too_few_players: 'A tournament needs at least four entries to start.',
  unavailable: 'The server cannot reach its storage right now. Try again shortly.',
  busy: 'The server is busy checking passwords. Try again in a few seconds.',
  reviews_busy: 'The server is reviewing as many games as it can. Try again in a minute.',
  one_review_at_a_time: 'Your other review is still being worked out. Ask for this one once it is done.',
  not_a_player: 'Only the players of a game can ask for its review.',
  deals_in_play: 'These deals are still being played at another table. Come back once they are over everywhere.',
  internal: 'Something went wrong on the server. Try again.',
  request_timeout: 'The server took too long to answer. Try again.',
  not_a_websocket: 'The game connection could not be opened.',
  // The answer to a WebSocket upgrade that is refused.
  server_full: 'The server is full right now. Trying again shortly.',
  too_many_connections: 'Too many connections from your network. Close a few tabs and try again.',
  shutting_down: 'The server is restarting. Reconnecting shortly.',
};

/** What the page tells a player about a closed connection, by close code. */
export const CLOSE_REASONS = {
  1000: 'The connection was closed.',
  1001: 'The server is restarting. Reconnecting…',
  1002: 'The connection broke because of an error in this page. Reload it.',
  1006: 'The connection was lost. Reconnecting…',
  1007: 'The connection broke because of an error in this page. Reload it.',
  1009: 'The connection broke because of an error in this page. Reload it.',
  1012: 'The table is moving to another server. Reconnecting…',
  4001: 'You opened the game somewhere else (another tab or device). Use it here instead?',
  4002: 'The connection went quiet and was dropped. Reconnecting…',
  4003: 'The connection took too long to start. Reconnecting…',
  4004: 'Your session ended. Please sign in again.',
  4005: 'The server was full and the connection had not started yet. Reconnecting…',
  4008: 'The connection fell behind and was dropped. Reconnecting…',
  4009: 'A moderator suspended or banned your account.',
};

/** Errors that this page makes itself, not the server. */
export const CLIENT_ERRORS = {
  connection_lost: 'The connection was lost before the server answered. Try again.',
  closed: 'The connection is closed.',
  session_ended: 'Your session ended. Please sign in again.',
  network: 'The server cannot be reached. Check your connection.',
  bad_reply: 'The server sent an answer this page does not understand.',
};

/**
 * A plain sentence for an error: a ProtocolError or ApiError (with `code`
 * and `source`), or anything with `error`/`code`, or a bare code.
 */
export function describe(error) {
  if (!error) return '';
  if (typeof error === 'string') {
    return SOCKET_ERRORS[error] ?? API_ERRORS[error] ?? CLIENT_ERRORS[error] ?? error;
  }
  const code = error.code ?? error.error;
  const tables = error.source === 'api'
    ? [API_ERRORS, CLIENT_ERRORS, SOCKET_ERRORS]
    : [SOCKET_ERRORS, CLIENT_ERRORS, API_ERRORS];
  for (const table of tables) {
    if (code && table[code]) {
      if (code === 'too_many_attempts' && error.retryAfter) {
        return `Too many failed sign-ins. Try again in ${error.retryAfter} seconds.`;
      }
      if (code === 'busy' && error.retryAfter) {
        return `The server is busy checking passwords. Try again in ${error.retryAfter} seconds.`;
      }
      return table[code];
    }
  }
  return error.message || 'Something went wrong.';
}

// Refusals whose server message carries what the player needs to know
// (why, and until when): the page's sentence is followed by the server's.
const DETAILED = new Set(['muted', 'suspended', 'banned', 'maintenance', 'quick_play_paused', 'room_ended']);

/**
 * Like `describe`, with the server's own words added for the refusals
 * whose message says why and until when (a mute, a suspension, a ban,
 * maintenance, a paused quick play, a room a moderator closed).
 */
export function describeWithDetail(error) {
  const sentence = describe(error);
  const code = error?.code ?? error?.error;
  const detail = typeof error === 'object' ? error?.message : null;
  if (!DETAILED.has(code) || !detail || detail === code || sentence.includes(detail)) return sentence;
  const words = detail.charAt(0).toUpperCase() + detail.slice(1);
  return `${sentence} ${words}${/[.!?]$/.test(words) ? '' : '.'}`;
}

/** A sentence for a WebSocket close code. */
export function describeClose(code) {
  return CLOSE_REASONS[code] ?? CLOSE_REASONS[1006];
}

// The characters chat may not hold (protocol.md's Limits): control
// characters, line and paragraph separators, and the direction
// embeddings, overrides and isolates.
const UNSENDABLE_IN_CHAT = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;

/**
 * Why the server would refuse `text` as a chat line, or null when it would
 * take it. The page checks before sending, so that the player reads what
 * is wrong with the line instead of the server's generic `bad_message`.
 */
export function chatProblem(text) {
  if (UNSENDABLE_IN_CHAT.test(text)) {
    return 'Chat messages cannot hold control characters or characters that change the direction of text.';
  }
  if ([...text].length > 300) return SOCKET_ERRORS.chat_too_long;
  return null;
}
