// A player's game reviewed by the expert bot (README, "Reviews"), in
// words: each mark as a sentence, the summary line, where the replay
// shows each marked choice, and what a review still waiting says. Pure,
// for the replay view and its tests.

import { shortName } from './cards.js';
import { handSteps } from './replay.js';

/** Whether an answer of `POST /api/games/{id}/review` is the review itself rather than its place in the queue. */
export const isReview = (answer) => Array.isArray(answer?.marks);

/**
 * A stored action (`bid 4`, `bid nil`, `bid blind_nil`, `bid blind_6`,
 * `play QH`) as `{kind, text}`: the bid or the card as the page writes
 * them ("4", "nil", "blind nil", "blind 6"; "Q♥"). Anything else is kept
 * as it came, so that a newer server's action still reads as something.
 */
export function actionWords(action) {
  const [kind, value = ''] = String(action).split(' ');
  if (kind === 'play') return { kind, text: shortName(value) };
  if (kind === 'bid') return { kind, text: value.replace('blind_', 'blind ') };
  return { kind, text: String(action) };
}

/** A loss in points as said: "about 12 points", and never "about 0". */
function points(loss) {
  const rounded = Math.max(1, Math.round(loss));
  return `about ${rounded} point${rounded === 1 ? '' : 's'}`;
}

/**
 * One mark in plain words: "Trick 7: you played A♠; the expert prefers
 * 4♠ — about 12 points better on average", or "Your bid of 10: the
 * expert prefers 3 — about 95 points better".
 */
export function markWords(mark) {
  const played = actionWords(mark.played);
  const better = actionWords(mark.better);
  if (played.kind === 'bid') {
    return `Your bid of ${played.text}: the expert prefers ${better.text} — ${points(mark.loss)} better`;
  }
  const choice = `played ${played.text}; the expert prefers ${better.text} — ${points(mark.loss)} better on average`;
  return mark.trick ? `Trick ${mark.trick}: you ${choice}` : `You ${choice}`;
}

/** The review's summary line: how many of the player's choices were marked. */
export function reviewSummary(review) {
  const choices = `${review.decisions} choice${review.decisions === 1 ? '' : 's'}`;
  if (!review.marks.length) return `The expert found nothing clearly better in your ${choices}.`;
  return `The expert marked ${review.marks.length} of your ${choices}.`;
}

/** What a review still waiting says: "Queued (2 ahead)…" or "The expert is going through your game…". */
export function pendingWords(pending) {
  if (pending?.status === 'queued') return `Queued (${pending.ahead ?? 0} ahead)…`;
  return 'The expert is going through your game…';
}

/**
 * The step of the replay (replay.js's `handSteps`) at which the player in
 * `seat` made the marked choice in `record`: his bid, or his card of the
 * mark's trick. -1 when the record has no such step.
 */
export function markStep(record, mark, seat) {
  const { kind } = actionWords(mark.played);
  const steps = handSteps(record);
  if (kind === 'bid') return steps.findIndex((step) => step.kind === 'bid' && step.seat === seat);
  return steps.findIndex((step) => step.kind === 'play' && step.trick === mark.trick - 1 && step.seat === seat);
}

/** The marks of one hand, each with its words and its step in `record`. */
export function handMarks(review, hand, record) {
  return review.marks
    .filter((mark) => mark.hand === hand)
    .map((mark) => ({ mark, words: markWords(mark), step: record ? markStep(record, mark, review.seat) : -1 }));
}
