// The words and numbers of moderation, kept apart from the views so that
// the tests can check them: the one-step sanctions a moderator picks, the
// times a sanction or a maintenance ends (in the player's own time zone),
// where each kind of server notice is shown, and which pages a role may
// open. Nothing here touches the DOM or the network.

/**
 * The sanctions a moderator gives in one step, each a button. `minutes`
 * is sent as the API's `minutes`; a ban without it lasts until lifted,
 * and a warning takes none.
 */
export const SANCTION_CHOICES = [
  { label: 'Warn', kind: 'warn', minutes: null, done: 'Warned.' },
  { label: 'Mute 1 hour', kind: 'mute', minutes: 60, done: 'Muted for 1 hour.' },
  { label: 'Suspend 1 day', kind: 'suspend', minutes: 24 * 60, done: 'Suspended for 1 day.' },
  { label: 'Suspend 7 days', kind: 'suspend', minutes: 7 * 24 * 60, done: 'Suspended for 7 days.' },
  { label: 'Ban', kind: 'ban', minutes: null, done: 'Banned until the ban is lifted.' },
];

/** The longest reason the server takes for a report, a sanction or a resolution. */
export const MAX_REASON = 500;

/**
 * The body of `POST /api/players/{id}/sanctions` for a choice of
 * SANCTION_CHOICES and a reason, or an `{error}` in words when the reason
 * will not do (the server would refuse it, and the moderator should know
 * why before he sends it).
 */
export function sanctionRequest(choice, reason) {
  const text = (reason ?? '').trim();
  if (!text) return { error: 'Write the reason first: the player is shown it.' };
  if ([...text].length > MAX_REASON) return { error: `A reason is at most ${MAX_REASON} characters.` };
  const body = { kind: choice.kind, reason: text };
  if (choice.minutes) body.minutes = choice.minutes;
  return { body };
}

const KIND_WORDS = { warn: 'Warning', mute: 'Mute', suspend: 'Suspension', ban: 'Ban' };

/** A sanction's kind as a noun: "Suspension". */
export function sanctionKindText(kind) {
  return KIND_WORDS[kind] ?? kind;
}

/** A span of minutes in words: "45 minutes", "1 hour", "7 days". */
export function minutesText(minutes) {
  const plural = (count, unit) => `${count} ${unit}${count === 1 ? '' : 's'}`;
  if (minutes % (24 * 60) === 0) return plural(minutes / (24 * 60), 'day');
  if (minutes % 60 === 0) return plural(minutes / 60, 'hour');
  return plural(minutes, 'minute');
}

/**
 * How long is left until `until` (a Date or RFC 3339 text), in rounded
 * words: "in 5 minutes", "in 3 hours", "in 6 days"; "now" once it passed.
 */
