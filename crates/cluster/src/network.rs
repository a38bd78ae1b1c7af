//! A node of a cluster as the rest of the server sees it: the routes of
//! [`Network`], answered through NATS and the cluster's buckets.

use std::sync::Arc;

use spades_protocol::ws::{ErrorCode, MessageId};
use spades_room::Text;
use uuid::Uuid;

use super::{Cluster, QUEUE_LEASE, RemoteRoom, TOURNAMENTS_LEASE};
use spades_lobby::Online;
use spades_lobby::SharedAttempt;
use spades_lobby::matchmaking::Entry;
use spades_lobby::{LobbyHandle, Table, TournamentTable};
use spades_lobby::{Network, RegistryNote, Unrouted, Whereabouts};
use spades_room::Answer;
use spades_room::PlayerRef;
use spades_room::RoomHandle;
use spades_room::outbox::{ConnectionId, Outbox};

impl Network for Cluster {
    fn hello<'a>(&'a self, player: &'a str, connection: ConnectionId) -> Answer<'a, Option<String>> {
        Box::pin(async move {
            self.announce_hello(player, connection).await;
            self.seated_room(player).await
        })
    }

    fn share_login<'a>(&'a self, attempt: &'a SharedAttempt) -> Answer<'a, ()> {
        Box::pin(self.share_login(attempt))
    }

    fn share_moderation<'a>(&'a self, event: &'a spades_lobby::ModerationEvent) -> Answer<'a, ()> {
        Box::pin(self.share_moderation(event))
    }

    /// The player's node delivers it, this one included, through NATS.
    fn notify<'a>(&'a self, _: &'a Online, player: &'a str, message: Text) -> Answer<'a, ()> {
        Box::pin(Cluster::notify(self, player, message))
    }

    fn whereabouts<'a>(&'a self, players: &'a [String]) -> Answer<'a, Vec<Whereabouts>> {
        Box::pin(async move {
            let online = self.online_elsewhere(players).await;
            let mut found = Vec::with_capacity(players.len());
            for player in players {
                found.push(Whereabouts {
                    online: online.contains(player),
                    room: self.seated_room(player).await,
                });
            }
            found
        })
    }

    fn is_code_taken(&self, code: &str) -> bool {
        Cluster::is_code_taken(self, code)
    }

    fn note(&self, note: RegistryNote) {
        Cluster::note(self, note);
    }

    fn claim<'a>(&'a self, code: &'a str) -> Answer<'a, bool> {
        Box::pin(Cluster::claim(self, code, None))
    }

    fn find_room<'a>(
        &'a self,
        code: &'a str,
        connection: ConnectionId,
    ) -> Answer<'a, Result<RoomHandle, Unrouted>> {
        Box::pin(async move {
            let not_found = || (ErrorCode::RoomNotFound, format!("no room {code:?}"));
            let code = code.trim().to_ascii_uppercase();
            match self.locate(&code).await {
                Some((owner, true)) if owner != *self.node() => {
                    let remote = RemoteRoom::new(self.clone(), owner, connection);
                    Ok(RoomHandle::remote(code.into(), Arc::new(remote)))
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
        })
    }

    /// One node keeps the queue for every node; the registry, which knows
    /// every node's seats, refuses a player already playing somewhere.
    fn queue_node<'a>(&'a self, player: &'a str) -> Answer<'a, Result<Option<Arc<str>>, Unrouted>> {
        Box::pin(async move {
            if self.playing_room(player).await.is_some() {
                return Err((ErrorCode::GameInProgress, "you are playing a game already".into()));
            }
            match self.hold(QUEUE_LEASE).await {
                None => Err((
                    ErrorCode::ServerBusy,
                    "the quick-play queue cannot be reached now; try again".into(),
                )),
                Some(node) if node == *self.node() => Ok(None),
                Some(node) => Ok(Some(node)),
            }
        })
    }

    fn queue_at<'a>(
        &'a self,
        node: &'a str,
        entry: Entry,
        id: MessageId,
        outbox: Outbox,
    ) -> Answer<'a, Result<(), Unrouted>> {
        Box::pin(Cluster::queue_at(self, node, entry, id, outbox))
    }

    fn leave_queue_at<'a>(&'a self, node: &'a str, player: &'a PlayerRef) -> Answer<'a, bool> {
        Box::pin(Cluster::leave_queue_at(self, node, player))
    }

    fn disconnected_at<'a>(
        &'a self,
        node: &'a str,
        player: &'a PlayerRef,
        connection: ConnectionId,
    ) -> Answer<'a, ()> {
        Box::pin(Cluster::disconnected_at(self, node, player, connection))
    }

    fn place_table(&self, table: Table, lobby: &LobbyHandle) -> Option<Table> {
        let node = self.least_loaded();
        if node == *self.node() {
            return Some(table);
        }
        tracing::info!(room = %table.code, %node, "quick-play table sent to a less loaded node");
        self.open_table_on(node, table, lobby.clone());
        None
    }

    fn runs_tournaments(&self) -> Answer<'_, bool> {
        Box::pin(async { self.hold(TOURNAMENTS_LEASE).await.as_ref() == Some(self.node()) })
    }

    fn tournament_changed(&self, tournament: Uuid) -> Answer<'_, ()> {
        Box::pin(Cluster::tournament_changed(self, tournament))
    }

    /// On the least loaded node, which first claims the table's code so
    /// that no other node can open it too.
    fn open_tournament_table<'a>(
        &'a self,
        table: TournamentTable,
        lobby: &'a LobbyHandle,
    ) -> Answer<'a, bool> {
        Box::pin(async move {
            let node = self.least_loaded();
            if node != *self.node() {
                return self.open_tournament_table_on(&node, table).await;
            }
            self.claim(&table.code, None).await && lobby.open_tournament_table(table).await.unwrap_or(false)
        })
    }
}
