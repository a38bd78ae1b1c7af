// The HTTP API of the README ("HTTP API"): JSON in and out, the session
// token as a bearer token, and every refusal as {error, message}, which
// this turns into a thrown ApiError. Like protocol.js it runs in Node too.

export class ApiError extends Error {
  constructor(status, code, message, retryAfter = null) {
    super(message || code);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.error = code;
    this.retryAfter = retryAfter;
    this.source = 'api';
  }
}

export class Api {
  /**
   * @param {object} options
   * @param {string} [options.base]  the server's address; '' for the page's own
   * @param {() => (string|null)} [options.token]  the current session token
   * @param {Function} [options.fetch]
   * @param {(error: ApiError, path: string) => void} [options.refused]  told of every
   *   refusal before it is thrown, so that the page can react to those that
   *   concern the whole session (a suspension) wherever they come from
   */
  constructor({ base = '', token = () => null, fetch = globalThis.fetch, refused = () => {} } = {}) {
    this.base = base.replace(/\/$/, '');
    this.token = token;
    this.refused = refused;
    // Browsers refuse a fetch called as another object's method, so the
    // function is wrapped rather than stored as is.
    this.fetch = (...args) => fetch(...args);
  }

  /** One request; resolves with the parsed body (null for 204), rejects with ApiError. */
  async call(method, path, body) {
    const headers = { Accept: 'application/json' };
    const token = this.token();
    if (token) headers.Authorization = `Bearer ${token}`;
    const init = { method, headers };
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await this.fetch(`${this.base}${path}`, init);
    } catch (error) {
      throw new ApiError(0, 'network', error.message);
    }
    const text = await response.text();
    if (!response.ok) {
      let payload = {};
      try {
        payload = JSON.parse(text);
      } catch {
        // A proxy's HTML error page, say: keep the status alone.
      }
      const retry = response.headers.get('Retry-After');
      const error = new ApiError(response.status, payload.error ?? `http_${response.status}`,
        payload.message ?? response.statusText, retry ? Number(retry) : null);
      this.refused(error, path);
      throw error;
    }
    if (!text) return null;
    if ((response.headers.get('Content-Type') ?? '').includes('ndjson')) return text;
    return JSON.parse(text);
  }

  register(name, password) { return this.call('POST', '/api/register', { name, password }); }
  login(name, password) { return this.call('POST', '/api/login', { name, password }); }
  logout() { return this.call('POST', '/api/logout'); }
  claim(password) { return this.call('POST', '/api/claim', { password }); }
  me() { return this.call('GET', '/api/me'); }
  myGames(limit = 20) { return this.call('GET', `/api/me/games?limit=${limit}`); }
  player(id) { return this.call('GET', `/api/players/${encodeURIComponent(id)}`); }
  playerTournaments(id) { return this.call('GET', `/api/players/${encodeURIComponent(id)}/tournaments`); }

  /** The named rule sets: `[{name, summary, rules}]`. */
  presets() { return this.call('GET', '/api/presets'); }

  leaderboard(page = 1, perPage = 20) {
    return this.call('GET', `/api/leaderboard?page=${page}&per_page=${perPage}`);
  }

  game(id) { return this.call('GET', `/api/games/${encodeURIComponent(id)}`); }

  /** A finished game's hands, one record per hand (docs/hand-history.md). */
  async history(id) {
    const text = await this.call('GET', `/api/games/${encodeURIComponent(id)}/history`);
    return parseLines(typeof text === 'string' ? text : '');
  }

  /**
   * Asks for the caller's review of a finished game (README, "Reviews"):
   * resolves with the review (200) or with `{status, ahead}` while it
   * waits (202), to ask again a moment later; review.js's `isReview`
   * tells which.
   */
  askReview(id) { return this.call('POST', `/api/games/${encodeURIComponent(id)}/review`); }

  tournaments(status) {
    return this.call('GET', status ? `/api/tournaments?status=${status}` : '/api/tournaments');
  }

  tournament(id) { return this.call('GET', `/api/tournaments/${encodeURIComponent(id)}`); }
  createTournament(settings) { return this.call('POST', '/api/tournaments', settings); }
  enter(id) { return this.call('POST', `/api/tournaments/${encodeURIComponent(id)}/register`); }
  withdraw(id) { return this.call('DELETE', `/api/tournaments/${encodeURIComponent(id)}/register`); }
  addBots(id, count) { return this.call('POST', `/api/tournaments/${encodeURIComponent(id)}/bots`, { count }); }
  start(id) { return this.call('POST', `/api/tournaments/${encodeURIComponent(id)}/start`); }
  cancel(id) { return this.call('POST', `/api/tournaments/${encodeURIComponent(id)}/cancel`); }

  setPermissions(id, { organizer, admin = false }) {
    return this.call('POST', `/api/players/${encodeURIComponent(id)}/permissions`, { organizer, admin });
  }

  // The caller's account: its password, its data, its end, and the
  // players it blocks.

  changePassword(oldPassword, newPassword) {
    return this.call('POST', '/api/me/password', { old_password: oldPassword, new_password: newPassword });
  }

  /** Deletes the caller's account; a guest gives an empty password. */
  deleteAccount(password) { return this.call('POST', '/api/me/delete', { password }); }
  /** Everything the server keeps about the caller, as one object. */
  exportData() { return this.call('GET', '/api/me/export'); }
  /** `{blocked: [{id, name, since}]}`. */
  blocks() { return this.call('GET', '/api/me/blocks'); }
  block(id) { return this.call('PUT', `/api/me/blocks/${encodeURIComponent(id)}`); }
  unblock(id) { return this.call('DELETE', `/api/me/blocks/${encodeURIComponent(id)}`); }

  // Friends (README, "HTTP API"): the list with each friend's presence,
  // asking (or accepting) by name, parting, and what the player shows.
  friends() { return this.call('GET', '/api/friends'); }
  askFriend(name) { return this.call('POST', '/api/friends', { name }); }
  removeFriend(id) { return this.call('DELETE', `/api/friends/${encodeURIComponent(id)}`); }
  setAvatar(avatar) { return this.call('PUT', '/api/me/avatar', { avatar }); }
  setHideTable(hideTable) { return this.call('PUT', '/api/me/presence', { hide_table: hideTable }); }
  reportPlayer(id, reason) { return this.call('POST', `/api/players/${encodeURIComponent(id)}/report`, { reason }); }
  /** Uses a password reset link: answers `{token, player}`, a new session. */
  reset(token, password) { return this.call('POST', '/api/reset', { token, password }); }
  /** `{active, until, message}`, for anyone. */
  maintenance() { return this.call('GET', '/api/maintenance'); }

  // Moderators.

  /** `{reports: [...]}`: the open reports, oldest first. */
  reports() { return this.call('GET', '/api/reports'); }
  resolveReport(id, resolution) { return this.call('POST', `/api/reports/${encodeURIComponent(id)}/resolve`, { resolution }); }
  /** A player's record: `{player, name, role, sanctions, reports}`. */
  moderationRecord(id) { return this.call('GET', `/api/players/${encodeURIComponent(id)}/moderation`); }
  /** `body` is `{kind, reason, minutes}`; answers the sanction. */
  sanction(id, body) { return this.call('POST', `/api/players/${encodeURIComponent(id)}/sanctions`, body); }
  /** `{sanctions: [...]}`: those in force, newest first. */
  sanctions() { return this.call('GET', '/api/sanctions'); }
  liftSanction(id, reason) {
    return this.call('POST', `/api/sanctions/${encodeURIComponent(id)}/lift`, reason ? { reason } : {});
  }

  // Administrators.

  setRole(id, role, reason) {
    return this.call('POST', `/api/players/${encodeURIComponent(id)}/role`, reason ? { role, reason } : { role });
  }

  /** A one-time password reset link: `{token, path, expires_at}`. */
  resetLink(id) { return this.call('POST', `/api/players/${encodeURIComponent(id)}/reset-link`); }
  notice(message) { return this.call('POST', '/api/admin/notice', { message }); }

  /** Maintenance begins; `minutes` (when it is expected to end) may be left out. */
  startMaintenance(message, minutes) {
    const body = { message };
    if (minutes) body.minutes = minutes;
    return this.call('PUT', '/api/admin/maintenance', body);
  }

  endMaintenance() { return this.call('DELETE', '/api/admin/maintenance'); }

  /** `{lines: [...]}`, newest first; `before` a `seq` to page back from. */
  audit({ before, limit = 50 } = {}) {
    const query = new URLSearchParams({ limit: String(limit) });
    if (before !== undefined && before !== null) query.set('before', String(before));
    return this.call('GET', `/api/audit?${query}`);
  }
}

/** JSON Lines to objects, skipping blank lines. */
export function parseLines(text) {
  return text.split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line));
}
