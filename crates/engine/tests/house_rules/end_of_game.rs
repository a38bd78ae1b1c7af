//! The house rules that end a game early, such as losing after two sets in a
//! row or winning on a Boston. They depend on streaks across hands, which the
//! plain rules never track.

use super::*;

fn streaks(rules: &RuleSet, hands: &[[TeamHandScore; 2]]) -> Streaks {
    hands.iter().fold(Streaks::default(), |streaks, scores| {
        streaks.after(rules, &ByTeam::from(*scores))
    })
}

fn hand(set: [bool; 2]) -> [TeamHandScore; 2] {
    set.map(|set| TeamHandScore {
        contract: 4,
        set,
        ..TeamHandScore::default()
    })
}

#[test]
fn two_sets_in_a_row_lose_the_game() {
    let rules = RuleSet {
        sets_to_lose: Some(2),
        ..RuleSet::CLASSIC
    };
    let once = streaks(&rules, &[hand([true, false])]);
    assert_eq!(game_winner(&rules, &ByTeam::from([0, 0]), 1, &once), None);
    let twice = streaks(&rules, &[hand([true, false]), hand([true, false])]);
    assert_eq!(
        game_winner(&rules, &ByTeam::from([300, 0]), 2, &twice),
        Some(Team::ALL[1])
    );
    // A made contract in between starts the count again.
    let broken = streaks(
        &rules,
        &[hand([true, false]), hand([false, false]), hand([true, false])],
    );
    assert_eq!(game_winner(&rules, &ByTeam::from([0, 0]), 3, &broken), None);
    // Both teams out together: the higher score wins.
    let both = streaks(&rules, &[hand([true, true]), hand([true, true])]);
    assert_eq!(
        game_winner(&rules, &ByTeam::from([-80, -40]), 2, &both),
        Some(Team::ALL[1])
    );
    // Off by default.
    assert_eq!(
        game_winner(&RuleSet::CLASSIC, &ByTeam::from([0, 0]), 2, &twice),
        None
    );
}

#[test]
fn a_boston_wins_the_game() {
    let rules = RuleSet {
        boston_wins: true,
        ..RuleSet::CLASSIC
    };
    let boston = team_score(&rules, [Bid::Tricks(6), Bid::Tricks(4)], [7, 6]);
    let other = TeamHandScore::default();
    let after = Streaks::default().after(&rules, &ByTeam::from([other, boston]));
    assert_eq!(after.boston, Some(Team::ALL[1]));
    assert_eq!(
        game_winner(&rules, &ByTeam::from([400, -100]), 1, &after),
        Some(Team::ALL[1])
    );
    // Thirteen tricks on a contract below 10 is no Boston.
    let small = team_score(&rules, [Bid::Tricks(3), Bid::Tricks(4)], [7, 6]);
    assert_eq!(
        Streaks::default()
            .after(&rules, &ByTeam::from([other, small]))
            .boston,
        None
    );
}
