//! The expert's card play: each sensible card is tried on many guesses at
//! the hidden hands, every guess is played out with the expert's habits,
//! and the card worth most on average for the game as it stands is kept.

use std::time::Instant;

use spades_engine::{Action, Card, CardSet, Game};

use super::value::{finish_hand, value};
use super::{ExpertBot, policy};
use crate::basic;
use crate::knowledge::Knowledge;
use crate::sample::sample_plausible;
use crate::strong::{distinct_plays, same_run};

/// Random deals tried for each guess, keeping one that fits the bids.
const PLAUSIBLE_TRIES: u32 = 20;

impl ExpertBot {
    pub(super) fn play(&mut self, k: &Knowledge, legal: CardSet) -> Option<Card> {
        let sensible = policy::sensible(k, legal);
        let habit = basic::choose_play(k, sensible)?;
        let candidates = distinct_plays(k, sensible);
        if candidates.len() <= 1 || k.is_unbid_hand() {
            return Some(habit);
        }
        let started = Instant::now();
        let team = k.team();
        let mut totals = vec![0f64; candidates.len()];
        for sample in 0..self.budget.samples {
            if sample > 0 && self.budget.time.is_some_and(|limit| started.elapsed() >= limit) {
                break;
            }
            let hands = sample_plausible(k, &mut self.rng, PLAUSIBLE_TRIES);
            let game = k
                .position(hands)
                .and_then(|position| Game::from_position(k.rules, self.rng.next_u64(), &position).ok());
            let Some(game) = game else {
                debug_assert!(false, "a sampled position was refused");
                return Some(habit);
            };
            for (total, &card) in totals.iter_mut().zip(&candidates) {
                let mut ahead = game.clone();
                if ahead.apply(k.seat, Action::Play(card)).is_err() || !finish_hand(&mut ahead) {
                    return Some(habit);
                }
                *total += f64::from(value(&ahead, team));
            }
        }
        // The best average; a card within a hair of it that the habits
        // would play is preferred, since the difference is noise.
        let best = totals.iter().copied().fold(f64::MIN, f64::max);
        let margin = 0.5 * f64::from(self.budget.samples.max(1));
        let near = |total: f64| total >= best - margin;
        let habit_total = candidates
            .iter()
            .zip(&totals)
            .find(|&(&card, _)| card == habit || same_run(k, card, habit))
            .map(|(_, &total)| total);
        if habit_total.is_some_and(near) {
            return Some(habit);
        }
        candidates
            .iter()
            .zip(&totals)
            .find(|&(_, &total)| total == best)
            .map(|(&card, _)| card)
    }
}
