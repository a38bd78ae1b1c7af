// One tournament, followed live: its entrants, the bracket (knockout) or
// standings (Swiss, duplicate), the final places, registering and
// withdrawing, and the organiser's controls; for a duplicate tournament,
// each board of a finished round table by table.

import { cx, formatDate, h } from '../dom.js';
import {
  formatText, isDuplicate, percentages, percentText, roundBoards, roundOver,
} from '../duplicate.js';
import { describe } from '../messages.js';
import { hashFor } from '../router.js';
import { signed } from '../same-deals.js';
import { SEAT_NAMES } from '../seating.js';
import { teamsFromRules } from '../state.js';

// A tournament table is a partnership game; the tournament's view says
// which entry sits in each seat, and no snapshot says who partners whom.
const TEAMS = teamsFromRules(null);

function Controls({ t, entry, organiser, actions }) {
  const controls = [];
  if (t.status === 'open') {
    controls.push(entry
      ? h('button', { type: 'button', onclick: actions.tournamentWithdraw }, 'Withdraw')
      : h('button', { type: 'button', class: 'primary', onclick: actions.tournamentRegister }, 'Register'));
  }
  if (organiser && t.status === 'open') {
    controls.push(h('form', {
      class: 'inline-field',
      onsubmit: (event) => {
        event.preventDefault();
        actions.tournamentAddBots(Number(event.currentTarget.elements.count.value));
      },
    },
    h('label', { for: 'bots-count' }, 'Bots'),
    h('input', { id: 'bots-count', name: 'count', type: 'number', min: 1, max: t.max_players, defaultValue: Math.max(1, 4 - t.players) }),
    h('button', { type: 'submit' }, 'Add bots')));
    controls.push(h('button', { type: 'button', class: 'primary', onclick: actions.tournamentStart }, 'Start now'));
  }
  if (organiser && (t.status === 'open' || t.status === 'running')) {
    controls.push(h('button', { type: 'button', onclick: actions.tournamentCancel }, 'Cancel tournament'));
  }
  return controls.length ? h('div', { class: 'button-row' }, controls) : null;
}

export function Screen({ app, actions }) {
  const { data: t, error } = app.tournament;
  if (!t) {
    return h('section', { class: 'tournament' }, error
      ? h('p', { class: 'error', role: 'alert' }, describe(error))
      : h('p', { class: 'loading' }, 'Loading the tournament…'));
  }
  const entry = t.entrants.find((e) => e.account_id === app.player?.id);
  const organiser = app.me && (app.me.can_organize || app.me.is_admin);
  const names = entrantLabels(t.entrants);
  const mine = myTable(t, entry);
  const duplicate = isDuplicate(t.format);
  // The boards of the rounds the player opened, worked out once for the
  // boards and for the standings' percentages.
  const boards = app.tournament.boards ?? {};
  const loaded = {};
  if (duplicate) {
    for (const stage of t.stages) {
      if (boards[stage.stage]?.histories) loaded[stage.stage] = roundBoards(stage, boards[stage.stage].histories);
    }
  }
  return h('section', { class: 'tournament', 'aria-labelledby': 'tournament-title', 'aria-live': 'polite' },
    h('h1', { id: 'tournament-title' }, t.name),
    h('p', {},
      h('span', { class: 'badge' }, h('span', { class: 'visually-hidden' }, 'Status: '), t.status), ' ',
      formatText(t),
      ` · ${t.players}/${t.max_players} players · organised by ${t.organizer_name}`,
      t.starts_at && t.status === 'open' ? ` · starts ${formatDate(t.starts_at)}` : '',
      t.status === 'open' && !t.starts_at ? ' · starts when full' : ''),
    entry ? h('p', {}, `You are entry ${entry.entry + 1}.`) : null,
    mine ? h('p', { class: 'banner good' }, 'Your table is being played. ',
      h('a', { class: 'button primary', href: hashFor('room', mine.room) }, 'Go to your table')) : null,
    h(Controls, { t, entry, organiser, actions }),
    t.status === 'finished' ? places(t, names) : null,
    (t.format === 'swiss' || duplicate) && t.entrants.length ? standings(t, names, loaded) : null,
    t.stages.length ? bracket(t, names) : null,
    duplicate && t.stages.length ? h(Boards, { t, names, boards, loaded, entry, actions }) : null,
    entrants(t, names));
}

