//! The events a room has sent, kept so that a client that comes back gets
//! exactly what it missed.
//!
//! A room keeps its last `capacity` events for its whole life, so the log
//! is stored compactly: every kept message is encoded back to back in one
//! byte queue. The common game events (a card played, a trick won, a bid,
//! a deal) take a few bytes each and are turned back into the same message,
//! hence the same JSON, when replayed; any other message is kept as the
//! JSON that was sent. A hand's events take about 1 KiB this way, where
//! their JSON takes about 7.
//!
//! Each message starts with a header byte: its kind in the high four bits
//! and, in the low four, the seats it was sent to. No seats marks the
//! public version, which everyone else got and which starts a new event;
//! the versions for particular seats follow it.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::Text;
use spades_engine::{Card, CardSet, Seat, SeatSet};
use spades_protocol::event::{EventKind, RoomEvent};

/// An event's kind as the room built it and the JSON it sent, which names
/// the log's room and the event's number.
#[derive(Clone, Copy, Debug)]
pub struct Sent<'a> {
    pub kind: &'a EventKind,
    pub text: &'a str,
}

/// The kinds of stored message; the bytes after each header are listed.
mod kind {
    /// The length as four little-endian bytes, then the JSON.
    pub const TEXT: u8 = 0;
    /// Seat, card.
    pub const CARD_PLAYED: u8 = 1;
    /// Trick, winner.
    pub const TRICK_WON: u8 = 2;
    /// Seat, bid, blind (0 or 1).
    pub const BID_MADE: u8 = 3;
    /// Leader.
    pub const PLAY_STARTED: u8 = 4;
    /// Dealer, flags (`CARDS`, `OFFERED`), the hand number as four
    /// little-endian bytes, then the cards as eight if `CARDS` is set.
    pub const HAND_STARTED: u8 = 5;

    pub const CARDS: u8 = 1;
    pub const OFFERED: u8 = 2;
}

/// A stored message, read back.
enum Body {
    /// Where the JSON lies in the byte queue.
    Text(std::ops::Range<usize>),
    CardPlayed {
        seat: Seat,
        card: Card,
    },
    TrickWon {
        trick: u8,
        winner: Seat,
    },
    BidMade {
        seat: Seat,
        bid: u8,
        blind: bool,
    },
    PlayStarted {
        leader: Seat,
    },
    HandStarted {
        hand: u32,
        dealer: Seat,
        cards: Option<CardSet>,
        blind_nil_offered: bool,
    },
}

#[derive(Debug)]
pub struct EventLog {
    /// The room's code, which every event names.
    room: Arc<str>,
    /// The sequence number of the last event (the base before the first).
    seq: u64,
    /// The number the room's events started after when it opened. Numbers
    /// up to it belong to an earlier opening of the room (before a restart),
    /// whose events this log never held.
    base: u64,
    capacity: usize,
    /// How many events the log holds.
    events: usize,
    bytes: VecDeque<u8>,
}

impl EventLog {
    /// A log whose first event will be numbered `base + 1`.
    pub fn new(room: Arc<str>, capacity: usize, base: u64) -> EventLog {
        EventLog {
            room,
            seq: base,
            base,
            capacity: capacity.max(1),
            events: 0,
            bytes: VecDeque::new(),
        }
    }

    /// The sequence number of the last event.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// The sequence number the next event gets.
    pub fn next_seq(&self) -> u64 {
        self.seq + 1
    }

