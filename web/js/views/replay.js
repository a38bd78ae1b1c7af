// A finished game replayed hand by hand and card by card from
// GET /api/games/{id}/history, with every hand face up.

import { cx, formatDate, h } from '../dom.js';
import { cardName, shortName } from '../cards.js';
import { describe } from '../messages.js';
import { positionAt, scoreBefore } from '../replay.js';
import { handMarks, pendingWords, reviewSummary } from '../review.js';
import { hashFor } from '../router.js';
import { compareDeals, signed } from '../same-deals.js';
import { teamsFromRules } from '../state.js';
import { SEAT_NAMES, bidText, positionOf } from '../seating.js';
import { CardFace } from './card.js';

const KEYS = { ArrowRight: 'next-step', ArrowLeft: 'prev-step', PageDown: 'next-hand', PageUp: 'prev-hand' };

function seatNames(game) {
  const names = [...SEAT_NAMES];
  for (const p of game?.players ?? []) names[p.seat] = p.name;
  return names;
}

function stepText(record, position, names) {
  const step = position.step;
  switch (step.kind) {
    case 'deal': return `${names[record.dealer]} deals.`;
    case 'bid': {
      const bid = record.bids[step.index];
      return `${names[bid.seat]}: ${bidText(bid)}.`;
    }
    case 'pass': {
      const pass = record.passes[step.index];
      return `${names[pass.from]} gives ${pass.cards.map(shortName).join(' ')} to ${names[pass.to]}.`;
    }
    case 'play': return `Trick ${step.trick + 1}: ${names[step.seat]} plays ${cardName(step.card)}.`;
    case 'trick': return `Trick ${step.trick + 1} goes to ${names[step.seat]}.`;
    case 'score': return 'The hand is scored.';
    default: return '';
  }
}

// A record has one score per team: two partnerships, or each player alone
// (four in solo, three in a three-player game). No snapshot says who
// partners whom here, so the teams follow the record's rules.
function ScoreBlock({ record, names }) {
  const teams = teamsFromRules(record.rule_set ?? (record.score.length === 2 ? null : { partners: false, players: record.score.length }));
  const team = (t) => teams[t].map((seat) => names[seat]).join(' & ');
  const verb = teams[0].length > 1 ? 'win' : 'wins';
  const row = (label, value) => h('tr', {}, h('th', { scope: 'row' }, label), teams.map((_, t) => h('td', {}, String(value(t)))));
  return h('table', { class: 'hand-score' },
    h('caption', {}, record.winner === null || record.winner === undefined ? 'Hand score' : `Hand score · ${team(record.winner)} ${verb} the game`),
    h('thead', {}, h('tr', {}, h('td', {}), teams.map((_, t) => h('th', { scope: 'col' }, team(t))))),
    h('tbody', {},
      row('Tricks', (t) => teams[t].reduce((sum, seat) => sum + record.tricks_won[seat], 0)),
      row('This hand', (t) => record.hand_score[t]),
      row('Score', (t) => record.score[t]),
      row('Bags', (t) => record.bags[t])));
}

/**
 * One short line on the deals (verify.js's `checkDeals`): verified, with
 * the seed and commitment it rests on; a warning naming the hand (counted
 * from 1, as the replay counts) where the check failed; or, plainly, why
 * nothing could be checked. The commitment is cut short on the page, in
 * full on hover, so that the line stays two or three lines on a phone.
 */
export function DealCheck({ deals }) {
  const line = (kind, ...children) => h('p', { class: cx('deal-check', kind) }, ...children);
  if (!deals) return line('hint', 'Checking the deals…');
  if (deals.kind === 'old') return line('hint', 'This game was stored before deals were committed.');
  // A page that could not check says so in a whole sentence of its own.
  if (deals.unchecked) return line('hint', deals.reason);
  if (deals.kind !== 'verified') {
    const where = deals.hand === null || deals.hand === undefined ? '' : `hand ${deals.hand + 1}: `;
    return line('warn', h('strong', {}, 'Deal check failed: '), `${where}${deals.reason}.`);
  }
  const hands = deals.hands === 1 ? 'Hand 1 was' : `Hands 1–${deals.hands} were`;
  const commitment = h('code', { title: deals.commitment }, `${deals.commitment.slice(0, 12)}…`);
  return line('good', h('strong', {}, 'Deals verified. '), h('span', { class: 'hint' },
    `${hands} dealt from seed `, h('code', {}, deals.seed), ', which matches the commitment ', commitment,
    deals.received ? ', the same commitment this browser received when the game started.' : '.'));
}

function Controls({ playing, actions }) {
  const control = (kind, label, text) => h('button', { type: 'button', 'aria-label': label, onclick: () => actions.replayMove(kind) }, text);
  return h('div', { class: 'replay-controls', role: 'toolbar', 'aria-label': 'Replay controls' },
    control('prev-hand', 'Previous hand', '« Hand'),
    control('prev-trick', 'Previous trick', '‹ Trick'),
    control('prev-step', 'Previous step', '‹ Step'),
    h('button', { type: 'button', 'aria-pressed': String(playing), onclick: actions.replayToggle }, playing ? 'Pause' : 'Play'),
    control('next-step', 'Next step', 'Step ›'),
    control('next-trick', 'Next trick', 'Trick ›'),
    control('next-hand', 'Next hand', 'Hand »'));
}

