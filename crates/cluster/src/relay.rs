//! The connection's side of a room on another node: requests go out to the
//! room's owner over NATS, and the room's messages come back into the
//! connection's own outbox.
//!
//! A room's messages for one connection all leave its owner through that
//! node's one NATS connection, on one subject, so they arrive in the order
//! the room sent them; replies and events thus keep their order, and the
//! urgent flag of each batch travels with it. A connection that cannot
//! keep up fills its outbox here and is closed here, as any other.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::wire::{self, Forwarded, Outgoing, Request};
use super::{Cluster, lock};
use spades_room::Answer;
use spades_room::outbox::{CloseReason, ConnectionId};
use spades_room::{RemoteRoute, RoomGone, RoomRequest};

/// A room that another node runs, as a connection of this node reaches it.
#[derive(Clone, Debug)]
pub struct RemoteRoom {
    cluster: Cluster,
    /// The node that owns the room.
    owner: Arc<str>,
    /// The connection of this node that reaches the room through this
    /// handle: each connection makes its own.
    connection: ConnectionId,
}

/// The longest a connection waits for a room on another node to let go of
/// it when it leaves: as for a local room, the bound only matters when
/// something is wrong.
const LEAVE_WAIT: Duration = Duration::from_secs(5);

impl RemoteRoom {
    pub fn new(cluster: Cluster, owner: Arc<str>, connection: ConnectionId) -> RemoteRoom {
        RemoteRoom {
            cluster,
            owner,
            connection,
        }
    }

    fn subject(&self) -> String {
        format!("spades.node.{}.rooms", self.owner)
    }

    fn forwarded(
        &self,
        room: &str,
        connection: ConnectionId,
        player: uuid::Uuid,
        request: Request,
    ) -> Vec<u8> {
        let forwarded = Forwarded {
            node: self.cluster.node().to_string(),
            connection,
            room: room.to_string(),
            player,
            request,
        };
        serde_json::to_vec(&forwarded).unwrap_or_default()
    }

    /// Sends a request to the room. A `Join` or `Resync` enters the
    /// connection's outbox in the relay, so that the room's messages reach
    /// it; a `Detach` takes it out.
    async fn send(&self, room: &str, request: RoomRequest) -> Result<(), RoomGone> {
        let connection = self.connection;
        let account = match &request {
            RoomRequest::Join { player, outbox, .. } | RoomRequest::Resync { player, outbox, .. } => {
                lock(&self.cluster.inner.relays).insert(connection, (outbox.clone(), self.owner.clone()));
                player.account
            }
            RoomRequest::Detach { player, .. } => {
                lock(&self.cluster.inner.relays).remove(&connection);
                account_of(player)
            }
            // Ending a room is no connection's request: every node hears
            // of it (a moderation event), and the room's own node ends it.
            RoomRequest::Leave { .. } | RoomRequest::End { .. } => return Ok(()),
            other => player_of(other)
                .map(|player| account_of(player))
                .unwrap_or_default(),
        };
        let Some(wire) = Request::from_room_request(&request) else {
            return Ok(());
        };
        let body = self.forwarded(room, connection, account, wire);
        self.cluster
            .inner
            .client
            .publish(self.subject(), body.into())
            .await
            .map_err(|_| RoomGone)
    }

    /// Takes the player out of the room and waits until the room has let
    /// go of his connection.
    async fn leave(&self, room: &str, player: &str) -> Result<(), RoomGone> {
        let connection = self.connection;
        let body = self.forwarded(room, connection, account_of(player), Request::Leave);
        let answer = tokio::time::timeout(
            LEAVE_WAIT,
            self.cluster.inner.client.request(self.subject(), body.into()),
        )
        .await;
        lock(&self.cluster.inner.relays).remove(&connection);
        match answer {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(_)) => Err(RoomGone),
            // Gone on, as a local room's leave does after its bound.
            Err(_) => Ok(()),
        }
    }
}

impl RemoteRoute for RemoteRoom {
    fn send<'a>(&'a self, room: &'a str, request: RoomRequest) -> Answer<'a, Result<(), RoomGone>> {
        Box::pin(RemoteRoom::send(self, room, request))
    }

