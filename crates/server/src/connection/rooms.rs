//! The rooms: creating, joining, resyncing and leaving one (here or on
//! another node of a cluster), and passing the seat, table and game
//! commands to the room the connection is in.

use std::sync::Arc;

use spades_engine::{Action, Bid};
use spades_protocol::ws::{BotLevel, ErrorCode, MessageId, RulesSpec};

use super::Session;
use crate::identity::PlayerRef;
use crate::room::{RoomHandle, RoomRequest};

impl Session {
    pub(super) async fn create_room(
        &mut self,
        id: MessageId,
        player: &PlayerRef,
        name: Option<String>,
        rules: RulesSpec,
        private: bool,
        bots: BotLevel,
    ) {
        let rules = match rules.resolve() {
            Ok(rules) => rules,
            Err(error) => return self.send_error(Some(id), ErrorCode::BadRules, error.to_string()),
        };
        let name = name
            .as_deref()
            .and_then(crate::identity::clean_name)
            .unwrap_or_else(|| format!("{}'s table", player.name));
        match self
            .state
            .lobby()
            .create(player.clone(), name, rules, private, bots)
            .await
        {
            Ok(room) => self.enter(room, id, None).await,
            Err(unavailable) => self.send_unavailable(id, unavailable),
        }
    }

    pub(super) async fn leave_room(&mut self, id: MessageId, me: Arc<str>) {
        let Some(room) = self.room.take() else {
            return self.send_error(Some(id), ErrorCode::NotInRoom, "you are not in a room");
        };
        // The room has let go of this connection before the ack, so that
        // none of its events follows it.
        let _ = room.leave(me).await;
        self.ack(id);
    }

    pub(super) async fn bid(&mut self, id: MessageId, me: Arc<str>, bid: u8, blind: bool) {
        let bid = match Bid::from_parts(bid, blind) {
            Ok(bid) => bid,
            Err(error) => return self.send_error(Some(id), ErrorCode::InvalidBid, error.to_string()),
        };
        self.act(id, me, Action::Bid(bid)).await;
    }

    pub(super) async fn find_and_enter(&mut self, id: MessageId, code: &str, last_seq: Option<u64>) {
        match self.state.lobby().find(code).await {
            Ok(Some(room)) => self.enter(room, id, last_seq).await,
            Ok(None) => match self.find_elsewhere(code).await {
                Ok(room) => self.enter(room, id, last_seq).await,
                Err((code, message)) => self.send_error(Some(id), code, message),
            },
            Err(_) => self.shutting_down(id),
        }
    }

    /// A room that another node of the cluster owns, reached through this
    /// connection.
    async fn find_elsewhere(&self, code: &str) -> Result<RoomHandle, (ErrorCode, String)> {
        let not_found = || (ErrorCode::RoomNotFound, format!("no room {code:?}"));
        let Some(cluster) = self.state.cluster() else {
            return Err(not_found());
        };
        let code = code.trim().to_ascii_uppercase();
        match cluster.locate(&code).await {
            Some((owner, true)) if owner != *cluster.node() => {
                let remote = crate::cluster::RemoteRoom::new(cluster.clone(), owner, self.outbox.id());
                Ok(RoomHandle::remote(code.into(), remote))
            }
            // Its node is gone, and another takes the room over within
            // seconds, from what is stored.
            Some((_, false)) => Err((
                ErrorCode::ServerBusy,
                "that room's server is gone; the room opens again on another within seconds: \
                 try again"
                    .into(),
            )),
            _ => Err(not_found()),
        }
    }

    /// Moves the connection into a room, leaving the one it was in.
    async fn enter(&mut self, room: RoomHandle, id: MessageId, last_seq: Option<u64>) {
        let Some(player) = self.player.clone() else {
            return;
        };
        // The old room lets go of the connection before the new one is
        // asked in, or one of its events could follow the new room's reply.
        if let Some(old) = self.room.take()
            && old.code() != room.code()
        {
            let _ = old.leave(player.id.clone()).await;
        }
        let outbox = self.outbox.clone();
        let request = match last_seq {
            Some(last_seq) => RoomRequest::Resync {
                player,
                outbox,
                id: id.clone(),
                last_seq,
            },
            None => RoomRequest::Join {
                player,
                outbox,
                id: id.clone(),
            },
        };
        match room.send(request).await {
            Ok(()) => self.room = Some(room),
            Err(_) => self.send_error(Some(id), ErrorCode::RoomNotFound, "that room has closed"),
        }
    }

    pub(super) async fn forward(&mut self, id: MessageId, request: RoomRequest) {
        let Some(room) = &self.room else {
            return self.send_error(Some(id), ErrorCode::NotInRoom, "join a room first");
        };
        if room.send(request).await.is_err() {
            self.room = None;
            self.send_error(Some(id), ErrorCode::RoomNotFound, "that room has closed");
        }
    }

    pub(super) async fn act(&mut self, id: MessageId, player: Arc<str>, action: Action) {
        let received = std::time::Instant::now();
        self.forward(
            id.clone(),
            RoomRequest::Act {
                player,
                id,
                action,
                received,
            },
        )
        .await;
    }
}
