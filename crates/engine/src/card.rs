//! Suits, ranks, cards and sets of cards.
//!
//! A card is one byte and a set of cards is one `u64` whose bit `n` stands
//! for the card with byte `n`. Each suit owns a run of bits, lowest card
//! first, so "the spades in this hand" is one AND and "the highest spade"
//! is one leading-zero count. Clubs, diamonds and hearts start at bits 0,
//! 16 and 32 (two to ace in the low thirteen). The spade suit owns the
//! seventeen bits from 47 to 63: the plain two at 47, three to ace at 48 to
//! 59, and four places above the ace for the cards that some packs make
//! the highest trumps: the two of diamonds of New York City's pack (byte
//! 60), the two of spades raised above the ace (61), the little joker (62)
//! and the big joker (63). Sitting in the spade suit's bits, they follow
//! suit as spades and outrank every other trump in byte order, so the rules
//! of play need no special case for them. The hearts' and the other suits'
//! spare bits are never used.
//!
//! A card's string depends on its byte alone, and the cards above the ace
//! keep the strings of the cards they stand for (`2D`, `2S`); a string is
//! turned into the card of a game's pack by [`crate::Deck::card`].

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not, Sub, SubAssign};
use std::str::FromStr;

use crate::select::select_bit;

/// The four suits, in the order used for card bytes and for display.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
pub enum Suit {
    Clubs = 0,
    Diamonds = 1,
    Hearts = 2,
    Spades = 3,
}

impl Suit {
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    pub const fn index(self) -> usize {
        self as usize
    }

    pub const fn from_index(index: usize) -> Option<Suit> {
        match index {
            0 => Some(Suit::Clubs),
            1 => Some(Suit::Diamonds),
            2 => Some(Suit::Hearts),
            3 => Some(Suit::Spades),
            _ => None,
        }
    }

    /// The letter used in card strings: `C`, `D`, `H` or `S`.
    pub const fn letter(self) -> char {
        match self {
            Suit::Clubs => 'C',
            Suit::Diamonds => 'D',
            Suit::Hearts => 'H',
            Suit::Spades => 'S',
        }
    }

    pub const fn from_letter(letter: char) -> Option<Suit> {
        match letter {
            'C' | 'c' => Some(Suit::Clubs),
            'D' | 'd' => Some(Suit::Diamonds),
            'H' | 'h' => Some(Suit::Hearts),
            'S' | 's' => Some(Suit::Spades),
            _ => None,
        }
    }
}

impl fmt::Display for Suit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Suit::Clubs => "clubs",
            Suit::Diamonds => "diamonds",
            Suit::Hearts => "hearts",
            Suit::Spades => "spades",
        };
        f.write_str(name)
    }
}

/// The thirteen ranks of the standard pack, lowest first, and the two
/// jokers. A two raised above the ace of spades still has the rank `Two`:
/// compare cards of one suit with [`Card::order`] (or the cards
/// themselves), not by rank.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
pub enum Rank {
    Two = 0,
    Three,
    Four,
    Five,
    Six,
    Seven,
    Eight,
    Nine,
    Ten,
    Jack,
    Queen,
    King,
    Ace,
    LittleJoker = 14,
    BigJoker = 15,
}

/// The byte of each suit's two, where its places begin (see the module
/// docs): the spade suit begins one place early to have room for four
/// cards above its ace.
const SUIT_START: [u8; 4] = [0, 16, 32, 47];

/// Every place of each suit as bits, the spare ones included: sixteen for
/// clubs and diamonds, fifteen for hearts, seventeen for spades.
const SUIT_BITS: [u64; 4] = [0xFFFF, 0xFFFF << 16, 0x7FFF << 32, u64::MAX << 47];

/// The byte of the two of diamonds as New York City's pack ranks it, the
/// lowest of the four places above the ace of spades.
const TRUMP_TWO_OF_DIAMONDS: u8 = 60;

/// The two letters of each byte's card string, or zeros for a byte that
/// names no card of any pack.
const LETTERS: [[u8; 2]; 64] = {
    let mut letters = [[0u8; 2]; 64];
    let mut suit = 0;
    while suit < 4 {
        let mut rank = 0;
        while rank < 13 {
            letters[(SUIT_START[suit] + rank) as usize] = [b"23456789TJQKA"[rank as usize], b"CDHS"[suit]];
            rank += 1;
        }
        suit += 1;
    }
    // The cards above the ace of spades keep the strings of the cards
    // they stand for.
    letters[TRUMP_TWO_OF_DIAMONDS as usize] = *b"2D";
    letters[61] = *b"2S";
    letters[62] = *b"LJ";
    letters[63] = *b"BJ";
    letters
};

