//! What a player can do: bids and the other actions.

use std::fmt;
use std::str::FromStr;

use crate::card::{Card, CardSet};
use crate::choices::{BidChoices, MAX_TRICKS};
use crate::error::RuleError;

/// A player's bid for the hand.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Bid {
    /// A promise to take no trick.
    Nil,
    /// Nil declared before looking at the cards.
    BlindNil,
    /// A number of tricks toward the team's contract, from 1 to the number
    /// of cards in a hand (13, or 17 or 18 with three players). Build it
    /// with [`Bid::new`]; the engine refuses any other number.
    Tricks(u8),
    /// A team's blind bid of this many tricks, made by the first of two
    /// partners to bid while neither has seen his cards. It is the bid of
    /// both partners, and the team's contract counts it once.
    Blind(u8),
}

impl Bid {
    /// The bid for a number of tricks: 0 is nil, 1 to [`MAX_TRICKS`] count
    /// toward the contract, anything else is refused. A game refuses a bid
    /// above its own hand's size too.
    pub fn new(tricks: u8) -> Result<Bid, RuleError> {
        match tricks {
            0 => Ok(Bid::Nil),
            1..=MAX_TRICKS => Ok(Bid::Tricks(tricks)),
            _ => Err(RuleError::InvalidBid {
                tricks,
                most: MAX_TRICKS,
            }),
        }
    }

    /// The tricks the bid names: none for a nil. A team blind bid names
    /// the whole team's contract, so the two partners' bids are not added.
    pub const fn contract(self) -> u8 {
        match self {
            Bid::Tricks(tricks) | Bid::Blind(tricks) => tricks,
            Bid::Nil | Bid::BlindNil => 0,
        }
    }

    pub const fn is_nil(self) -> bool {
        matches!(self, Bid::Nil | Bid::BlindNil)
    }

    /// Whether the bid was made before the cards were seen: blind nil or a
    /// team blind bid.
    pub const fn is_blind(self) -> bool {
        matches!(self, Bid::BlindNil | Bid::Blind(_))
    }

    /// The bid from its protocol form: a number (0 for nil) and whether it
    /// was made blind. Blind 0 is blind nil; a blind number is a team blind
    /// bid. Numbers above [`MAX_TRICKS`] are refused.
    pub fn from_parts(tricks: u8, blind: bool) -> Result<Bid, RuleError> {
        match (tricks, blind) {
            (0, true) => Ok(Bid::BlindNil),
            (1..=MAX_TRICKS, true) => Ok(Bid::Blind(tricks)),
            (_, _) if blind => Err(RuleError::InvalidBid {
                tricks,
                most: MAX_TRICKS,
            }),
            (_, _) => Bid::new(tricks),
        }
    }
}

impl fmt::Display for Bid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bid::Nil => f.write_str("nil"),
            Bid::BlindNil => f.write_str("blind_nil"),
            Bid::Tricks(tricks) => write!(f, "{tricks}"),
            Bid::Blind(tricks) => write!(f, "blind_{tricks}"),
        }
    }
}

impl BidChoices {
    /// Whether the bid is among the choices. A blind bid counts as the
    /// same number seen: the choices say whether they are blind ones.
    pub const fn contains(self, bid: Bid) -> bool {
        let n = match bid {
            Bid::Nil | Bid::BlindNil => 0,
            Bid::Tricks(n) | Bid::Blind(n) if n <= MAX_TRICKS => n,
            Bid::Tricks(_) | Bid::Blind(_) => return false,
        };
        self.bits() & (1 << n) != 0
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
/// `bid 4`, `bid nil`, `bid blind_nil`, `bid blind_6` (a team blind bid),
/// `look`, `pass AS KH`, `play TS`.
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
            (Some("bid"), Some(blind)) if blind.starts_with("blind_") => {
                let tricks: u8 = blind["blind_".len()..].parse().map_err(|_| fail())?;
                match Bid::from_parts(tricks, true) {
                    Ok(bid @ Bid::Blind(_)) => Action::Bid(bid),
                    _ => return Err(fail()),
                }
            }
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
    fn bid_zero_is_nil_and_the_range_is_one_to_the_largest_hand() {
        assert_eq!(Bid::new(0), Ok(Bid::Nil));
        assert_eq!(Bid::new(13), Ok(Bid::Tricks(13)));
        assert_eq!(Bid::new(18), Ok(Bid::Tricks(18)));
        assert_eq!(Bid::new(19), Err(RuleError::InvalidBid { tricks: 19, most: 18 }));
        assert_eq!(Bid::Nil.contract(), 0);
        assert_eq!(Bid::BlindNil.contract(), 0);
        assert_eq!(Bid::Tricks(4).contract(), 4);
        assert_eq!(Bid::from_parts(0, true), Ok(Bid::BlindNil));
        assert_eq!(Bid::from_parts(7, true), Ok(Bid::Blind(7)));
        assert_eq!(Bid::from_parts(0, false), Ok(Bid::Nil));
        assert_eq!(
            Bid::from_parts(19, true),
            Err(RuleError::InvalidBid { tricks: 19, most: 18 })
        );
        assert!(Bid::Blind(7).is_blind() && !Bid::Blind(7).is_nil());
    }

    #[test]
    fn bid_choices_are_sets_of_numbers() {
        assert_eq!(
            BidChoices::ALL.numbers().collect::<Vec<_>>(),
            (0..=13).collect::<Vec<_>>()
        );
        let suicide_first = BidChoices::NIL.union(BidChoices::tricks(4, 13));
        assert_eq!(suicide_first.to_string(), "nil or 4 to 13");
        assert!(suicide_first.contains(Bid::BlindNil));
        assert!(!suicide_first.contains(Bid::Tricks(3)));
        assert_eq!(suicide_first.nearest(2), Some(0));
        assert_eq!(suicide_first.nearest(3), Some(4));
        assert_eq!(
            (suicide_first.len(), suicide_first.nth(0), suicide_first.nth(1)),
            (11, Some(0), Some(4))
        );
        assert_eq!(suicide_first.nth(11), None);
        assert_eq!(BidChoices::tricks(5, 5).to_string(), "5");
        assert_eq!(BidChoices::tricks(0, 3).to_string(), "1 to 3");
        assert_eq!(BidChoices::NONE.nearest(3), None);
        assert!(BidChoices::tricks(9, 3).is_empty());
    }

    #[test]
    fn the_text_form_round_trips() {
        for text in [
            "bid 4",
            "bid nil",
            "bid blind_nil",
            "bid blind_7",
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
            "bid 19",
            "bid 0x",
            "bid blind_0",
            "bid blind_19",
            "play",
            "play 1S",
            "pass AS AS",
            "look now",
        ] {
            assert!(bad.parse::<Action>().is_err(), "{bad:?} parsed");
        }
    }
}
