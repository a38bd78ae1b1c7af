// Friends and table talk as plain data: the quick-chat phrases, how a
// friend's presence reads, and what an invitation says. The views and the
// controller share these; nothing here draws or sends.

/** The quick-chat phrases of protocol.md, in the order the bar shows them. */
export const QUICK_PHRASES = [
  { phrase: 'hello', words: 'Hello!' },
  { phrase: 'good_luck', words: 'Good luck!' },
  { phrase: 'nice_play', words: 'Nice play!' },
  { phrase: 'well_played', words: 'Well played, partner!' },
  { phrase: 'thanks', words: 'Thanks!' },
  { phrase: 'sorry', words: 'Sorry!' },
  { phrase: 'oops', words: 'Oops!' },
  { phrase: 'hurry_up', words: 'Your turn, please!' },
  { phrase: 'good_game', words: 'Good game!' },
  { phrase: 'thumbs_up', words: '👍', label: 'Thumbs up' },
  { phrase: 'laugh', words: '😄', label: 'Laugh' },
  { phrase: 'wow', words: '😮', label: 'Wow' },
];

/** How long a quick phrase stays beside its seat, in milliseconds. */
export const BUBBLE_MS = 4000;

/** A friend's whereabouts in words: "Online", "Playing at table F723F9", "Offline". */
export function presenceWords(friend) {
  switch (friend.presence) {
    case 'playing': return friend.room ? `Playing at table ${friend.room}` : 'Playing';
    case 'online': return 'Online';
    default: return 'Offline';
  }
}

/** Friends online first (playing, then in the lobby), then the others, each group by name. */
export function sortFriends(friends) {
  const rank = { playing: 0, online: 1, offline: 2 };
  return [...friends].sort((a, b) => (rank[a.presence] ?? 3) - (rank[b.presence] ?? 3)
    || a.player.name.localeCompare(b.player.name));
}

/** What an invitation says, from the server's `invitation`. */
export function invitationWords(invitation) {
  const from = invitation.from?.name ?? 'A friend';
  return invitation.to === 'queue'
    ? `${from} invites you to quick play (${invitation.rules ?? 'classic'}) as partners.`
    : `${from} invites you to table ${invitation.room}.`;
}

/**
 * The quick phrases said at each seat lately, for bubbles at the seats:
 * from the table's chat lines (state.js), the last of each seat said
 * within `BUBBLE_MS` of `now`.
 */
export function seatBubbles(chat, now) {
  const bubbles = new Map();
  for (const line of chat) {
    if (!line.quick || line.hidden || line.seat === null || line.seat === undefined) continue;
    if (line.at !== undefined && now - line.at > BUBBLE_MS) continue;
    bubbles.set(line.seat, line.text);
  }
  return bubbles;
}

/** Names in a sentence: "Ann", "Ann and Ben", "Ann, Ben and Cy". */
function nameList(names) {
  return names.length < 2 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/**
 * What the others at the table asked for after a game, from the table's
 * `rematch` (state.js): "Ann asks for a rematch.", "Ann and Ben ask to
 * play these deals again." Null when nobody else asked. `nameOf(seat)`
 * names a seat's player.
 */
export function rematchWords(rematch, mySeat, nameOf) {
  const others = (rematch?.asked ?? []).filter((seat) => seat !== mySeat);
  if (!others.length) return null;
  const verb = others.length === 1 ? 'asks' : 'ask';
  const what = rematch.sameDeals ? 'to play these deals again' : 'for a rematch';
  return `${nameList(others.map(nameOf))} ${verb} ${what}.`;
}
