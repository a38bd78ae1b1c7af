//! What a room is tuned by: the part of the server's settings that the
//! tables read, handed to each room whole.

use std::time::Duration;

/// The settings every room of a server shares.
#[derive(Clone, Debug)]
pub struct RoomConfig {
    /// How long a player has for each action before the server acts for him.
    pub turn_time: Duration,
    /// How long a disconnected player's seat is held before the server plays
    /// for him at once on every turn.
    pub seat_hold: Duration,
    /// Events a room keeps for clients that reconnect; a client further
    /// behind gets a snapshot instead.
    pub resync_window: usize,
    /// How long the seats the server plays wait before they act, so that
    /// people can follow their play.
    pub bot_delay: BotDelay,
    /// The longest a strong or expert bot thinks about one decision.
    pub bot_time: Duration,
    /// The level of the bots in rooms whose creator chose none and at
    /// tournament tables; quick play starts from it (see
    /// `spades_lobby::quick_play`).
    pub default_bots: spades_protocol::ws::BotLevel,
    /// How many strong bots may think at once in the whole server; past
    /// it the basic bot plays the card. `None` is one per core.
    pub strong_bots_at_once: Option<usize>,
    /// Chat messages a player may send per `chat_window`, counted across
    /// every room of the server and every connection he uses.
    pub chat_limit: u32,
    pub chat_window: Duration,
    /// Deal every game from seeds derived from this one instead of fresh
    /// random seeds: the `n`th game started in the process (from 0) is
    /// dealt from seed `seed + n`.
    pub seed: Option<u64>,
    /// The name of the node the room runs on, which clients are told of
    /// where several nodes serve one site; `None` when the server runs
    /// alone.
    pub node: Option<String>,
}

/// How long a bot (or the server, for an absent player) waits before it
/// acts at a table of normal speed. The wait is a pause, not work: the room
/// sets the seat's deadline that much later and sleeps until then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BotDelay {
    /// The shortest and longest wait before an action; each action's wait
    /// falls between the two, so that bots do not tick like a clock.
    pub min: Duration,
    pub max: Duration,
    /// Added before the first card of a trick, so that the trick just won
    /// stays on the table a moment; twice this before the first bid of a
    /// hand, so that players can read the hand's score.
    pub trick_pause: Duration,
}

impl BotDelay {
    /// Bots act at once: for tests and the load test.
    pub const NONE: BotDelay = BotDelay {
        min: Duration::ZERO,
        max: Duration::ZERO,
        trick_pause: Duration::ZERO,
    };

    /// The pace of a person who knows the game: most actions within a
    /// second.
    pub const HUMAN: BotDelay = BotDelay {
        min: Duration::from_millis(600),
        max: Duration::from_millis(1200),
        trick_pause: Duration::from_millis(800),
    };

    /// The wait before one action: `draw`, from 0 to 1, places it between
    /// the shortest and the longest; a forced action (one card it may play)
    /// takes half as long. `pause` is how many trick pauses come first.
    pub fn wait(&self, draw: f64, forced: bool, pauses: u32) -> Duration {
        let span = self.max.saturating_sub(self.min);
        let mut wait = self.min + span.mul_f64(draw.clamp(0.0, 1.0));
        if forced {
            wait /= 2;
        }
        wait + self.trick_pause * pauses
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_falls_between_the_bounds_and_a_forced_action_is_quicker() {
        let delay = BotDelay::HUMAN;
        assert_eq!(delay.wait(0.0, false, 0), Duration::from_millis(600));
        assert_eq!(delay.wait(1.0, false, 0), Duration::from_millis(1200));
        assert_eq!(delay.wait(0.5, false, 0), Duration::from_millis(900));
        assert_eq!(delay.wait(0.5, true, 0), Duration::from_millis(450));
        assert_eq!(delay.wait(0.0, false, 1), Duration::from_millis(1400));
        assert_eq!(BotDelay::NONE.wait(0.7, false, 2), Duration::ZERO);
    }
}
