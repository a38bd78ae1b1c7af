//! Connections that follow a tournament, and the view they are sent
//! whenever it changes.

use spades_protocol::http::TournamentView;
use spades_protocol::ws::{MessageId, ServerMessage};
use spades_room::Text;
use uuid::Uuid;

use super::{Manager, Refusal};
use crate::views;
use spades_room::outbox::{ConnectionId, Outbox};

impl Manager {
    /// Follows a tournament for `outbox`; the answer is its view now.
    pub(super) async fn watch(
        &mut self,
        tournament: Uuid,
        outbox: Outbox,
    ) -> Result<TournamentView, Refusal> {
        let view = match self.store.tournament(tournament).await {
            Ok(Some(found)) => views::tournament(&found).map_err(Refusal::from),
            Ok(None) => Err(Refusal::NotFound),
            Err(error) => Err(error.into()),
        };
        if view.is_ok() {
            let watchers = self.watchers.entry(tournament).or_default();
            watchers.retain(|watcher| watcher.id() != outbox.id() && !watcher.is_closed());
            watchers.push(outbox);
        }
        view
    }

    pub(super) fn unwatch(&mut self, tournament: Uuid, connection: ConnectionId) {
        if let Some(watchers) = self.watchers.get_mut(&tournament) {
            watchers.retain(|watcher| watcher.id() != connection);
            if watchers.is_empty() {
                self.watchers.remove(&tournament);
            }
        }
    }

    /// Sends the tournament's view to everyone following it.
    pub(super) async fn broadcast(&mut self, id: Uuid) {
        if !self.watchers.contains_key(&id) {
            return;
        }
        let Ok(Some(tournament)) = self.store.tournament(id).await else {
            return;
        };
        let view = match views::tournament(&tournament) {
            Ok(view) => view,
            Err(error) => {
                tracing::error!(tournament = %id, %error, "a stored tournament cannot be shown");
                return;
            }
        };
        let message = ServerMessage::Tournament {
            id: None,
            tournament: view,
        };
        let text = Text::from(message.to_json());
        if let Some(watchers) = self.watchers.get_mut(&id) {
            watchers.retain(|watcher| watcher.send(text.clone()));
            if watchers.is_empty() {
                self.watchers.remove(&id);
            }
        }
    }
}

/// The reply to `watch_tournament` with id `id`: the tournament's view.
pub fn view_reply(id: MessageId, view: TournamentView) -> ServerMessage {
    ServerMessage::Tournament {
        id: Some(id),
        tournament: view,
    }
}
