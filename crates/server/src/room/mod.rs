//! A room and its table: one actor task that owns the seats, the members,
//! the engine game, the event log and the clocks.
//!
//! The room applies requests one at a time, in the order they arrive, and
//! never waits on a connection: replies and events are pushed into each
//! member's outbox, which never blocks; the only thing it waits for is the
//! journal storing what players are about to learn. Every event gets the next sequence number and is
//! kept, as sent, in a bounded log so that a client that reconnects can be
//! sent exactly what it missed.
//!
//! This file holds the handle, the requests and the run loop; the room's
//! other methods live by concern in the files beside it (see
//! ARCHITECTURE.md).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use spades_engine::{Action, RuleSet, Seat};
use spades_protocol::ws::{BotLevel, ErrorCode, MessageId, RoomStatus, RoomSummary, ServerMessage};
use spades_store::{RoomSeqs, Store, TableLink, Write};
use tokio::sync::{Semaphore, mpsc, oneshot};
use tokio::time::Instant;

use crate::config::Config;
use crate::event_log::EventLog;
use crate::identity::PlayerRef;
use crate::lifecycle::Lifecycle;
use crate::metrics::Metrics;
use crate::outbox::{ConnectionId, Outbox};
use crate::unavailable::Unavailable;
use spades_store::{Durability, Journal};

mod broadcast;
mod chat_limit;
mod member;
mod play;
mod resume;
mod seat_life;
mod spectators;
mod stand_in;
mod table;

pub use chat_limit::ChatLimits;
use member::{Applied, Member};
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
    Sit {
        player: Arc<str>,
        id: MessageId,
        seat: Option<Seat>,
    },
    Stand {
        player: Arc<str>,
        id: MessageId,
    },
    Start {
        player: Arc<str>,
        id: MessageId,
    },
    AddBot {
        player: Arc<str>,
        id: MessageId,
        seat: Option<Seat>,
    },
    RemoveBot {
        player: Arc<str>,
        id: MessageId,
        seat: Seat,
    },
    Act {
        player: Arc<str>,
        id: MessageId,
        action: Action,
        /// When the player's connection read the action, for the metrics.
        received: std::time::Instant,
    },
    Chat {
        player: Arc<str>,
        id: MessageId,
        text: String,
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
    code: Arc<str>,
    route: Route,
}

/// How requests reach the room.
#[derive(Clone, Debug)]
enum Route {
    /// Its task runs on this node. Requests travel boxed: the channel
    /// keeps two blocks of 32 slots for each room for its whole life, and
    /// a slot the size of the largest request would make those blocks
    /// about 6 KiB a room where pointers make them half a KiB.
    Local(mpsc::Sender<Box<RoomRequest>>),
    /// Another node of the cluster runs it, for one connection of this
    /// node.
    Remote(crate::cluster::RemoteRoom),
}

/// The room has closed.
#[derive(Debug)]
pub struct RoomGone;

impl RoomHandle {
    pub fn code(&self) -> &Arc<str> {
        &self.code
    }