/// The rank of each byte: the thirteen standard ranks of each suit, two
/// for the twos above the ace of spades, and the jokers.
const RANK_OF_BYTE: [Rank; 64] = {
    let mut ranks = [Rank::Two; 64];
    let mut suit = 0;
    while suit < 4 {
        let mut rank = 0;
        while rank < 13 {
            ranks[(SUIT_START[suit] + rank) as usize] = Rank::ALL[rank as usize];
            rank += 1;
        }
        suit += 1;
    }
    ranks[62] = Rank::LittleJoker;
    ranks[63] = Rank::BigJoker;
    ranks
};

impl Rank {
    pub const ALL: [Rank; 13] = [
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
    ];

    pub const fn index(self) -> usize {
        self as usize
    }

    pub const fn from_index(index: usize) -> Option<Rank> {
        if index < 13 { Some(Rank::ALL[index]) } else { None }
    }

    /// The character used in card strings: `2`..`9`, `T`, `J`, `Q`, `K`, `A`,
    /// and `L` or `B` for the jokers (whose strings are `LJ` and `BJ`).
    pub const fn letter(self) -> char {
        match self {
            Rank::LittleJoker => 'L',
            Rank::BigJoker => 'B',
            _ => b"23456789TJQKA"[self as usize] as char,
        }
    }

    pub const fn from_letter(letter: char) -> Option<Rank> {
        let index = match letter {
            '2'..='9' => letter as usize - '2' as usize,
            'T' | 't' => 8,
            'J' | 'j' => 9,
            'Q' | 'q' => 10,
            'K' | 'k' => 11,
            'A' | 'a' => 12,
            _ => return None,
        };
        Rank::from_index(index)
    }
}

/// One playing card, as one byte; see the module docs.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card(u8);

impl Card {
    /// The big joker, the highest trump of the joker packs.
    pub const BIG_JOKER: Card = Card(63);
    /// The little joker, the second trump of the joker packs.
    pub const LITTLE_JOKER: Card = Card(62);
    /// The two of spades raised above the ace, as the joker and deuce-high
    /// packs rank it. Its string is `2S`, like the ordinary two's.
    pub const HIGH_TWO_OF_SPADES: Card = Card(61);
    /// The two of diamonds as New York City's pack ranks it: a trump,
    /// under the raised two of spades and above the ace. Its string is
    /// `2D`, like the ordinary two's.
    pub const TRUMP_TWO_OF_DIAMONDS: Card = Card(TRUMP_TWO_OF_DIAMONDS);
    /// The two of spades where it ranks as the lowest spade.
    pub const TWO_OF_SPADES: Card = Card::new(Rank::Two, Suit::Spades);
    /// The two of diamonds where it is the lowest diamond.
    pub const TWO_OF_DIAMONDS: Card = Card::new(Rank::Two, Suit::Diamonds);

