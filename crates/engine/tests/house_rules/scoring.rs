//! The house rules that change the points a hand is worth: ten for two hundred,
//! bag values, nil values and the rules that set a contract for taking too many
//! tricks. The figures are computed by hand to catch any drift in the formulas.

use super::*;

#[test]
fn ten_for_two_hundred_and_the_moon() {
    let rules = Preset::TenForTwoHundred.rules();
    let made = team_score(&rules, [Bid::Tricks(6), Bid::Tricks(4)], [7, 4]);
    assert_eq!(
        (made.contract_points, made.bag_points, made.change),
        (200, 1, 201)
    );
    let set = team_score(&rules, [Bid::Tricks(6), Bid::Tricks(4)], [5, 4]);
    assert_eq!((set.contract_points, set.change, set.set), (-200, -200, true));
    let moon = team_score(&rules, [Bid::Tricks(7), Bid::Tricks(6)], [7, 6]);
    assert_eq!(moon.change, 500);
    let moon_alone = RuleSet {
        moon: true,
        ..RuleSet::CLASSIC
    };
    assert_eq!(
        team_score(&moon_alone, [Bid::Tricks(7), Bid::Tricks(6)], [7, 6]).change,
        200
    );
    assert_eq!(
        team_score(&moon_alone, [Bid::Tricks(7), Bid::Tricks(6)], [7, 5]).change,
        -200
    );
    // Without the rules, 10 and 13 are worth ten a trick.
    assert_eq!(
        team_score(&RuleSet::CLASSIC, [Bid::Tricks(6), Bid::Tricks(4)], [6, 4]).change,
        100
    );
}

#[test]
fn bags_can_cost_a_point_each_with_no_penalty() {
    let rules = Preset::MinusBags.rules();
    let s = score_team(
        &rules,
        [Bid::Tricks(3), Bid::Tricks(2)].into_iter().zip([5, 4]),
        0,
        8,
    );
    assert_eq!(
        (s.contract_points, s.bags_taken, s.bag_points, s.bag_penalty),
        (50, 4, -4, 0)
    );
    assert_eq!(s.change, 46);
}

#[test]
fn five_bags_cost_fifty() {
    let rules = Preset::Bags5.rules();
    let s = score_team(
        &rules,
        [Bid::Tricks(3), Bid::Tricks(2)].into_iter().zip([4, 3]),
        0,
        3,
    );
    assert_eq!((s.bags_taken, s.bag_penalty, s.bags), (2, 50, 0));
    assert_eq!(s.change, 50 + 2 - 50);
}

#[test]
fn nil_is_worth_fifty_and_blind_nil_a_hundred_in_nil_50() {
    let rules = Preset::Nil50.rules();
    assert_eq!(
        team_score(&rules, [Bid::Nil, Bid::Tricks(3)], [0, 3]).nil_points,
        50
    );
    assert_eq!(
        team_score(&rules, [Bid::BlindNil, Bid::Tricks(3)], [1, 3]).nil_points,
        -100
    );
}

#[test]
fn too_many_overtricks_set_a_contract_below_ten() {
    let rules = RuleSet {
        max_overtricks: Some(2),
        ..RuleSet::CLASSIC
    };
    assert_eq!(
        team_score(&rules, [Bid::Tricks(3), Bid::Tricks(2)], [4, 3]).change,
        52
    );
    let set = team_score(&rules, [Bid::Tricks(3), Bid::Tricks(2)], [5, 3]);
    assert_eq!((set.set, set.contract_points, set.bags_taken), (true, -50, 0));
    // A contract of 10 is not limited.
    assert!(!team_score(&rules, [Bid::Tricks(6), Bid::Tricks(4)], [7, 6]).set);
}

#[test]
fn taking_twice_the_contract_sets_it_under_set_at_double() {
    let rules = RuleSet {
        set_at_double: true,
        ..RuleSet::CLASSIC
    };
    assert!(!team_score(&rules, [Bid::Tricks(2), Bid::Tricks(2)], [4, 3]).set);
    let set = team_score(&rules, [Bid::Tricks(2), Bid::Tricks(2)], [4, 4]);
    assert_eq!((set.set, set.change), (true, -40));
}
