// Signing in: as a guest with a name, or with an account (log in or
// register). The session token is kept by the connection in localStorage,
// so a reload signs the player straight back in.

import { h } from '../dom.js';
import { describe } from '../messages.js';

export function mount(root, app) {
  const error = h('p', { class: 'error', 'data-testid': 'signin-error', role: 'alert' });

  async function signedIn(promise) {
    error.textContent = '';
    try {
      await promise;
      const next = app.afterSignIn;
      app.afterSignIn = null;
      if (next && next.name !== 'signin') app.navigate(next.name, next.param);
      else app.navigate('lobby');
    } catch (failure) {
      error.textContent = describe(failure);
    }
  }

  // A new connection is made for each sign-in, so that an earlier
  // session's connection never lingers.
  function connectWith(fields) {
    app.client.close();
    return app.client.connect(fields);
  }

  const guestName = h('input', { id: 'guest-name', name: 'name', required: true, maxlength: 24, autocomplete: 'nickname', 'data-testid': 'guest-name' });
  const guest = h('form', {
    class: 'card-panel',
    'data-testid': 'guest-form',
    onsubmit: (event) => {
      event.preventDefault();
      signedIn(connectWith({ name: guestName.value.trim() }));
    },
  },
  h('h2', {}, 'Play as a guest'),
  h('p', { class: 'hint' }, 'Pick a name and play at once. You can keep it later by setting a password.'),
  h('label', { for: 'guest-name' }, 'Your name'), guestName,
  h('button', { type: 'submit', class: 'primary', 'data-testid': 'guest-submit' }, 'Play as guest'));

  function accountForm(kind) {
    const nameInput = h('input', { id: `${kind}-name`, required: true, maxlength: 24, autocomplete: 'username', 'data-testid': `${kind}-name` });
    const passwordInput = h('input', {
      id: `${kind}-password`, type: 'password', required: true, minlength: kind === 'register' ? 8 : null,
      autocomplete: kind === 'register' ? 'new-password' : 'current-password', 'data-testid': `${kind}-password`,
    });
    return h('form', {
      class: 'card-panel',
      'data-testid': `${kind}-form`,
      onsubmit: (event) => {
        event.preventDefault();
        const call = kind === 'register' ? app.api.register : app.api.login;
        signedIn(call.call(app.api, nameInput.value.trim(), passwordInput.value)
          .then((answer) => connectWith({ token: answer.token })));
      },
    },
    h('h2', {}, kind === 'register' ? 'Register' : 'Log in'),
    kind === 'register' ? h('p', { class: 'hint' }, 'An account keeps your rating and can enter tournaments. Passwords are 8 to 256 characters.') : null,
    h('label', { for: `${kind}-name` }, 'Name'), nameInput,
    h('label', { for: `${kind}-password` }, 'Password'), passwordInput,
    h('button', { type: 'submit', class: kind === 'login' ? 'primary' : '', 'data-testid': `${kind}-submit` },
      kind === 'register' ? 'Register' : 'Log in'));
  }

  root.append(h('section', { class: 'signin', 'aria-labelledby': 'signin-title' },
    h('h1', { id: 'signin-title' }, 'Spades'),
    error,
    h('div', { class: 'signin-grid' }, guest, accountForm('login'), accountForm('register'))));
  guestName.focus();
  return { update() {}, unmount() {} };
}
