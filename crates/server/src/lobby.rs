//! The lobby: the registry of open rooms, the public room list with its live
//! updates, which room each player holds a seat in, and the quick-play
//! queue (see `matchmaking`), whose tables it opens.
//!
//! It is one actor task. Connections ask it things through a bounded queue
//! and wait for the answer; rooms tell it about changes through an unbounded
//! queue, so that a room never waits on the lobby while the lobby might be
//! waiting on something else.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use spades_engine::RuleSet;
use spades_engine::Seat;
use spades_protocol::ws::{
    BotLevel, ErrorCode, MessageId, RoomStatus, RoomSummary, ServerMessage, UnqueueReason,
};
use spades_store::{Store, TableLink};
use tokio::sync::{mpsc, oneshot};

use crate::config::Config;
use crate::identity::PlayerRef;
use crate::journal::Journal;
use crate::lifecycle::Lifecycle;
use crate::matchmaking::{self, Queue};
use crate::outbox::{ConnectionId, Outbox};
use crate::room::{self, LobbyNote, RoomHandle};

/// The most rooms a `list_rooms` reply holds; waiting rooms come first.
pub const MAX_LISTED_ROOMS: usize = 200;

/// What a connection can ask the lobby.
#[derive(Debug)]
pub enum LobbyRequest {
    Create {
        owner: PlayerRef,
        name: String,
        rules: RuleSet,
        private: bool,
        bots: BotLevel,
        reply: oneshot::Sender<Result<RoomHandle, Busy>>,
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
    /// Reopens a room around a game that was being played when the server
    /// stopped.
    Resume {
        settings: room::Settings,
        game: Box<room::Resumed>,
        reply: oneshot::Sender<()>,
    },
}

/// A tournament table to open.
#[derive(Debug)]
pub struct TournamentTable {
    pub code: Arc<str>,
    pub name: String,
    pub rules: RuleSet,
    pub link: TableLink,
    pub players: [PlayerRef; 4],
}

/// Why the lobby cannot open a room now.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Busy {
    ShuttingDown,
    /// The store is failing: a room could not number its events, and no
    /// game could start in it.
    StoreUnavailable,
    TooManyRooms,
}

impl Busy {
    /// What to tell the player.
    pub fn message(self) -> &'static str {
        match self {
            Busy::ShuttingDown => "the server is shutting down",
            Busy::StoreUnavailable => "storage is unavailable: no room can open now; try again later",
            Busy::TooManyRooms => "too many rooms are open; try again later",
        }
    }
}

/// The lobby's address. Cheap to clone.
#[derive(Clone, Debug)]
pub struct LobbyHandle {
    requests: mpsc::Sender<LobbyRequest>,
}

/// The lobby stopped; only during shutdown.
#[derive(Debug)]
pub struct LobbyGone;

impl LobbyHandle {
    async fn ask<T>(&self, make: impl FnOnce(oneshot::Sender<T>) -> LobbyRequest) -> Result<T, LobbyGone> {
        let (reply, answer) = oneshot::channel();
        self.requests.send(make(reply)).await.map_err(|_| LobbyGone)?;
        answer.await.map_err(|_| LobbyGone)
    }

    pub async fn create(
        &self,
        owner: PlayerRef,
        name: String,
        rules: RuleSet,
        private: bool,
        bots: BotLevel,
    ) -> Result<Result<RoomHandle, Busy>, LobbyGone> {
        self.ask(|reply| LobbyRequest::Create {
            owner,
            name,
            rules,
            private,
            bots,
            reply,
        })
        .await
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
        self.requests
            .send(LobbyRequest::Disconnected { player, connection })
            .await
            .map_err(|_| LobbyGone)
    }

    pub async fn watch(&self, outbox: Outbox) -> Result<(), LobbyGone> {
        self.requests
            .send(LobbyRequest::Watch { outbox })
            .await
            .map_err(|_| LobbyGone)
    }

    pub async fn unwatch(&self, connection: ConnectionId) -> Result<(), LobbyGone> {
        self.requests
            .send(LobbyRequest::Unwatch { connection })
            .await
            .map_err(|_| LobbyGone)
    }
}

struct Entry {
    handle: RoomHandle,
    summary: RoomSummary,
}

