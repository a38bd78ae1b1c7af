//! One WebSocket connection: a reader that parses, checks and routes what
//! the client sends, and a writer that drains the connection's outbox.
//!
//! The two loops are written over `Stream` and `Sink` so that tests can
//! drive them with channels; the server runs them over a real socket. This
//! file is the reader, the player's session and the dispatch of each
//! message to its command; the commands live by family in `hello.rs`,
//! `watch.rs`, `rooms.rs` and `queue.rs`. `link.rs` is the writer and the
//! keepalive; `rate_limit.rs` the limit on what a client sends.

use std::time::Duration;

use axum::extract::ws::Message;
use futures_util::{Sink, Stream};
use spades_protocol::read::read_client_message;
use spades_protocol::ws::{ClientMessage, ErrorCode, MAX_FRAME_BYTES, MessageId, ServerMessage};
use spades_room::Text;

use crate::AppState;
use crate::admission::ConnectionSlot;
use spades_room::PlayerRef;
use spades_room::outbox::{self, CloseReason, Outbox};
use spades_room::unavailable::Unavailable;
use spades_room::{RoomHandle, RoomRequest};

mod command;
mod hello;
mod invite;
mod link;
mod queue;
mod rate_limit;
mod rooms;
mod upgrade;
mod watch;

pub(crate) use upgrade::upgrade;

#[cfg(test)]
mod tests;

use command::Command;
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
    /// When the connection's recent invitations were sent.
    invites_sent: Vec<std::time::Instant>,
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
            invites_sent: Vec::new(),
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
            match &self.queue_node {
                Some(node) => {
                    let network = self.state.network();
                    network.disconnected_at(node, &player, self.outbox.id()).await;
                }
                None => {
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
        self.outbox.send(Text::from(message.to_json()));
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

    /// Reads a message into its command and hands it to the handler of
    /// its family: the connection's own (`hello.rs`), the lobby's
    /// (`rooms.rs`), the room's (`rooms.rs`), the quick-play queue's
    /// (`queue.rs`) or the tournaments' (`watch.rs`).
    async fn dispatch(&mut self, message: ClientMessage) {
        let (id, command) = Command::read(message);
        let Some(player) = self.player.clone() else {
            return match command {
                Ok(Command::Hello { version, name, token }) => self.hello(id, version, name, token).await,
                _ => self.send_error(Some(id), ErrorCode::HelloFirst, "the first message must be hello"),
            };
        };
        let command = match command {
            Ok(command) => command,
            Err((code, message)) => return self.send_error(Some(id), code, message),
        };
        match command {
            Command::Hello { .. } => self.send_error(
                Some(id),
                ErrorCode::AlreadyHello,
                "this connection has already said hello",
            ),
            Command::Ping => self.send(&ServerMessage::Pong { id }),
            Command::Lobby(command) => self.lobby_command(id, &player, command).await,
            Command::Room(command) => self.room_command(id, &player, command).await,
            Command::Queue(command) => self.queue_command(id, player, command).await,
            Command::Tournament(command) => self.tournament_command(id, command).await,
            Command::Invite {
                player: friend,
                to,
                rules,
            } => self.invite(id, &player, friend, to, rules).await,
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
