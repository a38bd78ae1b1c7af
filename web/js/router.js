// Routes: the part of the address after '#' names the screen, and a room
// link of the form /r/CODE names a room. Pure, so the tests can check it.

const ROUTES = [
  ['lobby', /^\/lobby$/],
  ['signin', /^\/signin$/],
  ['room', /^\/room\/([A-Za-z0-9]+)$/],
  ['tournaments', /^\/tournaments$/],
  ['tournament', /^\/tournament\/([0-9a-fA-F-]+)$/],
  ['replay', /^\/replay\/([0-9a-fA-F-]+)$/],
  ['profile', /^\/profile\/([0-9a-fA-F-]+|me)$/],
  // The page a password reset link opens; the token is the link's secret.
  ['reset', /^\/reset\/([A-Za-z0-9_-]+)$/],
  ['moderation', /^\/moderation$/],
  // The administration page, with a player's id when it is opened to
  // change that player's role.
  ['admin', /^\/admin(?:\/([0-9a-fA-F-]+))?$/],
];

/**
 * The screen for an address: `{name, param}`. A room link (/r/CODE) wins
 * over the hash; an unknown or empty hash is the lobby.
 */
export function parseRoute(hash = '', pathname = '/') {
  const link = /^\/r\/([A-Za-z0-9]+)\/?$/.exec(pathname);
  if (link) return { name: 'room', param: link[1].toUpperCase() };
  const path = decodeURIComponent(hash.replace(/^#/, '')) || '/lobby';
  for (const [name, pattern] of ROUTES) {
    const match = pattern.exec(path);
    if (match) return { name, param: name === 'room' ? match[1].toUpperCase() : (match[1] ?? null) };
  }
  return { name: 'lobby', param: null };
}

/** The hash of a screen. */
export function hashFor(name, param) {
  return param ? `#/${name}/${encodeURIComponent(param)}` : `#/${name}`;
}

/**
 * The room code in what a person pastes to join: a bare code, a /r/CODE
 * link or a #/room/CODE link. Null when there is none.
 */
export function roomCodeFrom(text) {
  const trimmed = (text ?? '').trim();
  const link = /\/r\/([A-Za-z0-9]+)|#\/room\/([A-Za-z0-9]+)/.exec(trimmed);
  if (link) return (link[1] ?? link[2]).toUpperCase();
  return /^[A-Za-z0-9]{4,16}$/.test(trimmed) ? trimmed.toUpperCase() : null;
}
