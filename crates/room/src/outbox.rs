//! The queue of messages waiting to be written to one connection.
//!
//! Rooms and the lobby never wait on a connection: they push into its
//! bounded queue and go on, and a connection whose queue is full is cut
//! off, so a slow or dead client can never slow a table down.
//!
//! Messages travel in batches, each marked urgent or not. An urgent batch
//! (a reply, or a turn for the player who must act) is written at once; the
//! others may wait a few milliseconds to share a write with what follows, so
//! that a player watching a fast table costs one system call now and then
//! rather than one per card.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll, Wake, Waker};

use crate::Text;
use futures_util::task::AtomicWaker;
use tokio_util::sync::CancellationToken;

/// A connection's number, unique for the life of the process.
pub type ConnectionId = u64;

/// Why the server closed a connection.
#[derive(Clone, Copy, PartialEq, Eq, Debug, strum::EnumIter)]
pub enum CloseReason {
    /// Its queue filled up: it does not read fast enough.
    TooSlow,
    /// The same player connected again elsewhere.
    Replaced,
    /// The server is shutting down.
    Shutdown,
    /// It sent a frame above the hard size limit.
    MessageTooBig,
    /// It answered nothing, not even the server's pings, for too long: the
    /// client or the network between is gone.
    Unresponsive,
    /// It did not say `hello` in time.
    NoHello,
    /// It had not said `hello` when the server, full, needed its place for
    /// a new connection.
    MadeRoom,
    /// The session it said hello with ended: the player logged out, or
    /// the guest became a registered player.
    SessionEnded,
    /// It sent a frame that breaks the WebSocket protocol.
    ProtocolError,
    /// It sent a text frame that is not UTF-8.
    NotUtf8,
    /// The room it was in is moving to another node of the cluster (its
    /// node stopped or died): the client reconnects and resyncs, and finds
    /// the room where it opened again.
    RoomMoved,
    /// A moderator suspended or banned the player: a `notice` said why
    /// and until when just before.
    Sanctioned,
}

impl CloseReason {
    /// The WebSocket close code sent with the close frame.
    pub fn code(self) -> u16 {
        match self {
            CloseReason::TooSlow => 4008,
            CloseReason::Replaced => 4001,
            CloseReason::Shutdown => 1001,
            CloseReason::MessageTooBig => 1009,
            CloseReason::Unresponsive => 4002,
            CloseReason::NoHello => 4003,
            CloseReason::MadeRoom => 4005,
            CloseReason::SessionEnded => 4004,
            CloseReason::ProtocolError => 1002,
            CloseReason::NotUtf8 => 1007,
            CloseReason::RoomMoved => 1012,
            CloseReason::Sanctioned => 4009,
        }
    }

    pub fn text(self) -> &'static str {
        match self {
            CloseReason::TooSlow => "too slow: outgoing queue full",
            CloseReason::Replaced => "replaced by a newer connection",
            CloseReason::Shutdown => "server shutting down",
            CloseReason::MessageTooBig => "frame above the size limit",
            CloseReason::Unresponsive => "no answer to pings",
            CloseReason::NoHello => "no hello in time",
            CloseReason::MadeRoom => "server full: closed before hello to make room",
            CloseReason::SessionEnded => "session ended",
            CloseReason::ProtocolError => "WebSocket protocol error",
            CloseReason::NotUtf8 => "text frame is not UTF-8",
            CloseReason::RoomMoved => "the room moved to another server; reconnect and resync",
            CloseReason::Sanctioned => "suspended or banned",
        }
    }

    /// The reason a close code stands for, as another node of the cluster
    /// sends it.
    pub fn from_code(code: u16) -> Option<CloseReason> {
        use strum::IntoEnumIterator;
        CloseReason::iter().find(|reason| reason.code() == code)
    }
}

