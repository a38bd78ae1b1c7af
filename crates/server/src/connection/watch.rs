//! The lobby's and the tournaments' live views: listing the rooms, and
//! watching or no longer watching the lobby or a tournament.

use spades_protocol::ws::{ErrorCode, MessageId, ServerMessage};

use super::Session;
use super::command::TournamentCommand;

impl Session {
    /// The tournaments' family of commands.
    pub(super) async fn tournament_command(&mut self, id: MessageId, command: TournamentCommand) {
        match command {
            TournamentCommand::Watch { tournament } => self.watch_tournament(id, &tournament).await,
            TournamentCommand::Unwatch { tournament } => self.unwatch_tournament(id, &tournament).await,
        }
    }

    pub(super) async fn list_rooms(&mut self, id: MessageId) {
        match self.state.lobby().list().await {
            Ok(rooms) => self.send(&ServerMessage::Rooms { id, rooms }),
            Err(_) => self.shutting_down(id),
        }
    }

    pub(super) async fn watch_lobby(&mut self, id: MessageId) {
        if !self.watching_lobby && self.state.lobby().watch(self.outbox.clone()).await.is_err() {
            return self.shutting_down(id);
        }
        self.watching_lobby = true;
        self.ack(id);
    }

    pub(super) async fn unwatch_lobby(&mut self, id: MessageId) {
        if self.watching_lobby {
            let _ = self.state.lobby().unwatch(self.outbox.id()).await;
        }
        self.watching_lobby = false;
        self.ack(id);
    }

    async fn watch_tournament(&mut self, id: MessageId, tournament: &str) {
        let Ok(tournament) = tournament.parse::<uuid::Uuid>() else {
            return self.send_error(Some(id), ErrorCode::TournamentNotFound, "no such tournament");
        };
        match self
            .state
            .tournaments()
            .watch(tournament, self.outbox.clone())
            .await
        {
            Ok(view) => self.send(&spades_lobby::tournament::view_reply(id, view)),
            Err(spades_lobby::tournament::Refusal::Unavailable(unavailable)) => {
                self.send_unavailable(id, unavailable)
            }
            // Watching is refused for no other reason.
            Err(_) => self.send_error(Some(id), ErrorCode::TournamentNotFound, "no such tournament"),
        }
    }

    async fn unwatch_tournament(&mut self, id: MessageId, tournament: &str) {
        if let Ok(tournament) = tournament.parse::<uuid::Uuid>() {
            self.state
                .tournaments()
                .unwatch(tournament, self.outbox.id())
                .await;
        }
        self.ack(id);
    }
}
