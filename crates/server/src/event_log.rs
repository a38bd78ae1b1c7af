//! The events a room has sent, kept as sent so that a client that comes back
//! gets exactly what it missed.
//!
//! A room keeps its last `capacity` events, and every room keeps its log for
//! its whole life, so the log is stored compactly: the JSON of every kept
//! message back to back in one byte queue, and a small row per message
//! saying which event it belongs to and who it was for.

use std::collections::VecDeque;

use axum::extract::ws::Utf8Bytes;
use spades_engine::{Seat, SeatSet};

/// One stored message.
#[derive(Clone, Copy, Debug)]
struct Row {
    seq: u64,
    /// The seats this version was sent to; empty for the public version,
    /// which everyone else got.
    seats: SeatSet,
    len: u32,
}

#[derive(Debug)]
pub struct EventLog {
    /// The sequence number of the last event (0 before the first).
    seq: u64,
    capacity: usize,
    /// How many events the rows hold.
    events: usize,
    text: VecDeque<u8>,
    rows: VecDeque<Row>,
}

impl EventLog {
    pub fn new(capacity: usize) -> EventLog {
        EventLog {
            seq: 0,
            capacity: capacity.max(1),
            events: 0,
            text: VecDeque::new(),
            rows: VecDeque::new(),
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

    /// Keeps an event: its public text and the versions some seats got
    /// instead. Forgets the oldest event when the log is full.
    pub fn push(&mut self, public: &str, private: &[(SeatSet, &str)]) {
        self.seq += 1;
        if self.events == self.capacity {
            self.forget_oldest();
        }
        self.keep(SeatSet::EMPTY, public);
        for &(seats, text) in private {
            self.keep(seats, text);
        }
        self.events += 1;
    }

    fn keep(&mut self, seats: SeatSet, text: &str) {
        self.text.extend(text.as_bytes());
        self.rows.push_back(Row {
            seq: self.seq,
            seats,
            len: text.len() as u32,
        });
    }

    fn forget_oldest(&mut self) {
        let Some(oldest) = self.rows.front().map(|row| row.seq) else {
            return;
        };
        while let Some(row) = self.rows.front().copied().filter(|row| row.seq == oldest) {
            self.rows.pop_front();
            self.text.drain(..row.len as usize);
        }
        self.events -= 1;
    }

    /// The events after `after` as `seat` (or a spectator) received them,
    /// if the log still holds all of them.
    pub fn since(&self, after: u64, seat: Option<Seat>) -> Option<Vec<Utf8Bytes>> {
        let oldest = self.rows.front().map_or(self.seq + 1, |row| row.seq);
        if after + 1 < oldest || after > self.seq {
            return None;
        }
        let mut messages: Vec<Utf8Bytes> = Vec::new();
        let mut start = 0;
        let mut current = 0;
        for row in &self.rows {
            let range = start..start + row.len as usize;
            start = range.end;
            if row.seq <= after {
                continue;
            }
            let mine = seat.is_some_and(|seat| row.seats.contains(seat));
            if row.seats.is_empty() {
                current = row.seq;
                messages.push(self.text_of(range));
            } else if mine && current == row.seq {
                // This seat's own version replaces the public one.
                if let Some(last) = messages.last_mut() {
                    *last = self.text_of(range);
                }
            }
        }
        Some(messages)
    }

    fn text_of(&self, range: std::ops::Range<usize>) -> Utf8Bytes {
        let bytes: Vec<u8> = self.text.range(range).copied().collect();
        // Only whole `&str`s are stored, so each row is valid UTF-8.
        Utf8Bytes::from(String::from_utf8(bytes).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(n: u8) -> Seat {
        Seat::new(n).unwrap()
    }

    fn texts(messages: Option<Vec<Utf8Bytes>>) -> Vec<String> {
        messages.unwrap().iter().map(|m| m.as_str().to_string()).collect()
    }

    #[test]
    fn replays_what_each_viewer_saw_after_a_point() {
        let mut log = EventLog::new(10);
        log.push("a", &[]);
        log.push(
            "b",
            &[(SeatSet::single(seat(1)), "b1"), (SeatSet::single(seat(2)), "b2")],
        );
        log.push("c", &[]);
        assert_eq!(log.seq(), 3);
        assert_eq!(texts(log.since(0, None)), ["a", "b", "c"]);
        assert_eq!(texts(log.since(0, Some(seat(1)))), ["a", "b1", "c"]);
        assert_eq!(texts(log.since(1, Some(seat(2)))), ["b2", "c"]);
        assert_eq!(texts(log.since(1, Some(seat(3)))), ["b", "c"]);
        assert_eq!(texts(log.since(3, None)), Vec::<String>::new());
        assert!(log.since(4, None).is_none(), "from the future");
    }

    #[test]
    fn forgets_the_oldest_events_and_says_when_too_far_behind() {
        let mut log = EventLog::new(2);
        log.push("one", &[(SeatSet::single(seat(0)), "one for 0")]);
        log.push("two", &[]);
        log.push("three", &[]);
        assert_eq!(log.events, 2);
        assert!(log.since(0, None).is_none(), "event 1 is gone");
        assert_eq!(texts(log.since(1, Some(seat(0)))), ["two", "three"]);
        assert_eq!(log.text.len(), "twothree".len());
    }
}
