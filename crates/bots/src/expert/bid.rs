//! The expert's bidding: each bid worth considering is tried on many
//! guesses at the other hands, the hand is played out after it (the later
//! bidders bidding as the basic bot would, everybody playing with the
//! expert's habits), and the bid worth most for the game as it stands wins.

use std::time::Instant;

use spades_engine::{Action, Bid, BidChoices, BySeat, CardSet, Deal, Game, Legal};

use super::ExpertBot;
use super::value::{finish_hand, value};
use crate::basic;
use crate::knowledge::Knowledge;
use crate::sample::sample_plausible;

/// Random deals tried for each guess, keeping one that fits the bids.
const PLAUSIBLE_TRIES: u32 = 20;

/// Hands expected to take more tricks than this are not tried at nil.
const MOST_TRICKS_FOR_NIL: f32 = 4.0;

impl ExpertBot {
    pub(super) fn bid(&mut self, k: &Knowledge, choices: BidChoices) -> Option<Bid> {
        let habit = basic::fit_bid(k, basic::choose_bid(k), choices)?;
        let candidates = candidates(k, choices, habit);
        Some(self.choose_before_play(k, &candidates, Action::Bid))
    }

    /// The choice worth most among `choices` (the habitual one first) for
    /// this seat's bid or exchange, each tried on the same guesses at the
    /// other hands and played out to the end of the hand. The habitual
    /// choice stays unless another is clearly better: a point on average is
    /// within the noise of a few dozen deals.
    pub(super) fn choose_before_play<C: Copy>(
        &mut self,
        k: &Knowledge,
        choices: &[C],
        action: impl Fn(C) -> Action,
    ) -> C {
        let habit = choices[0];
        if choices.len() <= 1 {
            return habit;
        }
        let Some((totals, tried)) = self.totals_before_play(k, choices, action, |_, _| {}) else {
            return habit;
        };
        let best = totals.iter().copied().fold(f64::MIN, f64::max);
        if totals[0] >= best - f64::from(tried) {
            return habit;
        }
        let chosen = totals.iter().position(|&total| total == best);
        chosen.map_or(habit, |index| choices[index])
    }

    /// What each of `choices` is worth summed over the guesses tried, and
    /// how many were tried; `None` when there is no guess to try or a
    /// choice is refused in one (a bug: the habit is then kept). `record`
    /// is told each choice's worth in each guess, guess by guess.
    pub(super) fn totals_before_play<C: Copy>(
        &mut self,
        k: &Knowledge,
        choices: &[C],
        action: impl Fn(C) -> Action,
        mut record: impl FnMut(usize, f64),
    ) -> Option<(Vec<f64>, u32)> {
        let samples = self.budget.samples / 2;
        if samples == 0 {
            return None;
        }
        let started = Instant::now();
        let team = k.team();
        let mut totals = vec![0f64; choices.len()];
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
            for (index, (total, &choice)) in totals.iter_mut().zip(choices).enumerate() {
                let mut ahead = game.clone();
                let applied = ahead.apply(k.seat, action(choice));
                let finished = applied.is_ok() && finish_hand(&mut ahead);
                if !finished {
                    debug_assert!(
                        false,
                        "{:?} was refused in a guess: {:?}",
                        action(choice),
                        applied.err()
                    );
                    return None;
                }
                let worth = f64::from(value(&ahead, team));
                *total += worth;
                record(index, worth);
            }
        }
        (tried > 0).then_some((totals, tried))
    }
}

/// The bids worth trying: the habitual one, the number one under it, and
/// nil for a hand that is not too strong for it.
pub(super) fn candidates(k: &Knowledge, choices: BidChoices, habit: Bid) -> Vec<Bid> {
    let estimate = basic::estimate_tricks(k.hand, k.rules.deck);
    let target = match habit {
        Bid::Tricks(n) | Bid::Blind(n) => n,
        Bid::Nil | Bid::BlindNil => (estimate + basic::BID_ROUNDING).floor().max(1.0) as u8,
    };
    let mut bids = vec![habit];
    // No bid above the habit is tried: the guesses flatter it, since the
    // other seats play them with habits that never try to set a bidder, as
    // real opponents do. In the arena against the strong bot, trying bids
    // up to two over the habit made 89% of contracts on classic (500 deal
    // pairs) and 77% in three-player; without them, 93% in both, and the
    // games won stayed within the noise on classic (83% and 82%) and rose
    // in three-player (66% to 76%).
    for tricks in target.saturating_sub(1)..=target {
        if let Ok(bid) = Bid::new(tricks)
            && tricks > 0
            && choices.contains(bid)
            && !bids.contains(&bid)
        {
            bids.push(bid);
        }
    }
    let partner_nil = k
        .partner()
        .is_some_and(|partner| k.bids[partner].is_some_and(Bid::is_nil));
    if choices.has_nil() && !partner_nil && estimate < MOST_TRICKS_FOR_NIL && !bids.contains(&Bid::Nil) {
        bids.push(Bid::Nil);
    }
    bids
}

/// A game dealt as `hands` guesses, with the bids already made replayed in
/// order, waiting for this seat's bid or its cards for the exchange;
/// `None` if the guess cannot get there.
fn at_my_turn(k: &Knowledge, hands: BySeat<CardSet>, seed: u64) -> Option<Game> {
    let deal = Deal {
        dealer: k.dealer,
        hands,
        score: k.score,
        bags: k.bags,
        hand_number: k.hand_number,
    };
    let mut game = Game::from_deal(k.rules, seed, deal).ok()?;
    for _ in 0..16 {
        // This seat's turn, unless it is a bid it has made already (when it
        // is to give cards for the exchange).
        match (game.legal(k.seat), k.bids[k.seat]) {
            (Legal::Bid(_), None) | (Legal::Pass { .. }, _) => return Some(game),
            _ => {}
        }
        let seat = game.first_to_act()?;
        let action = match (game.legal(seat), k.bids[seat]) {
            (Legal::BlindOrLook(_), Some(bid @ (Bid::BlindNil | Bid::Blind(_)))) => Action::Bid(bid),
            (Legal::BlindOrLook(_) | Legal::Look, _) => Action::LookAtHand,
            (Legal::Bid(_), Some(bid)) => Action::Bid(bid),
            _ => return None,
        };
        game.apply(seat, action).ok()?;
    }
    None
}
