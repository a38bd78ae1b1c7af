//! The record of one finished hand: everything needed to check or replay it.
//!
//! With the `serde` feature these types serialize to the hand-history JSON
//! described in `docs/hand-history.md` (the game index and the rule set's
//! name are added around them by whoever writes the file).

use arrayvec::ArrayVec;

use crate::action::Bid;
use crate::card::{Card, CardSet};
use crate::choices::MAX_TRICKS;
use crate::seat::{BySeat, ByTeam, Seat, Seating, Team};

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

/// One trick: who led, the cards in the order played (four, or three in
/// the three-player game), who won.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TrickRecord {
    pub leader: Seat,
    pub cards: TrickCards,
    pub winner: Seat,
}

impl TrickRecord {
    /// The seat that played each card, in play order. A trick of three
    /// cards went round the three seats of the three-player game.
    pub fn players(&self) -> impl Iterator<Item = Seat> + use<> {
        let seating = if self.cards.len() == 3 {
            Seating::Three
        } else {
            Seating::Partners
        };
        let leader = self.leader;
        (0..self.cards.len() as u8).map(move |i| seating.plus(leader, i))
    }
}

/// The cards of one trick in play order: up to four, kept in a fixed array
/// so that a trick stays `Copy`. It reads as a slice of the cards played.
#[derive(Clone, Copy, Debug)]
pub struct TrickCards {
    cards: [Card; 4],
    len: u8,
}

impl TrickCards {
    pub const EMPTY: TrickCards = TrickCards {
        cards: [Card::TWO_OF_SPADES; 4],
        len: 0,
    };

    /// Puts `card` in place `position` (0 for the lead) and forgets any
    /// card after it, as the play of that card does.
    #[inline]
    pub fn set(&mut self, position: usize, card: Card) {
        self.cards[position & 3] = card;
        self.len = (position & 3) as u8 + 1;
    }

    /// The same trick with each card changed by `f`.
    pub fn map(mut self, f: impl Fn(Card) -> Card) -> TrickCards {
        for card in &mut self.cards[..usize::from(self.len)] {
            *card = f(*card);
        }
        self
    }

    /// The four places, those after the cards played holding anything.
    #[inline]
    pub(crate) fn slots(&self) -> &[Card; 4] {
        &self.cards
    }

    /// The cards from a slice, or `None` for more than four.
    pub fn from_slice(cards: &[Card]) -> Option<TrickCards> {
        let mut trick = TrickCards::EMPTY;
        if cards.len() > 4 {
            return None;
        }
        trick.cards[..cards.len()].copy_from_slice(cards);
        trick.len = cards.len() as u8;
        Some(trick)
    }
}

impl std::ops::Deref for TrickCards {
    type Target = [Card];
    fn deref(&self) -> &[Card] {
        &self.cards[..usize::from(self.len)]
    }
}

impl<const N: usize> From<[Card; N]> for TrickCards {
    /// # Panics
    /// For more than four cards.
    fn from(cards: [Card; N]) -> TrickCards {
        TrickCards::from_slice(&cards).expect("a trick holds at most four cards")
    }
}

impl IntoIterator for TrickCards {
    type Item = Card;
    type IntoIter = std::iter::Take<std::array::IntoIter<Card, 4>>;
    fn into_iter(self) -> Self::IntoIter {
        self.cards.into_iter().take(usize::from(self.len))
    }
}

impl PartialEq for TrickCards {
    fn eq(&self, other: &TrickCards) -> bool {
        **self == **other
    }
}

impl Eq for TrickCards {}

impl std::hash::Hash for TrickCards {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for TrickCards {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for TrickCards {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<TrickCards, D::Error> {
        let cards = Vec::<Card>::deserialize(deserializer)?;
        TrickCards::from_slice(&cards)
            .ok_or_else(|| serde::de::Error::custom(format!("a trick of {} cards: at most 4", cards.len())))
    }
}

/// A finished hand.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HandRecord {
    /// The hand's number in its game, from 0.
    pub hand: u32,
    pub dealer: Seat,
    /// Each seat's cards as dealt, before any exchange (none for the empty
    /// fourth seat of the three-player game).
    pub hands: BySeat<CardSet>,
    /// The bids in bidding order, from the dealer's left; none in a
    /// hand played without bids (`unbid_first_hand`).
    pub bids: ArrayVec<BidRecord, 4>,
    /// The nil exchanges, in the order the cards were given.
    pub passes: ArrayVec<PassRecord, 4>,
    /// The tricks in order: 13, or 17 or 18 in the three-player game.
    pub tricks: ArrayVec<TrickRecord, { MAX_TRICKS as usize }>,
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
