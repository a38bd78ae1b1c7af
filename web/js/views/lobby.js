// The lobby: quick play, the live list of public tables, opening a table
// with its rules, joining one by code or link, and the leaderboard.

import { formatClock, h } from '../dom.js';
import { BOT_LEVELS } from '../levels.js';
import { describe } from '../messages.js';
import { hashFor } from '../router.js';
import { Ticking } from './clock.js';
import { FriendsPanel } from './friends.js';
import { Avatar } from './avatar.js';

// The rule fields a room may change, with the label shown and the
// bounds the server accepts (RuleSet::validate in the engine), so that the
// browser stops a value out of range before it is sent and says which.
// Empty inputs keep the preset's value.
const RULE_FIELDS = [
  ['target', 'Points to win', 1, 10000],
  ['mercy', 'Loss threshold (negative)', -10000, -1],
  ['max_hands', 'Most hands', 1, 4294967295],
  ['nil_value', 'Nil is worth', 0, 1000],
  ['blind_nil_value', 'Blind nil is worth', 0, 1000],
  ['blind_nil_min_deficit', 'Blind nil offered when behind by', 0, 10000],
  ['nil_pass', 'Cards exchanged after nil', 0, 4],
  ['blind_nil_pass', 'Cards exchanged after blind nil', 0, 4],
  ['bag_limit', 'Bags before the penalty', 1, 2147483647],
  ['bag_penalty', 'Bag penalty', 0, 1000],
  ['bag_value', 'Points per bag (-1, 0 or 1)', -1, 1],
  ['min_team_bid', 'Least a team may bid', 0, 13],
  ['max_team_bid', 'Most a team may bid', 1, 18],
  ['max_overtricks', 'Set with more overtricks than', 0, 12],
  ['sets_to_lose', 'Sets in a row that lose', 1, 255],
  ['team_blind', 'Lowest team blind bid (0: none)', 0, 13],
  ['team_blind_min_deficit', 'Team blind offered when behind by', 0, 10000],
];

// The house rules chosen from a list; the first choice keeps the preset's.
const CHOICE_FIELDS = [
  ['partners', 'Players', [['true', 'Two partnerships'], ['false', 'Solo: each on his own'], ['three', 'Three, each on his own']]],
  ['deck', 'Pack', [['standard', 'Standard 52'], ['jokers', 'Jokers (2♣ and 2♥ out)'], ['new_york_city', 'New York jokers (2♠ and 2♦ high; 2♣ and 2♥ out)'], ['new_york', 'Jokers, both red twos out (2♦ and 2♥)'], ['deuce_high', 'Two of spades high']]],
  ['bidding', 'Bidding', [['standard', 'Standard'], ['suicide', 'Suicide'], ['whiz', 'Whiz (your spades or nil)'], ['mirror', 'Mirror (your spades)']]],
  ['leading', 'First lead', [['left_of_dealer', "Dealer's left"], ['dealer', 'Dealer'], ['two_of_clubs', 'Two of clubs']]],
  ['spades_lead', 'Leading spades', [['broken', 'Once broken'], ['any_time', 'Any time'], ['from_fourth_trick', 'From the fourth trick']]],
  ['nil', 'Nil', [['true', 'Allowed'], ['false', 'Not allowed']]],
  ['nil_after_partner', 'Nil only after partner bids', [['true', 'Yes'], ['false', 'No']]],
  ['ten_for_two_hundred', '10 for 200', [['true', 'Yes'], ['false', 'No']]],
  ['moon', 'Moon (every trick) bonus', [['true', 'Yes'], ['false', 'No']]],
  ['boston_wins', 'Boston wins the game', [['true', 'Yes'], ['false', 'No']]],
  ['set_at_double', 'Set when taking twice the bid', [['true', 'Yes'], ['false', 'No']]],
  ['unbid_first_hand', 'First hand without bids', [['true', 'Yes'], ['false', 'No']]],
  ['team_blind_set_doubled', 'A failed team blind bid costs', [['true', 'Double'], ['false', 'Single']]],
];

