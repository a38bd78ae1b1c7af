//! What happened as the result of an accepted action.

use arrayvec::ArrayVec;

use crate::action::Bid;
use crate::card::{Card, CardSet};
use crate::seat::{Seat, Team};

/// One thing that happened. Events name hidden cards only in
/// [`Event::CardsPassed`], which must reach the giver and the receiver alone;
/// everything else in an event is public.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Event {
    /// A player offered blind nil looked at his cards.
    LookedAtHand {
        seat: Seat,
    },
    BidMade {
        seat: Seat,
        bid: Bid,
    },
    /// Bidding is over and at least one team exchanges cards before play.
    PassingStarted,
    /// In a simultaneous exchange, a player has chosen his cards; they move
    /// when his partner has chosen too.
    PassChosen {
        seat: Seat,
    },
    /// Cards moved from one partner to the other.
    CardsPassed {
        from: Seat,
        to: Seat,
        cards: CardSet,
    },
    /// Bidding and any exchange are over; `leader` leads the first trick.
    PlayStarted {
        leader: Seat,
    },
    CardPlayed {
        seat: Seat,
        card: Card,
    },
    /// The trick numbered `trick` (from 0) is complete.
    TrickWon {
        trick: u8,
        winner: Seat,
    },
    /// The hand numbered `hand` is scored; its record is
    /// [`Game::last_hand`](crate::Game::last_hand).
    HandEnded {
        hand: u32,
    },
    /// A new hand has been dealt.
    HandStarted {
        hand: u32,
        dealer: Seat,
    },
    GameEnded {
        winner: Team,
    },
}

/// The events of one accepted action, in order. The list lives on the stack:
/// no action produces more than four events.
pub type Events = ArrayVec<Event, 4>;
