//! The writing half of a connection, and its keepalive: the socket with
//! the queue of what is to be written to it, drained while the connection
//! waits for the client's next frame.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes};
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use prometheus_client::metrics::counter::Counter;
use spades_protocol::ws::ServerMessage;
use spades_room::Text;
use tokio::time::Sleep;
use tokio_util::sync::WaitForCancellationFutureOwned;

use spades_room::outbox::{CloseReason, OutboxReceiver};

/// How long a batch that is not urgent may wait for more messages to share
/// its write, and so the shortest time between two lazy writes.
pub(super) const COALESCE: Duration = Duration::from_millis(10);

/// A client's socket with the queue of what is to be written to it.
///
/// Queued messages are written together; urgent batches are flushed at
/// once. A lazy batch is flushed at once too when the connection has been
/// written nothing for `COALESCE`, as when a person at the table sees
/// another's card; during a burst (a fast table, a busy lobby) it waits
/// until `COALESCE` after the last write, so that a burst costs one write
/// per `COALESCE` rather than one per message. Writing goes on only while the task
/// waits for a frame, not while it handles one: handling is short, and
/// the queue holds what arrives meanwhile.
pub(super) struct Link<S> {
    socket: S,
    receiver: OutboxReceiver,
    /// Cancelled when the connection must end. One future for the whole
    /// connection, registered once with `kill_alarm` when the link is made
    /// and polled again only once the outbox says it is closed: polling it
    /// takes the token's lock, and a busy connection is polled thousands
    /// of times a second.
    killed: Pin<Box<WaitForCancellationFutureOwned>>,
    kill_alarm: Waker,
    /// Messages taken from the queue and not yet handed to the socket.
    waiting: VecDeque<Text>,
    /// Whether the socket was handed messages since the last flush.
    unflushed: bool,
    /// A flush is due now.
    flush_now: bool,
    /// When a lazy batch must be flushed at the latest, once one is waiting.
    flush_timer: Pin<Box<Sleep>>,
    timer_armed: bool,
    /// When the socket was last flushed, if it ever was.
    flushed_at: Option<tokio::time::Instant>,
    /// The socket failed or the connection was told to end.
    done: bool,
    /// Fires every `keepalive_every` to check that the client is still
    /// there. One timer reset per interval rather than one per frame: a
    /// reset takes a lock in the runtime's timer, and a busy client sends
    /// hundreds of frames a second.
    keepalive: Pin<Box<Sleep>>,
    keepalive_every: Duration,
    /// A frame arrived since the last check.
    heard: bool,
    /// A ping went out at the last check, with nothing heard before it.
    pinged: bool,
    /// A ping is to be written.
    ping_due: bool,
    /// The client answered nothing, pings included, for two intervals.
    unresponsive: bool,
    /// The client sent a close frame; the WebSocket layer has queued the
    /// answer, which the goodbye writes.
    pub(super) closed_by_client: bool,
    /// The server's count of messages written, added to once per batch.
    written: Counter,
    /// When the next frame may be read, while the client is over its rate
    /// (see `rate_limit.rs`); made the first time it is needed.
    read_gate: Option<Pin<Box<Sleep>>>,
    gated: bool,
}

