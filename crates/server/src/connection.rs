//! One WebSocket connection: a reader that parses, checks and routes what
//! the client sends, and a writer that drains the connection's outbox.
//!
//! The two loops are written over `Stream` and `Sink` so that tests can
//! drive them with channels; the server runs them over a real socket.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes};
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use spades_engine::{Action, Bid, Preset};
use spades_protocol::read::read_client_message;
use spades_protocol::ws::{
    ClientMessage, ErrorCode, MAX_FRAME_BYTES, MessageId, PROTOCOL_VERSION, ServerMessage,
};
use time::OffsetDateTime;
use tokio::time::Sleep;
use tokio_util::sync::WaitForCancellationFutureOwned;

use crate::AppState;
use crate::identity::{self, PlayerRef};
use crate::outbox::{self, CloseReason, Outbox, OutboxReceiver};
use crate::room::{RoomHandle, RoomRequest};

/// Serves one upgraded socket until either side closes it.
///
/// One task does both directions: it writes what the connection's outbox
/// holds while it waits for the client's next frame. A second task for the
/// writes would cost a task, a lock around the split socket and a wake-up
/// per batch, for every one of tens of thousands of connections.
pub async fn serve<S>(socket: S, state: AppState)
where
    S: Stream<Item = Result<Message, axum::Error>> + Sink<Message> + Unpin,
{
    let id = state.next_connection_id();
    let (outbox, receiver) = outbox::outbox(id, state.config().outbox_capacity, state.shutdown_token());
    let mut link = Link::new(socket, receiver, state.config().keepalive);
    let hello_by = tokio::time::Instant::now() + state.config().hello_timeout;
    let mut session = Session::new(state, outbox.clone());
    loop {
        // A connection that has not said who it is gets a few seconds to,
        // so that silent sockets cannot hold places meant for players.
        let frame = if session.player.is_some() {
            link.next_frame().await
        } else {
            match tokio::time::timeout_at(hello_by, link.next_frame()).await {
                Ok(frame) => frame,
                Err(_) => {
                    outbox.close(CloseReason::NoHello);
                    break;
                }
            }
        };
        match frame {
            None => break,
            Some(Ok(Message::Close(_))) => {
                link.closed_by_client = true;
                break;
            }
            Some(Err(error)) => {
                if let Some(reason) = failure(error) {
                    outbox.close(reason);
                }
                break;
            }
            // Boxed: handling a message awaits the lobby or a room, and
            // keeping that state inline would make every idle connection
            // as large as the busiest moment of any.
            Some(Ok(Message::Text(text))) => Box::pin(session.on_text(text.as_str())).await,
            Some(Ok(Message::Binary(_))) => session.on_binary(),
            // Pings are answered by the WebSocket layer.
            Some(Ok(_)) => {}
        }
    }
    // Boxed for the same reason: the goodbyes hold a timer and requests to
    // the room and the lobby, which would otherwise double the size of a
    // connection that spends its whole life waiting for frames.
    Box::pin(session.close()).await;
    outbox.departed();
    outbox.stop();
    Box::pin(link.close()).await;
}

/// How long a `hello` that replaces a player's connection waits for the
/// old one to leave its room.
const REPLACE_WAIT: Duration = Duration::from_secs(2);

/// How long a batch that is not urgent may wait for more messages to share
/// its write, and so the shortest time between two lazy writes.
pub const COALESCE: Duration = Duration::from_millis(10);

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
struct Link<S> {
    socket: S,
    receiver: OutboxReceiver,
    /// Cancelled when the connection must end. One future for the whole
    /// connection, since making one per wait registers with the token again.
    killed: Pin<Box<WaitForCancellationFutureOwned>>,
    /// Messages taken from the queue and not yet handed to the socket.
    waiting: VecDeque<Utf8Bytes>,
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
    closed_by_client: bool,
}

