//! Combinations of house rules that cannot work together. They must be refused
//! with a reason when a table is set up rather than fail in the middle of a
//! game.

use super::*;

#[test]
fn impossible_combinations_are_refused_with_the_reason() {
    let cases = [
        (
            RuleSet {
                bidding: Bidding::Whiz,
                min_team_bid: 4,
                ..RuleSet::CLASSIC
            },
            "min_team_bid",
        ),
        (
            RuleSet {
                bidding: Bidding::Suicide,
                nil: false,
                blind_nil: false,
                ..RuleSet::CLASSIC
            },
            "nil",
        ),
        (
            RuleSet {
                bidding: Bidding::Mirror,
                ..RuleSet::CLASSIC
            },
            "blind_nil",
        ),
        (
            RuleSet {
                nil: false,
                ..RuleSet::CLASSIC
            },
            "blind_nil",
        ),
        (
            RuleSet {
                min_team_bid: 14,
                ..RuleSet::CLASSIC
            },
            "min_team_bid",
        ),
        (
            RuleSet {
                bag_value: 2,
                ..RuleSet::CLASSIC
            },
            "bag_value",
        ),
        (
            RuleSet {
                sets_to_lose: Some(0),
                ..RuleSet::CLASSIC
            },
            "sets_to_lose",
        ),
    ];
    for (rules, field) in cases {
        let error = rules.validate().expect_err(field);
        assert_eq!(error.field, field, "{error}");
        assert!(
            error.to_string().len() > field.len() + 10,
            "a reason for people: {error}"
        );
    }
}
