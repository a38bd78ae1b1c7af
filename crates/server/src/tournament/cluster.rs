//! The tournament runner in a cluster: one node at a time runs the
//! tournaments (it holds the `tournaments` lease), opens each table on the
//! least loaded node, and tells players and watchers on every node.
//! Alone, a server does all of it itself.

use axum::extract::ws::Utf8Bytes;
use spades_store::{LeaseFence, StoreError};
use uuid::Uuid;

use super::Manager;
use crate::cluster::TOURNAMENTS_LEASE;
use crate::lobby::TournamentTable;

/// The node running the tournaments, with what its writes are fenced with:
/// nothing when alone; in a cluster, the epoch of the lease it took in the
/// store (see `spades_store::LeaseFence`), so that once another node has
/// taken the lease over, nothing this one writes from memory is stored.
pub(super) struct Runner {
    fence: Option<LeaseFence>,
}

impl Runner {
    pub(super) fn fence(&self) -> Option<&LeaseFence> {
        self.fence.as_ref()
    }
}

impl Manager {
    /// Whether this node runs the tournaments: always when alone; in a
    /// cluster, while it holds the lease (or can take it now). A node that
    /// has just come to hold it takes it in the store too, before it acts.
    pub(super) async fn runner(&mut self) -> Option<Runner> {
        let Some(cluster) = &self.cluster else {
            return Some(Runner { fence: None });
        };
        if cluster.hold(TOURNAMENTS_LEASE).await.as_ref() != Some(cluster.node()) {
            self.lease = None;
            return None;
        }
        if self.lease.is_none() {
            match self.store.take_lease(TOURNAMENTS_LEASE).await {
                Ok(fence) => {
                    tracing::info!(epoch = fence.epoch, "runs the tournaments");
                    self.lease = Some(fence);
                }
                Err(error) => {
                    tracing::warn!(%error, "cannot take the tournaments' lease in the store; trying again later");
                    return None;
                }
            }
        }
        Some(Runner {
            fence: self.lease.clone(),
        })
    }

    /// Notes a store error of a write made as the runner: when the store
    /// says that another node took the lease since, this node forgets its
    /// holding, and takes the lease in the store again only once NATS says
    /// that it holds it again.
    pub(super) fn write_failed(&mut self, error: &StoreError) {
        if let StoreError::LeaseLost(_) = error {
            tracing::warn!("another node took over the tournaments; this one stops running them");
            self.lease = None;
        }
    }

    /// The refusal for a request whose write the store refused, once the
    /// error is noted (see `write_failed`).
    pub(super) fn refused_write(&mut self, error: StoreError) -> super::Refusal {
        self.write_failed(&error);
        match error {
            // Not a failure of the store: another node runs the
            // tournaments now, and the request may be made again there.
            StoreError::LeaseLost(_) => super::Refusal::Unavailable(crate::unavailable::Unavailable::Store),
            error => super::Refusal::from(error),
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
