//! Scoring a hand and deciding when a game ends, as pure functions of the
//! bids, the tricks taken and the running totals.

use crate::action::Bid;
use crate::rules::RuleSet;
use crate::seat::{BySeat, ByTeam, Team};

/// How one team's score moved in one hand.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct TeamHandScore {
    /// Sum of the bids of partners who did not bid nil.
    pub contract: u8,
    /// Tricks of partners who did not bid nil, which count toward the contract.
    pub counted_tricks: u8,
    /// `+10 * contract` plus one per overtrick when made, `-10 * contract` when set.
    pub contract_points: i32,
    /// The sum of the nil and blind nil results of the team's players.
    pub nil_points: i32,
    /// Bags taken this hand: overtricks of a made contract plus every trick
    /// of a nil bidder. Each is also worth one point.
    pub bags_taken: i32,
    /// Points lost to the bag rule this hand (a multiple of the penalty).
    pub bag_penalty: i32,
    /// The whole change of the team's score this hand.
    pub change: i32,
    /// The team's score after the hand.
    pub score: i32,
    /// The team's bag count after the hand (and after any penalty).
    pub bags: i32,
}

/// Scores one team's hand.
///
/// `bids` and `tricks` are the team's two players; `score` and `bags` are the
/// running totals before the hand.
pub fn score_team(rules: &RuleSet, bids: [Bid; 2], tricks: [u8; 2], score: i32, bags: i32) -> TeamHandScore {
    let mut result = TeamHandScore::default();
    let mut nil_tricks = 0u8;
    for (bid, taken) in bids.into_iter().zip(tricks) {
        match bid {
            Bid::Tricks(n) => {
                result.contract += n;
                result.counted_tricks += taken;
            }
            Bid::Nil | Bid::BlindNil => {
                let value = if bid.is_blind() {
                    rules.blind_nil_value
                } else {
                    rules.nil_value
                };
                result.nil_points += if taken == 0 { value } else { -value };
                nil_tricks += taken;
            }
        }
    }

    let contract = i32::from(result.contract);
    let counted = i32::from(result.counted_tricks);
    let overtricks = if result.contract == 0 {
        // A contract of zero (both partners bid nil) scores nothing by itself.
        0
    } else if counted >= contract {
        result.contract_points = 10 * contract;
        counted - contract
    } else {
        result.contract_points = -10 * contract;
        0
    };
    result.bags_taken = overtricks + i32::from(nil_tricks);

    let mut running_bags = bags + result.bags_taken;
    while running_bags >= rules.bag_limit {
        running_bags -= rules.bag_limit;
        result.bag_penalty += rules.bag_penalty;
    }
    result.change = result.contract_points + result.bags_taken + result.nil_points - result.bag_penalty;
    result.score = score + result.change;
    result.bags = running_bags;
    result
}

/// Scores both teams' hands from the four bids and the tricks each player took.
pub fn score_hand(
    rules: &RuleSet,
    bids: &BySeat<Bid>,
    tricks: &BySeat<u8>,
    score: &ByTeam<i32>,
    bags: &ByTeam<i32>,
) -> ByTeam<TeamHandScore> {
    ByTeam::from_fn(|team| {
        let [a, b] = team.seats();
        score_team(
            rules,
            [bids[a], bids[b]],
            [tricks[a], tricks[b]],
            score[team],
            bags[team],
        )
    })
}

/// The winner of the game after a hand, if the game is over.
///
/// The game ends when a team has reached the target, when a team has fallen
/// to the loss threshold, or when the hand limit has been played; in every
/// case the higher score wins, and equal scores play another hand.
pub fn game_winner(rules: &RuleSet, score: &ByTeam<i32>, hands_played: u32) -> Option<Team> {
    let reached_target = score.0.iter().any(|&s| s >= rules.target);
    let fell_to_mercy = rules
        .mercy
        .is_some_and(|mercy| score.0.iter().any(|&s| s <= mercy));
    let hand_limit = rules.max_hands.is_some_and(|limit| hands_played >= limit);
    if !(reached_target || fell_to_mercy || hand_limit) {
        return None;
    }
    match score[Team::ALL[0]].cmp(&score[Team::ALL[1]]) {
        std::cmp::Ordering::Greater => Some(Team::ALL[0]),
        std::cmp::Ordering::Less => Some(Team::ALL[1]),
        std::cmp::Ordering::Equal => None,
    }
}