export function timeLeftText(until, now = Date.now()) {
  const ms = new Date(until).getTime() - now;
  if (!(ms > 30_000)) return 'now';
  const minutes = Math.round(ms / 60_000);
  if (minutes < 90) return `in ${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.round(ms / 3_600_000);
  if (hours < 48) return `in ${hours} hours`;
  return `in ${Math.round(ms / 86_400_000)} days`;
}

/**
 * A moment from the server (RFC 3339) in the reader's own time zone, with
 * the zone named so that nobody has to guess: "Sunday 29 November 2026,
 * 17:47 CET". `options` may set `timeZone` and `locale` (the tests do);
 * by default they are the browser's.
 */
export function localTime(iso, { timeZone, locale } = {}) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso ?? '');
  return new Intl.DateTimeFormat(locale, {
    weekday: 'long', day: 'numeric', month: 'long', year: 'numeric',
    hour: '2-digit', minute: '2-digit', timeZoneName: 'short', timeZone,
  }).format(date);
}

/** A moment in short form for lists: "29/11/2026, 17:47". */
export function shortTime(iso, { timeZone, locale } = {}) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso ?? '');
  return new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'short', timeZone }).format(date);
}

/**
 * When something ends, as a sentence for the one it concerns: "Until
 * Sunday 29 November 2026, 17:47 CET (in 23 hours)." A missing end is
 * `open` (a ban until lifted: "Until a moderator lifts it.").
 */
export function untilSentence(until, { now = Date.now(), open = 'Until a moderator lifts it.', ...zone } = {}) {
  if (!until) return open;
  return `Until ${localTime(until, zone)} (${timeLeftText(until, now)}).`;
}

/**
 * The end a server's sentence names, when the message has no `until` of
 * its own: a refused `hello` or login says "until 2026-11-29 16:47 UTC".
 * Gives RFC 3339 text, or null when the sentence names no such time.
 */
export function untilFromMessage(text) {
  const match = /(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2})?)(?:\.\d+)?\s*(?:UTC|Z)/.exec(text ?? '');
  if (!match) return null;
  const seconds = match[2].length === 5 ? ':00' : '';
  return `${match[1]}T${match[2]}${seconds}Z`;
}

/**
 * Where a `notice` of `kind` is shown: `banner` (every page, until
 * dismissed: an administrator's word to everyone), `maintenance` (the
 * maintenance banner, while it lasts), `maintenance_over` (that banner
 * goes, with a short notice), `toast` (a short notice), or `kept_out`
 * (remembered until the connection closes with 4009, then the page says
 * it and keeps saying it). An unknown kind, from a later server, is a
 * short notice too.
 */
export function noticePlacement(kind) {
  switch (kind) {
    case 'broadcast': return 'banner';
    case 'maintenance': return 'maintenance';
    case 'maintenance_over': return 'maintenance_over';
    case 'suspended':
    case 'banned': return 'kept_out';
    default: return 'toast';
  }
}

/** The codes and kinds that keep a player out: his sessions are refused until it ends. */
export const KEPT_OUT = new Set(['suspended', 'banned']);

/**
 * What the page says to a player kept out, from a `notice` (`{kind,
 * message, until}`), a refused `hello` or login (`{code, message}`), or
 * only a 4009 close (nothing known but that): a heading, the server's
 * sentence (which says why and until when), and when it ends in the
 * reader's own time.
 */
export function keptOutView(what = {}, zone = {}) {
  const kind = what.kind ?? what.code;
  const banned = kind === 'banned';
  const until = what.until ?? untilFromMessage(what.message);
  return {
    kind: banned ? 'banned' : 'suspended',
    heading: banned ? 'Your account is banned' : 'Your account is suspended',
    message: what.message || 'A moderator suspended or banned your account.',
    until: until ?? null,
    untilText: untilSentence(until, {
      ...zone,
      open: banned ? 'Until a moderator lifts the ban.' : 'Until a moderator lifts it.',
    }),
  };
}

/** A player's role from GET /api/me, for servers that sent only `is_admin`. */
export function roleOf(me) {
  if (!me) return 'player';
  return me.role ?? (me.is_admin ? 'admin' : 'player');
}

/** The moderators' and administrators' pages a role may open, for the navigation. */
export function staffLinks(role) {
  const links = [];
  if (role === 'moderator' || role === 'admin') links.push(['moderation', 'Moderation']);
  if (role === 'admin') links.push(['admin', 'Admin']);
  return links;
}

const ACTION_WORDS = {
  role: 'changed the role of',
  sanction: 'sanctioned',
  lift: 'lifted a sanction of',
  resolve_report: 'resolved a report about',
  reset_link: 'issued a reset link for',
  password: 'set the password of',
  notice: 'sent a notice',
  maintenance: 'changed maintenance',
  end_room: 'ended a room',
};

// An RFC 3339 moment inside a line of text, as the audit log's details
// write them ("mute, until 2026-11-28T17:47:31.961208123Z").
const MOMENT_IN_TEXT = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})/g;

/**
 * A line of the audit log as a sentence, its moments in the reader's
 * time: "Mia sanctioned Tom: suspend, until 29/11/2026, 17:47".
 */
export function auditSentence(line, zone = {}) {
  const verb = ACTION_WORDS[line.action] ?? line.action;
  const target = line.target_name ? ` ${line.target_name}` : '';
  const detail = line.detail ? `: ${line.detail.replace(MOMENT_IN_TEXT, (moment) => shortTime(moment, zone))}` : '';
  return `${line.actor_name} ${verb}${target}${detail}`;
}

/** What a report's context says about where it was made: "at table ABC123 (Friday night)", "from a profile". */
export function reportPlace(report) {
  const context = report.context ?? {};
  if (context.from === 'table' || report.room) {
    const name = context.room_name ? ` (${context.room_name})` : '';
    return report.room ? `at table ${report.room}${name}` : 'at a table';
  }
  return 'from a profile';
}

/** The chat lines a report carries, `{from, name, text}`, or none. */
export function reportChat(report) {
  const chat = report.context?.chat;
  return Array.isArray(chat) ? chat : [];
}
