//! Tournaments run by the server itself: the start, the seating of every
//! stage, the tables, the results, the advance to the next stage, and the
//! places at the end.
//!
//! One actor task runs every tournament. The store is its memory: each
//! decision is made from what the store holds and written there in one
//! transaction before anything is opened, so the task keeps no state that
//! a restart could lose. A room reports a finished tournament game only
//! after the game's result is stored, and the task also looks over every
//! running tournament once a second, so a tournament carries on after a
//! restart, or after the store comes back, without anyone asking.

mod http;
mod pairing;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use spades_engine::{RuleSet, Seat};
use spades_protocol::http::TournamentView;
use spades_protocol::ws::{BotLevel, MessageId, ServerMessage};
use spades_store::{NewTable, Registration, Step, Store, StoreError, TableLink, Tournament};
use time::OffsetDateTime;
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

pub use http::routes;
use pairing::{History, Seatable};

use crate::api::views;
use crate::identity::{Online, PlayerRef};
use crate::lifecycle::Lifecycle;
use crate::lobby::{self, LobbyHandle, TournamentTable};
use crate::outbox::{ConnectionId, Outbox};
use crate::room::TableNote;

/// How often running tournaments are looked over and start times checked.
const TICK: Duration = Duration::from_secs(1);

/// The fewest entries a tournament starts with: one table.
pub const MIN_ENTRIES: usize = 4;

/// Why a tournament request was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    NotFound,
    /// Registration is over: the tournament started, finished or was cancelled.
    NotOpen,
    Full,
    AlreadyRegistered,
    NotRegistered,
    TooFew,
    Storage,
}

impl Refusal {
    pub fn code(self) -> &'static str {
        match self {
            Refusal::NotFound => "not_found",
            Refusal::NotOpen => "not_open",
            Refusal::Full => "full",
            Refusal::AlreadyRegistered => "already_registered",
            Refusal::NotRegistered => "not_registered",
            Refusal::TooFew => "too_few_players",
            Refusal::Storage => "unavailable",
        }
    }

    pub fn message(self) -> &'static str {
        match self {
            Refusal::NotFound => "no such tournament",
            Refusal::NotOpen => "the tournament is not open for that any more",
            Refusal::Full => "the tournament is full",
            Refusal::AlreadyRegistered => "you are registered already",
            Refusal::NotRegistered => "you are not registered",
            Refusal::TooFew => "a tournament needs at least four entries to start",
            Refusal::Storage => "storage is unavailable; try again",
        }
    }
}

impl From<StoreError> for Refusal {
    fn from(error: StoreError) -> Refusal {
        tracing::error!(%error, "storage error in a tournament");
        Refusal::Storage
    }
}

type Reply<T> = oneshot::Sender<Result<T, Refusal>>;

#[derive(Debug)]
enum Request {
    Register {
        tournament: Uuid,
        account: Uuid,
        reply: Reply<u32>,
    },
    Unregister {
        tournament: Uuid,
        account: Uuid,
        reply: Reply<()>,
    },
    AddBots {
        tournament: Uuid,
        count: u32,
        reply: Reply<()>,
    },
    Start {
        tournament: Uuid,
        reply: Reply<()>,
    },
    Cancel {
        tournament: Uuid,
        reply: Reply<()>,
    },
    Created {
        tournament: Uuid,
    },
    Watch {
        tournament: Uuid,
        outbox: Outbox,
        reply: Reply<TournamentView>,
    },
    Unwatch {
        tournament: Uuid,
        connection: ConnectionId,
    },
}

/// The tournament task's address. Cheap to clone.
#[derive(Clone, Debug)]
pub struct TournamentHandle {
    requests: mpsc::Sender<Request>,
}

impl TournamentHandle {
    async fn ask<T>(&self, make: impl FnOnce(Reply<T>) -> Request) -> Result<T, Refusal> {
        let (reply, answer) = oneshot::channel();
        self.requests
            .send(make(reply))
            .await
            .map_err(|_| Refusal::Storage)?;
        answer.await.map_err(|_| Refusal::Storage)?
    }