// The presets' rules until the server's list arrives (then replaced by it).
const PRESET_DEFAULTS = {
  classic: { target: 500, mercy: -500, max_hands: '', nil_value: 100, blind_nil_value: 200, blind_nil_min_deficit: 100, nil_pass: 0, blind_nil_pass: 2, bag_limit: 10, bag_penalty: 100, bag_value: 1, min_team_bid: 0, max_team_bid: '', max_overtricks: '', sets_to_lose: '', team_blind: 0, team_blind_min_deficit: 100 },
  tournament: { target: 300, mercy: -300, max_hands: 7, nil_value: 100, blind_nil_value: 200, blind_nil_min_deficit: 100, nil_pass: 0, blind_nil_pass: 2, bag_limit: 10, bag_penalty: 100, bag_value: 1, min_team_bid: 0, max_team_bid: '', max_overtricks: '', sets_to_lose: '', team_blind: 0, team_blind_min_deficit: 100 },
};

// A table's speed sets its turn clock and how long its bots wait.
const SPEEDS = [['fast', 'Fast (half the clock)'], ['normal', 'Normal'], ['slow', 'Slow (twice the clock)']];

/** A room's speed in a word, for the list of tables. */
export function speedWord(speed) {
  return { fast: 'Fast', slow: 'Slow' }[speed] ?? 'Normal';
}

const FALLBACK_PRESETS = [
  { name: 'classic', summary: '' },
  { name: 'tournament', summary: '' },
];

/** The form's fields by name: strings, and true for a ticked box. */
function formFields(form) {
  const fields = Object.fromEntries(new FormData(form));
  for (const box of form.querySelectorAll('input[type=checkbox]')) fields[box.name] = box.checked;
  return fields;
}

function PresetSelect({ id, value, presets, onchange }) {
  return h('select', { id, name: 'preset', value, onchange: (event) => onchange(event.currentTarget.value) },
    presets.map((preset) => h('option', { key: preset.name, value: preset.name }, preset.name)));
}

function QueueStatus({ queue, actions }) {
  if (!queue) return null;
  return h(Ticking, {
    every: 1000,
    draw: () => {
      const waited = Date.now() - queue.since;
      const left = Math.max(0, queue.maxWaitMs - waited);
      return h('div', {},
        h('p', {}, queue.waitingForPartner
          ? `Waiting for ${queue.partner} to queue naming you…`
          : `Looking for players (${queue.rules})… ${formatClock(waited)}`),
        !queue.waitingForPartner && left > 0 ? h('p', { class: 'hint' }, `Bots fill the table in ${formatClock(left)}.`) : null,
        h('button', { type: 'button', onclick: actions.leaveQueue }, 'Stop waiting'));
    },
  });
}

function QuickPlay({ app, actions }) {
  const lobby = app.lobbyView;
  const presets = lobby.presets ?? FALLBACK_PRESETS;
  const summary = presets.find((preset) => preset.name === lobby.quickPreset)?.summary ?? '';
  return h('form', {
    class: 'card-panel',
    'aria-labelledby': 'qp-title',
    onsubmit: (event) => {
      event.preventDefault();
      actions.quickPlay(event.currentTarget.elements.partner.value);
    },
  },
  h('h2', { id: 'qp-title' }, 'Quick play'),
  h('p', { class: 'hint' }, 'Get a table with players of your level. If nobody comes, bots fill the empty seats.'),
  h('label', { for: 'qp-preset' }, 'Rules'),
  h(PresetSelect, { id: 'qp-preset', value: lobby.quickPreset, presets, onchange: actions.setQuickPreset }),
  h('p', { class: 'hint' }, summary),
  h('label', { for: 'qp-partner' }, 'Partner (a friend who queues naming you)'),
  h('input', { id: 'qp-partner', name: 'partner', maxlength: 24, placeholder: 'optional' }),
  h('button', { type: 'submit', class: 'primary', disabled: Boolean(app.queue) }, 'Quick play'),
  h('div', { class: 'queue-box', role: 'status', 'aria-label': 'Quick-play queue' }, h(QueueStatus, { queue: app.queue, actions })));
}

function JoinByCode({ actions }) {
  return h('form', {
    class: 'card-panel',
    'aria-labelledby': 'join-title',
    onsubmit: (event) => {
      event.preventDefault();
      actions.joinByCode(event.currentTarget.elements.code.value);
    },
  },
  h('h2', { id: 'join-title' }, 'Join a table'),
  h('label', { for: 'join-code' }, 'Table code or link'),
  h('input', { id: 'join-code', name: 'code', autocomplete: 'off', placeholder: 'ABC123 or a link' }),
  h('button', { type: 'submit' }, 'Join'));
}

function Field({ id, label, children }) {
  return h('div', { class: 'field' }, h('label', { for: id }, label), children);
}

function Choice({ id, name, options }) {
  return h('select', { id, name },
    h('option', { value: '' }, 'As the preset'),
    options.map(([value, label]) => h('option', { key: value, value }, label)));
}

