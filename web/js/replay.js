// Replays of finished games from their hand histories
// (docs/hand-history.md): each hand is cut into steps (the deal, each bid,
// each exchange, each card, each trick's end, the score), and the table
// at any step is worked out from the record alone. Pure, for the replay
// view and its tests.

import { sortForDisplay } from './cards.js';

/** The steps of one hand record, in the order they happened. */
export function handSteps(record) {
  const steps = [{ kind: 'deal' }];
  record.bids.forEach((bid, index) => steps.push({ kind: 'bid', index, seat: bid.seat }));
  record.passes.forEach((pass, index) => steps.push({ kind: 'pass', index, seat: pass.from }));
  record.tricks.forEach((trick, t) => {
    trick.cards.forEach((card, index) => {
      // A trick holds one card per player: it went round that many seats.
      steps.push({ kind: 'play', trick: t, index, seat: (trick.leader + index) % trick.cards.length, card });
    });
    steps.push({ kind: 'trick', trick: t, seat: trick.winner });
  });
  steps.push({ kind: 'score' });
  return steps;
}

/**
 * The table after `stepIndex` steps of `record` have happened: each seat's
 * cards, the bids so far, the exchanges made, the trick on the table, the
 * last complete trick and the tricks won.
 */
export function positionAt(record, stepIndex) {
  const steps = handSteps(record);
  const last = Math.max(0, Math.min(stepIndex, steps.length - 1));
  const hands = record.hands.map((cards) => [...cards]);
  const bids = record.hands.map(() => null);
  const passes = [];
  const tricksWon = record.hands.map(() => 0);
  let trick = null;
  let lastTrick = null;
  for (const step of steps.slice(0, last + 1)) {
    switch (step.kind) {
      case 'bid': {
        const bid = record.bids[step.index];
        bids[bid.seat] = { bid: bid.bid, blind: bid.blind };
        break;
      }
      case 'pass': {
        const pass = record.passes[step.index];
        hands[pass.from] = hands[pass.from].filter((card) => !pass.cards.includes(card));
        hands[pass.to] = [...hands[pass.to], ...pass.cards];
        passes.push(pass);
        break;
      }
      case 'play': {
        hands[step.seat] = hands[step.seat].filter((card) => card !== step.card);
        if (step.index === 0) trick = { leader: step.seat, plays: [] };
        trick.plays.push({ seat: step.seat, card: step.card });
        break;
      }
      case 'trick': {
        lastTrick = { ...trick, winner: step.seat };
        tricksWon[step.seat] += 1;
        trick = null;
        break;
      }
      default:
    }
  }
  return {
    step: steps[last],
    stepIndex: last,
    stepCount: steps.length,
    hands: hands.map((cards) => sortForDisplay(cards, record.rule_set?.deck)),
    bids,
    passes,
    trick,
    lastTrick,
    tricksWon,
    scored: steps[last].kind === 'score',
  };
}

/** The index of the first step at or after `from` that satisfies `test`, or -1. */
export function findStep(steps, from, test) {
  for (let i = Math.max(0, from); i < steps.length; i += 1) if (test(steps[i])) return i;
  return -1;
}

/** The index of the last step before `from` that satisfies `test`, or -1. */
export function findStepBack(steps, from, test) {
  for (let i = Math.min(from, steps.length) - 1; i >= 0; i -= 1) if (test(steps[i])) return i;
  return -1;
}

/** The running score and bags before hand `index` of a game's records. */
export function scoreBefore(records, index) {
  // One entry per team: two with partners, four in solo.
  const zeros = () => (records[0]?.score ?? [0, 0]).map(() => 0);
  if (index <= 0) return { score: zeros(), bags: zeros() };
  const previous = records[index - 1];
  return { score: previous.score, bags: previous.bags };
}
