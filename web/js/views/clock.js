// Things that change with time alone: the turn's clock, and any text that
// counts (the quick-play wait). Each draws itself again on its own timer,
// so that the rest of the screen is not drawn four times a second.

import { Component, cx, formatClock, h } from '../dom.js';

/** Draws `draw()` again every `every` milliseconds. */
export class Ticking extends Component {
  componentDidMount() {
    this.timer = setInterval(() => this.forceUpdate(), this.props.every);
  }

  componentWillUnmount() {
    clearInterval(this.timer);
  }

  render() {
    return this.props.draw();
  }
}

/** The seconds left to whoever must act at the table (`state`, a TableState). */
export function Clock({ state, hidden = false }) {
  return h(Ticking, {
    every: 250,
    draw: () => {
      const left = state.clockLeft;
      return h('span', {
        class: cx('clock', left !== null && left <= 10000 && 'low'), role: 'timer', 'aria-label': 'Time left', hidden,
      }, left === null ? '' : formatClock(left));
    },
  });
}
