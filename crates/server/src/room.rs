//! A room and its table: one actor task that owns the seats, the members,
//! the engine game, the event log and the clocks.
//!
//! The room applies requests one at a time, in the order they arrive, and
//! never waits on a connection: replies and events are pushed into each
//! member's outbox, which never blocks; the only thing it waits for is the
//! journal storing what players are about to learn. Every event gets the next sequence number and is
//! kept, as sent, in a bounded log so that a client that reconnects can be
//! sent exactly what it missed.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use spades_bots::{BasicBot, Budget, Player, StrongBot};
use spades_engine::{Action, Bid, Event, Game, Legal, RuleSet, Seat, SeatSet, Team, Viewer};
use spades_protocol::history::HandLine;
use spades_protocol::ws::{
    AutoReason, BotLevel, ErrorCode, MAX_CHAT_CHARS, MessageId, RoomState, RoomStatus, RoomSummary, SeatInfo,
    ServerMessage,
};
use spades_store::{FinishedGame, NewGame, PlayerStats, RoomSeqs, Store, StoredGame, TableLink, Write};
use time::OffsetDateTime;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use uuid::Uuid;

use crate::Lifecycle;
use crate::config::Config;
use crate::event_log::{EventLog, Sent};
use crate::identity::PlayerRef;
use crate::journal::Journal;
use crate::lobby::LobbyNote;
use crate::outbox::{Batch, ConnectionId, Outbox};
use crate::render;

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
    Matched(Box<[PlayerRef; 4]>),
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
    },
    Chat {
        player: Arc<str>,
        id: MessageId,
        text: String,
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
    requests: mpsc::Sender<RoomRequest>,
}

/// The room has closed.
#[derive(Debug)]
pub struct RoomGone;

impl RoomHandle {
    pub fn code(&self) -> &Arc<str> {
        &self.code
    }

    pub async fn send(&self, request: RoomRequest) -> Result<(), RoomGone> {
        self.requests.send(request).await.map_err(|_| RoomGone)
    }

    /// Takes the player out of the room and waits until the room has let
    /// go of his connection, so that nothing of this room reaches it
    /// after whatever the connection does next.
    ///
    /// A room answers within microseconds, unless it is still opening
    /// while the store is down; the wait is bounded so that the connection
    /// is not held for the length of an outage.
    pub async fn leave(&self, player: Arc<str>) -> Result<(), RoomGone> {
        let (left, done) = oneshot::channel();
        self.send(RoomRequest::Leave { player, left }).await?;
        match tokio::time::timeout(LEAVE_WAIT, done).await {
            Ok(answer) => answer.map_err(|_| RoomGone),
            Err(_) => Ok(()),
        }
    }
}

/// What a room shares with the rest of the server.
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
}

/// A game read back from the store, replayed to where it stopped.
#[derive(Debug)]
pub struct Resumed {
    id: Uuid,
    number: u32,
    seed: u64,
    game: Game,
    /// How many actions the stored game holds.
    actions: u32,
    stats: [PlayerStats; 4],
    players: [PlayerRef; 4],
    /// Each seat's last requests that made actions, oldest first, with the
    /// room's event after each: a player who sends one again after the
    /// restart is answered as before it.
    requests: [Vec<(MessageId, Action, u64)>; 4],
}

impl Resumed {
    /// Replays a stored game. Fails if the stored rules or actions do not
    /// make a game.
    pub fn from_store(stored: StoredGame, owner: PlayerRef) -> Result<(Settings, Resumed), String> {
        let rules: RuleSet =
            serde_json::from_value(stored.rules).map_err(|error| format!("rules: {error}"))?;
        let mut game = Game::new(rules, stored.seed).map_err(|error| error.to_string())?;
        let mut stats = [PlayerStats::default(); 4];
        let mut requests: [Vec<(MessageId, Action, u64)>; 4] = Default::default();
        for (index, stored_action) in stored.actions.iter().enumerate() {
            let seat = stored_action.seat;
            let seat = Seat::new(seat).ok_or_else(|| format!("action {index}: no seat {seat}"))?;
            let action: Action = stored_action
                .action
                .parse()
                .map_err(|error| format!("action {index}: {error}"))?;
            let events = game
                .apply(seat, action)
                .map_err(|error| format!("action {index} refused: {error}"))?;
            if events
                .iter()
                .any(|event| matches!(event, Event::HandEnded { .. }))
            {
                count_hand(&game, &mut stats);
            }
            // An id that does not read back only costs its retry the
            // duplicate answer.
            let request = stored_action
                .request_id
                .as_deref()
                .and_then(|id| serde_json::from_str::<MessageId>(id).ok());
            if let (Some(id), Some(seq)) = (request, stored_action.room_seq) {
                let recent = &mut requests[seat.index()];
                if recent.len() == RECENT_IDS {
                    recent.remove(0);
                }
                recent.push((id, action, seq));
            }
        }
        let actions = stored.actions.len() as u32;
        if stored.players.len() != 4 {
            return Err(format!("{} players stored", stored.players.len()));
        }
        let players: [PlayerRef; 4] =
            std::array::from_fn(|i| PlayerRef::new(stored.players[i].account_id, &stored.players[i].name));
        // The room's bot level is not stored with the game; a strong bot in
        // a seat says it was strong.
        let bots = if players.iter().any(|player| player.bot == Some(BotLevel::Strong)) {
            BotLevel::Strong
        } else {
            BotLevel::Basic
        };
        let summary = stored.summary;
        let tournament = stored.tournament;
        let settings = Settings {
            tournament,
            code: summary.room.as_str().into(),
            name: summary.room_name,
            private: summary.private,
            rules,
            owner,
            bots,
        };
        let resumed = Resumed {
            id: summary.id,
            number: summary.number.max(0) as u32,
            seed: stored.seed,
            game,
            actions,
            stats,
            players,
            requests,
        };
        Ok((settings, resumed))
    }

    pub fn players(&self) -> &[PlayerRef; 4] {
        &self.players
    }
}