function RuleOptions({ defaults }) {
  // The placeholders show the preset's values, so an empty box says what it keeps.
  const placeholder = (key) => {
    const value = defaults[key];
    return value === '' || value === null || value === undefined ? 'none' : String(value);
  };
  return h('details', { class: 'rules-details' },
    h('summary', {}, 'Rule options'),
    RULE_FIELDS.map(([key, label, min, max]) => h(Field, { key, id: `rule-${key}`, label },
      h('input', { id: `rule-${key}`, name: key, type: 'number', step: 1, min, max, inputmode: 'numeric', placeholder: placeholder(key) }))),
    h('div', { class: 'field check' },
      h('input', { id: 'rule-no_mercy', name: 'no_mercy', type: 'checkbox' }),
      h('label', { for: 'rule-no_mercy' }, 'No loss threshold')),
    h(Field, { id: 'rule-blind_nil', label: 'Blind nil' },
      h(Choice, { id: 'rule-blind_nil', name: 'blind_nil', options: [['true', 'Allowed'], ['false', 'Not allowed']] })),
    h(Field, { id: 'rule-pass_order', label: 'Exchange order' },
      h(Choice, { id: 'rule-pass_order', name: 'pass_order', options: [['sequential', 'Nil bidder first'], ['simultaneous', 'Both at once']] })),
    CHOICE_FIELDS.map(([key, label, options]) => h(Field, { key, id: `rule-${key}`, label },
      h(Choice, { id: `rule-${key}`, name: key, options }))));
}

function CreateRoom({ app, actions }) {
  const lobby = app.lobbyView;
  const presets = lobby.presets ?? FALLBACK_PRESETS;
  const chosen = presets.find((preset) => preset.name === lobby.roomPreset);
  const defaults = chosen?.rules ?? PRESET_DEFAULTS[lobby.roomPreset] ?? PRESET_DEFAULTS.classic;
  return h('form', {
    class: 'card-panel',
    'aria-labelledby': 'create-title',
    onsubmit: (event) => {
      event.preventDefault();
      actions.createRoom(formFields(event.currentTarget), CHOICE_FIELDS.map(([key]) => key));
    },
  },
  h('h2', { id: 'create-title' }, 'Open a table'),
  h(Field, { id: 'room-name', label: 'Table name' }, h('input', { id: 'room-name', name: 'name', maxlength: 24, placeholder: 'optional' })),
  h(Field, { id: 'room-preset', label: 'Rules' },
    h(PresetSelect, { id: 'room-preset', value: lobby.roomPreset, presets, onchange: actions.setRoomPreset })),
  h('p', { class: 'hint', id: 'room-preset-summary' }, chosen?.summary ?? ''),
  h(Field, { id: 'room-bots', label: 'Bot level' },
    h('select', { id: 'room-bots', name: 'bots', value: 'basic' }, BOT_LEVELS.map(([value, label]) => h('option', { key: value, value }, label)))),
  h(Field, { id: 'room-speed', label: 'Speed' },
    h('select', { id: 'room-speed', name: 'speed', value: 'normal' }, SPEEDS.map(([value, label]) => h('option', { key: value, value }, label)))),
  h('div', { class: 'field check' },
    h('input', {
      id: 'room-private', name: 'private', type: 'checkbox',
      onchange: (event) => actions.setRoomPrivate(event.currentTarget.checked),
    }),
    h('label', { for: 'room-private' }, 'Private (not listed; share the link)')),
  // A private table is always casual, so the box is offered for a public one only.
  h('div', { class: 'field check' },
    h('input', {
      id: 'room-rated', name: 'rated', type: 'checkbox', disabled: lobby.roomPrivate,
      'aria-describedby': 'room-rated-hint', checked: lobby.roomRated && !lobby.roomPrivate,
      onchange: (event) => actions.setRoomRated(event.currentTarget.checked),
    }),
    h('label', { for: 'room-rated' }, 'Rated (the games count for the ratings)')),
  h('p', { class: 'hint', id: 'room-rated-hint' }, lobby.roomPrivate
    ? 'A private table is always casual.'
    : 'Rated games count only with four registered players.'),
  h(RuleOptions, { defaults }),
  h('button', { type: 'submit', class: 'primary' }, 'Open table'));
}