function myTable(t, entry) {
  if (!entry || t.status !== 'running') return null;
  for (const stage of t.stages) {
    for (const table of stage.tables) {
      if (table.status === 'playing' && table.seats.includes(entry.entry)) return table;
    }
  }
  return null;
}

/**
 * Each entry's name as the page shows it, by entry number. A bot is said
 * to be one, and entrants who share a name (the bots all share theirs)
 * are told apart by their entry numbers: "Basic bot #3".
 */
function entrantLabels(entrants) {
  const count = new Map();
  for (const e of entrants) count.set(e.name, (count.get(e.name) ?? 0) + 1);
  return new Map(entrants.map((e) => {
    const name = count.get(e.name) > 1 ? `${e.name} #${e.entry + 1}` : e.name;
    return [e.entry, e.bot && !/\bbot\b/i.test(e.name) ? `${name} (bot)` : name];
  }));
}

const entrantName = (names, number) => names.get(number) ?? `Entry ${number + 1}`;
const sideNames = (names, entries) => entries.map((entry) => entrantName(names, entry)).join(' & ');
// "North–South" and "East–West", and their short forms.
const SIDE_NAMES = TEAMS.map((seats) => seats.map((seat) => SEAT_NAMES[seat]).join('–'));
const SIDE_SHORT = TEAMS.map((seats) => seats.map((seat) => SEAT_NAMES[seat][0]).join('–'));

function bracketTable(stage, table, names, duplicate) {
  const team = (index) => sideNames(names, TEAMS[index].map((seat) => table.seats[seat]));
  // In a duplicate tournament the game's winner gains nothing: each side
  // is scored against those who held its cards at the other tables.
  const won = (index) => !duplicate && table.winner === index;
  const line = (index) => h('li', { class: won(index) ? 'winner' : '' },
    duplicate ? [h('abbr', { title: SIDE_NAMES[index] }, SIDE_SHORT[index]), ': '] : null, team(index),
    table.score ? h('span', { class: 'score' }, ` ${table.score[index]}`) : null,
    won(index) ? h('span', { class: 'visually-hidden' }, ' (won)') : null);
  const title = `stage-${stage.stage}-table-${table.table}`;
  return h('div', { key: table.table, class: 'bracket-table card-panel', role: 'group', 'aria-labelledby': title },
    h('h3', { id: title }, `Table ${table.table + 1}`, h('span', { class: 'hint' }, ` · ${table.status}`)),
    h('ul', {}, TEAMS.map((_, index) => line(index))),
    table.status === 'playing' && table.room ? h('a', { href: hashFor('room', table.room) }, 'Watch') : null,
    table.status === 'finished' && table.game ? h('a', { href: hashFor('replay', table.game) }, 'Replay') : null);
}

function bracket(t, names) {
  const rounds = t.format !== 'knockout';
  const duplicate = isDuplicate(t.format);
  return h('section', { class: 'bracket', 'aria-label': rounds ? 'Rounds' : 'Bracket' },
    t.stages.map((stage) => h('div', { key: stage.stage, class: 'bracket-stage' },
      h('h2', {}, `${rounds ? 'Round' : 'Stage'} ${stage.stage + 1}`),
      stage.tables.map((table) => bracketTable(stage, table, names, duplicate)))));
}

