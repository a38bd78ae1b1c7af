//! What sits between the connections and the rooms: the lobby, quick
//! play and the tournaments, with the routes that reach them wherever
//! they run.
//!
//! The lobby is one actor task: the registry of open rooms, the public
//! room list with its live updates, which room each player holds a seat
//! in, and the quick-play queue (see `matchmaking`), whose tables it
//! opens. Connections ask it things through a bounded queue and wait for
//! the answer; rooms tell it about changes through an unbounded queue, so
//! that a room never waits on the lobby while the lobby might be waiting
//! on something else. The tournaments are another actor (`tournament`).
//!
//! This crate speaks no HTTP and no NATS, and never asks whether there is
//! a cluster: [`Network`] (`route.rs`) says where a room, the queue, the
//! tournaments and a player's other connections are, and the server
//! hands in either [`Alone`] or the cluster's implementation.
//!
//! This file holds the lobby's state, its run loop and the start of the
//! server's resumed games; `handle.rs` what can be asked of it, `rooms.rs`
//! the registry and the list, `quick_play.rs` the queue's tables,
//! `room_code.rs` the codes rooms open under, `online.rs` who is
//! connected here, and `views.rs` the store's records as the protocol
//! shows them.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use spades_protocol::ws::RoomSummary;
use spades_room::lifecycle::Lifecycle;
use spades_room::outbox::{ConnectionId, Outbox};
use spades_room::{self as room, LobbyNote, PlayerRef, RoomConfig, RoomHandle, RoomMetrics};
use spades_store::{Journal, Store};
use tokio::sync::mpsc;

use crate::matchmaking::Queue;

mod handle;
pub mod matchmaking;
mod moderation;
mod online;
pub mod pause;
mod quick_play;
mod room_code;
mod rooms;
mod route;
pub mod tournament;
mod updates;
pub mod views;

use handle::LobbyRequest;
pub use handle::{LobbyHandle, NewRoom, TournamentTable};
pub use moderation::ModerationEvent;
pub use online::{Online, SessionHash};
pub use quick_play::{Table, tell};
pub use room_code::new_code;
pub use route::{Alone, Network, RegistryNote, SharedAttempt, Unrouted, Whereabouts};

/// What the lobby is tuned by.
#[derive(Clone, Debug)]
pub struct LobbyConfig {
    /// Rooms open at once; creating more is refused with `server_busy`.
    pub max_rooms: usize,
    /// How quick play makes tables.
    pub queue: matchmaking::Rules,
    /// What the rooms it opens are tuned by.
    pub room: Arc<RoomConfig>,
    /// Mutes, masked words and maintenance, which the server keeps up to
    /// date and the rooms enforce.
    pub policy: Arc<room::Policy>,
}

/// A room the lobby has opened, and how it looked at its last report.
struct OpenRoom {
    handle: RoomHandle,
    summary: RoomSummary,
}

struct Lobby {
    config: LobbyConfig,
    store: Store,
    journal: Journal,
    lifecycle: Arc<Lifecycle>,
    rooms: HashMap<Arc<str>, OpenRoom>,
    watchers: HashMap<ConnectionId, Outbox>,
    /// Which rooms' looks wait before going to the watchers.
    updates: updates::LobbyUpdates,
    seated: HashMap<Arc<str>, Arc<str>>,
    notes: mpsc::UnboundedSender<LobbyNote>,
    queue: Queue,
    /// The connections of queued players, to tell them of their table.
    queued: HashMap<Arc<str>, Outbox>,
    tournaments: mpsc::UnboundedSender<room::TableNote>,
    metrics: Arc<RoomMetrics>,
    /// Places for strong bots thinking at once, shared by this server's
    /// rooms.
    strong_bots: Arc<tokio::sync::Semaphore>,
    /// Each player's chat lines, counted across this server's rooms.
    chat_limits: Arc<room::ChatLimits>,
    /// The nodes this one works among: they hear of this node's rooms
    /// and seats.
    network: Arc<dyn Network>,
    /// The other nodes' public rooms.
    elsewhere: HashMap<Arc<str>, RoomSummary>,
    /// The lobby's own address, which a table opened on another node
    /// comes back to when that node does not open it.
    me: Option<LobbyHandle>,
}

/// How often the queue is looked at for tables, besides whenever someone
/// joins it: often enough that the widening rating gap and the longest wait
/// take effect on time.
const MATCH_INTERVAL: Duration = Duration::from_millis(250);

