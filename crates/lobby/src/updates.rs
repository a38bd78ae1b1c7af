//! How often the lobby's watchers hear of one room.
//!
//! Every join, leave and seat change alters a room's summary, and each
//! summary would otherwise go to every lobby watcher at once: a few
//! clients joining and leaving a room in a loop would make the server
//! send hundreds of thousands of messages to people who only look at the
//! room list. So the first change of a room goes out at once, and later
//! changes within [`WINDOW`] of the last update are held; when the window
//! ends, only the room's latest look is sent. Nobody misses the final
//! state, and no room is shown more than about once per window.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use spades_protocol::ws::RoomSummary;
use tokio::time::Instant;

/// The shortest time between two updates of the same room. It is short
/// enough that a person watching the list sees a seat taken at once.
pub(super) const WINDOW: Duration = Duration::from_millis(250);

#[derive(Debug, Default)]
pub(super) struct LobbyUpdates {
    /// When each open public room's look was last sent.
    sent: HashMap<Arc<str>, Instant>,
    /// The latest look of the rooms whose update waits for its window.
    held: HashMap<Arc<str>, RoomSummary>,
}

impl LobbyUpdates {
    /// Takes in a room's new look: returns it when it may be sent now, or
    /// holds it (in place of any look held before) until its window ends.
    pub(super) fn offer(&mut self, summary: RoomSummary, now: Instant) -> Option<RoomSummary> {
        let code: Arc<str> = summary.room.as_str().into();
        match self.sent.get(&code) {
            Some(&at) if now < at + WINDOW => {
                self.held.insert(code, summary);
                None
            }
            _ => {
                self.held.remove(&code);
                self.sent.insert(code, now);
                Some(summary)
            }
        }
    }

    /// Forgets a room that closed: a look held for it must not follow the
    /// news that it closed.
    pub(super) fn forget(&mut self, code: &str) {
        self.held.remove(code);
        self.sent.remove(code);
    }

    /// When the first held look is due, if any is held.
    pub(super) fn next_due(&self) -> Option<Instant> {
        self.held
            .keys()
            .filter_map(|code| self.sent.get(code))
            .map(|&at| at + WINDOW)
            .min()
    }

    /// The held looks whose window has ended, which count as sent now.
    pub(super) fn take_due(&mut self, now: Instant) -> Vec<RoomSummary> {
        let sent = &self.sent;
        let due: Vec<(Arc<str>, RoomSummary)> = self
            .held
            .extract_if(|code, _| sent.get(code).is_none_or(|&at| at + WINDOW <= now))
            .collect();
        due.into_iter()
            .map(|(code, summary)| {
                self.sent.insert(code, now);
                summary
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spades_protocol::ws::RoomStatus;

    fn look(room: &str, spectators: u32) -> RoomSummary {
        RoomSummary {
            room: room.into(),
            name: format!("Room {room}"),
            rules: "standard".into(),
            private: false,
            rated: false,
            speed: Default::default(),
            status: RoomStatus::Waiting,
            seats: vec![None; 4],
            spectators,
        }
    }

    #[test]
    fn a_first_change_goes_at_once_and_later_ones_wait_for_the_window() {
        let mut updates = LobbyUpdates::default();
        let start = Instant::now();
        assert_eq!(updates.offer(look("AAAAAA", 1), start), Some(look("AAAAAA", 1)));
        // Two more changes within the window: both held, the latest kept.
        let soon = start + WINDOW / 4;
        assert_eq!(updates.offer(look("AAAAAA", 2), soon), None);
        assert_eq!(updates.offer(look("AAAAAA", 3), soon), None);
        // Another room is not held back by the first.
        assert_eq!(updates.offer(look("BBBBBB", 1), soon), Some(look("BBBBBB", 1)));
        assert_eq!(updates.next_due(), Some(start + WINDOW));
        assert!(updates.take_due(start + WINDOW / 2).is_empty());
        assert_eq!(updates.take_due(start + WINDOW), vec![look("AAAAAA", 3)]);
        assert_eq!(updates.next_due(), None);
        // The flushed look counts as sent: the next change waits again.
        assert_eq!(updates.offer(look("AAAAAA", 4), start + WINDOW * 3 / 2), None);
        assert_eq!(updates.next_due(), Some(start + WINDOW * 2));
        // After a quiet window, a change goes at once.
        assert_eq!(updates.take_due(start + WINDOW * 2), vec![look("AAAAAA", 4)]);
        let later = start + WINDOW * 4;
        assert_eq!(updates.offer(look("AAAAAA", 5), later), Some(look("AAAAAA", 5)));
    }

    #[test]
    fn a_closed_room_drops_its_held_look() {
        let mut updates = LobbyUpdates::default();
        let start = Instant::now();
        assert!(updates.offer(look("AAAAAA", 1), start).is_some());
        assert!(updates.offer(look("AAAAAA", 2), start).is_none());
        updates.forget("AAAAAA");
        assert_eq!(updates.next_due(), None);
        assert!(updates.take_due(start + WINDOW).is_empty());
        // A room opened again under the same code is new to the watchers.
        assert!(updates.offer(look("AAAAAA", 1), start + WINDOW / 2).is_some());
    }
}
