// The server's bot levels, weakest first, as the protocol names them and as
// people read them (protocol.md, "Bots").

/** Each level's protocol name and label. */
export const BOT_LEVELS = [
  ['beginner', 'Beginner'],
  ['basic', 'Basic'],
  ['strong', 'Strong'],
  ['expert', 'Expert'],
];

/** The label of a level; an unknown one (a newer server's) is shown as it comes. */
export function levelLabel(level) {
  const known = BOT_LEVELS.find(([name]) => name === level);
  return known ? known[1] : String(level ?? 'Basic');
}