    /// The card of a rank and suit. A joker is the same card whatever
    /// suit is named, since the jokers belong to the spade suit.
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        match rank {
            Rank::LittleJoker => Card::LITTLE_JOKER,
            Rank::BigJoker => Card::BIG_JOKER,
            _ => Card(SUIT_START[suit as usize] + rank as u8),
        }
    }

    /// The card whose byte is `index`, if that byte names a card of some
    /// pack: the 52 standard cards and the four cards above the ace of
    /// spades.
    pub const fn from_index(index: u8) -> Option<Card> {
        if index < 64 && LETTERS[index as usize][0] != 0 {
            Some(Card(index))
        } else {
            None
        }
    }

    /// The card's place within the suit it follows, 0 for the two up to
    /// 12 for the ace, and 13 to 16 for the cards above the ace of spades:
    /// of two cards of one suit, the higher place wins.
    pub const fn order(self) -> u8 {
        self.0 - SUIT_START[self.suit() as usize]
    }

    pub const fn is_joker(self) -> bool {
        self.0 >= Card::LITTLE_JOKER.0
    }

    /// The card as the standard pack ranks it: a two raised above the ace
    /// of spades becomes the plain one. Card strings do not tell the two
    /// apart, so this is how a card read from a string is compared across
    /// packs.
    pub const fn plain(self) -> Card {
        match self.0 {
            61 => Card::TWO_OF_SPADES,
            TRUMP_TWO_OF_DIAMONDS => Card::TWO_OF_DIAMONDS,
            _ => self,
        }
    }

    pub const fn index(self) -> u8 {
        self.0
    }

    /// The suit the card follows as: spades for the cards above the ace
    /// of spades, the two of diamonds among them.
    pub const fn suit(self) -> Suit {
        // Bytes 48 to 63 are spades by their top bits; byte 47 is the one
        // spade below them. A card byte is below 64, so the mask only helps
        // the compiler drop the bounds check.
        Suit::ALL[((self.0 >> 4) + (self.0 == 47) as u8) as usize & 3]
    }

    pub const fn rank(self) -> Rank {
        RANK_OF_BYTE[self.0 as usize & 63]
    }

    pub const fn is_spade(self) -> bool {
        self.0 >= SUIT_START[Suit::Spades as usize]
    }

    const fn bit(self) -> u64 {
        1 << self.0
    }
}

impl Card {
    /// The two letters of the card's string: rank then suit, or `LJ` and
    /// `BJ` for the jokers. A two above the ace of spades has the string
    /// of the plain two it stands for.
    const fn letters(self) -> [u8; 2] {
        LETTERS[self.0 as usize & 63]
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [rank, suit] = self.letters();
        write!(f, "{}{}", rank as char, suit as char)
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a string is not a card.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseCardError {
    text: String,
}

impl fmt::Display for ParseCardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a card: expected a rank of 23456789TJQKA followed by a suit of CDHS, as in \"TS\", or a joker, BJ or LJ",
            self.text
        )
    }
}

impl std::error::Error for ParseCardError {}

impl FromStr for Card {
    type Err = ParseCardError;

    fn from_str(text: &str) -> Result<Card, ParseCardError> {
        let mut chars = text.chars();
        let parsed = match (chars.next(), chars.next(), chars.next()) {
            (Some('B' | 'b'), Some('J' | 'j'), None) => Some(Card::BIG_JOKER),
            (Some('L' | 'l'), Some('J' | 'j'), None) => Some(Card::LITTLE_JOKER),
            (Some(rank), Some(suit), None) => Rank::from_letter(rank)
                .zip(Suit::from_letter(suit))
                .map(|(rank, suit)| Card::new(rank, suit)),
            _ => None,
        };
        parsed.ok_or_else(|| ParseCardError {
            text: text.chars().take(16).collect(),
        })
    }
}

/// A set of cards as a bit set: one bit per card byte.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CardSet(u64);

impl CardSet {
    pub const EMPTY: CardSet = CardSet(0);
    /// The 52 cards of the standard pack.
    pub const STANDARD_DECK: CardSet = CardSet(0x1FFF | 0x1FFF << 16 | 0x1FFF << 32 | 0x1FFF << 47);

    pub const fn from_bits(bits: u64) -> CardSet {
        CardSet(bits)
    }

    pub const fn bits(self) -> u64 {
        self.0
    }

    /// Every place of one suit, the spare ones included: in the spade
    /// suit these are the cards above the ace (raised twos and jokers),
    /// which follow suit as spades. Intersect with a pack for the cards
    /// that exist.
    pub const fn suit(suit: Suit) -> CardSet {
        CardSet(SUIT_BITS[suit as usize])
    }

    /// Every place of the suit of `card`, as [`CardSet::suit`].
    #[inline]
    pub const fn suit_of(card: Card) -> CardSet {
        CardSet::suit(card.suit())
    }

    pub const fn single(card: Card) -> CardSet {
        CardSet(card.bit())
    }

    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub const fn contains(self, card: Card) -> bool {
        self.0 & card.bit() != 0
    }

    pub const fn is_subset(self, other: CardSet) -> bool {
        self.0 & !other.0 == 0
    }

    pub fn insert(&mut self, card: Card) {
        self.0 |= card.bit();
    }

    pub fn remove(&mut self, card: Card) {
        self.0 &= !card.bit();
    }

    /// The cards of this set in one suit.
    pub const fn in_suit(self, suit: Suit) -> CardSet {
        CardSet(self.0 & CardSet::suit(suit).0)
    }