/**
 * The player's review (README, "Reviews"), for a player of the game: the
 * button to ask for it, its place in the server's queue while it waits,
 * then the summary and the marks of the hand shown, each with a button
 * that shows where it was made. The mark of the step shown stands out.
 */
function Review({ review, marks, hand, step, actions }) {
  const { data } = review;
  const others = data ? [...new Set(data.marks.map((mark) => mark.hand))].filter((other) => other !== hand) : [];
  const markList = () => h('ul', { class: 'review-marks', 'aria-label': `Marks in hand ${hand + 1}` },
    marks.map(({ mark, words, step: at }, index) => {
      const current = at >= 0 && at === step;
      return h('li', { key: index, class: cx('review-mark', current && 'current'), 'aria-current': current ? 'step' : null },
        h('span', {}, words),
        at >= 0 ? h('button', {
          type: 'button', class: 'link',
          'aria-label': mark.trick ? `Show trick ${mark.trick}` : 'Show your bid',
          onclick: () => actions.replayShow(hand, at),
        }, 'Show') : null);
    }));
  return h('section', { class: 'review', 'aria-labelledby': 'review-title' },
    h('h2', { id: 'review-title' }, 'Review of your play'),
    data ? null : h('div', { class: 'review-ask' },
      h('button', { type: 'button', disabled: review.asking || Boolean(review.pending), onclick: actions.reviewAsk }, 'Review my play'),
      h('span', { class: 'hint' }, 'The expert bot weighs your bids and cards, knowing only what you knew.')),
    // One live line, there from the start, so that a screen reader hears
    // the wait move on and then the review's summary.
    h('p', { role: 'status', class: cx('review-status', data && 'review-summary') },
      data ? reviewSummary(data) : (review.pending ? pendingWords(review.pending) : '')),
    review.error ? h('p', { class: 'error', role: 'alert' }, describe(review.error)) : null,
    data && marks.length ? markList() : null,
    // With no mark at all, the summary has said so already.
    data && !marks.length && data.marks.length ? h('p', { class: 'hint' }, `Nothing marked in hand ${hand + 1}.`) : null,
    others.length ? h('p', { class: 'hint' }, `Other hands with marks: ${others.sort((a, b) => a - b).map((other) => other + 1).join(', ')}.`) : null);
}

/**
 * The other game on the same deals beside this one: for each hand both
 * played, the cards of seat 0's side (North–South), who held them in each
 * game, their bids, tricks and points, and the difference. The table
 * scrolls sideways on its own when a phone is too narrow for it.
 */
function SameDeals({ replay, hand }) {
  const other = replay.sameDeals;
  const head = h('h2', { id: 'same-deals-title' }, 'Same deals, played again');
  const link = h('a', { href: hashFor('replay', other.id) }, other.first ? 'Replay the first game' : 'Replay the game played again');
  if (!other.records) {
    return h('section', { class: 'same-deals', 'aria-labelledby': 'same-deals-title' }, head,
      other.error ? h('p', { class: 'error' }, describe(other.error), ' ', link) : h('p', { class: 'hint' }, 'Loading the other game…'));
  }
  const here = { game: replay.game, records: replay.records };
  const there = { game: other.game, records: other.records };
  const { sideName, names, rows, total } = other.first ? compareDeals(there, here) : compareDeals(here, there);
  const thisOne = h('span', { class: 'hint' }, ' (this replay)');
  const group = (label, who, shown) => h('th', { scope: 'colgroup', colspan: 3 }, label, shown ? thisOne : null, h('br'), who);
  const col = (label) => h('th', { scope: 'col' }, label);
  const cells = (part) => [h('td', {}, part.bids), h('td', {}, String(part.tricks)), h('td', {}, String(part.points))];
  return h('section', { class: 'same-deals', 'aria-labelledby': 'same-deals-title' }, head,
    h('p', { class: 'hint' },
      `The ${sideName} cards of each hand: held by ${names[0]} in the first game and by ${names[1]} when the deals were played again, everyone one seat to the left. `,
      'The difference is the second game’s points less the first’s. ',
      link),
    // Focusable, so that a keyboard can scroll it where it is too wide.
    h('div', { class: 'table-scroll', tabindex: '0', role: 'group', 'aria-label': 'Same deals, hand by hand' },
      h('table', { class: 'same-deals-table', 'aria-labelledby': 'same-deals-title' },
        h('thead', {},
          h('tr', {},
            h('th', { scope: 'col', rowspan: 2 }, 'Hand'),
            group('First game', names[0], other.first === false),
            group('Played again', names[1], other.first),
            h('th', { scope: 'col', rowspan: 2 }, 'Difference')),
          h('tr', {}, col('Bids'), col('Tricks'), col('Points'), col('Bids'), col('Tricks'), col('Points'))),
        h('tbody', {}, rows.map((row) => h('tr', {
          key: row.hand, class: cx(row.hand === hand && 'current'), 'aria-current': row.hand === hand ? 'true' : null,
        },
        h('th', { scope: 'row' }, String(row.hand + 1), row.sameCards ? null : h('span', { class: 'error' }, ' (dealt differently)')),
        cells(row.first), cells(row.second),
        h('td', { class: 'difference' }, signed(row.difference))))),
        rows.length > 1 ? h('tfoot', {}, h('tr', {},
          h('th', { scope: 'row' }, 'All'), h('td', { colspan: 2 }), h('td', {}, String(total.first)),
          h('td', { colspan: 2 }), h('td', {}, String(total.second)),
          h('td', { class: 'difference' }, signed(total.difference)))) : null)));
}

