// The table's chat: the lines, newest last (kept in view when the reader
// was at the bottom), and the box to write one. A line from another
// player has a button to report him; a line from a player this one
// blocks is shown as hidden; a player removed by the host is said here,
// in the flow of the table.

import { Component, h } from '../dom.js';
import { QuickChat } from './social-bits.js';

class ChatLog extends Component {
  // Reading the scroll position makes the browser lay the page out at
  // once, so it is read only when a line is about to be added.
  getSnapshotBeforeUpdate(previous) {
    const list = this.base;
    if (!list || previous.lines === this.props.lines && previous.count === this.props.lines.length) return false;
    return list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  }

  componentDidUpdate(_props, _state, atBottom) {
    if (atBottom) this.base.scrollTop = this.base.scrollHeight;
  }

  render({ lines, me, actions }) {
    // Each line keeps its element, so that the live region reads only the new ones.
    return h('ol', { class: 'chat-log', 'aria-live': 'polite', 'aria-label': 'Chat messages' },
      lines.map((line) => h(ChatLine, { key: line.seq, line, me, actions })));
  }
}

function ChatLine({ line, me, actions }) {
  if (line.event === 'removed') {
    return h('li', { class: 'chat-event' }, `${line.player.name} was removed from the table by its host.`);
  }
  if (line.hidden) return h('li', { class: 'chat-hidden' }, '(message from a player you block)');
  const other = line.from.id !== me && !line.from.bot;
  return h('li', {},
    h('strong', {}, line.from.name), line.seat === null ? ' (watching)' : '', ': ', line.text,
    other ? h('button', {
      type: 'button', class: 'chat-report', 'aria-label': `Report ${line.from.name}`, title: 'Report to the moderators',
      onclick: () => actions.openReport({ id: line.from.id, name: line.from.name }, 'table'),
    }, h('span', { 'aria-hidden': 'true' }, '⚑')) : null);
}

function submit(event, actions) {
  event.preventDefault();
  const form = event.currentTarget;
  // A refused line stays in the box, so that the player can mend it.
  if (actions.chat(form.elements.text.value)) form.reset();
}

export function Chat({ state, actions }) {
  return h('section', { class: 'card-panel chat', 'aria-labelledby': 'chat-title' },
    h('h2', { id: 'chat-title' }, 'Chat'),
    h(ChatLog, { lines: state.chat, count: state.chat.length, me: state.me, actions }),
    h('form', { class: 'chat-form', onsubmit: (event) => submit(event, actions) },
      h('label', { for: 'chat-input', class: 'visually-hidden' }, 'Chat message'),
      h('input', { id: 'chat-input', name: 'text', maxlength: 300, autocomplete: 'off' }),
      h('button', { type: 'submit' }, 'Send'),
      h(QuickChat, { actions })));
}
