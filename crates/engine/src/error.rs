//! Why the engine refused an action.

use std::fmt;

use crate::card::{Card, Suit};
use crate::choices::BidChoices;
use crate::phase::Phase;
use crate::seat::Seat;

/// The reason an action was refused. A refused action never changes the
/// game.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum RuleError {
    /// The game is over; nothing more can be played.
    GameOver,
    /// This kind of action does not belong to the current phase.
    WrongPhase { phase: Phase },
    /// Another seat is to act (or this seat is waiting for its partner's
    /// cards in a nil exchange).
    NotYourTurn { turn: Option<Seat> },
    /// A bid outside nil and 1 to `most`, the number of cards in a hand.
    InvalidBid { tricks: u8, most: u8 },
    /// A bid the table's rules do not allow now (board, suicide, whiz,
    /// mirror, no nil...); `choices` are the bids that are.
    BidNotAllowed { choices: BidChoices },
    /// Blind nil is off in these rules, or the team is not far enough behind.
    BlindNilNotAllowed,
    /// The player has looked at his cards, which gives up blind nil.
    BlindNilAfterLooking,
    /// A team blind bid that the rules do not allow now: they have none,
    /// the team does not trail by enough, a partner has seen his cards or
    /// bid, or the number is outside the rules' range: from `lowest` to
    /// `highest`, the team maximum or the tricks of a hand.
    BlindBidNotAllowed { lowest: u8, highest: u8 },
    /// The player's cards are still hidden from him: he must look at them
    /// (or bid blind) before he can bid a number.
    MustLookAtHand,
    /// Only a player offered blind nil can ask to see his cards, once.
    HandAlreadyVisible,
    /// This seat has no cards to give in this hand's exchange, or has given
    /// them already.
    NothingToPass,
    /// An exchange needs exactly `expected` cards.
    WrongPassCount { expected: u8, got: u8 },
    /// The card is not in the player's hand.
    CardNotInHand { card: Card },
    /// The player holds the suit that was led and must play it.
    MustFollowSuit { suit: Suit },
    /// Spades cannot be led before one has been played, unless the leader
    /// holds nothing else.
    SpadesNotBroken,
    /// This lead must be this card (the two of clubs, when it opens a hand).
    MustLead { card: Card },
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleError::GameOver => f.write_str("the game is over"),
            RuleError::WrongPhase { phase } => {
                write!(f, "that action does not belong to the {phase} phase")
            }
            RuleError::NotYourTurn { turn: Some(seat) } => {
                write!(f, "it is not your turn: {seat} is to act")
            }
            RuleError::NotYourTurn { turn: None } => {
                f.write_str("it is not your turn: wait for your partner's cards")
            }
            RuleError::InvalidBid { tricks, most } => {
                write!(f, "a bid of {tricks} is not allowed: bid nil or 1 to {most}")
            }
            RuleError::BidNotAllowed { choices } => {
                write!(f, "this table's rules allow you to bid {choices} now")
            }
            RuleError::BlindNilNotAllowed => f.write_str(
                "blind nil is allowed only when it is on and your team trails by the required margin",
            ),
            RuleError::BlindNilAfterLooking => {
                f.write_str("you have looked at your cards, so blind nil is no longer possible")
            }
            RuleError::BlindBidNotAllowed { lowest: 0, .. } => {
                f.write_str("this table's rules have no blind bids for a team")
            }
            RuleError::BlindBidNotAllowed { lowest, highest } => write!(
                f,
                "a team bids blind {lowest} to {highest}, only when it trails by the rules' margin and before either partner has seen his cards or bid"
            ),
            RuleError::MustLookAtHand => f.write_str("look at your cards before bidding, or bid blind"),
            RuleError::HandAlreadyVisible => f.write_str("your cards are already visible to you"),
            RuleError::NothingToPass => f.write_str("you have no cards to pass now"),
            RuleError::WrongPassCount { expected, got } => {
                write!(f, "pass exactly {expected} cards, not {got}")
            }
            RuleError::CardNotInHand { card } => write!(f, "{card} is not in your hand"),
            RuleError::MustFollowSuit { suit } => write!(f, "you must follow suit: play {suit}"),
            RuleError::SpadesNotBroken => {
                f.write_str("spades are not broken: lead another suit while you hold one")
            }
            RuleError::MustLead { card } => write!(f, "the first trick must be led with {card}"),
        }
    }
}

impl std::error::Error for RuleError {}
