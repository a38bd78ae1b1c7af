//! What travels between nodes: a player's request to a room of another
//! node, and a room's messages back to the player's connection.
//!
//! These are the nodes' own formats, never seen by clients; a cluster runs
//! one version of the server, so they carry no version of their own.

use std::sync::Arc;

use axum::extract::ws::Utf8Bytes;
use serde::{Deserialize, Serialize};
use spades_engine::{Action, Seat};
use spades_protocol::ws::MessageId;
use uuid::Uuid;

use crate::identity::PlayerRef;
use crate::outbox::{Batch, CloseReason, ConnectionId};
use crate::room::RoomRequest;

/// A request for a room, from a connection of another node.
#[derive(Debug, Serialize, Deserialize)]
pub struct Forwarded {
    /// The node of the connection, where the room's messages go.
    pub node: String,
    pub connection: ConnectionId,
    pub room: String,
    /// The player's account id; his name travels with `Join` and `Resync`.
    pub player: Uuid,
    pub request: Request,
}

/// The requests of [`RoomRequest`], with what cannot travel (the outbox,
/// the answer channel) left to each side.
#[derive(Debug, Serialize, Deserialize)]
pub enum Request {
    Join {
        name: String,
        id: MessageId,
    },
    Resync {
        name: String,
        id: MessageId,
        last_seq: u64,
    },
    Leave,
    Detach,
    Sit {
        id: MessageId,
        seat: Option<Seat>,
    },
    Stand {
        id: MessageId,
    },
    Start {
        id: MessageId,
    },
    AddBot {
        id: MessageId,
        seat: Option<Seat>,
    },
    RemoveBot {
        id: MessageId,
        seat: Seat,
    },
    /// The action as its stored text (`Action`'s `Display`).
    Act {
        id: MessageId,
        action: String,
    },
    Chat {
        id: MessageId,
        text: String,
    },
}

impl Request {
    /// The wire form of a room request; `None` for the requests that are
    /// sent another way (`Leave`, which waits for its answer) or that
    /// carry a local connection (`Join`, `Resync`: see
    /// [`Request::from_entry`]).
    pub fn from_room_request(request: &RoomRequest) -> Option<Request> {
        Some(match request {
            RoomRequest::Join { player, id, .. } => Request::Join {
                name: player.name.to_string(),
                id: id.clone(),
            },
            RoomRequest::Resync {
                player, id, last_seq, ..
            } => Request::Resync {
                name: player.name.to_string(),
                id: id.clone(),
                last_seq: *last_seq,
            },
            RoomRequest::Leave { .. } => return None,
            RoomRequest::Detach { .. } => Request::Detach,
            RoomRequest::Sit { id, seat, .. } => Request::Sit {
                id: id.clone(),
                seat: *seat,
            },
            RoomRequest::Stand { id, .. } => Request::Stand { id: id.clone() },
            RoomRequest::Start { id, .. } => Request::Start { id: id.clone() },
            RoomRequest::AddBot { id, seat, .. } => Request::AddBot {
                id: id.clone(),
                seat: *seat,
            },
            RoomRequest::RemoveBot { id, seat, .. } => Request::RemoveBot {
                id: id.clone(),
                seat: *seat,
            },
            RoomRequest::Act { id, action, .. } => Request::Act {
                id: id.clone(),
                action: action.to_string(),
            },
            RoomRequest::Chat { id, text, .. } => Request::Chat {
                id: id.clone(),
                text: text.clone(),
            },
        })
    }

    /// The request's id, if it has one to answer.
    pub fn id(&self) -> Option<&MessageId> {
        match self {
            Request::Join { id, .. }
            | Request::Resync { id, .. }
            | Request::Sit { id, .. }
            | Request::Stand { id }
            | Request::Start { id }
            | Request::AddBot { id, .. }
            | Request::RemoveBot { id, .. }
            | Request::Act { id, .. }
            | Request::Chat { id, .. } => Some(id),
            Request::Leave | Request::Detach => None,
        }
    }

    /// The room request for a player already in the room through
    /// `connection`; `None` for `Join`, `Resync` and `Leave`, which the
    /// owner handles itself, and for an action that does not read (which
    /// a node of the same version never sends).
    pub fn into_room_request(self, player: Arc<str>, connection: ConnectionId) -> Option<RoomRequest> {
        Some(match self {
            Request::Join { .. } | Request::Resync { .. } | Request::Leave => return None,
            Request::Detach => RoomRequest::Detach { player, connection },
            Request::Sit { id, seat } => RoomRequest::Sit { player, id, seat },
            Request::Stand { id } => RoomRequest::Stand { player, id },
            Request::Start { id } => RoomRequest::Start { player, id },
            Request::AddBot { id, seat } => RoomRequest::AddBot { player, id, seat },
            Request::RemoveBot { id, seat } => RoomRequest::RemoveBot { player, id, seat },
            Request::Act { id, action } => RoomRequest::Act {
                player,
                id,
                action: action.parse::<Action>().ok()?,
                received: std::time::Instant::now(),
            },
            Request::Chat { id, text } => RoomRequest::Chat { player, id, text },
        })
    }
}

