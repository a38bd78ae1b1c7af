// The controller's part for friends and table talk: the friends list and
// its requests, pictures, invitations both ways, quick chat and rematches.
// Like the other parts, the actions change app-state.js's fields only
// (`app.social`), and the views call them.

import { describe } from './messages.js';

/** How often the friends list is read again while it is shown, in milliseconds. */
export const FRIENDS_REFRESH_MS = 15000;

/** The actions over `app`; `notify(what, kind)` shows a short notice. */
export function socialActions(app, { client, api, changed, navigateTo, notify }) {
  const social = app.social;
  let invitationId = 0;

  async function loadFriends() {
    if (!app.me?.registered) return;
    social.loading = true;
    try {
      social.friends = await api.friends();
      social.error = null;
    } catch (error) {
      social.error = describe(error);
    }
    social.loading = false;
    changed();
  }

  let refresh = null;

  const actions = {
    loadFriends,

    /** The lobby and the table show friends: their list is read, and read again while shown. */
    enter(route) {
      if (route.name !== 'lobby' && route.name !== 'room') return;
      clearInterval(refresh);
      refresh = setInterval(loadFriends, FRIENDS_REFRESH_MS);
      loadFriends();
    },

    leave(route) {
      if (route.name === 'lobby' || route.name === 'room') clearInterval(refresh);
    },

    /** Asks a registered player, by name, to be a friend, or accepts his request. */
    async askFriend(name) {
      const wanted = name.trim();
      if (!wanted) return false;
      try {
        const answer = await api.askFriend(wanted);
        notify(answer.status === 'friends'
          ? `You and ${answer.player.name} are friends.`
          : `Asked ${answer.player.name} to be your friend.`);
        await loadFriends();
        return true;
      } catch (error) {
        notify(error, 'error');
        return false;
      }
    },

    /** Ends a friendship, or declines or withdraws a request. */
    async removeFriend(player) {
      try {
        await api.removeFriend(player.id);
        await loadFriends();
      } catch (error) {
        notify(error, 'error');
      }
    },

    async setHideTable(hide) {
      try {
        await api.setHideTable(hide);
        if (social.friends) social.friends.hide_table = hide;
        changed();
      } catch (error) {
        notify(error, 'error');
      }
    },

    /** Sets the caller's picture (`null` for initials); the profile shows it at once. */
    async setAvatar(avatar) {
      try {
        await api.setAvatar(avatar);
        if (app.me) app.me = { ...app.me, avatar: avatar ?? undefined };
        const shown = app.profile.data;
        if (shown?.own) app.profile.data = { ...shown, profile: { ...shown.profile, avatar: avatar ?? undefined } };
        notify('Your picture is saved; tables you join from now on show it.');
      } catch (error) {
        notify(error, 'error');
      }
    },

    /** Invites a friend to this table (`table`) or to quick play as partners (`queue`). */
    async invite(friend, to) {
      try {
        const rules = app.lobbyView.quickPreset ?? 'classic';
        await client.invite(friend.id, to, rules);
        // The inviter queues at once, naming his friend: the friend's
        // own `queue` naming him makes the pair.
        if (to === 'queue') await client.queue({ rules, partner: friend.name });
        notify(to === 'queue'
          ? `Invited ${friend.name} to quick play; you wait for each other.`
          : `Invited ${friend.name} to this table.`);
      } catch (error) {
        notify(error, 'error');
      }
    },

    /** The server's `invitation`: shown until the player answers it. */
    invitationReceived(message) {
      social.invitations = [...social.invitations, { ...message, id: (invitationId += 1) }];
      changed();
    },

    dismissInvitation(invitation) {
      social.invitations = social.invitations.filter((other) => other.id !== invitation.id);
      changed();
    },

    /** Goes where an invitation leads: the table, or the queue beside the friend. */
    async acceptInvitation(invitation) {
      actions.dismissInvitation(invitation);
      if (invitation.to === 'table') {
        navigateTo('room', invitation.room);
        return;
      }
      try {
        await client.queue({ rules: invitation.rules ?? 'classic', partner: invitation.from.name });
      } catch (error) {
        notify(error, 'error');
      }
    },

    /** The server's `friend_request`: a notice, and the list again if it is shown. */
    friendRequestReceived(message) {
      notify(`${message.from.name} asks to be your friend. Accept on the lobby's Friends list.`);
      loadFriends();
    },

    async quickChat(phrase) {
      try {
        await client.quickChat(phrase);
      } catch (error) {
        notify(error, 'error');
      }
    },

    /** Asks for a rematch; `sameDeals` for one on the finished game's deals. */
    async rematch(sameDeals = false) {
      try {
        await client.rematch(sameDeals);
      } catch (error) {
        notify(error, 'error');
      }
    },
  };

  // The server's messages for this part.
  client.on('invitation', (message) => actions.invitationReceived(message));
  client.on('friend_request', (message) => actions.friendRequestReceived(message));

  return actions;
}
