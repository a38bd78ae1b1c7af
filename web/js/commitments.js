// The deal commitments this browser was sent when games started
// (`game_started`'s `deal_commitment`), kept in localStorage so that a
// replay can show that the seed published afterwards is the one the
// server was bound to before any card was dealt, not only one that agrees
// with a commitment it gave out at the same time as the seed.

const KEY = 'spades.commitments';
/** The games remembered: enough for weeks of play, small enough to never matter. */
export const KEEP = 100;

/** The stored `[gameId, commitment]` pairs, oldest first; none if storage is refused or spoilt. */
function stored(storage) {
  try {
    const pairs = JSON.parse(storage?.getItem(KEY) ?? '[]');
    return Array.isArray(pairs) ? pairs.filter((pair) => Array.isArray(pair) && pair.length === 2) : [];
  } catch {
    return [];
  }
}

/** Remembers a game's commitment, forgetting the oldest beyond the last KEEP games. */
export function rememberCommitment(gameId, commitment, storage = globalThis.localStorage) {
  if (typeof gameId !== 'string' || typeof commitment !== 'string') return;
  const pairs = stored(storage).filter(([id]) => id !== gameId);
  pairs.push([gameId, commitment]);
  try {
    storage?.setItem(KEY, JSON.stringify(pairs.slice(-KEEP)));
  } catch {
    // Storage can be refused or full: the replay then checks the deals
    // against the history's own commitment only, and says no more.
  }
}

/** The commitment this browser was sent for a game, or null. */
export function receivedCommitment(gameId, storage = globalThis.localStorage) {
  return stored(storage).find(([id]) => id === gameId)?.[1] ?? null;
}
