//! The lobby's and the rooms' families of commands: listing and watching
//! the rooms, creating, joining, resyncing and leaving one (here or on
//! another node of a cluster), and handing the room's own commands, as
//! they are, to the room the connection is in.

use std::sync::Arc;

use spades_protocol::ws::{ErrorCode, MessageId};

use super::Session;
use super::command::{LobbyCommand, NewRoomRequest};
use spades_room::PlayerRef;
use spades_room::{RoomCommand, RoomHandle, RoomRequest};

impl Session {
    /// The lobby's family of commands.
    pub(super) async fn lobby_command(&mut self, id: MessageId, player: &PlayerRef, command: LobbyCommand) {
        match command {
            LobbyCommand::ListRooms => self.list_rooms(id).await,
            LobbyCommand::Watch => self.watch_lobby(id).await,
            LobbyCommand::Unwatch => self.unwatch_lobby(id).await,
            LobbyCommand::CreateRoom(request) => self.create_room(id, player, request).await,
            LobbyCommand::Enter { room, last_seq } => self.find_and_enter(id, &room, last_seq).await,
            LobbyCommand::LeaveRoom => self.leave_room(id, player.id.clone()).await,
        }
    }

    /// The room's family of commands: handed to the room the connection is
    /// in, which answers them.
    pub(super) async fn room_command(&mut self, id: MessageId, player: &PlayerRef, command: RoomCommand) {
        let Some(room) = &self.room else {
            return self.send_error(Some(id), ErrorCode::NotInRoom, "join a room first");
        };
        let request = RoomRequest::Command {
            player: player.id.clone(),
            id: id.clone(),
            command,
            received: std::time::Instant::now(),
        };
        if room.send(request).await.is_err() {
            self.room = None;
            self.send_error(Some(id), ErrorCode::RoomNotFound, "that room has closed");
        }
    }

    async fn create_room(&mut self, id: MessageId, player: &PlayerRef, request: NewRoomRequest) {
        if let Some(maintenance) = self.state.policy().maintenance() {
            let message = spades_room::maintenance_words(&maintenance);
            return self.send_error(Some(id), ErrorCode::Maintenance, message);
        }
        let NewRoomRequest {
            name,
            rules,
            private,
            bots,
            rated,
            speed,
        } = request;
        let bots = bots.unwrap_or(self.state.config().default_bots);
        if rated && private {
            let message = "a private room is casual: only a public room can be rated";
            return self.send_error(Some(id), ErrorCode::BadMessage, message);
        }
        let rules = match rules.resolve() {
            Ok(rules) => rules,
            Err(error) => return self.send_error(Some(id), ErrorCode::BadRules, error.to_string()),
        };
        let name = name
            .as_deref()
            .and_then(crate::identity::clean_name)
            .unwrap_or_else(|| format!("{}'s table", player.name));
        let room = spades_lobby::NewRoom {
            owner: player.clone(),
            name,
            rules,
            private,
            bots,
            rated,
            speed,
        };
        match self.state.lobby().create(room).await {
            Ok(room) => self.enter(room, id, None).await,
            Err(unavailable) => self.send_unavailable(id, unavailable),
        }
    }

    async fn leave_room(&mut self, id: MessageId, me: Arc<str>) {
        let Some(room) = self.room.take() else {
            return self.send_error(Some(id), ErrorCode::NotInRoom, "you are not in a room");
        };
        // The room has let go of this connection before the ack, so that
        // none of its events follows it.
        let _ = room.leave(me).await;
        self.ack(id);
    }

    async fn find_and_enter(&mut self, id: MessageId, code: &str, last_seq: Option<u64>) {
        match self.state.lobby().find(code).await {
            Ok(Some(room)) => self.enter(room, id, last_seq).await,
            Ok(None) => match self.state.network().find_room(code, self.outbox.id()).await {
                Ok(room) => self.enter(room, id, last_seq).await,
                Err((code, message)) => self.send_error(Some(id), code, message),
            },
            Err(_) => self.shutting_down(id),
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
}
