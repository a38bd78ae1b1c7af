//! Room events: what happens in a room, numbered in the room's order.
//!
//! Every event is sent as one JSON object with its `type`, the `room` it
//! happened in and its `seq`, then the fields of its kind. The envelope,
//! [`RoomEvent`], holds what every event has; [`EventKind`] holds what each
//! kind adds, so that code making or reading events names the room and the
//! number once.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use spades_engine::{ByTeam, Card, CardSet, RuleSet, Seat, Team};
use strum::VariantNames;

use super::{AutoReason, PlayerInfo, QuickPhrase, SeatInfo, ServerMessage, TeamScoreView};

/// One event of a room, with the room's code and its sequence number.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, JsonSchema)]
pub struct RoomEvent {
    pub room: String,
    /// The event's place in the room's order: each event's is one more
    /// than the one before, across restarts too.
    pub seq: u64,
    #[serde(flatten)]
    pub kind: EventKind,
}

/// The same fields as [`RoomEvent`], borrowed, so that a room can write the
/// JSON of an event it keeps without copying it first.
#[derive(Serialize)]
struct RoomEventRef<'a> {
    room: &'a str,
    seq: u64,
    #[serde(flatten)]
    kind: &'a EventKind,
}

impl RoomEvent {
    /// The JSON of the event of kind `kind` numbered `seq` in room `room`:
    /// the same text as the [`RoomEvent`]'s own.
    pub fn json(room: &str, seq: u64, kind: &EventKind) -> String {
        serde_json::to_string(&RoomEventRef { room, seq, kind }).expect("room events always serialize")
    }

    /// The event as a server message.
    pub fn message(room: impl Into<String>, seq: u64, kind: EventKind) -> ServerMessage {
        ServerMessage::Event(RoomEvent {
            room: room.into(),
            seq,
            kind,
        })
    }
}

/// What an event says, by kind. The name of each kind, in snake case, is
/// the event's `type`.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, VariantNames, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum EventKind {
    /// The seats or the members of the room changed. One entry per seat
    /// of the game (four, or three in a three-player room).
    // The seats are boxed so that the other kinds, far more common, stay
    // small.
    Seats {
        seats: Box<[Option<SeatInfo>]>,
        spectators: u32,
        owner: PlayerInfo,
    },
    GameStarted {
        game: u32,
        /// The game's id in the store (see `GET /api/games/{id}`).
        game_id: String,
        /// The commitment to the seed every hand of the game is dealt
        /// from: the SHA-256 described in protocol.md ("Verifiable
        /// deals"), in lowercase hexadecimal. The seed itself is published
        /// once the game is over.
        deal_commitment: String,
        rules: RuleSet,
    },
    /// A hand was dealt. A player sees his own cards, unless they are hidden
    /// because he is offered blind nil.
    HandStarted {
        hand: u32,
        dealer: Seat,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cards: Option<CardSet>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        blind_nil_offered: bool,
    },
    /// A player offered blind nil looked at his cards (which he alone
    /// receives here).
    HandRevealed {
        seat: Seat,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cards: Option<CardSet>,
    },
    BidMade {
        seat: Seat,
        bid: u8,
        blind: bool,
    },
    PassingStarted {},
    /// In a simultaneous exchange, a player has chosen his cards.
    PassChosen {
        seat: Seat,
    },
    /// Cards moved between partners; only the two of them see which.
    CardsPassed {
        from: Seat,
        to: Seat,
        count: u8,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cards: Option<CardSet>,
    },
    PlayStarted {
        leader: Seat,
    },
    CardPlayed {
        seat: Seat,
        card: Card,
    },
    TrickWon {
        trick: u8,
        winner: Seat,
    },
    HandScored {
        hand: u32,
        /// One entry per seat of the game.
        tricks_won: Vec<u8>,
        /// One entry per team: two with partners, three or four without.
        teams: Vec<TeamScoreView>,
    },
    /// The game ended; `winner` is absent when it was abandoned.
    GameOver {
        game_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        winner: Option<Team>,
        score: ByTeam<i32>,
    },
    /// The server acted for a player; the action's own event follows.
    AutoPlayed {
        seat: Seat,
        reason: AutoReason,
    },
    PlayerAway {
        seat: Seat,
        /// How long the seat is held before the server plays for him.
        hold_ms: u64,
    },
    PlayerBack {
        seat: Seat,
    },
    ChatMessage {
        from: PlayerInfo,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Seat>,
        /// Empty when `hidden`.
        text: String,
        /// True for a player who blocks the sender: the line is not shown
        /// to him, only that one was said.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        hidden: bool,
        /// The quick-chat phrase the line is, if it is one; `text` then
        /// holds its words. Absent when `hidden`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        quick: Option<QuickPhrase>,
    },
    /// The owner of a private room removed a player: he is out of the
    /// room and may not come back; during a game the server plays his
    /// seat, between games it stands empty.
    PlayerRemoved {
        seat: Option<Seat>,
        player: PlayerInfo,
    },
    /// A seated player asked for another game with the same seats, once
    /// the last is over. `waiting_for` are the seats whose players have
    /// not asked yet; when none is left, the new game starts.
    RematchAsked {
        seat: Seat,
        waiting_for: Vec<Seat>,
        /// The rematch asked for plays the finished game's deals again.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        same_deals: bool,
    },
}
