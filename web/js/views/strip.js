// The score strip above the felt: each team's running score and bags and
// its bid against its tricks this hand ("We bid 7, need 3 more"), in view
// on every screen; and for a few seconds after a hand, that hand's score
// in the strip's place, so that it covers nothing on the felt. It goes by
// itself, or when the next hand's bidding starts, or when closed.

import { cx, h } from '../dom.js';
import { SCORE_LEAST_MS, SCORE_POPUP_MS, teamName } from '../seating.js';
import { teamLine } from '../tally.js';
import { CountUp } from './motion.js';

function signed(value) {
  return value > 0 ? `+${value}` : String(value);
}

/** Whether the hand's score is still on show at `now`. */
export function popupOpen(state, view, now = state.now()) {
  const scored = state.lastHandScore;
  if (!scored || view.popupClosed === scored.hand || now >= scored.scoredAt + SCORE_POPUP_MS) return false;
  // The next hand's bidding has begun: eyes go to it, once the score has
  // been seen a moment.
  const nextBegun = state.hand !== null && state.hand > scored.hand && state.bids.some(Boolean);
  return !nextBegun || now < scored.scoredAt + SCORE_LEAST_MS;
}

function TeamScore({ state, team, motion }) {
  const mine = state.seat !== null && state.teams[team]?.includes(state.seat);
  const line = teamLine(state, team);
  return h('div', { class: cx('strip-team', state.hasPartners && `team-${team}`, mine && 'us') },
    h('div', { class: 'strip-head' },
      h('span', { class: 'strip-name' }, teamName(state, team)),
      h('span', { class: 'strip-score' },
        h(CountUp, { value: state.score[team] ?? 0, motion }),
        h('span', { class: 'visually-hidden' }, ` ${state.score[team] ?? 0} points`)),
      h('span', { class: 'strip-bags' }, `${state.bags[team] ?? 0} bags`)),
    line ? h('div', { class: 'strip-line' }, line) : null);
}

/** A hand's score, in a line per team, in the strip's place. */
function HandScored({ state, scored, actions }) {
  return h('div', { class: 'score-popup', role: 'status', 'aria-label': `Hand ${scored.hand + 1} scored` },
    h('div', { class: 'popup-head' },
      h('strong', {}, `Hand ${scored.hand + 1} scored`),
      h('button', { type: 'button', class: 'link', 'aria-label': 'Close the hand\'s score', onclick: actions.closeScorePopup }, 'Close')),
    h('ul', {}, scored.teams.map((t, team) => h('li', { key: team },
      h('strong', {}, `${teamName(state, team)} ${signed(t.change)}`),
      ` (bid ${t.contract}, took ${t.tricks}${t.nil_points ? `, nil ${signed(t.nil_points)}` : ''}${t.bag_penalty ? `, bag penalty ${signed(-Math.abs(t.bag_penalty))}` : ''}) → ${t.score}`))));
}

export function ScoreStrip({ state, view, actions, motion }) {
  const open = popupOpen(state, view);
  return h('div', { class: cx('score-slot', state.teams.length > 2 && 'many') },
    h('div', { class: 'score-strip', role: 'group', 'aria-label': 'Score so far', hidden: open },
      state.teams.map((_, team) => h(TeamScore, { key: team, state, team, motion }))),
    open ? h(HandScored, { state, scored: state.lastHandScore, actions }) : null);
}
