//! The packs a game may be dealt from.
//!
//! Every pack has 52 cards, so every hand has thirteen. The cards above the
//! ace of spades (see the `card` module) make the joker packs work without
//! any rule of play knowing about them: a joker or a raised two is a spade
//! by its byte, and outranks the ace by its byte.

use crate::card::{Card, CardSet, Rank, Suit};

/// Which cards are in play and how they rank.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Deck {
    /// The 52 cards of the standard pack, the ace of spades the highest
    /// trump.
    #[default]
    Standard,
    /// The big and little joker join the pack as the two highest trumps,
    /// followed by the two of spades and then the ace; the two of clubs and
    /// the two of hearts leave it.
    Jokers,
    /// The standard pack with the two of spades raised above the ace as the
    /// highest trump.
    DeuceHigh,
    /// New York's pack as many groups play it: the jokers and the raised
    /// two of spades on top as in [`Deck::Jokers`], but the two red twos
    /// leave the pack, so the two of clubs stays the lowest club.
    NewYork,
}

const TWO_OF_CLUBS: Card = Card::new(Rank::Two, Suit::Clubs);
const THREE_OF_CLUBS: Card = Card::new(Rank::Three, Suit::Clubs);
const TWO_OF_HEARTS: Card = Card::new(Rank::Two, Suit::Hearts);
const TWO_OF_DIAMONDS: Card = Card::new(Rank::Two, Suit::Diamonds);

impl Deck {
    pub const ALL: [Deck; 4] = [Deck::Standard, Deck::Jokers, Deck::DeuceHigh, Deck::NewYork];

    /// The 52 cards dealt.
    pub const fn cards(self) -> CardSet {
        let standard = CardSet::STANDARD_DECK.bits();
        let raised = standard & !CardSet::single(Card::TWO_OF_SPADES).bits()
            | CardSet::single(Card::HIGH_TWO_OF_SPADES).bits();
        let jokers = CardSet::single(Card::LITTLE_JOKER).bits() | CardSet::single(Card::BIG_JOKER).bits();
        let hearts_two = CardSet::single(TWO_OF_HEARTS).bits();
        CardSet::from_bits(match self {
            Deck::Standard => standard,
            Deck::DeuceHigh => raised,
            Deck::Jokers => raised & !CardSet::single(TWO_OF_CLUBS).bits() & !hearts_two | jokers,
            Deck::NewYork => raised & !CardSet::single(TWO_OF_DIAMONDS).bits() & !hearts_two | jokers,
        })
    }

    /// Whether the two of spades ranks above the ace.
    /// The cards dealt to `players` players. Four share the pack's 52.
    /// Three play without the lowest club (51 cards, 17 each), except with
    /// the jokers, where the twos of clubs and hearts come back to make 54
    /// (18 each).
    pub const fn pack(self, players: u8) -> CardSet {
        let four = self.cards().bits();
        if players != 3 {
            return CardSet::from_bits(four);
        }
        CardSet::from_bits(match self {
            Deck::Jokers => {
                four | CardSet::single(TWO_OF_CLUBS).bits() | CardSet::single(TWO_OF_HEARTS).bits()
            }
            Deck::Standard | Deck::DeuceHigh | Deck::NewYork => four & !CardSet::single(TWO_OF_CLUBS).bits(),
        })
    }

    /// The lowest club of the pack dealt to `players` players, which leads
    /// the first trick under [`crate::Leading::TwoOfClubs`].
    pub const fn lowest_club_of(self, players: u8) -> Card {
        match (self, players) {
            (Deck::Jokers, 3) => TWO_OF_CLUBS,
            (_, 3) => THREE_OF_CLUBS,
            _ => self.lowest_club(),
        }
    }

    pub const fn raises_two_of_spades(self) -> bool {
        !matches!(self, Deck::Standard)
    }

    /// The card of this pack that `card` names. A card string cannot tell
    /// the raised two of spades from the plain one, so a card read from a
    /// client or a record is put through this before it is compared with
    /// the cards of a game.
    #[inline]
    pub const fn card(self, card: Card) -> Card {
        if self.raises_two_of_spades() && card.index() == Card::TWO_OF_SPADES.index() {
            Card::HIGH_TWO_OF_SPADES
        } else {
            card
        }
    }