/// Messages queued together for one connection, in order.
#[derive(PartialEq, Debug)]
pub struct Batch {
    pub messages: Vec<Text>,
    /// Write without waiting for more.
    pub urgent: bool,
}

/// What the two sides of a queue share.
///
/// The queue is a plain locked deque rather than a channel: a connection
/// spends most of its life idle with nothing queued, and an empty deque
/// holds no memory where a channel keeps a block of slots for every
/// connection (with tens of thousands of connections, that block was a
/// tenth of the server's memory).
#[derive(Debug)]
struct Shared {
    id: ConnectionId,
    capacity: usize,
    queue: Mutex<VecDeque<Batch>>,
    /// Wakes the connection's task when something is queued.
    waker: AtomicWaker,
    /// Set once the connection will write nothing more: told to close, or
    /// its task ended. Checked on every send, so it is an atomic rather
    /// than a look at `kill`.
    closed: AtomicBool,
    /// Cancelled to end the connection; a child of the server's shutdown.
    kill: CancellationToken,
    /// Cancelled once the connection has left its room and the lobby's
    /// queue, so that a connection replacing it can wait for that.
    departed: CancellationToken,
    reason: OnceLock<CloseReason>,
    /// The last message before the close frame, when the reason needs more
    /// words than a close frame holds (a sanction's reason and end).
    farewell: OnceLock<Text>,
}

/// The sending side of a connection's queue. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Outbox {
    shared: Arc<Shared>,
}

/// The receiving side, owned by the connection's task.
#[derive(Debug)]
pub struct OutboxReceiver {
    shared: Arc<Shared>,
    shutdown: CancellationToken,
}

impl OutboxReceiver {
    /// Why the connection was told to close, once it has been (`None` for
    /// an ordinary end).
    pub fn reason(&self) -> Option<CloseReason> {
        self.shared
            .reason
            .get()
            .copied()
            .or_else(|| self.shutdown.is_cancelled().then_some(CloseReason::Shutdown))
    }

    /// The message to write before the close frame, if one was given.
    pub fn farewell(&self) -> Option<Text> {
        self.shared.farewell.get().cloned()
    }

    /// A token cancelled when the connection must end.
    pub fn killed(&self) -> CancellationToken {
        self.shared.kill.clone()
    }

    /// A waker for the future that waits on [`killed`](Self::killed): when
    /// the token is cancelled, by [`Outbox::stop`] or by the server's
    /// shutdown, it marks the queue closed and wakes the connection's task.
    /// That future registered once with this waker stays registered, so the
    /// task needs to look at it again only once [`is_closed`](Self::is_closed)
    /// says so: one atomic load per wake-up instead of the token's lock.
    pub fn kill_alarm(&self) -> Waker {
        Waker::from(Arc::new(KillAlarm(self.shared.clone())))
    }

    /// Whether the connection was told to end. Once true, the token of
    /// [`killed`](Self::killed) is cancelled or about to be.
    pub fn is_closed(&self) -> bool {
        self.shared.closed.load(Ordering::Acquire)
    }

    /// Has the task woken at the next batch or at the end of the
    /// connection. [`poll_batches`](Self::poll_batches) does it on the way;
    /// a task that returns before it must do it itself.
    pub fn register(&self, waker: &Waker) {
        self.shared.waker.register(waker);
    }

    /// Hands every queued batch, oldest first, to `take`. When there is
    /// none, the task is woken at the next one.
    pub fn poll_batches(&self, cx: &mut Context<'_>, mut take: impl FnMut(Batch)) -> Poll<()> {
        // Registering before looking means a batch queued in between still
        // wakes the task.
        self.shared.waker.register(cx.waker());
        let batches = std::mem::take(&mut *self.shared.lock());
        if batches.is_empty() {
            return Poll::Pending;
        }
        batches.into_iter().for_each(&mut take);
        Poll::Ready(())
    }
}

/// See [`OutboxReceiver::kill_alarm`].
struct KillAlarm(Arc<Shared>);

