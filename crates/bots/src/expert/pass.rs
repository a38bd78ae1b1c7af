//! The expert's exchange: when it gives cards before it has received any
//! (a nil bidder giving first, or either partner when both give at once),
//! the likely choices are tried on guesses at the other hands and played
//! out, like its bids.

use std::time::Instant;

use spades_engine::{Action, Card, CardSet, Game};

use super::ExpertBot;
use super::bid::at_my_turn;
use super::value::{finish_hand, value};
use crate::basic;
use crate::knowledge::Knowledge;
use crate::sample::sample_plausible;

/// Random deals tried for each guess, keeping one that fits the bids.
const PLAUSIBLE_TRIES: u32 = 20;

/// How many cards beyond those to give are considered: the choices are
/// every set of that many among the few best candidates.
const SPARE: usize = 2;

impl ExpertBot {
    pub(super) fn pass(&mut self, k: &Knowledge, count: u8) -> CardSet {
        let habit = basic::choose_pass(k, count);
        let samples = self.budget.samples / 2;
        // Once cards came from the partner, the hand to guess is no longer
        // one that was dealt; the basic bot's choice it is.
        if !k.received.is_empty() || !k.given.is_empty() || samples == 0 {
            return habit;
        }
        let candidates = candidates(k, count, habit);
        if candidates.len() <= 1 {
            return habit;
        }
        let started = Instant::now();
        let team = k.team();
        let mut totals = vec![0f64; candidates.len()];
        let mut tried = 0u32;
        for sample in 0..samples {
            if sample > 0 && self.budget.time.is_some_and(|limit| started.elapsed() >= limit) {
                break;
            }
            let hands = sample_plausible(k, &mut self.rng, PLAUSIBLE_TRIES);
            let Some(game) = at_my_turn(k, hands, self.rng.next_u64()) else {
                // A guess the bids rule out (a whiz bidder given another
                // count of spades) is skipped.
                continue;
            };
            tried += 1;
            for (total, &cards) in totals.iter_mut().zip(&candidates) {
                let mut ahead: Game = game.clone();
                if ahead.apply(k.seat, Action::Pass(cards)).is_err() || !finish_hand(&mut ahead) {
                    return habit;
                }
                *total += f64::from(value(&ahead, team));
            }
        }
        // The habitual cards unless others are clearly better.
        let best = totals.iter().copied().fold(f64::MIN, f64::max);
        if totals[0] >= best - f64::from(tried) {
            return habit;
        }
        candidates
            .iter()
            .zip(&totals)
            .find(|&(_, &total)| total == best)
            .map_or(habit, |(&cards, _)| cards)
    }
}

/// The exchanges worth trying, the habitual one first: every choice of
/// `count` cards among the `count + SPARE` the habits rank highest (the
/// most dangerous for a nil bidder, the lowest for his partner).
fn candidates(k: &Knowledge, count: u8, habit: CardSet) -> Vec<CardSet> {
    let nil = k.bids[k.seat].is_some_and(spades_engine::Bid::is_nil);
    let mut cards: Vec<Card> = k.hand.iter().collect();
    if nil {
        cards.sort_by_key(|&card| std::cmp::Reverse(basic::pass_danger(k.hand, card)));
    } else {
        cards.sort_by_key(|&card| (card.order(), card.is_spade()));
    }
    cards.truncate(usize::from(count) + SPARE);
    let mut choices = vec![habit];
    for chosen in subsets(&cards, usize::from(count)) {
        if !choices.contains(&chosen) {
            choices.push(chosen);
        }
    }
    choices
}

/// Every set of `size` cards from `pool`.
fn subsets(pool: &[Card], size: usize) -> Vec<CardSet> {
    if size == 0 {
        return vec![CardSet::EMPTY];
    }
    let mut all = Vec::new();
    for (i, &card) in pool.iter().enumerate() {
        for mut rest in subsets(&pool[i + 1..], size - 1) {
            rest.insert(card);
            all.push(rest);
        }
    }
    all
}
