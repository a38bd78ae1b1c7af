// The words and numbers of moderation (moderation.js): the one-step
// sanctions, times in the reader's own zone, where each notice goes, what
// a player kept out is told, which pages a role opens, and how the page
// keeps the maintenance it was told of.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SANCTION_CHOICES, auditSentence, keptOutView, localTime, minutesText, noticePlacement, reportChat, reportPlace,
  roleOf, sanctionRequest, shortTime, staffLinks, timeLeftText, untilFromMessage, untilSentence,
} from '../js/moderation.js';
import { moderationActions } from '../js/controller-moderation.js';

const PARIS = { timeZone: 'Europe/Paris', locale: 'en-GB' };
const NEW_YORK = { timeZone: 'America/New_York', locale: 'en-US' };

test('the one-step sanctions send the kind, the reason and the minutes the API takes', () => {
  const byLabel = Object.fromEntries(SANCTION_CHOICES.map((choice) => [choice.label, choice]));
  assert.deepEqual(Object.keys(byLabel), ['Warn', 'Mute 1 hour', 'Suspend 1 day', 'Suspend 7 days', 'Ban']);
  assert.deepEqual(sanctionRequest(byLabel.Warn, ' rude '), { body: { kind: 'warn', reason: 'rude' } });
  assert.deepEqual(sanctionRequest(byLabel['Mute 1 hour'], 'spam').body, { kind: 'mute', reason: 'spam', minutes: 60 });
  assert.deepEqual(sanctionRequest(byLabel['Suspend 1 day'], 'insults').body, { kind: 'suspend', reason: 'insults', minutes: 1440 });
  assert.deepEqual(sanctionRequest(byLabel['Suspend 7 days'], 'again').body, { kind: 'suspend', reason: 'again', minutes: 10080 });
  // A ban without minutes lasts until it is lifted.
  assert.deepEqual(sanctionRequest(byLabel.Ban, 'cheating').body, { kind: 'ban', reason: 'cheating' });
  assert.match(sanctionRequest(byLabel.Ban, '   ').error, /reason/);
  assert.match(sanctionRequest(byLabel.Warn, 'x'.repeat(501)).error, /500/);
  assert.ok(sanctionRequest(byLabel.Warn, 'é'.repeat(500)).body, '500 characters, not bytes');
});

test('spans and times left in words', () => {
  assert.equal(minutesText(60), '1 hour');
  assert.equal(minutesText(1440), '1 day');
  assert.equal(minutesText(10080), '7 days');
  assert.equal(minutesText(90), '90 minutes');
  assert.equal(minutesText(1), '1 minute');
  const now = Date.parse('2026-11-28T16:00:00Z');
  assert.equal(timeLeftText('2026-11-28T16:45:00Z', now), 'in 45 minutes');
  assert.equal(timeLeftText('2026-11-29T16:00:00Z', now), 'in 24 hours');
  assert.equal(timeLeftText('2026-12-05T16:00:00Z', now), 'in 7 days');
  assert.equal(timeLeftText('2026-11-28T15:00:00Z', now), 'now');
});

test('a moment from the server is given in the reader\'s own time zone, named', () => {
  const until = '2026-11-29T16:47:40.657720026Z';
  const paris = localTime(until, PARIS);
  assert.match(paris, /Sunday/);
  assert.match(paris, /17:47/);
  assert.match(paris, /CET/);
  const newYork = localTime(until, NEW_YORK);
  assert.match(newYork, /11:47/);
  assert.match(newYork, /EST/);
  assert.match(shortTime(until, PARIS), /29\/11\/2026, 17:47/);
  assert.equal(localTime('not a time'), 'not a time');
  const now = Date.parse('2026-11-28T16:47:40Z');
  assert.equal(untilSentence(until, { ...PARIS, now }), `Until ${localTime(until, PARIS)} (in 24 hours).`);
  assert.equal(untilSentence(null), 'Until a moderator lifts it.');
});

test('the end a refused hello names in its sentence', () => {
  assert.equal(untilFromMessage('you are suspended until 2026-11-29 16:47 UTC: cheating'), '2026-11-29T16:47:00Z');
  assert.equal(untilFromMessage('muted until 2026-11-28T17:47:31.961Z: spam'), '2026-11-28T17:47:31Z');
  assert.equal(untilFromMessage('you are banned until the ban is lifted: cheating'), null);
  assert.equal(untilFromMessage(undefined), null);
});

test('each notice has its place', () => {
  assert.equal(noticePlacement('broadcast'), 'banner');
  assert.equal(noticePlacement('maintenance'), 'maintenance');
  assert.equal(noticePlacement('maintenance_over'), 'maintenance_over');
  for (const kind of ['warning', 'muted', 'unmuted', 'something_new']) assert.equal(noticePlacement(kind), 'toast');
  for (const kind of ['suspended', 'banned']) assert.equal(noticePlacement(kind), 'kept_out');
});

