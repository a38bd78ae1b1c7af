//! The WebSocket protocol: every message a client sends and every message the
//! server sends, as described in `protocol.md`.
//!
//! Every message is one JSON object in one text frame, with a `type`. Client
//! messages carry an `id`, which the server's reply echoes. Events of a room
//! carry the room's code and an increasing `seq`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use spades_engine::{
    Bidding, ByTeam, Card, CardSet, Deck, Leading, PassOrder, Preset, RuleSet, Seat, SpadesLead, Team,
};
use strum::VariantNames;

use crate::event::{EventKind, RoomEvent};
use crate::http::TournamentView;

/// The protocol version this build speaks. A client names the version it
/// speaks in `hello`; the server refuses any other.
pub const PROTOCOL_VERSION: u32 = 1;

/// The largest text frame the server reads as a message, in bytes. Larger
/// frames, up to [`HARD_FRAME_LIMIT`], are answered with `frame_too_large`.
pub const MAX_FRAME_BYTES: usize = 4096;

/// Frames above this size are not read at all: the connection is closed
/// with WebSocket status 1009 (message too big).
pub const HARD_FRAME_LIMIT: usize = 64 * 1024;

/// The longest chat message, in characters.
pub const MAX_CHAT_CHARS: usize = 300;

/// The longest display name, in characters.
pub const MAX_NAME_CHARS: usize = 24;

/// The identifier a client gives a message, echoed in the reply: a number or
/// a short string.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum MessageId {
    Number(u64),
    Text(String),
}

impl MessageId {
    /// The longest string id the server accepts, in characters.
    pub const MAX_LEN: usize = 64;

    pub fn is_valid(&self) -> bool {
        match self {
            MessageId::Number(_) => true,
            MessageId::Text(text) => text.chars().count() <= MessageId::MAX_LEN,
        }
    }
}

impl From<u64> for MessageId {
    fn from(number: u64) -> MessageId {
        MessageId::Number(number)
    }
}

/// A room's rule set as a client asks for it: a preset and any fields to
/// change. Omitted fields keep the preset's values. For the settings a
/// rule set may hold as `null` (`mercy`, `max_hands`, `max_team_bid`,
/// `max_overtricks`, `sets_to_lose`), `null` turns the rule off, as in a
/// rule set; for the others it keeps the preset's value.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
// The settings that may be off are read as `Some(None)` when `null` and
// `None` when left out (see `present`).
pub struct RulesSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<Preset>,
    /// `false` for solo: four players, each on his own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partners: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<i32>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub mercy: Option<Option<i32>>,
    /// Turns the loss threshold off, as a `null` mercy does.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_mercy: bool,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_hands: Option<Option<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nil_value: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blind_nil_value: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blind_nil: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blind_nil_min_deficit: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nil_pass: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blind_nil_pass: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_order: Option<PassOrder>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bag_limit: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bag_penalty: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deck: Option<Deck>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leading: Option<Leading>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spades_lead: Option<SpadesLead>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bidding: Option<Bidding>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nil: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nil_after_partner: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_team_bid: Option<u8>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_team_bid: Option<Option<u8>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ten_for_two_hundred: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moon: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boston_wins: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bag_value: Option<i32>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_overtricks: Option<Option<u8>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_at_double: Option<bool>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub sets_to_lose: Option<Option<u8>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unbid_first_hand: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team_blind: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team_blind_min_deficit: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team_blind_set_doubled: Option<bool>,
}

