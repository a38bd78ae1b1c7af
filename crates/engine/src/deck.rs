//! The packs a game may be dealt from.
//!
//! Every pack has 52 cards, so every hand has thirteen. The cards above the
//! ace of spades (see the `card` module) make the joker packs work without
//! any rule of play knowing about them: a joker or a raised two is a spade
//! by its byte, and outranks the ace by its byte.
//!
//! A stored game names its pack, so a pack's cards and order never change
//! once a game may have been dealt from it: a different pack is a new
//! variant.

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
    /// leave the pack, so the two of clubs stays the lowest club. The
    /// `new-york` preset dealt it before it took [`Deck::NewYorkCity`], and
    /// the games stored then name it.
    NewYork,
    /// New York City's pack as the rule book gives it: the big joker, the
    /// little joker, the two of spades and the two of diamonds, in that
    /// order, above the ace of spades; the two of diamonds follows suit as
    /// a spade. The two of clubs and the two of hearts leave the pack.
    NewYorkCity,
}

const TWO_OF_CLUBS: Card = Card::new(Rank::Two, Suit::Clubs);
const THREE_OF_CLUBS: Card = Card::new(Rank::Three, Suit::Clubs);
const TWO_OF_HEARTS: Card = Card::new(Rank::Two, Suit::Hearts);

impl Deck {
    pub const ALL: [Deck; 5] = [
        Deck::Standard,
        Deck::Jokers,
        Deck::DeuceHigh,
        Deck::NewYork,
        Deck::NewYorkCity,
    ];

    /// The 52 cards dealt.
    pub const fn cards(self) -> CardSet {
        let standard = CardSet::STANDARD_DECK.bits();
        let raised = standard & !CardSet::single(Card::TWO_OF_SPADES).bits()
            | CardSet::single(Card::HIGH_TWO_OF_SPADES).bits();
        let jokers = CardSet::single(Card::LITTLE_JOKER).bits() | CardSet::single(Card::BIG_JOKER).bits();
        let hearts_two = CardSet::single(TWO_OF_HEARTS).bits();
        let clubs_two = CardSet::single(TWO_OF_CLUBS).bits();
        let diamonds_two = CardSet::single(Card::TWO_OF_DIAMONDS).bits();
        CardSet::from_bits(match self {
            Deck::Standard => standard,
            Deck::DeuceHigh => raised,
            Deck::Jokers => raised & !clubs_two & !hearts_two | jokers,
            Deck::NewYork => raised & !diamonds_two & !hearts_two | jokers,
            Deck::NewYorkCity => {
                raised & !clubs_two & !hearts_two & !diamonds_two
                    | CardSet::single(Card::TRUMP_TWO_OF_DIAMONDS).bits()
                    | jokers
            }
        })
    }

    /// The cards dealt to `players` players. Four share the pack's 52.
    /// Three play without the lowest club (51 cards, 17 each), except in
    /// the packs that put the twos of clubs and hearts out for the jokers
    /// (`jokers`, `new_york_city`), where those twos come back to make 54
    /// (18 each).
    pub const fn pack(self, players: u8) -> CardSet {
        let four = self.cards().bits();
        if players != 3 {
            return CardSet::from_bits(four);
        }
        CardSet::from_bits(match self {
            Deck::Jokers | Deck::NewYorkCity => {
                four | CardSet::single(TWO_OF_CLUBS).bits() | CardSet::single(TWO_OF_HEARTS).bits()
            }
            Deck::Standard | Deck::DeuceHigh | Deck::NewYork => four & !CardSet::single(TWO_OF_CLUBS).bits(),
        })
    }

    /// The lowest club of the pack dealt to `players` players, which leads
    /// the first trick under [`crate::Leading::TwoOfClubs`].
    pub const fn lowest_club_of(self, players: u8) -> Card {
        match (self, players) {
            (Deck::Jokers | Deck::NewYorkCity, 3) => TWO_OF_CLUBS,
            (_, 3) => THREE_OF_CLUBS,
            _ => self.lowest_club(),
        }
    }

    /// Whether the two of spades ranks above the ace.
    pub const fn raises_two_of_spades(self) -> bool {
        !matches!(self, Deck::Standard)
    }

    /// Whether the two of diamonds is a trump, above the ace of spades.
    pub const fn raises_two_of_diamonds(self) -> bool {
        matches!(self, Deck::NewYorkCity)
    }

    /// The card of this pack that `card` names. A card string cannot tell
    /// a two raised above the ace of spades from the plain one, so a card
    /// read from a client or a record is put through this before it is
    /// compared with the cards of a game.
    #[inline]
    pub const fn card(self, card: Card) -> Card {
        if self.raises_two_of_spades() && card.index() == Card::TWO_OF_SPADES.index() {
            Card::HIGH_TWO_OF_SPADES
        } else if self.raises_two_of_diamonds() && card.index() == Card::TWO_OF_DIAMONDS.index() {
            Card::TRUMP_TWO_OF_DIAMONDS
        } else {
            card
        }
    }

    /// The cards of this pack that `cards` name, as [`Deck::card`].
    #[inline]
    pub const fn set(self, cards: CardSet) -> CardSet {
        let bits = cards.bits();
        let bits = if self.raises_two_of_spades() {
            raise(bits, Card::TWO_OF_SPADES, Card::HIGH_TWO_OF_SPADES)
        } else {
            bits
        };
        let bits = if self.raises_two_of_diamonds() {
            raise(bits, Card::TWO_OF_DIAMONDS, Card::TRUMP_TWO_OF_DIAMONDS)
        } else {
            bits
        };
        CardSet::from_bits(bits)
    }

