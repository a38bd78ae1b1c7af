//! Cards as their two-letter strings and card sets as lists of them, for serde.

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