function standings(t, names, loaded) {
  const duplicate = isDuplicate(t.format);
  const rows = [...t.entrants].sort((a, b) => b.points - a.points || b.score_diff - a.score_diff);
  const shares = duplicate ? percentages(t, loaded) : null;
  // The percentage's column is headed "%" on the page, so that the four
  // columns fit a phone, and "Percentage" for screen readers.
  const heads = duplicate
    ? [['Player'], ['Matchpoints'], ['%', 'Percentage'], ['+/− points vs. the same cards']]
    : [['Player'], ['Points'], ['Margin']];
  const figures = (e) => (duplicate
    ? [String(e.points), percentText(shares.get(e.entry).percent), signed(e.score_diff)]
    : [String(e.points), String(e.score_diff)]);
  return h('section', { class: 'card-panel', 'aria-labelledby': 'standings-title' }, h('h2', { id: 'standings-title' }, 'Standings'),
    h('table', { class: 'standings', 'aria-labelledby': 'standings-title' },
      h('thead', {}, h('tr', {}, heads.map(([label, name]) => h('th', { scope: 'col', key: label, 'aria-label': name ?? null }, label)))),
      h('tbody', {}, rows.map((e) => h('tr', { key: e.entry },
        h('th', { scope: 'row' }, entrantName(names, e.entry)),
        figures(e).map((figure, index) => h('td', { key: index }, figure)))))),
    duplicate ? h('p', { class: 'hint' },
      'On each board a pair earns 2 matchpoints for every pair that held the same cards at another table and scored less, '
      + 'and 1 for each that scored the same; the percentage is of the most it could have earned in the rounds over so far.') : null);
}

/**
 * The boards of a duplicate tournament: for each round over at every
 * table, a button that shows each board as every table played it. The
 * histories are loaded only when a round's boards are first opened.
 */
function Boards({ t, names, boards, loaded, entry, actions }) {
  return h('section', { class: 'card-panel boards', 'aria-labelledby': 'boards-title' },
    h('h2', { id: 'boards-title' }, 'Boards'),
    t.stages.map((stage) => {
      const round = stage.stage + 1;
      if (!roundOver(stage)) {
        return h('p', { key: stage.stage, class: 'hint' }, `Round ${round}: its boards are shown once every table has played them.`);
      }
      const shown = boards[stage.stage];
      const id = `boards-round-${round}`;
      return h('div', { key: stage.stage, class: 'round-boards' },
        h('button', {
          type: 'button', 'aria-expanded': String(Boolean(shown?.open)), 'aria-controls': shown?.open ? id : null,
          onclick: () => actions.tournamentBoards(stage.stage),
        }, `Boards of round ${round}`),
        shown?.open ? h(RoundBoards, { id, t, round, shown, boards: loaded[stage.stage], names, entry, actions, stage }) : null);
    }));
}

function RoundBoards({ id, t, round, shown, boards, names, entry, actions, stage }) {
  const label = `Boards of round ${round}`;
  let content;
  if (shown.loading) content = h('p', { role: 'status', class: 'loading' }, 'Loading the boards…');
  else if (shown.error) {
    content = h('div', { role: 'alert' }, h('p', { class: 'error' }, describe(shown.error)),
      h('button', { type: 'button', onclick: () => actions.tournamentBoards(stage.stage, true) }, 'Try again'));
  } else if (!boards?.length) content = h('p', { class: 'hint' }, 'No board of this round was recorded.');
  else {
    content = [
      h('p', { class: 'hint' }, 'Each side’s points on the board, and the matchpoints (MP) they earned against the same side at the other tables.'),
      boards.map((board) => boardTable(board, round, t.rules?.max_hands, names, entry)),
    ];
  }
  // Only the loading and the refusal are announced, not every table.
  return h('div', { id, class: 'round-boards-content', role: 'region', 'aria-label': label, 'aria-live': 'off' }, content);
}

