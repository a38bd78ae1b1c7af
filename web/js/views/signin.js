// Signing in: as a guest with a name, or with an account (log in or
// register). The session token is kept by the connection in localStorage,
// so a reload signs the player straight back in.

import { h } from '../dom.js';
import { FocusOnShow } from './shell.js';

function GuestForm({ actions }) {
  return h('form', {
    class: 'card-panel',
    'aria-labelledby': 'guest-title',
    onsubmit: (event) => {
      event.preventDefault();
      actions.signInAsGuest(event.currentTarget.elements.name.value);
    },
  },
  h('h2', { id: 'guest-title' }, 'Play as a guest'),
  h('p', { class: 'hint' }, 'Pick a name and play at once. You can keep it later by setting a password.'),
  h('label', { for: 'guest-name' }, 'Your name'),
  h(FocusOnShow, { now: true }, h('input', { id: 'guest-name', name: 'name', required: true, maxlength: 24, autocomplete: 'nickname' })),
  h('button', { type: 'submit', class: 'primary' }, 'Play as guest'));
}

/** `kind` is `login` or `register`. */
function AccountForm({ kind, actions }) {
  const register = kind === 'register';
  return h('form', {
    class: 'card-panel',
    'aria-labelledby': `${kind}-title`,
    onsubmit: (event) => {
      event.preventDefault();
      const { name, password } = event.currentTarget.elements;
      actions.signInWithAccount(kind, name.value, password.value);
    },
  },
  h('h2', { id: `${kind}-title` }, register ? 'Register' : 'Log in'),
  register ? h('p', { class: 'hint' }, 'An account keeps your rating and can enter tournaments. Passwords are 8 to 256 characters.') : null,
  h('label', { for: `${kind}-name` }, 'Name'),
  h('input', { id: `${kind}-name`, name: 'name', required: true, maxlength: 24, autocomplete: 'username' }),
  h('label', { for: `${kind}-password` }, 'Password'),
  h('input', {
    id: `${kind}-password`, name: 'password', type: 'password', required: true, minlength: register ? 8 : null,
    autocomplete: register ? 'new-password' : 'current-password',
  }),
  h('button', { type: 'submit', class: register ? '' : 'primary' }, register ? 'Register' : 'Log in'));
}

export function Screen({ app, actions }) {
  return h('section', { class: 'signin', 'aria-labelledby': 'signin-title' },
    h('h1', { id: 'signin-title' }, 'Spades'),
    h('p', { class: 'error', role: 'alert' }, app.signin.error),
    h('div', { class: 'signin-grid' },
      h(GuestForm, { actions }),
      h(AccountForm, { kind: 'login', actions }),
      h(AccountForm, { kind: 'register', actions })));
}
