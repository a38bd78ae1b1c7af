//! Glicko-2 ratings for a partnership game.
//!
//! Glicko-2 rates one player against another, so a partnership game is rated
//! as each player's rating period of two results: one against each opponent,
//! each the result of his team. A player who abandoned the game loses both,
//! whatever his team did. Everyone is rated from the ratings held before the
//! game, as the method requires within one period.

use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2_rating_period};

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

/// The four players' ratings after a game, by seat. `winner` is the winning
/// team (seats 0 and 2 are team 0); `abandoned` marks seats whose players
/// left for good.
pub fn rate_game(ratings: &[Rating; 4], winner: Option<u8>, abandoned: &[bool; 4]) -> [Rating; 4] {
    let config = Glicko2Config::new();
    std::array::from_fn(|seat| {
        let team = (seat % 2) as u8;
        let outcome = if abandoned[seat] {
            Outcomes::LOSS
        } else {
            match winner {
                Some(winner) if winner == team => Outcomes::WIN,
                Some(_) => Outcomes::LOSS,
                None => Outcomes::DRAW,
            }
        };
        let opponents: Vec<(Glicko2Rating, Outcomes)> = [(seat + 1) % 4, (seat + 3) % 4]
            .into_iter()
            .map(|opponent| (ratings[opponent].into(), outcome))
            .collect();
        glicko2_rating_period(&ratings[seat].into(), &opponents, &config).into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn winners_go_up_losers_go_down_and_equal_players_move_alike() {
        let fresh = [Rating::default(); 4];
        let after = rate_game(&fresh, Some(0), &[false; 4]);
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
        let after = rate_game(&fresh, Some(0), &[true, false, false, false]);
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
            Some(0),
            &[false; 4],
        );
        let against_weak = rate_game(
            &[Rating::default(), weak, Rating::default(), weak],
            Some(0),
            &[false; 4],
        );
        assert!(against_strong[0].rating > against_weak[0].rating);
    }
}
