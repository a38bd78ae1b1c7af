//! A room and its table: one actor task that owns the seats, the members,
//! the engine game, the event log and the clocks.
//!
//! The room applies requests one at a time, in the order they arrive, and
//! never waits on a connection: replies and events are pushed into each
//! member's outbox, which never blocks; the only thing it waits for is the
//! journal storing what players are about to learn. Every event gets the
//! next sequence number and is kept, as sent, in a bounded log so that a
//! client that reconnects can be sent exactly what it missed.
//!
//! This crate knows nothing of who talks to a room: no HTTP, no NATS, no
//! SQL dialect, and none of the lobby, the connections or the cluster,
//! which are crates that depend on this one. A room is reached through
//! its [`RoomHandle`], whose route is a channel here or, for a room of
//! another node, a [`RemoteRoute`] that the cluster provides.
//!
//! This file holds the room's context, its state and its run loop; the
//! room's other methods live by concern in the files beside it, and the
//! modules it shares with the server (`outbox`, `event_log`, `render`,
//! `lifecycle`, `unavailable`, `metrics`) are public.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use spades_engine::{BySeat, RuleSet};
use spades_protocol::ws::{
    BotLevel, ErrorCode, MessageId, RoomStatus, RoomSummary, ServerMessage, TableSpeed,
};
use spades_store::{RoomSeqs, Store, TableLink, Write};
use tokio::sync::{Semaphore, mpsc};
use tokio::time::Instant;

use spades_store::{Durability, Journal};

use event_log::EventLog;
use lifecycle::Lifecycle;
use unavailable::Unavailable;

mod broadcast;
mod chat_limit;
mod command;
mod config;
pub mod event_log;
mod handle;
pub mod lifecycle;
mod member;
pub mod metrics;
mod moderation;
pub mod outbox;
mod play;
mod player;
mod policy;
mod rematch;
pub mod render;
mod resume;
mod seat_life;
mod spectators;
mod stand_in;
mod table;
mod text;
pub mod unavailable;

pub use config::{BotDelay, RoomConfig};
use metrics::Counted;
pub use metrics::RoomMetrics;
pub use player::{PlayerRef, bot_level};
pub use text::Text;

pub use chat_limit::ChatLimits;
pub use command::RoomCommand;
use handle::Route;
pub use handle::{Answer, LobbyNote, RemoteRoute, RoomGone, RoomHandle, RoomRequest, TableNote};
use member::{Applied, Member, Said};
pub use policy::{Maintenance, Mute, Policy, maintenance_words, until_words};
pub use resume::Resumed;
use stand_in::Thought;
use table::{Stage, Table};

/// How a room is set up when it is created.
#[derive(Clone, Debug)]
pub struct Settings {
    pub code: Arc<str>,
    pub name: String,
    pub private: bool,
    pub rules: RuleSet,
    pub owner: PlayerRef,
    /// The level of the bots that sit in the room's bot seats and play for
    /// its absent players.
    pub bots: BotLevel,
    /// The tournament table this room is, if it is one: it plays one game,
    /// to the end even if its players are all away, and reports the result.
    pub tournament: Option<TableLink>,
    /// Whether its games count for the ratings: quick play, tournaments
    /// and public rooms opened as rated; private rooms never.
    pub rated: bool,
    /// How long its turn clock runs and its bots wait.
    pub speed: TableSpeed,
    /// The seed to deal its game from instead of a fresh one: a duplicate
    /// tournament's round, whose tables all play the same deals.
    pub deal_seed: Option<u64>,
}

/// How a room begins.
#[derive(Debug)]
pub enum Opening {
    /// Empty, waiting for players.
    Empty,
    /// Around a game read back from the store.
    Resumed(Box<Resumed>),
    /// A quick-play table: its game starts at once with these players (bots
    /// among them), whose seats are held until they come in.
    Matched(Vec<PlayerRef>),
}

