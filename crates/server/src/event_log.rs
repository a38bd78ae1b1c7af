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

use axum::extract::ws::Utf8Bytes;
use spades_engine::{Card, CardSet, Seat, SeatSet};
use spades_protocol::ws::ServerMessage;

/// A message as the room built it and the JSON it sent.
#[derive(Clone, Copy, Debug)]
pub struct Sent<'a> {
    pub message: &'a ServerMessage,
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

    /// Encodes one message: compactly when it is a common game event that
    /// names this room and the event's number, since those are the fields
    /// the compact form leaves out; else as its JSON.
    fn keep(&mut self, seats: SeatSet, sent: Sent<'_>) {
        let seats_bits = seats.iter().fold(0u8, |bits, seat| bits | 1 << seat.index());
        let header = |kind: u8| kind << 4 | seats_bits;
        let seat = |seat: Seat| seat.index() as u8;
        let ours = |room: &str, seq: u64| room == &*self.room && seq == self.seq;
        let bytes = &mut self.bytes;
        match *sent.message {
            ServerMessage::CardPlayed {
                ref room,
                seq,
                seat: who,
                card,
            } if ours(room, seq) => bytes.extend([header(kind::CARD_PLAYED), seat(who), card.index()]),
            ServerMessage::TrickWon {
                ref room,
                seq,
                trick,
                winner,
            } if ours(room, seq) => bytes.extend([header(kind::TRICK_WON), trick, seat(winner)]),
            ServerMessage::BidMade {
                ref room,
                seq,
                seat: who,
                bid,
                blind,
            } if ours(room, seq) => {
                bytes.extend([header(kind::BID_MADE), seat(who), bid, u8::from(blind)]);
            }
            ServerMessage::PlayStarted {
                ref room,
                seq,
                leader,
            } if ours(room, seq) => bytes.extend([header(kind::PLAY_STARTED), seat(leader)]),
            ServerMessage::HandStarted {
                ref room,
                seq,
                hand,
                dealer,
                cards,
                blind_nil_offered,
            } if ours(room, seq) => {
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
    pub fn since(&self, after: u64, seat: Option<Seat>) -> Option<Vec<Utf8Bytes>> {
        let oldest = self.seq + 1 - self.events as u64;
        if after < self.base || after + 1 < oldest || after > self.seq {
            return None;
        }
        let mut messages: Vec<Utf8Bytes> = Vec::new();
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
    fn message(&self, body: Body, seq: u64) -> Utf8Bytes {
        let room = self.room.to_string();
        let message = match body {
            Body::Text(range) => {
                let bytes: Vec<u8> = self.bytes.range(range).copied().collect();
                // Only whole `&str`s are stored as text, so this is UTF-8.
                return Utf8Bytes::from(String::from_utf8(bytes).unwrap_or_default());
            }
            Body::CardPlayed { seat, card } => ServerMessage::CardPlayed {
                room,
                seq,
                seat,
                card,
            },
            Body::TrickWon { trick, winner } => ServerMessage::TrickWon {
                room,
                seq,
                trick,
                winner,
            },
            Body::BidMade { seat, bid, blind } => ServerMessage::BidMade {
                room,
                seq,
                seat,
                bid,
                blind,
            },
            Body::PlayStarted { leader } => ServerMessage::PlayStarted { room, seq, leader },
            Body::HandStarted {
                hand,
                dealer,
                cards,
                blind_nil_offered,
            } => ServerMessage::HandStarted {
                room,
                seq,
                hand,
                dealer,
                cards,
                blind_nil_offered,
            },
        };
        Utf8Bytes::from(message.to_json())
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
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn seat(n: u8) -> Seat {
        Seat::new(n).unwrap()
    }

    fn texts(messages: Option<Vec<Utf8Bytes>>) -> Vec<String> {
        messages.unwrap().iter().map(|m| m.as_str().to_string()).collect()
    }

    /// A log that keeps messages from room `R` and their JSON.
    struct Harness {
        log: EventLog,
        /// Each event's public JSON and the JSON each seat got, in order.
        sent: Vec<(String, [Option<String>; 4])>,
    }

    impl Harness {
        fn new(capacity: usize) -> Harness {
            Harness {
                log: EventLog::new("R".into(), capacity, 0),
                sent: Vec::new(),
            }
        }

        /// Logs an event built by `make(seq, seat)`, with its own versions
        /// for the seats in `private`.
        fn push(&mut self, private: SeatSet, make: impl Fn(u64, Option<Seat>) -> ServerMessage) {
            let seq = self.log.next_seq();
            let public = make(seq, None);
            let public_text = public.to_json();
            let versions: Vec<(Seat, ServerMessage, String)> = private
                .iter()
                .map(|seat| {
                    let message = make(seq, Some(seat));
                    let text = message.to_json();
                    (seat, message, text)
                })
                .collect();
            let kept: Vec<(SeatSet, Sent<'_>)> = versions
                .iter()
                .map(|(seat, message, text)| (SeatSet::single(*seat), Sent { message, text }))
                .collect();
            self.log.push(
                Sent {
                    message: &public,
                    text: &public_text,
                },
                &kept,
            );
            let mut own: [Option<String>; 4] = Default::default();
            for (seat, _, text) in versions {
                own[seat.index()] = Some(text);
            }
            self.sent.push((public_text, own));
        }

        /// What `viewer` was sent after event `after`, from the record.
        fn expected(&self, after: u64, viewer: Option<Seat>) -> Vec<String> {
            self.sent[after as usize..]
                .iter()
                .map(|(public, own)| {
                    viewer
                        .and_then(|seat| own[seat.index()].clone())
                        .unwrap_or_else(|| public.clone())
                })
                .collect()
        }
    }

    fn text_event(seq: u64, text: &str) -> ServerMessage {
        ServerMessage::ChatMessage {
            room: "R".into(),
            seq,
            from: spades_protocol::ws::PlayerInfo {
                id: "p".into(),
                name: "P".into(),
                bot: false,
            },
            seat: None,
            text: text.into(),
        }
    }

    #[test]
    fn replays_what_each_viewer_saw_after_a_point() {
        let mut h = Harness::new(10);
        h.push(SeatSet::EMPTY, |seq, _| text_event(seq, "a"));
        h.push([seat(1), seat(2)].into_iter().collect(), |seq, viewer| {
            text_event(seq, &format!("b for {viewer:?}"))
        });
        h.push(SeatSet::EMPTY, |seq, _| text_event(seq, "c"));
        assert_eq!(h.log.seq(), 3);
        for after in 0..=3 {
            for viewer in [None, Some(seat(0)), Some(seat(1)), Some(seat(2)), Some(seat(3))] {
                assert_eq!(texts(h.log.since(after, viewer)), h.expected(after, viewer));
            }
        }
        assert!(texts(h.log.since(0, Some(seat(1))))[1].contains("Some(Seat(1))"));
        assert!(h.log.since(4, None).is_none(), "from the future");
    }

    #[test]
    fn forgets_the_oldest_events_and_says_when_too_far_behind() {
        let mut h = Harness::new(2);
        h.push(SeatSet::single(seat(0)), |seq, viewer| {
            text_event(seq, if viewer.is_some() { "one for 0" } else { "one" })
        });
        h.push(SeatSet::EMPTY, |seq, _| text_event(seq, "two"));
        h.push(SeatSet::EMPTY, |seq, _| text_event(seq, "three"));
        assert_eq!(h.log.events, 2);
        assert!(h.log.since(0, None).is_none(), "event 1 is gone");
        assert_eq!(texts(h.log.since(1, Some(seat(0)))), h.expected(1, Some(seat(0))));
    }

    #[test]
    fn a_reopened_room_numbers_on_and_replays_nothing_from_before() {
        let mut log = EventLog::new("R".into(), 10, 1000);
        assert_eq!(log.seq(), 1000);
        assert_eq!(log.next_seq(), 1001);
        let event = text_event(1001, "after the restart");
        let text = event.to_json();
        log.push(
            Sent {
                message: &event,
                text: &text,
            },
            &[],
        );
        assert_eq!(texts(log.since(1000, None)), [text]);
        assert_eq!(texts(log.since(1001, None)), Vec::<String>::new());
        for before in [0, 25, 999] {
            assert!(
                log.since(before, None).is_none(),
                "event {before} was of the earlier opening"
            );
        }
    }

    #[test]
    fn game_events_take_a_few_bytes_and_read_back_as_sent() {
        let mut h = Harness::new(100);
        let card = |text: &str| text.parse::<Card>().unwrap();
        let hand: CardSet = ["AS", "KH", "2C"].iter().map(|c| card(c)).collect();
        h.push(Seat::ALL.into_iter().collect(), |seq, viewer| {
            ServerMessage::HandStarted {
                room: "R".into(),
                seq,
                hand: 70_000,
                dealer: seat(3),
                cards: viewer.filter(|s| s.index() != 2).map(|_| hand),
                blind_nil_offered: viewer.is_some_and(|s| s.index() == 2),
            }
        });
        h.push(SeatSet::EMPTY, |seq, _| ServerMessage::BidMade {
            room: "R".into(),
            seq,
            seat: seat(0),
            bid: 0,
            blind: true,
        });
        h.push(SeatSet::EMPTY, |seq, _| ServerMessage::PlayStarted {
            room: "R".into(),
            seq,
            leader: seat(1),
        });
        h.push(SeatSet::EMPTY, |seq, _| ServerMessage::CardPlayed {
            room: "R".into(),
            seq,
            seat: seat(1),
            card: card("TD"),
        });
        h.push(SeatSet::EMPTY, |seq, _| ServerMessage::TrickWon {
            room: "R".into(),
            seq,
            trick: 12,
            winner: seat(2),
        });
        for after in 0..=5 {
            for viewer in [None, Some(seat(0)), Some(seat(1)), Some(seat(2)), Some(seat(3))] {
                assert_eq!(texts(h.log.since(after, viewer)), h.expected(after, viewer));
            }
        }
        // The deal: 7 bytes for the public version, then 15 for each of the
        // three seats with cards and 7 for the one offered blind nil; then
        // 4, 2, 3 and 3.
        assert_eq!(h.log.stored_bytes(), 7 + 3 * 15 + 7 + 4 + 2 + 3 + 3);
    }

    #[test]
    fn messages_of_another_room_or_number_are_kept_as_text() {
        let mut h = Harness::new(10);
        h.push(SeatSet::EMPTY, |seq, _| ServerMessage::CardPlayed {
            room: "elsewhere".into(),
            seq,
            seat: seat(1),
            card: "TD".parse().unwrap(),
        });
        h.push(SeatSet::EMPTY, |seq, _| ServerMessage::PlayStarted {
            room: "R".into(),
            seq: seq + 5,
            leader: seat(1),
        });
        assert_eq!(texts(h.log.since(0, None)), h.expected(0, None));
        assert!(h.log.stored_bytes() > h.sent.iter().map(|(text, _)| text.len()).sum::<usize>());
    }

    /// One of the events a room logs, with what decides its versions.
    #[derive(Clone, Debug)]
    enum Step {
        Chat(String, u8),
        Card(u8, u8),
        Trick(u8, u8),
        Bid(u8, u8, bool),
        Lead(u8),
        Deal(u32, u8, u64, u8),
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            ("[a-z \\\"é]{0,12}", 0u8..16).prop_map(|(text, seats)| Step::Chat(text, seats)),
            (0u8..4, 0u8..4, 0u8..13).prop_map(|(s, suit, rank)| Step::Card(s, suit << 4 | rank)),
            (0u8..13, 0u8..4).prop_map(|(t, s)| Step::Trick(t, s)),
            (0u8..4, 0u8..14, any::<bool>()).prop_map(|(s, b, blind)| Step::Bid(s, b, blind)),
            (0u8..4).prop_map(Step::Lead),
            (any::<u32>(), 0u8..4, any::<u64>(), 0u8..16).prop_map(|(h, d, c, o)| Step::Deal(h, d, c, o)),
        ]
    }

    fn seats_of(bits: u8) -> SeatSet {
        Seat::ALL
            .into_iter()
            .filter(|s| bits & 1 << s.index() != 0)
            .collect()
    }

    fn push_step(h: &mut Harness, step: &Step) {
        let room = || "R".to_string();
        match step.clone() {
            Step::Chat(text, seats) => h.push(seats_of(seats), |seq, viewer| {
                text_event(seq, &format!("{text} {viewer:?}"))
            }),
            Step::Card(s, c) => h.push(SeatSet::EMPTY, |seq, _| ServerMessage::CardPlayed {
                room: room(),
                seq,
                seat: seat(s),
                card: Card::from_index(c).unwrap(),
            }),
            Step::Trick(trick, s) => h.push(SeatSet::EMPTY, |seq, _| ServerMessage::TrickWon {
                room: room(),
                seq,
                trick,
                winner: seat(s),
            }),
            Step::Bid(s, bid, blind) => h.push(SeatSet::EMPTY, |seq, _| ServerMessage::BidMade {
                room: room(),
                seq,
                seat: seat(s),
                bid,
                blind,
            }),
            Step::Lead(s) => h.push(SeatSet::EMPTY, |seq, _| ServerMessage::PlayStarted {
                room: room(),
                seq,
                leader: seat(s),
            }),
            Step::Deal(hand, dealer, bits, offered) => {
                let cards = CardSet::from_bits(bits & CardSet::STANDARD_DECK.bits());
                h.push(Seat::ALL.into_iter().collect(), |seq, viewer| {
                    let offered = viewer.is_some_and(|s| seats_of(offered).contains(s));
                    ServerMessage::HandStarted {
                        room: room(),
                        seq,
                        hand,
                        dealer: seat(dealer),
                        cards: viewer.filter(|_| !offered).map(|_| cards),
                        blind_nil_offered: offered,
                    }
                })
            }
        }
    }

    proptest! {
        /// Whatever a room logs, every viewer gets back exactly the JSON
        /// he was sent, from any point the log still covers.
        #[test]
        fn every_viewer_gets_back_what_he_was_sent(
            steps in proptest::collection::vec(step(), 0..40),
            capacity in 1usize..12,
        ) {
            let mut h = Harness::new(capacity);
            for step in &steps {
                push_step(&mut h, step);
            }
            let seq = h.log.seq();
            prop_assert_eq!(seq, steps.len() as u64);
            let oldest_kept = seq.saturating_sub(capacity as u64);
            for after in 0..=seq {
                for viewer in [None, Some(seat(0)), Some(seat(1)), Some(seat(2)), Some(seat(3))] {
                    let replay = h.log.since(after, viewer);
                    if after < oldest_kept {
                        prop_assert!(replay.is_none());
                    } else {
                        prop_assert_eq!(texts(replay), h.expected(after, viewer));
                    }
                }
            }
        }
    }
}
