// A small helper to build DOM trees without HTML strings: strings never
// become markup, so names and chat lines from other players cannot
// inject anything, and nothing needs an inline script or style.

/**
 * h('button', {class: 'x', 'data-testid': 'y', onclick: fn}, 'text', child)
 * Attributes that are false, null or undefined are left out; `true` sets
 * an empty attribute; functions under on* keys become listeners.
 */
export function h(tag, attrs = {}, ...children) {
  const element = tag.includes(':')
    ? document.createElementNS('http://www.w3.org/2000/svg', tag.split(':')[1])
    : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === false || value === null || value === undefined) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      element.addEventListener(key.slice(2), value);
    } else if (key === 'text') {
      element.textContent = value;
    } else if (key === 'value' && 'value' in element) {
      element.value = value;
    } else {
      element.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces an element's children. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

const drawnWith = new WeakMap();

/**
 * Fills `element` with what `build()` returns, unless it was last filled
 * with the same `key`. A message that changes one part of a screen then
 * costs the page that part alone, and the controls that did not change
 * keep their focus. The key must name everything `build` reads.
 */
export function redraw(element, key, build) {
  if (drawnWith.get(element) === key) return false;
  drawnWith.set(element, key);
  fill(element, build());
  return true;
}

/**
 * Tells `redraw` that `element` now shows what `key` names, after the
 * caller brought it up to date in place (a card removed from a hand).
 */
export function drawnAs(element, key) {
  drawnWith.set(element, key);
}

/**
 * A key that finds "the same" control after a region is drawn again: its
 * test id plus the card, seat or bid it stands for.
 */
export function focusKey(element) {
  if (!element || !element.dataset || !element.dataset.testid) return null;
  const { testid, card, seat } = element.dataset;
  return [testid, card ?? '', seat ?? ''].join('|');
}

/** The element under `root` with a focus key, if it is still there. */
export function findByKey(root, key) {
  if (!key) return null;
  const [testid, card, seat] = key.split('|');
  let selector = `[data-testid="${CSS.escape(testid)}"]`;
  if (card) selector += `[data-card="${CSS.escape(card)}"]`;
  if (seat) selector += `[data-seat="${CSS.escape(seat)}"]`;
  return root.querySelector(selector);
}

/** Formats milliseconds as m:ss, or as seconds under a minute. */
export function formatClock(ms) {
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** A date from the API as a short local text. */
export function formatDate(text) {
  if (!text) return '';
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : date.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
}
