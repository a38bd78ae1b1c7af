// Drawing: the vendored Preact's `h`, `render` and `Component`, and a few
// helpers the views share. Views are functions of the state that return
// elements made with `h`; Preact compares them with what is on the page and
// changes only what differs, so that unchanged elements, and the focus in
// them, stay as they are. Strings never become markup, so names and chat
// lines from other players cannot inject anything.

export { Component, Fragment, createRef, h, render } from './vendor/preact.js';

/** The class names among `parts` that are not false, null or empty. */
export function cx(...parts) {
  return parts.filter(Boolean).join(' ');
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
