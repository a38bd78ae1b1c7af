//! The chat limit: how many lines each player may say in a window, counted
//! across every room of the server and every connection he uses.
//!
//! A count kept by each room would start afresh whenever a player moved
//! to another room, so a player hopping between rooms could say as much as
//! he liked. The rooms share this one count instead, kept by account.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::time::Instant;
use uuid::Uuid;

use super::admit;

/// Players the count keeps, at the least, before it forgets those whose
/// window has passed.
const KEPT_AT_LEAST: usize = 64;

/// Each player's recent chat lines, shared by the server's rooms.
#[derive(Debug)]
pub struct ChatLimits {
    limit: usize,
    window: Duration,
    sent: Mutex<Sent>,
}

#[derive(Debug)]
struct Sent {
    /// When each player's lines within the window were said, oldest first.
    by_player: HashMap<Uuid, VecDeque<Instant>>,
    /// How many players the map may hold before the quiet ones are
    /// forgotten: twice as many as were left after the last sweep, so
    /// that sweeps cost little per line and the map holds at most about
    /// twice the players who chatted within the window.
    sweep_at: usize,
}

impl ChatLimits {
    /// Allows each player `limit` lines per `window`.
    pub fn new(limit: u32, window: Duration) -> Arc<ChatLimits> {
        Arc::new(ChatLimits {
            limit: limit as usize,
            window,
            sent: Mutex::new(Sent {
                by_player: HashMap::new(),
                sweep_at: KEPT_AT_LEAST,
            }),
        })
    }

    fn sent(&self) -> MutexGuard<'_, Sent> {
        // A line is counted or not in one step, so a panic elsewhere
        // cannot leave a count half made.
        self.sent.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Counts a line from `player` said at `now`, if his limit allows it.
    /// Returns whether it did.
    pub(super) fn admit(&self, player: Uuid, now: Instant) -> bool {
        let window = self.window;
        let mut sent = self.sent();
        if sent.by_player.len() >= sent.sweep_at {
            sent.by_player
                .retain(|_, times| times.back().is_some_and(|&at| now.duration_since(at) < window));
            sent.sweep_at = (sent.by_player.len() * 2).max(KEPT_AT_LEAST);
        }
        let times = sent.by_player.entry(player).or_default();
        admit(times, now, window, self.limit)
    }

    /// How many players the count holds.
    #[cfg(test)]
    fn players(&self) -> usize {
        self.sent().by_player.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_player_has_his_limit_per_window_wherever_he_says_it() {
        let limits = ChatLimits::new(2, Duration::from_secs(10));
        let (ann, bob) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let start = Instant::now();
        assert!(limits.admit(ann, start));
        assert!(limits.admit(ann, start + Duration::from_secs(1)));
        assert!(!limits.admit(ann, start + Duration::from_secs(2)));
        assert!(limits.admit(bob, start + Duration::from_secs(2)), "his own count");
        // The first line leaves the window ten seconds after it was said.
        assert!(limits.admit(ann, start + Duration::from_secs(10)));
        assert!(!limits.admit(ann, start + Duration::from_secs(10)));
    }

    #[test]
    fn players_whose_window_passed_are_forgotten() {
        let window = Duration::from_secs(10);
        let limits = ChatLimits::new(5, window);
        let start = Instant::now();
        for n in 0..1000 {
            assert!(limits.admit(Uuid::from_u128(n), start));
        }
        // A thousand players who all chatted within the window are kept.
        assert!(limits.players() >= 1000);
        // Once their window has passed, new talkers sweep them away.
        let later = start + window;
        for n in 0..KEPT_AT_LEAST as u128 * 4 {
            assert!(limits.admit(Uuid::from_u128(10_000 + n), later));
        }
        assert!(
            limits.players() <= KEPT_AT_LEAST * 4,
            "{} players kept",
            limits.players()
        );
    }
}
