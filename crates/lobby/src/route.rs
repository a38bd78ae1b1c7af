//! Where what a player reaches runs: a room, the quick-play queue, the
//! tournaments, a player's other connections. The connections, the lobby,
//! the tournaments and the HTTP API ask a [`Network`] and never whether
//! there is a cluster: a server alone is a cluster of one ([`Alone`]),
//! whose every route is local, and a node of a cluster answers through
//! NATS (`spades-cluster`'s `network.rs`). The lobby holds the routes
//! because the lobby's own handle is the local route of its tables. Only
//! the place where the server is assembled (`spades-server`'s `lib.rs`)
//! chooses which network.

use std::fmt;
use std::sync::Arc;

use spades_protocol::ws::{ErrorCode, MessageId, RoomSummary};
use spades_room::Text;
use uuid::Uuid;

use super::{LobbyHandle, Table as QuickPlayTable, TournamentTable};
use crate::matchmaking::Entry;
use spades_room::PlayerRef;
use spades_room::outbox::{ConnectionId, Outbox};
use spades_room::{Answer, RoomHandle};

/// Why a request could not be routed: the error code and the sentence for
/// the client.
pub type Unrouted = (ErrorCode, String);

/// What a node's lobby tells the other nodes of its own rooms and players.
#[derive(Debug)]
pub enum RegistryNote {
    /// A room opened here, or changed; `summary` is `None` for a private
    /// room.
    Room {
        code: Arc<str>,
        summary: Option<RoomSummary>,
        playing: bool,
    },
    Closed {
        code: Arc<str>,
    },
    Seated {
        player: Arc<str>,
        code: Arc<str>,
    },
    Unseated {
        player: Arc<str>,
        code: Arc<str>,
    },
}

/// Where a player is beyond this node, for his friends' lists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Whereabouts {
    pub online: bool,
    pub room: Option<String>,
}

/// The nodes a server works among, and how each kind of request reaches
/// the one that serves it.
pub trait Network: Send + Sync + fmt::Debug {
    // Players.

    /// A player said hello on `connection`: his connections on other nodes
    /// are replaced, and the answer is the room of another node where he
    /// holds a seat, if any.
    fn hello<'a>(&'a self, player: &'a str, connection: ConnectionId) -> Answer<'a, Option<String>>;

    /// Counts a login attempt on the other nodes too, so that the login
    /// limits hold wherever a guesser connects.
    fn share_login<'a>(&'a self, attempt: &'a SharedAttempt) -> Answer<'a, ()>;

    /// Tells the other nodes of a moderator's or administrator's action
    /// that this node has acted on, so that they act on it too.
    fn share_moderation<'a>(&'a self, event: &'a crate::ModerationEvent) -> Answer<'a, ()>;

    /// Sends a message to a player's connection, wherever it is; `here`
    /// are this node's own connections.
    fn notify<'a>(&'a self, here: &'a crate::Online, player: &'a str, message: Text) -> Answer<'a, ()>;

    // Rooms.

    /// Where each of `players` is beyond this node: whether he has a
    /// connection on another node, and the room where he holds a seat if
    /// another node plays it.
    fn whereabouts<'a>(&'a self, players: &'a [String]) -> Answer<'a, Vec<Whereabouts>>;

    /// Whether a room of another node has `code`, as far as this node
    /// knows.
    fn is_code_taken(&self, code: &str) -> bool;

    /// Tells the other nodes of a change of this node's rooms or seats.
    fn note(&self, note: RegistryNote);

    /// Claims a room's code for this node before it opens the room, so
    /// that no two nodes play one room; false when another holds it.
    fn claim<'a>(&'a self, code: &'a str) -> Answer<'a, bool>;

    /// The room `code` of another node, reached through `connection`; or
    /// why it cannot be reached.
    fn find_room<'a>(
        &'a self,
        code: &'a str,
        connection: ConnectionId,
    ) -> Answer<'a, Result<RoomHandle, Unrouted>>;

    // Quick play.

    /// Where a player's queue is: `None` for this node's own lobby,
    /// otherwise the node that keeps it; or why he cannot queue now.
    fn queue_node<'a>(&'a self, player: &'a str) -> Answer<'a, Result<Option<Arc<str>>, Unrouted>>;

    /// Queues a player of this node in the queue of `node`.
    fn queue_at<'a>(
        &'a self,
        node: &'a str,
        entry: Entry,
        id: MessageId,
        outbox: Outbox,
    ) -> Answer<'a, Result<(), Unrouted>>;

    /// Takes a player out of the queue of `node`; says whether he was in it.
    fn leave_queue_at<'a>(&'a self, node: &'a str, player: &'a PlayerRef) -> Answer<'a, bool>;

    /// Tells the queue of `node` that a queued player's connection closed.
    fn disconnected_at<'a>(
        &'a self,
        node: &'a str,
        player: &'a PlayerRef,
        connection: ConnectionId,
    ) -> Answer<'a, ()>;

    /// Places a table the queue made: hands it back to open here, or opens
    /// it on a less loaded node (which gives it back to `lobby` if it
    /// cannot).
    fn place_table(&self, table: QuickPlayTable, lobby: &LobbyHandle) -> Option<QuickPlayTable>;

    // Tournaments.

    /// Whether this node runs the tournaments now.
    fn runs_tournaments(&self) -> Answer<'_, bool>;

    /// Has the other nodes show a tournament's new state to its watchers.
    fn tournament_changed(&self, tournament: Uuid) -> Answer<'_, ()>;

    /// Opens a tournament table on the least loaded node; false when it was
    /// not opened (it is open already, or no game can start now).
    fn open_tournament_table<'a>(
        &'a self,
        table: TournamentTable,
        lobby: &'a LobbyHandle,
    ) -> Answer<'a, bool>;
}

