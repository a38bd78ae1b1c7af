//! A client of the Spades WebSocket protocol: a connection that sends
//! `ClientMessage`s and receives `ServerMessage`s, and a table tracker that
//! keeps what one seat knows from the events it has seen.
//!
//! The load test, the `bot` command and the end-to-end tests all use it,
//! which also proves that the protocol is enough to play.

pub mod table;

use std::collections::VecDeque;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use spades_protocol::ws::{ClientMessage, MessageId, PROTOCOL_VERSION, ServerMessage};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub use table::TableState;

/// What can go wrong on the client side.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("WebSocket: {0}")]
    WebSocket(#[from] tokio_tungstenite::tungstenite::Error),
    #[error("I/O: {0}")]
    Io(#[from] std::io::Error),
    #[error("the server sent something that is not a protocol message: {0}")]
    Protocol(String),
    #[error("the connection closed")]
    Closed,
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    #[error("the server refused: {code:?}: {message}")]
    Refused {
        code: spades_protocol::ws::ErrorCode,
        message: String,
    },
}

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// One connection to a server.
#[derive(Debug)]
pub struct Client {
    socket: Socket,
    next_id: u64,
    /// Messages received while waiting for a particular reply.
    pending: VecDeque<ServerMessage>,
    /// How long `recv` and `request` wait before giving up.
    pub timeout: Duration,
    traffic: Traffic,
}

/// Text frames a connection has sent and received, and their size on the
/// wire (payload and WebSocket header), for the load test's figures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    pub frames_sent: u64,
    pub bytes_sent: u64,
    pub frames_received: u64,
    pub bytes_received: u64,
}

impl std::ops::Sub for Traffic {
    type Output = Traffic;

    fn sub(self, earlier: Traffic) -> Traffic {
        Traffic {
            frames_sent: self.frames_sent - earlier.frames_sent,
            bytes_sent: self.bytes_sent - earlier.bytes_sent,
            frames_received: self.frames_received - earlier.frames_received,
            bytes_received: self.bytes_received - earlier.bytes_received,
        }
    }
}

/// The size on the wire of a frame with `payload` bytes: two bytes of
/// header, a longer length when it does not fit in seven bits, and the
/// four-byte mask that every frame from a client carries.
pub fn frame_size(payload: usize, masked: bool) -> u64 {
    let length = match payload {
        0..=125 => 0,
        126..=65_535 => 2,
        _ => 8,
    };
    (2 + length + if masked { 4 } else { 0 } + payload) as u64
}

/// Small buffers: a client holds many connections in the load test.
fn config() -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(4 * 1024)
        .write_buffer_size(0)
}

impl Client {
    /// Connects to a `ws://` address.
    pub async fn connect(url: &str) -> Result<Client, ClientError> {
        let (socket, _) = tokio_tungstenite::connect_async_with_config(url, Some(config()), true).await?;
        Ok(Client::from_socket(socket))
    }

    /// Connects over a TCP stream the caller has set up (for example with a
    /// small receive buffer).
    pub async fn connect_over(url: &str, stream: TcpStream) -> Result<Client, ClientError> {
        let (socket, _) =
            tokio_tungstenite::client_async_with_config(url, MaybeTlsStream::Plain(stream), Some(config()))
                .await?;
        Ok(Client::from_socket(socket))
    }

    fn from_socket(socket: Socket) -> Client {
        Client {
            socket,
            next_id: 1,
            pending: VecDeque::new(),
            timeout: Duration::from_secs(10),
            traffic: Traffic::default(),
        }
    }

    /// A fresh message id.
    pub fn next_id(&mut self) -> MessageId {
        let id = self.next_id;
        self.next_id += 1;
        MessageId::Number(id)
    }

    /// Continues the numbering of `previous`, so that the ids of a player's
    /// actions stay unique across reconnects (the server treats a repeated
    /// id as a retry).
    pub fn continue_ids(&mut self, previous: &Client) {
        self.next_id = self.next_id.max(previous.next_id);
    }

    pub async fn send(&mut self, message: &ClientMessage) -> Result<(), ClientError> {
        self.send_text(message.to_json()).await
    }

    /// Sends any text frame, well-formed or not.
    pub async fn send_text(&mut self, text: String) -> Result<(), ClientError> {
        let size = frame_size(text.len(), true);
        self.socket.send(Message::Text(text.into())).await?;
        self.traffic.frames_sent += 1;
        self.traffic.bytes_sent += size;
        Ok(())
    }

    /// The text frames sent and received so far.
    pub fn traffic(&self) -> Traffic {
        self.traffic
    }

    /// The next message, waiting at most `timeout`.
    pub async fn recv(&mut self) -> Result<ServerMessage, ClientError> {
        if let Some(message) = self.pending.pop_front() {
            return Ok(message);
        }
        self.recv_wire(self.timeout).await
    }

