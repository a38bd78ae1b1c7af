//! Runs `spades simulate` and checks every hand of its log against the rule
//! book with a checker written here from scratch (`checker/`, reading the
//! rule set with `rules.rs`): it reads the JSON as plain values and card
//! strings and shares no code with the engine, so a mistake in the engine
//! cannot hide itself.

mod checker;
mod commands;
mod rules;

use std::process::Command;

use serde_json::Value;

use checker::Checker;
use rules::{PRESETS, Rules};

/// Runs the `spades` binary with `args`, which must succeed, and returns
/// what it wrote to standard output and to standard error.
fn spades(args: &[&str]) -> (String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_spades"))
        .args(args)
        .output()
        .expect("the spades binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    (
        String::from_utf8(output.stdout).expect("the output is UTF-8"),
        stderr,
    )
}

fn simulate(args: &[&str]) -> String {
    let (log, summary) = spades(&[&["simulate"], args].concat());
    assert!(summary.contains("hands/s"), "a summary line on stderr: {summary}");
    log
}

fn check_log(log: &str, rules: Rules, games: i64) -> Checker {
    let mut checker = Checker::new(rules);
    for (number, text) in log.lines().enumerate() {
        let line: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("line {number}: {e}"));
        checker.check(&line);
    }
    assert_eq!(checker.games_finished, games, "every game ends with a winner");
    assert!(checker.between_games(), "the log ends with a finished game");
    checker
}

/// Simulates `games` games of a preset, or of a rules object, and checks
/// every hand against `expected`.
fn check_games(rules: &str, expected: Rules, games: i64) -> Checker {
    let count = games.to_string();
    let log = simulate(&["--games", &count, "--seed", "1", "--rules", rules]);
    let checker = check_log(&log, expected, games);
    eprintln!("{rules}: {:?}", checker.seen);
    checker
}

/// Games of each preset checked hand by hand.
const GAMES: i64 = 10_000;

#[test]
fn classic_games_follow_the_rules() {
    let seen = check_games("classic", Rules::classic(), GAMES).seen;
    // The random players are biased so that the rare rules do happen.
    assert!(seen.blind_nils > 100, "blind nils: {}", seen.blind_nils);
    assert!(seen.passes > 200, "passes: {}", seen.passes);
    assert!(seen.bag_penalties > 10, "bag penalties: {}", seen.bag_penalties);
}

#[test]
fn tournament_games_follow_the_rules() {
    check_games("tournament", Rules::preset("tournament"), GAMES);
}

#[test]
fn board_4_games_follow_the_rules() {
    check_games("board-4", Rules::preset("board-4"), GAMES);
}

#[test]
fn suicide_games_follow_the_rules() {
    let seen = check_games("suicide", Rules::preset("suicide"), GAMES).seen;
    assert!(seen.blind_nils > 100, "blind nils: {}", seen.blind_nils);
}

#[test]
fn whiz_games_follow_the_rules() {
    check_games("whiz", Rules::preset("whiz"), GAMES);
}

#[test]
fn mirror_games_follow_the_rules() {
    let seen = check_games("mirror", Rules::preset("mirror"), GAMES).seen;
    assert_eq!(seen.blind_nils, 0);
}

#[test]
fn ten_for_two_hundred_games_follow_the_rules() {
    let seen = check_games("ten-for-two-hundred", Rules::preset("ten-for-two-hundred"), GAMES).seen;
    assert!(
        seen.ten_for_two_hundred > 100,
        "contracts of ten: {}",
        seen.ten_for_two_hundred
    );
    assert!(seen.moons > 100, "contracts of thirteen: {}", seen.moons);
}

#[test]
fn bags_5_games_follow_the_rules() {
    let seen = check_games("bags-5", Rules::preset("bags-5"), GAMES).seen;
    assert!(seen.bag_penalties > 100, "bag penalties: {}", seen.bag_penalties);
}

#[test]
fn minus_bags_games_follow_the_rules() {
    check_games("minus-bags", Rules::preset("minus-bags"), GAMES);
}

#[test]
fn nil_50_games_follow_the_rules() {
    check_games("nil-50", Rules::preset("nil-50"), GAMES);
}

#[test]
fn no_nil_games_follow_the_rules() {
    let seen = check_games("no-nil", Rules::preset("no-nil"), GAMES).seen;
    assert_eq!(seen.nils, 0);
}

#[test]
fn two_of_clubs_games_follow_the_rules() {
    check_games("two-of-clubs", Rules::preset("two-of-clubs"), GAMES);
}

