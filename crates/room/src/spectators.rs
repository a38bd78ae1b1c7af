//! Telling a room that spectators came or went, without letting a crowd
//! that comes and goes flood it.
//!
//! Every member of a room is sent a numbered `seats` event, which holds the
//! number of spectators, when someone enters or leaves. Connections that
//! join and leave a room over and over would make as many events for
//! everyone at the table, enough to fill a player's queue and cut him off.
//! So a room sends at most [`TOLD_AT_ONCE`] `seats` events in any
//! [`SPAN`]: a coming or going is told at once while fewer went out in the
//! last span, and otherwise held back and told, with every other held
//! back, in one event as soon as the oldest of those leaves the span.
//! Every `seats` event counts toward the bound, whatever caused it, since
//! each tells the spectators' number: the one that tells what was held
//! back, and those of seat changes. Changes of seats are still told at
//! once: they are the players' own doing, and a player must see his seat
//! taken when it is.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

use super::Room;

/// How many `seats` events a room sends in any [`SPAN`] for spectators'
/// comings and goings.
const TOLD_AT_ONCE: usize = 10;

/// The span over which [`TOLD_AT_ONCE`] counts.
const SPAN: Duration = Duration::from_secs(1);

/// When a room last sent `seats` events, and what it holds back.
#[derive(Debug, Default)]
pub(super) struct SpectatorNews {
    /// When the room's last `seats` events went out, oldest first: those
    /// of the last span, and no more than [`TOLD_AT_ONCE`] of them.
    told: VecDeque<Instant>,
    /// When the changes held back are to be told, if any are.
    due: Option<Instant>,
}

impl SpectatorNews {
    /// Forgets the events sent a span or more before `now`.
    fn forget_old(&mut self, now: Instant) {
        while self
            .told
            .front()
            .is_some_and(|&at| now.duration_since(at) >= SPAN)
        {
            self.told.pop_front();
        }
    }

    /// Whether a change at `now` may be told at once. If not, it is held
    /// back until the oldest event of the span leaves it.
    fn tell_now(&mut self, now: Instant) -> bool {
        if self.due.is_some() {
            // Already held back: it goes out with the others.
            return false;
        }
        self.forget_old(now);
        if self.told.len() < TOLD_AT_ONCE {
            return true;
        }
        self.due = self.told.front().map(|&oldest| oldest + SPAN);
        false
    }

    /// When the room must wake to tell what it held back.
    pub(super) fn due(&self) -> Option<Instant> {
        self.due
    }

    /// A `seats` event went out at `now`: it told everything held back,
    /// and it counts toward the span's events.
    pub(super) fn told(&mut self, now: Instant) {
        self.due = None;
        self.forget_old(now);
        self.told.push_back(now);
        // Past the bound (seat changes are never held back), only the
        // latest events matter: the next may go once the oldest of them
        // leaves the span.
        if self.told.len() > TOLD_AT_ONCE {
            self.told.pop_front();
        }
    }
}

impl Room {
    /// A spectator came or went: the members are told at once, or with
    /// the others once the span allows.
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

    /// Does what a room does with changes at `changes`: tells each at
    /// once when it may, and what it held back when that is due. Returns
    /// when `seats` events went out, and when the last one held back is
    /// due, if one is.
    fn events_for(changes: impl IntoIterator<Item = Instant>) -> (Vec<Instant>, Option<Instant>) {
        let mut news = SpectatorNews::default();
        let mut sent = Vec::new();
        for at in changes {
            if let Some(due) = news.due().filter(|&due| due <= at) {
                news.told(due);
                sent.push(due);
            }
            if news.tell_now(at) {
                news.told(at);
                sent.push(at);
            }
        }
        (sent, news.due())
    }

    #[test]
    fn the_first_changes_of_a_second_are_told_at_once_and_the_rest_together() {
        let start = Instant::now();
        let mut news = SpectatorNews::default();
        for i in 0..TOLD_AT_ONCE {
            let at = start + Duration::from_millis(i as u64);
            assert!(news.tell_now(at), "change {i}");
            news.told(at);
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
        news.told(start + SPAN);
        assert_eq!(news.due(), None);
        // The event that told what was held back counts: the span from it
        // holds ten events, so the next change waits for the second
        // event of the first burst to leave it.
        let after = start + SPAN + Duration::from_millis(1) / 2;
        assert!(!news.tell_now(after));
        assert_eq!(news.due(), Some(start + SPAN + Duration::from_millis(1)));
    }

    #[test]
    fn a_crowd_coming_and_going_makes_at_most_ten_events_in_any_second() {
        let start = Instant::now();
        // A change every 3 ms for five seconds, at times that drift against
        // the span.
        let changes = (0..1700).map(|n| start + Duration::from_micros(n * 2_950));
        let (sent, due) = events_for(changes);
        for (first, eleventh) in sent.iter().zip(sent.iter().skip(TOLD_AT_ONCE)) {
            assert!(
                *eleventh - *first >= SPAN,
                "11 events within {:?}",
                *eleventh - *first
            );
        }
        // The room is not silenced either: about ten a second go out, and
        // the last change is told by the last event or the one due.
        assert!(sent.len() >= 45, "{} events in five seconds", sent.len());
        let last_change = start + Duration::from_micros(1699 * 2_950);
        assert!(due.is_some() || sent.last() == Some(&last_change));
    }

    #[test]
    fn changes_of_seats_count_toward_the_bound() {
        let start = Instant::now();
        let mut news = SpectatorNews::default();
        for i in 0..TOLD_AT_ONCE {
            news.told(start + Duration::from_millis(i as u64));
        }
        assert!(!news.tell_now(start + Duration::from_millis(100)));
        assert_eq!(news.due(), Some(start + SPAN));
    }
}