test('a player kept out is told why and until when, from a notice, a refused hello, or a bare close', () => {
  const now = Date.parse('2026-11-28T16:47:40Z');
  const fromNotice = keptOutView({
    kind: 'suspended', message: 'You are suspended until 2026-11-29 16:47 UTC: cheating', until: '2026-11-29T16:47:40Z',
  }, { ...PARIS, now });
  assert.equal(fromNotice.heading, 'Your account is suspended');
  assert.equal(fromNotice.message, 'You are suspended until 2026-11-29 16:47 UTC: cheating');
  assert.match(fromNotice.untilText, /^Until Sunday.*17:47 CET \(in 24 hours\)\.$/);

  const fromHello = keptOutView({ code: 'suspended', message: 'you are suspended until 2026-11-29 16:47 UTC: cheating' }, PARIS);
  assert.equal(fromHello.until, '2026-11-29T16:47:00Z');
  assert.match(fromHello.untilText, /17:47 CET/);

  const ban = keptOutView({ code: 'banned', message: 'you are banned until the ban is lifted: bots' });
  assert.equal(ban.heading, 'Your account is banned');
  assert.equal(ban.untilText, 'Until a moderator lifts the ban.');

  const bare = keptOutView({ code: 4009 });
  assert.equal(bare.heading, 'Your account is suspended');
  assert.match(bare.message, /suspended or banned/);
});

test('roles open their pages', () => {
  assert.equal(roleOf(null), 'player');
  assert.equal(roleOf({ role: 'moderator', is_admin: false }), 'moderator');
  assert.equal(roleOf({ is_admin: true }), 'admin', 'a server from before roles');
  assert.deepEqual(staffLinks('player'), []);
  assert.deepEqual(staffLinks('moderator').map(([name]) => name), ['moderation']);
  assert.deepEqual(staffLinks('admin').map(([name]) => name), ['moderation', 'admin']);
});

test('audit lines and reports in words', () => {
  const line = {
    seq: 3, at: '2026-11-28T16:47:31Z', actor_name: 'Mia', action: 'sanction', target_name: 'Tom',
    reason: 'spam', detail: 'mute, until 2026-11-28T17:47:31.961208123Z',
  };
  assert.equal(auditSentence(line, PARIS), 'Mia sanctioned Tom: mute, until 28/11/2026, 18:47');
  assert.equal(auditSentence({ actor_name: 'operator (command line)', action: 'role', target_name: 'Abe', detail: 'role: admin' }),
    'operator (command line) changed the role of Abe: role: admin');
  assert.equal(auditSentence({ actor_name: 'Abe', action: 'something_new', detail: '' }), 'Abe something_new');

  const fromTable = {
    room: 'ABC123', context: { from: 'table', room_name: 'Friday', chat: [{ from: 'p', name: 'Tom', text: 'hi' }] },
  };
  assert.equal(reportPlace(fromTable), 'at table ABC123 (Friday)');
  assert.deepEqual(reportChat(fromTable), [{ from: 'p', name: 'Tom', text: 'hi' }]);
  const fromProfile = { room: null, context: { from: 'profile', chat: [] } };
  assert.equal(reportPlace(fromProfile), 'from a profile');
  assert.deepEqual(reportChat({ context: null }), []);
});

test('a maintenance notice is not undone by an answer asked for before it', async () => {
  // The page reads the maintenance at every welcome; the notice that
  // maintenance began may come while that read is on its way, with the
  // answer from before. The notice itself has the administrator's message
  // read, since its own words repeat what the banner says.
  const answers = [];
  const api = { maintenance: () => new Promise((resolve) => { answers.push(resolve); }) };
  const app = { maintenance: null, broadcasts: [] };
  const noop = () => {};
  const actions = moderationActions(app, { client: {}, api, changed: noop, navigateTo: noop, notify: noop, signInWith: noop, signedOut: noop });
  const reading = actions.loadMaintenance();
  actions.noticeReceived({
    kind: 'maintenance',
    message: 'the server is in maintenance until the operators end it: no new rooms, games or queueing. Upgrading',
  });
  assert.deepEqual(app.maintenance, { active: true, message: null, until: null }, 'the banner shows at once');
  assert.equal(answers.length, 2, 'the notice has the maintenance read again');
  answers[0]({ active: false });
  await reading;
  assert.equal(app.maintenance?.active, true, 'the notice stands');
  answers[1]({ active: true, message: 'Upgrading', until: null });
  await new Promise(setImmediate);
  assert.deepEqual(app.maintenance, { active: true, message: 'Upgrading', until: null });
  // A read asked after the notice is believed.
  const again = actions.loadMaintenance();
  answers[2]({ active: false });
  await again;
  assert.equal(app.maintenance, null);
});
