// The moderators' page: the open reports, oldest first, each with who
// reported whom, why, where and when, and the chat lines the table kept;
// the reported player's record on demand; a sanction in one step (the
// reason typed once, then Warn, Mute 1 hour, Suspend 1 day, Suspend 7
// days or Ban); and the report resolved with what was done. Below them,
// the sanctions in force, each of which can be lifted.

import { h } from '../dom.js';
import { describe } from '../messages.js';
import { hashFor } from '../router.js';
import { MAX_REASON, SANCTION_CHOICES, reportChat, reportPlace, roleOf, shortTime } from '../moderation.js';
import { Record, SanctionsInForce } from './staff.js';

function Facts({ report }) {
  const row = (label, ...value) => [h('dt', {}, label), h('dd', {}, ...value)];
  return h('dl', { class: 'facts' },
    row('Reported by', h('a', { href: hashFor('profile', report.reporter) }, report.reporter_name)),
    row('Player', h('a', { href: hashFor('profile', report.player) }, report.player_name)),
    row('Reason', h('span', { class: 'staff-reason' }, report.reason)),
    row('Where', reportPlace(report)),
    row('When', shortTime(report.created_at)));
}

/** The table's chat when the report was made, the reported player's lines marked. */
function ChatContext({ report }) {
  const lines = reportChat(report);
  if (!lines.length) return null;
  const titleId = `context-${report.id}`;
  return h('section', { class: 'context', 'aria-labelledby': titleId },
    h('h4', { id: titleId }, 'Chat at the table'),
    h('ol', { class: 'context-chat', 'aria-labelledby': titleId }, lines.map((line, index) => {
      const theirs = line.from === report.player;
      return h('li', { key: index, class: theirs ? 'by-reported' : null },
        h('strong', {}, line.name), theirs ? h('span', { class: 'visually-hidden' }, ' (reported)') : null, ': ', line.text);
    })));
}

function SanctionForm({ report, player, error, actions }) {
  const reasonId = `sanction-reason-${report.id}`;
  const titleId = `sanction-title-${report.id}`;
  const apply = (choice) => (event) => {
    actions.sanction(player, choice, event.currentTarget.form.elements.reason.value, report.id);
  };
  return h('form', { class: 'sanction-form', 'aria-labelledby': titleId, onsubmit: (event) => event.preventDefault() },
    h('h4', { id: titleId }, `Sanction ${player.name}`),
    h('label', { for: reasonId }, `Reason (${player.name} is shown it)`),
    h('input', { id: reasonId, name: 'reason', maxlength: MAX_REASON, autocomplete: 'off', 'aria-describedby': error ? `${reasonId}-error` : null }),
    error ? h('p', { class: 'error', role: 'alert', id: `${reasonId}-error` }, error) : null,
    h('div', { class: 'button-row sanction-buttons' },
      SANCTION_CHOICES.map((choice) => h('button', {
        key: choice.label, type: 'button', class: choice.kind === 'ban' ? 'danger' : null, onclick: apply(choice),
      }, choice.label))));
}

function ResolveForm({ report, done, error, actions }) {
  const fieldId = `resolution-${report.id}`;
  const submit = (event) => {
    event.preventDefault();
    actions.resolveReport(report, event.currentTarget.elements.resolution.value);
  };
  return h('form', { class: 'resolve-form', 'aria-label': `Resolve the report about ${report.player_name}`, onsubmit: submit },
    h('label', { for: fieldId }, 'Resolution (what was done)'),
    h('div', { class: 'inline-form' },
      // Remade when a sanction was given, so that it starts with what was done.
      h('input', { key: done ?? 'empty', id: fieldId, name: 'resolution', maxlength: MAX_REASON, defaultValue: done ?? '', autocomplete: 'off' }),
      h('button', { type: 'submit' }, 'Resolve')),
    error ? h('p', { class: 'error', role: 'alert' }, error) : null);
}

function ReportItem({ report, app, actions }) {
  const { records, formErrors, done } = app.moderation;
  const player = { id: report.player, name: report.player_name };
  const titleId = `report-${report.id}`;
  const record = records[report.player];
  return h('li', {},
    h('article', { class: 'card-panel report', 'aria-labelledby': titleId },
      h('h3', { id: titleId }, `Report about ${report.player_name}`),
      h(Facts, { report }),
      h(ChatContext, { report }),
      h('div', { class: 'button-row' },
        h('button', {
          type: 'button', 'aria-expanded': record ? 'true' : 'false', onclick: () => actions.toggleRecord(report.player),
        }, record ? `Hide ${player.name}'s record` : `Show ${player.name}'s record`),
        roleOf(app.me) === 'admin'
          ? h('a', { href: hashFor('admin', report.player) }, `Change ${player.name}'s role`) : null),
      record ? h(Record, { record, player, actions }) : null,
      h(SanctionForm, { report, player, error: formErrors[report.id], actions }),
      h(ResolveForm, { report, done: done[report.id], error: formErrors[`resolve-${report.id}`], actions })));
}

function Reports({ app, actions }) {
  const { reports, error } = app.moderation;
  let body;
  if (error) body = h('p', { class: 'error', role: 'alert' }, describe(error));
  else if (!reports) body = h('p', { class: 'hint' }, 'Loading…');
  else if (!reports.length) body = h('p', { class: 'hint' }, 'No open reports.');
  else {
    body = h('ol', { class: 'report-list', 'aria-label': 'Open reports' },
      reports.map((report) => h(ReportItem, { key: report.id, report, app, actions })));
  }
  return h('section', { 'aria-labelledby': 'reports-title' },
    h('h2', { id: 'reports-title' }, reports ? `Open reports (${reports.length})` : 'Open reports'),
    h('p', { class: 'hint' }, 'Oldest first. A sanction takes effect at once, on every server; the player is shown its reason.'),
    body);
}

export function Screen({ app, actions }) {
  return h('section', { class: 'staff-page', 'aria-labelledby': 'moderation-title' },
    h('h1', { id: 'moderation-title' }, 'Moderation'),
    h('div', { class: 'staff-grid' },
      h('div', { class: 'staff-main' }, h(Reports, { app, actions })),
      h('div', { class: 'staff-side' }, h(SanctionsInForce, { sanctions: app.sanctions, actions }))));
}
