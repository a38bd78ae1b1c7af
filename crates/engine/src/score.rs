//! Scoring a hand and deciding when a game ends, as pure functions of the
//! bids, the tricks taken and the running totals.

use crate::action::Bid;
use crate::rules::RuleSet;
use crate::seat::{BySeat, ByTeam, Seating, Team};

/// How one team's score moved in one hand.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct TeamHandScore {
    /// Sum of the bids of partners who did not bid nil, or the team's
    /// blind bid.
    pub contract: u8,
    /// Whether the contract was a team blind bid.
    pub blind: bool,
    /// Tricks of partners who did not bid nil, which count toward the contract.
    pub counted_tricks: u8,
    /// The contract's value when made, minus it when set: `10 * contract`,
    /// or 200 (a contract of 10 under `ten_for_two_hundred`) or 200 or 500
    /// (a moon of every trick under `moon`), doubled for a blind bid (and, when
    /// `team_blind_set_doubled`, for a blind bid set). Overtricks are in
    /// `bag_points`.
    pub contract_points: i32,
    /// Whether the team's contract was set this hand (a team that bid only
    /// nils has no contract and is never set).
    pub set: bool,
    /// The sum of the nil and blind nil results of the team's players.
    pub nil_points: i32,
    /// Bags taken this hand: overtricks of a made contract plus every trick
    /// of a nil bidder.
    pub bags_taken: i32,
    /// What the bags taken are worth: `bags_taken * bag_value`.
    pub bag_points: i32,
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
/// `members` holds each of the team's players' bid and tricks taken (two
/// partners, or one player in solo); `score` and `bags` are the running
/// totals before the hand.
pub fn score_team(
    rules: &RuleSet,
    members: impl IntoIterator<Item = (Bid, u8)>,
    score: i32,
    bags: i32,
) -> TeamHandScore {
    let mut result = TeamHandScore::default();
    let mut nil_tricks = 0u8;
    for (bid, taken) in members {
        match bid {
            Bid::Tricks(n) => {
                result.contract += n;
                result.counted_tricks += taken;
            }
            Bid::Blind(n) => {
                // Both partners hold the team's one blind bid.
                result.contract = result.contract.max(n);
                result.blind = true;
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
    } else {
        let value = contract_value(rules, result.contract);
        // A blind bid has no limit on overtricks: only falling short sets it.
        let too_many = !result.blind
            && result.contract < 10
            && rules
                .max_overtricks
                .is_some_and(|limit| counted - contract > i32::from(limit));
        let doubled = !result.blind && rules.set_at_double && counted >= 2 * contract;
        if counted >= contract && !too_many && !doubled {
            result.contract_points = if result.blind { 2 * value } else { value };
            counted - contract
        } else {
            let doubles = result.blind && rules.team_blind_set_doubled;
            result.contract_points = if doubles { -2 * value } else { -value };
            result.set = true;
            0
        }
    };
    result.bags_taken = overtricks + i32::from(nil_tricks);
    result.bag_points = result.bags_taken * rules.bag_value;

    let mut running_bags = bags + result.bags_taken;
    while running_bags >= rules.bag_limit {
        running_bags -= rules.bag_limit;
        result.bag_penalty += rules.bag_penalty;
    }
    result.change = result.contract_points + result.bag_points + result.nil_points - result.bag_penalty;
    // A game without a loss threshold may drift down for ever: its score
    // stops at the end of the range rather than wrapping round.
    result.score = score.saturating_add(result.change);
    result.bags = running_bags;
    result
}

/// The contract of a team whose players made these bids: the numbers
/// added, nils counting nothing, and a team blind bid (which both partners
/// hold) counted once.
pub fn team_contract(bids: impl IntoIterator<Item = Bid>) -> u8 {
    let (mut seen, mut blind) = (0u8, 0u8);
    for bid in bids {
        match bid {
            Bid::Tricks(n) => seen += n,
            Bid::Blind(n) => blind = blind.max(n),
            Bid::Nil | Bid::BlindNil => {}
        }
    }
    seen + blind
}

/// What a contract is worth made, and costs set.
pub fn contract_value(rules: &RuleSet, contract: u8) -> i32 {
    match contract {
        _ if rules.moon && contract == rules.hand_size() => {
            if rules.ten_for_two_hundred {
                500
            } else {
                200
            }
        }
        10 if rules.ten_for_two_hundred => 200,
        _ => 10 * i32::from(contract),
    }
}

/// Scores every team's hand from the four bids and the tricks each player
/// took.
pub fn score_hand(
    rules: &RuleSet,
    bids: &BySeat<Bid>,
    tricks: &BySeat<u8>,
    score: &ByTeam<i32>,
    bags: &ByTeam<i32>,
) -> ByTeam<TeamHandScore> {
    let seating = rules.seating();
    ByTeam::from_fn(seating, |team| {
        let members = seating
            .seats_of(team)
            .iter()
            .map(|seat| (bids[seat], tricks[seat]));
        score_team(rules, members, score[team], bags[team])
    })
}

/// Scores every team's hand in a hand played without bids: 10 points a
/// trick, no bags, no contract and so never a set.
pub fn score_unbid_hand(
    rules: &RuleSet,
    tricks: &BySeat<u8>,
    score: &ByTeam<i32>,
    bags: &ByTeam<i32>,
) -> ByTeam<TeamHandScore> {
    let seating = rules.seating();
    ByTeam::from_fn(seating, |team| {
        let taken: u8 = seating.seats_of(team).iter().map(|seat| tricks[seat]).sum();
        let change = 10 * i32::from(taken);
        TeamHandScore {
            counted_tricks: taken,
            contract_points: change,
            change,
            score: score[team].saturating_add(change),
            bags: bags[team],
            ..TeamHandScore::default()
        }
    })
}

/// What decides the game besides the scores: a Boston, and how many hands
/// in a row each team has been set.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Streaks {
    /// The team that took every trick with a contract of at least
    /// 10 made, in the hand just scored (counted only under `boston_wins`).
    pub boston: Option<Team>,
    /// Hands in a row, up to the one just scored, in which each team was set.
    pub sets_in_a_row: ByTeam<u8>,
}

impl Streaks {
    /// No Boston and no set yet, for the teams of `seating`.
    pub fn new(seating: Seating) -> Streaks {
        Streaks {
            boston: None,
            sets_in_a_row: ByTeam::filled(seating, 0),
        }
    }

    /// The streaks after a hand scored `scores`, from those before it.
    pub fn after(self, rules: &RuleSet, scores: &ByTeam<TeamHandScore>) -> Streaks {
        let boston = scores.teams().find(|&team| {
            let s = scores[team];
            rules.boston_wins && !s.set && s.contract >= 10 && s.counted_tricks == rules.hand_size()
        });
        Streaks {
            boston,
            sets_in_a_row: ByTeam::from_fn(rules.seating(), |team| {
                if scores[team].set {
                    self.sets_in_a_row[team].saturating_add(1)
                } else {
                    0
                }
            }),
        }
    }
}

/// The winner of the game after a hand, if the game is over.
///
/// A Boston wins at once. A team set `sets_to_lose` hands in a row is out
/// and ends the game; the best score among the teams still in wins (if
/// every team is out, all of them count). Otherwise the game ends when a
/// team has reached the target, when a team has fallen to the loss
/// threshold, or when the hand limit has been played, and the best score
/// wins. A tie for the best score plays another hand. With two teams this
/// is the rule book's: the team not beaten wins whatever the scores.
pub fn game_winner(
    rules: &RuleSet,
    score: &ByTeam<i32>,
    hands_played: u32,
    streaks: &Streaks,
) -> Option<Team> {
    if let Some(team) = streaks.boston {
        return Some(team);
    }
    let beaten = |team: Team| {
        rules
            .sets_to_lose
            .is_some_and(|limit| streaks.sets_in_a_row[team] >= limit)
    };
    let any_beaten = score.teams().any(beaten);
    let all_beaten = score.teams().all(beaten);
    let reached_target = score.as_slice().iter().any(|&s| s >= rules.target);
    let fell_to_mercy = rules
        .mercy
        .is_some_and(|mercy| score.as_slice().iter().any(|&s| s <= mercy));
    let hand_limit = rules.max_hands.is_some_and(|limit| hands_played >= limit);
    if !(reached_target || fell_to_mercy || hand_limit || any_beaten) {
        return None;
    }
    // Runs once a hand: the teams still in are filtered twice rather than
    // gathered into a list.
    let contenders = || score.teams().filter(|&team| all_beaten || !beaten(team));
    let best = contenders().map(|team| score[team]).max()?;
    let mut leaders = contenders().filter(|&team| score[team] == best);
    match (leaders.next(), leaders.next()) {
        (Some(team), None) => Some(team),
        _ => None,
    }
}
