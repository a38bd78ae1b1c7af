//! The messages the server sends: replies, the state of rooms and games, and errors.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use spades_engine::{ByTeam, Card, CardSet, Preset, RuleSet, Seat, Team};
use strum::VariantNames;

use super::event::{EventKind, RoomEvent};
use super::{BotLevel, MessageId, TableSpeed};
use crate::http::TournamentView;
pub use crate::player::PlayerInfo;

/// One seat of a room.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, JsonSchema)]
pub struct SeatInfo {
    pub seat: Seat,
    pub player: PlayerInfo,
    /// False while the player's connection is gone.
    pub connected: bool,
    /// True once the player has been gone longer than the seat hold time and
    /// the server plays for him.
    pub away: bool,
}

/// Where a room is in its life.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RoomStatus {
    /// Seats are filling; a seated player can start when all four are taken.
    Waiting,
    Playing,
    /// A game has ended; a new one can be started.
    Finished,
}

/// A room as the lobby lists it.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, JsonSchema)]
pub struct RoomSummary {
    pub room: String,
    pub name: String,
    pub rules: String,
    pub private: bool,
    /// Whether its games count for the ratings (quick play, tournaments
    /// and public rooms opened as rated); a casual room's do not.
    #[serde(default)]
    pub rated: bool,
    pub status: RoomStatus,
    /// How fast its table plays.
    #[serde(default)]
    pub speed: TableSpeed,
    /// The seated players, seat 0 first, one entry per seat of the game
    /// (four, or three in a three-player room); `null` for a free seat.
    pub seats: Vec<Option<PlayerInfo>>,
    pub spectators: u32,
}

/// A bid as it is shown: `bid` tricks, 0 for nil, `blind` for blind nil.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, JsonSchema)]
pub struct BidView {
    pub bid: u8,
    pub blind: bool,
}

/// Cards one partner gave the other.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, JsonSchema)]
pub struct PassView {
    pub from: Seat,
    pub to: Seat,
    pub cards: CardSet,
}

/// A trick, complete or being played.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, JsonSchema)]
pub struct TrickView {
    pub leader: Seat,
    pub cards: Vec<Card>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<Seat>,
}

/// What kind of action a turn asks for.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Expected {
    /// Bid nil or 1 to 13.
    Bid,
    /// Cards are hidden for blind nil: bid blind nil, or look first.
    BlindNilOrLook,
    /// Give cards to the partner.
    Pass,
    Play,
}

/// Whose turn it is and how long they have.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, JsonSchema)]
pub struct TurnView {
    pub seats: Vec<Seat>,
    pub expected: Expected,
    /// Milliseconds left on the turn clock when this was sent.
    pub clock_ms: u64,
    /// When the clock runs out, in milliseconds since the Unix epoch.
    pub deadline: u64,
    /// For the player to act only: the cards he may play.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legal: Option<CardSet>,
    /// For the player to act only: how many cards he must pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_count: Option<u8>,
    /// For the player to bid only: the bids the rules allow him now, 0
    /// standing for nil, lowest first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bids: Option<Vec<u8>>,
}

/// One team's result for a hand.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, JsonSchema)]
pub struct TeamScoreView {
    pub contract: u8,
    /// Whether the contract was the team's blind bid.
    #[serde(default)]
    pub blind: bool,
    pub tricks: u8,
    pub contract_points: i32,
    /// Whether the contract was set (a team of two nils has none).
    #[serde(default)]
    pub set: bool,
    pub nil_points: i32,
    pub bags_taken: i32,
    /// What the bags taken are worth under the rules (one point each in
    /// the rule book). Older records lack it; it then equals `bags_taken`.
    #[serde(default)]
    pub bag_points: i32,
    pub bag_penalty: i32,
    pub change: i32,
    pub score: i32,
    pub bags: i32,
}

