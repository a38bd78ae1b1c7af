//! The tournament runner: one node at a time runs the tournaments (in a
//! cluster, the one the network names), opens each table where the
//! network places it, and tells players and watchers on every node. A
//! server alone is the one node.

use spades_room::Text;
use spades_store::{LeaseFence, StoreError};
use uuid::Uuid;

use super::Manager;
use crate::TournamentTable;

/// The name of the tournaments' lease in the store.
const TOURNAMENTS_LEASE: &str = "tournaments";

/// The node running the tournaments, with what its writes are fenced with:
/// the epoch of the lease it took in the store (see
/// `spades_store::LeaseFence`), so that once another node has taken the
/// lease over, nothing this one writes from memory is stored.
pub(super) struct Runner {
    fence: LeaseFence,
}

impl Runner {
    pub(super) fn fence(&self) -> Option<&LeaseFence> {
        Some(&self.fence)
    }
}

impl Manager {
    /// Whether this node runs the tournaments: while the network says so
    /// (always, for a server alone). A node that has just come to run them
    /// takes the lease in the store too, before it acts.
    pub(super) async fn runner(&mut self) -> Option<Runner> {
        if !self.network.runs_tournaments().await {
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
        self.lease.clone().map(|fence| Runner { fence })
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
            StoreError::LeaseLost(_) => {
                super::Refusal::Unavailable(spades_room::unavailable::Unavailable::Store)
            }
            error => super::Refusal::from(error),
        }
    }

    /// Sends the tournament's view to its watchers here, and has the other
    /// nodes send it to theirs.
    pub(super) async fn show(&mut self, id: Uuid) {
        self.broadcast(id).await;
        self.network.tournament_changed(id).await;
    }

    /// Opens a table where the network places it. False when it was not
    /// opened (it is open already, or no game can start now).
    pub(super) async fn open_tournament_table(&self, table: TournamentTable) -> bool {
        self.network.open_tournament_table(table, &self.lobby).await
    }

    /// Sends a message to a player's connection, on whichever node it is.
    pub(super) async fn notify(&self, player: &str, message: Text) {
        self.network.notify(&self.online, player, message).await;
    }
}
