//! The record of one finished hand: everything needed to check or replay it.
//!
//! With the `serde` feature these types serialize to the hand-history JSON
//! described in `docs/hand-history.md` (the game index and the rule set's
//! name are added around them by whoever writes the file).

use arrayvec::ArrayVec;

use crate::action::Bid;
use crate::card::{Card, CardSet};
use crate::seat::{BySeat, ByTeam, Seat, Team};

/// One bid, in the form the history keeps: nil is `bid: 0`, blind nil is
/// `bid: 0, blind: true`, a team blind bid of 6 is `bid: 6, blind: true`
/// for each of the two partners.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BidRecord {
    pub seat: Seat,
    pub bid: u8,
    pub blind: bool,
}

impl BidRecord {
    pub fn new(seat: Seat, bid: Bid) -> BidRecord {
        BidRecord {
            seat,
            bid: bid.contract(),
            blind: bid.is_blind(),
        }
    }

    /// The bid this record stands for, if it is a valid one.
    pub fn to_bid(self) -> Option<Bid> {
        Bid::from_parts(self.bid, self.blind).ok()
    }
}

/// Cards one player gave his partner in a nil exchange.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PassRecord {
    pub from: Seat,
    pub to: Seat,
    pub cards: CardSet,
}

/// One trick: who led, the four cards in the order played, who won.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TrickRecord {
    pub leader: Seat,
    pub cards: [Card; 4],
    pub winner: Seat,
}

impl TrickRecord {
    /// The seat that played each card, in play order.
    pub fn players(&self) -> [Seat; 4] {
        std::array::from_fn(|i| self.leader.plus(i as u8))
    }
}

/// A finished hand.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HandRecord {
    /// The hand's number in its game, from 0.
    pub hand: u32,
    pub dealer: Seat,
    /// Each seat's thirteen cards as dealt, before any exchange.
    pub hands: BySeat<CardSet>,
    /// The four bids in bidding order, from the dealer's left; none in a
    /// hand played without bids (`unbid_first_hand`).
    pub bids: ArrayVec<BidRecord, 4>,
    /// The nil exchanges, in the order the cards were given.
    pub passes: ArrayVec<PassRecord, 4>,
    /// The thirteen tricks in order.
    pub tricks: [TrickRecord; 13],
    pub tricks_won: BySeat<u8>,
    /// Each team's score change in this hand.
    pub hand_score: ByTeam<i32>,
    /// Each team's running score after the hand.
    pub score: ByTeam<i32>,
    /// Each team's running bag count after the hand.
    pub bags: ByTeam<i32>,
    /// The team that won the game with this hand, if it ended the game.
    pub winner: Option<Team>,
}
