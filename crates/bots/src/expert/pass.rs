//! The expert's exchange: when it gives cards before it has received any
//! (a nil bidder giving first, or either partner when both give at once),
//! the likely choices are tried on guesses at the other hands and played
//! out, like its bids.

use spades_engine::{Action, Card, CardSet};

use super::ExpertBot;
use crate::basic;
use crate::knowledge::Knowledge;

/// How many cards beyond those to give are considered: the choices are
/// every set of that many among the few best candidates.
const SPARE: usize = 2;

impl ExpertBot {
    pub(super) fn pass(&mut self, k: &Knowledge, count: u8) -> CardSet {
        // Once cards came from the partner, the hand to guess is no longer
        // one that was dealt; the basic bot's choice it is.
        if !k.received.is_empty() || !k.given.is_empty() {
            return basic::choose_pass(k, count);
        }
        let candidates = candidates(k, count, basic::choose_pass(k, count));
        self.choose_before_play(k, &candidates, Action::Pass)
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
