//! A room's address and what travels to and from it: the requests a
//! connection makes of it, and the notes it sends the lobby and the
//! tournaments.

use std::sync::Arc;
use std::time::Duration;

use spades_protocol::ws::{MessageId, RoomSummary};
use spades_store::TableLink;
use tokio::sync::{mpsc, oneshot};

use super::RoomCommand;
use crate::PlayerRef;
use crate::outbox::{ConnectionId, Outbox};

/// A future a route answers with: the way a room of another node, and
/// every route of `spades_lobby::Network`, answers.
pub type Answer<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// The longest a connection waits for a room it leaves to let go of it.
const LEAVE_WAIT: Duration = Duration::from_secs(5);

/// What a connection asks of a room on behalf of its player.
#[derive(Debug)]
pub enum RoomRequest {
    /// Enter the room (as a spectator, or back into one's seat).
    Join {
        player: PlayerRef,
        outbox: Outbox,
        id: MessageId,
    },
    /// Come back after a lost connection and get the events missed since
    /// `last_seq`.
    Resync {
        player: PlayerRef,
        outbox: Outbox,
        id: MessageId,
        last_seq: u64,
    },
    /// Leave the room. `left` is answered once the room has let go of the
    /// player's connection: it sends him nothing after that.
    Leave {
        player: Arc<str>,
        left: oneshot::Sender<()>,
    },
    /// The player's connection is gone.
    Detach {
        player: Arc<str>,
        connection: ConnectionId,
    },
    /// A moderator ends the room: its game, if any, stops without counting
    /// for anyone, and everyone in it is told `reason` and sent away.
    End { reason: String },
    /// A command of a player in the room, to answer under `id`.
    Command {
        player: Arc<str>,
        id: MessageId,
        command: RoomCommand,
        /// When the player's connection read it, for the metrics.
        received: std::time::Instant,
    },
}

/// What rooms (and, in a cluster, the registry of the other nodes'
/// rooms) tell the lobby.
#[derive(Debug)]
pub enum LobbyNote {
    Changed {
        summary: Box<RoomSummary>,
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
    /// A public room of another node opened or changed.
    Elsewhere {
        summary: Box<RoomSummary>,
    },
    /// A room of another node closed or became private.
    GoneElsewhere {
        code: Arc<str>,
    },
}

/// What a tournament table tells the tournament, once the write behind it
/// is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableNote {
    /// The table's game has started (and is linked to the table).
    Started(TableLink),
    /// The table's game is over and its result is stored.
    Finished(TableLink),
}

/// A room's address. Cheap to clone; the room lives on while it has members
/// or a game, whoever holds handles.
#[derive(Clone, Debug)]
pub struct RoomHandle {
    pub(super) code: Arc<str>,
    pub(super) route: Route,
}

/// How requests reach the room.
#[derive(Clone, Debug)]
pub(super) enum Route {
    /// Its task runs on this node. Requests travel boxed: the channel
    /// keeps two blocks of 32 slots for each room for its whole life, and
    /// a slot the size of the largest request would make those blocks
    /// about 6 KiB a room where pointers make them half a KiB.
    Local(mpsc::Sender<Box<RoomRequest>>),
    /// Another node runs it, for one connection of this node.
    Remote(Arc<dyn RemoteRoute>),
}

/// The way to a room that another node runs, for one connection of this
/// node (the cluster's `RemoteRoom`).
pub trait RemoteRoute: Send + Sync + std::fmt::Debug {
    /// Hands the room a request.
    fn send<'a>(&'a self, room: &'a str, request: RoomRequest) -> Answer<'a, Result<(), RoomGone>>;

    /// Takes the player out of the room and waits until the room has let
    /// go of his connection.
    fn leave<'a>(&'a self, room: &'a str, player: &'a str) -> Answer<'a, Result<(), RoomGone>>;
}

/// The room has closed.
#[derive(Debug)]
pub struct RoomGone;

impl RoomHandle {
    pub fn code(&self) -> &Arc<str> {
        &self.code
    }

    /// Whether the room's task runs on this node.
    pub fn is_local(&self) -> bool {
        matches!(self.route, Route::Local(_))
    }

    /// The handle through which a connection reaches a room that another
    /// node owns.
    pub fn remote(code: Arc<str>, remote: Arc<dyn RemoteRoute>) -> RoomHandle {
        RoomHandle {
            code,
            route: Route::Remote(remote),
        }
    }

    pub async fn send(&self, request: RoomRequest) -> Result<(), RoomGone> {
        match &self.route {
            Route::Local(requests) => requests.send(Box::new(request)).await.map_err(|_| RoomGone),
            Route::Remote(remote) => remote.send(&self.code, request).await,
        }
    }

    /// Takes the player out of the room and waits until the room has let
    /// go of his connection, so that nothing of this room reaches it
    /// after whatever the connection does next.
    ///
    /// A room answers within microseconds, unless it is still opening
    /// while the store is down; the wait is bounded so that the connection
    /// is not held for the length of an outage.
    pub async fn leave(&self, player: Arc<str>) -> Result<(), RoomGone> {
        if let Route::Remote(remote) = &self.route {
            return remote.leave(&self.code, &player).await;
        }
        let (left, done) = oneshot::channel();
        self.send(RoomRequest::Leave { player, left }).await?;
        match tokio::time::timeout(LEAVE_WAIT, done).await {
            Ok(answer) => answer.map_err(|_| RoomGone),
            Err(_) => Ok(()),
        }
    }
}