/// What a room works with that it shares with the rest of the server: one
/// value, handed over when the room is spawned and kept whole.
#[derive(Clone, Debug)]
pub struct Context {
    pub config: Arc<RoomConfig>,
    /// Where the room reads the mark its event numbers start above when it
    /// opens; everything else it stores goes through the journal.
    pub store: Store,
    pub lobby: mpsc::UnboundedSender<LobbyNote>,
    pub journal: Journal,
    pub lifecycle: Arc<Lifecycle>,
    /// Where tournament tables report their game's start and end (once
    /// stored).
    pub tournaments: mpsc::UnboundedSender<TableNote>,
    pub metrics: Arc<RoomMetrics>,
    /// Places for strong bots thinking at once, shared by every room (see
    /// [`strong_bot_places`]).
    pub strong_bots: Arc<Semaphore>,
    /// Each player's chat lines, counted across the server's rooms.
    pub chat_limits: Arc<ChatLimits>,
    /// Mutes, masked words and maintenance, as moderators set them.
    pub policy: Arc<Policy>,
}

/// Places for the strong bots that may think at once in one server:
/// `RoomConfig::strong_bots_at_once`, one for each core unless it says. Each
/// thinks on a thread of its own for up to `bot_time`; past this many, a
/// card falls to the basic bot, so that rooms full of strong bots cannot
/// take the machine from the other tables.
pub fn strong_bot_places(config: &RoomConfig) -> Arc<Semaphore> {
    let places = config
        .strong_bots_at_once
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get));
    Arc::new(Semaphore::new(places))
}

/// Starts a room's task and returns its handle and first lobby summary.
///
/// The room opens in its task: it first reads from the store where its
/// event numbers start (see [`SEQ_RESERVE`]), and handles requests only
/// once it has opened.
pub fn spawn(settings: Settings, context: Context, opening: Opening) -> (RoomHandle, RoomSummary) {
    let (requests, receiver) = mpsc::channel(64);
    let (thoughts, thought_rx) = mpsc::unbounded_channel();
    let handle = RoomHandle {
        code: settings.code.clone(),
        route: Route::Local(requests),
    };
    let summary = opening_summary(&settings, &opening);
    let room = Room {
        log: EventLog::new(settings.code.clone(), context.config.resync_window, 0),
        reserved: 0,
        epoch: 0,
        settings,
        counted: Counted::new(context.metrics.clone()),
        context,
        acted_at: None,
        removed: Default::default(),
        chat_lines: Default::default(),
        voided: false,
        closing: false,
        reported: None,
        members: HashMap::new(),
        spectator_news: spectators::SpectatorNews::default(),
        seats: Default::default(),
        stage: Stage::Waiting,
        games: 0,
        pending: Vec::new(),
        thoughts,
    };
    tokio::spawn(room.run(opening, receiver, thought_rx));
    (handle, summary)
}

/// How a room will look to the lobby once it has opened: empty and
/// waiting, or playing with the players of its game.
fn opening_summary(settings: &Settings, opening: &Opening) -> RoomSummary {
    let count = settings.rules.seating().seat_count();
    let (status, seats) = match opening {
        Opening::Empty => (RoomStatus::Waiting, vec![None; count]),
        Opening::Resumed(resumed) => (
            RoomStatus::Playing,
            resumed.players[..count].iter().map(|p| Some(p.info())).collect(),
        ),
        Opening::Matched(players) => (
            RoomStatus::Playing,
            players[..count].iter().map(|p| Some(p.info())).collect(),
        ),
    };
    RoomSummary {
        room: settings.code.to_string(),
        name: settings.name.clone(),
        rules: settings.rules.name().to_string(),
        private: settings.private,
        rated: settings.rated,
        speed: settings.speed,
        status,
        seats,
        spectators: 0,
    }
}

/// How many event numbers a room sets aside at a time. Before it sends an
/// event numbered above its stored mark, it stores a mark this much
/// higher; when it opens again (after a restart) its numbers start above
/// the last mark. The numbers thus jump by up to this much across a
/// restart, and the mark is stored about once per game.
pub const SEQ_RESERVE: u64 = 1000;

/// How long a room waits before it asks the store again for where its
/// numbers start, when the store did not answer.
const OPEN_RETRY: Duration = Duration::from_millis(500);