    /// The highest card by byte, which within one suit is the highest rank.
    pub const fn highest(self) -> Option<Card> {
        if self.0 == 0 {
            None
        } else {
            Some(Card(63 - self.0.leading_zeros() as u8))
        }
    }

    /// The lowest card by byte, which within one suit is the lowest rank.
    pub const fn lowest(self) -> Option<Card> {
        if self.0 == 0 {
            None
        } else {
            Some(Card(self.0.trailing_zeros() as u8))
        }
    }

    /// The `n`th card counting from the lowest byte, if the set has that many.
    /// This is how a uniformly drawn index becomes a card without building a
    /// list.
    ///
    /// It runs without branches on the data (see the `select` module),
    /// because random players call it on every move and a mispredicted loop
    /// exit would cost more than the whole move.
    #[inline]
    pub fn nth(self, n: u32) -> Option<Card> {
        select_bit(self.0, |_| n).map(Card)
    }

    /// The card whose place is given by `index`, which is called with the
    /// size of the set and must return a number below it; `None` for an
    /// empty set. This is how a random player draws a card: counting the
    /// set and finding the card share their work.
    #[inline]
    pub fn choose(self, index: impl FnOnce(u32) -> u32) -> Option<Card> {
        if self.is_empty() {
            return None;
        }
        select_bit(self.0, index).map(Card)
    }

    /// Cards from lowest byte to highest.
    pub fn iter(self) -> CardIter {
        CardIter(self.0)
    }

    /// Cards from highest byte to lowest: spades first, aces first, the
    /// order a player sorts his hand in.
    pub fn iter_desc(self) -> impl DoubleEndedIterator<Item = Card> + ExactSizeIterator {
        self.iter().rev()
    }
}

impl fmt::Display for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for card in self.iter_desc() {
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            write!(f, "{card}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{self}]")
    }
}

impl BitOr for CardSet {
    type Output = CardSet;
    fn bitor(self, rhs: CardSet) -> CardSet {
        CardSet(self.0 | rhs.0)
    }
}

impl BitOrAssign for CardSet {
    fn bitor_assign(&mut self, rhs: CardSet) {
        self.0 |= rhs.0;
    }
}

impl BitAnd for CardSet {
    type Output = CardSet;
    fn bitand(self, rhs: CardSet) -> CardSet {
        CardSet(self.0 & rhs.0)
    }
}

impl BitAndAssign for CardSet {
    fn bitand_assign(&mut self, rhs: CardSet) {
        self.0 &= rhs.0;
    }
}

impl Sub for CardSet {
    type Output = CardSet;
    fn sub(self, rhs: CardSet) -> CardSet {
        CardSet(self.0 & !rhs.0)
    }
}

impl SubAssign for CardSet {
    fn sub_assign(&mut self, rhs: CardSet) {
        self.0 &= !rhs.0;
    }
}

impl Not for CardSet {
    type Output = CardSet;
    /// The standard-pack cards not in this set.
    fn not(self) -> CardSet {
        CardSet(!self.0 & CardSet::STANDARD_DECK.0)
    }
}

impl FromIterator<Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = Card>>(iter: I) -> CardSet {
        let mut set = CardSet::EMPTY;
        for card in iter {
            set.insert(card);
        }
        set
    }
}

impl From<Card> for CardSet {
    fn from(card: Card) -> CardSet {
        CardSet::single(card)
    }
}

impl IntoIterator for CardSet {
    type Item = Card;
    type IntoIter = CardIter;
    fn into_iter(self) -> CardIter {
        self.iter()
    }
}

/// Iterator over the cards of a [`CardSet`], lowest byte first.
#[derive(Clone, Debug)]
pub struct CardIter(u64);

impl Iterator for CardIter {
    type Item = Card;

    fn next(&mut self) -> Option<Card> {
        let card = CardSet(self.0).lowest()?;
        self.0 &= self.0 - 1;
        Some(card)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.0.count_ones() as usize;
        (len, Some(len))
    }
}

impl DoubleEndedIterator for CardIter {
    fn next_back(&mut self) -> Option<Card> {
        let card = CardSet(self.0).highest()?;
        self.0 &= !card.bit();
        Some(card)
    }
}

impl ExactSizeIterator for CardIter {}