impl Wake for KillAlarm {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.closed.store(true, Ordering::Release);
        self.0.waker.wake();
    }
}

impl Drop for OutboxReceiver {
    fn drop(&mut self) {
        self.shared.closed.store(true, Ordering::Release);
        self.shared.lock().clear();
    }
}

/// A connection's queue. It is also closed when `shutdown` is cancelled.
pub fn outbox(id: ConnectionId, capacity: usize, shutdown: CancellationToken) -> (Outbox, OutboxReceiver) {
    let shared = Arc::new(Shared {
        id,
        capacity,
        queue: Mutex::new(VecDeque::new()),
        waker: AtomicWaker::new(),
        closed: AtomicBool::new(false),
        kill: shutdown.child_token(),
        departed: CancellationToken::new(),
        reason: OnceLock::new(),
        farewell: OnceLock::new(),
    });
    (
        Outbox {
            shared: shared.clone(),
        },
        OutboxReceiver { shared, shutdown },
    )
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Batch>> {
        // The lock is only held to push or take batches, which cannot
        // panic halfway; a poisoned queue is still a valid one.
        self.queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Outbox {
    pub fn id(&self) -> ConnectionId {
        self.shared.id
    }

    /// Queues a message to be written at once (a reply). See `send_batch`.
    pub fn send(&self, message: Text) -> bool {
        self.send_batch(Batch {
            messages: vec![message],
            urgent: true,
        })
    }

    /// Queues a message that may wait a little for company.
    pub fn send_lazy(&self, message: Text) -> bool {
        self.send_batch(Batch {
            messages: vec![message],
            urgent: false,
        })
    }

    /// Queues a batch without waiting. A full queue disconnects the client;
    /// returns false when the batch was not queued.
    pub fn send_batch(&self, batch: Batch) -> bool {
        if self.shared.closed.load(Ordering::Acquire) {
            return false;
        }
        let mut queue = self.shared.lock();
        if queue.len() >= self.shared.capacity {
            drop(queue);
            self.close(CloseReason::TooSlow);
            return false;
        }
        queue.push_back(batch);
        drop(queue);
        self.shared.waker.wake();
        true
    }

    /// Tells the connection to close, with a reason.
    pub fn close(&self, reason: CloseReason) {
        let _ = self.shared.reason.set(reason);
        self.stop();
    }

    /// Closes the connection with `farewell` as its last message, written
    /// just before the close frame whatever was queued.
    pub fn close_with(&self, reason: CloseReason, farewell: Text) {
        let _ = self.shared.farewell.set(farewell);
        self.close(reason);
    }

    /// Ends the connection without an error: the client left.
    pub fn stop(&self) {
        self.shared.closed.store(true, Ordering::Release);
        self.shared.kill.cancel();
    }

    /// Says that the connection has left everything it was in (its room,
    /// the queue): what it told them is on its way to them.
    pub fn departed(&self) {
        self.shared.departed.cancel();
    }

    /// Waits until the connection has [`departed`](Outbox::departed).
    pub async fn has_departed(&self) {
        self.shared.departed.cancelled().await;
    }

    /// The connection is gone or going.
    pub fn is_closed(&self) -> bool {
        self.shared.closed.load(Ordering::Acquire) || self.shared.kill.is_cancelled()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_close_reason_has_its_own_code_and_reads_back_from_it() {
        use strum::IntoEnumIterator;
        let reasons: Vec<CloseReason> = CloseReason::iter().collect();
        assert_eq!(reasons.len(), 12);
        for reason in reasons {
            assert_eq!(CloseReason::from_code(reason.code()), Some(reason));
        }
        assert_eq!(CloseReason::from_code(1000), None);
    }

    fn text(batch: &Batch) -> Vec<&str> {
        batch.messages.iter().map(Text::as_str).collect()
    }

    fn drain(receiver: &OutboxReceiver) -> Vec<Batch> {
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let mut batches = Vec::new();
        let _ = receiver.poll_batches(&mut cx, |batch| batches.push(batch));
        batches
    }

    #[test]
    fn batches_come_out_in_order() {
        let (outbox, receiver) = outbox(1, 8, CancellationToken::new());
        assert!(outbox.send_lazy("a".into()));
        assert!(outbox.send("b".into()));
        let batches = drain(&receiver);
        assert_eq!(batches.iter().map(text).collect::<Vec<_>>(), [["a"], ["b"]]);
        assert_eq!(
            batches.iter().map(|b| b.urgent).collect::<Vec<_>>(),
            [false, true]
        );
        assert!(drain(&receiver).is_empty());
    }

    #[test]
    fn a_full_queue_closes_the_connection_as_too_slow() {
        let (outbox, receiver) = outbox(1, 2, CancellationToken::new());
        assert!(outbox.send("1".into()));
        assert!(outbox.send("2".into()));
        assert!(!outbox.send("3".into()), "the third batch does not fit");
        assert!(outbox.is_closed());
        assert!(receiver.killed().is_cancelled());
        assert_eq!(receiver.reason(), Some(CloseReason::TooSlow));
        assert!(!outbox.send("4".into()), "nothing is queued once closed");
    }

    #[test]
    fn shutdown_and_an_ended_connection_close_the_queue() {
        let shutdown = CancellationToken::new();
        let (outbox, receiver) = outbox(1, 2, shutdown.clone());
        shutdown.cancel();
        assert!(outbox.is_closed());
        assert_eq!(receiver.reason(), Some(CloseReason::Shutdown));
        let (outbox, receiver) = super::outbox(2, 2, CancellationToken::new());
        drop(receiver);
        assert!(!outbox.send("late".into()));
    }

    /// A waker that counts its wake-ups.
    struct Count(std::sync::atomic::AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn counting_waker() -> (Arc<Count>, Waker) {
        let count = Arc::new(Count(std::sync::atomic::AtomicUsize::new(0)));
        (count.clone(), Waker::from(count))
    }

    #[test]
    fn the_kill_alarm_closes_the_queue_and_wakes_the_task_once_the_token_is_cancelled() {
        for by_shutdown in [false, true] {
            let shutdown = CancellationToken::new();
            let (outbox, receiver) = outbox(1, 4, shutdown.clone());
            let alarm = receiver.kill_alarm();
            let mut killed = Box::pin(receiver.killed().cancelled_owned());
            assert!(
                killed
                    .as_mut()
                    .poll(&mut Context::from_waker(&alarm))
                    .is_pending()
            );
            let (count, waker) = counting_waker();
            assert!(
                receiver
                    .poll_batches(&mut Context::from_waker(&waker), |_| {})
                    .is_pending()
            );
            assert!(!receiver.is_closed());
            if by_shutdown {
                shutdown.cancel();
            } else {
                outbox.stop();
            }
            assert!(receiver.is_closed(), "closed (by shutdown: {by_shutdown})");
            assert!(count.0.load(Ordering::SeqCst) >= 1, "the task was woken");
            assert!(killed.as_mut().poll(&mut Context::from_waker(&alarm)).is_ready());
            assert!(!outbox.send("late".into()), "nothing is queued once killed");
        }
    }

    #[test]
    fn a_queued_batch_wakes_the_waiting_task() {
        let (count, waker) = counting_waker();
        let (outbox, receiver) = outbox(1, 4, CancellationToken::new());
        let mut cx = Context::from_waker(&waker);
        assert!(receiver.poll_batches(&mut cx, |_| {}).is_pending());
        outbox.send("x".into());
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        let mut seen = Vec::new();
        assert!(
            receiver
                .poll_batches(&mut cx, |batch| seen.push(batch))
                .is_ready()
        );
        assert_eq!(seen.len(), 1);
    }
}