struct Room {
    settings: Settings,
    context: Context,
    /// The highest event number the store allows the room (see
    /// [`SEQ_RESERVE`]).
    reserved: u64,
    /// This opening's epoch in the store: every commit names it, and the
    /// store refuses them once the room has been opened again elsewhere.
    epoch: u64,
    /// What to tell the tournament once the writes pending are stored.
    reported: Option<TableNote>,
    /// Writes made while handling the current request; they are stored
    /// before its messages are sent.
    pending: Vec<Write>,
    members: HashMap<Arc<str>, Member>,
    /// What the room has told of spectators coming and going lately.
    spectator_news: spectators::SpectatorNews,
    seats: BySeat<Option<Arc<str>>>,
    /// The game: none yet, being played, or over.
    stage: Stage,
    games: u32,
    log: EventLog,
    /// Where strong bots thinking away from the task send their decisions.
    thoughts: mpsc::UnboundedSender<Thought>,
    /// The room and its game as the metrics count them.
    counted: Counted,
    /// When the connection read the action being handled, if one was
    /// applied: its time is measured once its events are handed over.
    acted_at: Option<std::time::Instant>,
    /// The players the owner removed, with the connection each was on:
    /// they may not come back, and what they still send is refused there.
    removed: HashMap<Arc<str>, Option<outbox::Outbox>>,
    /// The last chat lines, for the reports made here.
    chat_lines: moderation::ChatLines,
    /// Set when a moderator ends the room: its game counts for nothing.
    voided: bool,
    /// Set when a moderator ends the room: its members go once told.
    closing: bool,
}

/// Counts what happened in the last `span` before `now`, in `times`
/// (oldest first): forgets what is older, then records `now` if fewer than
/// `most` are left. Returns whether it did, which is whether one more may
/// happen now.
fn admit(times: &mut VecDeque<Instant>, now: Instant, span: Duration, most: usize) -> bool {
    while times.front().is_some_and(|&at| now.duration_since(at) >= span) {
        times.pop_front();
    }
    let room = times.len() < most;
    if room {
        times.push_back(now);
    }
    room
}

/// A refusal to send back to the requester.
struct Refusal(ErrorCode, String);

impl Refusal {
    fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal(code, message.into())
    }
}

impl From<Unavailable> for Refusal {
    fn from(unavailable: Unavailable) -> Refusal {
        Refusal::new(unavailable.code(), unavailable.message())
    }
}

/// Why a room stopped serving.
enum Ended {
    /// Its last member left and no game holds it.
    Empty,
    /// The server is stopping.
    Stopped,
    /// It was opened again elsewhere (see `Room::lost`).
    Lost,
}

impl Room {
    async fn run(
        mut self,
        opening: Opening,
        mut requests: mpsc::Receiver<Box<RoomRequest>>,
        thoughts: mpsc::UnboundedReceiver<Thought>,
    ) {
        let stop = self.context.lifecycle.stopped();
        // The stop signal lives as long as the room: making it anew for
        // every request would register it with the server's shared token
        // once per card played.
        let stopped = stop.cancelled();
        tokio::pin!(stopped);
        let opened = tokio::select! {
            () = &mut stopped => return,
            opened = self.open(opening, &mut requests) => opened,
        };
        if !opened {
            return;
        }
        // A game that started as the room opened is stored at once, not at
        // the room's first event.
        if !self.store_pending().await {
            return self.lost();
        }
        self.counted.set_playing(self.stage.playing().is_some());
        match self.serve(requests, thoughts, stopped).await {
            Ended::Empty => self.close(),
            // Stopping leaves the game as it is in the store, to be resumed
            // at the next start.
            Ended::Stopped => {}
            Ended::Lost => self.lost(),
        }
    }

