// Small pieces of table talk and invitations: the quick-chat bar, the
// invitations a friend sent (each with the way to accept it), the
// rematch offer after a game, and the picture chooser of one's profile.

import { h } from '../dom.js';
import { QUICK_PHRASES, invitationWords, rematchWords } from '../social.js';
import { AVATARS, Avatar } from './avatar.js';

/**
 * The set phrases and emotes, one button each, behind one button beside
 * the chat's Send, so that they take no room until wanted. A phrase said
 * closes them again.
 */
export function QuickChat({ actions }) {
  const say = (event, phrase) => {
    event.currentTarget.closest('details')?.removeAttribute('open');
    actions.quickChat(phrase);
  };
  return h('details', { class: 'quick-chat' },
    h('summary', { class: 'button', title: 'Quick chat' }, 'Quick chat'),
    h('div', { class: 'quick-phrases', role: 'group', 'aria-label': 'Quick chat' },
      QUICK_PHRASES.map(({ phrase, words, label }) => h('button', {
        key: phrase, type: 'button', class: 'quick-phrase',
        'aria-label': label ? `Say ${label}` : `Say ${words}`,
        onclick: (event) => say(event, phrase),
      }, words))));
}

/** The invitations waiting for an answer, above every screen. */
export function Invitations({ app, actions }) {
  if (!app.social.invitations.length) return null;
  return h('div', { class: 'invitations', role: 'region', 'aria-label': 'Invitations' },
    app.social.invitations.map((invitation) => h('div', { key: invitation.id, class: 'invitation', role: 'alert' },
      h(Avatar, { player: invitation.from }),
      h('span', {}, invitationWords(invitation)),
      h('button', { type: 'button', onclick: () => actions.acceptInvitation(invitation) },
        invitation.to === 'table' ? 'Go to the table' : 'Queue together'),
      h('button', { type: 'button', class: 'link-button', onclick: () => actions.dismissInvitation(invitation) }, 'Not now'))));
}

/**
 * After a game: the buttons to ask for a rematch with the same seats, or
 * for one on the same deals (everyone one seat to the left), what the
 * others asked for, and how many are still to ask. `table.rematch` is
 * `{asked, waitingFor, sameDeals}` or null.
 */
export function Rematch({ table, actions }) {
  if (table.status !== 'finished' || table.seat === null || table.seat === undefined) return null;
  const rematch = table.rematch;
  // Asking for one kind drops the requests for the other, so the button of
  // the other kind stays open: pressing it changes what this player asks.
  const mine = rematch?.asked?.includes(table.seat) ? (rematch.sameDeals ? 'same' : 'new') : null;
  const waiting = rematch ? rematch.waitingFor.length : null;
  const others = rematchWords(rematch, table.seat, (seat) => table.nameOf(seat));
  return h('div', { class: 'rematch' },
    h('button', { type: 'button', disabled: mine === 'new', onclick: () => actions.rematch(false) },
      mine === 'new' ? 'Rematch asked' : 'Rematch'),
    h('button', {
      type: 'button', disabled: mine === 'same', onclick: () => actions.rematch(true),
      title: 'The same hands again, everyone one seat to the left: your side gets the cards the other side held.',
    }, mine === 'same' ? 'Asked to play these deals again' : 'Play these deals again'),
    others ? h('span', { class: 'rematch-asked' }, others) : null,
    waiting ? h('span', { class: 'hint' }, ` Waiting for ${waiting} more`) : null);
}

/** One's own profile: the pictures to choose from, and initials. */
export function AvatarPicker({ current, actions }) {
  return h('fieldset', { class: 'avatar-picker' },
    h('legend', {}, 'Your picture'),
    [...AVATARS, null].map((avatar) => h('button', {
      key: avatar ?? 'initials', type: 'button', class: 'avatar-choice',
      'aria-pressed': String((current ?? null) === avatar),
      'aria-label': avatar ? `Picture: ${avatar}` : 'Picture: initials',
      onclick: () => actions.setAvatar(avatar),
    }, avatar ? h(Avatar, { player: { id: 'x', name: '', avatar }, size: 'small' }) : 'Aa')));
}
