// Small pictures drawn as SVG, each beside words or a name that says what
// it means, so hidden from screen readers.

import { h } from '../dom.js';

/** A speaker, with waves when sound is on and a cross when it is off. */
export function Speaker({ on }) {
  return h('svg', { viewBox: '0 0 24 24', class: 'icon', 'aria-hidden': 'true', focusable: 'false' },
    h('path', { d: 'M4 9h4l5-4v14l-5-4H4z', fill: 'currentColor' }),
    on
      ? h('path', { d: 'M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12', stroke: 'currentColor', 'stroke-width': 2, fill: 'none', 'stroke-linecap': 'round' })
      : h('path', { d: 'M16 9l5 6M21 9l-5 6', stroke: 'currentColor', 'stroke-width': 2, 'stroke-linecap': 'round' }));
}