    /// Opens the room: takes its event numbers from the store, then sets
    /// it up as the opening says. False when it could not open (it has
    /// told the lobby it closed).
    async fn open(&mut self, opening: Opening, requests: &mut mpsc::Receiver<Box<RoomRequest>>) -> bool {
        let seqs = match &opening {
            // A resumed room was opened in the store before its game was read.
            Opening::Resumed(resumed) => Some(resumed.opened),
            _ => self.open_numbering(!matches!(opening, Opening::Empty)).await,
        };
        let Some(seqs) = seqs else {
            self.refuse_unopened(requests);
            let _ = self.context.lobby.send(LobbyNote::Closed {
                code: self.settings.code.clone(),
            });
            return false;
        };
        self.log = EventLog::new(
            self.settings.code.clone(),
            self.context.config.resync_window,
            seqs.base,
        );
        self.reserved = seqs.reserved;
        self.epoch = seqs.epoch;
        match opening {
            Opening::Empty => {}
            Opening::Resumed(resumed) => self.resume(*resumed),
            Opening::Matched(players) => self.open_matched(players),
        }
        true
    }

    /// Handles requests, bots' decisions and the clocks until the room is
    /// empty, stops or loses its ownership. After each, what players are
    /// about to learn is stored before it is sent.
    async fn serve(
        &mut self,
        mut requests: mpsc::Receiver<Box<RoomRequest>>,
        mut thoughts: mpsc::UnboundedReceiver<Thought>,
        mut stopped: std::pin::Pin<&mut impl std::future::Future<Output = ()>>,
    ) -> Ended {
        // The timer lives as long as the room, for the reason the stop
        // signal does.
        let timer = tokio::time::sleep_until(Instant::now());
        tokio::pin!(timer);
        let mut armed = None;
        loop {
            let wake = self.next_wake();
            if wake != armed {
                if let Some(at) = wake {
                    timer.as_mut().reset(at);
                }
                armed = wake;
            }
            tokio::select! {
                () = &mut stopped => return Ended::Stopped,
                request = requests.recv() => match request {
                    Some(request) => self.handle(*request),
                    None => return Ended::Empty,
                },
                Some(thought) = thoughts.recv() => self.on_thought(thought),
                () = &mut timer, if armed.is_some() => self.on_time(Instant::now()),
            }
            if !self.store_pending().await {
                return Ended::Lost;
            }
            for member in self.members.values_mut() {
                member.flush();
            }
            if self.closing {
                self.members.clear();
            }
            if let Some(at) = self.acted_at.take() {
                let metrics = &self.context.metrics;
                metrics.action_time.observe(at.elapsed().as_secs_f64());
            }
            self.counted.set_playing(self.stage.playing().is_some());
            if self.is_empty() {
                return Ended::Empty;
            }
        }
    }

    /// Tells the lobby that the room, empty now, has closed.
    fn close(&self) {
        for (_, player) in self.seated() {
            let _ = self.context.lobby.send(LobbyNote::Unseated {
                player,
                code: self.settings.code.clone(),
            });
        }
        let _ = self.context.lobby.send(LobbyNote::Closed {
            code: self.settings.code.clone(),
        });
    }

    /// Where this opening's event numbers start, from the store. A room
    /// with players seated (a resumed game, a quick-play or tournament
    /// table) asks again until the store answers, and its requests wait
    /// meanwhile: numbering from anywhere else could repeat numbers a
    /// client saw before a restart. An empty room gives up at once, since
    /// its creator would rather be told.
    async fn open_numbering(&self, waits_for_store: bool) -> Option<RoomSeqs> {
        loop {
            match self
                .context
                .store
                .open_room(&self.settings.code, SEQ_RESERVE)
                .await
            {
                Ok(seqs) => return Some(seqs),
                Err(error) if waits_for_store => {
                    tracing::warn!(room = %self.settings.code, %error, "cannot open the room's numbering; retrying");
                    tokio::time::sleep(OPEN_RETRY).await;
                }
                Err(error) => {
                    tracing::warn!(room = %self.settings.code, %error, "cannot open the room's numbering");
                    return None;
                }
            }
        }
    }

    /// Answers the requests of a room that could not open, and takes no
    /// more: whoever was on his way in is told why.
    fn refuse_unopened(&self, requests: &mut mpsc::Receiver<Box<RoomRequest>>) {
        requests.close();
        let refusal = |id: MessageId| ServerMessage::Error {
            id: Some(id),
            code: Unavailable::Store.code(),
            message: "storage is unavailable: the room could not open; try again later".into(),
        };
        while let Ok(request) = requests.try_recv() {
            match *request {
                RoomRequest::Join { outbox, id, .. } | RoomRequest::Resync { outbox, id, .. } => {
                    self.context.metrics.error_sent(Unavailable::Store.code());
                    outbox.send(Text::from(refusal(id).to_json()));
                }
                RoomRequest::Leave { left, .. } => {
                    let _ = left.send(());
                }
                _ => {}
            }
        }
    }