    pub async fn register(&self, tournament: Uuid, account: Uuid) -> Result<u32, Refusal> {
        self.ask(|reply| Request::Register {
            tournament,
            account,
            reply,
        })
        .await
    }

    pub async fn unregister(&self, tournament: Uuid, account: Uuid) -> Result<(), Refusal> {
        self.ask(|reply| Request::Unregister {
            tournament,
            account,
            reply,
        })
        .await
    }

    pub async fn add_bots(&self, tournament: Uuid, count: u32) -> Result<(), Refusal> {
        self.ask(|reply| Request::AddBots {
            tournament,
            count,
            reply,
        })
        .await
    }

    pub async fn start(&self, tournament: Uuid) -> Result<(), Refusal> {
        self.ask(|reply| Request::Start { tournament, reply }).await
    }

    pub async fn cancel(&self, tournament: Uuid) -> Result<(), Refusal> {
        self.ask(|reply| Request::Cancel { tournament, reply }).await
    }

    /// A tournament was created: it may be due to start already.
    pub async fn created(&self, tournament: Uuid) {
        let _ = self.requests.send(Request::Created { tournament }).await;
    }

    /// Follows a tournament; the answer is its view now.
    pub async fn watch(&self, tournament: Uuid, outbox: Outbox) -> Result<TournamentView, Refusal> {
        self.ask(|reply| Request::Watch {
            tournament,
            outbox,
            reply,
        })
        .await
    }

    pub async fn unwatch(&self, tournament: Uuid, connection: ConnectionId) {
        let _ = self
            .requests
            .send(Request::Unwatch {
                tournament,
                connection,
            })
            .await;
    }
}

struct Manager {
    store: Store,
    lobby: LobbyHandle,
    online: Arc<Online>,
    /// Connections following each tournament.
    watchers: HashMap<Uuid, Vec<Outbox>>,
}

/// Starts the tournament task. Tournament tables report the start and the
/// end of their games on `tables`.
pub fn spawn(
    store: Store,
    lobby: LobbyHandle,
    online: Arc<Online>,
    lifecycle: Arc<Lifecycle>,
    mut tables: mpsc::UnboundedReceiver<TableNote>,
) -> TournamentHandle {
    let (requests, mut request_rx) = mpsc::channel(256);
    let mut manager = Manager {
        store,
        lobby,
        online,
        watchers: HashMap::new(),
    };
    let stop = lifecycle.stopped();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                biased;
                () = stop.cancelled() => break,
                Some(note) = tables.recv() => match note {
                    // Only watchers need to know: the table is now playing.
                    TableNote::Started(link) => manager.broadcast(link.tournament).await,
                    TableNote::Finished(link) => manager.carry_on(link.tournament, true).await,
                },
                request = request_rx.recv() => match request {
                    Some(request) => manager.handle(request).await,
                    None => break,
                },
                _ = tick.tick() => {
                    if !lifecycle.is_draining() {
                        manager.tick().await;
                    }
                }
            }
        }
    });
    TournamentHandle { requests }
}