    /// The next message, however long it takes.
    pub async fn next_message(&mut self) -> Result<ServerMessage, ClientError> {
        if let Some(message) = self.pending.pop_front() {
            return Ok(message);
        }
        loop {
            match self.socket.next().await {
                Some(Ok(frame)) => {
                    if let Some(message) = self.parse(frame)? {
                        return Ok(message);
                    }
                }
                Some(Err(error)) => return Err(error.into()),
                None => return Err(ClientError::Closed),
            }
        }
    }

    /// The next message if one arrives within `wait`.
    pub async fn try_recv(&mut self, wait: Duration) -> Result<Option<ServerMessage>, ClientError> {
        if let Some(message) = self.pending.pop_front() {
            return Ok(Some(message));
        }
        match self.recv_wire(wait).await {
            Ok(message) => Ok(Some(message)),
            Err(ClientError::Timeout(_)) => Ok(None),
            Err(error) => Err(error),
        }
    }

    async fn recv_wire(&mut self, wait: Duration) -> Result<ServerMessage, ClientError> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let frame = tokio::time::timeout_at(deadline, self.socket.next())
                .await
                .map_err(|_| ClientError::Timeout(wait))?;
            match frame {
                None => return Err(ClientError::Closed),
                Some(Err(error)) => return Err(error.into()),
                Some(Ok(frame)) => {
                    if let Some(message) = self.parse(frame)? {
                        return Ok(message);
                    }
                }
            }
        }
    }

    /// Sends a request built with a fresh id and waits for the reply that
    /// echoes it; other messages that arrive meanwhile are kept, in order,
    /// for `recv`. An `error` reply becomes `ClientError::Refused`.
    pub async fn request(
        &mut self,
        make: impl FnOnce(MessageId) -> ClientMessage,
    ) -> Result<ServerMessage, ClientError> {
        let id = self.next_id();
        self.send(&make(id.clone())).await?;
        self.reply_to(&id).await
    }

    /// Waits for the reply to `id`, keeping other messages for `recv`.
    pub async fn reply_to(&mut self, id: &MessageId) -> Result<ServerMessage, ClientError> {
        let mut skipped = VecDeque::new();
        let result = loop {
            match self.recv_wire(self.timeout).await {
                Ok(message) if reply_id(&message) == Some(id) => break Ok(message),
                Ok(message) => skipped.push_back(message),
                Err(error) => break Err(error),
            }
        };
        skipped.extend(self.pending.drain(..));
        self.pending = skipped;
        match result? {
            ServerMessage::Error { code, message, .. } => Err(ClientError::Refused { code, message }),
            reply => Ok(reply),
        }
    }

    /// Takes the messages kept while waiting for a reply, oldest first.
    pub fn take_pending(&mut self) -> Vec<ServerMessage> {
        self.pending.drain(..).collect()
    }

    /// Says hello as a new guest; returns the welcome.
    pub async fn hello(&mut self, name: &str) -> Result<ServerMessage, ClientError> {
        let name = name.to_string();
        self.request(|id| ClientMessage::Hello {
            id,
            version: PROTOCOL_VERSION,
            name: Some(name),
            token: None,
        })
        .await
    }

    /// Says hello with a token from an earlier welcome.
    pub async fn hello_again(&mut self, token: &str) -> Result<ServerMessage, ClientError> {
        let token = token.to_string();
        self.request(|id| ClientMessage::Hello {
            id,
            version: PROTOCOL_VERSION,
            name: None,
            token: Some(token),
        })
        .await
    }

    /// Closes the connection politely.
    pub async fn close(mut self) {
        let _ = self.socket.close(None).await;
    }
}

impl Client {
    /// The message a frame carries, counted; `None` for the frames that
    /// carry none (pings and pongs).
    fn parse(&mut self, frame: Message) -> Result<Option<ServerMessage>, ClientError> {
        match frame {
            Message::Text(text) => {
                self.traffic.frames_received += 1;
                self.traffic.bytes_received += frame_size(text.len(), false);
                serde_json::from_str(text.as_str())
                    .map(Some)
                    .map_err(|error| ClientError::Protocol(format!("{error}: {}", text.as_str())))
            }
            Message::Close(_) => Err(ClientError::Closed),
            _ => Ok(None),
        }
    }
}

/// The id a server message answers, if it is a reply.
pub fn reply_id(message: &ServerMessage) -> Option<&MessageId> {
    match message {
        ServerMessage::Welcome { id, .. }
        | ServerMessage::Pong { id }
        | ServerMessage::Ack { id, .. }
        | ServerMessage::Rooms { id, .. }
        | ServerMessage::Queued { id, .. } => Some(id),
        ServerMessage::Error { id, .. }
        | ServerMessage::Snapshot { id, .. }
        | ServerMessage::Tournament { id, .. } => id.as_ref(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::frame_size;

    #[test]
    fn frame_sizes_count_the_header_and_the_mask() {
        assert_eq!(frame_size(41, true), 47);
        assert_eq!(frame_size(125, false), 127);
        assert_eq!(frame_size(430, false), 434);
        assert_eq!(frame_size(70_000, true), 70_014);
    }
}
