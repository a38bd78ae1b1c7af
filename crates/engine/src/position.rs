//! A moment in the play of a hand, written out in full.

use crate::action::Bid;
use crate::card::{Card, CardSet};
use crate::history::{PassRecord, TrickRecord};
use crate::seat::{BySeat, ByTeam, Seat};

/// Everything that makes a position in the play of a hand: the public
/// record (scores, bids, tricks, the cards on the table) and the cards
/// every seat holds. [`Game::from_position`](crate::Game::from_position)
/// sets a game up from it; a bot builds one from what it has seen and its
/// guess at the rest.
#[derive(Clone, Copy, Debug)]
pub struct Position<'a> {
    pub hand_number: u32,
    pub dealer: Seat,
    /// The running totals before this hand.
    pub score: ByTeam<i32>,
    pub bags: ByTeam<i32>,
    pub bids: BySeat<Bid>,
    /// The cards each seat holds now.
    pub hands: BySeat<CardSet>,
    /// The complete tricks of the hand, in order.
    pub tricks: &'a [TrickRecord],
    /// The cards on the table, in the order played.
    pub trick: &'a [Card],
    /// The exchanges of the hand that are known, to rebuild what was dealt.
    pub passes: &'a [PassRecord],
}