/// The seed of a stage's draw, from the tournament's.
fn stage_seed(seed: u64, stage: u32) -> u64 {
    seed ^ u64::from(stage)
        .wrapping_add(1)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Partnerships played in every stage so far.
fn history(tournament: &Tournament) -> History {
    let mut history = History::default();
    for stage in &tournament.stages {
        for table in &stage.tables {
            history.add_table(table.seats);
        }
    }
    history
}

/// Each entry's points and score difference over every finished table.
fn standings(tournament: &Tournament) -> HashMap<u32, (i32, i32)> {
    let mut standings: HashMap<u32, (i32, i32)> = tournament
        .entrants
        .iter()
        .map(|entrant| (entrant.entry as u32, (0, 0)))
        .collect();
    for table in tournament.stages.iter().flat_map(|stage| &stage.tables) {
        let (Some(winner), Some(score)) = (table.winner, table.score) else {
            continue;
        };
        for (seat, entry) in table.seats.iter().enumerate() {
            let team = seat % 2;
            let standing = standings.entry(*entry).or_default();
            standing.0 += i32::from(team == usize::from(winner));
            standing.1 += score[team] - score[1 - team];
        }
    }
    standings
}

/// Entries best first: points, then score difference, then entry number.
fn ranked(standings: &HashMap<u32, (i32, i32)>) -> Vec<u32> {
    let mut entries: Vec<u32> = standings.keys().copied().collect();
    entries.sort_by_key(|entry| {
        let (points, diff) = standings[entry];
        (std::cmp::Reverse(points), std::cmp::Reverse(diff), *entry)
    });
    entries
}

impl Manager {
    async fn handle(&mut self, request: Request) {
        match request {
            Request::Register {
                tournament,
                account,
                reply,
            } => {
                let result = self.register(tournament, account).await;
                let _ = reply.send(result);
                self.after_registration(tournament).await;
            }
            Request::Unregister {
                tournament,
                account,
                reply,
            } => {
                let result = self.unregister(tournament, account).await;
                let _ = reply.send(result);
                self.broadcast(tournament).await;
            }
            Request::AddBots {
                tournament,
                count,
                reply,
            } => {
                let result = self.add_bots(tournament, count).await;
                let _ = reply.send(result);
                self.after_registration(tournament).await;
            }
            Request::Start { tournament, reply } => {
                let result = self.start(tournament).await;
                let _ = reply.send(result);
            }
            Request::Cancel { tournament, reply } => {
                let result = match self
                    .store
                    .cancel_tournament(tournament, OffsetDateTime::now_utc())
                    .await
                {
                    Ok(true) => Ok(()),
                    Ok(false) => Err(self.missing_or(tournament, Refusal::NotOpen).await),
                    Err(error) => Err(error.into()),
                };
                let _ = reply.send(result);
                self.broadcast(tournament).await;
            }
            Request::Created { tournament } => self.start_if_due(tournament).await,
            Request::Watch {
                tournament,
                outbox,
                reply,
            } => {
                let view = match self.store.tournament(tournament).await {
                    Ok(Some(found)) => views::tournament(&found).map_err(Refusal::from),
                    Ok(None) => Err(Refusal::NotFound),
                    Err(error) => Err(error.into()),
                };
                if view.is_ok() {
                    let watchers = self.watchers.entry(tournament).or_default();
                    watchers.retain(|watcher| watcher.id() != outbox.id() && !watcher.is_closed());
                    watchers.push(outbox);
                }
                let _ = reply.send(view);
            }
            Request::Unwatch {
                tournament,
                connection,
            } => {
                if let Some(watchers) = self.watchers.get_mut(&tournament) {
                    watchers.retain(|watcher| watcher.id() != connection);
                    if watchers.is_empty() {
                        self.watchers.remove(&tournament);
                    }
                }
            }
        }
    }

    /// NotFound when the tournament does not exist, else `refusal`.
    async fn missing_or(&self, tournament: Uuid, refusal: Refusal) -> Refusal {
        match self.store.tournament(tournament).await {
            Ok(None) => Refusal::NotFound,
            _ => refusal,
        }
    }

    async fn open_tournament(&self, id: Uuid) -> Result<Tournament, Refusal> {
        let tournament = self.store.tournament(id).await?.ok_or(Refusal::NotFound)?;
        if tournament.summary.status != "open" {
            return Err(Refusal::NotOpen);
        }
        Ok(tournament)
    }

    async fn register(&self, id: Uuid, account: Uuid) -> Result<u32, Refusal> {
        let tournament = self.open_tournament(id).await?;
        if tournament.entrants.len() >= tournament.summary.max_players as usize {
            return Err(Refusal::Full);
        }
        match self
            .store
            .register_player(id, account, OffsetDateTime::now_utc())
            .await?
        {
            Registration::Done { entry } => Ok(entry),
            Registration::AlreadyRegistered => Err(Refusal::AlreadyRegistered),
        }
    }

    async fn unregister(&self, id: Uuid, account: Uuid) -> Result<(), Refusal> {
        self.open_tournament(id).await?;
        if self.store.unregister_player(id, account).await? {
            Ok(())
        } else {
            Err(Refusal::NotRegistered)
        }
    }

    async fn add_bots(&self, id: Uuid, count: u32) -> Result<(), Refusal> {
        let tournament = self.open_tournament(id).await?;
        let room = tournament.summary.max_players as usize
            - tournament
                .entrants
                .len()
                .min(tournament.summary.max_players as usize);
        if count as usize > room {
            return Err(Refusal::Full);
        }
        self.store
            .register_bots(id, count, OffsetDateTime::now_utc())
            .await?;
        Ok(())
    }

    /// A tournament that starts when full starts as its last place is
    /// taken; watchers see the new list either way.
    async fn after_registration(&mut self, id: Uuid) {
        if let Ok(Some(tournament)) = self.store.tournament(id).await
            && tournament.summary.status == "open"
            && tournament.summary.starts_at.is_none()
            && tournament.entrants.len() >= tournament.summary.max_players as usize
        {
            if let Err(refusal) = self.start(id).await {
                tracing::warn!(tournament = %id, ?refusal, "a full tournament could not start");
            }
            return;
        }
        self.broadcast(id).await;
    }

    async fn start_if_due(&mut self, id: Uuid) {
        let due = matches!(self.store.tournament(id).await, Ok(Some(t))
            if t.summary.status == "open" && t.summary.starts_at.is_some_and(|at| at <= OffsetDateTime::now_utc()));
        if due {
            self.start_or_cancel(id).await;
        }
    }

    /// At its start time a tournament starts, or is cancelled when it has
    /// too few entries.
    async fn start_or_cancel(&mut self, id: Uuid) {
        match self.start(id).await {
            Ok(()) => {}
            Err(Refusal::TooFew) => {
                tracing::info!(tournament = %id, "too few entries at the start time: cancelled");
                let _ = self.store.cancel_tournament(id, OffsetDateTime::now_utc()).await;
                self.broadcast(id).await;
            }
            Err(refusal) => tracing::warn!(tournament = %id, ?refusal, "a tournament could not start"),
        }
    }

    /// Completes the field with bots, seats the first stage, stores it and
    /// opens its tables.
    async fn start(&mut self, id: Uuid) -> Result<(), Refusal> {
        let mut tournament = self.open_tournament(id).await?;
        let entries = tournament.entrants.len();
        if entries < MIN_ENTRIES {
            return Err(Refusal::TooFew);
        }
        // A knockout bracket holds 4 × 2^k entries and a Swiss round a
        // multiple of four: bots make up the difference.
        let wanted = match tournament.summary.format.as_str() {
            "knockout" => pairing::bracket_size(entries),
            _ => entries.div_ceil(4) * 4,
        };
        if wanted > entries {
            self.store
                .register_bots(id, (wanted - entries) as u32, OffsetDateTime::now_utc())
                .await?;
            tournament = self.open_tournament(id).await?;
        }
        let mut players: Vec<Seatable> = tournament
            .entrants
            .iter()
            .map(|entrant| Seatable {
                entry: entrant.entry as u32,
                bot: entrant.bot,
            })
            .collect();
        let seed = stage_seed(tournament.seed, 0);
        let seats = match tournament.summary.format.as_str() {
            "knockout" => pairing::knockout_stage(&players, &History::default(), seed),
            _ => {
                // Nobody has a standing yet: the first round is a draw.
                spades_engine::GameRng::new(seed).shuffle(&mut players);
                pairing::swiss_round(&players, &History::default(), seed)
            }
        };
        let step = Step {
            status: Some("running"),
            stage: 0,
            tables: new_tables(seats),
            ..Step::default()
        };
        if !self
            .store
            .tournament_step(id, &step, OffsetDateTime::now_utc())
            .await?
        {
            return Err(Refusal::NotOpen);
        }
        tracing::info!(tournament = %id, entries = wanted.max(entries), "tournament started");
        self.carry_on(id, true).await;
        Ok(())
    }

    /// Once a second: tournaments whose start time has come start, and every
    /// running tournament is brought up to date.
    async fn tick(&mut self) {
        let now = OffsetDateTime::now_utc();
        if let Ok(due) = self.store.due_tournaments(now).await {
            for id in due {
                self.start_or_cancel(id).await;
            }
        }
        if let Ok(running) = self.store.running_tournaments().await {
            for id in running {
                self.carry_on(id, false).await;
            }
        }
    }

    /// Brings a running tournament up to date with the store: opens the
    /// tables of its current stage that are not open yet, and when the
    /// whole stage is finished, seats the next one or ends the tournament.
    /// Watchers are sent the new view if anything changed (or `changed`).
    async fn carry_on(&mut self, id: Uuid, mut changed: bool) {
        loop {
            let tournament = match self.store.tournament(id).await {
                Ok(Some(tournament)) => tournament,
                Ok(None) => return,
                Err(error) => {
                    tracing::warn!(tournament = %id, %error, "cannot read a tournament; trying again later");
                    return;
                }
            };
            if tournament.summary.status != "running" {
                break;
            }
            let Some(stage) = tournament.last_stage() else {
                break;
            };
            for table in stage.tables.iter().filter(|table| table.status == "pending") {
                changed |= self.open_table(&tournament, stage.stage, table).await;
            }
            if !stage.tables.iter().all(|table| table.status == "finished") {
                break;
            }
            match self.advance(&tournament).await {
                Ok(true) => changed = true,
                Ok(false) => break,
                Err(error) => {
                    tracing::warn!(tournament = %id, %error, "cannot advance a tournament; trying again later");
                    break;
                }
            }
        }
        if changed {
            self.broadcast(id).await;
        }
    }

    /// Writes what follows a finished stage: the next stage's tables, or
    /// the end and the places.
    async fn advance(&self, tournament: &Tournament) -> Result<bool, StoreError> {
        let Some(stage) = tournament.last_stage() else {
            return Ok(false);
        };
        let id = tournament.summary.id;
        let next = stage.stage + 1;
        let step = if tournament.summary.format == "knockout" {
            let mut winners = Vec::new();
            let mut places = Vec::new();
            // Losers share the place after every pair that went further.
            let losers_place = stage.tables.len() as u32 + 1;
            for table in &stage.tables {
                let winner = usize::from(table.winner.unwrap_or(0));
                for (seat, entry) in table.seats.iter().enumerate() {
                    if seat % 2 == winner {
                        winners.push(*entry);
                    } else {
                        places.push((*entry, losers_place));
                    }
                }
            }
            if stage.tables.len() == 1 {
                places.extend(winners.iter().map(|entry| (*entry, 1)));
                Step {
                    status: Some("finished"),
                    places,
                    ..Step::default()
                }
            } else {
                let players: Vec<Seatable> = winners
                    .iter()
                    .map(|entry| Seatable {
                        entry: *entry,
                        bot: tournament.entrant(*entry).is_some_and(|e| e.bot),
                    })
                    .collect();
                let seats = pairing::knockout_stage(
                    &players,
                    &history(tournament),
                    stage_seed(tournament.seed, next),
                );
                Step {
                    stage: next,
                    tables: new_tables(seats),
                    places,
                    ..Step::default()
                }
            }
        } else {
            let standings = standings(tournament);
            let ranked = ranked(&standings);
            let table: Vec<(u32, i32, i32)> = ranked
                .iter()
                .map(|entry| (*entry, standings[entry].0, standings[entry].1))
                .collect();
            let rounds = tournament.summary.rounds.unwrap_or(1).max(1) as u32;
            if next >= rounds {
                // Competition ranking: equal standings share a place.
                let mut places = Vec::with_capacity(ranked.len());
                for (i, entry) in ranked.iter().enumerate() {
                    let place = match i.checked_sub(1) {
                        Some(before) if standings[&ranked[before]] == standings[entry] => {
                            places.last().map_or(1, |(_, place)| *place)
                        }
                        _ => i as u32 + 1,
                    };
                    places.push((*entry, place));
                }
                Step {
                    status: Some("finished"),
                    standings: table,
                    places,
                    ..Step::default()
                }
            } else {
                let players: Vec<Seatable> = ranked
                    .iter()
                    .map(|entry| Seatable {
                        entry: *entry,
                        bot: tournament.entrant(*entry).is_some_and(|e| e.bot),
                    })
                    .collect();
                let seats =
                    pairing::swiss_round(&players, &history(tournament), stage_seed(tournament.seed, next));
                Step {
                    stage: next,
                    tables: new_tables(seats),
                    standings: table,
                    ..Step::default()
                }
            }
        };
        let done = self
            .store
            .tournament_step(id, &step, OffsetDateTime::now_utc())
            .await?;
        if done && step.status == Some("finished") {
            tracing::info!(tournament = %id, "tournament finished");
        }
        Ok(done)
    }

    /// Opens one table and tells its players where to go. False when it was
    /// not opened now (it is open already, or no game can start).
    async fn open_table(
        &self,
        tournament: &Tournament,
        stage: u32,
        table: &spades_store::StoredTable,
    ) -> bool {
        let id = tournament.summary.id;
        let Ok(rules) = serde_json::from_value::<RuleSet>(tournament.rules.clone()) else {
            tracing::error!(tournament = %id, "stored tournament rules are not valid");
            return false;
        };
        let mut players = Vec::with_capacity(4);
        for (seat, entry) in table.seats.iter().enumerate() {
            let Some(entrant) = tournament.entrant(*entry) else {
                tracing::error!(tournament = %id, entry, "a table seats an unknown entry");
                return false;
            };
            players.push(if entrant.bot {
                PlayerRef::bot(BotLevel::Basic, seat as u8)
            } else {
                PlayerRef::new(entrant.account_id, &entrant.name)
            });
        }
        let Ok(players) = <[PlayerRef; 4]>::try_from(players) else {
            return false;
        };
        let word = if tournament.summary.format == "knockout" {
            "stage"
        } else {
            "round"
        };
        let name = format!(
            "{}: {word} {}, table {}",
            tournament.summary.name,
            stage + 1,
            table.table + 1
        );
        let link = TableLink {
            tournament: id,
            stage,
            table: table.table,
        };
        let opened = self
            .lobby
            .open_tournament_table(TournamentTable {
                code: table.room.as_str().into(),
                name: name.chars().take(60).collect(),
                rules,
                link,
                players: players.clone(),
            })
            .await
            .unwrap_or(false);
        if opened {
            for (seat, player) in Seat::ALL.into_iter().zip(&players) {
                if player.bot.is_some() {
                    continue;
                }
                let message = ServerMessage::TournamentTable {
                    tournament: id.to_string(),
                    stage,
                    table: table.table,
                    room: table.room.clone(),
                    seat,
                };
                self.online.send(&player.id, Utf8Bytes::from(message.to_json()));
            }
        }
        opened
    }

    /// Sends the tournament's view to everyone following it.
    async fn broadcast(&mut self, id: Uuid) {
        if !self.watchers.contains_key(&id) {
            return;
        }
        let Ok(Some(tournament)) = self.store.tournament(id).await else {
            return;
        };
        let view = match views::tournament(&tournament) {
            Ok(view) => view,
            Err(error) => {
                tracing::error!(tournament = %id, %error, "a stored tournament cannot be shown");
                return;
            }
        };
        let message = ServerMessage::Tournament {
            id: None,
            tournament: view,
        };
        let text = Utf8Bytes::from(message.to_json());
        if let Some(watchers) = self.watchers.get_mut(&id) {
            watchers.retain(|watcher| watcher.send(text.clone()));
            if watchers.is_empty() {
                self.watchers.remove(&id);
            }
        }
    }
}

/// Tables of a new stage, each with a fresh private room code.
fn new_tables(seats: Vec<[u32; 4]>) -> Vec<NewTable> {
    seats
        .into_iter()
        .enumerate()
        .map(|(table, seats)| NewTable {
            table: table as u32,
            seats,
            room: lobby::new_code(true),
        })
        .collect()
}

/// The reply to `watch_tournament` with id `id`: the tournament's view.
pub fn view_reply(id: MessageId, view: TournamentView) -> ServerMessage {
    ServerMessage::Tournament {
        id: Some(id),
        tournament: view,
    }
}
