//! Glicko-2 ratings for a game of four.
//!
//! Glicko-2 rates one player against another, so a partnership game is rated
//! as each player's rating period of two results: one against each opponent,
//! each the result of his team. A game without partners (solo) is three
//! results for each player, one against each other player: the winner beats
//! everyone, and the others are ranked by their final scores. A player who
//! abandoned the game loses every result, whatever his team did. Everyone is
//! rated from the ratings held before the game, as the method requires
//! within one period.

use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2_rating_period};
use spades_engine::{Seat, Seating};

/// A player's Glicko-2 rating on the usual scale (1500 for a newcomer).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

impl Default for Rating {
    fn default() -> Rating {
        let fresh = Glicko2Rating::new();
        Rating {
            rating: fresh.rating,
            deviation: fresh.deviation,
            volatility: fresh.volatility,
        }
    }
}

impl Rating {
    /// The rating `weight` of the way from this one to `target`: a game
    /// that counts less moves it less, its deviation and volatility alike.
    pub fn toward(self, target: Rating, weight: f64) -> Rating {
        let step = |from: f64, to: f64| from + weight * (to - from);
        Rating {
            rating: step(self.rating, target.rating),
            deviation: step(self.deviation, target.deviation),
            volatility: step(self.volatility, target.volatility),
        }
    }
}

impl From<Rating> for Glicko2Rating {
    fn from(rating: Rating) -> Glicko2Rating {
        Glicko2Rating {
            rating: rating.rating,
            deviation: rating.deviation,
            volatility: rating.volatility,
        }
    }
}

impl From<Glicko2Rating> for Rating {
    fn from(rating: Glicko2Rating) -> Rating {
        Rating {
            rating: rating.rating,
            deviation: rating.deviation,
            volatility: rating.volatility,
        }
    }
}

/// How a game ended, as far as ratings go. `winner` is the winning team,
/// `None` for an abandoned game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finish<'a> {
    /// Two partnerships: seats 0 and 2 are team 0, seats 1 and 3 team 1.
    Partners { winner: Option<u8> },
    /// Four players alone, each a team numbered as his seat, with their
    /// final scores.
    Solo { winner: Option<u8>, score: &'a [i32; 4] },
}

/// The four players' ratings after a game, by seat. `abandoned` marks
/// seats whose players left for good.
pub fn rate_game(ratings: &[Rating; 4], finish: &Finish<'_>, abandoned: &[bool; 4]) -> [Rating; 4] {
    let config = Glicko2Config::new();
    std::array::from_fn(|seat| {
        let opponents: Vec<(Glicko2Rating, Outcomes)> = (0..4)
            .filter(|&other| other != seat && !same_team(finish, seat, other))
            .map(|other| (ratings[other].into(), outcome(finish, abandoned, seat, other)))
            .collect();
        glicko2_rating_period(&ratings[seat].into(), &opponents, &config).into()
    })
}

fn same_team(finish: &Finish<'_>, a: usize, b: usize) -> bool {
    matches!(finish, Finish::Partners { .. }) && partnership(a) == partnership(b)
}

/// The team of `seat` in a game of partnerships, as the engine seats them.
fn partnership(seat: usize) -> usize {
    Seating::Partners.team_of(Seat::ALL[seat & 3]).index()
}

/// The result of `seat` against `other`, who is not his partner.
fn outcome(finish: &Finish<'_>, abandoned: &[bool; 4], seat: usize, other: usize) -> Outcomes {
    if abandoned[seat] {
        return Outcomes::LOSS;
    }
    match *finish {
        Finish::Partners { winner } => match winner {
            Some(winner) if usize::from(winner) == partnership(seat) => Outcomes::WIN,
            Some(_) => Outcomes::LOSS,
            None => Outcomes::DRAW,
        },
        Finish::Solo { winner, score } => {
            if abandoned[other] || winner.is_some_and(|w| usize::from(w) == seat) {
                Outcomes::WIN
            } else if winner.is_some_and(|w| usize::from(w) == other) {
                Outcomes::LOSS
            } else {
                match score[seat].cmp(&score[other]) {
                    std::cmp::Ordering::Greater => Outcomes::WIN,
                    std::cmp::Ordering::Less => Outcomes::LOSS,
                    std::cmp::Ordering::Equal => Outcomes::DRAW,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn winners_go_up_losers_go_down_and_equal_players_move_alike() {
        let fresh = [Rating::default(); 4];
        let after = rate_game(&fresh, &Finish::Partners { winner: Some(0) }, &[false; 4]);
        assert!(after[0].rating > 1500.0 && after[2].rating > 1500.0);
        assert!(after[1].rating < 1500.0 && after[3].rating < 1500.0);
        assert!((after[0].rating - after[2].rating).abs() < 1e-9);
        assert!((after[0].rating - 1500.0 - (1500.0 - after[1].rating)).abs() < 1e-6);
        assert!(
            after.iter().all(|r| r.deviation < 350.0),
            "a game makes ratings surer"
        );
    }

    #[test]
    fn an_abandoning_player_loses_even_when_his_partner_wins() {
        let fresh = [Rating::default(); 4];
        let after = rate_game(
            &fresh,
            &Finish::Partners { winner: Some(0) },
            &[true, false, false, false],
        );
        assert!(after[0].rating < 1500.0);
        assert!(after[2].rating > 1500.0);
    }

    #[test]
    fn beating_stronger_opponents_is_worth_more() {
        let strong = Rating {
            rating: 1800.0,
            ..Rating::default()
        };
        let weak = Rating {
            rating: 1300.0,
            ..Rating::default()
        };
        let against_strong = rate_game(
            &[Rating::default(), strong, Rating::default(), strong],
            &Finish::Partners { winner: Some(0) },
            &[false; 4],
        );
        let against_weak = rate_game(
            &[Rating::default(), weak, Rating::default(), weak],
            &Finish::Partners { winner: Some(0) },
            &[false; 4],
        );
        assert!(against_strong[0].rating > against_weak[0].rating);
    }

    #[test]
    fn a_solo_game_ranks_the_winner_first_and_the_rest_by_score() {
        let fresh = [Rating::default(); 4];
        let score = [320, 510, -40, 100];
        let finish = Finish::Solo {
            winner: Some(1),
            score: &score,
        };
        let after = rate_game(&fresh, &finish, &[false; 4]);
        let mut order: Vec<usize> = (0..4).collect();
        order.sort_by(|&a, &b| after[b].rating.total_cmp(&after[a].rating));
        assert_eq!(order, [1, 0, 3, 2], "{after:?}");
        assert!(after[1].rating > 1500.0 && after[2].rating < 1500.0);
    }

    #[test]
    fn a_solo_player_who_abandons_loses_to_everyone() {
        let fresh = [Rating::default(); 4];
        let score = [600, 100, 90, 80];
        let finish = Finish::Solo {
            winner: Some(0),
            score: &score,
        };
        let after = rate_game(&fresh, &finish, &[true, false, false, false]);
        assert!(
            after.iter().skip(1).all(|r| r.rating > after[0].rating),
            "{after:?}"
        );
        assert!(after[0].rating < 1500.0);
    }
}
