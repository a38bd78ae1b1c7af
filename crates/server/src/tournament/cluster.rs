//! The tournament runner in a cluster: one node at a time runs the
//! tournaments (it holds the `tournaments` lease), opens each table on the
//! least loaded node, and tells players and watchers on every node.
//! Alone, a server does all of it itself.

use axum::extract::ws::Utf8Bytes;
use uuid::Uuid;

use super::Manager;
use crate::cluster::TOURNAMENTS_LEASE;
use crate::lobby::TournamentTable;

impl Manager {
    /// Whether this node runs the tournaments: always when alone; in a
    /// cluster, while it holds the lease (or can take it now).
    pub(super) async fn runs_tournaments(&self) -> bool {
        match &self.cluster {
            None => true,
            Some(cluster) => cluster.hold(TOURNAMENTS_LEASE).await.as_ref() == Some(cluster.node()),
        }
    }

    /// Sends the tournament's view to its watchers here, and has the other
    /// nodes send it to theirs.
    pub(super) async fn show(&mut self, id: Uuid) {
        self.broadcast(id).await;
        if let Some(cluster) = &self.cluster {
            cluster.tournament_changed(id).await;
        }
    }

    /// Opens a table: here when alone; in a cluster, on the least loaded
    /// node, which first claims the table's code so that no other node
    /// can open it too. False when it was not opened (it is open already,
    /// or no game can start now).
    pub(super) async fn open_tournament_table(&self, table: TournamentTable) -> bool {
        let Some(cluster) = &self.cluster else {
            return self.lobby.open_tournament_table(table).await.unwrap_or(false);
        };
        let node = cluster.least_loaded();
        if node != *cluster.node() {
            return cluster.open_tournament_table_on(&node, table).await;
        }
        cluster.claim(&table.code, None).await
            && self.lobby.open_tournament_table(table).await.unwrap_or(false)
    }

    /// Sends a message to a player's connection, on whichever node it is.
    pub(super) async fn notify(&self, player: &str, message: Utf8Bytes) {
        match &self.cluster {
            Some(cluster) => cluster.notify(player, message).await,
            None => {
                self.online.send(player, message);
            }
        }
    }
}
