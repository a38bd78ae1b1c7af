// What the moderators' and the administrators' pages share: a sanction in
// a line, the sanctions in force with the button that lifts each, and a
// player's record (his sanctions and the reports about him).

import { h } from '../dom.js';
import { describe } from '../messages.js';
import { hashFor } from '../router.js';
import { minutesText, sanctionKindText, shortTime } from '../moderation.js';

/** Whether a sanction still holds, has run out, or was lifted, in a word. */
function sanctionState(sanction) {
  if (sanction.lifted_at) return `lifted ${shortTime(sanction.lifted_at)}`;
  if (sanction.in_force) return 'in force';
  return sanction.kind === 'warn' ? 'given' : 'ended';
}

/**
 * A sanction's span: "1 day, from 28/11/2026, 17:47 until 29/11/2026,
 * 17:47", or "until lifted" for a ban without end.
 */
function sanctionSpan(sanction) {
  const from = `from ${shortTime(sanction.created_at)}`;
  if (sanction.kind === 'warn') return shortTime(sanction.created_at);
  if (!sanction.ends_at) return `${from} until lifted`;
  const minutes = Math.round((Date.parse(sanction.ends_at) - Date.parse(sanction.created_at)) / 60_000);
  return `${minutes > 0 ? `${minutesText(minutes)}, ` : ''}${from} until ${shortTime(sanction.ends_at)}`;
}

function SanctionItem({ sanction, showPlayer, onLift }) {
  const kind = sanctionKindText(sanction.kind);
  return h('li', { class: 'staff-item' },
    h('div', { class: 'staff-item-head' },
      h('strong', {}, kind),
      showPlayer ? [' · ', h('a', { href: hashFor('profile', sanction.player) }, sanction.player_name)] : null,
      h('span', { class: `badge ${sanction.in_force ? 'in-force' : ''}` }, sanctionState(sanction))),
    h('p', { class: 'staff-reason' }, sanction.reason),
    h('p', { class: 'hint' }, sanctionSpan(sanction)),
    onLift && sanction.in_force && sanction.kind !== 'warn' ? h('button', {
      type: 'button',
      // The reason for lifting, when the list has a field for it.
      onclick: (event) => onLift(sanction, event.currentTarget.form?.elements.lift_reason?.value ?? ''),
      'aria-label': `Lift ${sanction.player_name}'s ${kind.toLowerCase()}`,
    }, 'Lift') : null);
}

/**
 * The sanctions in force (GET /api/sanctions), newest first, each with
 * its Lift button; the reason for lifting, kept in the audit log, is
 * typed once above them.
 */
export function SanctionsInForce({ sanctions, actions, headingLevel = 'h2' }) {
  const { list, error } = sanctions;
  let body;
  if (error) body = h('p', { class: 'error' }, describe(error));
  else if (!list) body = h('p', { class: 'hint' }, 'Loading…');
  else if (!list.length) body = h('p', { class: 'hint' }, 'No sanction is in force.');
  else {
    body = h('form', { onsubmit: (event) => event.preventDefault() },
      h('label', { for: 'lift-reason' }, 'Reason for lifting (for the audit log; optional)'),
      h('input', { id: 'lift-reason', name: 'lift_reason', maxlength: 500, autocomplete: 'off' }),
      h('ul', { class: 'staff-list', 'aria-label': 'Sanctions in force' },
        list.map((sanction) => h(SanctionItem, { key: sanction.id, sanction, showPlayer: true, onLift: actions.liftSanction }))));
  }
  return h('section', { class: 'card-panel', 'aria-labelledby': 'in-force-title' },
    h(headingLevel, { id: 'in-force-title' }, 'Sanctions in force'), body);
}

/** A player's record (GET /api/players/{id}/moderation): his role, his sanctions, the reports about him. */
export function Record({ record, player, actions }) {
  const titleId = `record-${player.id}`;
  const title = `${player.name}'s record`;
  if (!record.data) {
    return h('section', { class: 'record', 'aria-labelledby': titleId },
      h('h4', { id: titleId }, title),
      record.error ? h('p', { class: 'error' }, describe(record.error)) : h('p', { class: 'hint' }, 'Loading…'));
  }
  const { role, sanctions, reports } = record.data;
  return h('section', { class: 'record', 'aria-labelledby': titleId },
    h('h4', { id: titleId }, title),
    h('p', {}, `Role: ${role}. ${sanctions.length} sanction${sanctions.length === 1 ? '' : 's'}, ${reports.length} report${reports.length === 1 ? '' : 's'}.`),
    sanctions.length ? h('ul', { class: 'staff-list', 'aria-label': `${player.name}'s sanctions` },
      sanctions.map((sanction) => h(SanctionItem, { key: sanction.id, sanction, showPlayer: false, onLift: actions.liftSanction }))) : null,
    reports.length ? h('ul', { class: 'staff-list', 'aria-label': `Reports about ${player.name}` },
      reports.map((report) => h('li', { key: report.id, class: 'staff-item' },
        h('div', { class: 'staff-item-head' }, h('strong', {}, `By ${report.reporter_name}`), ` · ${shortTime(report.created_at)}`,
          h('span', { class: 'badge' }, report.resolved_at ? 'resolved' : 'open')),
        h('p', { class: 'staff-reason' }, report.reason),
        report.resolution ? h('p', { class: 'hint' }, `Resolution: ${report.resolution}`) : null))) : null);
}
