//! How a hand's bids and tricks turn into points and bags. The numbers are
//! worked out by hand, including the rule book's worked example, so that a
//! scoring change cannot pass unnoticed.

use super::*;
use spades_engine::score::score_team;

const R: RuleSet = RuleSet::CLASSIC;

#[test]
fn a_made_contract_scores_ten_a_trick_bid_and_one_a_bag() {
    let s = score_team(&R, [Bid::Tricks(3), Bid::Tricks(2)].into_iter().zip([4, 3]), 0, 0);
    assert_eq!(
        (s.contract_points, s.bags_taken, s.change, s.score, s.bags),
        (50, 2, 52, 52, 2)
    );
}

#[test]
fn a_set_contract_loses_ten_a_trick_bid_and_takes_no_bags() {
    let s = score_team(
        &R,
        [Bid::Tricks(4), Bid::Tricks(3)].into_iter().zip([2, 4]),
        100,
        3,
    );
    assert_eq!(
        (s.contract_points, s.bags_taken, s.change, s.score, s.bags),
        (-70, 0, -70, 30, 3)
    );
}

#[test]
fn a_contract_of_zero_scores_nothing_by_itself() {
    let s = score_team(&R, [Bid::Nil, Bid::Nil].into_iter().zip([0, 0]), 0, 0);
    assert_eq!((s.contract_points, s.nil_points, s.change), (0, 200, 200));
}

#[test]
fn nil_is_worth_100_and_blind_nil_200_either_way() {
    assert_eq!(
        score_team(&R, [Bid::Nil, Bid::Tricks(3)].into_iter().zip([0, 3]), 0, 0).nil_points,
        100
    );
    assert_eq!(
        score_team(&R, [Bid::Nil, Bid::Tricks(3)].into_iter().zip([1, 3]), 0, 0).nil_points,
        -100
    );
    assert_eq!(
        score_team(&R, [Bid::BlindNil, Bid::Tricks(3)].into_iter().zip([0, 3]), 0, 0).nil_points,
        200
    );
    assert_eq!(
        score_team(&R, [Bid::BlindNil, Bid::Tricks(3)].into_iter().zip([2, 3]), 0, 0).nil_points,
        -200
    );
    let house = RuleSet {
        nil_value: 50,
        blind_nil_value: 100,
        ..R
    };
    assert_eq!(
        score_team(&house, [Bid::Nil, Bid::BlindNil].into_iter().zip([0, 1]), 0, 0).nil_points,
        50 - 100
    );
}

#[test]
fn a_nil_bidders_tricks_never_help_the_contract_but_are_bags() {
    // The partner bid 4 and took 3; the nil bidder's 2 tricks do not
    // make the contract, and each is a bag worth a point.
    let s = score_team(&R, [Bid::Nil, Bid::Tricks(4)].into_iter().zip([2, 3]), 0, 0);
    assert_eq!(s.counted_tricks, 3);
    assert_eq!(s.contract_points, -40);
    assert_eq!(s.nil_points, -100);
    assert_eq!(s.bags_taken, 2);
    assert_eq!(s.change, -40 - 100 + 2);
}

#[test]
fn each_time_bags_reach_ten_the_team_loses_100_and_ten_come_off() {
    let s = score_team(&R, [Bid::Tricks(1), Bid::Tricks(1)].into_iter().zip([6, 7]), 0, 9);
    assert_eq!(s.bags_taken, 11);
    assert_eq!(s.bag_penalty, 200, "9 + 11 = 20 bags: the limit is reached twice");
    assert_eq!(s.bags, 0);
    assert_eq!(s.change, 20 + 11 - 200);
    let house = RuleSet {
        bag_limit: 5,
        bag_penalty: 50,
        ..R
    };
    let s = score_team(
        &house,
        [Bid::Tricks(2), Bid::Tricks(2)].into_iter().zip([3, 3]),
        0,
        3,
    );
    assert_eq!((s.bag_penalty, s.bags), (50, 0));
}

/// The rule book's worked example: a team on 337 points with 7 bags
/// bids 5 (3 and 2) and takes 7, 8, 9 or 4 tricks.
#[test]
fn the_worked_example() {
    let cases = [
        (7, 52, 389, 9),
        (8, 53 - 100, 290, 0),
        (9, 54 - 100, 291, 1),
        (4, -50, 287, 7),
    ];
    for (taken, change, score, bags) in cases {
        let s = score_team(
            &R,
            [Bid::Tricks(3), Bid::Tricks(2)].into_iter().zip([taken - 2, 2]),
            337,
            7,
        );
        assert_eq!(
            (s.change, s.score, s.bags),
            (change, score, bags),
            "taking {taken}"
        );
    }
}

#[test]
fn a_played_hand_is_scored_into_the_running_totals() {
    // One suit each and dealer 3: seat 3 holds every spade and wins all
    // thirteen tricks whatever anyone plays.
    let mut game = game_with(no_blind_nil(), 3, SUIT_EACH, [120, 40]);
    bid_round(&mut game, [Bid::Nil, Bid::Tricks(3), Bid::Nil, Bid::Tricks(4)]);
    play_hand_lowest(&mut game);
    let record = game.last_hand().unwrap();
    assert_eq!(record.tricks_won.0, [0, 0, 0, 13]);
    // Team 0: two nils made. Team 1: 7 bid, 13 taken: 70 + 6 bags.
    assert_eq!(record.hand_score.as_slice(), [200, 76]);
    assert_eq!(record.score.as_slice(), [320, 116]);
    assert_eq!(record.bags.as_slice(), [0, 6]);
    assert_eq!(game.score().as_slice(), [320, 116]);
}
