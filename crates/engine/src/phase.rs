//! The part of a hand a game is in.

use std::fmt;

/// The part of a hand the game is in.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Phase {
    Bidding,
    /// Partners of a nil bidder exchange cards.
    Passing,
    Playing,
    GameOver,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::Bidding => "bidding",
            Phase::Passing => "passing",
            Phase::Playing => "playing",
            Phase::GameOver => "game over",
        })
    }
}