/// A game as one viewer may see it.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, JsonSchema)]
pub struct GameView {
    /// The game's number in its room, from 0.
    pub game: u32,
    /// The game's id in the store: its history is at
    /// `GET /api/games/{id}/history` once it is over.
    pub game_id: String,
    /// The commitment to the game's seed, as `game_started` gave it.
    pub deal_commitment: String,
    pub rules: RuleSet,
    pub phase: String,
    pub hand: u32,
    pub dealer: Seat,
    /// Each team's score and bags: two values with partners, four in solo.
    pub score: ByTeam<i32>,
    pub bags: ByTeam<i32>,
    /// The viewer's seat, absent for a spectator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
    /// The viewer's cards, absent for a spectator or while hidden for
    /// blind nil.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cards: Option<CardSet>,
    pub blind_nil_offered: bool,
    /// Cards in each seat's hand, one entry per seat of the game.
    pub hand_sizes: Vec<u8>,
    /// Each seat's bid, one entry per seat of the game.
    pub bids: Vec<Option<BidView>>,
    /// Passes the viewer gave or received this hand.
    pub passes: Vec<PassView>,
    /// Cards the viewer chose in a simultaneous exchange that have not moved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_chosen: Option<CardSet>,
    pub trick: TrickView,
    /// The completed tricks of this hand.
    pub tricks: Vec<TrickView>,
    /// Tricks each seat took this hand, one entry per seat of the game.
    pub tricks_won: Vec<u8>,
    pub spades_broken: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<TurnView>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<Team>,
}

/// A room as one viewer may see it: the reply to joining, and what a
/// client gets when it has missed too much to catch up event by event.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, JsonSchema)]
pub struct RoomState {
    pub room: String,
    pub name: String,
    pub private: bool,
    /// Whether its games count for the ratings.
    #[serde(default)]
    pub rated: bool,
    pub rules: RuleSet,
    /// The level of the room's bots.
    pub bots: BotLevel,
    /// How fast its table plays, and the length of its turn clock.
    #[serde(default)]
    pub speed: TableSpeed,
    #[serde(default)]
    pub turn_seconds: u32,
    pub status: RoomStatus,
    pub owner: PlayerInfo,
    /// One entry per seat of the game (four, or three in a three-player
    /// room); `null` for a free seat.
    pub seats: Vec<Option<SeatInfo>>,
    /// Who plays with whom, from the rules: the seats of each team in team
    /// order (`[[0, 2], [1, 3]]` with partners, one seat a team without),
    /// so that a client never works the partnerships out for itself.
    #[serde(default)]
    pub teams: Vec<Vec<Seat>>,
    pub spectators: u32,
    /// The viewer's seat, if he has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub your_seat: Option<Seat>,
    /// How many games this room has started.
    pub games: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<GameView>,
    /// The node of a cluster that owns and plays the room, which may not
    /// be the one the viewer is connected to; absent on a server that runs
    /// alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
}

/// Why an automatic action was taken for a player.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AutoReason {
    /// His turn clock ran out.
    Clock,
    /// He has been away longer than the seat hold time.
    Away,
}

/// Why a player left the quick-play queue without a table.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UnqueueReason {
    /// The partner he queued with left the queue or disconnected.
    PartnerLeft,
    /// He queued again on another connection.
    Replaced,
    /// In a cluster, the server that kept the queue stopped or died: queue
    /// again to wait in its successor's.
    QueueMoved,
}

