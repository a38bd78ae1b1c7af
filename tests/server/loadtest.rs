//! `spades loadtest` against a real server: how it reports its runs, and
//! how it stays within the server's limits per address.

use std::process::Command;
use std::time::Duration;

use crate::durability::{ServerProcess, free_port};
use crate::support::*;

async fn start(command: Command) -> ServerProcess {
    ServerProcess::start_with(command, &fresh_database(), free_port()).await
}

/// Runs `spades loadtest` against `url` with `args`, within a minute.
async fn run_loadtest(url: &str, args: &[&str]) -> std::process::Output {
    let mut loadtest = Command::new(env!("CARGO_BIN_EXE_spades"));
    loadtest
        .args(["loadtest", "--server", url])
        .args(args)
        .stdin(std::process::Stdio::null());
    tokio::time::timeout(
        Duration::from_secs(60),
        tokio::task::spawn_blocking(move || loadtest.output()),
    )
    .await
    .expect("the load test neither stopped nor finished")
    .unwrap()
    .expect("the load test runs")
}

/// The report of a load test that must have succeeded.
fn report_of(output: &std::process::Output) -> String {
    let report = String::from_utf8_lossy(&output.stdout).into_owned();
    let errors = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{report}\n{errors}");
    report
}

/// A server without limits per address, as a load test from one address
/// needs; with `unthrottled`, nor a message rate a table at think 0 passes.
async fn start_without_limits(unthrottled: bool) -> ServerProcess {
    let mut command = Command::new(env!("CARGO_BIN_EXE_spades"));
    command
        .env("SPADES_MAX_CONNECTIONS_PER_ADDRESS", "0")
        .env("SPADES_MAX_SOCKETS_PER_ADDRESS", "0");
    if unthrottled {
        command
            .env("SPADES_MESSAGE_RATE", "1000000")
            .env("SPADES_MESSAGE_BURST", "1000000");
    }
    start(command).await
}

#[tokio::test]
async fn the_load_test_names_the_setting_that_turns_it_away() {
    let mut command = Command::new(env!("CARGO_BIN_EXE_spades"));
    command.env("SPADES_MAX_CONNECTIONS_PER_ADDRESS", "3");
    let server = start(command).await;
    // One table is four clients from one address, one past the cap.
    let output = run_loadtest(&server.url(), &["--tables", "1", "--duration", "1"]).await;
    let errors = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{errors}");
    assert!(
        errors.contains("too_many_connections") && errors.contains("--max-connections-per-address 0"),
        "{errors}"
    );
}

/// A load test that connects from several local addresses shares its
/// clients among them, so that each stays within the server's limit per
/// address: two tables from one address would be eight connections, over
/// the limit of four, but from two addresses they are four each.
#[tokio::test]
async fn a_load_test_from_two_source_addresses_stays_within_the_limit_of_each() {
    let mut command = Command::new(env!("CARGO_BIN_EXE_spades"));
    command.env("SPADES_MAX_CONNECTIONS_PER_ADDRESS", "4");
    let server = start(command).await;
    let args = [
        "--tables",
        "2",
        "--duration",
        "1",
        "--syscalls",
        "0",
        "--floor",
        "0",
    ];
    let alone = run_loadtest(&server.url(), &args).await;
    assert!(
        !alone.status.success(),
        "eight connections from one address are refused"
    );
    let sources = [&args[..], &["--source", "127.0.0.1,127.0.0.2"]].concat();
    let output = run_loadtest(&server.url(), &sources).await;
    let report = report_of(&output);
    assert!(report.contains("tables 2 (8 connections)"), "{report}");
    assert!(report.contains("\nerrors 0\n"), "{report}");
}

