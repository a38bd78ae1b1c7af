//! One quick-play queue for the whole cluster: the node holding the
//! `queue` lease keeps it in its lobby, the other nodes pass their
//! players' `queue`, `leave_queue` and goodbyes to it, and each table it
//! makes opens on the least loaded node.
//!
//! A queued connection of another node gets an outbox at the queue's node,
//! drained onto `spades.node.<node>.queued.<connection>`, through which the
//! lobby sends it `queued`, `unqueued` and `matched` as it does locally.
//! `matched` goes out only once the table's node has opened the room and
//! registered it, so that the player's `join_room` finds it from any node.

use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::kv;
use serde::{Deserialize, Serialize};
use spades_engine::Preset;
use spades_protocol::ws::{BotLevel, ErrorCode, MessageId, ServerMessage};

use super::{Cluster, NODE_TIMEOUT, Parts, QUEUE_LEASE, TOURNAMENTS_LEASE, lock, wire};
use spades_lobby::matchmaking;
use spades_lobby::{Table, tell};
use spades_room::PlayerRef;
use spades_room::outbox::{self, ConnectionId, Outbox};

/// How long a node waits for the queue's node, or a table's node, to
/// answer.
pub(super) const ASK_WAIT: Duration = Duration::from_secs(5);

/// What another node asks of the queue's node.
#[derive(Debug, Serialize, Deserialize)]
enum QueueRequest {
    Join {
        node: String,
        connection: ConnectionId,
        account: uuid::Uuid,
        name: String,
        rating: f64,
        preset: Preset,
        partner: Option<String>,
        /// Absent from nodes that predate it: then any player of that name
        /// fits.
        #[serde(default)]
        partner_account: Option<uuid::Uuid>,
        id: MessageId,
    },
    Leave {
        account: uuid::Uuid,
    },
    Disconnected {
        node: String,
        connection: ConnectionId,
        account: uuid::Uuid,
    },
}

/// The queue node's answer to a `Join` or a `Leave`.
#[derive(Debug, Serialize, Deserialize)]
enum QueueAnswer {
    Queued,
    Refused { code: ErrorCode, message: String },
    Left(bool),
}

/// A seat of a table that the queue's node asks another node to open.
#[derive(Debug, Serialize, Deserialize)]
enum TableSeat {
    Person { account: uuid::Uuid, name: String },
    Bot { number: u8 },
}

#[derive(Debug, Serialize, Deserialize)]
struct OpenTable {
    code: String,
    name: String,
    preset: Preset,
    seats: Vec<TableSeat>,
}

impl Cluster {
    /// The node that keeps the queue: this one if it holds the lease or
    /// could take it now.
    pub async fn queue_node(&self) -> Option<Arc<str>> {
        self.hold(QUEUE_LEASE).await
    }

    /// Holds or takes the lease `name`, and says who holds it. A lease is
    /// taken when nobody holds it or its holder is gone, by a
    /// compare-and-set, so that one node alone gets it; its holder writes
    /// it again each time it asks, and the bucket forgets a lease nobody
    /// writes.
    pub async fn hold(&self, name: &str) -> Option<Arc<str>> {
        let me = self.inner.node.clone();
        let leases = &self.inner.leases;
        match leases.entry(name).await {
            Ok(Some(entry)) if entry.operation == kv::Operation::Put => {
                let holder: Arc<str> = String::from_utf8_lossy(&entry.value).as_ref().into();
                // A lease is taken from another node only on a view of the
                // cluster that is up to date (see `view_is_current`).
                if holder == me || (!self.is_alive(&holder) && self.view_is_current()) {
                    let taken = leases
                        .update(name, me.as_bytes().to_vec().into(), entry.revision)
                        .await;
                    if taken.is_err() {
                        // Someone else took it first: he holds it now.
                        return self.holder(name).await;
                    }
                    if holder != me {
                        tracing::info!(lease = name, from = %holder, "took over a lease of a node that is gone");
                    }
                    return Some(me);
                }
                Some(holder)
            }
            Ok(_) => match leases.create(name, me.as_bytes().to_vec().into()).await {
                Ok(_) => {
                    tracing::info!(lease = name, "took a lease");
                    Some(me)
                }
                Err(_) => self.holder(name).await,
            },
            Err(error) => {
                tracing::warn!(%error, lease = name, "cannot read a lease");
                None
            }
        }
    }

    async fn holder(&self, name: &str) -> Option<Arc<str>> {
        let value = self.inner.leases.get(name).await.ok()??;
        Some(String::from_utf8_lossy(&value).as_ref().into())
    }

