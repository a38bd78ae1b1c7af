//! The expert bot: it bids and plays by looking ahead.
//!
//! For every decision with a real choice it deals the cards it has not
//! seen in many ways that agree with what it knows (the cards gone, the
//! suits each player lacks, the cards exchanged, and how plausible each
//! deal makes the others' bids), plays each candidate out to the end of the
//! hand with its own habits ([`policy`]) in every seat, and keeps the one
//! worth most for the game as it stands ([`value`]): the score, what the
//! bags will cost, and whether the hand ends the game. Its habits never
//! make the blunders players hate in a partner, and it never looks at
//! another seat's cards: it decides from its seat's [`View`] alone.
//!
//! Blind bids are the basic bot's, on the same grounds: how far behind the
//! team is and how near the end of the game; without partners it never
//! bids blind.

mod bid;
mod pass;
mod play;
pub mod policy;
pub mod review;
pub mod value;

use spades_engine::{Action, GameRng, Legal, View};

use crate::knowledge::Knowledge;
use crate::{Budget, Player, basic};

/// The expert bot, with its own generator for its guesses.
#[derive(Clone, Debug)]
pub struct ExpertBot {
    rng: GameRng,
    budget: Budget,
}

impl ExpertBot {
    /// A fixed number of guesses per card (half as many per bid or
    /// exchange), so that a seed replays: what the arena, the tests and
    /// the server use (the server also stops at `--bot-time-ms`).
    pub const REPEATABLE: Budget = Budget {
        samples: 120,
        time: None,
    };

    pub fn new(seed: u64, budget: Budget) -> ExpertBot {
        ExpertBot {
            rng: GameRng::new(seed),
            budget,
        }
    }

    /// The expert's action for a seat that knows `k` and may do `legal`.
    pub fn decide(&mut self, k: &Knowledge, legal: Legal) -> Option<Action> {
        match legal {
            Legal::Play(cards) if cards.len() > 1 => self.play(k, cards).map(Action::Play),
            Legal::Bid(choices) if !k.is_unbid_hand() => self.bid(k, choices).map(Action::Bid),
            Legal::Pass { count } => Some(Action::Pass(self.pass(k, count))),
            // Without a partner to cover it, a blind nil is nearly always
            // lost (in the arena the basic bot's far-behind blind nils
            // made 1 of 116 in three-player): the expert looks first.
            Legal::BlindOrLook(_) if !k.rules.partners => Some(Action::LookAtHand),
            _ => basic::decide(k, legal),
        }
    }
}

impl Player for ExpertBot {
    fn act(&mut self, view: &View<'_>) -> Option<Action> {
        self.decide(&Knowledge::new(view)?, view.legal())
    }
}
