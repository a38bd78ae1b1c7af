// A player's picture: one of the small set of pictures a player may
// choose (the protocol's `avatar` ids), drawn here as shapes; a bot's face,
// one for each level; or else the player's initials in a circle of a
// colour of his own. The picture only decorates: the player's name is
// always written beside it, so it is hidden from screen readers.

import { cx, h } from '../dom.js';

// Each picture: its background and its shapes on a 24 by 24 grid.
const PICTURES = {
  spade: ['#2d3a4a', [['path', { d: 'M12 3C9 7 5 9 5 13a3.5 3.5 0 0 0 6 2.4L10 20h4l-1-4.6A3.5 3.5 0 0 0 19 13c0-4-4-6-7-10z', fill: '#f4f2ec' }]]],
  heart: ['#f3d9dc', [['path', { d: 'M12 20s-7-4.5-7-10a4 4 0 0 1 7-2.5A4 4 0 0 1 19 10c0 5.5-7 10-7 10z', fill: '#c8102e' }]]],
  diamond: ['#fbe3c8', [['path', { d: 'M12 3l6 9-6 9-6-9z', fill: '#d0451b' }]]],
  club: ['#dce8d5', [
    ['circle', { cx: 12, cy: 7.5, r: 3.3, fill: '#1b1b1b' }], ['circle', { cx: 7.8, cy: 12.8, r: 3.3, fill: '#1b1b1b' }],
    ['circle', { cx: 16.2, cy: 12.8, r: 3.3, fill: '#1b1b1b' }], ['path', { d: 'M11 12h2l1.5 8h-5z', fill: '#1b1b1b' }]]],
  fox: ['#ffe2c4', [
    ['path', { d: 'M4 4l5 4h6l5-4-1 9-7 7-7-7z', fill: '#e0701c' }], ['path', { d: 'M7 13l5 7 5-7-5 2z', fill: '#fff' }],
    ['circle', { cx: 9, cy: 11, r: 1.1, fill: '#222' }], ['circle', { cx: 15, cy: 11, r: 1.1, fill: '#222' }]]],
  owl: ['#d9e6f2', [
    ['ellipse', { cx: 12, cy: 13, rx: 7, ry: 8, fill: '#7a5a3a' }], ['path', { d: 'M5 5l4 4M19 5l-4 4', stroke: '#7a5a3a', 'stroke-width': 2 }],
    ['circle', { cx: 9, cy: 11, r: 2.6, fill: '#fff' }], ['circle', { cx: 15, cy: 11, r: 2.6, fill: '#fff' }],
    ['circle', { cx: 9, cy: 11, r: 1.2, fill: '#222' }], ['circle', { cx: 15, cy: 11, r: 1.2, fill: '#222' }], ['path', { d: 'M11 14h2l-1 2z', fill: '#f2b233' }]]],
  cat: ['#e8e1f5', [
    ['path', { d: 'M5 9V3l4 3h6l4-3v6a7 7 0 1 1-14 0z', fill: '#5b5b66' }],
    ['circle', { cx: 9.5, cy: 11, r: 1.2, fill: '#d7f266' }], ['circle', { cx: 14.5, cy: 11, r: 1.2, fill: '#d7f266' }],
    ['path', { d: 'M11 14h2l-1 1.2z', fill: '#f29cb0' }]]],
  bear: ['#f1e6d6', [
    ['circle', { cx: 6.5, cy: 7, r: 3, fill: '#8a5a32' }], ['circle', { cx: 17.5, cy: 7, r: 3, fill: '#8a5a32' }],
    ['circle', { cx: 12, cy: 13, r: 7, fill: '#8a5a32' }], ['ellipse', { cx: 12, cy: 15.5, rx: 3, ry: 2.3, fill: '#d9b48a' }],
    ['circle', { cx: 9.3, cy: 11.5, r: 1, fill: '#222' }], ['circle', { cx: 14.7, cy: 11.5, r: 1, fill: '#222' }], ['circle', { cx: 12, cy: 14.7, r: 0.9, fill: '#222' }]]],
  rocket: ['#1f2c4d', [
    ['path', { d: 'M12 2c3 3 4 7 4 11l-2 3h-4l-2-3c0-4 1-8 4-11z', fill: '#e8ecf4' }],
    ['path', { d: 'M8 12l-3 5 3 .5zM16 12l3 5-3 .5z', fill: '#e0453b' }], ['circle', { cx: 12, cy: 9, r: 1.7, fill: '#5aa7ff' }],
    ['path', { d: 'M10.5 17h3L12 21z', fill: '#ffb02e' }]]],
  star: ['#233a6b', [['path', { d: 'M12 3l2.6 6 6.4.3-5 4.1 1.8 6.6-5.8-3.7-5.8 3.7 1.8-6.6-5-4.1 6.4-.3z', fill: '#ffd34d' }]]],
  moon: ['#1c2340', [['path', { d: 'M15 3a9 9 0 1 0 6 13A7 7 0 0 1 15 3z', fill: '#f3e7b3' }]]],
  sun: ['#cfe8ff', [
    ['circle', { cx: 12, cy: 12, r: 4.5, fill: '#f7a501' }],
    ['path', { d: 'M12 2v3M12 19v3M2 12h3M19 12h3M4.9 4.9l2.1 2.1M17 17l2.1 2.1M4.9 19.1L7 17M17 7l2.1-2.1', stroke: '#f7a501', 'stroke-width': 2, 'stroke-linecap': 'round' }]]],
};

/** The picture ids a player may carry, as the protocol lists them. */
export const AVATARS = Object.keys(PICTURES);

