//! The queue of messages waiting to be written to one connection.
//!
//! Rooms and the lobby never wait on a connection: they `try_send` into its
//! bounded queue, and a connection whose queue is full is cut off, so a slow
//! or dead client can never slow a table down.
//!
//! Messages travel in batches, each marked urgent or not. An urgent batch
//! (a reply, or a turn for the player who must act) is written at once; the
//! others may wait a few milliseconds to share a write with what follows, so
//! that a player watching a fast table costs one system call now and then
//! rather than one per card.

use axum::extract::ws::Utf8Bytes;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// A connection's number, unique for the life of the process.
pub type ConnectionId = u64;

/// Why the server closed a connection.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CloseReason {
    /// Its queue filled up: it does not read fast enough.
    TooSlow,
    /// The same player connected again elsewhere.
    Replaced,
    /// The server is shutting down.
    Shutdown,
    /// It sent a frame above the hard size limit.
    MessageTooBig,
}

impl CloseReason {
    /// The WebSocket close code sent with the close frame.
    pub fn code(self) -> u16 {
        match self {
            CloseReason::TooSlow => 4008,
            CloseReason::Replaced => 4001,
            CloseReason::Shutdown => 1001,
            CloseReason::MessageTooBig => 1009,
        }
    }

    pub fn text(self) -> &'static str {
        match self {
            CloseReason::TooSlow => "too slow: outgoing queue full",
            CloseReason::Replaced => "replaced by a newer connection",
            CloseReason::Shutdown => "server shutting down",
            CloseReason::MessageTooBig => "frame above the size limit",
        }
    }
}

/// Messages queued together for one connection, in order.
#[derive(Debug)]
pub struct Batch {
    pub messages: Vec<Utf8Bytes>,
    /// Write without waiting for more.
    pub urgent: bool,
}

/// The sending side of a connection's queue. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Outbox {
    id: ConnectionId,
    queue: mpsc::Sender<Batch>,
    kill: CancellationToken,
    reason: std::sync::Arc<std::sync::OnceLock<CloseReason>>,
}

/// The receiving side, owned by the connection's writer.
#[derive(Debug)]
pub struct OutboxReceiver {
    pub queue: mpsc::Receiver<Batch>,
    pub kill: CancellationToken,
    reason: std::sync::Arc<std::sync::OnceLock<CloseReason>>,
    shutdown: CancellationToken,
}

impl OutboxReceiver {
    /// Why the connection was told to close, once it has been (`None` for
    /// an ordinary end).
    pub fn reason(&self) -> Option<CloseReason> {
        self.reason
            .get()
            .copied()
            .or_else(|| self.shutdown.is_cancelled().then_some(CloseReason::Shutdown))
    }
}

/// A connection's queue. It is also closed when `shutdown` is cancelled.
pub fn outbox(id: ConnectionId, capacity: usize, shutdown: CancellationToken) -> (Outbox, OutboxReceiver) {
    let (queue, receiver) = mpsc::channel(capacity);
    let kill = shutdown.child_token();
    let reason = std::sync::Arc::new(std::sync::OnceLock::new());
    (
        Outbox {
            id,
            queue,
            kill: kill.clone(),
            reason: reason.clone(),
        },
        OutboxReceiver {
            queue: receiver,
            kill,
            reason,
            shutdown,
        },
    )
}

impl Outbox {
    pub fn id(&self) -> ConnectionId {
        self.id
    }

    /// Queues a message to be written at once (a reply). See `send_batch`.
    pub fn send(&self, message: Utf8Bytes) -> bool {
        self.send_batch(Batch {
            messages: vec![message],
            urgent: true,
        })
    }

    /// Queues a message that may wait a little for company.
    pub fn send_lazy(&self, message: Utf8Bytes) -> bool {
        self.send_batch(Batch {
            messages: vec![message],
            urgent: false,
        })
    }

    /// Queues a batch without waiting. A full queue disconnects the client;
    /// returns false when the batch was not queued.
    pub fn send_batch(&self, batch: Batch) -> bool {
        match self.queue.try_send(batch) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.close(CloseReason::TooSlow);
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }

    /// Tells the connection to close, with a reason.
    pub fn close(&self, reason: CloseReason) {
        let _ = self.reason.set(reason);
        self.kill.cancel();
    }

    /// Ends the connection without an error: the client left.
    pub fn stop(&self) {
        self.kill.cancel();
    }

    /// A token that is cancelled when the connection must stop reading.
    pub fn stopped(&self) -> CancellationToken {
        self.kill.clone()
    }

    /// The connection is gone or going.
    pub fn is_closed(&self) -> bool {
        self.kill.is_cancelled() || self.queue.is_closed()
    }
}
