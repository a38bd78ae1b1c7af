//! `spades simulate` as a user runs it: which players it accepts, and how
//! the binary reports a failed command.

use std::process::{Command, Output};

fn spades(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spades"))
        .args(args)
        // As set on many developers' machines: it must not turn a user's
        // mistake into a page of stack frames.
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("spades runs")
}

#[test]
fn simulate_plays_three_player_games_with_three_players() {
    let output = spades(&[
        "simulate",
        "--games",
        "2",
        "--rules",
        "three-player",
        "--players",
        "bot,bot,strong",
        "--samples",
        "4",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    // Each of the three players is a team of his own, and there is no fourth.
    for team in ["team 0 (bot)", "team 1 (bot)", "team 2 (strong)"] {
        assert!(stderr.contains(team), "{team} missing from: {stderr}");
    }
    assert!(!stderr.contains("team 3"), "{stderr}");
    let hands = String::from_utf8_lossy(&output.stdout).lines().count();
    assert!(hands >= 2, "two games wrote {hands} hand lines");
}

#[test]
fn a_failed_command_says_why_on_one_line_without_a_backtrace() {
    let output = spades(&["simulate", "--players", "bot,bot"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "error: --players needs 4 players for these rules, one per seat, not 2\n"
    );
    let output = spades(&[
        "simulate",
        "--rules",
        "three-player",
        "--players",
        "bot,bot,bot,bot,bot",
    ]);
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "error: --players needs 3 players for these rules, one per seat, not 5\n"
    );
}
