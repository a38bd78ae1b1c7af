// Every error code in protocol.md and in the README's API errors, and every
// close code, has a sentence for people.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { API_ERRORS, CLOSE_REASONS, SOCKET_ERRORS, chatProblem, describe, describeClose, describeWithDetail } from '../js/messages.js';
import { readDoc } from './support.mjs';

/** The codes in the first column of the table under `heading`. */
function tableCodes(doc, heading) {
  const start = doc.indexOf(heading);
  assert.ok(start >= 0, `${heading} is in the document`);
  const rest = doc.slice(start + heading.length);
  const end = rest.search(/\n#+ /);
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/^\| `([a-z_0-9]+)` \|/gm)].map((m) => m[1]);
}

test('every WebSocket error code has a message', () => {
  const codes = tableCodes(readDoc('protocol.md'), '## Error codes');
  assert.ok(codes.length > 30);
  for (const code of codes) assert.ok(SOCKET_ERRORS[code], `protocol.md's ${code}`);
});

test('every HTTP API error code has a message', () => {
  const readme = readDoc('README.md');
  const codes = tableCodes(readme, '### Errors');
  assert.ok(codes.length > 20);
  for (const code of codes) assert.ok(API_ERRORS[code], `the README's ${code}`);
  for (const [, code] of readme.matchAll(/\{"error": "([a-z_]+)"/g)) assert.ok(API_ERRORS[code], `upgrade refusal ${code}`);
});

test('every close code has a message', () => {
  const doc = readDoc('protocol.md');
  const start = doc.indexOf('## Close codes');
  const section = doc.slice(start, doc.indexOf('\n## ', start + 5));
  const codes = [...section.matchAll(/^\| (\d{4}) \|/gm)].map((m) => Number(m[1]));
  assert.ok(codes.length >= 10);
  for (const code of codes) assert.ok(CLOSE_REASONS[code], `close code ${code}`);
  assert.match(describeClose(4321), /lost/);
});

test('describe picks the table by where the error came from', () => {
  assert.match(describe({ code: 'game_in_progress', source: 'api' }), /replay/);
  assert.match(describe({ code: 'game_in_progress', source: 'ws' }), /game is being played/);
  assert.match(describe({ code: 'too_many_attempts', source: 'api', retryAfter: 30 }), /30 seconds/);
  assert.equal(describe({ code: 'something_new', message: 'the server said so' }), 'the server said so');
  assert.equal(describe('must_follow_suit'), SOCKET_ERRORS.must_follow_suit);
});

test('chat lines the server would refuse are caught before sending', () => {
  for (const text of ['two\nlines', 'bell\u0007', 'gg \u202Eolleh', 'isolated \u2066x', 'next\u2028line']) {
    assert.match(chatProblem(text), /control characters/, JSON.stringify(text));
  }
  assert.equal(chatProblem('x'.repeat(301)), SOCKET_ERRORS.chat_too_long);
  for (const text of ['well played', 'gg \u{1F468}\u200D\u{1F469}\u200D\u{1F467}', '\u05E9\u05DC\u05D5\u05DD\u200F!', 'x'.repeat(300)]) {
    assert.equal(chatProblem(text), null, JSON.stringify(text));
  }
});

test('refusals that say why and until when keep the server\'s words', () => {
  const muted = { code: 'muted', source: 'ws', message: 'you are muted until 2026-11-28 17:47 UTC: spam' };
  assert.equal(describeWithDetail(muted), `${SOCKET_ERRORS.muted} You are muted until 2026-11-28 17:47 UTC: spam.`);
  const suspended = { code: 'suspended', source: 'api', message: 'you are suspended until 2026-11-29 16:47 UTC: cheating' };
  assert.match(describeWithDetail(suspended), /^Your account is suspended\. You are suspended until .*: cheating\.$/);
  // The page's own failures carry only their code as a message: nothing is added.
  assert.equal(describeWithDetail({ code: 'suspended', source: 'ws', message: 'suspended' }), SOCKET_ERRORS.suspended);
  // Other refusals are described as before.
  assert.equal(describeWithDetail({ code: 'seat_taken', source: 'ws', message: 'seat 2 is taken' }), SOCKET_ERRORS.seat_taken);
  assert.equal(describeWithDetail('removed'), SOCKET_ERRORS.removed);
});
