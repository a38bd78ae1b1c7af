//! Tournaments run by the server itself: the start, the seating of every
//! stage, the tables, the results, the advance to the next stage, and the
//! places at the end.
//!
//! One actor task runs every tournament. The store is its memory: each
//! decision is made from what the store holds and written there in one
//! transaction before anything is opened, so the task keeps no state that
//! a restart could lose. A room reports a finished tournament game only
//! after the game's result is stored, and the task also looks over every
//! running tournament once a second, so a tournament carries on after a
//! restart, or after the store comes back, without anyone asking.
//!
//! This file holds the task and its dispatch; `handle.rs` its address and
//! requests, `registration.rs` entries, `start.rs` the start and the
//! cancellation, `advance.rs` the progress from stage to stage,
//! `tables.rs` the opening of tables, `watchers.rs` the live view,
//! `pairing.rs` the seating as plain data; the HTTP endpoints are the
//! server's `api/tournaments.rs`.

mod advance;
pub mod duplicate;
mod handle;
mod pairing;
mod registration;
mod runner;
mod start;
mod tables;
mod watchers;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use spades_store::{LeaseFence, Store};
use tokio::sync::mpsc;
use uuid::Uuid;

use handle::Request;
pub use handle::{Refusal, TournamentHandle};
pub use watchers::view_reply;

use crate::LobbyHandle;
use crate::Network;
use crate::Online;
use prometheus_client::metrics::gauge::Gauge;
use spades_room::TableNote;
use spades_room::lifecycle::Lifecycle;
use spades_room::outbox::Outbox;

/// How often running tournaments are looked over and start times checked.
const TICK: Duration = Duration::from_secs(1);

/// The fewest entries a tournament starts with: one table.
pub const MIN_ENTRIES: usize = 4;

/// The task's state: its connections to the rest of the server, and who
/// follows which tournament. Everything else it reads from the store.
struct Manager {
    store: Store,
    lobby: LobbyHandle,
    online: Arc<Online>,
    /// The nodes this one works among: one node at a time runs the
    /// tournaments (see `runner.rs`).
    network: Arc<dyn Network>,
    /// The holding of the tournaments' lease this node took in the store
    /// while it runs them (see `runner.rs`).
    lease: Option<LeaseFence>,
    /// Connections following each tournament.
    watchers: HashMap<Uuid, Vec<Outbox>>,
    /// The tournaments being played, as last counted, for the metrics.
    running: Gauge,
}

/// Starts the tournament task. Tournament tables report the start and the
/// end of their games on `tables`.
pub fn spawn(
    store: Store,
    lobby: LobbyHandle,
    online: Arc<Online>,
    lifecycle: Arc<Lifecycle>,
    mut tables: mpsc::UnboundedReceiver<TableNote>,
    running: Gauge,
    network: Arc<dyn Network>,
) -> TournamentHandle {
    let (requests, mut request_rx) = mpsc::channel(256);
    let mut manager = Manager {
        store,
        lobby,
        online,
        network,
        lease: None,
        watchers: HashMap::new(),
        running,
    };
    let stop = lifecycle.stopped();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                biased;
                () = stop.cancelled() => break,
                Some(note) = tables.recv() => match note {
                    // Only watchers need to know: the table is now playing.
                    TableNote::Started(link) => manager.show(link.tournament).await,
                    TableNote::Finished(link) => manager.carry_on(link.tournament, true).await,
                },
                request = request_rx.recv() => match request {
                    Some(request) => manager.handle(request).await,
                    None => break,
                },
                _ = tick.tick() => {
                    if !lifecycle.is_draining() {
                        manager.tick().await;
                    }
                }
            }
        }
    });
    TournamentHandle { requests }
}

impl Manager {
    async fn handle(&mut self, request: Request) {
        match request {
            Request::Register {
                tournament,
                account,
                reply,
            } => {
                let result = self.register(tournament, account).await;
                let _ = reply.send(result);
                self.after_registration(tournament).await;
            }
            Request::Unregister {
                tournament,
                account,
                reply,
            } => {
                let result = self.unregister(tournament, account).await;
                let _ = reply.send(result);
                self.show(tournament).await;
            }
            Request::AddBots {
                tournament,
                count,
                reply,
            } => {
                let result = self.add_bots(tournament, count).await;
                let _ = reply.send(result);
                self.after_registration(tournament).await;
            }
            Request::Start { tournament, reply } => {
                let runner = self.runner().await;
                let result = self.start(tournament, runner.as_ref()).await;
                let _ = reply.send(result);
            }
            Request::Cancel { tournament, reply } => {
                let result = self.cancel(tournament).await;
                let _ = reply.send(result);
                self.show(tournament).await;
            }
            Request::Created { tournament } => self.start_if_due(tournament).await,
            Request::Watch {
                tournament,
                outbox,
                reply,
            } => {
                let view = self.watch(tournament, outbox).await;
                let _ = reply.send(view);
            }
            Request::Unwatch {
                tournament,
                connection,
            } => self.unwatch(tournament, connection),
            Request::ChangedElsewhere { tournament } => self.broadcast(tournament).await,
        }
    }
}