function RoomRow({ room, actions }) {
  const seated = room.seats.filter(Boolean);
  const canSit = room.status !== 'playing' && seated.length < room.seats.length;
  return h('tr', {},
    h('th', { scope: 'row' }, h('span', { class: 'room-name' }, room.name), ' ', h('code', {}, room.room)),
    // A server from before rated tables sends no `rated`: its tables are casual.
    h('td', {}, `${room.rules} · `, h('span', { class: room.rated ? 'rated' : 'casual' }, room.rated ? 'Rated' : 'Casual'),
      // A server from before speeds sends none: its tables play at normal speed.
      ` · ${speedWord(room.speed)}`),
    h('td', {}, `${seated.length}/${room.seats.length} `,
      h('span', { class: 'hint seated-list' }, seated.map((p, at) => h('span', { key: p.id ?? at, class: 'seated' },
        h(Avatar, { player: p }), p.bot ? `${p.name} (bot)` : p.name))),
      room.spectators ? h('span', { class: 'hint' }, ` · ${room.spectators} watching`) : null),
    h('td', {}, room.status),
    h('td', {}, h('button', {
      type: 'button',
      'aria-label': `${canSit ? 'Join' : 'Watch'} ${room.name}, table ${room.room}`,
      onclick: () => actions.navigate('room', room.room),
    }, canSit ? 'Join' : 'Watch')));
}

function Rooms({ app, actions }) {
  const rooms = app.lobby.list;
  return h('section', { class: 'card-panel', 'aria-labelledby': 'rooms-title' },
    h('h2', { id: 'rooms-title' }, 'Open tables'),
    h('table', { class: 'rooms', 'aria-labelledby': 'rooms-title' },
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, 'Table'), h('th', { scope: 'col' }, 'Rules'),
        h('th', { scope: 'col' }, 'Players'), h('th', { scope: 'col' }, 'Status'),
        h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Action')))),
      h('tbody', {}, rooms.length
        ? rooms.map((room) => h(RoomRow, { key: room.room, room, actions }))
        : h('tr', {}, h('td', { colspan: 5, class: 'empty' }, 'No open tables. Open one, or try quick play.')))));
}

function LeaderboardRows({ lobby }) {
  if (lobby.leaderboardError) return h('tr', {}, h('td', { colspan: 4, class: 'error' }, describe(lobby.leaderboardError)));
  const players = lobby.leaderboard?.players ?? [];
  if (!players.length) return h('tr', {}, h('td', { colspan: 4, class: 'empty' }, lobby.leaderboard ? 'No rated players yet.' : 'Loading…'));
  return players.map((player) => h('tr', { key: player.id },
    h('td', {}, String(player.rank)),
    h('th', { scope: 'row' }, h('a', { href: hashFor('profile', player.id) }, player.name)),
    h('td', {}, String(Math.round(player.rating))),
    h('td', {}, `${player.games_won}/${player.games_played} won`)));
}

function Leaderboard({ app, actions }) {
  const lobby = app.lobbyView;
  const page = lobby.leaderboardPage;
  const board = lobby.leaderboard;
  const pages = board ? Math.max(1, Math.ceil(board.total / board.per_page)) : 1;
  return h('section', { class: 'card-panel', 'aria-labelledby': 'board-title' },
    h('h2', { id: 'board-title' }, 'Leaderboard'),
    h('table', { class: 'leaderboard', 'aria-labelledby': 'board-title' },
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, 'Rank'), h('th', { scope: 'col' }, 'Player'),
        h('th', { scope: 'col' }, 'Rating'), h('th', { scope: 'col' }, 'Games'))),
      h('tbody', {}, h(LeaderboardRows, { lobby }))),
    h('div', { class: 'pager' },
      h('button', { type: 'button', disabled: page <= 1, onclick: () => actions.leaderboardPage(page - 1) }, 'Previous'),
      h('span', {}, `Page ${page} of ${pages}`),
      h('button', { type: 'button', disabled: page >= pages, onclick: () => actions.leaderboardPage(page + 1) }, 'Next')));
}

export function Screen({ app, actions }) {
  return h('section', { class: 'lobby', 'aria-labelledby': 'lobby-title' },
    h('h1', { id: 'lobby-title', class: 'visually-hidden' }, 'Lobby'),
    h('div', { class: 'lobby-grid' },
      h('div', { class: 'lobby-side' }, h(QuickPlay, { app, actions }), h(JoinByCode, { actions }), h(CreateRoom, { app, actions })),
      h('div', { class: 'lobby-main' }, h(Rooms, { app, actions }), h(FriendsPanel, { app, actions }), h(Leaderboard, { app, actions }))));
}