impl<S> Link<S>
where
    S: Stream<Item = Result<Message, axum::Error>> + Sink<Message> + Unpin,
{
    fn new(socket: S, receiver: OutboxReceiver, keepalive_every: Duration) -> Link<S> {
        let killed = Box::pin(receiver.killed().cancelled_owned());
        let keepalive = Box::pin(tokio::time::sleep(keepalive_every));
        Link {
            socket,
            receiver,
            killed,
            waiting: VecDeque::new(),
            unflushed: false,
            flush_now: false,
            flush_timer: Box::pin(tokio::time::sleep(Duration::ZERO)),
            timer_armed: false,
            flushed_at: None,
            done: false,
            keepalive,
            keepalive_every,
            heard: false,
            pinged: false,
            ping_due: false,
            unresponsive: false,
            closed_by_client: false,
        }
    }

    /// The client's next frame, writing queued messages while waiting for
    /// it; `None` when the connection is over.
    async fn next_frame(&mut self) -> Option<Result<Message, axum::Error>> {
        std::future::poll_fn(|cx| self.poll_frame(cx)).await
    }

    fn poll_frame(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Message, axum::Error>>> {
        if self.done || self.killed.as_mut().poll(cx).is_ready() {
            self.done = true;
            return Poll::Ready(None);
        }
        if self.poll_write(cx).is_err() {
            self.done = true;
            return Poll::Ready(None);
        }
        if let Poll::Ready(frame) = self.socket.poll_next_unpin(cx) {
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
                Poll::Pending => return Ok(()),
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
                    Poll::Pending => return Ok(()),
                }
                let message = self.waiting.pop_front().expect("checked not empty");
                if Pin::new(&mut self.socket)
                    .start_send(Message::Text(message))
                    .is_err()
                {
                    return Err(());
                }
                self.unflushed = true;
            }
            let taken = self.receiver.poll_batches(cx, |batch| {
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
                    Poll::Pending => return Ok(()),
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

    /// Says goodbye: why the server closes the connection, if it does, and
    /// the close frame.
    async fn close(mut self) {
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
            socket.send(Message::Close(frame)).await
        };
        // A client that stopped reading may never take the close frame.
        let _ = tokio::time::timeout(Duration::from_secs(1), goodbye).await;
    }
}

/// A token bucket: `rate` messages a second on average, `burst` at once.
#[derive(Debug)]
struct RateLimit {
    rate: f64,
    burst: f64,
    tokens: f64,
    last: Instant,
    /// When the client was last told it is over the limit; one notice a
    /// second is enough, and more would flood a flooding client's outbox.
    last_notice: Option<Instant>,
}

impl RateLimit {
    fn new(rate: u32, burst: u32) -> RateLimit {
        RateLimit {
            rate: f64::from(rate),
            burst: f64::from(burst),
            tokens: f64::from(burst),
            last: Instant::now(),
            last_notice: None,
        }
    }

    fn take(&mut self) -> bool {
        let now = Instant::now();
        let refill = now.duration_since(self.last).as_secs_f64() * self.rate;
        self.tokens = (self.tokens + refill).min(self.burst);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    fn should_notify(&mut self) -> bool {
        let now = Instant::now();
        let due = self
            .last_notice
            .is_none_or(|at| now.duration_since(at) >= Duration::from_secs(1));
        if due {
            self.last_notice = Some(now);
        }
        due
    }
}

struct Session {
    state: AppState,
    outbox: Outbox,
    player: Option<PlayerRef>,
    room: Option<RoomHandle>,
    watching_lobby: bool,
    /// Whether the player queued for quick play on this connection.
    queued: bool,
    limit: RateLimit,
}

impl Session {
    fn new(state: AppState, outbox: Outbox) -> Session {
        let limit = RateLimit::new(state.config().message_rate, state.config().message_burst);
        Session {
            state,
            outbox,
            player: None,
            room: None,
            watching_lobby: false,
            queued: false,
            limit,
        }
    }

    /// Leaves everything the connection had joined.
    async fn close(&mut self) {
        let Some(player) = self.player.take() else {
            return;
        };
        if let Some(room) = self.room.take() {
            let _ = room
                .send(RoomRequest::Detach {
                    player: player.id.clone(),
                    connection: self.outbox.id(),
                })
                .await;
        }
        if self.watching_lobby {
            let _ = self.state.lobby().unwatch(self.outbox.id()).await;
        }
        if self.queued {
            let _ = self
                .state
                .lobby()
                .disconnected(player.id.clone(), self.outbox.id())
                .await;
        }
        self.state.online().disconnect(&player, self.outbox.id());
    }

    fn send(&self, message: &ServerMessage) {
        self.outbox.send(Utf8Bytes::from(message.to_json()));
    }

    fn send_error(&self, id: Option<MessageId>, code: ErrorCode, message: impl Into<String>) {
        self.send(&ServerMessage::Error {
            id,
            code,
            message: message.into(),
        });
    }

    /// Whether a frame the client sent may be handled, under the rate
    /// limit. Every frame counts (text of any size, binary), so that no
    /// kind of frame escapes the limit; one dropped for it gets a notice
    /// at most once a second.
    fn within_rate(&mut self) -> bool {
        if self.limit.take() {
            return true;
        }
        if self.limit.should_notify() {
            let message = format!(
                "at most {} messages a second; this one was dropped",
                self.state.config().message_rate
            );
            self.send_error(None, ErrorCode::RateLimited, message);
        }
        false
    }

    async fn on_text(&mut self, text: &str) {
        if !self.within_rate() {
            return;
        }
        if text.len() > MAX_FRAME_BYTES {
            let message = format!("messages are at most {MAX_FRAME_BYTES} bytes");
            return self.send_error(None, ErrorCode::FrameTooLarge, message);
        }
        match read_client_message(text) {
            Ok(message) => self.dispatch(message).await,
            Err(unreadable) => self.send_error(unreadable.id, unreadable.code, unreadable.message),
        }
    }

    fn on_binary(&mut self) {
        if self.within_rate() {
            self.send_error(None, ErrorCode::BadMessage, "messages are JSON in text frames");
        }
    }

    async fn dispatch(&mut self, message: ClientMessage) {
        let Some(player) = self.player.clone() else {
            return match message {
                ClientMessage::Hello {
                    id,
                    version,
                    name,
                    token,
                } => self.hello(id, version, name, token).await,
                other => self.send_error(
                    Some(other.id().clone()),
                    ErrorCode::HelloFirst,
                    "the first message must be hello",
                ),
            };
        };
        let me = player.id.clone();
        match message {
            ClientMessage::Hello { id, .. } => self.send_error(
                Some(id),
                ErrorCode::AlreadyHello,
                "this connection has already said hello",
            ),
            ClientMessage::Ping { id } => self.send(&ServerMessage::Pong { id }),
            ClientMessage::ListRooms { id } => match self.state.lobby().list().await {
                Ok(rooms) => self.send(&ServerMessage::Rooms { id, rooms }),
                Err(_) => self.shutting_down(id),
            },
            ClientMessage::WatchLobby { id } => {
                if !self.watching_lobby && self.state.lobby().watch(self.outbox.clone()).await.is_err() {
                    return self.shutting_down(id);
                }
                self.watching_lobby = true;
                self.ack(id);
            }
            ClientMessage::WatchTournament { id, tournament } => {
                let Ok(tournament) = tournament.parse::<uuid::Uuid>() else {
                    return self.send_error(Some(id), ErrorCode::TournamentNotFound, "no such tournament");
                };
                match self
                    .state
                    .tournaments()
                    .watch(tournament, self.outbox.clone())
                    .await
                {
                    Ok(view) => self.send(&crate::tournament::view_reply(id, view)),
                    Err(crate::tournament::Refusal::NotFound) => {
                        self.send_error(Some(id), ErrorCode::TournamentNotFound, "no such tournament")
                    }
                    Err(_) => self.send_error(
                        Some(id),
                        ErrorCode::ServerBusy,
                        "storage is unavailable; try again later",
                    ),
                }
            }
            ClientMessage::UnwatchTournament { id, tournament } => {
                if let Ok(tournament) = tournament.parse::<uuid::Uuid>() {
                    self.state
                        .tournaments()
                        .unwatch(tournament, self.outbox.id())
                        .await;
                }
                self.ack(id);
            }
            ClientMessage::UnwatchLobby { id } => {
                if self.watching_lobby {
                    let _ = self.state.lobby().unwatch(self.outbox.id()).await;
                }
                self.watching_lobby = false;
                self.ack(id);
            }
            ClientMessage::CreateRoom {
                id,
                name,
                rules,
                private,
                bots,
            } => {
                let rules = match rules.resolve() {
                    Ok(rules) => rules,
                    Err(error) => return self.send_error(Some(id), ErrorCode::BadRules, error.to_string()),
                };
                let name = name
                    .as_deref()
                    .and_then(crate::identity::clean_name)
                    .unwrap_or_else(|| format!("{}'s table", player.name));
                match self
                    .state
                    .lobby()
                    .create(player.clone(), name, rules, private, bots)
                    .await
                {
                    Ok(Ok(room)) => self.enter(room, id, None).await,
                    Ok(Err(busy)) => self.send_error(Some(id), ErrorCode::ServerBusy, busy.message()),
                    Err(_) => self.shutting_down(id),
                }
            }
            ClientMessage::JoinRoom { id, room } => self.find_and_enter(id, &room, None).await,
            ClientMessage::Resync { id, room, last_seq } => {
                self.find_and_enter(id, &room, Some(last_seq)).await
            }
            ClientMessage::LeaveRoom { id } => {
                let Some(room) = self.room.take() else {
                    return self.send_error(Some(id), ErrorCode::NotInRoom, "you are not in a room");
                };
                // The room has let go of this connection before the ack, so
                // that none of its events follows it.
                let _ = room.leave(me).await;
                self.ack(id);
            }
            ClientMessage::Sit { id, seat } => {
                self.forward(id.clone(), RoomRequest::Sit { player: me, id, seat })
                    .await
            }
            ClientMessage::Stand { id } => {
                self.forward(id.clone(), RoomRequest::Stand { player: me, id })
                    .await
            }
            ClientMessage::StartGame { id } => {
                self.forward(id.clone(), RoomRequest::Start { player: me, id })
                    .await
            }
            ClientMessage::AddBot { id, seat } => {
                self.forward(id.clone(), RoomRequest::AddBot { player: me, id, seat })
                    .await
            }
            ClientMessage::RemoveBot { id, seat } => {
                self.forward(id.clone(), RoomRequest::RemoveBot { player: me, id, seat })
                    .await
            }
            ClientMessage::Queue { id, rules, partner } => self.queue(id, player, rules, partner).await,
            ClientMessage::LeaveQueue { id } => match self.state.lobby().leave_queue(me).await {
                Ok(true) => self.ack(id),
                Ok(false) => self.send_error(Some(id), ErrorCode::NotQueued, "you are not in the queue"),
                Err(_) => self.shutting_down(id),
            },
            ClientMessage::Bid { id, bid, blind } => {
                let bid = match (bid, blind) {
                    (0, true) => Bid::BlindNil,
                    (0, false) => Bid::Nil,
                    (tricks, false) => Bid::Tricks(tricks),
                    (_, true) => {
                        return self.send_error(
                            Some(id),
                            ErrorCode::InvalidBid,
                            "a blind bid must be 0 (blind nil)",
                        );
                    }
                };
                self.act(id, me, Action::Bid(bid)).await;
            }
            ClientMessage::Look { id } => self.act(id, me, Action::LookAtHand).await,
            ClientMessage::PassCards { id, cards } => self.act(id, me, Action::Pass(cards)).await,
            ClientMessage::Play { id, card } => self.act(id, me, Action::Play(card)).await,
            ClientMessage::Chat { id, text } => {
                self.forward(id.clone(), RoomRequest::Chat { player: me, id, text })
                    .await
            }
        }
    }

    async fn queue(&mut self, id: MessageId, player: PlayerRef, rules: Preset, partner: Option<String>) {
        let partner = match partner {
            None => None,
            Some(name) => match identity::clean_name(&name) {
                Some(name) if !name.eq_ignore_ascii_case(&player.name) => Some(name),
                _ => {
                    return self.send_error(
                        Some(id),
                        ErrorCode::BadPartner,
                        "name another player as your partner",
                    );
                }
            },
        };
        // A player whose rating cannot be read now is matched as a newcomer.
        let rating = match self.state.store().profile(player.account).await {
            Ok(Some(profile)) => profile.rating,
            _ => spades_store::Rating::default().rating,
        };
        let entry = crate::matchmaking::Entry {
            player,
            rating,
            preset: rules,
            partner,
            since: tokio::time::Instant::now(),
        };
        match self
            .state
            .lobby()
            .queue(entry, id.clone(), self.outbox.clone())
            .await
        {
            Ok(Ok(())) => self.queued = true,
            Ok(Err((code, message))) => self.send_error(Some(id), code, message),
            Err(_) => self.shutting_down(id),
        }
    }

    fn ack(&self, id: MessageId) {
        self.send(&ServerMessage::Ack {
            id,
            seq: None,
            duplicate: false,
        });
    }

    fn shutting_down(&self, id: MessageId) {
        self.send_error(Some(id), ErrorCode::ServerBusy, "the server is shutting down");
    }

    async fn hello(&mut self, id: MessageId, version: u32, name: Option<String>, token: Option<String>) {
        if version != PROTOCOL_VERSION {
            let message = format!("this server speaks protocol version {PROTOCOL_VERSION}");
            return self.send_error(Some(id), ErrorCode::UnsupportedVersion, message);
        }
        let found = match (token, name) {
            (Some(token), _) => self.returning(token).await,
            (None, Some(name)) => match identity::clean_name(&name) {
                None => Err((ErrorCode::BadName, identity::NAME_RULES)),
                Some(name) => self.new_guest(&name).await,
            },
            (None, None) => Err((ErrorCode::BadMessage, "hello needs a name or a token")),
        };
        let (player, token) = match found {
            Ok(found) => found,
            Err((code, message)) => return self.send_error(Some(id), code, message),
        };
        let session = identity::token_hash(&token);
        if let Some(previous) = self.state.online().connect(&player, self.outbox.clone(), session) {
            // The old connection leaves its room before this one can ask
            // to come back in, so that the others always see the player
            // away, then back, in that order. It takes a moment; the
            // bound only matters for a connection stuck in its goodbyes.
            let _ = tokio::time::timeout(REPLACE_WAIT, previous.has_departed()).await;
        }
        let room = self
            .state
            .lobby()
            .seated_room(player.id.clone())
            .await
            .ok()
            .flatten();
        self.send(&ServerMessage::Welcome {
            id,
            version: PROTOCOL_VERSION,
            player: player.info(),
            token,
            room,
        });
        self.player = Some(player);
    }

    /// The player behind a session token. While the store cannot answer,
    /// a session this server has seen still lets its player in, so that
    /// he can get back to a table that plays on without the store.
    async fn returning(&self, token: String) -> Result<(PlayerRef, String), (ErrorCode, &'static str)> {
        let session = identity::token_hash(&token);
        let known = self.state.known_sessions();
        match identity::resolve_session(self.state.store(), &token).await {
            Ok(Some((account, expires_at))) => {
                let player = PlayerRef::from(&account);
                known.remember(session, &player, expires_at);
                Ok((player, token))
            }
            Ok(None) => {
                known.forget(&session);
                Err((ErrorCode::BadToken, "unknown or expired token"))
            }
            Err(error) => match known.recall(&session, OffsetDateTime::now_utc()) {
                Some(player) if error.is_transient() => {
                    tracing::warn!(%error, "storage unavailable during hello; a session seen before lets its player in");
                    Ok((player, token))
                }
                _ => {
                    tracing::error!(%error, "storage error during hello");
                    Err((ErrorCode::ServerBusy, "storage is unavailable; try again later"))
                }
            },
        }
    }

    /// A new guest and his session, which the server remembers.
    async fn new_guest(&self, name: &str) -> Result<(PlayerRef, String), (ErrorCode, &'static str)> {
        let lifetime = self.state.config().session_lifetime;
        match identity::new_guest(self.state.store(), name, lifetime).await {
            Ok((player, token)) => {
                let expires_at = OffsetDateTime::now_utc() + lifetime;
                self.state
                    .known_sessions()
                    .remember(identity::token_hash(&token), &player, expires_at);
                Ok((player, token))
            }
            Err(error) => {
                tracing::error!(%error, "storage error during hello");
                Err((ErrorCode::ServerBusy, "storage is unavailable; try again later"))
            }
        }
    }

    async fn find_and_enter(&mut self, id: MessageId, code: &str, last_seq: Option<u64>) {
        match self.state.lobby().find(code).await {
            Ok(Some(room)) => self.enter(room, id, last_seq).await,
            Ok(None) => self.send_error(Some(id), ErrorCode::RoomNotFound, format!("no room {code:?}")),
            Err(_) => self.shutting_down(id),
        }
    }

    /// Moves the connection into a room, leaving the one it was in.
    async fn enter(&mut self, room: RoomHandle, id: MessageId, last_seq: Option<u64>) {
        let Some(player) = self.player.clone() else {
            return;
        };
        // The old room lets go of the connection before the new one is
        // asked in, or one of its events could follow the new room's reply.
        if let Some(old) = self.room.take()
            && old.code() != room.code()
        {
            let _ = old.leave(player.id.clone()).await;
        }
        let outbox = self.outbox.clone();
        let request = match last_seq {
            Some(last_seq) => RoomRequest::Resync {
                player,
                outbox,
                id: id.clone(),
                last_seq,
            },
            None => RoomRequest::Join {
                player,
                outbox,
                id: id.clone(),
            },
        };
        match room.send(request).await {
            Ok(()) => self.room = Some(room),
            Err(_) => self.send_error(Some(id), ErrorCode::RoomNotFound, "that room has closed"),
        }
    }

    async fn forward(&mut self, id: MessageId, request: RoomRequest) {
        let Some(room) = &self.room else {
            return self.send_error(Some(id), ErrorCode::NotInRoom, "join a room first");
        };
        if room.send(request).await.is_err() {
            self.room = None;
            self.send_error(Some(id), ErrorCode::RoomNotFound, "that room has closed");
        }
    }

    async fn act(&mut self, id: MessageId, player: std::sync::Arc<str>, action: Action) {
        self.forward(id.clone(), RoomRequest::Act { player, id, action })
            .await;
    }
}

/// Why a read failed, as the close frame says it: a frame above the hard
/// size limit (1009), text that is not UTF-8 (1007), or a frame that breaks
/// the WebSocket protocol (1002: reserved bits or opcodes, an unmasked
/// frame, a bad fragment). `None` when the connection itself is gone, and
/// no close frame could reach the client.
fn failure(error: axum::Error) -> Option<CloseReason> {
    use tokio_tungstenite::tungstenite::Error;
    use tokio_tungstenite::tungstenite::error::ProtocolError;
    let inner = error.into_inner();
    match inner.downcast_ref::<Error>()? {
        Error::Capacity(_) => Some(CloseReason::MessageTooBig),
        Error::Utf8(_) => Some(CloseReason::NotUtf8),
        Error::Protocol(ProtocolError::ResetWithoutClosingHandshake) => None,
        Error::Protocol(_) => Some(CloseReason::ProtocolError),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tokio_util::sync::CancellationToken;

    use super::*;

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
        let mut link = Link::new(recorder.clone(), receiver, Duration::from_secs(3600));
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
