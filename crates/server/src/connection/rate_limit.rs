//! How many messages a connection may send: a token bucket.

use std::time::{Duration, Instant};

/// A token bucket: `rate` messages a second on average, `burst` at once.
#[derive(Debug)]
pub(super) struct RateLimit {
    rate: f64,
    burst: f64,
    tokens: f64,
    last: Instant,
    /// When the client was last told it is over the limit; one notice a
    /// second is enough, and more would flood a flooding client's outbox.
    last_notice: Option<Instant>,
}

impl RateLimit {
    pub(super) fn new(rate: u32, burst: u32) -> RateLimit {
        RateLimit {
            rate: f64::from(rate),
            burst: f64::from(burst),
            tokens: f64::from(burst),
            last: Instant::now(),
            last_notice: None,
        }
    }

    pub(super) fn take(&mut self) -> bool {
        let now = Instant::now();
        let refill = now.duration_since(self.last).as_secs_f64() * self.rate;
        self.tokens = (self.tokens + refill).min(self.burst);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    pub(super) fn should_notify(&mut self) -> bool {
        let now = Instant::now();
        let due = self
            .last_notice
            .is_none_or(|at| now.duration_since(at) >= Duration::from_secs(1));
        if due {
            self.last_notice = Some(now);
        }
        due
    }
}