    fn leave<'a>(&'a self, room: &'a str, player: &'a str) -> Answer<'a, Result<(), RoomGone>> {
        Box::pin(RemoteRoom::leave(self, room, player))
    }
}

fn player_of(request: &RoomRequest) -> Option<&Arc<str>> {
    match request {
        RoomRequest::Join { player, .. } | RoomRequest::Resync { player, .. } => Some(&player.id),
        RoomRequest::Leave { player, .. }
        | RoomRequest::Detach { player, .. }
        | RoomRequest::Command { player, .. } => Some(player),
        RoomRequest::End { .. } => None,
    }
}

/// The account behind a player id: ids are account ids as text.
fn account_of(player: &str) -> uuid::Uuid {
    player.parse().unwrap_or_default()
}

impl Cluster {
    /// Takes the messages that rooms of other nodes (or the queue's node)
    /// send this node's connections, and puts each batch into its
    /// connection's outbox.
    pub(super) async fn relay_in(self, mut outgoing: async_nats::Subscriber, stop: CancellationToken) {
        while let Some(message) = super::next_message(&mut outgoing, &stop).await {
            let Some(connection) = message
                .subject
                .rsplit('.')
                .next()
                .and_then(|id| id.parse::<ConnectionId>().ok())
            else {
                continue;
            };
            // A room's messages come on `out`, the queue's on `queued`.
            let from_queue = message.subject.as_str().contains(".queued.");
            let outbox = if from_queue {
                lock(&self.inner.queued)
                    .get(&connection)
                    .map(|(outbox, _)| outbox.clone())
            } else {
                lock(&self.inner.relays)
                    .get(&connection)
                    .map(|(outbox, _)| outbox.clone())
            };
            let Some(outbox) = outbox else {
                continue;
            };
            match wire::decode(&message.payload) {
                Some(Outgoing::Batch(batch)) => {
                    outbox.send_batch(batch);
                }
                Some(Outgoing::Close(reason)) if !from_queue => {
                    lock(&self.inner.relays).remove(&connection);
                    outbox.close(reason);
                }
                // The queue's side closing ends the queue's messages, not
                // the connection: its player is told he left the queue.
                Some(Outgoing::Close(_)) => {
                    if lock(&self.inner.queued).remove(&connection).is_some() {
                        let notice = spades_protocol::ws::ServerMessage::Unqueued {
                            reason: spades_protocol::ws::UnqueueReason::QueueMoved,
                        };
                        outbox.send(spades_room::Text::from(notice.to_json()));
                    }
                }
                None => tracing::warn!(connection, "a room's message from another node does not read"),
            }
        }
    }

    /// Closes this node's connections that are in rooms of `owner`, a node
    /// that died or left: their clients reconnect and resync, and find each
    /// room on the node that took it over.
    pub(super) fn owner_gone(&self, owner: &str) {
        let mut relays = lock(&self.inner.relays);
        relays.retain(|_, (outbox, node)| {
            if &**node == owner {
                outbox.close(CloseReason::RoomMoved);
                false
            } else {
                true
            }
        });
    }

    /// Tells every node that `player` said hello on this node's
    /// `connection`, so that a connection of his on another node is
    /// replaced.
    pub async fn announce_hello(&self, player: &str, connection: ConnectionId) {
        let body = format!("{} {connection}", self.inner.node);
        let subject = format!("spades.hello.{player}");
        if let Err(error) = self.inner.client.publish(subject, body.into()).await {
            tracing::warn!(%error, "cannot tell the cluster of a hello");
        }
    }

    /// Closes this node's connection of each player who said hello on
    /// another node since, with `replaced` (status 4001).
    pub(super) async fn replace_elsewhere(self, mut hellos: async_nats::Subscriber, parts: super::Parts) {
        while let Some(message) = super::next_message(&mut hellos, &parts.stop).await {
            let Some(player) = message.subject.rsplit('.').next() else {
                continue;
            };
            let from = std::str::from_utf8(&message.payload).unwrap_or_default();
            let node = from.split(' ').next().unwrap_or_default();
            if node != &*self.inner.node {
                parts.online.replaced_elsewhere(player);
            }
        }
    }
}