impl<S> Link<S>
where
    S: Stream<Item = Result<Message, axum::Error>> + Sink<Message> + Unpin,
{
    pub(super) fn new(
        socket: S,
        receiver: OutboxReceiver,
        keepalive_every: Duration,
        written: Counter,
    ) -> Link<S> {
        let kill_alarm = receiver.kill_alarm();
        let mut killed = Box::pin(receiver.killed().cancelled_owned());
        let done = killed
            .as_mut()
            .poll(&mut Context::from_waker(&kill_alarm))
            .is_ready();
        let keepalive = Box::pin(tokio::time::sleep(keepalive_every));
        Link {
            socket,
            receiver,
            killed,
            kill_alarm,
            waiting: VecDeque::new(),
            unflushed: false,
            flush_now: false,
            flush_timer: Box::pin(tokio::time::sleep(Duration::ZERO)),
            timer_armed: false,
            flushed_at: None,
            done,
            keepalive,
            keepalive_every,
            heard: false,
            pinged: false,
            ping_due: false,
            unresponsive: false,
            closed_by_client: false,
            written,
            read_gate: None,
            gated: false,
        }
    }

    /// The client's next frame, writing queued messages while waiting for
    /// it; `None` when the connection is over.
    pub(super) async fn next_frame(&mut self) -> Option<Result<Message, axum::Error>> {
        std::future::poll_fn(|cx| self.poll_frame(cx)).await
    }

    /// Reads no frame before `at`, while still writing what is queued.
    pub(super) fn read_after(&mut self, at: tokio::time::Instant) {
        match &mut self.read_gate {
            Some(gate) => gate.as_mut().reset(at),
            None => self.read_gate = Some(Box::pin(tokio::time::sleep_until(at))),
        }
        self.gated = true;
    }

    /// Whether the connection was told to end.
    fn is_killed(&mut self) -> bool {
        self.receiver.is_closed()
            && self
                .killed
                .as_mut()
                .poll(&mut Context::from_waker(&self.kill_alarm))
                .is_ready()
    }

    fn poll_frame(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Message, axum::Error>>> {
        if self.done || self.is_killed() {
            self.done = true;
            return Poll::Ready(None);
        }
        if self.poll_write(cx).is_err() {
            self.done = true;
            return Poll::Ready(None);
        }
        if self.gated
            && let Some(gate) = &mut self.read_gate
            && gate.as_mut().poll(cx).is_ready()
        {
            self.gated = false;
        }
        if !self.gated
            && let Poll::Ready(frame) = self.socket.poll_next_unpin(cx)
        {
            self.heard = true;
            return Poll::Ready(frame);
        }
        // Checked only once the socket has nothing waiting: an answer that
        // came while this task waited for a core is not silence.
        if self.keepalive.as_mut().poll(cx).is_ready() {
            if !self.check_alive(cx) {
                self.unresponsive = true;
                self.done = true;
                return Poll::Ready(None);
            }
            // Writes the ping, if one is due.
            if self.poll_write(cx).is_err() {
                self.done = true;
                return Poll::Ready(None);
            }
        }
        Poll::Pending
    }

    /// The keepalive check, when its timer fires: a client heard from
    /// since the last check is fine; one silent since then gets a ping
    /// (which browsers and WebSocket libraries answer by themselves); one
    /// silent since the ping is gone. Returns whether the client is taken
    /// to be there, and sets the timer for the next check.
    fn check_alive(&mut self, cx: &mut Context<'_>) -> bool {
        if self.heard {
            self.pinged = false;
        } else if self.pinged {
            return false;
        } else {
            self.pinged = true;
            self.ping_due = true;
        }
        self.heard = false;
        let next = tokio::time::Instant::now() + self.keepalive_every;
        self.keepalive.as_mut().reset(next);
        // Polled once so that the timer wakes this task.
        let _ = self.keepalive.as_mut().poll(cx);
        true
    }

    /// Writes as much of the queue as the socket takes now. Returns with
    /// the task registered to be woken by whatever it waits on: a new
    /// batch, room in the socket's buffer, or the flush timer.
    ///
    /// Batches are taken from the queue only once the socket has taken
    /// every message before them, so a client that does not read leaves
    /// them in the queue, which fills up and cuts him off.
    fn poll_write(&mut self, cx: &mut Context<'_>) -> Result<(), ()> {
        if self.ping_due {
            match Pin::new(&mut self.socket).poll_ready(cx) {
                Poll::Ready(Ok(())) => {}
                Poll::Ready(Err(_)) => return Err(()),
                Poll::Pending => return self.socket_busy(cx),
            }
            if Pin::new(&mut self.socket)
                .start_send(Message::Ping(Default::default()))
                .is_err()
            {
                return Err(());
            }
            self.ping_due = false;
            self.unflushed = true;
            self.flush_now = true;
        }
        loop {
            while !self.waiting.is_empty() {
                match Pin::new(&mut self.socket).poll_ready(cx) {
                    Poll::Ready(Ok(())) => {}
                    Poll::Ready(Err(_)) => return Err(()),
                    Poll::Pending => return self.socket_busy(cx),
                }
                let message = self.waiting.pop_front().expect("checked not empty");
                // The room's text is UTF-8 by construction, so this check
                // of axum's cannot fail; were it to, the frame is dropped.
                let Ok(text) = Utf8Bytes::try_from(message.into_bytes()) else {
                    continue;
                };
                if Pin::new(&mut self.socket)
                    .start_send(Message::Text(text))
                    .is_err()
                {
                    return Err(());
                }
                self.unflushed = true;
            }
            let taken = self.receiver.poll_batches(cx, |batch| {
                self.written.inc_by(batch.messages.len() as u64);
                self.waiting.extend(batch.messages);
                self.flush_now |= batch.urgent;
            });
            if taken.is_ready() {
                if !self.flush_now && !self.timer_armed {
                    let now = tokio::time::Instant::now();
                    match self.flushed_at.map(|at| at + COALESCE) {
                        Some(next) if next > now => {
                            self.flush_timer.as_mut().reset(next);
                            self.timer_armed = true;
                        }
                        _ => self.flush_now = true,
                    }
                }
                continue;
            }
            if self.timer_armed && self.flush_timer.as_mut().poll(cx).is_ready() {
                self.flush_now = true;
            }
            if self.flush_now && self.unflushed {
                match Pin::new(&mut self.socket).poll_flush(cx) {
                    Poll::Ready(Ok(())) => {}
                    Poll::Ready(Err(_)) => return Err(()),
                    Poll::Pending => return self.socket_busy(cx),
                }
            }
            if self.flush_now {
                if self.unflushed {
                    self.flushed_at = Some(tokio::time::Instant::now());
                }
                self.unflushed = false;
                self.flush_now = false;
                self.timer_armed = false;
            }
            return Ok(());
        }
    }

    /// Returns from `poll_write` when the socket takes nothing more for
    /// now. Its room, when it comes, wakes the task; the outbox must be able
    /// to as well, since the end of the connection comes through it (see
    /// `kill_alarm`), and only reaching `poll_batches` registers with it.
    fn socket_busy(&self, cx: &mut Context<'_>) -> Result<(), ()> {
        self.receiver.register(cx.waker());
        Ok(())
    }

    /// Says goodbye: why the server closes the connection, if it does, and
    /// the close frame.
    pub(super) async fn close(mut self) {
        let reason = if self.unresponsive {
            Some(CloseReason::Unresponsive)
        } else {
            self.receiver.reason()
        };
        let notice = match reason {
            Some(CloseReason::Replaced) => Some(ServerMessage::Replaced),
            Some(CloseReason::Shutdown) => Some(ServerMessage::ShuttingDown {
                message: "the server is restarting; games in progress resume when it is back".into(),
            }),
            _ => None,
        };
        let frame = reason.map(|reason| CloseFrame {
            code: reason.code(),
            reason: reason.text().into(),
        });
        let farewell = self.receiver.farewell();
        let socket = &mut self.socket;
        let answer_only = self.closed_by_client;
        let goodbye = async move {
            if answer_only {
                // The client closed first: its close frame is answered
                // with the same code, which the WebSocket layer queued and
                // a flush writes. A close frame of our own would be one
                // too many.
                return socket.flush().await;
            }
            if let Some(notice) = notice {
                socket
                    .feed(Message::Text(Utf8Bytes::from(notice.to_json())))
                    .await?;
            }
            if let Some(farewell) = farewell
                && let Ok(text) = Utf8Bytes::try_from(farewell.into_bytes())
            {
                socket.feed(Message::Text(text)).await?;
            }
            socket.send(Message::Close(frame)).await
        };
        // A client that stopped reading may never take the close frame.
        let _ = tokio::time::timeout(Duration::from_secs(1), goodbye).await;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tokio_util::sync::CancellationToken;

    use super::*;
    use spades_room::outbox;

    /// A flush: when, after the test's start, and the messages it wrote.
    type Flush = (Duration, Vec<String>);

    /// A socket that never receives and notes, at each flush, the runtime's
    /// time and the messages given to it since the last one.
    #[derive(Clone, Default)]
    struct Recorder {
        given: Arc<Mutex<Vec<String>>>,
        flushes: Arc<Mutex<Vec<Flush>>>,
        start: Option<tokio::time::Instant>,
    }

    impl Stream for Recorder {
        type Item = Result<Message, axum::Error>;
        fn poll_next(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
            Poll::Pending
        }
    }

    impl Sink<Message> for Recorder {
        type Error = ();
        fn poll_ready(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), ()>> {
            Poll::Ready(Ok(()))
        }
        fn start_send(self: Pin<&mut Self>, message: Message) -> Result<(), ()> {
            if let Message::Text(text) = message {
                self.given.lock().unwrap().push(text.as_str().to_owned());
            }
            Ok(())
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), ()>> {
            let given = std::mem::take(&mut *self.given.lock().unwrap());
            if !given.is_empty() {
                let at = self.start.expect("set by the test").elapsed();
                self.flushes.lock().unwrap().push((at, given));
            }
            Poll::Ready(Ok(()))
        }
        fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), ()>> {
            Poll::Ready(Ok(()))
        }
    }

    fn flushes(recorder: &Recorder) -> Vec<(u64, Vec<String>)> {
        let flushes = recorder.flushes.lock().unwrap();
        flushes
            .iter()
            .map(|(at, given)| (at.as_millis() as u64, given.clone()))
            .collect()
    }

    fn texts(items: &[&str]) -> Vec<String> {
        items.iter().map(|item| (*item).to_owned()).collect()
    }

    /// A lone event reaches a quiet connection at once (a person sees
    /// another's card without waiting), while a burst is gathered into
    /// one write per `COALESCE`; replies never wait.
    #[tokio::test(start_paused = true)]
    async fn lazy_messages_wait_only_during_a_burst() {
        let recorder = Recorder {
            start: Some(tokio::time::Instant::now()),
            ..Recorder::default()
        };
        let (outbox, receiver) = outbox::outbox(1, 64, CancellationToken::new());
        let mut link = Link::new(
            recorder.clone(),
            receiver,
            Duration::from_secs(3600),
            Counter::default(),
        );
        let task = tokio::spawn(async move { link.next_frame().await.is_none() });
        let pause = |ms| tokio::time::sleep(Duration::from_millis(ms));

        outbox.send_lazy("a".into());
        pause(1).await;
        assert_eq!(flushes(&recorder), [(0, texts(&["a"]))], "quiet: at once");

        // Within COALESCE of that write, lazy messages wait for its end.
        outbox.send_lazy("b".into());
        pause(4).await;
        outbox.send_lazy("c".into());
        pause(30).await;
        assert_eq!(
            flushes(&recorder),
            [(0, texts(&["a"])), (10, texts(&["b", "c"]))],
            "a burst waits until COALESCE after the last write"
        );

        // Quiet again; then a reply goes out at once even right after a write.
        outbox.send_lazy("d".into());
        outbox.send("e".into());
        pause(1).await;
        outbox.send("f".into());
        pause(1).await;
        assert_eq!(
            flushes(&recorder)[2..],
            [(35, texts(&["d", "e"])), (36, texts(&["f"]))]
        );

        outbox.close(CloseReason::Shutdown);
        assert!(task.await.unwrap(), "the link ends when the connection is closed");
    }
}