/// Adds a finished hand to each player's counts: a number bid, and whether
/// his team made its contract; a nil tried, and whether it was made.
fn count_hand(game: &Game, stats: &mut [PlayerStats; 4]) {
    let (Some(record), Some(scores)) = (game.last_hand(), game.last_hand_scores()) else {
        return;
    };
    for bid in &record.bids {
        let seat = bid.seat;
        let counts = &mut stats[seat.index()];
        if bid.bid == 0 {
            counts.nils_tried += 1;
            counts.nils_made += u32::from(record.tricks_won[seat] == 0);
        } else {
            let team = scores[seat.team()];
            counts.bids_total += 1;
            counts.bids_made += u32::from(team.counted_tricks >= team.contract);
        }
    }
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
        requests,
    };
    let summary = opening_summary(&settings, &opening);
    let room = Room {
        log: EventLog::new(settings.code.clone(), context.config.resync_window, 0),
        reserved: 0,
        settings,
        config: context.config,
        store: context.store,
        lobby: context.lobby,
        journal: context.journal,
        lifecycle: context.lifecycle,
        tournaments: context.tournaments,
        reported: None,
        members: HashMap::new(),
        seats: Default::default(),
        table: None,
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
    let (status, seats) = match opening {
        Opening::Empty => (RoomStatus::Waiting, Default::default()),
        Opening::Resumed(resumed) => (
            RoomStatus::Playing,
            resumed.players.clone().map(|p| Some(p.info())),
        ),
        Opening::Matched(players) => (RoomStatus::Playing, (**players).clone().map(|p| Some(p.info()))),
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

/// A decision a strong bot made away from the room's task.
#[derive(Debug)]
struct Thought {
    seat: Seat,
    /// How many actions the game had when the bot started thinking: if it
    /// has more now, the decision is stale.
    actions: u32,
    /// Whether it was the player's clock that ran out (rather than the seat
    /// being a bot's or an absent player's).
    for_clock: bool,
    action: Option<Action>,
}

/// Someone in the room: a seated player (connected or not) or a spectator.
#[derive(Debug)]
struct Member {
    player: PlayerRef,
    outbox: Option<Outbox>,
    seat: Option<Seat>,
    /// The last requests applied for this member, as a hash of the id and
    /// the request, with the event after it: a retry (the same id with the
    /// same request) is answered without being applied twice.
    recent: VecDeque<(u64, u64)>,
    /// When this member's recent chat messages were sent.
    chat: VecDeque<Instant>,
    /// Messages for this member from the request being handled, sent as
    /// one batch when it is done.
    batch: Vec<Utf8Bytes>,
    /// Whether that batch must be written at once.
    urgent: bool,
    /// A quick-play player who has not come in yet: his first arrival is
    /// not a return.
    fresh: bool,
}

/// A 64-bit digest of a request and its id. Two different requests would
/// have to collide among a member's last few for a retry to be mistaken.
fn retry_key(id: &MessageId, request: &Applied) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    id.hash(&mut hasher);
    request.hash(&mut hasher);
    hasher.finish()
}

/// A request whose retry must not be applied again.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
enum Applied {
    Action(Action),
    Chat(String),
}

/// Games started by this process, for seeds derived from `Config::seed`.
static GAMES_STARTED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many action ids a member's duplicate check remembers.
const RECENT_IDS: usize = 16;

impl Member {
    fn new(player: PlayerRef, outbox: Option<Outbox>) -> Member {
        Member {
            player,
            outbox,
            seat: None,
            recent: VecDeque::new(),
            chat: VecDeque::new(),
            batch: Vec::new(),
            urgent: false,
            fresh: false,
        }
    }

    fn is_bot(&self) -> bool {
        self.player.bot.is_some()
    }

    fn already_done(&self, id: &MessageId, request: &Applied) -> Option<u64> {
        let key = retry_key(id, request);
        self.recent
            .iter()
            .find(|(seen, _)| *seen == key)
            .map(|&(_, seq)| seq)
    }

    fn remember(&mut self, id: &MessageId, request: &Applied, seq: u64) {
        if self.recent.len() == RECENT_IDS {
            self.recent.pop_front();
        }
        self.recent.push_back((retry_key(id, request), seq));
    }

    /// Queues a reply: it goes out, at once, when the request is done.
    fn send(&mut self, message: &ServerMessage) {
        if self.outbox.is_some() {
            self.batch.push(Utf8Bytes::from(message.to_json()));
            self.urgent = true;
        }
    }

    /// Sends what was queued for this member while handling one request.
    fn flush(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        let messages = std::mem::take(&mut self.batch);
        if let Some(outbox) = &self.outbox {
            outbox.send_batch(Batch {
                messages,
                urgent: self.urgent,
            });
        }
        self.urgent = false;
    }
}

/// The game being played, with its clocks.
#[derive(Debug)]
struct Table {
    /// The game's id in the store.
    id: Uuid,
    game: Game,
    number: u32,
    seed: u64,
    /// Each seat's counts so far, stored when the game ends.
    stats: [PlayerStats; 4],
    /// How many actions the game has taken. The actions themselves go to
    /// the journal as they happen; keeping them here as well would grow
    /// every room by a few kilobytes a hand for nothing.
    actions: u32,
    /// When each acting seat's turn clock runs out.
    deadlines: [Option<Instant>; 4],
    /// When each disconnected seat stops being held.
    holds: [Option<Instant>; 4],
    /// Seats the server plays for at once: their holder is gone for good or
    /// left the room.
    away: SeatSet,
    /// Seats held by bots.
    bots: SeatSet,
    /// Seats whose strong bot is thinking away from the room's task.
    thinking: SeatSet,
    over: bool,
}

impl Table {
    /// Seats the server plays for: bots, and players who are away.
    fn played_by_server(&self) -> SeatSet {
        let mut seats = self.away;
        for seat in self.bots.iter() {
            seats.insert(seat);
        }
        seats
    }
}

impl Table {
    fn clocks(&self, now: Instant) -> [Option<Duration>; 4] {
        self.deadlines
            .map(|deadline| deadline.map(|at| at.saturating_duration_since(now)))
    }
}

struct Room {
    settings: Settings,
    config: Arc<Config>,
    store: Store,
    /// The highest event number the store allows the room (see
    /// [`SEQ_RESERVE`]).
    reserved: u64,
    lobby: mpsc::UnboundedSender<LobbyNote>,
    journal: Journal,
    lifecycle: Arc<Lifecycle>,
    tournaments: mpsc::UnboundedSender<TableNote>,
    /// What to tell the tournament once the writes pending are stored.
    reported: Option<TableNote>,
    /// Writes made while handling the current request; they are stored
    /// before its messages are sent.
    pending: Vec<Write>,
    members: HashMap<Arc<str>, Member>,
    seats: [Option<Arc<str>>; 4],
    table: Option<Table>,
    games: u32,
    log: EventLog,
    /// Where strong bots thinking away from the task send their decisions.
    thoughts: mpsc::UnboundedSender<Thought>,
}

/// A refusal to send back to the requester.
struct Refusal(ErrorCode, String);

impl Refusal {
    fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal(code, message.into())
    }
}

