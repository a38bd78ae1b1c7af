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
use std::str::FromStr;

#[cfg(feature = "serde")]
mod serde_impls;
mod set;
#[cfg(test)]
mod tests;

pub use set::{CardIter, CardSet};

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
