//! The room's side of a connection on another node: the owner takes the
//! requests that node forwards, hands them to its local room as any
//! connection's, and relays what the room sends back.
//!
//! For each such connection the owner makes an outbox of its own, which the
//! room holds like any member's: the room never waits on it, and a relay
//! task drains it into the connection's subject. If that outbox fills (the
//! other node or NATS cannot keep up), the room drops it as too slow, and
//! the connection is closed on its node with the same status.

use std::sync::Arc;

use spades_protocol::ws::{ErrorCode, MessageId, ServerMessage};
use spades_room::Text;

use super::wire::{self, Forwarded, Request};
use super::{Cluster, Parts, lock};
use spades_room::outbox::{self, Batch, CloseReason, ConnectionId, Outbox, OutboxReceiver};
use spades_room::{RoomCommand, RoomHandle, RoomRequest};

/// A connection of another node in one of this node's rooms.
#[derive(Debug)]
pub(super) struct Served {
    room: RoomHandle,
    /// The outbox the room holds for the connection.
    outbox: Outbox,
    player: Arc<str>,
}

/// Which connection: its node and its number there.
pub(super) type ServedKey = (Arc<str>, ConnectionId);

impl Cluster {
    /// Takes the requests that other nodes' connections send this node's
    /// rooms, one at a time, in the order they come.
    pub(super) async fn serve_rooms(self, mut requests: async_nats::Subscriber, parts: Parts) {
        // Served until the node has left, so that a client that comes back
        // while its rooms stop is told to wait rather than nothing.
        let left = self.inner.left.clone();
        while let Some(message) = super::next_message(&mut requests, &left).await {
            let forwarded: Forwarded = match serde_json::from_slice(&message.payload) {
                Ok(forwarded) => forwarded,
                Err(error) => {
                    tracing::warn!(%error, "a request from another node does not read");
                    continue;
                }
            };
            let is_leave = matches!(forwarded.request, Request::Leave);
            self.serve(forwarded, &parts).await;
            // A leave is answered once the room has let go of the
            // connection, as a local leave is.
            if is_leave && let Some(reply) = message.reply {
                let _ = self.inner.client.publish(reply, Vec::new().into()).await;
            }
        }
    }

    async fn serve(&self, forwarded: Forwarded, parts: &Parts) {
        let node: Arc<str> = forwarded.node.as_str().into();
        let key: ServedKey = (node.clone(), forwarded.connection);
        let subject = format!("spades.node.{node}.out.{}", forwarded.connection);
        match forwarded.request {
            Request::Join { .. } | Request::Resync { .. } => self.enter(forwarded, key, subject, parts).await,
            Request::Leave => {
                let served = lock(&self.inner.served).remove(&key);
                if let Some(served) = served {
                    let _ = served.room.leave(served.player.clone()).await;
                    served.outbox.stop();
                }
            }
            Request::Detach => {
                let served = lock(&self.inner.served).remove(&key);
                if let Some(served) = served {
                    detach(served).await;
                }
            }
            Request::Command { id, command } => {
                let player: Arc<str> = forwarded.player.to_string().into();
                self.pass_on(key, &subject, player, id, command).await;
            }
        }
    }

    /// Lets a connection of another node into a room of this one (or back
    /// into it), with an outbox of its own relayed to its node.
    async fn enter(&self, forwarded: Forwarded, key: ServedKey, subject: String, parts: &Parts) {
        let (Request::Join { name, id } | Request::Resync { name, id, .. }) = &forwarded.request else {
            return;
        };
        if parts.lifecycle.is_draining() {
            let message = "this room's server is stopping; the room opens again on another \
                           within seconds: try again";
            return self
                .refuse(&subject, id.clone(), ErrorCode::ServerBusy, message.into())
                .await;
        }
        let Ok(Some(room)) = parts.lobby.find(&forwarded.room).await else {
            // A node that has just started may be about to resume the room:
            // the client is told to try again rather than that it is gone.
            let (code, message) = if self.inner.resumed.load(std::sync::atomic::Ordering::Relaxed) {
                (ErrorCode::RoomNotFound, format!("no room {:?}", forwarded.room))
            } else {
                let message = "this room's server is starting and opens the room within seconds: try again";
                (ErrorCode::ServerBusy, message.to_string())
            };
            return self.refuse(&subject, id.clone(), code, message).await;
        };
        let person = wire::player(forwarded.player, name);
        let (outbox, receiver) = outbox::outbox(
            self.remote_connection_id(),
            parts.outbox_capacity,
            parts.stop.clone(),
        );
        tokio::spawn(relay_out(self.inner.client.clone(), subject, receiver));
        let request = match forwarded.request {
            Request::Resync { id, last_seq, .. } => RoomRequest::Resync {
                player: person,
                outbox: outbox.clone(),
                id,
                last_seq,
            },
            _ => RoomRequest::Join {
                player: person,
                outbox: outbox.clone(),
                id: id.clone(),
            },
        };
        let served = Served {
            room: room.clone(),
            outbox,
            player: forwarded.player.to_string().into(),
        };
        if let Some(old) = lock(&self.inner.served).insert(key, served) {
            old.outbox.stop();
        }
        let _ = room.send(request).await;
    }