    /// The cards of this pack that `cards` name, as [`Deck::card`].
    #[inline]
    pub const fn set(self, cards: CardSet) -> CardSet {
        let two = CardSet::single(Card::TWO_OF_SPADES).bits();
        if self.raises_two_of_spades() && cards.bits() & two != 0 {
            CardSet::from_bits(cards.bits() & !two | CardSet::single(Card::HIGH_TWO_OF_SPADES).bits())
        } else {
            cards
        }
    }

    /// The lowest club of the pack, which leads the first trick where the
    /// rules say the holder of the two of clubs leads: the two, or the three
    /// when the two is out.
    pub const fn lowest_club(self) -> Card {
        match self {
            Deck::Jokers => THREE_OF_CLUBS,
            Deck::Standard | Deck::DeuceHigh | Deck::NewYork => TWO_OF_CLUBS,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pack_has_52_cards_that_follow_suit_by_their_byte() {
        for deck in Deck::ALL {
            let cards = deck.cards();
            assert_eq!(cards.len(), 52, "{deck:?}");
            assert_eq!(
                cards.in_suit(Suit::Clubs).len()
                    + cards.in_suit(Suit::Diamonds).len()
                    + cards.in_suit(Suit::Hearts).len()
                    + cards.in_suit(Suit::Spades).len(),
                52
            );
            assert!(cards.contains(deck.lowest_club()));
            assert!(cards.contains(deck.card(Card::TWO_OF_SPADES)));
        }
        let jokers = Deck::Jokers.cards();
        assert_eq!(jokers.in_suit(Suit::Spades).len(), 15);
        assert_eq!(jokers.in_suit(Suit::Clubs).len(), 12);
        assert_eq!(jokers.in_suit(Suit::Hearts).len(), 12);
        assert_eq!(jokers.in_suit(Suit::Spades).highest(), Some(Card::BIG_JOKER));
        let deuce = Deck::DeuceHigh.cards();
        assert_eq!(
            deuce.in_suit(Suit::Spades).highest(),
            Some(Card::HIGH_TWO_OF_SPADES)
        );
        assert_eq!(deuce.in_suit(Suit::Spades).lowest().unwrap().to_string(), "3S");
        let new_york = Deck::NewYork.cards();
        assert_eq!(new_york.in_suit(Suit::Spades), jokers.in_suit(Suit::Spades));
        assert_eq!(new_york.in_suit(Suit::Clubs).lowest().unwrap().to_string(), "2C");
        assert_eq!(new_york.in_suit(Suit::Diamonds).len(), 12);
        assert_eq!(new_york.in_suit(Suit::Hearts).len(), 12);
        assert!(!new_york.contains("2D".parse().unwrap()));
    }

    #[test]
    fn three_players_share_a_pack_that_divides_by_three() {
        for deck in Deck::ALL {
            let pack = deck.pack(3);
            let expected = if deck == Deck::Jokers { 54 } else { 51 };
            assert_eq!(pack.len(), expected, "{deck:?}");
            let lowest = deck.lowest_club_of(3);
            assert_eq!(pack.in_suit(Suit::Clubs).lowest(), Some(lowest), "{deck:?}");
            assert_eq!(deck.pack(4), deck.cards());
            assert_eq!(deck.lowest_club_of(4), deck.lowest_club());
        }
        assert!(!Deck::Standard.pack(3).contains(TWO_OF_CLUBS));
        assert_eq!(Deck::Jokers.pack(3).in_suit(Suit::Spades).len(), 15);
    }

    #[test]
    fn a_named_two_of_spades_is_the_packs_own() {
        assert_eq!(Deck::Standard.card(Card::TWO_OF_SPADES), Card::TWO_OF_SPADES);
        assert_eq!(Deck::Jokers.card(Card::TWO_OF_SPADES), Card::HIGH_TWO_OF_SPADES);
        let named: CardSet = ["2S", "AS"]
            .iter()
            .map(|text| text.parse::<Card>().unwrap())
            .collect();
        let raised = Deck::DeuceHigh.set(named);
        assert!(raised.contains(Card::HIGH_TWO_OF_SPADES) && !raised.contains(Card::TWO_OF_SPADES));
        assert_eq!(raised.len(), 2);
        assert_eq!(Deck::Standard.set(named), named);
    }
}
