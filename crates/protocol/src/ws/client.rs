//! The messages a client sends, and the rule sets and bot levels they name.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use spades_engine::{Bidding, Card, CardSet, Deck, Leading, PassOrder, Preset, RuleSet, Seat, SpadesLead};
use strum::VariantNames;

use super::MessageId;

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

pub use crate::player::BotLevel;

/// How fast a table plays: the length of its turn clock, and how long its
/// bots take over each action.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TableSpeed {
    /// Half the server's turn clock; bots wait half as long.
    Fast,
    /// The server's turn clock and bot pace.
    #[default]
    Normal,
    /// Twice the server's turn clock; bots wait half as long again.
    Slow,
}

impl TableSpeed {
    pub const ALL: [TableSpeed; 3] = [TableSpeed::Fast, TableSpeed::Normal, TableSpeed::Slow];

    pub const fn name(self) -> &'static str {
        match self {
            TableSpeed::Fast => "fast",
            TableSpeed::Normal => "normal",
            TableSpeed::Slow => "slow",
        }
    }

    /// The speed a stored name stands for; an unknown one is normal, so
    /// that a room stored by a later version still opens.
    pub fn from_name(name: &str) -> TableSpeed {
        TableSpeed::ALL
            .into_iter()
            .find(|speed| speed.name() == name)
            .unwrap_or_default()
    }

    /// The turn clock of a table of this speed, from the server's.
    pub fn turn_time(self, normal: std::time::Duration) -> std::time::Duration {
        match self {
            TableSpeed::Fast => normal / 2,
            TableSpeed::Normal => normal,
            TableSpeed::Slow => normal * 2,
        }
    }

    /// A bot's wait at a table of this speed, from the server's.
    pub fn bot_wait(self, normal: std::time::Duration) -> std::time::Duration {
        match self {
            TableSpeed::Fast => normal / 2,
            TableSpeed::Normal => normal,
            TableSpeed::Slow => normal * 3 / 2,
        }
    }
}

/// The set phrases and emotes of quick chat. Clients may draw them as
/// they like; [`QuickPhrase::words`] is what a chat line says for them.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, JsonSchema, VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum QuickPhrase {
    Hello,
    GoodLuck,
    NicePlay,
    WellPlayed,
    Thanks,
    Sorry,
    Oops,
    HurryUp,
    GoodGame,
    ThumbsUp,
    Laugh,
    Wow,
}

impl QuickPhrase {
    /// The phrase as a chat line says it.
    pub const fn words(self) -> &'static str {
        match self {
            QuickPhrase::Hello => "Hello!",
            QuickPhrase::GoodLuck => "Good luck!",
            QuickPhrase::NicePlay => "Nice play!",
            QuickPhrase::WellPlayed => "Well played, partner!",
            QuickPhrase::Thanks => "Thanks!",
            QuickPhrase::Sorry => "Sorry!",
            QuickPhrase::Oops => "Oops!",
            QuickPhrase::HurryUp => "Your turn, please!",
            QuickPhrase::GoodGame => "Good game!",
            QuickPhrase::ThumbsUp => "👍",
            QuickPhrase::Laugh => "😄",
            QuickPhrase::Wow => "😮",
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
        /// The level of the room's bots; the server's default when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bots: Option<BotLevel>,
        /// Whether its games count for the ratings; only a public room may
        /// be rated.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        rated: bool,
        /// How fast its table plays.
        #[serde(default)]
        speed: TableSpeed,
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
    /// After a game, asks for another with the same players in the same
    /// seats; it starts once every seated person has asked. With
    /// `same_deals`, the new game deals the finished game's hands again
    /// and every player moves one seat to the left, so that each holds
    /// the cards an opponent held.
    Rematch {
        id: MessageId,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        same_deals: bool,
    },
    /// The room's owner seats a bot, in the given seat or the first free
    /// one, of the given level or the room's.
    AddBot {
        id: MessageId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Seat>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        level: Option<BotLevel>,
    },
    /// The room's owner takes a bot out of its seat.
    RemoveBot {
        id: MessageId,
        seat: Seat,
    },
    /// The owner of a private room removes a player (by his id) from it.
    RemovePlayer {
        id: MessageId,
        player: String,
    },
    /// Reports a player of the room (by his id) to the moderators; the
    /// room adds its game and its last chat lines to the report.
    Report {
        id: MessageId,
        player: String,
        reason: String,
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
    /// Invites a friend to the inviter's room, or to quick play as his
    /// partner; the friend gets an `invitation`.
    Invite {
        id: MessageId,
        /// The friend's player id.
        player: String,
        to: crate::friends::InviteTo,
        /// For quick play: the preset they would queue for.
        #[serde(default = "default_preset")]
        rules: Preset,
    },
    /// One of the set phrases and emotes, for players who do not type.
    QuickChat {
        id: MessageId,
        phrase: QuickPhrase,
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
            | ClientMessage::Rematch { id, .. }
            | ClientMessage::AddBot { id, .. }
            | ClientMessage::RemoveBot { id, .. }
            | ClientMessage::RemovePlayer { id, .. }
            | ClientMessage::Report { id, .. }
            | ClientMessage::Queue { id, .. }
            | ClientMessage::LeaveQueue { id }
            | ClientMessage::WatchTournament { id, .. }
            | ClientMessage::UnwatchTournament { id, .. }
            | ClientMessage::Bid { id, .. }
            | ClientMessage::Look { id }
            | ClientMessage::PassCards { id, .. }
            | ClientMessage::Play { id, .. }
            | ClientMessage::Chat { id, .. }
            | ClientMessage::QuickChat { id, .. }
            | ClientMessage::Invite { id, .. }
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
