//! What a finished hand is worth to a team, for the game as it stands, and
//! finishing a hand with the expert's habits to find out.

use spades_engine::{Game, Team, View, Viewer};

use super::policy;
use crate::knowledge::Knowledge;

/// What a team's position is worth in points: its score less what its bags
/// will cost (each bag a share of the penalty its limit brings), against
/// the best of the other teams in partnership play or their average in solo,
/// and a bonus or a loss for a game won or lost.
pub fn value(game: &Game, team: Team) -> f32 {
    let rules = game.rules();
    let bag_cost = if rules.bag_limit > 0 {
        rules.bag_penalty as f32 / rules.bag_limit as f32
    } else {
        0.0
    };
    let (score, bags) = (game.score(), game.bags());
    let worth = |team: Team| score[team] as f32 - bags[team] as f32 * bag_cost;
    let others = game.seating().teams().filter(|&other| other != team);
    let against = if rules.partners {
        others.map(worth).fold(f32::MIN, f32::max)
    } else {
        let (count, sum) = others.fold((0.0, 0.0), |(count, sum), other| {
            (count + 1.0, sum + worth(other))
        });
        sum / f32::max(count, 1.0)
    };
    let ending = match game.winner() {
        Some(winner) if winner == team => game_bonus(game),
        Some(_) => -game_bonus(game),
        None => 0.0,
    };
    worth(team) - against + ending
}

/// What winning the game is worth beside its points: enough that a team
/// on the edge of winning plays for safety, and one about to lose gambles.
fn game_bonus(game: &Game) -> f32 {
    game.rules().target.max(200) as f32 * 0.6
}

/// Plays the hand in progress to its end with the expert's habits at every
/// seat; returns false if something was refused, which would be a bug.
pub fn finish_hand(game: &mut Game) -> bool {
    let hand = game.hand_number();
    while game.hand_number() == hand && !game.is_over() {
        let Some(seat) = game.first_to_act() else {
            break;
        };
        let view: View<'_> = game.view(Viewer::Seat(seat));
        let Some(action) = Knowledge::new(&view).and_then(|k| policy::decide(&k, view.legal())) else {
            return false;
        };
        if game.apply(seat, action).is_err() {
            return false;
        }
    }
    true
}
