//! Telling a room that spectators came or went, without letting a crowd
//! that comes and goes flood it.
//!
//! Every member of a room is sent a numbered `seats` event when someone
//! enters or leaves. Connections that join and leave a room over and over
//! would make as many events for everyone at the table, enough to fill a
//! player's queue and cut him off. So a room tells at once of the first
//! few comings and goings of each second, and of the rest together, in one
//! event, as soon as the second is up. Changes of seats are always told at
//! once: they are the players' own doing and cannot be repeated fast.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

use super::{Room, admit};

/// How many spectators' comings and goings a room tells at once in any
/// second.
const TOLD_AT_ONCE: usize = 10;

/// The span over which [`TOLD_AT_ONCE`] counts.
const SPAN: Duration = Duration::from_secs(1);

/// When a room last told of spectators, and what it holds back.
#[derive(Debug, Default)]
pub(super) struct SpectatorNews {
    /// When the last changes told at once were told, oldest first.
    told: VecDeque<Instant>,
    /// When the changes held back are to be told, if any are.
    due: Option<Instant>,
}

impl SpectatorNews {
    /// Whether a change at `now` may be told at once. If not, it is held
    /// back until the span of the oldest change told has passed.
    fn tell_now(&mut self, now: Instant) -> bool {
        if self.due.is_some() {
            // Already held back: it goes out with the others.
            return false;
        }
        if admit(&mut self.told, now, SPAN, TOLD_AT_ONCE) {
            true
        } else {
            self.due = self.told.front().map(|&oldest| oldest + SPAN);
            false
        }
    }

    /// When the room must wake to tell what it held back.
    pub(super) fn due(&self) -> Option<Instant> {
        self.due
    }

    /// A `seats` event has gone out: it told everything held back.
    pub(super) fn all_told(&mut self) {
        self.due = None;
    }
}

impl Room {
    /// A spectator came or went: the members are told at once, or with
    /// the others at the end of a busy second.
    pub(super) fn spectators_changed(&mut self) {
        if self.spectator_news.tell_now(Instant::now()) {
            self.emit_seats();
        } else {
            // The lobby keeps its own pace for its watchers: it hears of
            // every change.
            self.announce();
        }
    }

    /// Tells what was held back, if its time has come by `now`.
    pub(super) fn tell_spectators_due(&mut self, now: Instant) {
        if self.spectator_news.due().is_some_and(|due| due <= now) {
            self.emit_seats();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_changes_of_a_second_are_told_at_once_and_the_rest_together() {
        let start = Instant::now();
        let mut news = SpectatorNews::default();
        for i in 0..TOLD_AT_ONCE {
            assert!(
                news.tell_now(start + Duration::from_millis(i as u64)),
                "change {i}"
            );
        }
        assert_eq!(news.due(), None);
        let busy = start + Duration::from_millis(500);
        assert!(!news.tell_now(busy), "held back");
        assert_eq!(
            news.due(),
            Some(start + SPAN),
            "told when the first leaves the span"
        );
        assert!(!news.tell_now(busy), "with the one held back");
        news.all_told();
        assert_eq!(news.due(), None);

        // A second later the room tells at once again.
        assert!(news.tell_now(start + SPAN + Duration::from_millis(20)));
    }
}
