// The page a password reset link opens (`#/reset/TOKEN`, the `path` the
// API gives an administrator): a new password, and the player is signed
// in with it. It needs no session, since its reader cannot sign in.

import { h } from '../dom.js';
import { FocusOnShow } from './shell.js';

export function Screen({ app, actions }) {
  const { token, sending, error } = app.resetView;
  const submit = (event) => {
    event.preventDefault();
    actions.resetPassword(token, event.currentTarget.elements.password.value);
  };
  return h('section', { class: 'narrow-page', 'aria-labelledby': 'reset-title' },
    h('h1', { id: 'reset-title' }, 'Choose a new password'),
    h('form', { class: 'card-panel', 'aria-labelledby': 'reset-title', onsubmit: submit },
      h('p', { class: 'hint' },
        'This link works once, for 24 hours. Setting the password signs out every other device of the account and signs you in here.'),
      h('label', { for: 'reset-password' }, 'New password (8 characters or more)'),
      h(FocusOnShow, { now: true }, h('input', {
        id: 'reset-password', name: 'password', type: 'password', required: true, minlength: 8, maxlength: 256, autocomplete: 'new-password',
      })),
      error ? h('p', { class: 'error', role: 'alert' }, error) : null,
      h('button', { type: 'submit', class: 'primary', disabled: sending }, sending ? 'Setting…' : 'Set password and sign in')));
}