    /// The handle through which `connection` reaches a room that another
    /// node owns.
    pub fn remote(code: Arc<str>, remote: crate::cluster::RemoteRoom) -> RoomHandle {
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

/// What a room works with that it shares with the rest of the server: one
/// value, handed over when the room is spawned and kept whole.
#[derive(Clone, Debug)]
pub struct Context {
    pub config: Arc<Config>,
    /// Where the room reads the mark its event numbers start above when it
    /// opens; everything else it stores goes through the journal.
    pub store: Store,
    pub lobby: mpsc::UnboundedSender<LobbyNote>,
    pub journal: Journal,
    pub lifecycle: Arc<Lifecycle>,
    /// Where tournament tables report their game's start and end (once
    /// stored).
    pub tournaments: mpsc::UnboundedSender<TableNote>,
    pub metrics: Arc<Metrics>,
    /// Places for strong bots thinking at once, shared by every room (see
    /// [`strong_bot_places`]).
    pub strong_bots: Arc<Semaphore>,
    /// Each player's chat lines, counted across the server's rooms.
    pub chat_limits: Arc<ChatLimits>,
}

/// Places for the strong bots that may think at once in one server:
/// `Config::strong_bots_at_once`, one for each core unless it says. Each
/// thinks on a thread of its own for up to `bot_time`; past this many, a
/// card falls to the basic bot, so that rooms full of strong bots cannot
/// take the machine from the other tables.
pub fn strong_bot_places(config: &Config) -> Arc<Semaphore> {
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

/// The longest a connection waits for a room it leaves to let go of it.
const LEAVE_WAIT: Duration = Duration::from_secs(5);

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
    seats: [Option<Arc<str>>; 4],
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
}

/// A room counted among the open ones, and its game among those played,
/// until it is dropped, however its task ends.
#[derive(Debug)]
struct Counted {
    metrics: Arc<Metrics>,
    game: bool,
}

impl Counted {
    fn new(metrics: Arc<Metrics>) -> Counted {
        metrics.rooms.inc();
        Counted { metrics, game: false }
    }

    /// Counts the game as played while `playing`.
    fn set_playing(&mut self, playing: bool) {
        if playing != self.game {
            if playing {
                self.metrics.games.inc();
            } else {
                self.metrics.games.dec();
            }
            self.game = playing;
        }
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.set_playing(false);
        self.metrics.rooms.dec();
    }
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

impl Room {
    async fn run(
        mut self,
        opening: Opening,
        mut requests: mpsc::Receiver<Box<RoomRequest>>,
        mut thoughts: mpsc::UnboundedReceiver<Thought>,
    ) {
        let stop = self.context.lifecycle.stopped();
        // The stop signal and the timer live as long as the room: making
        // them anew for every request would register each with the server's
        // shared token and timer wheel once per card played.
        let stopped = stop.cancelled();
        tokio::pin!(stopped);
        let waits_for_store = !matches!(opening, Opening::Empty);
        let seqs = match &opening {
            // A resumed room was opened in the store before its game was read.
            Opening::Resumed(resumed) => Some(resumed.opened),
            _ => tokio::select! {
                () = &mut stopped => return,
                seqs = self.open_numbering(waits_for_store) => seqs,
            },
        };
        let Some(seqs) = seqs else {
            self.refuse_unopened(&mut requests);
            let _ = self.context.lobby.send(LobbyNote::Closed {
                code: self.settings.code.clone(),
            });
            return;
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
        let timer = tokio::time::sleep_until(Instant::now());
        tokio::pin!(timer);
        let mut armed = None;
        // A game that started as the room opened is stored at once, not at
        // the room's first event.
        if !self.store_pending().await {
            return self.lost();
        }
        self.counted.set_playing(self.stage.playing().is_some());
        loop {
            let wake = self.next_wake();
            if wake != armed {
                if let Some(at) = wake {
                    timer.as_mut().reset(at);
                }
                armed = wake;
            }
            tokio::select! {
                // Stopping leaves the game as it is in the store, to be
                // resumed at the next start.
                () = &mut stopped => return,
                request = requests.recv() => match request {
                    Some(request) => self.handle(*request),
                    None => break,
                },
                Some(thought) = thoughts.recv() => self.on_thought(thought),
                () = &mut timer, if armed.is_some() => self.on_time(Instant::now()),
            }
            // What players are about to learn must be stored first.
            if !self.store_pending().await {
                return self.lost();
            }
            for member in self.members.values_mut() {
                member.flush();
            }
            if let Some(at) = self.acted_at.take() {
                self.context
                    .metrics
                    .action_time
                    .observe(at.elapsed().as_secs_f64());
            }
            self.counted.set_playing(self.stage.playing().is_some());
            if self.is_empty() {
                break;
            }
        }
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
                    outbox.send(Utf8Bytes::from(refusal(id).to_json()));
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
            RoomRequest::Sit { player, id, seat } => {
                let result = self.sit(&player, seat);
                self.answer(&player, id, result);
            }
            RoomRequest::Stand { player, id } => {
                let result = self.stand(&player);
                self.answer(&player, id, result);
            }
            RoomRequest::Start { player, id } => {
                let result = self.start(&player);
                self.answer(&player, id, result);
            }
            RoomRequest::AddBot { player, id, seat } => {
                let result = self.add_bot(&player, seat);
                self.answer(&player, id, result);
            }
            RoomRequest::RemoveBot { player, id, seat } => {
                let result = self.remove_bot(&player, seat);
                self.answer(&player, id, result);
            }
            RoomRequest::Act {
                player,
                id,
                action,
                received,
            } => {
                let before = self.log.seq();
                self.act(&player, id, action);
                if self.log.seq() != before {
                    self.acted_at = Some(received);
                }
            }
            RoomRequest::Chat { player, id, text } => self.chat(&player, id, text),
        }
    }

    fn answer(&mut self, player: &str, id: MessageId, result: Result<(), Refusal>) {
        match result {
            Ok(()) => self.ack(player, id),
            Err(refusal) => self.refuse(player, Some(id), refusal),
        }
    }
}