    /// Keeps an event: its public version and the versions some seats got
    /// instead. Forgets the oldest event when the log is full.
    pub fn push(&mut self, public: Sent<'_>, private: &[(SeatSet, Sent<'_>)]) {
        self.seq += 1;
        if self.events == self.capacity {
            self.forget_oldest();
        }
        self.keep(SeatSet::EMPTY, public);
        for &(seats, sent) in private {
            // An empty set would read back as the start of another event.
            if !seats.is_empty() {
                self.keep(seats, sent);
            }
        }
        self.events += 1;
    }

    /// Encodes one message: compactly when it is a common game event, whose
    /// room and number the log knows; else as its JSON.
    fn keep(&mut self, seats: SeatSet, sent: Sent<'_>) {
        let seats_bits = seats.iter().fold(0u8, |bits, seat| bits | 1 << seat.index());
        let header = |kind: u8| kind << 4 | seats_bits;
        let seat = |seat: Seat| seat.index() as u8;
        let bytes = &mut self.bytes;
        match *sent.kind {
            EventKind::CardPlayed { seat: who, card } => {
                bytes.extend([header(kind::CARD_PLAYED), seat(who), card.index()]);
            }
            EventKind::TrickWon { trick, winner } => {
                bytes.extend([header(kind::TRICK_WON), trick, seat(winner)]);
            }
            EventKind::BidMade {
                seat: who,
                bid,
                blind,
            } => {
                bytes.extend([header(kind::BID_MADE), seat(who), bid, u8::from(blind)]);
            }
            EventKind::PlayStarted { leader } => bytes.extend([header(kind::PLAY_STARTED), seat(leader)]),
            EventKind::HandStarted {
                hand,
                dealer,
                cards,
                blind_nil_offered,
            } => {
                let mut flags = 0;
                if cards.is_some() {
                    flags |= kind::CARDS;
                }
                if blind_nil_offered {
                    flags |= kind::OFFERED;
                }
                bytes.extend([header(kind::HAND_STARTED), seat(dealer), flags]);
                bytes.extend(hand.to_le_bytes());
                if let Some(cards) = cards {
                    bytes.extend(cards.bits().to_le_bytes());
                }
            }
            _ => {
                bytes.push_back(header(kind::TEXT));
                bytes.extend((sent.text.len() as u32).to_le_bytes());
                bytes.extend(sent.text.as_bytes());
            }
        }
    }

    /// Drops the oldest event: its public version and those that follow it.
    fn forget_oldest(&mut self) {
        let mut reader = Reader::new(&self.bytes);
        let mut end = 0;
        while let Some((seats, body)) = reader.next() {
            if body.is_none() {
                // Unreadable bytes: forget everything, and a client that
                // comes back gets a snapshot instead.
                self.bytes.clear();
                self.events = 0;
                return;
            }
            if end > 0 && seats.is_empty() {
                break;
            }
            end = reader.at;
        }
        self.bytes.drain(..end);
        self.events -= 1;
    }

    /// The events after `after` as `seat` (or a spectator) received them,
    /// if the log still holds all of them.
    ///
    /// A number below the base was seen in an earlier opening of the room:
    /// what followed it there is not what followed it here, so the answer
    /// is `None` even when the log is complete.
    pub fn since(&self, after: u64, seat: Option<Seat>) -> Option<Vec<Text>> {
        let oldest = self.seq + 1 - self.events as u64;
        // Checked against the newest first: `after` comes from the client,
        // and the comparison with the oldest must not overflow on u64::MAX.
        if after > self.seq || after < self.base || after + 1 < oldest {
            return None;
        }
        let mut messages: Vec<Text> = Vec::new();
        let mut seq = oldest - 1;
        let mut reader = Reader::new(&self.bytes);
        while let Some((seats, body)) = reader.next() {
            let body = body?;
            let public = seats.is_empty();
            if public {
                seq += 1;
            }
            if seq <= after {
                continue;
            }
            let mine = seat.is_some_and(|seat| seats.contains(seat));
            if public {
                messages.push(self.message(body, seq));
            } else if mine && let Some(last) = messages.last_mut() {
                // This seat's own version replaces the public one.
                *last = self.message(body, seq);
            }
        }
        Some(messages)
    }

    /// The JSON of a stored message, as it was sent.
    fn message(&self, body: Body, seq: u64) -> Text {
        let kind = match body {
            Body::Text(range) => {
                let bytes: Vec<u8> = self.bytes.range(range).copied().collect();
                // Only whole `&str`s are stored as text, so this is UTF-8.
                return Text::from(String::from_utf8(bytes).unwrap_or_default());
            }
            Body::CardPlayed { seat, card } => EventKind::CardPlayed { seat, card },
            Body::TrickWon { trick, winner } => EventKind::TrickWon { trick, winner },
            Body::BidMade { seat, bid, blind } => EventKind::BidMade { seat, bid, blind },
            Body::PlayStarted { leader } => EventKind::PlayStarted { leader },
            Body::HandStarted {
                hand,
                dealer,
                cards,
                blind_nil_offered,
            } => EventKind::HandStarted {
                hand,
                dealer,
                cards,
                blind_nil_offered,
            },
        };
        Text::from(RoomEvent::json(&self.room, seq, &kind))
    }

    /// Bytes the log holds, for tests that check it stays small.
    #[cfg(test)]
    fn stored_bytes(&self) -> usize {
        self.bytes.len()
    }
}

/// Walks the byte queue one stored message at a time.
struct Reader<'a> {
    bytes: &'a VecDeque<u8>,
    at: usize,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a VecDeque<u8>) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    /// The next message's seats and body; the body is `None` if its bytes
    /// do not decode, which only a bug in `keep` could cause, and the walk
    /// must stop there.
    fn next(&mut self) -> Option<(SeatSet, Option<Body>)> {
        let header = *self.bytes.get(self.at)?;
        self.at += 1;
        let seats = Seat::ALL
            .into_iter()
            .filter(|seat| header & 1 << seat.index() != 0)
            .collect();
        Some((seats, self.body(header >> 4)))
    }

    fn body(&mut self, kind: u8) -> Option<Body> {
        Some(match kind {
            kind::TEXT => {
                let len = u32::from_le_bytes(self.array()?) as usize;
                let start = self.at;
                self.at += len;
                Body::Text(start..self.at)
            }
            kind::CARD_PLAYED => Body::CardPlayed {
                seat: self.seat()?,
                card: Card::from_index(self.byte()?)?,
            },
            kind::TRICK_WON => Body::TrickWon {
                trick: self.byte()?,
                winner: self.seat()?,
            },
            kind::BID_MADE => Body::BidMade {
                seat: self.seat()?,
                bid: self.byte()?,
                blind: self.byte()? != 0,
            },
            kind::PLAY_STARTED => Body::PlayStarted { leader: self.seat()? },
            kind::HAND_STARTED => {
                let dealer = self.seat()?;
                let flags = self.byte()?;
                let hand = u32::from_le_bytes(self.array()?);
                let cards = if flags & kind::CARDS != 0 {
                    Some(CardSet::from_bits(u64::from_le_bytes(self.array()?)))
                } else {
                    None
                };
                Body::HandStarted {
                    hand,
                    dealer,
                    cards,
                    blind_nil_offered: flags & kind::OFFERED != 0,
                }
            }
            _ => return None,
        })
    }

    fn byte(&mut self) -> Option<u8> {
        let byte = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(byte)
    }

    fn seat(&mut self) -> Option<Seat> {
        Seat::new(self.byte()?)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        let mut array = [0; N];
        for byte in &mut array {
            *byte = self.byte()?;
        }
        Some(array)
    }
}

#[cfg(test)]
mod tests;
