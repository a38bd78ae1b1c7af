// The lobby: quick play, the live list of public tables, opening a table
// with its rules, joining one by code or link, and the leaderboard.

import { fill, formatClock, h } from '../dom.js';
import { describe } from '../messages.js';
import { hashFor, roomCodeFrom } from '../router.js';

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

/**
 * Fills a preset list from the server's presets, keeping the choice; the
 * chosen preset's summary is shown in `hint` (a phone's list is too narrow
 * for it).
 */
function fillPresets(select, presets, hint) {
  const chosen = select.value;
  fill(select, presets.map((preset) => h('option', { value: preset.name }, preset.name)));
  select.value = presets.some((preset) => preset.name === chosen) ? chosen : 'classic';
  const show = () => {
    hint.textContent = presets.find((preset) => preset.name === select.value)?.summary ?? '';
  };
  select.addEventListener('change', show);
  show();
}

// The presets' rules until the server's list arrives (then replaced by it).
const PRESET_DEFAULTS = {
  classic: { target: 500, mercy: -500, max_hands: '', nil_value: 100, blind_nil_value: 200, blind_nil_min_deficit: 100, nil_pass: 0, blind_nil_pass: 2, bag_limit: 10, bag_penalty: 100, bag_value: 1, min_team_bid: 0, max_team_bid: '', max_overtricks: '', sets_to_lose: '', team_blind: 0, team_blind_min_deficit: 100 },
  tournament: { target: 300, mercy: -300, max_hands: 7, nil_value: 100, blind_nil_value: 200, blind_nil_min_deficit: 100, nil_pass: 0, blind_nil_pass: 2, bag_limit: 10, bag_penalty: 100, bag_value: 1, min_team_bid: 0, max_team_bid: '', max_overtricks: '', sets_to_lose: '', team_blind: 0, team_blind_min_deficit: 100 },
};

