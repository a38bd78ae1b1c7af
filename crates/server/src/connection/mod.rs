//! One WebSocket connection: a reader that parses, checks and routes what
//! the client sends, and a writer that drains the connection's outbox.
//!
//! The two loops are written over `Stream` and `Sink` so that tests can
//! drive them with channels; the server runs them over a real socket. This
//! file is the reader and the player's session; `link.rs` the writer and
//! the keepalive; `rate_limit.rs` the limit on what a client sends.

use std::time::Duration;

use axum::extract::ws::{Message, Utf8Bytes};
use futures_util::{Sink, Stream};
use spades_engine::{Action, Bid, Preset};
use spades_protocol::read::read_client_message;
use spades_protocol::ws::{
    ClientMessage, ErrorCode, MAX_FRAME_BYTES, MessageId, PROTOCOL_VERSION, ServerMessage,
};
use time::OffsetDateTime;

use crate::AppState;
use crate::admission::ConnectionSlot;
use crate::identity::{self, PlayerRef};
use crate::outbox::{self, CloseReason, Outbox};
use crate::room::{RoomHandle, RoomRequest};
use crate::unavailable::Unavailable;

mod link;
mod rate_limit;

use link::Link;
use rate_limit::RateLimit;

/// Serves one upgraded socket until either side closes it, holding the
/// connection's place under the server's caps until then.
///
/// One task does both directions: it writes what the connection's outbox
/// holds while it waits for the client's next frame. A second task for the
/// writes would cost a task, a lock around the split socket and a wake-up
/// per batch, for every one of tens of thousands of connections.
pub async fn serve<S>(socket: S, state: AppState, slot: ConnectionSlot)
where
    S: Stream<Item = Result<Message, axum::Error>> + Sink<Message> + Unpin,
{
    let id = state.next_connection_id();
    let (outbox, receiver) = outbox::outbox(id, state.config().outbox_capacity, state.shutdown_token());
    let mut link = Link::new(
        socket,
        receiver,
        state.config().keepalive,
        state.metrics().messages_out.clone(),
    );
    let messages_in = state.metrics().messages_in.clone();
    let hello_by = tokio::time::Instant::now() + state.config().hello_timeout;
    let mut session = Session::new(state, outbox.clone(), slot);
    loop {
        // A connection that has not said who it is gets a few seconds to,
        // so that silent sockets cannot hold places meant for players; and
        // meanwhile it gives its place up to a new connection when the
        // server is full.
        let frame = if session.player.is_some() {
            link.next_frame().await
        } else {
            tokio::select! {
                // First, so that a connection told to close while its
                // `hello` was handled closes before reading more.
                biased;
                () = session.slot.evicted() => {
                    outbox.close(CloseReason::MadeRoom);
                    break;
                }
                frame = tokio::time::timeout_at(hello_by, link.next_frame()) => match frame {
                    Ok(frame) => frame,
                    Err(_) => {
                        outbox.close(CloseReason::NoHello);
                        break;
                    }
                },
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
            Some(Ok(Message::Text(text))) => {
                messages_in.inc();
                session.pace(&mut link);
                Box::pin(session.on_text(text.as_str())).await
            }
            Some(Ok(Message::Binary(_))) => {
                session.pace(&mut link);
                session.on_binary();
            }
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

struct Session {
    state: AppState,
    outbox: Outbox,
    player: Option<PlayerRef>,
    room: Option<RoomHandle>,
    watching_lobby: bool,
    /// Whether the player queued for quick play on this connection.
    queued: bool,
    /// The node of the cluster whose queue he joined, when not this one.
    queue_node: Option<std::sync::Arc<str>>,
    limit: RateLimit,
    /// The connection's place under the server's caps.
    slot: ConnectionSlot,
}

impl Session {
    fn new(state: AppState, outbox: Outbox, slot: ConnectionSlot) -> Session {
        let limit = RateLimit::new(state.config().message_rate, state.config().message_burst);
        Session {
            state,
            outbox,
            player: None,
            room: None,
            watching_lobby: false,
            queued: false,
            queue_node: None,
            limit,
            slot,
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
            match (&self.queue_node, self.state.cluster()) {
                (Some(node), Some(cluster)) => cluster.disconnected_at(node, &player, self.outbox.id()).await,
                _ => {
                    let _ = self
                        .state
                        .lobby()
                        .disconnected(player.id.clone(), self.outbox.id())
                        .await;
                }
            }
        }
        self.state.online().disconnect(&player, self.outbox.id());
    }

    fn send(&self, message: &ServerMessage) {
        self.outbox.send(Utf8Bytes::from(message.to_json()));
    }

    fn send_error(&self, id: Option<MessageId>, code: ErrorCode, message: impl Into<String>) {
        self.state.metrics().error_sent(code);
        self.send(&ServerMessage::Error {
            id,
            code,
            message: message.into(),
        });
    }

    /// Counts a frame against the connection's rate, and when the client
    /// is over it, has the link read nothing more until the rate allows and
    /// tells the client so (once a second at most). Every frame counts,
    /// text of any size or binary, so that no kind escapes the limit.
    fn pace<S>(&mut self, link: &mut Link<S>)
    where
        S: Stream<Item = Result<Message, axum::Error>> + Sink<Message> + Unpin,
    {
        let now = std::time::Instant::now();
        let Some(next) = self.limit.take(now) else {
            return;
        };
        link.read_after(tokio::time::Instant::from_std(next));
        if self.limit.should_notify(now) {
            let config = self.state.config();
            let message = format!(
                "at most {} messages a second, in bursts of {}: your next messages are read as that allows",
                config.message_rate, config.message_burst
            );
            self.send_error(None, ErrorCode::RateLimited, message);
        }
    }

    async fn on_text(&mut self, text: &str) {
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
        self.send_error(None, ErrorCode::BadMessage, "messages are JSON in text frames");
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
                    Err(crate::tournament::Refusal::Unavailable(unavailable)) => {
                        self.send_unavailable(id, unavailable)
                    }
                    // Watching is refused for no other reason.
                    Err(_) => self.send_error(Some(id), ErrorCode::TournamentNotFound, "no such tournament"),
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
                    Ok(room) => self.enter(room, id, None).await,
                    Err(unavailable) => self.send_unavailable(id, unavailable),
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
            ClientMessage::LeaveQueue { id } => {
                let left = match (&self.queue_node, self.state.cluster()) {
                    (Some(node), Some(cluster)) => Ok(cluster.leave_queue_at(node, &player).await),
                    _ => self.state.lobby().leave_queue(me).await,
                };
                match left {
                    Ok(true) => self.ack(id),
                    Ok(false) => self.send_error(Some(id), ErrorCode::NotQueued, "you are not in the queue"),
                    Err(_) => self.shutting_down(id),
                }
            }
            ClientMessage::Bid { id, bid, blind } => {
                let bid = match Bid::from_parts(bid, blind) {
                    Ok(bid) => bid,
                    Err(error) => {
                        return self.send_error(Some(id), ErrorCode::InvalidBid, error.to_string());
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
        if partner.is_some() && !rules.rules().partners {
            return self.send_error(
                Some(id),
                ErrorCode::BadPartner,
                "this preset is played without partners: queue alone",
            );
        }
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
        // A partner named as a registered player is that account: a guest
        // who takes the same name cannot take his place. When the store
        // cannot be read now, any player of that name fits, as for a guest.
        let partner_account = match &partner {
            Some(name) => match self.state.store().registered_account(name).await {
                Ok(account) => account.map(|account| account.id),
                Err(_) => None,
            },
            None => None,
        };
        let entry = crate::matchmaking::Entry {
            player,
            rating,
            preset: rules,
            partner,
            partner_account,
            since: tokio::time::Instant::now(),
        };
        // In a cluster, one node keeps the queue for every node.
        if let Some(cluster) = self.state.cluster() {
            // The queue's lobby knows only the seats of its own node's
            // rooms; the registry knows every node's.
            if cluster.playing_room(&entry.player.id).await.is_some() {
                let message = "you are playing a game already";
                return self.send_error(Some(id), ErrorCode::GameInProgress, message);
            }
            let Some(node) = cluster.queue_node().await else {
                let message = "the quick-play queue cannot be reached now; try again";
                return self.send_error(Some(id), ErrorCode::ServerBusy, message);
            };
            if node != *cluster.node() {
                let cluster = cluster.clone();
                match cluster
                    .queue_at(&node, entry, id.clone(), self.outbox.clone())
                    .await
                {
                    Ok(()) => {
                        self.queued = true;
                        self.queue_node = Some(node);
                    }
                    Err((code, message)) => self.send_error(Some(id), code, message),
                }
                return;
            }
        }
        self.queue_node = None;
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
        self.send_unavailable(id, Unavailable::ShuttingDown);
    }

    fn send_unavailable(&self, id: MessageId, unavailable: Unavailable) {
        self.send_error(Some(id), unavailable.code(), unavailable.message());
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
        // Past this point the connection is the player's and keeps its
        // place; one already told to close for another's sake closes
        // instead (the serving loop sees it), before it displaces the
        // player's other connection.
        if !self.slot.welcome() {
            return;
        }
        let session = identity::token_hash(&token);
        if let Some(previous) = self.state.online().connect(&player, self.outbox.clone(), session) {
            // The old connection leaves its room before this one can ask
            // to come back in, so that the others always see the player
            // away, then back, in that order. It takes a moment; the
            // bound only matters for a connection stuck in its goodbyes.
            let _ = tokio::time::timeout(REPLACE_WAIT, previous.has_departed()).await;
        }
        let mut room = self
            .state
            .lobby()
            .seated_room(player.id.clone())
            .await
            .ok()
            .flatten();
        if let Some(cluster) = self.state.cluster() {
            // A hello here replaces the player's connection on any other
            // node, and his seat may be in a room of another node.
            cluster.announce_hello(&player.id, self.outbox.id()).await;
            if room.is_none() {
                room = cluster.seated_room(&player.id).await;
            }
        }
        self.send(&ServerMessage::Welcome {
            id,
            version: PROTOCOL_VERSION,
            player: player.info(),
            token,
            room,
            node: self.state.config().cluster_node().map(str::to_string),
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
                    Err((Unavailable::Store.code(), Unavailable::Store.message()))
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
                Err((Unavailable::Store.code(), Unavailable::Store.message()))
            }
        }
    }

    async fn find_and_enter(&mut self, id: MessageId, code: &str, last_seq: Option<u64>) {
        match self.state.lobby().find(code).await {
            Ok(Some(room)) => self.enter(room, id, last_seq).await,
            Ok(None) => match self.find_elsewhere(code).await {
                Ok(room) => self.enter(room, id, last_seq).await,
                Err((code, message)) => self.send_error(Some(id), code, message),
            },
            Err(_) => self.shutting_down(id),
        }
    }

    /// A room that another node of the cluster owns, reached through this
    /// connection.
    async fn find_elsewhere(&self, code: &str) -> Result<RoomHandle, (ErrorCode, String)> {
        let not_found = || (ErrorCode::RoomNotFound, format!("no room {code:?}"));
        let Some(cluster) = self.state.cluster() else {
            return Err(not_found());
        };
        let code = code.trim().to_ascii_uppercase();
        match cluster.locate(&code).await {
            Some((owner, true)) if owner != *cluster.node() => {
                let remote = crate::cluster::RemoteRoom::new(cluster.clone(), owner, self.outbox.id());
                Ok(RoomHandle::remote(code.into(), remote))
            }
            // Its node is gone, and another takes the room over within
            // seconds, from what is stored.
            Some((_, false)) => Err((
                ErrorCode::ServerBusy,
                "that room's server is gone; the room opens again on another within seconds: \
                 try again"
                    .into(),
            )),
            _ => Err(not_found()),
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
        let received = std::time::Instant::now();
        self.forward(
            id.clone(),
            RoomRequest::Act {
                player,
                id,
                action,
                received,
            },
        )
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
