//! Tests of rule sets: their defaults and their validation.

use super::*;

#[test]
fn classic_defaults_match_the_rule_book() {
    let r = RuleSet::CLASSIC;
    assert_eq!((r.target, r.mercy, r.max_hands), (500, Some(-500), None));
    assert_eq!((r.nil_value, r.blind_nil_value), (100, 200));
    assert!(r.blind_nil);
    assert_eq!(r.blind_nil_min_deficit, 100);
    assert_eq!((r.nil_pass, r.blind_nil_pass), (0, 2));
    assert_eq!(r.pass_order, PassOrder::Sequential);
    assert_eq!((r.bag_limit, r.bag_penalty), (10, 100));
    assert_eq!(r.validate(), Ok(()));
}

#[test]
fn tournament_is_classic_with_seven_hands_to_300() {
    let t = RuleSet::TOURNAMENT;
    assert_eq!((t.target, t.mercy, t.max_hands), (300, Some(-300), Some(7)));
    assert_eq!(
        RuleSet {
            target: 500,
            mercy: Some(-500),
            max_hands: None,
            ..t
        },
        RuleSet::CLASSIC
    );
    assert_eq!(t.validate(), Ok(()));
}

#[test]
fn unplayable_values_are_refused() {
    let bad = [
        RuleSet {
            target: 0,
            ..RuleSet::CLASSIC
        },
        RuleSet {
            mercy: Some(10),
            ..RuleSet::CLASSIC
        },
        RuleSet {
            max_hands: Some(0),
            ..RuleSet::CLASSIC
        },
        RuleSet {
            nil_pass: 9,
            ..RuleSet::CLASSIC
        },
        RuleSet {
            bag_limit: 0,
            ..RuleSet::CLASSIC
        },
        RuleSet {
            team_blind: 14,
            ..RuleSet::CLASSIC
        },
        RuleSet {
            team_blind: 6,
            bidding: Bidding::Whiz,
            ..RuleSet::CLASSIC
        },
        RuleSet {
            team_blind: 3,
            min_team_bid: 4,
            ..RuleSet::CLASSIC
        },
        RuleSet {
            team_blind: 6,
            partners: false,
            blind_nil_pass: 0,
            ..RuleSet::CLASSIC
        },
    ];
    for rules in bad {
        assert!(rules.validate().is_err(), "{rules:?} accepted");
    }
}

#[test]
fn points_beyond_their_bounds_are_refused_by_name() {
    type Change = fn(&mut RuleSet);
    let cases: [(Change, &str); 9] = [
        (|r| r.nil_pass = MAX_PASS + 1, "nil_pass"),
        (|r| r.blind_nil_pass = MAX_PASS + 1, "blind_nil_pass"),
        (|r| r.target = MAX_POINTS + 1, "target"),
        (|r| r.mercy = Some(-MAX_POINTS - 1), "mercy"),
        (|r| r.nil_value = i32::MAX, "nil_value"),
        (|r| r.blind_nil_value = MAX_VALUE + 1, "blind_nil_value"),
        (|r| r.bag_penalty = MAX_VALUE + 1, "bag_penalty"),
        (
            |r| r.blind_nil_min_deficit = MAX_POINTS + 1,
            "blind_nil_min_deficit",
        ),
        (
            |r| r.team_blind_min_deficit = MAX_POINTS + 1,
            "team_blind_min_deficit",
        ),
    ];
    for (change, field) in cases {
        let mut rules = RuleSet::CLASSIC;
        change(&mut rules);
        assert_eq!(rules.validate().map_err(|error| error.field), Err(field));
    }
    let widest = RuleSet {
        target: MAX_POINTS,
        mercy: Some(-MAX_POINTS),
        nil_value: MAX_VALUE,
        blind_nil_value: MAX_VALUE,
        bag_penalty: MAX_VALUE,
        blind_nil_min_deficit: MAX_POINTS,
        team_blind_min_deficit: MAX_POINTS,
        ..RuleSet::CLASSIC
    };
    assert_eq!(widest.validate(), Ok(()));
}