    /// Stores the writes made since the last time, then tells the
    /// tournament, if any, what they were about. Answers false when the
    /// store refused them because the room has been opened again since,
    /// elsewhere: this opening must then stop without a word more.
    async fn store_pending(&mut self) -> bool {
        if !self.pending.is_empty() {
            let mut writes = std::mem::take(&mut self.pending);
            let fence = Write::Fence {
                room: self.settings.code.to_string(),
                epoch: self.epoch,
            };
            writes.insert(0, fence);
            if self.context.journal.commit(writes).await == Durability::Fenced {
                return false;
            }
        }
        if let Some(note) = self.reported.take() {
            let _ = self.context.tournaments.send(note);
        }
        true
    }

    /// Stops a room that another opening owns now (its node took it over
    /// while this one was paused or cut off). Nothing it was about to send
    /// is sent, since none of it was stored; its connections are closed as
    /// for a room that moves, so that their clients resync with the room's
    /// real owner.
    fn lost(self) {
        tracing::warn!(
            room = %self.settings.code,
            "the room was opened again elsewhere; this copy stops and sends its players there"
        );
        for member in self.members.values() {
            if let Some(outbox) = &member.outbox {
                outbox.close(crate::outbox::CloseReason::RoomMoved);
            }
        }
        let _ = self.context.lobby.send(LobbyNote::Closed {
            code: self.settings.code.clone(),
        });
    }

    // Requests.

    fn handle(&mut self, request: RoomRequest) {
        match request {
            RoomRequest::Join { player, outbox, id } => self.join(player, outbox, id, None),
            RoomRequest::Resync {
                player,
                outbox,
                id,
                last_seq,
            } => self.join(player, outbox, id, Some(last_seq)),
            RoomRequest::Leave { player, left } => {
                self.leave(&player);
                let _ = left.send(());
            }
            RoomRequest::Detach { player, connection } => self.detach(&player, connection),
            RoomRequest::End { reason } => self.end(&reason),
            RoomRequest::Command {
                player,
                id,
                command,
                received,
            } => self.command(&player, id, command, received),
        }
    }

    fn command(&mut self, player: &str, id: MessageId, command: RoomCommand, received: std::time::Instant) {
        if self.refuse_removed(player).is_err() {
            return self.answer_removed(player, id);
        }
        let result = match command {
            RoomCommand::Sit { seat } => self.sit(player, seat),
            RoomCommand::Stand => self.stand(player),
            RoomCommand::Start => self.start(player),
            RoomCommand::Rematch { same_deals } => self.rematch(player, same_deals),
            RoomCommand::AddBot { seat, level } => self.add_bot(player, seat, level),
            RoomCommand::RemoveBot { seat } => self.remove_bot(player, seat),
            // An action and a chat line answer for themselves: an action's
            // answer comes with its events, a chat line is its own echo.
            RoomCommand::Act { action } => {
                let before = self.log.seq();
                self.act(player, id, action);
                if self.log.seq() != before {
                    self.acted_at = Some(received);
                }
                return;
            }
            RoomCommand::Chat { text } => return self.chat(player, id, Said::Text(text)),
            RoomCommand::QuickChat { phrase } => return self.chat(player, id, Said::Quick(phrase)),
            RoomCommand::RemovePlayer { player: target } => self.remove_player(player, &target),
            RoomCommand::Report {
                player: target,
                reason,
            } => return self.report(player, id, &target, reason),
        };
        self.answer(player, id, result);
    }

    fn answer(&mut self, player: &str, id: MessageId, result: Result<(), Refusal>) {
        match result {
            Ok(()) => self.ack(player, id),
            Err(refusal) => self.refuse(player, Some(id), refusal),
        }
    }
}
