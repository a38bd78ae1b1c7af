// The form that reports a player to the moderators, from the table (his
// seat or one of his chat lines) or from his profile. It is a modal
// dialog: the browser keeps the keyboard inside it, Escape closes it, and
// focus goes back to the button that opened it.

import { Component, h } from '../dom.js';
import { MAX_REASON } from '../moderation.js';

export class ReportDialog extends Component {
  componentDidMount() {
    try {
      this.base.showModal();
    } catch {
      // A browser without modal dialogs shows it in the page's flow.
      this.base.setAttribute('open', '');
    }
  }

  componentWillUnmount() {
    // Closed by the page (the report was sent): closing it here, while it
    // is still in the document, gives focus back where it was.
    if (this.base.open) this.base.close();
  }

  render({ report, actions }) {
    const { player, via, sending, error } = report;
    const submit = (event) => {
      event.preventDefault();
      actions.sendReport(event.currentTarget.elements.reason.value);
    };
    return h('dialog', {
      class: 'dialog', 'aria-labelledby': 'report-title', 'aria-describedby': 'report-hint',
      onclose: actions.closeReport,
    },
    h('form', { onsubmit: submit },
      h('h2', { id: 'report-title' }, `Report ${player.name}`),
      h('p', { id: 'report-hint', class: 'hint' }, via === 'table'
        ? "The moderators get what you write with this table's last 20 chat lines."
        : 'The moderators get what you write with the last game you played together.'),
      h('label', { for: 'report-reason' }, 'What happened?'),
      h('textarea', {
        id: 'report-reason', name: 'reason', rows: 4, maxlength: MAX_REASON, required: true, autofocus: true,
        'aria-describedby': 'report-limit',
      }),
      h('p', { id: 'report-limit', class: 'hint' }, `Up to ${MAX_REASON} characters. Insults, cheating, spam: say what you saw.`),
      error ? h('p', { class: 'error', role: 'alert' }, error) : null,
      h('div', { class: 'button-row' },
        h('button', { type: 'submit', class: 'primary', disabled: sending }, sending ? 'Sending…' : 'Send report'),
        h('button', { type: 'button', onclick: actions.closeReport }, 'Cancel'))));
  }
}