#[test]
fn dealer_leads_games_follow_the_rules() {
    let seen = check_games("dealer-leads", Rules::preset("dealer-leads"), GAMES).seen;
    assert!(
        seen.trumps_led_early > 100,
        "spades led unbroken: {}",
        seen.trumps_led_early
    );
}

#[test]
fn jokers_games_follow_the_rules() {
    let seen = check_games("jokers", Rules::preset("jokers"), GAMES).seen;
    assert!(seen.jokers_played > 1000, "jokers played: {}", seen.jokers_played);
}

#[test]
fn deuce_high_games_follow_the_rules() {
    check_games("deuce-high", Rules::preset("deuce-high"), GAMES);
}

#[test]
fn solo_games_follow_the_rules() {
    let seen = check_games("solo", Rules::preset("solo"), GAMES).seen;
    assert!(seen.blind_nils > 100, "blind nils: {}", seen.blind_nils);
    assert_eq!(seen.passes, 0);
}

#[test]
fn three_player_games_follow_the_rules() {
    let checker = check_games("three-player", Rules::preset("three-player"), GAMES);
    assert!(checker.seen.nils > 100, "nils: {}", checker.seen.nils);
    assert_eq!(checker.seen.passes, 0);
}

/// Three players with the jokers hold 18 cards each, and a moon is all 18.
#[test]
fn three_player_games_with_jokers_follow_the_rules() {
    let spec = r#"{"preset":"three-player","deck":"jokers","moon":true,"boston_wins":true}"#;
    let expected = Rules {
        pack: rules::Pack::Jokers,
        moon: true,
        boston_wins: true,
        ..Rules::preset("three-player")
    };
    let seen = check_games(spec, expected, 1_000).seen;
    assert!(seen.jokers_played > 1000, "jokers played: {}", seen.jokers_played);
}

#[test]
fn new_york_games_follow_the_rules() {
    let seen = check_games("new-york", Rules::preset("new-york"), GAMES).seen;
    assert_eq!(seen.nils + seen.blind_nils, 0);
    assert!(seen.team_blinds > 1000, "team blind bids: {}", seen.team_blinds);
    assert!(
        seen.team_blinds_made > 50,
        "team blind bids made: {}",
        seen.team_blinds_made
    );
    assert!(seen.jokers_played > 1000, "jokers played: {}", seen.jokers_played);
    assert!(
        seen.trump_diamond_twos > 1000,
        "trump twos of diamonds played: {}",
        seen.trump_diamond_twos
    );
    assert_eq!(seen.most_team_bid, 10, "a team bid its maximum");
}

/// The pack the `new-york` preset dealt before it took the rule book's,
/// both red twos out and no team maximum (as stored games of it were
/// played), chosen by name.
#[test]
fn new_york_with_its_old_pack_follows_the_rules() {
    let spec = r#"{"preset":"new-york","deck":"new_york","max_team_bid":null}"#;
    let expected = Rules {
        pack: rules::Pack::NewYork,
        max_team_bid: None,
        ..Rules::preset("new-york")
    };
    let seen = check_games(spec, expected, 1_000).seen;
    assert!(seen.jokers_played > 1000, "jokers played: {}", seen.jokers_played);
    assert_eq!(seen.trump_diamond_twos, 0);
}

/// Team blind bids from any score, doubled when set, beside blind nil and
/// a team minimum.
#[test]
fn team_blind_bids_from_any_score_follow_the_rules() {
    let spec = r#"{"team_blind":7,"team_blind_min_deficit":0,"min_team_bid":3}"#;
    let expected = Rules {
        team_blind: 7,
        team_blind_min_deficit: 0,
        min_team_bid: 3,
        ..Rules::classic()
    };
    let seen = check_games(spec, expected, 2_000).seen;
    assert!(seen.team_blinds > 1000, "team blind bids: {}", seen.team_blinds);
    assert!(seen.blind_nils > 100, "blind nils: {}", seen.blind_nils);
}

#[test]
fn the_checker_knows_every_preset_the_server_offers() {
    let output = Command::new(env!("CARGO_BIN_EXE_spades"))
        .args(["simulate", "--rules", "none-such"])
        .output()
        .unwrap();
    let message = String::from_utf8_lossy(&output.stderr);
    let listed = message
        .split("use one of ")
        .nth(1)
        .and_then(|rest| rest.split(", or").next())
        .unwrap_or_else(|| panic!("a list of presets: {message}"));
    let names: Vec<&str> = listed.split(", ").map(str::trim).collect();
    assert_eq!(names, PRESETS);
}