/**
 * One board, a row per table that played it: who sat North–South and
 * East–West, each side's bids, tricks, points and matchpoints. The table
 * scrolls sideways by itself when a phone is too narrow for it, the
 * table's number staying in sight.
 */
function boardTable(board, round, boardsPerRound, names, entry) {
  const title = `round-${round}-board-${board.hand + 1}`;
  const extra = boardsPerRound && board.hand >= boardsPerRound ? ' (played to break a tie)' : '';
  const top = board.top ? `at most ${board.top} MP` : 'no other table played it';
  const col = (label, name) => h('th', { scope: 'col', 'aria-label': name ?? null }, label);
  const cols = () => [col('Players'), col('Bids'), col('Tricks'), col('Points'), col(h('abbr', { title: 'Matchpoints' }, 'MP'), 'Matchpoints')];
  // The viewer's own side stands out: the side, not the row, since a
  // phone may show only one side of the table at a time.
  const cells = (side) => {
    const mine = entry && side.entries.includes(entry.entry) ? 'mine' : null;
    // Each name is kept whole, the first with its "&"; a pair's names
    // wrap between them.
    const players = side.entries.flatMap((number, index) => [
      index ? ' ' : null, h('span', { class: 'name' }, entrantName(names, number), index < side.entries.length - 1 ? ' &' : ''),
    ]);
    return [
      h('td', { class: cx('players', mine) }, players), h('td', { class: mine }, side.bids), h('td', { class: mine }, String(side.tricks)),
      h('td', { class: mine }, String(side.points)), h('td', { class: cx('mp', mine) }, board.top ? String(side.matchpoints) : '—'),
    ];
  };
  return h('div', { key: board.hand, class: 'board' },
    h('h3', { id: title }, `Board ${board.hand + 1}${extra}`, h('span', { class: 'hint' }, ` · ${top}`)),
    h('div', { class: 'table-scroll', tabindex: '0', role: 'group', 'aria-label': `Board ${board.hand + 1}, table by table` },
      h('table', { class: 'boards-table', 'aria-labelledby': title },
        h('thead', {},
          h('tr', {},
            h('th', { scope: 'col', rowspan: 2 }, 'Table'),
            SIDE_NAMES.map((side) => h('th', { scope: 'colgroup', colspan: 5, key: side }, side))),
          h('tr', {}, cols(), cols())),
        h('tbody', {}, board.rows.map((row) => h('tr', { key: row.table },
          h('th', { scope: 'row' }, String(row.table + 1)),
          row.sides.map(cells)))))));
}

function places(t, names) {
  const rows = t.entrants.filter((e) => e.place !== null && e.place !== undefined)
    .sort((a, b) => a.place - b.place || a.name.localeCompare(b.name));
  return h('section', { class: 'card-panel', 'aria-labelledby': 'places-title' }, h('h2', { id: 'places-title' }, 'Final places'),
    // Places can be shared, so the list carries its own numbers.
    h('ul', { class: 'places', 'aria-labelledby': 'places-title' }, rows.map((e) => h('li', { key: e.entry },
      h('strong', {}, `${ordinal(e.place)} `), entrantName(names, e.entry)))));
}

function ordinal(place) {
  const suffix = place % 10 === 1 && place % 100 !== 11 ? 'st'
    : place % 10 === 2 && place % 100 !== 12 ? 'nd'
      : place % 10 === 3 && place % 100 !== 13 ? 'rd' : 'th';
  return `${place}${suffix}`;
}

function entrants(t, names) {
  return h('section', { class: 'card-panel', 'aria-labelledby': 'entrants-title' },
    h('h2', { id: 'entrants-title' }, `Entrants (${t.entrants.length})`),
    t.entrants.length
      ? h('ul', { class: 'entrants', 'aria-labelledby': 'entrants-title' }, t.entrants.map((e) => h('li', { key: e.entry },
        entrantName(names, e.entry))))
      : h('p', { class: 'hint' }, 'Nobody has registered yet.'));
}
