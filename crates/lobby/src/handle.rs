//! What a connection, the tournament runner or the start of the server can
//! ask the lobby, and the handle they ask it through.

use std::sync::Arc;

use spades_engine::RuleSet;
use spades_protocol::ws::{BotLevel, ErrorCode, MessageId, RoomSummary, TableSpeed};
use spades_store::TableLink;
use tokio::sync::{mpsc, oneshot};

use crate::matchmaking;
use spades_room::PlayerRef;
use spades_room::outbox::{ConnectionId, Outbox};
use spades_room::unavailable::Unavailable;
use spades_room::{self as room, RoomHandle};

/// What a connection can ask the lobby.
#[derive(Debug)]
pub(super) enum LobbyRequest {
    Create {
        room: NewRoom,
        reply: oneshot::Sender<Result<RoomHandle, Unavailable>>,
    },
    Find {
        code: String,
        reply: oneshot::Sender<Option<RoomHandle>>,
    },
    List {
        reply: oneshot::Sender<Vec<RoomSummary>>,
    },
    Watch {
        outbox: Outbox,
    },
    Unwatch {
        connection: ConnectionId,
    },
    /// The room where a player holds a seat, if any.
    SeatedRoom {
        player: Arc<str>,
        reply: oneshot::Sender<Option<String>>,
    },
    /// Puts a player in the quick-play queue. The lobby itself sends the
    /// `queued` reply to `id`, so that it goes out before any `matched`.
    Queue {
        entry: matchmaking::Entry,
        id: MessageId,
        outbox: Outbox,
        reply: oneshot::Sender<Result<(), (ErrorCode, &'static str)>>,
    },
    /// Takes a player out of the queue; the answer says whether he was in it.
    LeaveQueue {
        player: Arc<str>,
        reply: oneshot::Sender<bool>,
    },
    /// A player's connection closed: he leaves the queue if he waited on it.
    Disconnected {
        player: Arc<str>,
        connection: ConnectionId,
    },
    /// Opens a tournament table under the code the tournament chose for it
    /// and starts its game; the answer is false when it was not opened: a
    /// room with that code is open already (the table is being played), or
    /// no game can start now.
    OpenTournamentTable {
        table: Box<TournamentTable>,
        reply: oneshot::Sender<bool>,
    },
    /// Opens, on this node, a table that the cluster's quick-play queue
    /// made, and tells its players; false if a room has its code already.
    OpenTable {
        table: Box<super::Table>,
        reply: oneshot::Sender<bool>,
    },
    /// Reopens a room around a game that was being played when the server
    /// stopped.
    Resume {
        settings: room::Settings,
        game: Box<room::Resumed>,
        reply: oneshot::Sender<()>,
    },
}

/// A room a player asks to open, empty but for him, under a code the lobby
/// chooses.
#[derive(Debug)]
pub struct NewRoom {
    pub owner: PlayerRef,
    pub name: String,
    pub rules: RuleSet,
    pub private: bool,
    pub bots: BotLevel,
    /// Whether its games count for the ratings; the caller has checked
    /// that a private room is not rated.
    pub rated: bool,
    pub speed: TableSpeed,
}

/// A tournament table to open.
#[derive(Debug)]
pub struct TournamentTable {
    pub code: Arc<str>,
    pub name: String,
    pub rules: RuleSet,
    pub link: TableLink,
    pub players: [PlayerRef; 4],
    /// The seed every table of a duplicate round deals from; `None` for a
    /// fresh one.
    pub deal_seed: Option<u64>,
}

/// The lobby's address. Cheap to clone.
#[derive(Clone, Debug)]
pub struct LobbyHandle {
    pub(super) requests: mpsc::Sender<LobbyRequest>,
    /// Where rooms, and the cluster, report to the lobby.
    pub(super) notes: mpsc::UnboundedSender<room::LobbyNote>,
}

/// The lobby stopped; only during shutdown.
#[derive(Debug)]
pub struct LobbyGone;

impl From<LobbyGone> for Unavailable {
    fn from(_: LobbyGone) -> Unavailable {
        Unavailable::ShuttingDown
    }
}

impl LobbyHandle {
    async fn ask<T>(&self, make: impl FnOnce(oneshot::Sender<T>) -> LobbyRequest) -> Result<T, LobbyGone> {
        let (reply, answer) = oneshot::channel();
        self.requests.send(make(reply)).await.map_err(|_| LobbyGone)?;
        answer.await.map_err(|_| LobbyGone)
    }

    /// Sends a request that has no answer.
    async fn tell(&self, request: LobbyRequest) -> Result<(), LobbyGone> {
        self.requests.send(request).await.map_err(|_| LobbyGone)
    }

    pub async fn create(&self, room: NewRoom) -> Result<RoomHandle, Unavailable> {
        self.ask(|reply| LobbyRequest::Create { room, reply }).await?
    }

    /// Where the cluster tells the lobby of the other nodes' rooms.
    pub fn notes(&self) -> mpsc::UnboundedSender<room::LobbyNote> {
        self.notes.clone()
    }

    pub async fn find(&self, code: &str) -> Result<Option<RoomHandle>, LobbyGone> {
        let code = code.trim().to_ascii_uppercase();
        self.ask(|reply| LobbyRequest::Find { code, reply }).await
    }

    pub async fn list(&self) -> Result<Vec<RoomSummary>, LobbyGone> {
        self.ask(|reply| LobbyRequest::List { reply }).await
    }

    pub async fn seated_room(&self, player: Arc<str>) -> Result<Option<String>, LobbyGone> {
        self.ask(|reply| LobbyRequest::SeatedRoom { player, reply }).await
    }

    pub async fn resume(&self, settings: room::Settings, game: room::Resumed) -> Result<(), LobbyGone> {
        self.ask(|reply| LobbyRequest::Resume {
            settings,
            game: Box::new(game),
            reply,
        })
        .await
    }

    pub async fn open_tournament_table(&self, table: TournamentTable) -> Result<bool, LobbyGone> {
        self.ask(|reply| LobbyRequest::OpenTournamentTable {
            table: Box::new(table),
            reply,
        })
        .await
    }

    pub async fn open_table_here(&self, table: super::Table) -> Result<bool, LobbyGone> {
        self.ask(|reply| LobbyRequest::OpenTable {
            table: Box::new(table),
            reply,
        })
        .await
    }

    pub async fn queue(
        &self,
        entry: matchmaking::Entry,
        id: MessageId,
        outbox: Outbox,
    ) -> Result<Result<(), (ErrorCode, &'static str)>, LobbyGone> {
        self.ask(|reply| LobbyRequest::Queue {
            entry,
            id,
            outbox,
            reply,
        })
        .await
    }

    pub async fn leave_queue(&self, player: Arc<str>) -> Result<bool, LobbyGone> {
        self.ask(|reply| LobbyRequest::LeaveQueue { player, reply }).await
    }

    pub async fn disconnected(&self, player: Arc<str>, connection: ConnectionId) -> Result<(), LobbyGone> {
        self.tell(LobbyRequest::Disconnected { player, connection }).await
    }

    pub async fn watch(&self, outbox: Outbox) -> Result<(), LobbyGone> {
        self.tell(LobbyRequest::Watch { outbox }).await
    }

    pub async fn unwatch(&self, connection: ConnectionId) -> Result<(), LobbyGone> {
        self.tell(LobbyRequest::Unwatch { connection }).await
    }
}
