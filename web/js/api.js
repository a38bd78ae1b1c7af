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
   */
  constructor({ base = '', token = () => null, fetch = globalThis.fetch } = {}) {
    this.base = base.replace(/\/$/, '');
    this.token = token;
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
      throw new ApiError(response.status, payload.error ?? `http_${response.status}`,
        payload.message ?? response.statusText, retry ? Number(retry) : null);
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
}

/** JSON Lines to objects, skipping blank lines. */
export function parseLines(text) {
  return text.split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line));
}
