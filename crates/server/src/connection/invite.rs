//! `invite`: a player asks a friend to his table, or to quick play as his
//! partner. The friend's connection gets an `invitation` on whichever node
//! holds it; nothing is kept, so an invitation is only a message.

use std::time::{Duration, Instant};

use spades_engine::Preset;
use spades_protocol::friends::InviteTo;
use spades_protocol::ws::{ErrorCode, MessageId, ServerMessage};
use spades_room::{PlayerRef, Text};
use uuid::Uuid;

use super::Session;

/// Invitations one connection may send per [`INVITE_WINDOW`]: enough to
/// gather a table, too few to pester anyone.
pub(super) const INVITES_PER_WINDOW: usize = 10;
const INVITE_WINDOW: Duration = Duration::from_secs(60);

impl Session {
    pub(super) async fn invite(
        &mut self,
        id: MessageId,
        me: &PlayerRef,
        friend: String,
        to: InviteTo,
        rules: Preset,
    ) {
        match self.check_invite(me, &friend, to).await {
            Ok((friend, room)) => {
                let invitation = ServerMessage::Invitation {
                    from: me.info(),
                    to,
                    room,
                    rules: (to == InviteTo::Queue).then_some(rules),
                };
                let text = Text::from(invitation.to_json());
                if !self.state.online().send(&friend.to_string(), text.clone()) {
                    self.state
                        .network()
                        .notify(self.state.online(), &friend.to_string(), text)
                        .await;
                }
                self.ack(id);
            }
            Err((code, message)) => self.send_error(Some(id), code, message),
        }
    }

    /// The friend's account and the room he is invited to, or why the
    /// invitation is refused.
    async fn check_invite(
        &mut self,
        me: &PlayerRef,
        friend: &str,
        to: InviteTo,
    ) -> Result<(Uuid, Option<String>), (ErrorCode, String)> {
        let not_friends = || {
            (
                ErrorCode::NotFriends,
                "you can invite only your friends (`POST /api/friends`)".to_string(),
            )
        };
        let friend = friend.parse::<Uuid>().map_err(|_| not_friends())?;
        let room = match to {
            InviteTo::Table => Some(self.room.as_ref().map(|room| room.code().to_string()).ok_or((
                ErrorCode::NotInRoom,
                "join a room before you invite someone to it".to_string(),
            ))?),
            InviteTo::Queue => None,
        };
        let now = Instant::now();
        self.invites_sent
            .retain(|sent| now.duration_since(*sent) < INVITE_WINDOW);
        if self.invites_sent.len() >= INVITES_PER_WINDOW {
            return Err((
                ErrorCode::TooManyInvitations,
                format!("at most {INVITES_PER_WINDOW} invitations a minute"),
            ));
        }
        // Refused invitations count too: otherwise anyone could ask, as
        // fast as he liked, who is whose friend.
        self.invites_sent.push(now);
        match self.state.store().are_friends(me.account, friend).await {
            Ok(true) => {}
            Ok(false) => return Err(not_friends()),
            Err(error) => {
                tracing::warn!(%error, "cannot read friends for an invitation");
                let unavailable = spades_room::unavailable::Unavailable::Store;
                return Err((unavailable.code(), unavailable.message().into()));
            }
        }
        let policy = self.state.policy();
        if policy.blocks(me.account, friend) || policy.blocks(friend, me.account) {
            return Err((ErrorCode::Blocked, "one of you blocks the other".into()));
        }
        let online = self.state.online().is_connected(&friend.to_string())
            || self
                .state
                .network()
                .whereabouts(&[friend.to_string()])
                .await
                .first()
                .is_some_and(|found| found.online);
        if !online {
            return Err((
                ErrorCode::PlayerOffline,
                "your friend is not connected now".into(),
            ));
        }
        Ok((friend, room))
    }
}
