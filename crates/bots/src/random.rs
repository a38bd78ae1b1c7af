use spades_engine::{Action, Bid, CardSet, GameRng, Legal, View};

use crate::Player;

/// Chooses uniformly among the legal actions, with a bias that makes the
/// rare rules happen often: it bids nil about one time in eight, and bids
/// blind nil half of the times it is offered. Non-nil bids are uniform over
/// 1 to 13 and passed cards are uniform over the hand.
#[derive(Clone, Debug)]
pub struct RandomPlayer {
    rng: GameRng,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: GameRng::new(seed),
        }
    }

    #[inline]
    fn pick(&mut self, cards: CardSet) -> Option<spades_engine::Card> {
        cards.choose(|len| self.rng.below(len))
    }
}

impl Player for RandomPlayer {
    #[inline]
    fn act(&mut self, view: &View<'_>) -> Option<Action> {
        let action = match view.legal() {
            Legal::Wait | Legal::Look => return None,
            Legal::BlindOrLook(choices) => {
                // Half the time a blind bid among those offered, or a
                // look when none is.
                match choices.nth(self.rng.below(2 * choices.len().max(1))) {
                    Some(tricks) => Action::Bid(Bid::from_parts(tricks, true).ok()?),
                    None => Action::LookAtHand,
                }
            }
            Legal::Bid(choices) => {
                // Nil one time in eight and a number otherwise, as under
                // the standard rules; any allowed bid when the rules
                // narrow the choice.
                let wanted = if self.rng.chance(1, 8) {
                    0
                } else {
                    1 + self.rng.below(13) as u8
                };
                let tricks = if choices.contains(Bid::new(wanted).ok()?) {
                    wanted
                } else {
                    choices.nth(self.rng.below(choices.len()))?
                };
                Action::Bid(Bid::new(tricks).ok()?)
            }
            Legal::Pass { count } => {
                let mut left = view.hand()?;
                let mut chosen = CardSet::EMPTY;
                for _ in 0..count {
                    let card = self.pick(left)?;
                    left.remove(card);
                    chosen.insert(card);
                }
                Action::Pass(chosen)
            }
            Legal::Play(cards) => Action::Play(self.pick(cards)?),
        };
        Some(action)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play_out;
    use spades_engine::{Game, RuleSet};

    #[test]
    fn random_players_finish_games_and_meet_the_rare_rules() {
        let (mut hands, mut nils, mut blind_nils) = (0, 0, 0);
        for seed in 0..300 {
            let mut game = Game::new(RuleSet::CLASSIC, seed).unwrap();
            let mut players: [RandomPlayer; 4] =
                std::array::from_fn(|i| RandomPlayer::new(seed * 4 + i as u64));
            play_out(&mut game, &mut players, |record| {
                hands += 1;
                nils += record.bids.iter().filter(|b| b.bid == 0 && !b.blind).count();
                blind_nils += record.bids.iter().filter(|b| b.blind).count();
            });
            assert!(game.is_over());
        }
        assert!(hands > 300);
        // About one bid in eight is nil; blind nil needs a 100-point deficit.
        let bids = 4 * hands;
        assert!(nils * 20 > bids && nils * 5 < bids, "{nils} nils in {bids} bids");
        assert!(blind_nils > 20, "{blind_nils} blind nils");
    }
}