#[cfg(feature = "serde")]
mod serde_impls {
    use super::{Card, CardSet};
    use serde::de::{Error, SeqAccess, Visitor};
    use serde::ser::SerializeSeq;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::fmt;

    impl Serialize for Card {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let text = self.letters();
            // Both letters are ASCII, so this cannot fail.
            serializer.serialize_str(std::str::from_utf8(&text).map_err(serde::ser::Error::custom)?)
        }
    }

    impl<'de> Deserialize<'de> for Card {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Card, D::Error> {
            struct CardVisitor;
            impl Visitor<'_> for CardVisitor {
                type Value = Card;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a card such as \"TS\" or \"BJ\"")
                }
                fn visit_str<E: Error>(self, text: &str) -> Result<Card, E> {
                    text.parse().map_err(E::custom)
                }
            }
            deserializer.deserialize_str(CardVisitor)
        }
    }

    /// A set is written as a list of card strings, highest first.
    impl Serialize for CardSet {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut seq = serializer.serialize_seq(Some(self.len() as usize))?;
            for card in self.iter_desc() {
                seq.serialize_element(&card)?;
            }
            seq.end()
        }
    }

    /// A list that names a card twice is refused rather than silently merged,
    /// because a client that sends it has misunderstood something.
    impl<'de> Deserialize<'de> for CardSet {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<CardSet, D::Error> {
            struct SetVisitor;
            impl<'de> Visitor<'de> for SetVisitor {
                type Value = CardSet;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a list of distinct cards")
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<CardSet, A::Error> {
                    let mut set = CardSet::EMPTY;
                    while let Some(card) = seq.next_element::<Card>()? {
                        if set.contains(card) {
                            return Err(A::Error::custom(format!("card {card} is listed twice")));
                        }
                        set.insert(card);
                    }
                    Ok(set)
                }
            }
            deserializer.deserialize_seq(SetVisitor)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_card_string_round_trips() {
        let mut seen = CardSet::EMPTY;
        for suit in Suit::ALL {
            for rank in Rank::ALL {
                let card = Card::new(rank, suit);
                assert_eq!(card.suit(), suit);
                assert_eq!(card.rank(), rank);
                let text = card.to_string();
                assert_eq!(text.len(), 2);
                assert_eq!(text.parse::<Card>(), Ok(card));
                assert!(!seen.contains(card));
                seen.insert(card);
            }
        }
        assert_eq!(seen, CardSet::STANDARD_DECK);
        assert_eq!(seen.len(), 52);
    }

    #[test]
    fn card_strings_use_t_for_ten() {
        assert_eq!(Card::new(Rank::Ten, Suit::Spades).to_string(), "TS");
        assert_eq!("AH".parse::<Card>(), Ok(Card::new(Rank::Ace, Suit::Hearts)));
        for bad in ["", "A", "10S", "1S", "AX", "ASS", "ZS"] {
            assert!(bad.parse::<Card>().is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn jokers_and_the_raised_twos_sit_above_the_ace_of_spades() {
        let ace = Card::new(Rank::Ace, Suit::Spades);
        let order = [
            ace,
            Card::TRUMP_TWO_OF_DIAMONDS,
            Card::HIGH_TWO_OF_SPADES,
            Card::LITTLE_JOKER,
            Card::BIG_JOKER,
        ];
        assert!(order.windows(2).all(|pair| pair[0] < pair[1]));
        for card in order {
            assert!(card.is_spade());
            assert!(CardSet::suit(Suit::Spades).contains(card));
            assert_eq!(Card::from_index(card.index()), Some(card));
        }
        assert_eq!(Card::BIG_JOKER.to_string(), "BJ");
        assert_eq!(Card::LITTLE_JOKER.to_string(), "LJ");
        assert_eq!(Card::HIGH_TWO_OF_SPADES.to_string(), "2S");
        assert_eq!("bj".parse::<Card>(), Ok(Card::BIG_JOKER));
        assert_eq!("LJ".parse::<Card>(), Ok(Card::LITTLE_JOKER));
        // A string names the plain two; the rules raise it where the pack does.
        assert_eq!("2S".parse::<Card>(), Ok(Card::TWO_OF_SPADES));
        assert_eq!(Card::HIGH_TWO_OF_SPADES.plain(), Card::TWO_OF_SPADES);
        assert_eq!(Card::HIGH_TWO_OF_SPADES.rank(), Rank::Two);
        assert_eq!(Card::new(Rank::BigJoker, Suit::Hearts), Card::BIG_JOKER);
        assert!(!Card::HIGH_TWO_OF_SPADES.is_joker() && Card::LITTLE_JOKER.is_joker());
        // The trump two of diamonds is written as the plain one, follows as
        // a spade, and ranks under the raised two of spades.
        assert_eq!(Card::TRUMP_TWO_OF_DIAMONDS.to_string(), "2D");
        assert_eq!("2D".parse::<Card>(), Ok(Card::TWO_OF_DIAMONDS));
        assert_eq!(Card::TRUMP_TWO_OF_DIAMONDS.plain(), Card::TWO_OF_DIAMONDS);
        assert_eq!(Card::TRUMP_TWO_OF_DIAMONDS.rank(), Rank::Two);
        assert_eq!(Card::TRUMP_TWO_OF_DIAMONDS.suit(), Suit::Spades);
        assert!(!Card::TRUMP_TWO_OF_DIAMONDS.is_joker());
        assert_eq!(
            order.map(Card::order),
            [12, 13, 14, 15, 16],
            "the places above the ace follow it"
        );
        for index in [13, 14, 15, 29, 30, 31, 45, 46] {
            assert_eq!(Card::from_index(index), None);
        }
        assert!("CJ".parse::<Card>().is_err());
    }

    /// Every byte that names a card is in its suit's bits and no other's,
    /// the suits' bits cover all 64 and never overlap, and the standard
    /// cards of a suit are its lowest thirteen places, two to ace.
    #[test]
    fn every_byte_belongs_to_exactly_one_suit() {
        let mut covered = 0u64;
        for suit in Suit::ALL {
            let bits = CardSet::suit(suit).bits();
            assert_eq!(covered & bits, 0, "{suit} overlaps");
            covered |= bits;
            let ranks: Vec<Rank> = (CardSet::suit(suit) & CardSet::STANDARD_DECK)
                .iter()
                .map(Card::rank)
                .collect();
            assert_eq!(ranks, Rank::ALL, "{suit}");
        }
        assert_eq!(covered, u64::MAX);
        for index in 0..64 {
            if let Some(card) = Card::from_index(index) {
                assert!(CardSet::suit(card.suit()).contains(card), "{card}");
                assert_eq!(CardSet::suit_of(card), CardSet::suit(card.suit()));
                assert_eq!(card.is_spade(), card.suit() == Suit::Spades, "{card}");
                assert_eq!(
                    Card::from_index(card.index() - card.order()).map(Card::rank),
                    Some(Rank::Two),
                    "{card}'s suit starts at its two"
                );
            }
        }
        let named = (0..64).filter_map(Card::from_index).count();
        assert_eq!(named, 56, "52 standard cards and four above the ace of spades");
    }

    #[test]
    fn suit_masks_partition_the_deck() {
        let mut all = CardSet::EMPTY;
        for suit in Suit::ALL {
            let cards = CardSet::suit(suit) & CardSet::STANDARD_DECK;
            assert_eq!(cards.len(), 13);
            assert!((all & cards).is_empty());
            assert!(cards.iter().all(|card| card.suit() == suit));
            all |= cards;
        }
        assert_eq!(all, CardSet::STANDARD_DECK);
    }

    #[test]
    fn highest_lowest_and_nth() {
        let set: CardSet = ["2S", "AS", "KH", "3C"]
            .iter()
            .map(|text| text.parse::<Card>().unwrap())
            .collect();
        assert_eq!(set.highest().unwrap().to_string(), "AS");
        assert_eq!(set.lowest().unwrap().to_string(), "3C");
        assert_eq!(set.in_suit(Suit::Spades).lowest().unwrap().to_string(), "2S");
        let by_nth: Vec<String> = (0..4).map(|n| set.nth(n).unwrap().to_string()).collect();
        assert_eq!(by_nth, ["3C", "KH", "2S", "AS"]);
        assert_eq!(set.nth(4), None);
        assert_eq!(set.choose(|len| len - 1).unwrap().to_string(), "AS");
        assert_eq!(CardSet::EMPTY.choose(|_| 0), None);
        assert_eq!(set.to_string(), "AS 2S KH 3C");
    }
}
