//! The event log keeps what each viewer was sent and gives it back.

use proptest::prelude::*;
use spades_protocol::ws::{PlayerInfo, ServerMessage};

use super::*;

fn seat(n: u8) -> Seat {
    Seat::new(n).unwrap()
}

fn texts(messages: Option<Vec<Text>>) -> Vec<String> {
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

    /// Logs an event built by `make(seat)`, with its own versions for
    /// the seats in `private`, as a room does.
    fn push(&mut self, private: SeatSet, make: impl Fn(Option<Seat>) -> EventKind) {
        let seq = self.log.next_seq();
        let json = |kind: &EventKind| RoomEvent::message("R", seq, kind.clone()).to_json();
        let public = make(None);
        let public_text = json(&public);
        let versions: Vec<(Seat, EventKind, String)> = private
            .iter()
            .map(|seat| {
                let kind = make(Some(seat));
                let text = json(&kind);
                (seat, kind, text)
            })
            .collect();
        let kept: Vec<(SeatSet, Sent<'_>)> = versions
            .iter()
            .map(|(seat, kind, text)| (SeatSet::single(*seat), Sent { kind, text }))
            .collect();
        self.log.push(
            Sent {
                kind: &public,
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

fn text_event(text: &str) -> EventKind {
    EventKind::ChatMessage {
        from: PlayerInfo {
            id: "p".into(),
            name: "P".into(),
            bot: false,
            level: None,
            avatar: None,
        },
        seat: None,
        text: text.into(),
        hidden: false,
        quick: None,
    }
}

#[test]
fn replays_what_each_viewer_saw_after_a_point() {
    let mut h = Harness::new(10);
    h.push(SeatSet::EMPTY, |_| text_event("a"));
    h.push([seat(1), seat(2)].into_iter().collect(), |viewer| {
        text_event(&format!("b for {viewer:?}"))
    });
    h.push(SeatSet::EMPTY, |_| text_event("c"));
    assert_eq!(h.log.seq(), 3);
    for after in 0..=3 {
        for viewer in [None, Some(seat(0)), Some(seat(1)), Some(seat(2)), Some(seat(3))] {
            assert_eq!(texts(h.log.since(after, viewer)), h.expected(after, viewer));
        }
    }
    assert!(texts(h.log.since(0, Some(seat(1))))[1].contains("Some(Seat(1))"));
    assert!(h.log.since(4, None).is_none(), "from the future");
    assert!(h.log.since(u64::MAX, None).is_none(), "from the far future");
}

#[test]
fn forgets_the_oldest_events_and_says_when_too_far_behind() {
    let mut h = Harness::new(2);
    h.push(SeatSet::single(seat(0)), |viewer| {
        text_event(if viewer.is_some() { "one for 0" } else { "one" })
    });
    h.push(SeatSet::EMPTY, |_| text_event("two"));
    h.push(SeatSet::EMPTY, |_| text_event("three"));
    assert_eq!(h.log.events, 2);
    assert!(h.log.since(0, None).is_none(), "event 1 is gone");
    assert_eq!(texts(h.log.since(1, Some(seat(0)))), h.expected(1, Some(seat(0))));
}

#[test]
fn a_reopened_room_numbers_on_and_replays_nothing_from_before() {
    let mut log = EventLog::new("R".into(), 10, 1000);
    assert_eq!(log.seq(), 1000);
    assert_eq!(log.next_seq(), 1001);
    let event = text_event("after the restart");
    let text = RoomEvent::message("R", 1001, event.clone()).to_json();
    log.push(
        Sent {
            kind: &event,
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
    h.push(Seat::ALL.into_iter().collect(), |viewer| EventKind::HandStarted {
        hand: 70_000,
        dealer: seat(3),
        cards: viewer.filter(|s| s.index() != 2).map(|_| hand),
        blind_nil_offered: viewer.is_some_and(|s| s.index() == 2),
    });
    h.push(SeatSet::EMPTY, |_| EventKind::BidMade {
        seat: seat(0),
        bid: 0,
        blind: true,
    });
    h.push(SeatSet::EMPTY, |_| EventKind::PlayStarted { leader: seat(1) });
    h.push(SeatSet::EMPTY, |_| EventKind::CardPlayed {
        seat: seat(1),
        card: card("TD"),
    });
    h.push(SeatSet::EMPTY, |_| EventKind::TrickWon {
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
fn compact_events_read_back_with_the_logs_room_and_numbers() {
    let mut log = EventLog::new("ROOM".into(), 10, 41);
    let played = EventKind::CardPlayed {
        seat: seat(1),
        card: "TD".parse().unwrap(),
    };
    // The text a room sends names the room and the number; the compact
    // form keeps neither, so they must come back from the log itself.
    let text = RoomEvent::message("ROOM", 42, played.clone()).to_json();
    log.push(
        Sent {
            kind: &played,
            text: &text,
        },
        &[],
    );
    assert_eq!(log.stored_bytes(), 3);
    let replayed = texts(log.since(41, Some(seat(1))));
    assert_eq!(replayed, [text]);
    let back: ServerMessage = serde_json::from_str(&replayed[0]).unwrap();
    assert_eq!(back, RoomEvent::message("ROOM", 42, played));
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
    match step.clone() {
        Step::Chat(text, seats) => h.push(seats_of(seats), |viewer| {
            text_event(&format!("{text} {viewer:?}"))
        }),
        Step::Card(s, c) => h.push(SeatSet::EMPTY, |_| EventKind::CardPlayed {
            seat: seat(s),
            card: Card::from_index(c).unwrap(),
        }),
        Step::Trick(trick, s) => h.push(SeatSet::EMPTY, |_| EventKind::TrickWon {
            trick,
            winner: seat(s),
        }),
        Step::Bid(s, bid, blind) => h.push(SeatSet::EMPTY, |_| EventKind::BidMade {
            seat: seat(s),
            bid,
            blind,
        }),
        Step::Lead(s) => h.push(SeatSet::EMPTY, |_| EventKind::PlayStarted { leader: seat(s) }),
        Step::Deal(hand, dealer, bits, offered) => {
            let cards = CardSet::from_bits(bits & CardSet::STANDARD_DECK.bits());
            h.push(Seat::ALL.into_iter().collect(), |viewer| {
                let offered = viewer.is_some_and(|s| seats_of(offered).contains(s));
                EventKind::HandStarted {
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
