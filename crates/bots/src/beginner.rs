//! The beginner: the basic bot's game with a newcomer's slips. Now and
//! then it plays any legal card instead of the right one, and it bids a
//! trick too many or too few, so that people learning the game can beat it.

use spades_engine::{Action, Bid, GameRng, Legal, View};

use crate::knowledge::Knowledge;
use crate::{Player, basic};

/// How often, in hundredths, the beginner plays a random legal card
/// instead of the basic bot's. It is set so that the beginner wins about a
/// quarter of its games against the basic bot (the arena measures it).
pub const SLIP_PERCENT: u32 = 19;

/// How often, in hundredths, its bid is a trick off the basic bot's.
pub const MISBID_PERCENT: u32 = 30;

#[derive(Clone, Debug)]
pub struct BeginnerBot {
    rng: GameRng,
}

impl BeginnerBot {
    pub fn new(seed: u64) -> BeginnerBot {
        BeginnerBot {
            rng: GameRng::new(seed),
        }
    }

    pub fn decide(&mut self, k: &Knowledge, legal: Legal) -> Option<Action> {
        match legal {
            Legal::Play(cards) if cards.len() > 1 && self.rng.chance(SLIP_PERCENT, 100) => {
                cards.choose(|len| self.rng.below(len)).map(Action::Play)
            }
            Legal::Bid(choices) if self.rng.chance(MISBID_PERCENT, 100) => {
                let wanted = basic::fit_bid(k, basic::choose_bid(k), choices)?;
                let off = match wanted {
                    Bid::Tricks(n) if self.rng.chance(1, 2) => n.saturating_sub(1),
                    Bid::Tricks(n) => n + 1,
                    _ => return Some(Action::Bid(wanted)),
                };
                let bid = Bid::new(off).ok().filter(|&bid| off > 0 && choices.contains(bid));
                Some(Action::Bid(bid.unwrap_or(wanted)))
            }
            _ => basic::decide(k, legal),
        }
    }
}

impl Player for BeginnerBot {
    fn act(&mut self, view: &View<'_>) -> Option<Action> {
        self.decide(&Knowledge::new(view)?, view.legal())
    }
}