function Felt({ game, record, position, names, marked }) {
  const where = (seat) => positionOf({ seat: null, rules: game.rules }, seat);
  const teams = teamsFromRules(game.rules);
  // Partnerships wear their colours; in solo nobody shares one.
  const teamClass = (seat) => {
    const team = teams.findIndex((seats) => seats.includes(seat));
    return teams[team]?.length > 1 ? `team-${team}` : null;
  };
  const trick = position.trick ?? (position.step.kind === 'trick' ? position.lastTrick : null);
  return h('div', { class: 'felt replay-felt' },
    record.hands.map((_, seat) => h('section', { key: seat, class: cx('seat', `pos-${where(seat)}`, teamClass(seat)), 'aria-label': `${names[seat]} (${SEAT_NAMES[seat]})` },
      h('div', { class: 'seat-compass' }, SEAT_NAMES[seat]),
      h('div', { class: 'seat-name' }, names[seat]),
      h('div', { class: cx('seat-score', marked?.kind === 'bid' && marked.seat === seat && 'marked') },
        `${bidText(position.bids[seat]) ?? 'No bid yet'} · Took ${position.tricksWon[seat]}`),
      h('div', { class: 'replay-hand', role: 'group', 'aria-label': `${names[seat]}'s cards` },
        position.hands[seat].map((card) => h(CardFace, { key: card, card, extra: 'small' }))))),
    h('div', { class: 'felt-center' },
      h('div', { class: 'trick', role: 'group', 'aria-label': 'Cards on the table' },
        (trick?.plays ?? []).map(({ seat, card }) => h(CardFace, {
          key: card, card, extra: cx('in-trick', `pos-${where(seat)}`, marked?.kind === 'play' && marked.card === card && 'marked'),
          label: `${names[seat]} played ${cardName(card)}`,
        })))));
}

export function Screen({ app, actions }) {
  const { game, records, error, hand, step, playing, deals } = app.replay;
  if (!records) {
    return h('section', { class: 'replay' }, error
      ? h('p', { class: 'error', role: 'alert' }, describe(error))
      : h('p', { class: 'loading' }, 'Loading the replay…'));
  }
  if (!records.length) {
    return h('section', { class: 'replay', 'aria-labelledby': 'replay-title' },
      h('h1', { id: 'replay-title' }, 'Replay'), h('p', {}, 'This game has no complete hand to show.'));
  }
  const record = records[hand];
  const position = positionAt(record, step);
  const names = seatNames(game);
  const before = scoreBefore(records, hand);
  // Only a player of the game may ask for its review of his play.
  const mine = Boolean(app.player?.id) && (game.players ?? []).some((player) => player.account_id === app.player.id);
  const review = app.replay.review;
  const marks = review.data ? handMarks(review.data, record.hand ?? hand, record) : [];
  const atMark = marks.find((item) => item.step >= 0 && item.step === position.stepIndex);
  const marked = atMark ? { seat: review.data.seat, kind: position.step.kind, card: position.step.card } : null;
  const onkeydown = (event) => {
    // The arrows scroll the same-deals table while it has the focus.
    if (!KEYS[event.key] || event.target.matches('input, select, textarea, .table-scroll')) return;
    event.preventDefault();
    actions.replayMove(KEYS[event.key]);
  };
  return h('section', { class: 'replay', 'aria-labelledby': 'replay-title', onkeydown },
    h('h1', { id: 'replay-title' }, `Replay: ${game.room_name}`),
    h('p', { class: 'hint' }, `${formatDate(game.started_at)} · final score ${game.score ? game.score.join(' to ') : '?'}`),
    h(DealCheck, { deals }),
    h(Controls, { playing, actions }),
    h('p', {}, `Hand ${hand + 1} of ${records.length} · dealer ${names[record.dealer]} · before it: ${before.score.join(' to ')}`),
    h('p', { role: 'status', 'aria-label': 'Replay position' }, stepText(record, position, names)),
    mine ? h(Review, { review, marks, hand, step: position.stepIndex, actions }) : null,
    h(Felt, { game, record, position, names, marked }),
    position.scored ? h(ScoreBlock, { record, names }) : null,
    app.replay.sameDeals ? h(SameDeals, { replay: app.replay, hand }) : null);
}