/// New York's scoring and play without its pack and team blind bids: a team
/// minimum of 4, no nil, at most two overtricks, ten for 200, two sets in a
/// row lose, a Boston wins, the first hand unbid, and spades free from the
/// fourth trick.
#[test]
fn house_rules_outside_the_presets_follow_the_rules() {
    let spec = r#"{"preset":"board-4","nil":false,"blind_nil":false,"max_overtricks":2,
        "ten_for_two_hundred":true,"sets_to_lose":2,"boston_wins":true,"unbid_first_hand":true,
        "spades_lead":"from_fourth_trick","deck":"jokers"}"#;
    let expected = Rules {
        min_team_bid: 4,
        nil: false,
        blind_nil: false,
        max_overtricks: Some(2),
        ten_for_two_hundred: true,
        sets_to_lose: Some(2),
        boston_wins: true,
        unbid_first_hand: true,
        spades_lead: rules::SpadesLead::FromFourthTrick,
        pack: rules::Pack::Jokers,
        ..Rules::classic()
    };
    let seen = check_games(spec, expected, 2_000).seen;
    assert_eq!(seen.unbid_hands, 2_000);
    assert!(
        seen.overtrick_sets > 100,
        "sets for overtricks: {}",
        seen.overtrick_sets
    );
    assert!(
        seen.sets_in_a_row > 100,
        "games lost to sets in a row: {}",
        seen.sets_in_a_row
    );
    assert!(
        seen.trumps_led_early > 100,
        "spades led unbroken after the third trick: {}",
        seen.trumps_led_early
    );

    // The exchange in both orders, nil only after a partner's number, the
    // double set and the moon, in a game with partners and in solo.
    let spec = r#"{"nil_after_partner":true,"pass_order":"simultaneous","nil_pass":1,
        "set_at_double":true,"moon":true,"bag_value":0}"#;
    let expected = Rules {
        nil_after_partner: true,
        simultaneous: true,
        nil_pass: 1,
        set_at_double: true,
        moon: true,
        bag_value: 0,
        ..Rules::classic()
    };
    let seen = check_games(spec, expected, 2_000).seen;
    assert!(seen.passes > 1000, "passes: {}", seen.passes);
    assert!(seen.double_sets > 100, "sets for doubling: {}", seen.double_sets);
    let spec = r#"{"preset":"solo","sets_to_lose":2,"max_hands":12,"mercy":-300}"#;
    let expected = Rules {
        sets_to_lose: Some(2),
        max_hands: Some(12),
        mercy: Some(-300),
        ..Rules::preset("solo")
    };
    let seen = check_games(spec, expected, 2_000).seen;
    assert!(
        seen.sets_in_a_row > 100,
        "games lost to sets in a row: {}",
        seen.sets_in_a_row
    );
}

#[test]
fn a_seed_replays_the_same_log_and_another_seed_differs() {
    let a = simulate(&["--games", "20", "--seed", "5"]);
    let b = simulate(&["--games", "20", "--seed", "5"]);
    let c = simulate(&["--games", "20", "--seed", "6"]);
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn a_file_output_equals_standard_output() {
    let path = std::env::temp_dir().join(format!("spades-simulate-{}.jsonl", std::process::id()));
    let printed = simulate(&["--games", "5", "--seed", "9"]);
    let written = simulate(&["--games", "5", "--seed", "9", "--out", path.to_str().unwrap()]);
    assert!(written.is_empty());
    let file = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).ok();
    assert_eq!(file, printed);
}

#[test]
fn bad_arguments_are_refused_with_a_message() {
    for args in [
        &["--players", "random,random"][..],
        &["--players", "random,random,random,wizard"],
        &["--rules", "bridge"],
        &["--rules", r#"{"bidding":"whiz","min_team_bid":4}"#],
        &["--rules", "{not json"],
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_spades"))
            .arg("simulate")
            .args(args)
            .output()
            .unwrap();
        assert!(!output.status.success(), "{args:?} accepted");
        assert!(!output.stderr.is_empty());
    }
}

#[test]
fn the_arena_reports_a_duplicate_match() {
    let (report, _) = spades(&[
        "arena",
        "--players",
        "bot,random",
        "--pairs",
        "3",
        "--threads",
        "2",
    ]);
    assert!(
        report.starts_with("arena: bot against random on classic, 3 deal pairs (6 games"),
        "{report}"
    );
    for line in [
        "games won by bot: 100.0%",
        "points per hand on the same deals: bot +",
        "contracts made",
        "trumped the partner's best card",
        "decision time p50",
    ] {
        assert!(report.contains(line), "no {line:?} in {report}");
    }
}