struct Lobby {
    config: Arc<Config>,
    store: Store,
    journal: Journal,
    lifecycle: Arc<Lifecycle>,
    rooms: HashMap<Arc<str>, Entry>,
    watchers: HashMap<ConnectionId, Outbox>,
    seated: HashMap<Arc<str>, Arc<str>>,
    notes: mpsc::UnboundedSender<LobbyNote>,
    queue: Queue,
    /// The connections of queued players, to tell them of their table.
    queued: HashMap<Arc<str>, Outbox>,
    tournaments: mpsc::UnboundedSender<room::TableNote>,
}

/// How often the queue is looked at for tables, besides whenever someone
/// joins it: often enough that the widening rating gap and the longest wait
/// take effect on time.
const MATCH_INTERVAL: Duration = Duration::from_millis(250);

/// Starts the lobby task.
pub fn spawn(
    config: Arc<Config>,
    store: Store,
    journal: Journal,
    lifecycle: Arc<Lifecycle>,
    tournaments: mpsc::UnboundedSender<room::TableNote>,
) -> LobbyHandle {
    let (requests, mut request_rx) = mpsc::channel(256);
    let (notes, mut note_rx) = mpsc::unbounded_channel();
    let stop = lifecycle.stopped();
    let queue = Queue::new(matchmaking::Rules {
        max_wait: config.queue_max_wait,
        gap: config.queue_rating_gap,
        growth: config.queue_gap_growth,
    });
    let mut lobby = Lobby {
        config,
        store,
        journal,
        lifecycle,
        rooms: HashMap::new(),
        watchers: HashMap::new(),
        seated: HashMap::new(),
        notes,
        queue,
        queued: HashMap::new(),
        tournaments,
    };
    tokio::spawn(async move {
        let mut matching = tokio::time::interval(MATCH_INTERVAL);
        matching.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                // Room changes first, so that a lookup after a change sees it.
                biased;
                () = stop.cancelled() => break,
                Some(note) = note_rx.recv() => lobby.on_note(note),
                request = request_rx.recv() => match request {
                    Some(request) => lobby.on_request(request),
                    None => break,
                },
                _ = matching.tick(), if !lobby.queue.is_empty() => lobby.make_tables(),
            }
        }
    });
    LobbyHandle { requests }
}

/// Letters and digits that cannot be confused with one another.
const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/// A random room code: 6 characters for a public room, 10 for a private
/// one, whose code is its only protection.
pub fn new_code(private: bool) -> String {
    let length = if private { 10 } else { 6 };
    let random = uuid::Uuid::new_v4().as_u128();
    (0..length)
        .map(|i| CODE_ALPHABET[((random >> (5 * i)) & 31) as usize] as char)
        .collect()
}

