//! The expert's card play: each sensible card is tried on many guesses at
//! the hidden hands, every guess is played out with the expert's habits,
//! and the card worth most on average for the game as it stands is kept.

use spades_engine::{Card, CardSet};

use super::value::{finish_hand, value};
use super::{ExpertBot, policy};
use crate::basic;
use crate::knowledge::Knowledge;
use crate::strong::{distinct_plays, look_ahead, same_run};

impl ExpertBot {
    pub(super) fn play(&mut self, k: &Knowledge, legal: CardSet) -> Option<Card> {
        let sensible = policy::sensible(k, legal);
        let habit = basic::choose_play(k, sensible)?;
        let candidates = distinct_plays(k, sensible);
        if candidates.len() <= 1 || k.is_unbid_hand() {
            return Some(habit);
        }
        let team = k.team();
        let totals = look_ahead(k, &mut self.rng, self.budget, &candidates, |ahead| {
            if finish_hand(ahead) {
                f64::from(value(ahead, team))
            } else {
                f64::NAN
            }
        });
        // A refused guess or card is a bug; the habits' card is sound.
        let Some(totals) = totals.filter(|totals| totals.iter().all(|total| !total.is_nan())) else {
            return Some(habit);
        };
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
