//! How fast a connection's frames are read: a token bucket that slows a
//! client down rather than dropping what it sent.
//!
//! Dropping a frame over the limit loses it without the client knowing
//! which one: a bot that plays as fast as the server answers had one of its
//! cards dropped, and its table then waited for the turn clock to play for
//! it. So a frame over the limit is not read until the bucket holds a
//! token again. The frames wait in the kernel's socket buffer, then in the
//! client's, and a client sending faster than the limit finds its writes
//! waiting, as TCP makes any fast writer wait for a slow reader. Nothing
//! the client sent is lost, and the server holds nothing more for it.

use std::time::{Duration, Instant};

/// A token bucket: `rate` frames a second on average, `burst` at once.
#[derive(Debug)]
pub(super) struct RateLimit {
    rate: f64,
    burst: f64,
    tokens: f64,
    last: Instant,
    /// When the client was last told that it is being slowed down; one
    /// notice a second is enough, and more would fill its outbox.
    last_notice: Option<Instant>,
}

impl RateLimit {
    /// A full bucket. `rate` and `burst` are at least 1 (see
    /// `Config::validate`).
    pub(super) fn new(rate: u32, burst: u32) -> RateLimit {
        RateLimit {
            rate: f64::from(rate.max(1)),
            burst: f64::from(burst.max(1)),
            tokens: f64::from(burst.max(1)),
            last: Instant::now(),
            last_notice: None,
        }
    }

    /// Counts a frame read at `now`, and says when the next one may be
    /// read: `None` when a token is left for it, otherwise once the bucket
    /// has refilled one.
    pub(super) fn take(&mut self, now: Instant) -> Option<Instant> {
        let refill = now.saturating_duration_since(self.last).as_secs_f64() * self.rate;
        self.tokens = (self.tokens + refill).min(self.burst);
        self.last = now;
        self.tokens -= 1.0;
        if self.tokens >= 1.0 {
            return None;
        }
        Some(now + Duration::from_secs_f64((1.0 - self.tokens) / self.rate))
    }

    /// Whether the client should be told now that it is slowed down: once
    /// a second at most.
    pub(super) fn should_notify(&mut self, now: Instant) -> bool {
        let due = self
            .last_notice
            .is_none_or(|at| now.saturating_duration_since(at) >= Duration::from_secs(1));
        if due {
            self.last_notice = Some(now);
        }
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Within a microsecond: the bucket counts in floating point.
    fn assert_close(got: Duration, want: Duration) {
        let off = got.max(want) - got.min(want);
        assert!(off < Duration::from_micros(1), "{got:?} is not {want:?}");
    }

    #[test]
    fn the_burst_is_read_at_once_and_the_rest_at_the_rate() {
        let start = Instant::now();
        let mut limit = RateLimit::new(100, 3);
        limit.last = start;
        // Three tokens: the first two frames leave one for the next.
        assert_eq!(limit.take(start), None);
        assert_eq!(limit.take(start), None);
        // The third takes the last; the fourth waits a hundredth of a second.
        let next = limit.take(start).expect("the bucket is empty");
        assert_close(next - start, Duration::from_millis(10));
        // Read when it is due, each frame after waits its own hundredth.
        let after = limit.take(next).expect("still at the rate");
        assert_close(after - next, Duration::from_millis(10));
    }

    #[test]
    fn a_quiet_client_finds_its_burst_again() {
        let start = Instant::now();
        let mut limit = RateLimit::new(10, 2);
        limit.last = start;
        assert_eq!(limit.take(start), None);
        assert!(limit.take(start).is_some());
        // A second later the bucket is full again, and no fuller.
        let later = start + Duration::from_secs(1);
        assert_eq!(limit.take(later), None);
        assert!(limit.take(later).is_some());
    }

    #[test]
    fn notices_come_once_a_second() {
        let start = Instant::now();
        let mut limit = RateLimit::new(1, 1);
        assert!(limit.should_notify(start));
        assert!(!limit.should_notify(start + Duration::from_millis(999)));
        assert!(limit.should_notify(start + Duration::from_secs(1)));
    }
}
