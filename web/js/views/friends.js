// Friends: the lobby's list of friends with where each is now, the
// requests both ways, asking someone by name, and whether one's own
// table shows; at the table, a short list of friends online to invite.
// Only registered players have friends: a guest is told how to get them.

import { h } from '../dom.js';
import { presenceWords, sortFriends } from '../social.js';
import { hashFor } from '../router.js';
import { Avatar } from './avatar.js';

function ask(event, actions) {
  event.preventDefault();
  const form = event.currentTarget;
  actions.askFriend(form.elements.friend.value).then((asked) => asked && form.reset());
}

function FriendRow({ friend, actions, atTable }) {
  const { player } = friend;
  const here = friend.presence !== 'offline';
  return h('li', { class: `friend friend-${friend.presence}` },
    h(Avatar, { player }),
    h('span', { class: 'friend-name' }, player.name),
    h('span', { class: 'friend-presence' }, presenceWords(friend)),
    h('span', { class: 'friend-actions' },
      friend.room && !atTable
        ? h('a', { class: 'button', href: hashFor('room', friend.room), 'aria-label': `Join ${player.name}'s table` }, 'Join')
        : null,
      here && atTable
        ? h('button', { type: 'button', 'aria-label': `Invite ${player.name} to this table`, onclick: () => actions.invite(player, 'table') }, 'Invite')
        : null,
      here && !atTable
        ? h('button', { type: 'button', 'aria-label': `Queue with ${player.name}`, onclick: () => actions.invite(player, 'queue') }, 'Play together')
        : null,
      atTable ? null : h('button', {
        type: 'button', class: 'link-button', 'aria-label': `Remove ${player.name} from your friends`,
        onclick: () => actions.removeFriend(player),
      }, 'Remove')));
}

function Requests({ list, actions }) {
  if (!list.incoming.length && !list.outgoing.length) return null;
  return h('div', { class: 'friend-requests' },
    list.incoming.length ? h('ul', { 'aria-label': 'Friend requests' },
      list.incoming.map((player) => h('li', { key: player.id, class: 'friend' },
        h(Avatar, { player }), h('span', { class: 'friend-name' }, `${player.name} asks to be your friend`),
        h('span', { class: 'friend-actions' },
          h('button', { type: 'button', 'aria-label': `Accept ${player.name}`, onclick: () => actions.askFriend(player.name) }, 'Accept'),
          h('button', { type: 'button', 'aria-label': `Decline ${player.name}`, onclick: () => actions.removeFriend(player) }, 'Decline'))))) : null,
    list.outgoing.length ? h('p', { class: 'hint' },
      `Waiting for: ${list.outgoing.map((player) => player.name).join(', ')}`) : null);
}

/** The lobby's friends panel. */
export function FriendsPanel({ app, actions }) {
  const title = h('h2', { id: 'friends-title' }, 'Friends');
  if (!app.me?.registered) {
    return h('section', { class: 'card-panel friends', 'aria-labelledby': 'friends-title' }, title,
      h('p', { class: 'hint' }, 'Register your name to keep a list of friends, see when they are on, and invite them to your table.'));
  }
  const list = app.social.friends;
  const friends = list ? sortFriends(list.friends) : [];
  return h('section', { class: 'card-panel friends', 'aria-labelledby': 'friends-title' }, title,
    app.social.error ? h('p', { class: 'error', role: 'alert' }, app.social.error) : null,
    list ? h(Requests, { list, actions }) : null,
    list && !friends.length ? h('p', { class: 'hint' }, 'No friends yet: ask someone by the name he plays under.') : null,
    friends.length ? h('ul', { class: 'friend-list', 'aria-label': 'Your friends' },
      friends.map((friend) => h(FriendRow, { key: friend.player.id, friend, actions, atTable: false }))) : null,
    h('form', { class: 'inline-form', onsubmit: (event) => ask(event, actions) },
      h('label', { for: 'friend-name' }, 'Add a friend'),
      h('input', { id: 'friend-name', name: 'friend', maxlength: 24, autocomplete: 'off', placeholder: 'Name' }),
      h('button', { type: 'submit' }, 'Ask')),
    list ? h('label', { class: 'check' },
      h('input', {
        type: 'checkbox', checked: list.hide_table,
        onchange: (event) => actions.setHideTable(event.currentTarget.checked),
      }), ' Hide my table from my friends') : null);
}

/** At the table: the friends who are on, each with a button to invite him here. */
export function InviteFriends({ app, actions }) {
  const list = app.social.friends;
  if (!app.me?.registered || !list) return null;
  const here = sortFriends(list.friends).filter((friend) => friend.presence !== 'offline'
    && friend.room !== app.table.room);
  return h('details', { class: 'invite-friends' },
    h('summary', {}, `Invite friends (${here.length} on)`),
    here.length
      ? h('ul', { class: 'friend-list', 'aria-label': 'Friends you can invite' },
        here.map((friend) => h(FriendRow, { key: friend.player.id, friend, actions, atTable: true })))
      : h('p', { class: 'hint' }, 'None of your friends is on now.'));
}