    /// Keeps the leases this node holds written, so that the bucket does
    /// not forget them while their holder lives.
    pub(super) async fn keep_leases(self, parts: Parts) {
        let mut tick = tokio::time::interval(NODE_TIMEOUT / 3);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = parts.stop.cancelled() => return,
                _ = tick.tick() => {}
            }
            for lease in [QUEUE_LEASE, TOURNAMENTS_LEASE] {
                if self.holder(lease).await.as_deref() == Some(&*self.inner.node) {
                    self.hold(lease).await;
                }
            }
        }
    }

    /// Puts a player of this node in the queue of `node`; his connection's
    /// outbox gets the queue's messages for him.
    pub async fn queue_at(
        &self,
        node: &str,
        entry: matchmaking::Entry,
        id: MessageId,
        outbox: Outbox,
    ) -> Result<(), (ErrorCode, String)> {
        lock(&self.inner.queued).insert(outbox.id(), (outbox.clone(), node.into()));
        let request = QueueRequest::Join {
            node: self.inner.node.to_string(),
            connection: outbox.id(),
            account: entry.player.account,
            name: entry.player.name.to_string(),
            rating: entry.rating,
            preset: entry.preset,
            partner: entry.partner,
            partner_account: entry.partner_account,
            id,
        };
        match self.ask_queue(node, &request).await {
            Some(QueueAnswer::Queued) => Ok(()),
            Some(QueueAnswer::Refused { code, message }) => {
                lock(&self.inner.queued).remove(&outbox.id());
                Err((code, message))
            }
            _ => {
                lock(&self.inner.queued).remove(&outbox.id());
                Err((
                    ErrorCode::ServerBusy,
                    "the quick-play queue did not answer; try again".into(),
                ))
            }
        }
    }

    /// Takes a player of this node out of the queue of `node`; says whether
    /// he was in it.
    pub async fn leave_queue_at(&self, node: &str, player: &PlayerRef) -> bool {
        let request = QueueRequest::Leave {
            account: player.account,
        };
        matches!(
            self.ask_queue(node, &request).await,
            Some(QueueAnswer::Left(true))
        )
    }

    /// Tells the queue's node that a queued player's connection closed.
    pub async fn disconnected_at(&self, node: &str, player: &PlayerRef, connection: ConnectionId) {
        lock(&self.inner.queued).remove(&connection);
        let request = QueueRequest::Disconnected {
            node: self.inner.node.to_string(),
            connection,
            account: player.account,
        };
        let body = serde_json::to_vec(&request).unwrap_or_default();
        let _ = self.inner.client.publish(queue_subject(node), body.into()).await;
    }

    async fn ask_queue(&self, node: &str, request: &QueueRequest) -> Option<QueueAnswer> {
        let body = serde_json::to_vec(request).ok()?;
        let asked = self.inner.client.request(queue_subject(node), body.into());
        let answer = tokio::time::timeout(ASK_WAIT, asked).await.ok()?.ok()?;
        serde_json::from_slice(&answer.payload).ok()
    }

    /// Serves the queue for the players of the other nodes.
    pub(super) async fn serve_queue(self, mut requests: async_nats::Subscriber, parts: Parts) {
        while let Some(message) = super::next_message(&mut requests, &parts.stop).await {
            let Ok(request) = serde_json::from_slice::<QueueRequest>(&message.payload) else {
                continue;
            };
            let answer = self.serve_queue_request(request, &parts).await;
            if let (Some(answer), Some(reply)) = (answer, message.reply) {
                let body = serde_json::to_vec(&answer).unwrap_or_default();
                let _ = self.inner.client.publish(reply, body.into()).await;
            }
        }
    }

    async fn serve_queue_request(&self, request: QueueRequest, parts: &Parts) -> Option<QueueAnswer> {
        let lobby = &parts.lobby;
        match request {
            QueueRequest::Join {
                node,
                connection,
                account,
                name,
                rating,
                preset,
                partner,
                partner_account,
                id,
            } => {
                let (outbox, receiver) = outbox::outbox(
                    self.remote_connection_id(),
                    parts.outbox_capacity,
                    parts.stop.clone(),
                );
                let subject = format!("spades.node.{node}.queued.{connection}");
                tokio::spawn(super::owner::relay_out(
                    self.inner.client.clone(),
                    subject,
                    receiver,
                ));
                let key = (Arc::<str>::from(node.as_str()), connection);
                if let Some(old) = lock(&self.inner.queue_served).insert(key, outbox.clone()) {
                    old.stop();
                }
                let entry = matchmaking::Entry {
                    player: wire::player(account, &name),
                    rating,
                    preset,
                    partner,
                    partner_account,
                    since: tokio::time::Instant::now(),
                };
                Some(match lobby.queue(entry, id, outbox).await {
                    Ok(Ok(())) => QueueAnswer::Queued,
                    Ok(Err((code, message))) => QueueAnswer::Refused {
                        code,
                        message: message.to_string(),
                    },
                    Err(_) => QueueAnswer::Refused {
                        code: ErrorCode::ShuttingDown,
                        message: "the server is shutting down; try again when it is back".into(),
                    },
                })
            }
            QueueRequest::Leave { account } => {
                let left = lobby
                    .leave_queue(account.to_string().into())
                    .await
                    .unwrap_or(false);
                Some(QueueAnswer::Left(left))
            }
            QueueRequest::Disconnected {
                node,
                connection,
                account,
            } => {
                let key = (Arc::<str>::from(node.as_str()), connection);
                let served = lock(&self.inner.queue_served).remove(&key);
                if let Some(outbox) = served {
                    let _ = lobby.disconnected(account.to_string().into(), outbox.id()).await;
                    outbox.stop();
                }
                None
            }
        }
    }

    /// Opens a table the queue made on `node`, then tells its players; if
    /// that node does not open it, this node does (through its lobby).
    pub fn open_table_on(&self, node: Arc<str>, table: Table, lobby: spades_lobby::LobbyHandle) {
        let cluster = self.clone();
        tokio::spawn(async move {
            let seats = table
                .players
                .iter()
                .enumerate()
                .map(|(i, player)| match player.bot {
                    Some(_) => TableSeat::Bot { number: i as u8 },
                    None => TableSeat::Person {
                        account: player.account,
                        name: player.name.to_string(),
                    },
                })
                .collect();
            let open = OpenTable {
                code: table.code.to_string(),
                name: table.name.clone(),
                preset: table.preset,
                seats,
            };
            let body = serde_json::to_vec(&open).unwrap_or_default();
            let subject = format!("spades.node.{node}.open");
            let asked = cluster.inner.client.request(subject, body.into());
            let opened = matches!(tokio::time::timeout(ASK_WAIT, asked).await, Ok(Ok(_)));
            if opened {
                tell(table.told);
            } else {
                tracing::warn!(%node, room = %table.code, "a node did not open a quick-play table; opening it here");
                let _ = lobby.open_table_here(table).await;
            }
        });
    }

    /// Opens the tables the queue's node asks this node to.
    pub(super) async fn serve_tables(self, mut requests: async_nats::Subscriber, parts: Parts) {
        while let Some(message) = super::next_message(&mut requests, &parts.stop).await {
            let Ok(open) = serde_json::from_slice::<OpenTable>(&message.payload) else {
                continue;
            };
            let players = open
                .seats
                .iter()
                .map(|seat| match seat {
                    TableSeat::Person { account, name } => wire::player(*account, name),
                    TableSeat::Bot { number } => PlayerRef::bot(BotLevel::Basic, *number),
                })
                .collect();
            let table = Table {
                code: open.code.as_str().into(),
                name: open.name,
                preset: open.preset,
                players,
                told: Vec::new(),
            };
            let code = table.code.clone();
            if !matches!(parts.lobby.open_table_here(table).await, Ok(true)) {
                continue;
            }
            // The room is registered before the players are told of it, so
            // that their joins find it from any node.
            if let Err(error) = self.write_room(&code, None, false).await {
                tracing::warn!(%error, room = %code, "cannot register a quick-play table");
                continue;
            }
            if let Some(reply) = message.reply {
                let _ = self.inner.client.publish(reply, Vec::new().into()).await;
            }
        }
    }
}

impl Cluster {
    /// Tells this node's connections queued at `node`, which stopped or
    /// died, that they are no longer in a queue.
    pub(super) fn queue_gone(&self, node: &str) {
        let mut queued = lock(&self.inner.queued);
        queued.retain(|_, (outbox, at)| {
            if &**at != node {
                return true;
            }
            let notice = ServerMessage::Unqueued {
                reason: spades_protocol::ws::UnqueueReason::QueueMoved,
            };
            outbox.send(spades_room::Text::from(notice.to_json()));
            false
        });
    }
}

fn queue_subject(node: &str) -> String {
    format!("spades.node.{node}.queue")
}