/// A server alone: every route is local.
#[derive(Debug, Default)]
pub struct Alone;

impl Network for Alone {
    fn hello<'a>(&'a self, _: &'a str, _: ConnectionId) -> Answer<'a, Option<String>> {
        Box::pin(async { None })
    }

    fn share_login<'a>(&'a self, _: &'a SharedAttempt) -> Answer<'a, ()> {
        Box::pin(async {})
    }

    fn share_moderation<'a>(&'a self, _: &'a crate::ModerationEvent) -> Answer<'a, ()> {
        Box::pin(async {})
    }

    fn notify<'a>(&'a self, here: &'a crate::Online, player: &'a str, message: Text) -> Answer<'a, ()> {
        here.send(player, message);
        Box::pin(async {})
    }

    fn whereabouts<'a>(&'a self, players: &'a [String]) -> Answer<'a, Vec<Whereabouts>> {
        Box::pin(std::future::ready(vec![Whereabouts::default(); players.len()]))
    }

    fn is_code_taken(&self, _: &str) -> bool {
        false
    }

    fn note(&self, _: RegistryNote) {}

    fn claim<'a>(&'a self, _: &'a str) -> Answer<'a, bool> {
        Box::pin(async { true })
    }

    fn find_room<'a>(&'a self, code: &'a str, _: ConnectionId) -> Answer<'a, Result<RoomHandle, Unrouted>> {
        Box::pin(async move { Err((ErrorCode::RoomNotFound, format!("no room {code:?}"))) })
    }

    fn queue_node<'a>(&'a self, _: &'a str) -> Answer<'a, Result<Option<Arc<str>>, Unrouted>> {
        Box::pin(async { Ok(None) })
    }

    fn queue_at<'a>(
        &'a self,
        _: &'a str,
        _: Entry,
        _: MessageId,
        _: Outbox,
    ) -> Answer<'a, Result<(), Unrouted>> {
        Box::pin(async {
            Err((
                ErrorCode::ServerBusy,
                "the quick-play queue cannot be reached now; try again".into(),
            ))
        })
    }

    fn leave_queue_at<'a>(&'a self, _: &'a str, _: &'a PlayerRef) -> Answer<'a, bool> {
        Box::pin(async { false })
    }

    fn disconnected_at<'a>(&'a self, _: &'a str, _: &'a PlayerRef, _: ConnectionId) -> Answer<'a, ()> {
        Box::pin(async {})
    }

    fn place_table(&self, table: QuickPlayTable, _: &LobbyHandle) -> Option<QuickPlayTable> {
        Some(table)
    }

    fn runs_tournaments(&self) -> Answer<'_, bool> {
        Box::pin(async { true })
    }

    fn tournament_changed(&self, _: Uuid) -> Answer<'_, ()> {
        Box::pin(async {})
    }

    fn open_tournament_table<'a>(
        &'a self,
        table: TournamentTable,
        lobby: &'a LobbyHandle,
    ) -> Answer<'a, bool> {
        Box::pin(async move { lobby.open_tournament_table(table).await.unwrap_or(false) })
    }
}

/// A login's outcome as the nodes of a cluster tell each other of it, so
/// that the limits hold across nodes: a failure is counted, a success
/// forgives the name's failures from its address and makes the address
/// known to the name. An attempt whose password was not checked is not
/// told.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct SharedAttempt {
    /// The SHA-256 of the lowercase name, as the login limiter keeps it.
    pub name: [u8; 32],
    /// The counted part of the client's address.
    pub address: Option<std::net::IpAddr>,
    pub succeeded: bool,
}
