//! What travels between nodes: a player's request to a room of another
//! node, and a room's messages back to the player's connection.
//!
//! These are the nodes' own formats, never seen by clients; a cluster runs
//! one version of the server, so they carry no version of their own.

use serde::{Deserialize, Serialize};
use spades_protocol::ws::MessageId;
use spades_room::Text;
use uuid::Uuid;

use spades_room::PlayerRef;
use spades_room::outbox::{Batch, CloseReason, ConnectionId};
use spades_room::{RoomCommand, RoomRequest};

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
/// the answer channel) left to each side. A room's command travels as it
/// is: the same value the connection made reaches the owner's room.
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
    Command {
        id: MessageId,
        command: RoomCommand,
    },
}

impl Request {
    /// The wire form of a room request; `None` for `Leave`, which is sent
    /// another way since it waits for its answer.
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
            RoomRequest::Leave { .. } | RoomRequest::End { .. } => return None,
            RoomRequest::Detach { .. } => Request::Detach,
            RoomRequest::Command { id, command, .. } => Request::Command {
                id: id.clone(),
                command: command.clone(),
            },
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
        body.extend_from_slice(message.as_bytes());
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

/// Reads a body of [`encode_batch`] or [`encode_close`].
pub fn decode(body: &[u8]) -> Option<Outgoing> {
    let (&kind, rest) = body.split_first()?;
    let text = std::str::from_utf8(rest).ok()?;
    match kind {
        b'U' | b'L' => Some(Outgoing::Batch(Batch {
            messages: text.split('\n').map(Text::from).collect(),
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
    fn a_room_command_travels_unchanged() {
        let id = MessageId::Text("r1".into());
        let commands = [
            RoomCommand::Sit {
                seat: spades_engine::Seat::new(2),
            },
            RoomCommand::Act {
                action: spades_engine::Action::Play("QH".parse().unwrap()),
            },
            RoomCommand::Chat { text: "hi".into() },
            // A bot's level for one seat reaches the node that owns the room.
            RoomCommand::AddBot {
                seat: spades_engine::Seat::new(3),
                level: Some(spades_protocol::ws::BotLevel::Expert),
            },
        ];
        for command in commands {
            let request = RoomRequest::Command {
                player: "p".into(),
                id: id.clone(),
                command: command.clone(),
                received: std::time::Instant::now(),
            };
            let wire = Request::from_room_request(&request).unwrap();
            let json = serde_json::to_string(&wire).unwrap();
            let Request::Command {
                id: same_id,
                command: same,
            } = serde_json::from_str(&json).unwrap()
            else {
                panic!("{json} did not come back as a command");
            };
            assert_eq!((same_id, same), (id.clone(), command));
        }
    }
}