impl Lobby {
    fn on_request(&mut self, request: LobbyRequest) {
        match request {
            LobbyRequest::Create {
                owner,
                name,
                rules,
                private,
                bots,
                reply,
            } => {
                let busy = if self.lifecycle.is_draining() {
                    Some(Busy::ShuttingDown)
                } else if self.journal.is_degraded() {
                    Some(Busy::StoreUnavailable)
                } else if self.rooms.len() >= self.config.max_rooms {
                    Some(Busy::TooManyRooms)
                } else {
                    None
                };
                if let Some(busy) = busy {
                    let _ = reply.send(Err(busy));
                    return;
                }
                let code: Arc<str> = loop {
                    let code = new_code(private);
                    if !self.rooms.contains_key(code.as_str()) {
                        break code.into();
                    }
                };
                let settings = room::Settings {
                    code: code.clone(),
                    name,
                    private,
                    rules,
                    owner,
                    bots,
                    tournament: None,
                };
                let (handle, summary) = room::spawn(settings, self.context(), room::Opening::Empty);
                // Watchers first hear of the room once its creator is in
                // it, when the room itself announces how it looks.
                self.rooms.insert(
                    code,
                    Entry {
                        handle: handle.clone(),
                        summary,
                    },
                );
                let _ = reply.send(Ok(handle));
            }
            LobbyRequest::Find { code, reply } => {
                let _ = reply.send(self.rooms.get(code.as_str()).map(|entry| entry.handle.clone()));
            }
            LobbyRequest::List { reply } => {
                let mut rooms: Vec<&RoomSummary> = self
                    .rooms
                    .values()
                    .map(|entry| &entry.summary)
                    .filter(|summary| !summary.private)
                    .collect();
                rooms.sort_by_key(|summary| (summary.status != RoomStatus::Waiting, summary.room.clone()));
                let _ = reply.send(rooms.into_iter().take(MAX_LISTED_ROOMS).cloned().collect());
            }
            LobbyRequest::Watch { outbox } => {
                self.watchers.insert(outbox.id(), outbox);
            }
            LobbyRequest::Unwatch { connection } => {
                self.watchers.remove(&connection);
            }
            LobbyRequest::SeatedRoom { player, reply } => {
                let _ = reply.send(self.seated.get(&player).map(|code| code.to_string()));
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
            LobbyRequest::Resume {
                settings,
                game,
                reply,
            } => {
                let code = settings.code.clone();
                for player in game.players() {
                    self.seated.insert(player.id.clone(), code.clone());
                }
                let (handle, summary) = room::spawn(settings, self.context(), room::Opening::Resumed(game));
                self.publish(&summary);
                self.rooms.insert(code, Entry { handle, summary });
                let _ = reply.send(());
            }
        }
    }

    fn enqueue(
        &mut self,
        entry: matchmaking::Entry,
        id: MessageId,
        outbox: Outbox,
    ) -> Result<(), (ErrorCode, &'static str)> {
        let playing = self
            .seated
            .get(&entry.player.id)
            .and_then(|code| self.rooms.get(code))
            .is_some_and(|room| room.summary.status == RoomStatus::Playing);
        if playing {
            return Err((ErrorCode::GameInProgress, "you are playing a game already"));
        }
        let player = entry.player.id.clone();
        let (rules, partner) = (entry.preset, entry.partner.clone());
        let waiting_for_partner = self.queue.join(entry);
        let queued = ServerMessage::Queued {
            id,
            rules,
            partner,
            waiting_for_partner,
            max_wait_ms: self.config.queue_max_wait.as_millis() as u64,
        };
        outbox.send(Utf8Bytes::from(queued.to_json()));
        if let Some(old) = self.queued.insert(player, outbox.clone())
            && old.id() != outbox.id()
        {
            let notice = ServerMessage::Unqueued {
                reason: UnqueueReason::Replaced,
            };
            old.send(Utf8Bytes::from(notice.to_json()));
        }
        Ok(())
    }

    /// Takes a player out of the queue (only if he queued on `connection`,
    /// when given); his partner leaves with him and is told why.
    fn dequeue(&mut self, player: &str, connection: Option<ConnectionId>) -> bool {
        let on_that_connection = self
            .queued
            .get(player)
            .is_some_and(|outbox| connection.is_none_or(|connection| outbox.id() == connection));
        if !on_that_connection {
            return false;
        }
        let Some(left) = self.queue.leave(player) else {
            return false;
        };
        self.queued.remove(player);
        if let Some(partner) = left.partner
            && let Some(outbox) = self.queued.remove(&partner.player.id)
        {
            outbox.send(Utf8Bytes::from(
                ServerMessage::Unqueued {
                    reason: UnqueueReason::PartnerLeft,
                }
                .to_json(),
            ));
        }
        true
    }

    /// Opens a room for every table the queue can make now and tells its
    /// players where to go. Nothing is matched while no game could start.
    fn make_tables(&mut self) {
        if self.lifecycle.is_draining() || self.journal.is_degraded() {
            return;
        }
        for table in self.queue.make_matches(tokio::time::Instant::now()) {
            if self.rooms.len() >= self.config.max_rooms {
                // Put them back to wait for room; they keep their place.
                for entry in table.seats.into_iter().flatten() {
                    self.queue.join(entry);
                }
                return;
            }
            self.open_table(table);
        }
    }

    fn open_table(&mut self, table: matchmaking::Match) {
        let code: Arc<str> = loop {
            let code = new_code(true);
            if !self.rooms.contains_key(code.as_str()) {
                break code.into();
            }
        };
        let players: [PlayerRef; 4] = std::array::from_fn(|i| match &table.seats[i] {
            Some(entry) => entry.player.clone(),
            None => PlayerRef::bot(BotLevel::Basic, i as u8),
        });
        let name = format!("Quick play ({})", table.preset.name());
        self.open_matched(code.clone(), name, table.preset.rules(), players.clone(), None);
        let seats = players.clone().map(|player| player.info());
        for (seat, player) in Seat::ALL.into_iter().zip(&players) {
            if let Some(outbox) = self.queued.remove(&player.id) {
                let matched = ServerMessage::Matched {
                    room: code.to_string(),
                    seat,
                    rules: table.preset,
                    seats: seats.clone(),
                };
                outbox.send(Utf8Bytes::from(matched.to_json()));
            }
        }
        tracing::info!(room = %code, preset = table.preset.name(), "quick-play table opened");
    }

    fn open_tournament_table(&mut self, table: TournamentTable) -> bool {
        // While no game can start, the table waits; the tournament tries
        // again on its next round of checks.
        let cannot_start = self.lifecycle.is_draining() || self.journal.is_degraded();
        if cannot_start || self.rooms.contains_key(&table.code) {
            return false;
        }
        self.open_matched(
            table.code,
            table.name,
            table.rules,
            table.players,
            Some(table.link),
        );
        true
    }

    /// Opens a private room whose game starts at once with `players`, the
    /// first person among them as its owner, and records where each person
    /// is seated.
    fn open_matched(
        &mut self,
        code: Arc<str>,
        name: String,
        rules: RuleSet,
        players: [PlayerRef; 4],
        tournament: Option<TableLink>,
    ) {
        let owner = players
            .iter()
            .find(|player| player.bot.is_none())
            .cloned()
            .unwrap_or_else(|| players[0].clone());
        for player in players.iter().filter(|player| player.bot.is_none()) {
            self.seated.insert(player.id.clone(), code.clone());
        }
        let settings = room::Settings {
            code: code.clone(),
            name,
            private: true,
            rules,
            owner,
            bots: BotLevel::Basic,
            tournament,
        };
        let (handle, summary) = room::spawn(
            settings,
            self.context(),
            room::Opening::Matched(Box::new(players)),
        );
        self.rooms.insert(code, Entry { handle, summary });
    }

    /// What a new room shares with the rest of the server.
    fn context(&self) -> room::Context {
        room::Context {
            config: self.config.clone(),
            store: self.store.clone(),
            lobby: self.notes.clone(),
            journal: self.journal.clone(),
            lifecycle: self.lifecycle.clone(),
            tournaments: self.tournaments.clone(),
        }
    }

    fn on_note(&mut self, note: LobbyNote) {
        match note {
            LobbyNote::Changed { summary } => {
                self.publish(&summary);
                if let Some(entry) = self.rooms.get_mut(summary.room.as_str()) {
                    entry.summary = *summary;
                }
            }
            LobbyNote::Closed { code } => {
                if let Some(entry) = self.rooms.remove(&code)
                    && !entry.summary.private
                {
                    self.broadcast(&ServerMessage::LobbyRoomClosed {
                        room: code.to_string(),
                    });
                }
                self.seated.retain(|_, room| *room != code);
            }
            LobbyNote::Seated { player, code } => {
                self.seated.insert(player, code);
            }
            LobbyNote::Unseated { player, code } => {
                if self.seated.get(&player) == Some(&code) {
                    self.seated.remove(&player);
                }
            }
        }
    }

    fn publish(&mut self, summary: &RoomSummary) {
        if !summary.private {
            self.broadcast(&ServerMessage::LobbyRoom {
                room: summary.clone(),
            });
        }
    }

    fn broadcast(&mut self, message: &ServerMessage) {
        if self.watchers.is_empty() {
            return;
        }
        let text = Utf8Bytes::from(message.to_json());
        self.watchers.retain(|_, outbox| outbox.send_lazy(text.clone()));
    }
}

/// Reopens a room for every game the store says was being played, before
/// the server takes connections. Returns how many were resumed.
pub async fn resume_games(state: &crate::AppState) -> Result<usize, spades_store::StoreError> {
    let store = state.store();
    let mut resumed = 0;
    for stored in store.unfinished_games().await? {
        let id = stored.summary.id;
        let owner_name = store
            .account(stored.owner)
            .await?
            .map(|account| account.name)
            .unwrap_or_default();
        let owner = PlayerRef::new(stored.owner, &owner_name);
        match room::Resumed::from_store(stored, owner) {
            Ok((settings, game)) => {
                if state.lobby().resume(settings, game).await.is_err() {
                    break;
                }
                resumed += 1;
            }
            Err(error) => {
                tracing::error!(game = %id, %error, "cannot resume a stored game; it stays unfinished")
            }
        }
    }
    Ok(resumed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_use_the_unambiguous_alphabet() {
        for private in [false, true] {
            let code = new_code(private);
            assert_eq!(code.len(), if private { 10 } else { 6 });
            assert!(code.bytes().all(|b| CODE_ALPHABET.contains(&b)));
        }
        assert_ne!(new_code(false), new_code(false));
    }
}
