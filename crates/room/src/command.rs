//! What a player in a room asks of it: the one typed shape of a room
//! command, made once from the client's message and carried unchanged to
//! the room, through a channel here or across the cluster to its owner.

use serde::{Deserialize, Serialize};
use spades_engine::{Action, Seat};
use spades_protocol::ws::{BotLevel, QuickPhrase};

/// A command of a player already in the room.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RoomCommand {
    /// Take a seat, the one named or any free one.
    Sit {
        seat: Option<Seat>,
    },
    Stand,
    Start,
    /// Seat a bot of `level`, or of the room's level.
    AddBot {
        seat: Option<Seat>,
        #[serde(default)]
        level: Option<BotLevel>,
    },
    RemoveBot {
        seat: Seat,
    },
    /// The owner of a private room removes a player, by his id.
    RemovePlayer {
        player: String,
    },
    /// Report a player of the room to the moderators.
    Report {
        player: String,
        reason: String,
    },
    /// Bid, look at one's cards, pass cards or play one. Travels as its
    /// stored text, which `Action` reads back.
    Act {
        #[serde(with = "action_text")]
        action: Action,
    },
    Chat {
        text: String,
    },
    QuickChat {
        phrase: QuickPhrase,
    },
    /// `same_deals`: the finished game's deals again, every player one
    /// seat to the left.
    Rematch {
        same_deals: bool,
    },
}

/// An action as the text the journal stores (`Action`'s `Display` and
/// `FromStr`), so that the engine needs no serde of its own for it.
mod action_text {
    use serde::{Deserialize, Deserializer, Serializer};
    use spades_engine::Action;

    pub fn serialize<S: Serializer>(action: &Action, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(action)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Action, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spades_engine::{Bid, Card};

    #[test]
    fn every_command_reads_back_as_it_was_written() {
        let seat = Seat::new(2).expect("a seat");
        let commands = [
            RoomCommand::Sit { seat: Some(seat) },
            RoomCommand::Sit { seat: None },
            RoomCommand::Stand,
            RoomCommand::Start,
            RoomCommand::AddBot {
                seat: None,
                level: None,
            },
            RoomCommand::RemoveBot { seat },
            RoomCommand::Act {
                action: Action::Bid(Bid::from_parts(0, true).expect("blind nil")),
            },
            RoomCommand::Act {
                action: Action::Play("QH".parse::<Card>().expect("a card")),
            },
            RoomCommand::Act {
                action: Action::LookAtHand,
            },
            RoomCommand::Chat { text: "gg".into() },
        ];
        for command in commands {
            let text = serde_json::to_string(&command).expect("writes");
            let back: RoomCommand = serde_json::from_str(&text).expect("reads back");
            assert_eq!(back, command, "{text}");
        }
    }

    #[test]
    fn an_action_that_does_not_read_is_refused() {
        let error = serde_json::from_str::<RoomCommand>(r#"{"Act":{"action":"dance"}}"#);
        assert!(error.is_err());
    }
}