/// A short load test of two tables runs to its report: think times spread
/// around the mean, tables started over the stagger, no error, and the
/// server's CPU per hand or per action, split into user and system time.
#[tokio::test]
async fn a_short_load_test_reports_its_pace_and_the_cpu_per_action() {
    let server = start_without_limits(false).await;
    let output = run_loadtest(
        &server.url(),
        &[
            "--tables",
            "2",
            "--duration",
            "2",
            "--think",
            "20",
            "--stagger",
            "0.5",
            "--think-spread",
            "0.5",
            "--syscalls",
            "0",
            "--floor",
            "0",
        ],
    )
    .await;
    let report = report_of(&output);
    assert!(
        report.contains("think 20 ms ± 50%, started over 0.5 s"),
        "{report}"
    );
    assert!(report.contains("\nerrors 0\n"), "{report}");
    assert!(
        report.contains("\nmoments the load generator itself was over 50 ms late: "),
        "{report}"
    );
    // The server's own account, read from its /metrics while measuring:
    // a server that lacked the figures would get another line.
    assert!(
        report.contains("\nthe server's runtime over 50 ms late: "),
        "{report}"
    );
    assert!(
        report.contains(" rooms that waited over 51.2 ms for the store: "),
        "{report}"
    );
    let actions: u64 = report
        .lines()
        .find_map(|line| line.strip_prefix("actions "))
        .and_then(|rest| rest.split(':').next())
        .and_then(|count| count.parse().ok())
        .expect("an actions line");
    assert!(actions > 20, "{report}");
    // The same actions, apart by kind.
    let by_kind: Vec<u64> = [
        "  bids, looks and passes: ",
        "  plays but a hand's last: ",
        "  a hand's last play: ",
    ]
    .iter()
    .map(|kind| {
        report
            .lines()
            .find_map(|line| line.strip_prefix(kind))
            .and_then(|rest| rest.split(' ').next())
            .and_then(|count| count.parse().ok())
            .unwrap_or_else(|| panic!("a line for {kind:?}: {report}"))
    })
    .collect();
    assert_eq!(by_kind.iter().sum::<u64>(), actions, "{report}");
    assert!(by_kind[0] > 0 && by_kind[1] > 0, "{report}");
    // The server's line: CPU per hand (when a hand ended) and per action,
    // then the same for user and for system time.
    let server_line = report
        .lines()
        .find(|line| line.starts_with("server pid"))
        .unwrap_or_else(|| panic!("the server's CPU line: {report}"));
    assert!(server_line.contains("µs per action; user "), "{server_line}");
    assert!(server_line.contains("µs per action, system "), "{server_line}");
}

/// At think 0 the load test goes on after the measured run: it counts the
/// server's system calls (where `perf` may), then measures the floor of
/// the run's traffic and compares the server's CPU per hand with it.
#[tokio::test]
async fn a_load_test_compares_the_server_with_the_floor_of_its_traffic() {
    let server = start_without_limits(true).await;
    let output = run_loadtest(
        &server.url(),
        &[
            "--tables",
            "2",
            "--duration",
            "3",
            "--think",
            "0",
            "--stagger",
            "0",
            "--syscalls",
            "1",
            "--floor",
            "2",
        ],
    )
    .await;
    let report = report_of(&output);
    assert!(report.contains("\nerrors 0\n"), "{report}");
    // Either perf counted the calls, or the report says why not.
    assert!(
        report.contains("server system calls per hand (perf, ")
            || report.contains("server system calls: not counted"),
        "{report}"
    );
    // A hand is at least 4 bids and 52 cards from the clients, and every
    // one of them is confirmed to four connections. The frames and the
    // hands are counted over the measured seconds, so a hand under way when
    // measuring began counts whole with only part of its frames: with a few
    // dozen hands that puts the mean a little under 56.
    let traffic = report
        .lines()
        .find_map(|line| line.strip_prefix("traffic per hand: "))
        .unwrap_or_else(|| panic!("a traffic line: {report}"));
    let requests: f64 = traffic.split(' ').next().unwrap().parse().unwrap();
    assert!((50.0..70.0).contains(&requests), "{traffic}");
    let floor = report
        .lines()
        .find_map(|line| line.strip_prefix("floor: "))
        .unwrap_or_else(|| panic!("a floor line: {report}"));
    let hands: f64 = floor
        .split(" over ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|hands| hands.parse().ok())
        .unwrap_or_else(|| panic!("the floor's hands: {floor}"));
    assert!(hands >= 1.0, "{floor}");
    assert!(floor.contains("times the floor"), "{floor}");
}

/// At a human pace a count of system calls often sees no hand end: the
/// load test then counts per action, and gives that at the run's actions
/// per hand. `perf` must be able to trace the server here (CI installs it).
#[tokio::test]
async fn a_paced_load_test_counts_system_calls_per_action() {
    let server = start(Command::new(env!("CARGO_BIN_EXE_spades"))).await;
    // A hand at this pace takes half a minute; the run and its count take
    // four seconds.
    let output = run_loadtest(
        &server.url(),
        &[
            "--tables",
            "2",
            "--duration",
            "3",
            "--think",
            "300",
            "--stagger",
            "0",
            "--syscalls",
            "1",
            "--floor",
            "0",
        ],
    )
    .await;
    let report = report_of(&output);
    let calls = report
        .lines()
        .find(|line| line.starts_with("server system calls"))
        .unwrap_or_else(|| panic!("a line for the system calls: {report}"));
    assert!(calls.contains("no hand ended while it counted): "), "{calls}");
    // Every action wakes the server at least to read it and to send its
    // confirmation to four connections.
    let per_action: f64 = calls
        .split("no hand ended while it counted): ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|number| number.parse().ok())
        .unwrap_or_else(|| panic!("calls per action: {calls}"));
    assert!(per_action >= 5.0, "{calls}");
}
