//! A review of one player's game by the expert: each of his bids and cards
//! is compared, on the same guesses at the hidden hands, with the choices
//! the expert would weigh, and those that were clearly worse on average
//! are marked with what they cost.
//!
//! The expert judges from the player's seat alone, knowing only what the
//! player knew at that moment, so a choice is marked for what could be
//! foreseen, never for how the cards happened to lie.

use spades_engine::{Action, Bid, Card, CardSet, Game, Legal, ReplayError, RuleSet, Seat, Viewer};

use super::bid::candidates;
use super::value::{finish_hand, value};
use super::{ExpertBot, policy};
use crate::basic;
use crate::knowledge::Knowledge;
use crate::strong::{Budget, distinct_plays, look_ahead, same_run};

/// A choice is marked when another was worth at least this much more on
/// average, and by at least [`SURE`] standard errors of that average, so
/// that a mark is a real mistake and not a coin toss: near the end of a
/// game a single guess can swing by the worth of the game itself.
pub const CLEARLY_WORSE: f64 = 10.0;

/// How many standard errors the difference must be worth.
pub const SURE: f64 = 3.0;

/// Guesses at the hidden hands for each card weighed (half as many for a
/// bid), as the expert uses at the table.
pub const REVIEW_SAMPLES: u32 = ExpertBot::REPEATABLE.samples;

/// Mixed into the game's seed for the review's guesses, so that they are
/// not the guesses of the game's own bots.
const REVIEW_STREAM: u64 = 0x7265_7669_6577;

/// One choice the expert found clearly worse than another.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    /// The hand, from 0.
    pub hand: u32,
    /// For a card, the trick it was played to, from 1.
    pub trick: Option<u8>,
    pub played: Action,
    /// The choice worth most on average.
    pub better: Action,
    /// How much more `better` was worth on average, in points of the
    /// expert's measure (see [`super::value::value`]).
    pub loss: f64,
}

/// A player's game as the expert saw it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Review {
    /// The bids and cards he chose among several.
    pub decisions: u32,
    pub marks: Vec<Mark>,
}

/// Reviews the bids and cards of `seat` in the game dealt from `seed` and
/// played with `actions`, weighing each on `samples` guesses.
pub fn review(
    rules: RuleSet,
    seed: u64,
    actions: &[(Seat, Action)],
    seat: Seat,
    samples: u32,
) -> Result<Review, ReplayError> {
    let mut game = Game::new(rules, seed).map_err(ReplayError::Rules)?;
    // The guesses come from the game's own seed, so a review repeats.
    let mut expert = ExpertBot::new(seed ^ REVIEW_STREAM, Budget { samples, time: None });
    let mut review = Review::default();
    for (index, &(actor, action)) in actions.iter().enumerate() {
        if actor == seat
            && let Some(weighed) = expert.weigh(&game, seat, action)
        {
            review.decisions += 1;
            if weighed.loss >= CLEARLY_WORSE {
                review.marks.push(weighed);
            }
        }
        game.apply(actor, action)
            .map_err(|error| ReplayError::Refused { index, error })?;
    }
    Ok(review)
}

impl ExpertBot {
    /// Weighs `played` against the choices the expert would consider at
    /// this point of `game`, from `seat`'s view; `None` when there was no
    /// real choice (one legal card, a blind bid, an exchange).
    fn weigh(&mut self, game: &Game, seat: Seat, played: Action) -> Option<Mark> {
        let view = game.view(Viewer::Seat(seat));
        let k = Knowledge::new(&view)?;
        if k.is_unbid_hand() {
            return None;
        }
        let mark = |better: Action, loss: f64| Mark {
            hand: game.hand_number(),
            trick: None,
            played,
            better,
            loss,
        };
        match (view.legal(), played) {
            (Legal::Play(cards), Action::Play(card)) if cards.len() > 1 => {
                let (better, loss) = self.weigh_card(&k, cards, card)?;
                Some(Mark {
                    trick: Some(game.tricks().len() as u8 + 1),
                    ..mark(Action::Play(better), loss)
                })
            }
            (Legal::Bid(choices), Action::Bid(bid)) => {
                let habit = basic::fit_bid(&k, basic::choose_bid(&k), choices)?;
                let mut bids = candidates(&k, choices, habit);
                if !bids.contains(&bid) {
                    bids.push(bid);
                }
                let mut worths = Vec::new();
                self.totals_before_play(&k, &bids, Action::Bid, |_, worth| worths.push(worth))?;
                let (best, loss) = shortfall(&worths, &bids, |choice: &Bid| *choice == bid)?;
                Some(mark(Action::Bid(best), loss))
            }
            _ => None,
        }
    }

    /// The best card on average and how much less `card` was worth.
    fn weigh_card(&mut self, k: &Knowledge, legal: CardSet, card: Card) -> Option<(Card, f64)> {
        let candidates = distinct_plays(k, policy::sensible(k, legal) | CardSet::single(card));
        let team = k.team();
        let mut worths = Vec::new();
        look_ahead(k, &mut self.rng, self.budget, &candidates, |ahead| {
            let worth = if finish_hand(ahead) {
                f64::from(value(ahead, team))
            } else {
                f64::NAN
            };
            worths.push(worth);
            worth
        })?;
        if worths.iter().any(|worth| worth.is_nan()) {
            return None;
        }
        shortfall(&worths, &candidates, |candidate: &Card| {
            *candidate == card || same_run(k, *candidate, card)
        })
    }
}

