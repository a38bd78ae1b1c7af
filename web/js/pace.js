// The pace of what the felt shows. The table's state changes the moment a
// message arrives, and the page's text says so at once; but three bot
// cards arriving in one breath would flash past unseen. So the felt
// queues its presentation: each card gets a moment of its own before the
// next one moves, a finished trick stays a while before it is gathered to
// its winner, and the next lead is shown only once the trick is gone.
// This module only computes those moments, on a clock it is given, so
// that it is tested without a page or a timer.

/** Each card is shown on its own for at least this long before the next moves. */
export const CARD_MS = 350;
/** A finished trick stays on the felt this long once its last card is shown. */
export const HOLD_MS = 1000;
/** The trick's trip to its winner. */
export const GATHER_MS = 450;
/**
 * The felt never falls further behind the table than this: when events
 * come faster than they can be shown for long (bots and players acting
 * at once, a page catching up), the moments shrink rather than the felt
 * showing, seconds late, a table that has long moved on.
 */
export const MAX_LAG_MS = 2000;

// The felt shows one trick, or two while a finished one is gathered; a
// few dozen moments are plenty to remember.
const KEEP = 64;

export class FeltPace {
  constructor() {
    this.reset();
  }

  /** Forgets everything queued, as when the page enters another room. */
  reset() {
    // When the felt is free for the next card to start moving.
    this.free = 0;
    // Card key -> when its presentation starts.
    this.cards = new Map();
    // Trick key -> {gatherAt, goneAt}.
    this.tricks = new Map();
  }

  /**
   * A card reached the trick at `now`: returns when its presentation
   * starts, at once if the felt is free, else after what is queued.
   * The same key asked again gets the same answer.
   */
  card(key, now) {
    const known = this.cards.get(key);
    if (known !== undefined) return known;
    const at = Math.max(now, Math.min(this.free, now + MAX_LAG_MS));
    this.cards.set(key, at);
    this.free = at + CARD_MS;
    trim(this.cards);
    return at;
  }

  /**
   * The trick `key` was won at `now`, its last card shown from
   * `lastCardAt`: returns when it starts toward its winner and when it is
   * gone. Whatever comes after waits until it is gone.
   */
  won(key, now, lastCardAt = now) {
    const known = this.tricks.get(key);
    if (known) return known;
    // The last card is seen a moment in any case; the trick's stay is cut
    // short only to keep within the lag.
    const gatherAt = Math.max(lastCardAt + CARD_MS, Math.min(Math.max(now, lastCardAt) + HOLD_MS, now + MAX_LAG_MS));
    const moments = { gatherAt, goneAt: gatherAt + GATHER_MS };
    this.tricks.set(key, moments);
    this.free = Math.max(this.free, moments.goneAt);
    trim(this.tricks);
    return moments;
  }

  /** When the card's presentation starts, or undefined for a card never queued (one from a snapshot). */
  startOf(key) {
    return this.cards.get(key);
  }

  /** The trick's moments, or undefined for a trick never seen won here. */
  trickOf(key) {
    return this.tricks.get(key);
  }

  /** Whether the trick `key` is still on the felt at `now`. */
  held(key, now) {
    const moments = this.tricks.get(key);
    return Boolean(moments && now < moments.goneAt);
  }
}

function trim(map) {
  while (map.size > KEEP) map.delete(map.keys().next().value);
}

/** The key of a card in the `index`th trick won while watching (TableState's `wonCount`). */
export function cardKey(index, card) {
  return `${index}:${card}`;
}