/// Everything the server can send.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, VariantNames, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ServerMessage {
    Welcome {
        id: MessageId,
        version: u32,
        player: PlayerInfo,
        /// Present this token in a later `hello` to come back as the same
        /// player.
        token: String,
        /// The room where the player holds a seat, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        room: Option<String>,
        /// The node of a cluster that serves this connection; absent on a
        /// server that runs alone.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        node: Option<String>,
    },
    Pong {
        id: MessageId,
    },
    /// The reply to a request that has no other result.
    Ack {
        id: MessageId,
        /// The room's last event after the request, when it concerned a room.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seq: Option<u64>,
        /// True when the same id was already applied: nothing was done again.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        duplicate: bool,
    },
    Error {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<MessageId>,
        code: ErrorCode,
        message: String,
    },
    Rooms {
        id: MessageId,
        rooms: Vec<RoomSummary>,
    },
    /// Lobby update: a room was opened or changed.
    LobbyRoom {
        room: RoomSummary,
    },
    /// Lobby update: a room closed or became unlisted.
    LobbyRoomClosed {
        room: String,
    },
    /// The state of a room for the viewer: the reply to `create_room`,
    /// `join_room`, and to a `resync` that is too far behind.
    Snapshot {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<MessageId>,
        seq: u64,
        state: Box<RoomState>,
    },
    /// The connection is being closed because the same player connected again.
    Replaced,
    /// Something the player must be told that concerns no room: a notice
    /// from the operators, a moderator's warning, mute, suspension or ban,
    /// or maintenance. Before a suspension or a ban closes the connection
    /// (status 4009), this says why and until when.
    Notice {
        kind: NoticeKind,
        /// What happened, in words for people, with the reason given.
        message: String,
        /// When a sanction or a maintenance ends, if it has an end.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        until: Option<String>,
    },
    /// A registered player asked this one to be his friend
    /// (`POST /api/friends`); the answer is given over HTTP.
    FriendRequest {
        from: PlayerInfo,
    },
    /// A friend invites this player: to his room (`room`, to enter with
    /// `join_room`), or to quick play as his partner (`rules`, to queue
    /// with `partner` naming him).
    Invitation {
        from: PlayerInfo,
        to: crate::friends::InviteTo,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        room: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rules: Option<Preset>,
    },
    /// The server is stopping; the connection closes next (status 1001).
    ShuttingDown {
        message: String,
    },
    /// The reply to `queue`: the player waits for a quick-play table.
    Queued {
        id: MessageId,
        rules: Preset,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        partner: Option<String>,
        /// True until the partner named has queued too.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        waiting_for_partner: bool,
        /// How long before the table is filled with bots, in milliseconds.
        max_wait_ms: u64,
    },
    /// The player is no longer queued, for the reason given.
    Unqueued {
        reason: UnqueueReason,
    },
    /// A quick-play table is ready: the player's seat in `room` is held for
    /// him and its game has started; he enters with `join_room`.
    Matched {
        room: String,
        seat: Seat,
        rules: Preset,
        /// The players in seat order, one per seat of the game.
        seats: Vec<PlayerInfo>,
    },

    /// The player's table in a tournament is open and its game has begun:
    /// his seat in `room` is held for him; he enters with `join_room`.
    TournamentTable {
        tournament: String,
        stage: u32,
        table: u32,
        room: String,
        seat: Seat,
    },
    /// A tournament's bracket or standings, as `GET /api/tournaments/{id}`
    /// gives them: the reply to `watch_tournament`, then again after each
    /// change.
    Tournament {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<MessageId>,
        tournament: TournamentView,
    },

    /// Whose turn it is. Not an event: it has no `seq` of its own and is
    /// not replayed; `after` is the room's last event when it was sent, and
    /// a resync ends with the current turn.
    Turn {
        room: String,
        after: u64,
        #[serde(flatten)]
        turn: TurnView,
    },
    /// A room event: its `type`, its `room` and its `seq`, then the fields
    /// of its kind.
    // Last, so that the tags above are tried first when reading.
    #[serde(untagged)]
    Event(RoomEvent),
}

impl ServerMessage {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("server messages always serialize")
    }

    /// The room sequence number of a room event.
    pub fn seq(&self) -> Option<u64> {
        match self {
            ServerMessage::Event(event) => Some(event.seq),
            _ => None,
        }
    }

    /// The event's kind, when this is a room event.
    pub fn event(&self) -> Option<&EventKind> {
        match self {
            ServerMessage::Event(event) => Some(&event.kind),
            _ => None,
        }
    }
}

/// What a `notice` is about.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, VariantNames, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum NoticeKind {
    /// A message an administrator sent to every connected player.
    Broadcast,
    /// A moderator's warning to this player.
    Warning,
    /// The player may not chat until `until` (or until it is lifted).
    Muted,
    /// The player's mute was lifted.
    Unmuted,
    /// The player is suspended; the connection closes next.
    Suspended,
    /// The player is banned; the connection closes next.
    Banned,
    /// The server is in maintenance: no new rooms, games or queueing.
    Maintenance,
    /// The maintenance is over.
    MaintenanceOver,
}

