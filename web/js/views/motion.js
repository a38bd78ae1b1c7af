// Motion on top of the state: a card of the trick travels from where it
// was played (one's hand, or the player's seat), a finished trick travels
// to its winner's seat, and a score counts up to its new value. The
// element is already in the page, with its final text and place, before
// any of this starts (the Web Animations API only moves what is drawn),
// so a slow device shows the truth late but never shows it wrong. The
// moments come from the felt's pace (pace.js); without motion a card
// still waits for its moment, then simply appears.

import { Component, h } from '../dom.js';
import { GATHER_MS } from '../pace.js';

const TRAVEL_MS = 320;

/** The centre of the first element matching `selector` in the table, relative to `element`'s centre. */
function offsetTo(element, selector) {
  const target = selector && element.closest('.table-screen')?.querySelector(selector);
  if (!target) return null;
  const from = element.getBoundingClientRect();
  const to = target.getBoundingClientRect();
  return { x: to.left + to.width / 2 - (from.left + from.width / 2), y: to.top + to.height / 2 - (from.top + from.height / 2) };
}

/**
 * A card on the felt. `startAt` is when its presentation starts (on
 * Date.now()'s clock; undefined for a card that was there before this
 * page looked); `from` the selector of where it comes from; `gatherAt`
 * and `to` when and where the finished trick goes.
 */
export class TrickCard extends Component {
  componentDidMount() {
    this.enter();
    this.gather();
  }

  componentDidUpdate() {
    this.gather();
  }

  componentWillUnmount() {
    for (const animation of this.animations ?? []) animation.cancel();
  }

  run(keyframes, options) {
    if (!this.base?.animate) return;
    (this.animations ??= []).push(this.base.animate(keyframes, options));
  }

  enter() {
    const { startAt, from, motion } = this.props;
    if (startAt === undefined) return;
    const delay = startAt - Date.now();
    // Drawn late (a busy page): the moment has passed, the card is simply there.
    if (delay < -TRAVEL_MS) return;
    if (!motion) {
      if (delay > 0) this.run([{ opacity: 0 }, { opacity: 0 }], { duration: delay });
      return;
    }
    const offset = offsetTo(this.base, from) ?? { x: 0, y: 0 };
    this.run([
      { transform: `translate(${offset.x}px, ${offset.y}px) scale(0.75)`, opacity: 0 },
      { opacity: 1, offset: 0.25 },
      { transform: 'none', opacity: 1 },
    ], { duration: TRAVEL_MS, delay: Math.max(0, delay), easing: 'cubic-bezier(.2,.7,.3,1)', fill: 'backwards' });
  }

  gather() {
    const { gatherAt, to, motion } = this.props;
    if (gatherAt === undefined || this.gathering) return;
    this.gathering = true;
    const delay = Math.max(0, gatherAt - Date.now());
    if (!motion) {
      this.run([{ opacity: 1 }, { opacity: 0 }], { duration: 1, delay, fill: 'forwards' });
      return;
    }
    const offset = offsetTo(this.base, to) ?? { x: 0, y: 0 };
    this.run([
      { transform: 'none', opacity: 1 },
      { transform: `translate(${offset.x}px, ${offset.y}px) scale(0.45)`, opacity: 0 },
    ], { duration: GATHER_MS, delay, easing: 'ease-in', fill: 'forwards' });
  }

  render({ children }) {
    return children;
  }
}

/**
 * A number that counts up (or down) to its new value over a moment when
 * it changes. It is only the eye's: screen readers are given the value
 * itself beside it.
 */
export class CountUp extends Component {
  componentDidUpdate(previous) {
    const { value, motion } = this.props;
    if (previous.value === value || !motion) return;
    const from = this.state.shown ?? previous.value;
    const start = performance.now();
    cancelAnimationFrame(this.frame);
    const step = (time) => {
      const part = Math.min(1, (time - start) / 700);
      const eased = 1 - (1 - part) ** 3;
      this.setState({ shown: part < 1 ? Math.round(from + (value - from) * eased) : null });
      if (part < 1) this.frame = requestAnimationFrame(step);
    };
    this.frame = requestAnimationFrame(step);
  }

  componentWillUnmount() {
    cancelAnimationFrame(this.frame);
  }

  render({ value }, { shown }) {
    return h('span', { class: 'count-up', 'aria-hidden': 'true' }, String(shown ?? value));
  }
}