/// Starts the lobby task.
pub fn spawn(
    config: LobbyConfig,
    store: Store,
    journal: Journal,
    lifecycle: Arc<Lifecycle>,
    tournaments: mpsc::UnboundedSender<room::TableNote>,
    metrics: Arc<RoomMetrics>,
    network: Arc<dyn Network>,
) -> LobbyHandle {
    let (requests, mut request_rx) = mpsc::channel(256);
    let (notes, mut note_rx) = mpsc::unbounded_channel();
    let stop = lifecycle.stopped();
    let queue = Queue::new(config.queue);
    let strong_bots = room::strong_bot_places(&config.room);
    let chat_limits = room::ChatLimits::new(config.room.chat_limit, config.room.chat_window);
    let mut lobby = Lobby {
        config,
        store,
        journal,
        lifecycle,
        rooms: HashMap::new(),
        watchers: HashMap::new(),
        updates: updates::LobbyUpdates::default(),
        seated: HashMap::new(),
        notes,
        queue,
        queued: HashMap::new(),
        tournaments,
        metrics,
        strong_bots,
        chat_limits,
        network,
        elsewhere: HashMap::new(),
        me: None,
    };
    let handle = LobbyHandle {
        requests,
        notes: lobby.notes.clone(),
    };
    lobby.me = Some(handle.clone());
    tokio::spawn(async move {
        let mut matching = tokio::time::interval(MATCH_INTERVAL);
        matching.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let due = lobby.updates.next_due();
            tokio::select! {
                // Room changes first, so that a lookup after a change sees it.
                biased;
                () = stop.cancelled() => break,
                Some(note) = note_rx.recv() => lobby.on_note(note),
                () = sleep_until_due(due), if due.is_some() => lobby.send_held_updates(),
                request = request_rx.recv() => match request {
                    Some(request) => lobby.on_request(request),
                    None => break,
                },
                _ = matching.tick(), if !lobby.queue.is_empty() => lobby.make_tables(),
            }
        }
    });
    handle
}

/// Waits for the held lobby updates' time; `None` never comes (the loop
/// does not poll it then).
async fn sleep_until_due(due: Option<tokio::time::Instant>) {
    if let Some(due) = due {
        tokio::time::sleep_until(due).await;
    }
}

impl Lobby {
    fn on_request(&mut self, request: LobbyRequest) {
        match request {
            LobbyRequest::Create { room, reply } => {
                let _ = reply.send(self.create_room(room));
            }
            LobbyRequest::Find { code, reply } => {
                let _ = reply.send(self.find_room(&code));
            }
            LobbyRequest::List { reply } => {
                let _ = reply.send(self.list_public_rooms());
            }
            LobbyRequest::Watch { outbox } => {
                self.watchers.insert(outbox.id(), outbox);
            }
            LobbyRequest::Unwatch { connection } => {
                self.watchers.remove(&connection);
            }
            LobbyRequest::SeatedRoom { player, reply } => {
                let _ = reply.send(self.seated_room(&player));
            }
            LobbyRequest::Queue {
                entry,
                id,
                outbox,
                reply,
            } => {
                let answer = self.enqueue(entry, id, outbox);
                let _ = reply.send(answer);
                self.make_tables();
            }
            LobbyRequest::LeaveQueue { player, reply } => {
                let _ = reply.send(self.dequeue(&player, None));
            }
            LobbyRequest::Disconnected { player, connection } => {
                self.dequeue(&player, Some(connection));
            }
            LobbyRequest::OpenTournamentTable { table, reply } => {
                let _ = reply.send(self.open_tournament_table(*table));
            }
            LobbyRequest::OpenTable { table, reply } => {
                let _ = reply.send(self.open_table_here(*table));
            }
            LobbyRequest::Resume {
                settings,
                game,
                reply,
            } => {
                self.resume_room(settings, game);
                let _ = reply.send(());
            }
        }
    }
}

/// Reopens a room for every game the store says was being played, before
/// the server takes connections. Returns how many were resumed.
///
/// A node of a cluster reopens only the games whose rooms no node holds:
/// the others' go on where they are, and those of a node that died are
/// taken over once the cluster sees it gone.
pub async fn resume_games(
    store: &Store,
    lobby: &LobbyHandle,
    network: &dyn Network,
) -> Result<usize, spades_store::StoreError> {
    let mut resumed = 0;
    for code in store.unfinished_rooms().await? {
        if !network.claim(&code).await {
            continue;
        }
        match resume(store, lobby, &code).await? {
            Resumption::Opened => resumed += 1,
            Resumption::NoGame | Resumption::Unreadable => {}
            Resumption::Stopping => break,
        }
    }
    Ok(resumed)
}

/// Reopens the game being played in room `code`, if the store has one;
/// returns whether it did.
pub async fn resume_room(
    store: &Store,
    lobby: &LobbyHandle,
    code: &str,
) -> Result<bool, spades_store::StoreError> {
    Ok(matches!(resume(store, lobby, code).await?, Resumption::Opened))
}

enum Resumption {
    Opened,
    /// The room has no game being played.
    NoGame,
    /// The stored rules or actions do not make a game; it stays unfinished.
    Unreadable,
    Stopping,
}

/// Opens room `code` in the store, which fences off every earlier opening
/// (a node that had it before and may still be running), and only then
/// reads its game, so that the game read holds every action that earlier
/// opening could store.
async fn resume(
    store: &Store,
    lobby: &LobbyHandle,
    code: &str,
) -> Result<Resumption, spades_store::StoreError> {
    let opened = store.open_room(code, room::SEQ_RESERVE).await?;
    let Some(stored) = store.unfinished_game_in_room(code).await? else {
        return Ok(Resumption::NoGame);
    };
    let id = stored.summary.id;
    let owner_name = store
        .account(stored.owner)
        .await?
        .map(|account| account.name)
        .unwrap_or_default();
    let owner = PlayerRef::new(stored.owner, &owner_name);
    match room::Resumed::from_store(stored, owner, opened) {
        Ok((settings, game)) => match lobby.resume(settings, game).await {
            Ok(()) => Ok(Resumption::Opened),
            Err(_) => Ok(Resumption::Stopping),
        },
        Err(error) => {
            tracing::error!(game = %id, %error, "cannot resume a stored game; it stays unfinished");
            Ok(Resumption::Unreadable)
        }
    }
}