impl RulesSpec {
    /// The rule set this asks for, checked.
    pub fn resolve(&self) -> Result<RuleSet, spades_engine::RuleSetError> {
        let base = self.preset.unwrap_or(Preset::Classic).rules();
        let rules = RuleSet {
            partners: self.partners.unwrap_or(base.partners),
            players: self.players.unwrap_or(base.players),
            target: self.target.unwrap_or(base.target),
            mercy: if self.no_mercy {
                None
            } else {
                self.mercy.unwrap_or(base.mercy)
            },
            max_hands: self.max_hands.unwrap_or(base.max_hands),
            nil_value: self.nil_value.unwrap_or(base.nil_value),
            blind_nil_value: self.blind_nil_value.unwrap_or(base.blind_nil_value),
            blind_nil: self.blind_nil.unwrap_or(base.blind_nil),
            blind_nil_min_deficit: self.blind_nil_min_deficit.unwrap_or(base.blind_nil_min_deficit),
            nil_pass: self.nil_pass.unwrap_or(base.nil_pass),
            blind_nil_pass: self.blind_nil_pass.unwrap_or(base.blind_nil_pass),
            pass_order: self.pass_order.unwrap_or(base.pass_order),
            bag_limit: self.bag_limit.unwrap_or(base.bag_limit),
            bag_penalty: self.bag_penalty.unwrap_or(base.bag_penalty),
            deck: self.deck.unwrap_or(base.deck),
            leading: self.leading.unwrap_or(base.leading),
            spades_lead: self.spades_lead.unwrap_or(base.spades_lead),
            bidding: self.bidding.unwrap_or(base.bidding),
            nil: self.nil.unwrap_or(base.nil),
            nil_after_partner: self.nil_after_partner.unwrap_or(base.nil_after_partner),
            min_team_bid: self.min_team_bid.unwrap_or(base.min_team_bid),
            max_team_bid: self.max_team_bid.unwrap_or(base.max_team_bid),
            ten_for_two_hundred: self.ten_for_two_hundred.unwrap_or(base.ten_for_two_hundred),
            moon: self.moon.unwrap_or(base.moon),
            boston_wins: self.boston_wins.unwrap_or(base.boston_wins),
            bag_value: self.bag_value.unwrap_or(base.bag_value),
            max_overtricks: self.max_overtricks.unwrap_or(base.max_overtricks),
            set_at_double: self.set_at_double.unwrap_or(base.set_at_double),
            sets_to_lose: self.sets_to_lose.unwrap_or(base.sets_to_lose),
            unbid_first_hand: self.unbid_first_hand.unwrap_or(base.unbid_first_hand),
            team_blind: self.team_blind.unwrap_or(base.team_blind),
            team_blind_min_deficit: self.team_blind_min_deficit.unwrap_or(base.team_blind_min_deficit),
            team_blind_set_doubled: self.team_blind_set_doubled.unwrap_or(base.team_blind_set_doubled),
        };
        rules.validate()?;
        Ok(rules)
    }
}

/// Reads a setting that a rule set may hold as `null`: a value or `null`
/// given is `Some`, so that `null` turns the rule off instead of keeping
/// the preset's value, which only leaving the setting out does.
fn present<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// How well the server's bots play in a room: at its bot seats and for its
/// absent players.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BotLevel {
    /// Rule-based play, decided in microseconds.
    #[default]
    Basic,
    /// Looks ahead over guesses at the hidden hands before each card.
    Strong,
}

impl BotLevel {
    pub const fn name(self) -> &'static str {
        match self {
            BotLevel::Basic => "basic",
            BotLevel::Strong => "strong",
        }
    }
}

/// Everything a client can send.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, VariantNames, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ClientMessage {
    /// The first message of every connection: a new guest gives a name, a
    /// returning player gives his token.
    Hello {
        id: MessageId,
        version: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
    },
    Ping {
        id: MessageId,
    },
    ListRooms {
        id: MessageId,
    },
    WatchLobby {
        id: MessageId,
    },
    UnwatchLobby {
        id: MessageId,
    },
    CreateRoom {
        id: MessageId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        #[serde(default)]
        rules: RulesSpec,
        #[serde(default)]
        private: bool,
        /// The level of the room's bots.
        #[serde(default)]
        bots: BotLevel,
    },
    JoinRoom {
        id: MessageId,
        room: String,
    },
    LeaveRoom {
        id: MessageId,
    },
    Sit {
        id: MessageId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Seat>,
    },
    Stand {
        id: MessageId,
    },
    StartGame {
        id: MessageId,
    },
    /// The room's owner seats a bot, in the given seat or the first free one.
    AddBot {
        id: MessageId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Seat>,
    },
    /// The room's owner takes a bot out of its seat.
    RemoveBot {
        id: MessageId,
        seat: Seat,
    },
    /// Waits for a quick-play game of a preset, alone or with a friend as
    /// partner (each of the two names the other).
    Queue {
        id: MessageId,
        #[serde(default = "default_preset")]
        rules: Preset,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        partner: Option<String>,
    },
    LeaveQueue {
        id: MessageId,
    },
    /// Follows a tournament: the reply is its view, and a new view comes
    /// whenever a table starts or ends.
    WatchTournament {
        id: MessageId,
        tournament: String,
    },
    UnwatchTournament {
        id: MessageId,
        tournament: String,
    },
    Bid {
        id: MessageId,
        bid: u8,
        #[serde(default)]
        blind: bool,
    },
    Look {
        id: MessageId,
    },
    PassCards {
        id: MessageId,
        cards: CardSet,
    },
    Play {
        id: MessageId,
        card: Card,
    },
    Chat {
        id: MessageId,
        text: String,
    },
    Resync {
        id: MessageId,
        room: String,
        last_seq: u64,
    },
}