/// Stable error codes. Their meanings are listed in `protocol.md`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, VariantNames, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ErrorCode {
    // The message itself.
    BadJson,
    UnknownType,
    BadMessage,
    FrameTooLarge,
    RateLimited,
    // The handshake.
    HelloFirst,
    AlreadyHello,
    UnsupportedVersion,
    BadToken,
    BadName,
    // Rooms and seats.
    RoomNotFound,
    NotInRoom,
    SeatTaken,
    NotSeated,
    /// The seat named does not exist at this table (seat 3 of a
    /// three-player room).
    NoSuchSeat,
    GameInProgress,
    NotEnoughPlayers,
    NoGame,
    BadRules,
    NotOwner,
    NotABot,
    // Quick play.
    NotQueued,
    BadPartner,
    // Tournaments.
    TournamentNotFound,
    TournamentTable,
    // Chat.
    ChatTooLong,
    ChatRateLimited,
    /// A moderator muted the player: no chat until the mute ends.
    Muted,
    // Moderation and operations.
    /// The player is suspended: no login and no play until it ends.
    Suspended,
    /// The player is banned.
    Banned,
    /// The server is in maintenance: no new rooms, games or queueing.
    Maintenance,
    /// The other player blocks this one, or this one blocks him.
    Blocked,
    /// The room's owner removed the player from this room.
    Removed,
    /// A moderator closed the room the player was in.
    RoomEnded,
    /// The player abandoned games at rated tables lately: quick play is
    /// paused for him until the time the message gives.
    QuickPlayPaused,
    /// The player has as many reports open as the server takes from one.
    TooManyReports,
    // Friends.
    /// The player named is not the sender's friend.
    NotFriends,
    /// The friend named is not connected.
    PlayerOffline,
    /// The connection sent as many invitations as a minute allows.
    TooManyInvitations,
    // The rules of the game.
    GameOver,
    WrongPhase,
    NotYourTurn,
    InvalidBid,
    BidNotAllowed,
    BlindNilNotAllowed,
    BlindNilAfterLooking,
    BlindBidNotAllowed,
    MustLookAtHand,
    HandAlreadyVisible,
    NothingToPass,
    WrongPassCount,
    CardNotInHand,
    MustFollowSuit,
    SpadesNotBroken,
    MustLead,
    // The server.
    /// As many rooms are open as the server allows.
    ServerBusy,
    /// The server cannot reach its store now.
    StoreUnavailable,
    /// The server is stopping.
    ShuttingDown,
    Internal,
}

impl ErrorCode {
    /// The code for an engine refusal.
    pub fn from_rule_error(error: &spades_engine::RuleError) -> ErrorCode {
        use spades_engine::RuleError as E;
        match error {
            E::GameOver => ErrorCode::GameOver,
            E::WrongPhase { .. } => ErrorCode::WrongPhase,
            E::NotYourTurn { .. } => ErrorCode::NotYourTurn,
            E::InvalidBid { .. } => ErrorCode::InvalidBid,
            E::BidNotAllowed { .. } => ErrorCode::BidNotAllowed,
            E::BlindNilNotAllowed => ErrorCode::BlindNilNotAllowed,
            E::BlindNilAfterLooking => ErrorCode::BlindNilAfterLooking,
            E::BlindBidNotAllowed { .. } => ErrorCode::BlindBidNotAllowed,
            E::MustLookAtHand => ErrorCode::MustLookAtHand,
            E::HandAlreadyVisible => ErrorCode::HandAlreadyVisible,
            E::NothingToPass => ErrorCode::NothingToPass,
            E::WrongPassCount { .. } => ErrorCode::WrongPassCount,
            E::CardNotInHand { .. } => ErrorCode::CardNotInHand,
            E::MustFollowSuit { .. } => ErrorCode::MustFollowSuit,
            E::SpadesNotBroken => ErrorCode::SpadesNotBroken,
            E::MustLead { .. } => ErrorCode::MustLead,
        }
    }

    pub fn name(self) -> &'static str {
        ErrorCode::VARIANTS[self as usize]
    }
}