/// The player a forwarded `Join` or `Resync` names.
pub fn player(account: Uuid, name: &str) -> PlayerRef {
    PlayerRef::new(account, name)
}

/// A room's batch for a connection of another node, or the word that the
/// room's side of the connection closed: the first byte says which
/// (`U` urgent, `L` lazy, `C` closed, followed by the close code), and the
/// messages follow, one per line. A message is compact JSON, which holds
/// no line break.
pub fn encode_batch(batch: &Batch) -> Vec<u8> {
    let size: usize = batch.messages.iter().map(|m| m.len() + 1).sum();
    let mut body = Vec::with_capacity(size + 1);
    body.push(if batch.urgent { b'U' } else { b'L' });
    for (i, message) in batch.messages.iter().enumerate() {
        if i > 0 {
            body.push(b'\n');
        }
        body.extend_from_slice(message.as_str().as_bytes());
    }
    body
}

/// The body that says the room's side closed the connection.
pub fn encode_close(reason: CloseReason) -> Vec<u8> {
    format!("C{}", reason.code()).into_bytes()
}

/// What a node receives for one of its connections.
#[derive(Debug, PartialEq)]
pub enum Outgoing {
    Batch(Batch),
    Close(CloseReason),
}

impl PartialEq for Batch {
    fn eq(&self, other: &Batch) -> bool {
        self.urgent == other.urgent && self.messages == other.messages
    }
}

/// Reads a body of [`encode_batch`] or [`encode_close`].
pub fn decode(body: &[u8]) -> Option<Outgoing> {
    let (&kind, rest) = body.split_first()?;
    let text = std::str::from_utf8(rest).ok()?;
    match kind {
        b'U' | b'L' => Some(Outgoing::Batch(Batch {
            messages: text.split('\n').map(|m| Utf8Bytes::from(m.to_string())).collect(),
            urgent: kind == b'U',
        })),
        b'C' => {
            let code: u16 = text.parse().ok()?;
            Some(Outgoing::Close(CloseReason::from_code(code)?))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_and_closes_read_back_as_written() {
        let batch = Batch {
            messages: vec!["{\"type\":\"ack\"}".into(), "{\"a\":\"b\\nc\"}".into()],
            urgent: true,
        };
        let body = encode_batch(&batch);
        assert_eq!(decode(&body), Some(Outgoing::Batch(batch)));
        let lazy = Batch {
            messages: vec!["{}".into()],
            urgent: false,
        };
        assert_eq!(decode(&encode_batch(&lazy)), Some(Outgoing::Batch(lazy)));
        assert_eq!(
            decode(&encode_close(CloseReason::TooSlow)),
            Some(Outgoing::Close(CloseReason::TooSlow))
        );
        assert_eq!(decode(b""), None);
        assert_eq!(decode(b"X{}"), None);
    }

    #[test]
    fn every_room_request_but_leave_travels_and_comes_back_the_same() {
        let player: Arc<str> = "p".into();
        let id = MessageId::Text("r1".into());
        let requests = [
            RoomRequest::Sit {
                player: player.clone(),
                id: id.clone(),
                seat: Seat::new(2),
            },
            RoomRequest::Act {
                player: player.clone(),
                id: id.clone(),
                action: Action::Play("QH".parse().unwrap()),
                received: std::time::Instant::now(),
            },
            RoomRequest::Chat {
                player: player.clone(),
                id: id.clone(),
                text: "hi".into(),
            },
        ];
        for request in requests {
            let wire = Request::from_room_request(&request).unwrap();
            let json = serde_json::to_string(&wire).unwrap();
            let back: Request = serde_json::from_str(&json).unwrap();
            let again = back.into_room_request(player.clone(), 7).unwrap();
            assert_eq!(
                format!("{:?}", strip_time(&again)),
                format!("{:?}", strip_time(&request))
            );
        }
    }

    /// The request's debug text without the time it was read, which each
    /// side takes itself.
    fn strip_time(request: &RoomRequest) -> String {
        let text = format!("{request:?}");
        match text.find(", received") {
            Some(at) => text[..at].to_string(),
            None => text,
        }
    }
}