export function mount(root, app) {
  const { client } = app;
  const roomsBody = h('tbody');
  const queueBox = h('div', { class: 'queue-box', 'data-testid': 'queue-status', role: 'status' });
  const leaderboardBody = h('tbody');
  const leaderboardNav = h('div', { class: 'pager' });
  let leaderboardPage = 1;
  let queueTimer = null;

  // Quick play.
  const presetSelect = h('select', { id: 'qp-preset', 'data-testid': 'quick-play-preset' },
    h('option', { value: 'classic' }, 'Classic (to 500)'),
    h('option', { value: 'tournament' }, 'Tournament (to 300, 7 hands)'));
  const presetHint = h('p', { class: 'hint', 'data-testid': 'quick-play-preset-summary' });
  app.api.presets().then((presets) => fillPresets(presetSelect, presets, presetHint), () => {});
  const partnerInput = h('input', { id: 'qp-partner', maxlength: 24, placeholder: 'optional', 'data-testid': 'quick-play-partner' });
  const quickPlay = h('form', {
    class: 'card-panel',
    'aria-labelledby': 'qp-title',
    onsubmit: async (event) => {
      event.preventDefault();
      const partner = partnerInput.value.trim();
      try {
        const queued = await client.queue({ rules: presetSelect.value, partner: partner || undefined });
        app.queue = {
          rules: queued.rules, partner: queued.partner ?? null,
          waitingForPartner: Boolean(queued.waiting_for_partner),
          since: Date.now(), maxWaitMs: queued.max_wait_ms,
        };
        app.refresh();
      } catch (error) {
        app.notify(error, 'error');
      }
    },
  },
  h('h2', { id: 'qp-title' }, 'Quick play'),
  h('p', { class: 'hint' }, 'Get a table with players of your level. If nobody comes, bots fill the empty seats.'),
  h('label', { for: 'qp-preset' }, 'Rules'), presetSelect, presetHint,
  h('label', { for: 'qp-partner' }, 'Partner (a friend who queues naming you)'), partnerInput,
  h('button', { type: 'submit', class: 'primary', 'data-testid': 'quick-play' }, 'Quick play'),
  queueBox);

  function drawQueue() {
    const queue = app.queue;
    quickPlay.querySelector('[data-testid="quick-play"]').disabled = Boolean(queue);
    if (!queue) {
      fill(queueBox);
      queueBox.dataset.state = 'idle';
      return;
    }
    const waited = Date.now() - queue.since;
    const left = Math.max(0, queue.maxWaitMs - waited);
    queueBox.dataset.state = queue.waitingForPartner ? 'waiting_for_partner' : 'waiting';
    fill(queueBox,
      h('p', {}, queue.waitingForPartner
        ? `Waiting for ${queue.partner} to queue naming you…`
        : `Looking for players (${queue.rules})… ${formatClock(waited)}`),
      !queue.waitingForPartner && left > 0 ? h('p', { class: 'hint' }, `Bots fill the table in ${formatClock(left)}.`) : null,
      h('button', {
        type: 'button',
        'data-testid': 'queue-cancel',
        onclick: async () => {
          try {
            await client.leaveQueue();
          } catch (error) {
            if (error.code !== 'not_queued') app.notify(error, 'error');
          }
          app.queue = null;
          app.refresh();
        },
      }, 'Stop waiting'));
  }

  // Joining by code or link.
  const codeInput = h('input', { id: 'join-code', autocomplete: 'off', placeholder: 'ABC123 or a link', 'data-testid': 'join-code' });
  const joinForm = h('form', {
    class: 'card-panel',
    onsubmit: (event) => {
      event.preventDefault();
      const code = roomCodeFrom(codeInput.value);
      if (!code) {
        app.notify('That does not look like a table code or link.', 'error');
        return;
      }
      app.navigate('room', code);
    },
  },
  h('h2', {}, 'Join a table'),
  h('label', { for: 'join-code' }, 'Table code or link'), codeInput,
  h('button', { type: 'submit', 'data-testid': 'join-code-submit' }, 'Join'));

  const createForm = buildCreateForm(app);

  root.append(h('section', { class: 'lobby', 'aria-labelledby': 'lobby-title' },
    h('h1', { id: 'lobby-title', class: 'visually-hidden' }, 'Lobby'),
    h('div', { class: 'lobby-grid' },
      h('div', { class: 'lobby-side' }, quickPlay, joinForm, createForm),
      h('div', { class: 'lobby-main' },
        h('section', { class: 'card-panel', 'aria-labelledby': 'rooms-title' },
          h('h2', { id: 'rooms-title' }, 'Open tables'),
          h('table', { class: 'rooms', 'data-testid': 'room-list' },
            h('thead', {}, h('tr', {},
              h('th', { scope: 'col' }, 'Table'), h('th', { scope: 'col' }, 'Rules'),
              h('th', { scope: 'col' }, 'Players'), h('th', { scope: 'col' }, 'Status'),
              h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Action')))),
            roomsBody)),
        h('section', { class: 'card-panel', 'aria-labelledby': 'board-title' },
          h('h2', { id: 'board-title' }, 'Leaderboard'),
          h('table', { class: 'leaderboard', 'data-testid': 'leaderboard' },
            h('thead', {}, h('tr', {},
              h('th', { scope: 'col' }, 'Rank'), h('th', { scope: 'col' }, 'Player'),
              h('th', { scope: 'col' }, 'Rating'), h('th', { scope: 'col' }, 'Games'))),
            leaderboardBody),
          leaderboardNav)))));

  function drawRooms() {
    const rooms = app.lobby.list;
    if (!rooms.length) {
      fill(roomsBody, h('tr', {}, h('td', { colspan: 5, class: 'empty' }, 'No open tables. Open one, or try quick play.')));
      return;
    }
    fill(roomsBody, rooms.map((room) => {
      const seated = room.seats.filter(Boolean);
      const canSit = room.status !== 'playing' && seated.length < room.seats.length;
      return h('tr', { 'data-testid': 'room-row', 'data-room': room.room },
        h('th', { scope: 'row' }, h('span', { class: 'room-name' }, room.name), ' ', h('code', {}, room.room)),
        h('td', {}, room.rules),
        h('td', {}, `${seated.length}/${room.seats.length} `,
          h('span', { class: 'hint' }, seated.map((p) => (p.bot ? `${p.name} (bot)` : p.name)).join(', ')),
          room.spectators ? h('span', { class: 'hint' }, ` · ${room.spectators} watching`) : null),
        h('td', {}, room.status),
        h('td', {}, h('button', {
          type: 'button',
          'data-testid': 'room-join',
          'data-room': room.room,
          'aria-label': `${canSit ? 'Join' : 'Watch'} ${room.name}`,
          onclick: () => app.navigate('room', room.room),
        }, canSit ? 'Join' : 'Watch')));
    }));
  }

  async function loadLeaderboard() {
    try {
      const board = await app.api.leaderboard(leaderboardPage, 10);
      fill(leaderboardBody, board.players.length ? board.players.map((player) => h('tr', { 'data-testid': 'leaderboard-row' },
        h('td', {}, String(player.rank)),
        h('th', { scope: 'row' }, h('a', { href: hashFor('profile', player.id) }, player.name)),
        h('td', {}, String(Math.round(player.rating))),
        h('td', {}, `${player.games_won}/${player.games_played} won`)))
        : h('tr', {}, h('td', { colspan: 4, class: 'empty' }, 'No rated players yet.')));
      const pages = Math.max(1, Math.ceil(board.total / board.per_page));
      fill(leaderboardNav,
        h('button', { type: 'button', 'data-testid': 'leaderboard-prev', disabled: leaderboardPage <= 1, onclick: () => { leaderboardPage -= 1; loadLeaderboard(); } }, 'Previous'),
        h('span', {}, `Page ${leaderboardPage} of ${pages}`),
        h('button', { type: 'button', 'data-testid': 'leaderboard-next', disabled: leaderboardPage >= pages, onclick: () => { leaderboardPage += 1; loadLeaderboard(); } }, 'Next'));
    } catch (error) {
      fill(leaderboardBody, h('tr', {}, h('td', { colspan: 4, class: 'error' }, describe(error))));
    }
  }

  function watch() {
    client.watchLobby().catch((error) => app.notify(error, 'error'));
    client.listRooms().catch((error) => app.notify(error, 'error'));
  }

  // After a reconnect the client watches the lobby again by itself, but
  // the list it had may be stale.
  const offStatus = client.on('status', (status, detail) => {
    if (status === 'ready' && detail.reconnected) client.listRooms().catch(() => {});
  });
  watch();
  loadLeaderboard();
  queueTimer = setInterval(drawQueue, 1000);

  return {
    update() {
      drawRooms();
      drawQueue();
    },
    unmount() {
      offStatus();
      clearInterval(queueTimer);
      client.unwatchLobby().catch(() => {});
    },
  };
}

function buildCreateForm(app) {
  const field = (id, label, input) => h('div', { class: 'field' }, h('label', { for: id }, label), input);
  const name = h('input', { id: 'room-name', maxlength: 24, placeholder: 'optional', 'data-testid': 'room-name' });
  const preset = h('select', { id: 'room-preset', 'data-testid': 'room-preset' },
    h('option', { value: 'classic' }, 'Classic'), h('option', { value: 'tournament' }, 'Tournament'));
  const bots = h('select', { id: 'room-bots', 'data-testid': 'room-bots' },
    h('option', { value: 'basic' }, 'Basic'), h('option', { value: 'strong' }, 'Strong'));
  const isPrivate = h('input', { id: 'room-private', type: 'checkbox', 'data-testid': 'room-private' });
  const noMercy = h('input', { id: 'rule-no_mercy', type: 'checkbox', 'data-testid': 'rule-no_mercy' });
  const blindNil = h('select', { id: 'rule-blind_nil', 'data-testid': 'rule-blind_nil' },
    h('option', { value: '' }, 'As the preset'), h('option', { value: 'true' }, 'Allowed'), h('option', { value: 'false' }, 'Not allowed'));
  const passOrder = h('select', { id: 'rule-pass_order', 'data-testid': 'rule-pass_order' },
    h('option', { value: '' }, 'As the preset'), h('option', { value: 'sequential' }, 'Nil bidder first'),
    h('option', { value: 'simultaneous' }, 'Both at once'));
  const inputs = Object.fromEntries(RULE_FIELDS.map(([key, , min, max]) => [key,
    h('input', { id: `rule-${key}`, type: 'number', step: 1, min, max, inputmode: 'numeric', 'data-testid': `rule-${key}` })]));
  const choices = Object.fromEntries(CHOICE_FIELDS.map(([key, , options]) => [key,
    h('select', { id: `rule-${key}`, 'data-testid': `rule-${key}` },
      h('option', { value: '' }, 'As the preset'),
      options.map(([value, label]) => h('option', { value }, label)))]));

  const presetSummary = h('p', { class: 'hint', 'data-testid': 'room-preset-summary' });

  // The placeholders show the preset's values, so an empty box says what it keeps.
  function showDefaults() {
    const rules = PRESET_DEFAULTS[preset.value] ?? PRESET_DEFAULTS.classic;
    for (const [key, input] of Object.entries(inputs)) {
      const value = rules[key];
      input.placeholder = value === '' || value === null || value === undefined ? 'none' : String(value);
    }
  }
  preset.addEventListener('change', showDefaults);
  showDefaults();
  app.api.presets().then((presets) => {
    for (const { name: presetName, rules } of presets) PRESET_DEFAULTS[presetName] = rules;
    fillPresets(preset, presets, presetSummary);
    showDefaults();
  }, () => {});

  return h('form', {
    class: 'card-panel',
    'data-testid': 'create-room-form',
    onsubmit: async (event) => {
      event.preventDefault();
      const rules = { preset: preset.value };
      for (const [key, input] of Object.entries(inputs)) {
        if (input.value !== '') rules[key] = Number(input.value);
      }
      if (noMercy.checked) rules.no_mercy = true;
      if (blindNil.value) rules.blind_nil = blindNil.value === 'true';
      if (passOrder.value) rules.pass_order = passOrder.value;
      for (const [key, select] of Object.entries(choices)) {
        if (select.value === 'true' || select.value === 'false') rules[key] = select.value === 'true';
        else if (select.value) rules[key] = select.value;
      }
      // Three players sit without partners.
      if (rules.partners === 'three') {
        rules.partners = false;
        rules.players = 3;
      } else if (rules.partners !== undefined) {
        rules.players = 4;
      }
      // Solo has nobody to pass cards to: the exchanges are off unless
      // the player set them (and the server then says why it refuses).
      if (rules.partners === false) {
        rules.nil_pass ??= 0;
        rules.blind_nil_pass ??= 0;
      }
      const options = { rules, private: isPrivate.checked, bots: bots.value };
      if (name.value.trim()) options.name = name.value.trim();
      try {
        const snapshot = await app.client.createRoom(options);
        app.navigate('room', snapshot.state.room);
      } catch (error) {
        app.notify(describe(error), 'error');
      }
    },
  },
  h('h2', {}, 'Open a table'),
  field('room-name', 'Table name', name),
  field('room-preset', 'Rules', preset),
  presetSummary,
  field('room-bots', 'Bot level', bots),
  h('div', { class: 'field check' }, isPrivate, h('label', { for: 'room-private' }, 'Private (not listed; share the link)')),
  h('details', { class: 'rules-details' },
    h('summary', { 'data-testid': 'rule-options' }, 'Rule options'),
    RULE_FIELDS.map(([key, label]) => field(`rule-${key}`, label, inputs[key])),
    h('div', { class: 'field check' }, noMercy, h('label', { for: 'rule-no_mercy' }, 'No loss threshold')),
    field('rule-blind_nil', 'Blind nil', blindNil),
    field('rule-pass_order', 'Exchange order', passOrder),
    CHOICE_FIELDS.map(([key, label]) => field(`rule-${key}`, label, choices[key]))),
  h('button', { type: 'submit', class: 'primary', 'data-testid': 'create-room' }, 'Open table'));
}