impl Room {
    async fn run(
        mut self,
        opening: Opening,
        mut requests: mpsc::Receiver<RoomRequest>,
        mut thoughts: mpsc::UnboundedReceiver<Thought>,
    ) {
        let stop = self.lifecycle.stopped();
        // The stop signal and the timer live as long as the room: making
        // them anew for every request would register each with the server's
        // shared token and timer wheel once per card played.
        let stopped = stop.cancelled();
        tokio::pin!(stopped);
        let waits_for_store = !matches!(opening, Opening::Empty);
        let seqs = tokio::select! {
            () = &mut stopped => return,
            seqs = self.open_numbering(waits_for_store) => seqs,
        };
        let Some(seqs) = seqs else {
            self.refuse_unopened(&mut requests);
            let _ = self.lobby.send(LobbyNote::Closed {
                code: self.settings.code.clone(),
            });
            return;
        };
        self.log = EventLog::new(self.settings.code.clone(), self.config.resync_window, seqs.base);
        self.reserved = seqs.reserved;
        match opening {
            Opening::Empty => {}
            Opening::Resumed(resumed) => self.resume(*resumed),
            Opening::Matched(players) => self.open_matched(*players),
        }
        let timer = tokio::time::sleep_until(Instant::now());
        tokio::pin!(timer);
        let mut armed = None;
        // A game that started as the room opened is stored at once, not at
        // the room's first event.
        self.store_pending().await;
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
                    Some(request) => self.handle(request),
                    None => break,
                },
                Some(thought) = thoughts.recv() => self.on_thought(thought),
                () = &mut timer, if armed.is_some() => self.on_time(Instant::now()),
            }
            // What players are about to learn must be stored first.
            self.store_pending().await;
            for member in self.members.values_mut() {
                member.flush();
            }
            if self.is_empty() {
                break;
            }
        }
        for (_, player) in self.seated() {
            let _ = self.lobby.send(LobbyNote::Unseated {
                player,
                code: self.settings.code.clone(),
            });
        }
        let _ = self.lobby.send(LobbyNote::Closed {
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
            match self.store.open_room(&self.settings.code, SEQ_RESERVE).await {
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
    fn refuse_unopened(&self, requests: &mut mpsc::Receiver<RoomRequest>) {
        requests.close();
        let refusal = |id: MessageId| ServerMessage::Error {
            id: Some(id),
            code: ErrorCode::ServerBusy,
            message: "storage is unavailable: the room could not open; try again later".into(),
        };
        while let Ok(request) = requests.try_recv() {
            match request {
                RoomRequest::Join { outbox, id, .. } | RoomRequest::Resync { outbox, id, .. } => {
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
    /// tournament, if any, what they were about.
    async fn store_pending(&mut self) {
        if !self.pending.is_empty() {
            self.journal.commit(std::mem::take(&mut self.pending)).await;
        }
        if let Some(note) = self.reported.take() {
            let _ = self.tournaments.send(note);
        }
    }

    /// Sets the room up around a game resumed from the store: its players
    /// hold their seats, disconnected, until they come back.
    fn resume(&mut self, resumed: Resumed) {
        let hold = Instant::now() + self.config.seat_hold;
        let mut bots = SeatSet::EMPTY;
        let mut holds = [None; 4];
        for ((seat, player), requests) in Seat::ALL.into_iter().zip(resumed.players).zip(resumed.requests) {
            if player.bot.is_some() {
                bots.insert(seat);
            } else {
                holds[seat.index()] = Some(hold);
            }
            let key = self.seat_member(seat, player.renumbered(seat.index() as u8));
            if let Some(member) = self.members.get_mut(&key) {
                for (id, action, seq) in requests {
                    member.remember(&id, &Applied::Action(action), seq);
                }
            }
        }
        self.games = resumed.number + 1;
        self.table = Some(Table {
            id: resumed.id,
            game: resumed.game,
            number: resumed.number,
            seed: resumed.seed,
            stats: resumed.stats,
            actions: resumed.actions,
            deadlines: [None; 4],
            holds,
            away: SeatSet::EMPTY,
            bots,
            thinking: SeatSet::EMPTY,
            over: false,
        });
        // Clocks start afresh; nobody is connected to be told yet.
        self.schedule_turn(None);
    }

    /// Sets up a quick-play table and starts its game: the players' seats
    /// are held for them, as after a restart, until they come in.
    fn open_matched(&mut self, players: [PlayerRef; 4]) {
        for (seat, player) in Seat::ALL.into_iter().zip(players) {
            let key = self.seat_member(seat, player);
            if let Some(member) = self.members.get_mut(&key) {
                member.fresh = !member.is_bot();
            }
        }
        if let Err(Refusal(code, message)) = self.start_game() {
            tracing::warn!(room = %self.settings.code, ?code, message, "a quick-play game could not start");
            return;
        }
        let hold = Instant::now() + self.config.seat_hold;
        if let Some(table) = self.table.as_mut() {
            for seat in Seat::ALL {
                if !table.bots.contains(seat) {
                    table.holds[seat.index()] = Some(hold);
                }
            }
        }
    }

    /// Seats a member who is not connected (yet): a player of a resumed or
    /// quick-play game, or a bot. Returns his key.
    fn seat_member(&mut self, seat: Seat, player: PlayerRef) -> Arc<str> {
        let key = player.id.clone();
        let mut member = Member::new(player, None);
        member.seat = Some(seat);
        self.members.insert(key.clone(), member);
        self.seats[seat.index()] = Some(key.clone());
        key
    }

    /// A room with nobody but bots in it and no game under way closes.
    fn is_empty(&self) -> bool {
        self.members.values().all(Member::is_bot) && self.table.as_ref().is_none_or(|table| table.over)
    }

    fn status(&self) -> RoomStatus {
        match &self.table {
            None => RoomStatus::Waiting,
            Some(table) if table.over => RoomStatus::Finished,
            Some(_) => RoomStatus::Playing,
        }
    }

    fn playing(&self) -> bool {
        self.table.as_ref().is_some_and(|table| !table.over)
    }

    fn seated(&self) -> impl Iterator<Item = (Seat, Arc<str>)> + '_ {
        Seat::ALL
            .into_iter()
            .filter_map(|seat| self.seats[seat.index()].clone().map(|player| (seat, player)))
    }

    fn spectators(&self) -> u32 {
        self.members
            .values()
            .filter(|member| member.seat.is_none())
            .count() as u32
    }

    fn seat_infos(&self) -> [Option<SeatInfo>; 4] {
        Seat::ALL.map(|seat| {
            let member = self.members.get(self.seats[seat.index()].as_ref()?)?;
            Some(SeatInfo {
                seat,
                player: member.player.info(),
                // A bot is always there.
                connected: member.outbox.is_some() || member.is_bot(),
                away: self.table.as_ref().is_some_and(|table| table.away.contains(seat)),
            })
        })
    }

    fn summary(&self) -> RoomSummary {
        RoomSummary {
            room: self.settings.code.to_string(),
            name: self.settings.name.clone(),
            rules: self.settings.rules.name().to_string(),
            private: self.settings.private,
            status: self.status(),
            seats: Seat::ALL.map(|seat| {
                let player = self.seats[seat.index()].as_ref()?;
                self.members.get(player).map(|member| member.player.info())
            }),
            spectators: self.spectators(),
        }
    }

    fn state_for(&self, player: &str) -> RoomState {
        let seat = self.members.get(player).and_then(|member| member.seat);
        let viewer = seat.map_or(Viewer::Spectator, Viewer::Seat);
        let now = Instant::now();
        RoomState {
            room: self.settings.code.to_string(),
            name: self.settings.name.clone(),
            private: self.settings.private,
            rules: self.settings.rules,
            bots: self.settings.bots,
            status: self.status(),
            owner: self.settings.owner.info(),
            seats: self.seat_infos(),
            spectators: self.spectators(),
            your_seat: seat,
            games: self.games,
            game: self.table.as_ref().map(|table| {
                render::game_view(&table.game, (table.number, table.id), &table.clocks(now), viewer)
            }),
        }
    }

    // Sending.

    fn reply(&mut self, player: &str, message: &ServerMessage) {
        if let Some(member) = self.members.get_mut(player) {
            member.send(message);
        }
    }

    fn refuse(&mut self, player: &str, id: Option<MessageId>, refusal: Refusal) {
        self.reply(
            player,
            &ServerMessage::Error {
                id,
                code: refusal.0,
                message: refusal.1,
            },
        );
    }

    fn ack(&mut self, player: &str, id: MessageId) {
        self.reply(
            player,
            &ServerMessage::Ack {
                id,
                seq: Some(self.log.seq()),
                duplicate: false,
            },
        );
    }

    /// Logs an event and sends it to every member: `make(seq, None)` is the
    /// public version and `make(seq, Some(seat))` the version for a seat,
    /// which is sent only when `private` holds that seat.
    fn emit(&mut self, private: SeatSet, make: impl Fn(u64, Option<Seat>) -> ServerMessage) {
        let seq = self.log.next_seq();
        if seq > self.reserved {
            // Stored with the request's other writes, before its messages go.
            self.reserved = seq - 1 + SEQ_RESERVE;
            self.pending.push(Write::RoomSeq {
                room: self.code(),
                seq: self.reserved,
            });
        }
        let message = make(seq, None);
        let public = Utf8Bytes::from(message.to_json());
        let versions: Vec<(Seat, ServerMessage, Utf8Bytes)> = private
            .iter()
            .map(|seat| {
                let message = make(seq, Some(seat));
                let text = Utf8Bytes::from(message.to_json());
                (seat, message, text)
            })
            .collect();
        for member in self.members.values_mut() {
            if member.outbox.is_some() {
                let text = member
                    .seat
                    .and_then(|seat| versions.iter().find(|(own, ..)| *own == seat))
                    .map_or(&public, |(.., text)| text);
                member.batch.push(text.clone());
            }
        }
        let kept: Vec<(SeatSet, Sent<'_>)> = versions
            .iter()
            .map(|(seat, message, text)| {
                let text = text.as_str();
                (SeatSet::single(*seat), Sent { message, text })
            })
            .collect();
        let text = public.as_str();
        self.log.push(
            Sent {
                message: &message,
                text,
            },
            &kept,
        );
    }

    /// Tells the lobby how the room looks now.
    fn announce(&self) {
        let _ = self.lobby.send(LobbyNote::Changed {
            summary: Box::new(self.summary()),
        });
    }

    fn code(&self) -> String {
        self.settings.code.to_string()
    }

    fn emit_seats(&mut self) {
        let (room, seats, spectators, owner) = (
            self.code(),
            self.seat_infos(),
            self.spectators(),
            self.settings.owner.info(),
        );
        self.emit(SeatSet::EMPTY, |seq, _| ServerMessage::Seats {
            room: room.clone(),
            seq,
            seats: seats.clone(),
            spectators,
            owner: owner.clone(),
        });
        self.announce();
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
            RoomRequest::Act { player, id, action } => self.act(&player, id, action),
            RoomRequest::Chat { player, id, text } => self.chat(&player, id, text),
        }
    }

    fn answer(&mut self, player: &str, id: MessageId, result: Result<(), Refusal>) {
        match result {
            Ok(()) => self.ack(player, id),
            Err(refusal) => self.refuse(player, Some(id), refusal),
        }
    }

    /// Enters or re-enters the room. With `last_seq`, the missed events are
    /// sent if the log still has them; otherwise, and on a plain join, a
    /// snapshot is.
    ///
    /// What the join itself causes (a `seats` or `player_back` event) is
    /// emitted first, so that the reply comes after it: a snapshot then
    /// shows the room as of that event, and a catch-up ends with it.
    fn join(&mut self, player: PlayerRef, outbox: Outbox, id: MessageId, last_seq: Option<u64>) {
        let key = player.id.clone();
        let is_new = !self.members.contains_key(&key);
        let member = self
            .members
            .entry(key.clone())
            .or_insert_with(|| Member::new(player, None));
        let seat = member.seat;
        let was_detached = member.outbox.is_none() && !is_new;
        let first_arrival = std::mem::take(&mut member.fresh);
        let connection = outbox.id();
        if let Some(old) = member.outbox.replace(outbox)
            && old.id() != connection
        {
            old.close(crate::outbox::CloseReason::Replaced);
        }

        if let Some(seat) = seat {
            let mut returned = was_detached && !first_arrival;
            if let Some(table) = self.table.as_mut() {
                let held = table.holds[seat.index()].is_some() && !first_arrival;
                returned |= table.away.contains(seat) || held;
                table.holds[seat.index()] = None;
                table.away.remove(seat);
                // He gets his own clock back rather than being played for.
                if table.deadlines[seat.index()].is_some() || table.thinking.contains(seat) {
                    table.deadlines[seat.index()] = Some(Instant::now() + self.config.turn_time);
                }
            }
            if returned {
                let room = self.code();
                self.emit(SeatSet::EMPTY, |seq, _| ServerMessage::PlayerBack {
                    room: room.clone(),
                    seq,
                    seat,
                });
                self.emit_turn_if_playing();
            } else if first_arrival {
                // The others see him connected; he has the turn in his snapshot.
                self.emit_seats();
            }
        } else if is_new {
            self.emit_seats();
        }

        // The client's catch-up replaces what the join queued for him: it
        // holds those events (or the state after them) and the turn. It
        // goes as one batch, however long, so that it takes one place in
        // the outbox, and like every message after the request's writes
        // are stored.
        let catch_up = match last_seq.and_then(|seq| self.log.since(seq, seat)) {
            Some(mut messages) => {
                let viewer = seat.map_or(Viewer::Spectator, Viewer::Seat);
                if let Some(turn) = self.turn_message(viewer) {
                    messages.push(Utf8Bytes::from(turn.to_json()));
                }
                let ack = ServerMessage::Ack {
                    id,
                    seq: Some(self.log.seq()),
                    duplicate: false,
                };
                messages.push(Utf8Bytes::from(ack.to_json()));
                messages
            }
            None => {
                let snapshot = ServerMessage::Snapshot {
                    id: Some(id),
                    seq: self.log.seq(),
                    state: Box::new(self.state_for(&key)),
                };
                vec![Utf8Bytes::from(snapshot.to_json())]
            }
        };
        let member = self.members.get_mut(&key).expect("inserted above");
        member.batch = catch_up;
        member.urgent = true;
    }

    fn leave(&mut self, player: &str) {
        let Some(member) = self.members.get_mut(player) else {
            return;
        };
        member.outbox = None;
        let seat = member.seat;
        match seat {
            Some(seat) if self.playing() => {
                // Leaving a game in progress gives the seat to the server
                // until the player comes back.
                if let Some(table) = self.table.as_mut() {
                    table.holds[seat.index()] = None;
                    table.away.insert(seat);
                    if table.deadlines[seat.index()].is_some() {
                        table.deadlines[seat.index()] = Some(Instant::now());
                    }
                }
                let room = self.code();
                self.emit(SeatSet::EMPTY, |seq, _| ServerMessage::PlayerAway {
                    room: room.clone(),
                    seq,
                    seat,
                    hold_ms: 0,
                });
            }
            Some(seat) => self.free_seat(seat),
            None => {
                self.members.remove(player);
                self.emit_seats();
            }
        }
    }

    fn detach(&mut self, player: &str, connection: ConnectionId) {
        let Some(member) = self.members.get_mut(player) else {
            return;
        };
        if member
            .outbox
            .as_ref()
            .is_none_or(|outbox| outbox.id() != connection)
        {
            // An older connection of a player who is already back.
            return;
        }
        member.outbox = None;
        match member.seat {
            Some(seat) => {
                let hold = self.config.seat_hold;
                if let Some(table) = self.table.as_mut().filter(|table| !table.over) {
                    table.holds[seat.index()] = Some(Instant::now() + hold);
                    let room = self.code();
                    self.emit(SeatSet::EMPTY, |seq, _| ServerMessage::PlayerAway {
                        room: room.clone(),
                        seq,
                        seat,
                        hold_ms: hold.as_millis() as u64,
                    });
                } else {
                    // Between games the seat is simply given up.
                    self.free_seat(seat);
                }
            }
            None => {
                self.members.remove(player);
                self.emit_seats();
            }
        }
    }

    /// Empties a seat and forgets its player if he is not connected.
    fn free_seat(&mut self, seat: Seat) {
        let Some(player) = self.seats[seat.index()].take() else {
            return;
        };
        if let Some(member) = self.members.get_mut(&player) {
            member.seat = None;
            if member.outbox.is_none() {
                self.members.remove(&player);
            }
        }
        let _ = self.lobby.send(LobbyNote::Unseated {
            player,
            code: self.settings.code.clone(),
        });
        self.emit_seats();
    }

    fn member_seat(&self, player: &str) -> Result<Option<Seat>, Refusal> {
        self.members
            .get(player)
            .map(|member| member.seat)
            .ok_or_else(|| Refusal::new(ErrorCode::NotInRoom, "you are not in this room"))
    }

    fn sit(&mut self, player: &str, wanted: Option<Seat>) -> Result<(), Refusal> {
        let current = self.member_seat(player)?;
        if self.playing() {
            return match current {
                Some(seat) if wanted.is_none_or(|wanted| wanted == seat) => Ok(()),
                _ => Err(Refusal::new(
                    ErrorCode::GameInProgress,
                    "seats cannot change while a game is being played",
                )),
            };
        }
        let free = |seat: Seat| self.seats[seat.index()].is_none();
        let seat = match wanted {
            Some(seat) if current == Some(seat) => return Ok(()),
            Some(seat) if free(seat) => seat,
            Some(seat) => return Err(Refusal::new(ErrorCode::SeatTaken, format!("{seat} is taken"))),
            None if current.is_some() => return Ok(()),
            None => Seat::ALL
                .into_iter()
                .find(|&seat| free(seat))
                .ok_or_else(|| Refusal::new(ErrorCode::SeatTaken, "every seat is taken"))?,
        };
        if let Some(old) = current {
            self.seats[old.index()] = None;
        }
        let key: Arc<str> = self
            .members
            .get_key_value(player)
            .expect("checked above")
            .0
            .clone();
        self.seats[seat.index()] = Some(key.clone());
        if let Some(member) = self.members.get_mut(player) {
            member.seat = Some(seat);
        }
        let _ = self.lobby.send(LobbyNote::Seated {
            player: key,
            code: self.settings.code.clone(),
        });
        self.emit_seats();
        Ok(())
    }

    fn stand(&mut self, player: &str) -> Result<(), Refusal> {
        let seat = self
            .member_seat(player)?
            .ok_or_else(|| Refusal::new(ErrorCode::NotSeated, "you have no seat"))?;
        if self.playing() {
            return Err(Refusal::new(
                ErrorCode::GameInProgress,
                "you cannot stand up during a game; leave the room instead",
            ));
        }
        self.seats[seat.index()] = None;
        if let Some(member) = self.members.get_mut(player) {
            member.seat = None;
        }
        if let Some((player, _)) = self.members.get_key_value(player) {
            let _ = self.lobby.send(LobbyNote::Unseated {
                player: player.clone(),
                code: self.settings.code.clone(),
            });
        }
        self.emit_seats();
        Ok(())
    }

    fn start(&mut self, player: &str) -> Result<(), Refusal> {
        self.member_seat(player)?
            .ok_or_else(|| Refusal::new(ErrorCode::NotSeated, "only a seated player can start the game"))?;
        self.start_game()
    }

    /// Starts a game with the players in the seats.
    fn start_game(&mut self) -> Result<(), Refusal> {
        if self.settings.tournament.is_some() && self.table.is_some() {
            return Err(Refusal::new(
                ErrorCode::TournamentTable,
                "a tournament table plays one game; the tournament opens the next",
            ));
        }
        if self.playing() {
            return Err(Refusal::new(
                ErrorCode::GameInProgress,
                "a game is already being played",
            ));
        }
        if self.seats.iter().any(Option::is_none) {
            return Err(Refusal::new(
                ErrorCode::NotEnoughPlayers,
                "all four seats must be taken",
            ));
        }
        if self.lifecycle.is_draining() {
            return Err(Refusal::new(ErrorCode::ServerBusy, "the server is shutting down"));
        }
        if self.journal.is_degraded() {
            return Err(Refusal::new(
                ErrorCode::ServerBusy,
                "storage is unavailable: games in play go on, but none can start",
            ));
        }
        let mut players = [Uuid::nil(); 4];
        let mut bots = SeatSet::EMPTY;
        for (seat, key) in self.seated() {
            let member = self
                .members
                .get(&key)
                .ok_or_else(|| Refusal::new(ErrorCode::NotEnoughPlayers, "all four seats must be taken"))?;
            players[seat.index()] = member.player.account;
            if member.is_bot() {
                bots.insert(seat);
            }
        }
        let seed = match self.config.seed {
            Some(base) => base.wrapping_add(GAMES_STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed)),
            None => uuid::Uuid::new_v4().as_u64_pair().0,
        };
        let game = Game::new(self.settings.rules, seed)
            .map_err(|error| Refusal::new(ErrorCode::Internal, error.to_string()))?;
        let number = self.games;
        self.games += 1;
        let id = Uuid::new_v4();
        self.pending.push(Write::Started(NewGame {
            id,
            room: self.code(),
            room_name: self.settings.name.clone(),
            private: self.settings.private,
            owner: self.settings.owner.account,
            number,
            rules: serde_json::to_value(self.settings.rules).unwrap_or_default(),
            seed,
            players,
            started_at: OffsetDateTime::now_utc(),
            tournament: self.settings.tournament,
        }));
        self.reported = self.settings.tournament.map(TableNote::Started);
        self.table = Some(Table {
            id,
            game,
            number,
            seed,
            stats: [PlayerStats::default(); 4],
            actions: 0,
            deadlines: [None; 4],
            holds: [None; 4],
            away: SeatSet::EMPTY,
            bots,
            thinking: SeatSet::EMPTY,
            over: false,
        });
        let (room, rules, game_id) = (self.code(), self.settings.rules, id.to_string());
        self.emit(SeatSet::EMPTY, |seq, _| ServerMessage::GameStarted {
            room: room.clone(),
            seq,
            game: number,
            game_id: game_id.clone(),
            rules,
        });
        self.emit_hand_started();
        self.schedule_turn(None);
        self.announce();
        Ok(())
    }

    /// Checks that `player` owns the room and that no game is being played.
    fn owner_between_games(&self, player: &str) -> Result<(), Refusal> {
        self.member_seat(player)?;
        if self.settings.tournament.is_some() {
            return Err(Refusal::new(
                ErrorCode::TournamentTable,
                "the tournament seats its tables",
            ));
        }
        if *self.settings.owner.id != *player {
            return Err(Refusal::new(
                ErrorCode::NotOwner,
                "only the room's owner can do that",
            ));
        }
        if self.playing() {
            return Err(Refusal::new(
                ErrorCode::GameInProgress,
                "bots can be added and removed only between games",
            ));
        }
        Ok(())
    }

    fn add_bot(&mut self, player: &str, wanted: Option<Seat>) -> Result<(), Refusal> {
        self.owner_between_games(player)?;
        let free = |seat: Seat| self.seats[seat.index()].is_none();
        let seat = match wanted {
            Some(seat) if free(seat) => seat,
            Some(seat) => return Err(Refusal::new(ErrorCode::SeatTaken, format!("{seat} is taken"))),
            None => Seat::ALL
                .into_iter()
                .find(|&seat| free(seat))
                .ok_or_else(|| Refusal::new(ErrorCode::SeatTaken, "every seat is taken"))?,
        };
        self.seat_member(seat, PlayerRef::bot(self.settings.bots, seat.index() as u8));
        self.emit_seats();
        Ok(())
    }

    fn remove_bot(&mut self, player: &str, seat: Seat) -> Result<(), Refusal> {
        self.owner_between_games(player)?;
        let is_bot = self.seats[seat.index()]
            .as_ref()
            .and_then(|key| self.members.get(key))
            .is_some_and(Member::is_bot);
        if !is_bot {
            return Err(Refusal::new(ErrorCode::NotABot, format!("no bot sits in {seat}")));
        }
        if let Some(key) = self.seats[seat.index()].take() {
            self.members.remove(&key);
        }
        self.emit_seats();
        Ok(())
    }

    fn act(&mut self, player: &str, id: MessageId, action: Action) {
        let seat = match self.member_seat(player) {
            Ok(Some(seat)) => seat,
            Ok(None) => {
                let refusal = Refusal::new(ErrorCode::NotSeated, "spectators cannot play");
                return self.refuse(player, Some(id), refusal);
            }
            Err(refusal) => return self.refuse(player, Some(id), refusal),
        };
        let applied = Applied::Action(action);
        if let Some(seq) = self
            .members
            .get(player)
            .and_then(|member| member.already_done(&id, &applied))
        {
            return self.reply(
                player,
                &ServerMessage::Ack {
                    id,
                    seq: Some(seq),
                    duplicate: true,
                },
            );
        }
        if !self.playing() {
            let refusal = match self.table {
                Some(_) => Refusal::new(
                    ErrorCode::GameOver,
                    "the game is over; a seated player can start the next one",
                ),
                None => Refusal::new(ErrorCode::NoGame, "no game is being played"),
            };
            return self.refuse(player, Some(id), refusal);
        }
        match self.apply(seat, action, Some(&id)) {
            Ok(()) => {
                let seq = self.log.seq();
                if let Some(member) = self.members.get_mut(player) {
                    member.remember(&id, &applied, seq);
                }
                self.ack(player, id);
            }
            Err(error) => {
                let refusal = Refusal::new(ErrorCode::from_rule_error(&error), error.to_string());
                self.refuse(player, Some(id), refusal);
            }
        }
    }

    /// Applies one action to the game and sends its events. `request` is
    /// the id of the player's message that asked for it, stored with it so
    /// that a retry is recognised even after a restart.
    fn apply(
        &mut self,
        seat: Seat,
        action: Action,
        request: Option<&MessageId>,
    ) -> Result<(), spades_engine::RuleError> {
        let table = self.table.as_mut().expect("only called while playing");
        let events = table.game.apply(seat, action)?;
        let write = self.pending.len();
        self.pending.push(Write::Action {
            game: table.id,
            index: table.actions,
            seat: seat.index() as u8,
            action: action.to_string(),
            request_id: request.map(|id| serde_json::to_string(id).unwrap_or_default()),
            room_seq: 0,
        });
        table.actions += 1;
        for event in events {
            self.emit_game_event(event);
        }
        // The action's own write comes before those of its events (a hand
        // record, the end of the game), and the event number it is
        // answered with is known only now.
        let after = self.log.seq();
        if let Some(Write::Action { room_seq, .. }) = self.pending.get_mut(write) {
            *room_seq = after;
        }
        self.schedule_turn(Some(seat));
        Ok(())
    }

    fn emit_game_event(&mut self, event: Event) {
        let room = self.code();
        let table = self.table.as_ref().expect("events come from a table");
        let game = &table.game;
        let hand_of = |seat: Seat| game.view(Viewer::Seat(seat)).hand();
        match event {
            Event::LookedAtHand { seat } => {
                let cards = hand_of(seat);
                self.emit(SeatSet::single(seat), |seq, viewer| ServerMessage::HandRevealed {
                    room: room.clone(),
                    seq,
                    seat,
                    cards: viewer.and(cards),
                });
            }
            Event::BidMade { seat, bid } => {
                let view = render::bid_view(bid);
                self.emit(SeatSet::EMPTY, |seq, _| ServerMessage::BidMade {
                    room: room.clone(),
                    seq,
                    seat,
                    bid: view.bid,
                    blind: view.blind,
                });
                if bid == Bid::BlindNil {
                    // Bidding blind nil is what shows the bidder his cards.
                    self.emit_game_event(Event::LookedAtHand { seat });
                }
            }
            Event::PassingStarted => self.emit(SeatSet::EMPTY, |seq, _| ServerMessage::PassingStarted {
                room: room.clone(),
                seq,
            }),
            Event::PassChosen { seat } => self.emit(SeatSet::EMPTY, |seq, _| ServerMessage::PassChosen {
                room: room.clone(),
                seq,
                seat,
            }),
            Event::CardsPassed { from, to, cards } => {
                let both: SeatSet = [from, to].into_iter().collect();
                self.emit(both, |seq, viewer| ServerMessage::CardsPassed {
                    room: room.clone(),
                    seq,
                    from,
                    to,
                    count: cards.len() as u8,
                    cards: viewer.map(|_| cards),
                });
            }
            Event::PlayStarted { leader } => self.emit(SeatSet::EMPTY, |seq, _| ServerMessage::PlayStarted {
                room: room.clone(),
                seq,
                leader,
            }),
            Event::CardPlayed { seat, card } => {
                self.emit(SeatSet::EMPTY, |seq, _| ServerMessage::CardPlayed {
                    room: room.clone(),
                    seq,
                    seat,
                    card,
                })
            }
            Event::TrickWon { trick, winner } => {
                self.emit(SeatSet::EMPTY, |seq, _| ServerMessage::TrickWon {
                    room: room.clone(),
                    seq,
                    trick,
                    winner,
                })
            }
            Event::HandEnded { hand } => {
                let tricks_won = game
                    .last_hand()
                    .map(|record| record.tricks_won.0)
                    .unwrap_or_default();
                // The hand's record, in the hand-history format, is stored
                // with the action that ended it.
                let record = game.last_hand().map(|record| {
                    let line = HandLine::new(u64::from(table.number), self.settings.rules.name(), record);
                    serde_json::to_value(&line).unwrap_or_default()
                });
                let id = table.id;
                if let Some(record) = record {
                    self.pending.push(Write::Hand {
                        game: id,
                        hand,
                        record,
                    });
                }
                if let Some(table) = self.table.as_mut() {
                    count_hand(&table.game, &mut table.stats);
                }
                let game = &self.table.as_ref().expect("still at the table").game;
                let teams = game.last_hand_scores().map(render::team_scores);
                if let Some(teams) = teams {
                    self.emit(SeatSet::EMPTY, |seq, _| ServerMessage::HandScored {
                        room: room.clone(),
                        seq,
                        hand,
                        tricks_won,
                        teams,
                    });
                }
            }
            Event::HandStarted { .. } => self.emit_hand_started(),
            Event::GameEnded { winner } => {
                let (score, game_id) = (game.score().0, table.id.to_string());
                self.emit(SeatSet::EMPTY, |seq, _| ServerMessage::GameOver {
                    room: room.clone(),
                    seq,
                    game_id: game_id.clone(),
                    winner: Some(winner),
                    score,
                });
                self.finish_game();
            }
        }
    }

    /// Sends the new deal: each player sees his own cards, unless they are
    /// hidden from him for blind nil.
    fn emit_hand_started(&mut self) {
        let room = self.code();
        let table = self.table.as_ref().expect("a hand starts at a table");
        let game = &table.game;
        let (hand, dealer) = (game.hand_number(), game.dealer());
        let cards = Seat::ALL.map(|seat| game.view(Viewer::Seat(seat)).hand());
        let offered = Seat::ALL.map(|seat| game.is_blind_nil_offered(seat));
        let all: SeatSet = Seat::ALL.into_iter().collect();
        self.emit(all, |seq, viewer| ServerMessage::HandStarted {
            room: room.clone(),
            seq,
            hand,
            dealer,
            cards: viewer.and_then(|seat| cards[seat.index()]),
            blind_nil_offered: viewer.is_some_and(|seat| offered[seat.index()]),
        });
    }

    /// Starts the clocks of seats that have just become due to act and tells
    /// everyone whose turn it is. `acted` is the seat that just acted, whose
    /// clock starts afresh if it must act again.
    fn schedule_turn(&mut self, acted: Option<Seat>) {
        let turn_time = self.config.turn_time;
        let Some(table) = self.table.as_mut().filter(|table| !table.over) else {
            return;
        };
        if let Some(seat) = acted {
            table.deadlines[seat.index()] = None;
        }
        let acting = table.game.to_act();
        let server_plays = table.played_by_server();
        let now = Instant::now();
        let mut changed = false;
        for seat in Seat::ALL {
            let deadline = &mut table.deadlines[seat.index()];
            if !acting.contains(seat) {
                *deadline = None;
            } else if deadline.is_none() {
                let wait = if server_plays.contains(seat) {
                    Duration::ZERO
                } else {
                    turn_time
                };
                *deadline = Some(now + wait);
                changed = true;
            }
        }
        if changed {
            self.emit_turn();
        }
    }

    fn emit_turn_if_playing(&mut self) {
        if self.playing() {
            self.emit_turn();
        }
    }

    /// The current turn message as `viewer` sees it, while a game is played.
    fn turn_message(&self, viewer: Viewer) -> Option<ServerMessage> {
        let table = self.table.as_ref().filter(|table| !table.over)?;
        let clocks = table.clocks(Instant::now());
        Some(ServerMessage::Turn {
            room: self.code(),
            after: self.log.seq(),
            turn: render::turn_view(&table.game, &clocks, viewer)?,
        })
    }

    /// Tells everyone whose turn it is. A turn is not an event: it is not
    /// logged, and a resync ends with the turn as it is then.
    fn emit_turn(&mut self) {
        let Some(public) = self.turn_message(Viewer::Spectator) else {
            return;
        };
        let public = Utf8Bytes::from(public.to_json());
        let acting = self
            .table
            .as_ref()
            .map_or(SeatSet::EMPTY, |table| table.game.to_act());
        let private = Seat::ALL.map(|seat| {
            acting
                .contains(seat)
                .then(|| self.turn_message(Viewer::Seat(seat)))
                .flatten()
                .map(|message| Utf8Bytes::from(message.to_json()))
        });
        for member in self.members.values_mut() {
            if member.outbox.is_none() {
                continue;
            }
            match member.seat.and_then(|seat| private[seat.index()].clone()) {
                Some(mine) => {
                    member.batch.push(mine);
                    // Whoever must act now hears about it at once.
                    member.urgent = true;
                }
                None => member.batch.push(public.clone()),
            }
        }
    }

    fn finish_game(&mut self) {
        if let Some(table) = self.table.as_mut() {
            table.over = true;
            table.deadlines = [None; 4];
            table.holds = [None; 4];
            // Players who were gone for good at the end abandoned the game:
            // it is a loss for them whatever their team did.
            self.pending.push(Write::Finished(FinishedGame {
                id: table.id,
                winner: table.game.winner().map(|team: Team| team.index() as u8),
                score: table.game.score().0,
                abandoned: Seat::ALL.map(|seat| table.away.contains(seat)),
                stats: table.stats,
                finished_at: OffsetDateTime::now_utc(),
                tournament: self.settings.tournament,
            }));
            self.reported = self.settings.tournament.map(TableNote::Finished);
            tracing::info!(
                room = %self.settings.code,
                game = table.number,
                seed = table.seed,
                actions = table.actions,
                winner = ?table.game.winner(),
                "game over"
            );
        }
        // Seats of players who are gone are given up now that the game is
        // over; bots stay for the next game.
        let gone: Vec<Seat> = self
            .seated()
            .filter(|(_, player)| {
                self.members
                    .get(player)
                    .is_none_or(|member| member.outbox.is_none() && !member.is_bot())
            })
            .map(|(seat, _)| seat)
            .collect();
        for seat in gone {
            self.free_seat(seat);
        }
        self.announce();
    }

    fn chat(&mut self, player: &str, id: MessageId, text: String) {
        let window = self.config.chat_window;
        let limit = self.config.chat_limit as usize;
        let Some(member) = self.members.get_mut(player) else {
            let refusal = Refusal::new(ErrorCode::NotInRoom, "you are not in this room");
            return self.refuse(player, Some(id), refusal);
        };
        let applied = Applied::Chat(text.trim().to_string());
        if let Some(seq) = member.already_done(&id, &applied) {
            let message = ServerMessage::Ack {
                id,
                seq: Some(seq),
                duplicate: true,
            };
            return member.send(&message);
        }
        let text = text.trim().to_string();
        let refusal = if text.is_empty() {
            Some(Refusal::new(
                ErrorCode::BadMessage,
                "a chat message needs some text",
            ))
        } else if text.chars().count() > MAX_CHAT_CHARS {
            Some(Refusal::new(
                ErrorCode::ChatTooLong,
                format!("chat messages are at most {MAX_CHAT_CHARS} characters"),
            ))
        } else {
            let now = Instant::now();
            while member
                .chat
                .front()
                .is_some_and(|&sent| now.duration_since(sent) >= window)
            {
                member.chat.pop_front();
            }
            if member.chat.len() >= limit {
                Some(Refusal::new(
                    ErrorCode::ChatRateLimited,
                    format!("at most {limit} chat messages per {} seconds", window.as_secs()),
                ))
            } else {
                member.chat.push_back(now);
                None
            }
        };
        if let Some(refusal) = refusal {
            return self.refuse(player, Some(id), refusal);
        }
        let (from, seat, room) = (member.player.info(), member.seat, self.code());
        self.emit(SeatSet::EMPTY, |seq, _| ServerMessage::ChatMessage {
            room: room.clone(),
            seq,
            from: from.clone(),
            seat,
            text: text.clone(),
        });
        let seq = self.log.seq();
        if let Some(member) = self.members.get_mut(player) {
            member.remember(&id, &applied, seq);
        }
        self.ack(player, id);
    }

    // Time.

    fn next_wake(&self) -> Option<Instant> {
        let table = self.table.as_ref().filter(|table| !table.over)?;
        table
            .deadlines
            .iter()
            .chain(&table.holds)
            .flatten()
            .min()
            .copied()
    }

    fn on_time(&mut self, now: Instant) {
        let Some(table) = self.table.as_mut().filter(|table| !table.over) else {
            return;
        };
        // Held seats whose time is up are played by the server from now on.
        for seat in Seat::ALL {
            if table.holds[seat.index()].is_some_and(|until| until <= now) {
                table.holds[seat.index()] = None;
                table.away.insert(seat);
                if table.deadlines[seat.index()].is_some() {
                    table.deadlines[seat.index()] = Some(now);
                }
            }
        }
        if self.abandoned() {
            self.abandon();
            return;
        }
        let due: Vec<Seat> = Seat::ALL
            .into_iter()
            .filter(|seat| {
                self.table
                    .as_ref()
                    .is_some_and(|table| table.deadlines[seat.index()].is_some_and(|at| at <= now))
            })
            .collect();
        for seat in due {
            self.stand_in(seat);
        }
    }

    /// Every seated player is gone for good and nobody is watching: the
    /// game cannot go on for anyone's benefit.
    /// A tournament game is never abandoned: bots play it to the end and
    /// its result counts for the players.
    fn abandoned(&self) -> bool {
        let Some(table) = self.table.as_ref().filter(|_| self.settings.tournament.is_none()) else {
            return false;
        };
        let server_plays = table.played_by_server();
        let all_away = Seat::ALL.iter().all(|&seat| server_plays.contains(seat));
        all_away && self.members.values().all(|member| member.outbox.is_none())
    }

    fn abandon(&mut self) {
        let room = self.code();
        let Some(table) = self.table.as_ref() else {
            return;
        };
        let (score, game_id) = (table.game.score().0, table.id.to_string());
        self.emit(SeatSet::EMPTY, |seq, _| ServerMessage::GameOver {
            room: room.clone(),
            seq,
            game_id: game_id.clone(),
            winner: None,
            score,
        });
        self.finish_game();
        self.members.clear();
    }

    /// Acts for a seat whose clock ran out, whose player is away, or that a
    /// bot holds, with the room's level of bot.
    fn stand_in(&mut self, seat: Seat) {
        let bot_time = self.config.bot_time;
        let strong = self.settings.bots == BotLevel::Strong;
        let Some(table) = self.table.as_mut().filter(|table| !table.over) else {
            return;
        };
        if strong && matches!(table.game.legal(seat), Legal::Play(cards) if cards.len() > 1) {
            // The strong bot thinks for up to `bot_time`: too long to hold
            // the room's task (or the runtime's thread), so it thinks on a
            // blocking thread and its card comes back as a `Thought`.
            table.thinking.insert(seat);
            table.deadlines[seat.index()] = None;
            let game = table.game.clone();
            let actions = table.actions;
            let for_clock = !table.played_by_server().contains(seat);
            let seed =
                table.seed ^ u64::from(actions).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ seat.index() as u64;
            let budget = Budget {
                time: Some(bot_time),
                ..Budget::SERVER
            };
            let thoughts = self.thoughts.clone();
            tokio::task::spawn_blocking(move || {
                let action = StrongBot::new(seed, budget).act(&game.view(Viewer::Seat(seat)));
                let _ = thoughts.send(Thought {
                    seat,
                    actions,
                    for_clock,
                    action,
                });
            });
            return;
        }
        // Looking at the cards is not a move; the bot then bids at once.
        for _ in 0..2 {
            let Some(table) = self.table.as_ref().filter(|table| !table.over) else {
                return;
            };
            let Some(action) = BasicBot.act(&table.game.view(Viewer::Seat(seat))) else {
                return;
            };
            if !self.play_for(seat, action) || action != Action::LookAtHand {
                return;
            }
        }
    }

    /// Applies a bot's action for a seat; when the seat is a person's, the
    /// table is told first why the server acted for him.
    fn play_for(&mut self, seat: Seat, action: Action) -> bool {
        let Some(table) = self.table.as_ref().filter(|table| !table.over) else {
            return false;
        };
        if !table.bots.contains(seat) {
            let reason = if table.away.contains(seat) {
                AutoReason::Away
            } else {
                AutoReason::Clock
            };
            let room = self.code();
            self.emit(SeatSet::EMPTY, |seq, _| ServerMessage::AutoPlayed {
                room: room.clone(),
                seq,
                seat,
                reason,
            });
        }
        match self.apply(seat, action, None) {
            Ok(()) => true,
            Err(error) => {
                tracing::error!(room = %self.settings.code, %seat, %action, %error, "a bot's action was refused");
                false
            }
        }
    }

    /// A strong bot's decision, back from its thread. It is played if the
    /// game has not moved on and the seat is still the server's to play:
    /// a player who came back meanwhile plays for himself, unless it was his
    /// clock that ran out.
    fn on_thought(&mut self, thought: Thought) {
        let Some(table) = self.table.as_mut() else {
            return;
        };
        table.thinking.remove(thought.seat);
        let seat = thought.seat;
        let current = !table.over
            && table.actions == thought.actions
            && table.game.to_act().contains(seat)
            && (thought.for_clock || table.played_by_server().contains(seat));
        if current
            && let Some(action) = thought.action
            && self.play_for(seat, action)
        {
            return;
        }
        self.schedule_turn(None);
    }
}
