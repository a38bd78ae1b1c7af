//! Players that choose an action from what one seat may see.
//!
//! A player is handed a [`View`] of its own seat and nothing else, so no
//! player here can peek at another seat's cards, whatever it does. There
//! are five: [`RandomPlayer`], the yardstick; [`BeginnerBot`], the basic
//! bot with a newcomer's slips; [`BasicBot`], which plays by hand-written
//! rules in a few microseconds a decision; [`StrongBot`], which looks
//! ahead over guesses at the hidden hands before each card; and
//! [`ExpertBot`], which looks ahead before every bid and card with better
//! habits and a sense of the whole game.

pub mod basic;
mod beginner;
pub mod expert;
pub mod knowledge;
mod random;
pub mod sample;
pub(crate) mod strong;

pub use basic::BasicBot;
pub use beginner::BeginnerBot;
pub use expert::ExpertBot;
pub use random::RandomPlayer;
pub use strong::{Budget, StrongBot};

use std::fmt;
use std::str::FromStr;

use spades_engine::{Action, Game, HandRecord, View, Viewer};

/// Something that picks actions for one seat.
pub trait Player {
    /// The action to take now, when the view says this seat is expected to
    /// act; `None` when it has nothing to do.
    fn act(&mut self, view: &View<'_>) -> Option<Action>;
}

/// Plays a game to the end with one player per seat, calling `on_hand` with
/// the record of every finished hand.
///
/// Panics if a player offers an action the engine refuses: that is a bug in
/// the player, and hiding it would corrupt whatever is being measured.
pub fn play_out<P: Player>(game: &mut Game, players: &mut [P; 4], mut on_hand: impl FnMut(&HandRecord)) {
    while let Some(seat) = game.first_to_act() {
        let hand = game.hand_number();
        let action = players[seat.index()]
            .act(&game.view(Viewer::Seat(seat)))
            .unwrap_or_else(|| panic!("{seat} is expected to act but chose nothing"));
        if let Err(error) = game.apply(seat, action) {
            panic!("{seat} chose {action}, which is refused: {error}");
        }
        // A hand has ended when the next one has started or the game is
        // over; checking that is cheaper than scanning the events.
        if (game.hand_number() != hand || game.is_over())
            && let Some(record) = game.last_hand()
        {
            on_hand(record);
        }
    }
}

/// The kinds of player that can be named on a command line or in a room's
/// settings.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Kind {
    /// Uniformly random legal play (see [`RandomPlayer`]).
    Random,
    /// The basic bot with slips (see [`BeginnerBot`]).
    Beginner,
    /// The rule-based bot (see [`BasicBot`]), named `bot`.
    Basic,
    /// The look-ahead bot (see [`StrongBot`]).
    Strong,
    /// The bot that looks ahead at every decision (see [`ExpertBot`]).
    Expert,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Random,
        Kind::Beginner,
        Kind::Basic,
        Kind::Strong,
        Kind::Expert,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Kind::Random => "random",
            Kind::Beginner => "beginner",
            Kind::Basic => "bot",
            Kind::Strong => "strong",
            Kind::Expert => "expert",
        }
    }

    /// The work a look-ahead bot of this kind puts into a decision when
    /// nothing says otherwise: a fixed number of guesses, so seeds replay.
    pub const fn budget(self) -> Budget {
        match self {
            Kind::Expert => ExpertBot::REPEATABLE,
            _ => Budget::REPEATABLE,
        }
    }

    /// A player of this kind, seeded so that its choices replay; the
    /// look-ahead bots work within `budget`.
    pub fn player(self, seed: u64, budget: Budget) -> AnyPlayer {
        match self {
            Kind::Random => AnyPlayer::Random(RandomPlayer::new(seed)),
            Kind::Beginner => AnyPlayer::Beginner(BeginnerBot::new(seed)),
            Kind::Basic => AnyPlayer::Basic(BasicBot),
            Kind::Strong => AnyPlayer::Strong(Box::new(StrongBot::new(seed, budget))),
            Kind::Expert => AnyPlayer::Expert(Box::new(ExpertBot::new(seed, budget))),
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Kind {
    type Err = String;

    fn from_str(name: &str) -> Result<Kind, String> {
        Kind::ALL
            .into_iter()
            .find(|kind| kind.name() == name || *kind == Kind::Basic && name == "basic")
            .ok_or_else(|| {
                let known: Vec<&str> = Kind::ALL.iter().map(|kind| kind.name()).collect();
                format!("unknown player {name:?}; known players: {}", known.join(", "))
            })
    }
}

/// Any player, chosen at run time.
#[derive(Clone, Debug)]
pub enum AnyPlayer {
    Random(RandomPlayer),
    Beginner(BeginnerBot),
    Basic(BasicBot),
    Strong(Box<StrongBot>),
    Expert(Box<ExpertBot>),
}

impl Player for AnyPlayer {
    #[inline]
    fn act(&mut self, view: &View<'_>) -> Option<Action> {
        match self {
            AnyPlayer::Random(player) => player.act(view),
            AnyPlayer::Basic(player) => player.act(view),
            AnyPlayer::Beginner(player) => player.act(view),
            AnyPlayer::Strong(player) => player.act(view),
            AnyPlayer::Expert(player) => player.act(view),
        }
    }
}
