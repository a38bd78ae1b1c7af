// The administrators' page: the sanctions in force (each can be lifted),
// a player's role (by his id, which a report's "Change role" link fills
// in) and a password reset link for him, a notice to every connected
// player, maintenance on and off, and the audit log, newest first, paged
// back with "Show older entries".

import { h } from '../dom.js';
import { describe } from '../messages.js';
import { hashFor } from '../router.js';
import { MAX_REASON, auditSentence, localTime, shortTime } from '../moderation.js';
import { SanctionsInForce } from './staff.js';

const ROLES = [['moderator', 'Moderator'], ['player', 'Player'], ['admin', 'Administrator']];

function RoleForm({ app, actions }) {
  const { playerId, resetLink } = app.admin;
  const submit = (event) => {
    event.preventDefault();
    const { player, role, reason } = event.currentTarget.elements;
    actions.setRole(player.value, role.value, reason.value);
  };
  const issueLink = (event) => actions.issueResetLink(event.currentTarget.form.elements.player.value);
  return h('form', { class: 'card-panel', 'aria-labelledby': 'roles-title', onsubmit: submit },
    h('h2', { id: 'roles-title' }, 'Roles and accounts'),
    h('p', { class: 'hint' }, "A player's id ends his profile's address, and his own profile shows it to him; \"Change role\" on a report fills it in."),
    h('label', { for: 'role-player' }, 'Player id'),
    h('input', {
      key: playerId || 'empty', id: 'role-player', name: 'player', required: true, defaultValue: playerId,
      autocomplete: 'off', spellcheck: false,
      // Read by the browser as a `v` regular expression, where a hyphen in a class must be escaped.
      pattern: '[0-9a-fA-F\\-]{36}',
    }),
    playerId ? h('p', { class: 'hint' }, h('a', { href: hashFor('profile', playerId) }, 'Open this player\'s profile')) : null,
    h('label', { for: 'role-role' }, 'Role'),
    h('select', { id: 'role-role', name: 'role' }, ROLES.map(([value, label]) => h('option', { key: value, value }, label))),
    h('label', { for: 'role-reason' }, 'Reason (for the audit log; optional)'),
    h('input', { id: 'role-reason', name: 'reason', maxlength: MAX_REASON, autocomplete: 'off' }),
    h('div', { class: 'button-row' },
      h('button', { type: 'submit', class: 'primary' }, 'Set role'),
      h('button', { type: 'button', onclick: issueLink }, 'Make a password reset link')),
    resetLink ? h('div', { class: 'reset-link', role: 'status' },
      h('p', {}, 'Give this link to the player, by a way you trust. It works once, until ', localTime(resetLink.expiresAt), '.'),
      h('label', { for: 'reset-link-url' }, 'Reset link'),
      h('input', { id: 'reset-link-url', readonly: true, value: resetLink.url, onfocus: (event) => event.currentTarget.select() })) : null);
}

function NoticeForm({ actions }) {
  const submit = (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    actions.sendNotice(form.elements.message.value).then((sent) => sent && form.reset());
  };
  return h('form', { class: 'card-panel', 'aria-labelledby': 'notice-title', onsubmit: submit },
    h('h2', { id: 'notice-title' }, 'Notice to everyone'),
    h('p', { class: 'hint' }, 'Every connected player sees it at once, on every page.'),
    h('label', { for: 'notice-message' }, 'Message'),
    h('textarea', { id: 'notice-message', name: 'message', rows: 3, required: true, maxlength: MAX_REASON }),
    h('button', { type: 'submit', class: 'primary' }, 'Send notice'));
}

function MaintenanceForm({ app, actions }) {
  const active = app.maintenance?.active ? app.maintenance : null;
  const submit = (event) => {
    event.preventDefault();
    const { message, minutes } = event.currentTarget.elements;
    actions.startMaintenance(message.value, minutes.value);
  };
  return h('form', { class: 'card-panel', 'aria-labelledby': 'maintenance-title', onsubmit: submit },
    h('h2', { id: 'maintenance-title' }, 'Maintenance'),
    h('p', { role: 'status' }, active
      ? `In maintenance${active.until ? ` until ${localTime(active.until)}` : ''}: no new tables, games or quick play.`
      : 'Not in maintenance.'),
    h('label', { for: 'maintenance-message' }, 'Message to the players'),
    h('input', { id: 'maintenance-message', name: 'message', maxlength: MAX_REASON, autocomplete: 'off', placeholder: 'Upgrading the server' }),
    h('label', { for: 'maintenance-minutes' }, 'Expected to last (minutes)'),
    h('input', { id: 'maintenance-minutes', name: 'minutes', type: 'number', min: 1, max: 10080, step: 1, inputmode: 'numeric' }),
    h('div', { class: 'button-row' },
      h('button', { type: 'submit', class: 'primary' }, active ? 'Change maintenance' : 'Start maintenance'),
      active ? h('button', { type: 'button', onclick: actions.endMaintenance }, 'End maintenance') : null));
}

function AuditLog({ app, actions }) {
  const { lines, more, error } = app.admin.audit;
  return h('section', { class: 'card-panel', 'aria-labelledby': 'audit-title' },
    h('div', { class: 'section-head' },
      h('h2', { id: 'audit-title' }, 'Audit log'),
      h('button', { type: 'button', onclick: () => actions.loadAudit(false) }, 'Refresh')),
    h('p', { class: 'hint' }, 'Every action of a moderator, an administrator or the command line, newest first. Nobody can change it.'),
    error ? h('p', { class: 'error', role: 'alert' }, describe(error)) : null,
    lines.length ? h('ol', { class: 'staff-list audit', 'aria-label': 'Audit log entries' }, lines.map((line) => h('li', { key: line.seq, class: 'staff-item' },
      h('div', { class: 'staff-item-head' },
        h('time', { datetime: line.at }, shortTime(line.at)),
        h('span', { class: 'badge' }, line.action)),
      h('p', {}, auditSentence(line)),
      line.reason ? h('p', { class: 'staff-reason' }, `Reason: ${line.reason}`) : null,
      line.client ? h('p', { class: 'hint' }, `From ${line.client}`) : null)))
      : h('p', { class: 'hint' }, error ? '' : 'Nothing yet.'),
    more ? h('button', { type: 'button', onclick: () => actions.loadAudit(true) }, 'Show older entries') : null);
}

export function Screen({ app, actions }) {
  return h('section', { class: 'staff-page', 'aria-labelledby': 'admin-title' },
    h('h1', { id: 'admin-title' }, 'Administration'),
    // The forms come first: on a phone they would be far below a long log.
    h('div', { class: 'staff-grid forms-first' },
      h('div', { class: 'staff-side' },
        h(RoleForm, { app, actions }),
        h(NoticeForm, { actions }),
        h(MaintenanceForm, { app, actions })),
      h('div', { class: 'staff-main' },
        h(SanctionsInForce, { sanctions: app.sanctions, actions }),
        h(AuditLog, { app, actions }))));
}
