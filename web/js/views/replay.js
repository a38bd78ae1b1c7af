// A finished game replayed hand by hand and card by card from
// GET /api/games/{id}/history, with every hand face up.

import { fill, formatDate, h } from '../dom.js';
import { cardName, shortName } from '../cards.js';
import { describe } from '../messages.js';
import { findStep, findStepBack, handSteps, positionAt, scoreBefore } from '../replay.js';
import { cardFace } from './card.js';
import { SEAT_NAMES, bidText, positionOf } from './table-parts.js';

const AUTOPLAY_MS = 700;

export function mount(root, app, gameId) {
  let game = null;
  let records = null;
  let error = null;
  let handIndex = 0;
  let stepIndex = 0;
  let autoplay = null;
  const section = h('section', { class: 'replay', 'aria-labelledby': 'replay-title' });
  root.append(section);

  Promise.all([app.api.game(gameId), app.api.history(gameId)]).then(([g, r]) => {
    game = g;
    records = r;
    app.refresh();
  }, (failure) => {
    error = failure;
    app.refresh();
  });

  const names = () => {
    const byseat = ['North', 'East', 'South', 'West'];
    for (const p of game?.players ?? []) byseat[p.seat] = p.name;
    return byseat;
  };

  function go(hand, step) {
    handIndex = Math.max(0, Math.min(records.length - 1, hand));
    stepIndex = Math.max(0, step);
    draw();
  }

  function move(kind) {
    const record = records[handIndex];
    const steps = handSteps(record);
    const isTrickStart = (s) => s.kind === 'play' && s.index === 0;
    switch (kind) {
      case 'next-step':
        if (stepIndex < steps.length - 1) go(handIndex, stepIndex + 1);
        else if (handIndex < records.length - 1) go(handIndex + 1, 0);
        else stopAutoplay();
        break;
      case 'prev-step':
        if (stepIndex > 0) go(handIndex, stepIndex - 1);
        else if (handIndex > 0) go(handIndex - 1, handSteps(records[handIndex - 1]).length - 1);
        break;
      case 'next-trick': {
        const next = findStep(steps, stepIndex + 1, (s) => s.kind === 'trick');
        go(handIndex, next < 0 ? steps.length - 1 : next);
        break;
      }
      case 'prev-trick': {
        const back = findStepBack(steps, stepIndex, isTrickStart);
        go(handIndex, back < 0 ? 0 : back);
        break;
      }
      case 'next-hand': go(handIndex + 1, 0); break;
      case 'prev-hand': go(handIndex - 1, 0); break;
      case 'end': go(handIndex, steps.length - 1); break;
      case 'start': go(handIndex, 0); break;
      default:
    }
  }

  function stopAutoplay() {
    clearInterval(autoplay);
    autoplay = null;
  }

  function toggleAutoplay() {
    if (autoplay) stopAutoplay();
    else autoplay = setInterval(() => move('next-step'), AUTOPLAY_MS);
    draw();
  }

  section.addEventListener('keydown', (event) => {
    if (!records || event.target.matches('input, select, textarea')) return;
    const keys = { ArrowRight: 'next-step', ArrowLeft: 'prev-step', PageDown: 'next-hand', PageUp: 'prev-hand' };
    if (keys[event.key]) {
      event.preventDefault();
      move(keys[event.key]);
    }
  });

  function control(kind, label, text) {
    return h('button', { type: 'button', 'data-testid': `replay-${kind}`, 'aria-label': label, onclick: () => move(kind) }, text);
  }

  function draw() {
    if (!records) {
      fill(section, error
        ? h('p', { class: 'error', role: 'alert', 'data-testid': 'replay-error' }, describe(error))
        : h('p', { class: 'loading' }, 'Loading the replay…'));
      return;
    }
    if (!records.length) {
      fill(section, h('h1', { id: 'replay-title' }, 'Replay'), h('p', {}, 'This game has no complete hand to show.'));
      return;
    }
    const record = records[handIndex];
    const position = positionAt(record, stepIndex);
    const seatNames = names();
    const before = scoreBefore(records, handIndex);
    const active = document.activeElement?.dataset?.testid;
    fill(section,
      h('h1', { id: 'replay-title' }, `Replay: ${game.room_name}`),
      h('p', { class: 'hint' }, `${formatDate(game.started_at)} · final score ${game.score ? game.score.join(' to ') : '?'}`),
      h('div', { class: 'replay-controls', role: 'toolbar', 'aria-label': 'Replay controls' },
        control('prev-hand', 'Previous hand', '« Hand'),
        control('prev-trick', 'Previous trick', '‹ Trick'),
        control('prev-step', 'Previous step', '‹ Step'),
        h('button', { type: 'button', 'data-testid': 'replay-play', 'aria-pressed': String(Boolean(autoplay)), onclick: toggleAutoplay },
          autoplay ? 'Pause' : 'Play'),
        control('next-step', 'Next step', 'Step ›'),
        control('next-trick', 'Next trick', 'Trick ›'),
        control('next-hand', 'Next hand', 'Hand »')),
      h('p', { 'data-testid': 'replay-hand-label' }, `Hand ${handIndex + 1} of ${records.length} · dealer ${seatNames[record.dealer]} · before it: ${before.score.join(' to ')}`),
      h('p', { 'data-testid': 'replay-position', role: 'status' }, stepText(record, position, seatNames)),
      h('div', { class: 'felt replay-felt' },
        // Partnerships wear their colours; in solo nobody shares one.
        record.hands.map((_, seat) => h('section', { class: `seat pos-${positionOf({ seat: null, rules: game.rules }, seat)}${game.rules?.partners === false ? '' : ` team-${seat % 2}`}`, 'data-testid': `replay-seat-${seat}` },
          h('div', { class: 'seat-compass' }, SEAT_NAMES[seat]),
          h('div', { class: 'seat-name' }, seatNames[seat]),
          h('div', { class: 'seat-score' }, `${bidText(position.bids[seat]) ?? 'No bid yet'} · Took ${position.tricksWon[seat]}`),
          h('div', { class: 'replay-hand', 'data-testid': `replay-hand-${seat}`, 'aria-label': `${seatNames[seat]}'s cards` },
            position.hands[seat].map((card) => cardFace(card, { extra: 'small' }))))),
        h('div', { class: 'felt-center' },
          h('div', { class: 'trick', 'data-testid': 'replay-trick' },
            (position.trick ?? (position.step.kind === 'trick' ? position.lastTrick : null))?.plays.map(({ seat, card }) => cardFace(card, {
              extra: `in-trick pos-${positionOf({ seat: null, rules: game.rules }, seat)}`, seat, testid: `replay-trick-card-${seat}`,
              label: `${seatNames[seat]} played ${cardName(card)}`,
            })) ?? []))),
      position.scored ? scoreBlock(record, seatNames) : null);
    if (active) section.querySelector(`[data-testid="${active}"]`)?.focus();
  }

  return {
    update: draw,
    unmount: stopAutoplay,
  };
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

function scoreBlock(record, names) {
  // A record has one score per team: two partnerships, or each player
  // alone (four in solo, three in a three-player game), numbered as his seat.
  const solo = record.rule_set ? record.rule_set.partners === false : record.score.length !== 2;
  const teams = record.score.map((_, t) => t);
  const seatsOf = (t) => (solo ? [t] : [t, t + 2]);
  const team = (t) => seatsOf(t).map((seat) => names[seat]).join(' & ');
  const verb = solo ? 'wins' : 'win';
  const row = (label, value) => h('tr', {}, h('th', { scope: 'row' }, label), teams.map((t) => h('td', {}, String(value(t)))));
  return h('table', { class: 'hand-score', 'data-testid': 'replay-score' },
    h('caption', {}, record.winner === null || record.winner === undefined ? 'Hand score' : `Hand score · ${team(record.winner)} ${verb} the game`),
    h('thead', {}, h('tr', {}, h('td', {}), teams.map((t) => h('th', { scope: 'col' }, team(t))))),
    h('tbody', {},
      row('Tricks', (t) => seatsOf(t).reduce((sum, seat) => sum + record.tricks_won[seat], 0)),
      row('This hand', (t) => record.hand_score[t]),
      row('Score', (t) => record.score[t]),
      row('Bags', (t) => record.bags[t])));
}