// Each level of bot has a face of its own shape, so that the levels differ
// by shape and not by colour alone: a beginner is a small round face with a
// sprout, a basic bot a round face with one antenna, a strong one a square
// head with a visor and two, and an expert a six-sided head with a star.
const BOT_FACES = {
  beginner: ['#d9f2d0', [
    ['path', { d: 'M12 7V4.5', stroke: '#3f7d2c', 'stroke-width': 1.6 }],
    ['path', { d: 'M12 4.5q-3-2-4.5 0q2 2 4.5 0zM12 4.5q3-2 4.5 0q-2 2-4.5 0z', fill: '#5fae45' }],
    ['circle', { cx: 12, cy: 14, r: 6.8, fill: '#8cc66f' }], ['circle', { cx: 9.6, cy: 13.2, r: 1.9, fill: '#fff' }],
    ['circle', { cx: 14.4, cy: 13.2, r: 1.9, fill: '#fff' }], ['circle', { cx: 9.8, cy: 13.5, r: 0.9, fill: '#24451a' }],
    ['circle', { cx: 14.6, cy: 13.5, r: 0.9, fill: '#24451a' }], ['path', { d: 'M10.2 17.2q1.8 1.2 3.6 0', stroke: '#24451a', 'stroke-width': 1.2, fill: 'none' }]]],
  basic: ['#cfe3f7', [
    ['path', { d: 'M12 2.5v3', stroke: '#3b5d80', 'stroke-width': 1.6 }], ['circle', { cx: 12, cy: 2.5, r: 1.3, fill: '#e0453b' }],
    ['circle', { cx: 12, cy: 13.5, r: 7.5, fill: '#6f93b8' }], ['circle', { cx: 9.3, cy: 12.5, r: 1.6, fill: '#fff' }],
    ['circle', { cx: 14.7, cy: 12.5, r: 1.6, fill: '#fff' }], ['path', { d: 'M9 16.5q3 2 6 0', stroke: '#fff', 'stroke-width': 1.4, fill: 'none' }]]],
  strong: ['#f6d9c9', [
    ['path', { d: 'M8 2.5l1.5 3.5M16 2.5l-1.5 3.5', stroke: '#5b2d1d', 'stroke-width': 1.6 }],
    ['rect', { x: 4.5, y: 6, width: 15, height: 14, rx: 2.5, fill: '#8a3b22' }],
    ['rect', { x: 6.5, y: 9.5, width: 11, height: 3.6, rx: 1.8, fill: '#ffcf3f' }],
    ['path', { d: 'M8.5 16.5h7', stroke: '#ffcf3f', 'stroke-width': 1.6 }]]],
  expert: ['#ddd3f3', [
    ['path', { d: 'M12 3.5l7.5 4.3v8.4L12 20.5l-7.5-4.3V7.8z', fill: '#3d2a78' }],
    ['path', { d: 'M12 6.2l1.1 2.3 2.5.3-1.8 1.7.5 2.5-2.3-1.2-2.3 1.2.5-2.5-1.8-1.7 2.5-.3z', fill: '#ffd24a' }],
    ['rect', { x: 8, y: 13.6, width: 3, height: 1.8, rx: 0.9, fill: '#9fe8ff' }], ['rect', { x: 13, y: 13.6, width: 3, height: 1.8, rx: 0.9, fill: '#9fe8ff' }],
    ['path', { d: 'M9.5 17.6h5', stroke: '#9fe8ff', 'stroke-width': 1.3 }]]],
};

const INITIAL_COLOURS = ['#2f6db5', '#b5432f', '#2f8a5b', '#8a2fb5', '#b58a2f', '#2f9fb5', '#b52f7a', '#5b6b2f'];

/** A colour of the player's own, the same on every page: from his id. */
export function colourOf(id) {
  let hash = 0;
  for (const char of String(id ?? '')) hash = (hash * 31 + char.codePointAt(0)) >>> 0;
  return INITIAL_COLOURS[hash % INITIAL_COLOURS.length];
}

/** Up to two initials of a name: "Ann Lee" is "AL", "juniper" is "J". */
export function initialsOf(name) {
  const words = String(name ?? '').trim().split(/\s+/).filter(Boolean);
  const letters = words.length > 1 ? [words[0], words[words.length - 1]] : words;
  return letters.map((word) => [...word][0].toUpperCase()).join('') || '?';
}

function Picture([background, shapes]) {
  return h('svg', { viewBox: '0 0 24 24', class: 'avatar-svg', focusable: 'false' },
    h('circle', { cx: 12, cy: 12, r: 12, fill: background }),
    shapes.map(([tag, props], at) => h(tag, { key: at, ...props })));
}

/** What the picture of `player` is: `bot-` and the bot's level, a picture id, or `initials`. */
export function avatarKind(player) {
  if (!player) return 'none';
  if (player.bot) return BOT_FACES[player.level] ? `bot-${player.level}` : 'bot-basic';
  return PICTURES[player.avatar] ? player.avatar : 'initials';
}

/** The picture of `player` ({id, name, bot?, level?, avatar?}), `size` small (seat rows) or large (a profile). */
export function Avatar({ player, size = 'small', extra }) {
  const kind = avatarKind(player);
  const classes = cx('avatar', `avatar-${size}`, extra, `avatar-${kind}`);
  if (kind === 'none') return h('span', { class: cx(classes, 'avatar-empty'), 'aria-hidden': 'true' });
  if (kind === 'initials') {
    return h('span', { class: classes, 'aria-hidden': 'true', 'data-colour': INITIAL_COLOURS.indexOf(colourOf(player.id)) },
      initialsOf(player.name));
  }
  const picture = kind.startsWith('bot-') ? BOT_FACES[kind.slice(4)] : PICTURES[kind];
  return h('span', { class: classes, 'aria-hidden': 'true' }, Picture(picture));
}