/// The choice worth most on average and how much less the choice that
/// `was_played` finds was worth, from `worths`, each guess's worth of every
/// choice in turn; no loss at all unless the difference is sure (see
/// [`SURE`]).
fn shortfall<C: Copy>(worths: &[f64], choices: &[C], was_played: impl Fn(&C) -> bool) -> Option<(C, f64)> {
    let played = choices.iter().position(was_played)?;
    let guesses: Vec<&[f64]> = worths.chunks_exact(choices.len()).collect();
    let count = guesses.len() as f64;
    let mean = |choice: usize| guesses.iter().map(|worth| worth[choice]).sum::<f64>() / count;
    let best = (0..choices.len()).max_by(|&a, &b| mean(a).total_cmp(&mean(b)))?;
    // The same guesses served every choice, so the difference is judged
    // guess by guess.
    let differences: Vec<f64> = guesses.iter().map(|worth| worth[best] - worth[played]).collect();
    let loss = differences.iter().sum::<f64>() / count;
    let spread = differences.iter().map(|d| (d - loss).powi(2)).sum::<f64>() / (count - 1.0).max(1.0);
    let error = (spread / count).sqrt();
    let sure = loss >= SURE * error;
    Some((choices[best], if sure { loss } else { 0.0 }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Player;

    const SAMPLES: u32 = 40;

    /// Three hands, so that a card in the middle one is worth its points
    /// and not, in a few guesses, the whole game: a costly card there costs
    /// in most guesses, and each look ahead finds it.
    fn short_game() -> RuleSet {
        RuleSet {
            max_hands: Some(3),
            ..RuleSet::CLASSIC
        }
    }

    /// Plays a game with the expert in every seat, letting `blunder` choose
    /// instead whenever it has something to say; returns the actions.
    fn played(seed: u64, mut blunder: impl FnMut(&Game, Seat) -> Option<Action>) -> Vec<(Seat, Action)> {
        let mut game = Game::new(short_game(), seed).unwrap();
        let mut experts: Vec<ExpertBot> = (0..4)
            .map(|n| {
                ExpertBot::new(
                    seed + n,
                    Budget {
                        samples: SAMPLES,
                        time: None,
                    },
                )
            })
            .collect();
        let mut actions = Vec::new();
        while let Some(seat) = game.first_to_act() {
            let action = blunder(&game, seat)
                .or_else(|| experts[seat.index()].act(&game.view(Viewer::Seat(seat))))
                .expect("an action");
            game.apply(seat, action).unwrap();
            actions.push((seat, action));
        }
        actions
    }

    #[test]
    fn the_experts_own_game_is_hardly_marked() {
        let actions = played(21, |_, _| None);
        let mut decisions = 0;
        let mut marks = Vec::new();
        for seat in Seat::ALL {
            let review = review(short_game(), 21, &actions, seat, SAMPLES).unwrap();
            decisions += review.decisions;
            marks.extend(review.marks);
        }
        assert!(decisions > 40, "{decisions} decisions");
        assert!(
            marks.len() as u32 * 20 <= decisions,
            "{} of {decisions} of the expert's choices marked: {marks:?}",
            marks.len()
        );
    }

    #[test]
    fn a_bid_far_off_the_hand_and_a_costly_card_are_marked() {
        // North bids 10 in the first hand, and in the second plays, once,
        // the card an independent look ahead (on more guesses than the
        // review's) finds worst by far.
        let mut judge = ExpertBot::new(
            99,
            Budget {
                samples: 4 * SAMPLES,
                time: None,
            },
        );
        let mut blundered: Option<(u32, u8, Card)> = None;
        let actions = played(33, |game, seat| {
            if seat != Seat::ALL[0] {
                return None;
            }
            let view = game.view(Viewer::Seat(seat));
            match view.legal() {
                Legal::Bid(choices) if game.hand_number() == 0 && choices.contains(Bid::Tricks(10)) => {
                    Some(Action::Bid(Bid::Tricks(10)))
                }
                Legal::Play(cards) if blundered.is_none() && game.hand_number() == 1 => {
                    let k = Knowledge::new(&view)?;
                    let worst = cards
                        .iter()
                        .filter_map(|card| Some((card, judge.weigh_card(&k, cards, card)?.1)))
                        .max_by(|a, b| a.1.total_cmp(&b.1))?;
                    (worst.1 >= 40.0).then(|| {
                        blundered = Some((1, game.tricks().len() as u8 + 1, worst.0));
                        Action::Play(worst.0)
                    })
                }
                _ => None,
            }
        });
        let (hand, trick, card) = blundered.expect("a costly card was found and played");
        let review = review(short_game(), 33, &actions, Seat::ALL[0], SAMPLES).unwrap();
        let bid = review
            .marks
            .iter()
            .find(|mark| mark.played == Action::Bid(Bid::Tricks(10)));
        let bid = bid.unwrap_or_else(|| panic!("the bid of 10 is not marked: {review:?}"));
        assert_eq!(bid.hand, 0);
        assert!(bid.loss >= CLEARLY_WORSE);
        let costly = review.marks.iter().find(|mark| mark.played == Action::Play(card));
        let costly = costly.unwrap_or_else(|| panic!("{card} is not marked: {review:?}"));
        assert_eq!((costly.hand, costly.trick), (hand, Some(trick)));
        assert_ne!(costly.better, Action::Play(card));
    }
}