    /// The lowest club of the pack, which leads the first trick where the
    /// rules say the holder of the two of clubs leads: the two, or the three
    /// when the two is out.
    pub const fn lowest_club(self) -> Card {
        match self {
            Deck::Jokers | Deck::NewYorkCity => THREE_OF_CLUBS,
            Deck::Standard | Deck::DeuceHigh | Deck::NewYork => TWO_OF_CLUBS,
        }
    }
}

/// `bits` with the card `plain` replaced by `raised`, if it holds it.
const fn raise(bits: u64, plain: Card, raised: Card) -> u64 {
    let plain = CardSet::single(plain).bits();
    if bits & plain != 0 {
        bits & !plain | CardSet::single(raised).bits()
    } else {
        bits
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
        // New York City's: the jokers, the raised two of spades and the
        // trump two of diamonds above the ace; the twos of clubs and hearts
        // out, and no diamond two among the diamonds.
        let city = Deck::NewYorkCity.cards();
        let trumps: Vec<Card> = city.in_suit(Suit::Spades).iter_desc().take(5).collect();
        assert_eq!(
            trumps,
            [
                Card::BIG_JOKER,
                Card::LITTLE_JOKER,
                Card::HIGH_TWO_OF_SPADES,
                Card::TRUMP_TWO_OF_DIAMONDS,
                "AS".parse().unwrap(),
            ]
        );
        assert_eq!(city.in_suit(Suit::Spades).len(), 16);
        for suit in [Suit::Clubs, Suit::Diamonds, Suit::Hearts] {
            assert_eq!(city.in_suit(suit).len(), 12, "{suit}");
            assert_eq!(city.in_suit(suit).lowest().unwrap().rank(), Rank::Three, "{suit}");
        }
        assert!(!city.contains(Card::TWO_OF_DIAMONDS));
    }

    /// The order in which each pack's cards are shuffled: byte order, as
    /// card strings. Stored games are dealt again from it, so it must
    /// never change for a pack that exists.
    #[test]
    fn each_pack_starts_its_shuffle_in_the_documented_order() {
        let run = |suit: char, from: usize| -> Vec<String> {
            "23456789TJQKA"[from..]
                .chars()
                .map(|rank| format!("{rank}{suit}"))
                .collect()
        };
        let order = |parts: &[Vec<String>]| parts.concat().join(" ");
        let top = |cards: &[&str]| cards.iter().map(|card| card.to_string()).collect::<Vec<_>>();
        let expected = [
            (
                Deck::Standard,
                order(&[run('C', 0), run('D', 0), run('H', 0), run('S', 0)]),
            ),
            (
                Deck::Jokers,
                order(&[
                    run('C', 1),
                    run('D', 0),
                    run('H', 1),
                    run('S', 1),
                    top(&["2S", "LJ", "BJ"]),
                ]),
            ),
            (
                Deck::DeuceHigh,
                order(&[run('C', 0), run('D', 0), run('H', 0), run('S', 1), top(&["2S"])]),
            ),
            (
                Deck::NewYork,
                order(&[
                    run('C', 0),
                    run('D', 1),
                    run('H', 1),
                    run('S', 1),
                    top(&["2S", "LJ", "BJ"]),
                ]),
            ),
            (
                Deck::NewYorkCity,
                order(&[
                    run('C', 1),
                    run('D', 1),
                    run('H', 1),
                    run('S', 1),
                    top(&["2D", "2S", "LJ", "BJ"]),
                ]),
            ),
        ];
        for (deck, expected) in expected {
            let dealt: Vec<String> = deck.cards().iter().map(|card| card.to_string()).collect();
            assert_eq!(dealt.join(" "), expected, "{deck:?}");
        }
    }

    #[test]
    fn three_players_share_a_pack_that_divides_by_three() {
        for deck in Deck::ALL {
            let pack = deck.pack(3);
            let expected = if matches!(deck, Deck::Jokers | Deck::NewYorkCity) {
                54
            } else {
                51
            };
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

    #[test]
    fn a_named_two_of_diamonds_is_new_york_citys_trump() {
        assert_eq!(
            Deck::NewYorkCity.card(Card::TWO_OF_DIAMONDS),
            Card::TRUMP_TWO_OF_DIAMONDS
        );
        for deck in [Deck::Standard, Deck::Jokers, Deck::DeuceHigh, Deck::NewYork] {
            assert_eq!(
                deck.card(Card::TWO_OF_DIAMONDS),
                Card::TWO_OF_DIAMONDS,
                "{deck:?}"
            );
        }
        let named: CardSet = ["2S", "2D", "KD"]
            .iter()
            .map(|text| text.parse::<Card>().unwrap())
            .collect();
        let own = Deck::NewYorkCity.set(named);
        assert_eq!(own.to_string(), "2S 2D KD");
        assert!(own.is_subset(Deck::NewYorkCity.cards()));
        assert_eq!(own.in_suit(Suit::Spades).len(), 2);
        // Every card of every pack is its own card, named by its string.
        for deck in Deck::ALL {
            for card in deck.pack(3) | deck.pack(4) {
                assert_eq!(
                    deck.card(card.to_string().parse().unwrap()),
                    card,
                    "{deck:?} {card}"
                );
            }
        }
    }
}