impl ClientMessage {
    pub fn id(&self) -> &MessageId {
        match self {
            ClientMessage::Hello { id, .. }
            | ClientMessage::Ping { id }
            | ClientMessage::ListRooms { id }
            | ClientMessage::WatchLobby { id }
            | ClientMessage::UnwatchLobby { id }
            | ClientMessage::CreateRoom { id, .. }
            | ClientMessage::JoinRoom { id, .. }
            | ClientMessage::LeaveRoom { id }
            | ClientMessage::Sit { id, .. }
            | ClientMessage::Stand { id }
            | ClientMessage::StartGame { id }
            | ClientMessage::AddBot { id, .. }
            | ClientMessage::RemoveBot { id, .. }
            | ClientMessage::Queue { id, .. }
            | ClientMessage::LeaveQueue { id }
            | ClientMessage::WatchTournament { id, .. }
            | ClientMessage::UnwatchTournament { id, .. }
            | ClientMessage::Bid { id, .. }
            | ClientMessage::Look { id }
            | ClientMessage::PassCards { id, .. }
            | ClientMessage::Play { id, .. }
            | ClientMessage::Chat { id, .. }
            | ClientMessage::Resync { id, .. } => id,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("client messages always serialize")
    }
}

fn default_preset() -> Preset {
    Preset::Classic
}

/// A player as others see him.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, JsonSchema, utoipa::ToSchema)]
pub struct PlayerInfo {
    pub id: String,
    pub name: String,
    /// True for one of the server's bots.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bot: bool,
}

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
    pub status: RoomStatus,
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
    pub rules: RuleSet,
    /// The level of the room's bots.
    pub bots: BotLevel,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_messages_have_the_documented_shape() {
        let play: ClientMessage = serde_json::from_str(r#"{"type":"play","id":7,"card":"TS"}"#).unwrap();
        assert_eq!(
            play,
            ClientMessage::Play {
                id: MessageId::Number(7),
                card: "TS".parse().unwrap()
            }
        );
        let bid: ClientMessage =
            serde_json::from_str(r#"{"type":"bid","id":"b1","bid":0,"blind":true}"#).unwrap();
        assert_eq!(
            bid,
            ClientMessage::Bid {
                id: MessageId::Text("b1".into()),
                bid: 0,
                blind: true
            }
        );
        let pass: Result<ClientMessage, _> =
            serde_json::from_str(r#"{"type":"pass_cards","id":1,"cards":["AS","AS"]}"#);
        assert!(pass.is_err(), "a card listed twice is refused");
        let round_trip = ClientMessage::Sit {
            id: MessageId::Number(3),
            seat: Seat::new(2),
        };
        assert_eq!(
            serde_json::from_str::<ClientMessage>(&round_trip.to_json()).unwrap(),
            round_trip
        );
    }

    #[test]
    fn error_codes_are_snake_case_names() {
        assert_eq!(ErrorCode::MustFollowSuit.name(), "must_follow_suit");
        assert_eq!(
            serde_json::to_string(&ErrorCode::BadJson).unwrap(),
            "\"bad_json\""
        );
        for (index, name) in ErrorCode::VARIANTS.iter().enumerate() {
            let code: ErrorCode = serde_json::from_str(&format!("\"{name}\"")).unwrap();
            assert_eq!(code as usize, index);
        }
    }

    #[test]
    fn a_rule_set_stored_before_the_house_rules_reads_as_the_same_rules() {
        let stored = r#"{"target":500,"mercy":-500,"max_hands":null,"nil_value":100,"blind_nil_value":200,"blind_nil":true,"blind_nil_min_deficit":100,"nil_pass":0,"blind_nil_pass":2,"pass_order":"sequential","bag_limit":10,"bag_penalty":100,"deck":"standard","leading":"left_of_dealer_spades_broken","bidding":"standard"}"#;
        let rules: RuleSet = serde_json::from_str(stored).unwrap();
        assert_eq!(rules, RuleSet::CLASSIC);
    }

    #[test]
    fn house_rules_override_a_preset_and_contradictions_are_refused() {
        let spec: RulesSpec =
            serde_json::from_str(r#"{"preset":"board-4","bidding":"suicide","spades_lead":"any_time"}"#)
                .unwrap();
        let rules = spec.resolve().unwrap();
        assert_eq!(
            (rules.min_team_bid, rules.bidding),
            (4, spades_engine::Bidding::Suicide)
        );
        assert_eq!(rules.spades_lead, SpadesLead::AnyTime);
        let spec: RulesSpec = serde_json::from_str(r#"{"preset":"whiz","min_team_bid":4}"#).unwrap();
        let error = spec.resolve().unwrap_err();
        assert_eq!(error.field, "min_team_bid");
        assert!(serde_json::from_str::<RulesSpec>(r#"{"preset":"chess"}"#).is_err());
    }

    #[test]
    fn rules_specs_override_a_preset() {
        let spec: RulesSpec = serde_json::from_str(r#"{"preset":"tournament","target":250}"#).unwrap();
        let rules = spec.resolve().unwrap();
        assert_eq!(rules.target, 250);
        assert_eq!(rules.max_hands, Some(7));
        let spec: RulesSpec = serde_json::from_str(r#"{"no_mercy":true,"nil_pass":1}"#).unwrap();
        let rules = spec.resolve().unwrap();
        assert_eq!((rules.mercy, rules.nil_pass), (None, 1));
        let bad: RulesSpec = serde_json::from_str(r#"{"target":-5}"#).unwrap();
        assert!(bad.resolve().is_err());
        assert!(serde_json::from_str::<RulesSpec>(r#"{"trumps":"hearts"}"#).is_err());
    }

    #[test]
    fn events_carry_room_and_seq() {
        let event = RoomEvent::message(
            "ABCD",
            12,
            EventKind::CardPlayed {
                seat: Seat::new(1).unwrap(),
                card: "QH".parse().unwrap(),
            },
        );
        let json = event.to_json();
        // One object with the envelope's fields and the kind's, whatever
        // their order.
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&json).unwrap(),
            serde_json::json!({"type": "card_played", "room": "ABCD", "seq": 12, "seat": 1, "card": "QH"})
        );
        assert_eq!(serde_json::from_str::<ServerMessage>(&json).unwrap(), event);
        assert_eq!(event.seq(), Some(12));
        let ServerMessage::Event(owned) = &event else {
            unreachable!()
        };
        assert_eq!(
            RoomEvent::json("ABCD", 12, &owned.kind),
            json,
            "borrowed and owned agree"
        );
        let passing = r#"{"type":"passing_started","room":"ABCD","seq":3}"#;
        assert_eq!(
            serde_json::from_str::<ServerMessage>(passing).unwrap(),
            RoomEvent::message("ABCD", 3, EventKind::PassingStarted {})
        );
    }

    #[test]
    fn other_messages_are_not_read_as_events() {
        let pong: ServerMessage = serde_json::from_str(r#"{"type":"pong","id":4}"#).unwrap();
        assert_eq!(
            pong,
            ServerMessage::Pong {
                id: MessageId::Number(4)
            }
        );
        assert!(serde_json::from_str::<ServerMessage>(r#"{"type":"no_such","room":"A","seq":1}"#).is_err());
        assert!(serde_json::from_str::<ServerMessage>(r#"{"type":"card_played","room":"A"}"#).is_err());
    }
}
