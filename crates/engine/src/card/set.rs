//! Sets of cards as bit sets, and the iterator over their cards.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not, Sub, SubAssign};

use super::{Card, SUIT_BITS, Suit};
use crate::select::select_bit;

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
