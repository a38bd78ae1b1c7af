//! The WebSocket protocol: every message a client sends and every message the
//! server sends, as described in `protocol.md`.
//!
//! Every message is one JSON object in one text frame, with a `type`. Client
//! messages carry an `id`, which the server's reply echoes. Events of a room
//! carry the room's code and an increasing `seq`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

mod client;
pub mod event;
mod server;
#[cfg(test)]
mod tests;

pub use client::*;
pub use server::*;

/// The protocol version this build speaks. A client names the version it
/// speaks in `hello`; the server refuses any other.
pub const PROTOCOL_VERSION: u32 = 1;

/// The largest text frame the server reads as a message, in bytes. Larger
/// frames, up to [`HARD_FRAME_LIMIT`], are answered with `frame_too_large`.
pub const MAX_FRAME_BYTES: usize = 4096;

/// Frames above this size are not read at all: the connection is closed
/// with WebSocket status 1009 (message too big).
pub const HARD_FRAME_LIMIT: usize = 64 * 1024;

/// The longest chat message, in characters.
pub const MAX_CHAT_CHARS: usize = 300;

/// The longest display name, in characters.
pub const MAX_NAME_CHARS: usize = 24;

/// The identifier a client gives a message, echoed in the reply: a number or
/// a short string.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum MessageId {
    Number(u64),
    Text(String),
}

impl MessageId {
    /// The longest string id the server accepts, in characters.
    pub const MAX_LEN: usize = 64;

    pub fn is_valid(&self) -> bool {
        match self {
            MessageId::Number(_) => true,
            MessageId::Text(text) => text.chars().count() <= MessageId::MAX_LEN,
        }
    }
}

impl From<u64> for MessageId {
    fn from(number: u64) -> MessageId {
        MessageId::Number(number)
    }
}