    /// Hands a room command of a connection of another node to the room
    /// that connection is in, as it came.
    async fn pass_on(
        &self,
        key: ServedKey,
        subject: &str,
        player: Arc<str>,
        id: MessageId,
        command: RoomCommand,
    ) {
        let room = lock(&self.inner.served)
            .get(&key)
            .map(|served| served.room.clone());
        let Some(room) = room else {
            let message = "that room has closed".to_string();
            return self.refuse(subject, id, ErrorCode::RoomNotFound, message).await;
        };
        let request = RoomRequest::Command {
            player,
            id: id.clone(),
            command,
            received: std::time::Instant::now(),
        };
        if room.send(request).await.is_err() {
            lock(&self.inner.served).remove(&key);
            let message = "that room has closed".to_string();
            self.refuse(subject, id, ErrorCode::RoomNotFound, message).await;
        }
    }

    /// Answers a request with an error, straight to its connection.
    async fn refuse(&self, subject: &str, id: MessageId, code: ErrorCode, message: String) {
        let error = ServerMessage::Error {
            id: Some(id),
            code,
            message,
        };
        let batch = Batch {
            messages: vec![Text::from(error.to_json())],
            urgent: true,
        };
        let body = wire::encode_batch(&batch);
        let _ = self.inner.client.publish(subject.to_string(), body.into()).await;
    }

    /// Takes the connections of `node`, which died or left, out of this
    /// node's rooms, as if each had dropped: their seats are held for them.
    pub(super) fn connections_gone(&self, node: &str) {
        let gone: Vec<Served> = {
            let mut served = lock(&self.inner.served);
            let keys: Vec<ServedKey> = served.keys().filter(|(n, _)| &**n == node).cloned().collect();
            keys.iter().filter_map(|key| served.remove(key)).collect()
        };
        for served in gone {
            tokio::spawn(detach(served));
        }
    }
}

async fn detach(served: Served) {
    let _ = served
        .room
        .send(RoomRequest::Detach {
            player: served.player.clone(),
            connection: served.outbox.id(),
        })
        .await;
    served.outbox.stop();
}

/// Drains the outbox a room holds for a connection of another node into
/// that connection's subject, until the outbox is closed; then says why,
/// if the room's side closed it for a reason the client must hear.
pub(super) async fn relay_out(client: async_nats::Client, subject: String, receiver: OutboxReceiver) {
    let killed = receiver.killed();
    loop {
        let mut batches = Vec::new();
        let stopped = tokio::select! {
            biased;
            () = std::future::poll_fn(|cx| receiver.poll_batches(cx, |batch| batches.push(batch))) => false,
            () = killed.cancelled() => true,
        };
        for batch in &batches {
            if client
                .publish(subject.clone(), wire::encode_batch(batch).into())
                .await
                .is_err()
            {
                return;
            }
        }
        if stopped {
            break;
        }
    }
    let reason = match receiver.reason() {
        // This node is stopping: its rooms open again elsewhere.
        Some(CloseReason::Shutdown) => Some(CloseReason::RoomMoved),
        reason => reason,
    };
    if let Some(reason) = reason {
        let _ = client.publish(subject, wire::encode_close(reason).into()).await;
    }
}
