//! What a player can do: bids and the other actions.

use std::fmt;
use std::str::FromStr;

use crate::card::{Card, CardSet};
use crate::error::RuleError;

/// A player's bid for the hand.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Bid {
    /// A promise to take no trick.
    Nil,
    /// Nil declared before looking at the cards.
    BlindNil,
    /// A number of tricks from 1 to 13 toward the team's contract. Build it
    /// with [`Bid::new`]; the engine refuses any other number.
    Tricks(u8),
}

impl Bid {
    /// The bid for a number of tricks: 0 is nil, 1 to 13 count toward the
    /// contract, anything else is refused.
    pub fn new(tricks: u8) -> Result<Bid, RuleError> {
        match tricks {
            0 => Ok(Bid::Nil),
            1..=13 => Ok(Bid::Tricks(tricks)),
            _ => Err(RuleError::InvalidBid { tricks }),
        }
    }

    /// Tricks this bid adds to the team's contract (none for a nil).
    pub const fn contract(self) -> u8 {
        match self {
            Bid::Tricks(tricks) => tricks,
            Bid::Nil | Bid::BlindNil => 0,
        }
    }

    pub const fn is_nil(self) -> bool {
        matches!(self, Bid::Nil | Bid::BlindNil)
    }

    pub const fn is_blind(self) -> bool {
        matches!(self, Bid::BlindNil)
    }
}

impl fmt::Display for Bid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bid::Nil => f.write_str("nil"),
            Bid::BlindNil => f.write_str("blind_nil"),
            Bid::Tricks(tricks) => write!(f, "{tricks}"),
        }
    }
}

/// Something a seat asks the engine to do.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Action {
    Bid(Bid),
    /// A player offered blind nil looks at his cards, giving up blind nil.
    LookAtHand,
    /// The cards a player gives his partner in a nil exchange.
    Pass(CardSet),
    Play(Card),
}

/// Actions have a short text form used in logs, stored games and tests:
/// `bid 4`, `bid nil`, `bid blind_nil`, `look`, `pass AS KH`, `play TS`.
impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Bid(bid) => write!(f, "bid {bid}"),
            Action::LookAtHand => f.write_str("look"),
            Action::Pass(cards) => write!(f, "pass {cards}"),
            Action::Play(card) => write!(f, "play {card}"),
        }
    }
}

/// Why a string is not an action in the text form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseActionError(String);

impl fmt::Display for ParseActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not an action: {}", self.0)
    }
}

impl std::error::Error for ParseActionError {}

impl FromStr for Action {
    type Err = ParseActionError;

    fn from_str(text: &str) -> Result<Action, ParseActionError> {
        let fail = || ParseActionError(text.chars().take(64).collect());
        let mut words = text.split_ascii_whitespace();
        let action = match (words.next(), words.next()) {
            (Some("look"), None) => return Ok(Action::LookAtHand),
            (Some("bid"), Some("nil")) => Action::Bid(Bid::Nil),
            (Some("bid"), Some("blind_nil")) => Action::Bid(Bid::BlindNil),
            (Some("bid"), Some(number)) => {
                let tricks: u8 = number.parse().map_err(|_| fail())?;
                Action::Bid(Bid::new(tricks).map_err(|_| fail())?)
            }
            (Some("play"), Some(card)) => Action::Play(card.parse().map_err(|_| fail())?),
            (Some("pass"), Some(first)) => {
                let mut cards = CardSet::EMPTY;
                for word in std::iter::once(first).chain(words.by_ref()) {
                    let card: Card = word.parse().map_err(|_| fail())?;
                    if cards.contains(card) {
                        return Err(fail());
                    }
                    cards.insert(card);
                }
                Action::Pass(cards)
            }
            _ => return Err(fail()),
        };
        match words.next() {
            None => Ok(action),
            Some(_) => Err(fail()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bid_zero_is_nil_and_the_range_is_one_to_thirteen() {
        assert_eq!(Bid::new(0), Ok(Bid::Nil));
        assert_eq!(Bid::new(13), Ok(Bid::Tricks(13)));
        assert_eq!(Bid::new(14), Err(RuleError::InvalidBid { tricks: 14 }));
        assert_eq!(Bid::Nil.contract(), 0);
        assert_eq!(Bid::BlindNil.contract(), 0);
        assert_eq!(Bid::Tricks(4).contract(), 4);
    }

    #[test]
    fn the_text_form_round_trips() {
        for text in [
            "bid 4",
            "bid nil",
            "bid blind_nil",
            "look",
            "pass AS KH",
            "play TS",
        ] {
            let action: Action = text.parse().unwrap();
            assert_eq!(action.to_string(), text);
        }
        for bad in [
            "",
            "bid",
            "bid 14",
            "bid 0x",
            "play",
            "play 1S",
            "pass AS AS",
            "look now",
        ] {
            assert!(bad.parse::<Action>().is_err(), "{bad:?} parsed");
        }
    }
}
