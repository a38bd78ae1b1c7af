//! The bids a player may choose from, as a set of numbers.

use std::fmt;

/// The most cards a hand holds in any game: 18, for three players with
/// the jokers. Bids and trick counts never go above it.
pub const MAX_TRICKS: u8 = 18;

/// The bids a player may make on his turn, as a set: bit 0 for nil and
/// bit `n` for `n` tricks. Blind nil is not in it: it is offered before the
/// cards are seen (see [`crate::Legal::BlindOrLook`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct BidChoices(u32);

impl BidChoices {
    /// Nil and every number from 1 to 13.
    pub const ALL: BidChoices = BidChoices(0x3fff);
    pub const NONE: BidChoices = BidChoices(0);
    pub const NIL: BidChoices = BidChoices(1);

    /// The numbers from `low` to `high` included (nil not included).
    pub const fn tricks(low: u8, high: u8) -> BidChoices {
        if low > high || high == 0 {
            return BidChoices::NONE;
        }
        let low = if low == 0 { 1 } else { low };
        let high = if high > MAX_TRICKS { MAX_TRICKS } else { high };
        BidChoices(((1u32 << (high + 1)) - 1) & !((1u32 << low) - 1))
    }

    /// The choices from numbers, 0 standing for nil; numbers above
    /// [`MAX_TRICKS`] are left out.
    pub fn from_numbers(numbers: impl IntoIterator<Item = u8>) -> BidChoices {
        BidChoices(
            numbers
                .into_iter()
                .filter(|&n| n <= MAX_TRICKS)
                .fold(0, |bits, n| bits | 1 << n),
        )
    }

    pub const fn bits(self) -> u32 {
        self.0
    }

    pub const fn union(self, other: BidChoices) -> BidChoices {
        BidChoices(self.0 | other.0)
    }

    pub const fn without(self, other: BidChoices) -> BidChoices {
        BidChoices(self.0 & !other.0)
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// How many bids there are to choose from.
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// The `n`th choice from the lowest (0 for nil), if there are that many.
    pub fn nth(self, n: u32) -> Option<u8> {
        let mut bits = self.0;
        for _ in 0..n {
            bits &= bits.wrapping_sub(1);
        }
        (bits != 0).then(|| bits.trailing_zeros() as u8)
    }

    pub const fn has_nil(self) -> bool {
        self.0 & 1 != 0
    }

    /// The choices as numbers, 0 standing for nil, lowest first.
    pub fn numbers(self) -> impl Iterator<Item = u8> {
        (0..=MAX_TRICKS).filter(move |n| self.0 & (1 << n) != 0)
    }

    /// The choice nearest to `wanted` tricks (0 for nil), the lower of two
    /// at the same distance; `None` when there is no choice.
    pub fn nearest(self, wanted: u8) -> Option<u8> {
        self.numbers().min_by_key(|&n| (n.abs_diff(wanted), n))
    }
}

/// For people: `nil, 4 to 13`, `3`, `nil or 5`.
impl fmt::Display for BidChoices {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        if self.has_nil() {
            parts.push("nil".into());
        }
        let mut numbers = self.numbers().filter(|&n| n > 0).peekable();
        while let Some(start) = numbers.next() {
            let mut end = start;
            while numbers.peek() == Some(&(end + 1)) {
                end = numbers.next().unwrap_or(end);
            }
            parts.push(if end > start {
                format!("{start} to {end}")
            } else {
                start.to_string()
            });
        }
        match parts.len() {
            0 => f.write_str("nothing"),
            1 => f.write_str(&parts[0]),
            n => write!(f, "{} or {}", parts[..n - 1].join(", "), parts[n - 1]),
        }
    }
}

impl fmt::Debug for BidChoices {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BidChoices({self})")
    }
}
