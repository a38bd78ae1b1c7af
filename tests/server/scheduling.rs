//! The kernel's scheduling policy for the server's threads (`--scheduling`),
//! read back from `/proc` while the server plays a game.

use std::process::Command;

use crate::durability::{ServerProcess, free_port, play_into_hand};
use crate::support::{four_in_a_game, fresh_database};

const SCHED_OTHER: u32 = 0;
const SCHED_BATCH: u32 = 3;

/// The policy of each of the process's threads, by thread name: field 41 of
/// each thread's `stat` file.
fn policies(pid: u32) -> Vec<(String, u32)> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).expect("the server's threads are listed");
    tasks
        .map(|task| {
            let stat = std::fs::read_to_string(task.expect("a thread").path().join("stat")).expect("stat");
            // The name is in parentheses and may hold spaces; the state,
            // field 3, comes after it.
            let (name, rest) = stat.rsplit_once(')').expect("a name in parentheses");
            let name = name.split_once('(').map_or("", |(_, name)| name).to_string();
            let policy = rest
                .split_whitespace()
                .nth(41 - 3)
                .expect("41 fields")
                .parse()
                .expect("a number");
            (name, policy)
        })
        .collect()
}

/// Starts the server with `scheduling` in its environment (unset when
/// `None`), plays into a hand so that the journal's and the store's threads
/// are running, and returns every thread's policy.
async fn policies_while_playing(scheduling: Option<&str>) -> Vec<(String, u32)> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_spades"));
    command.env_remove("SPADES_SCHEDULING");
    if let Some(scheduling) = scheduling {
        command.env("SPADES_SCHEDULING", scheduling);
    }
    let server = ServerProcess::start_with(command, &fresh_database(), free_port()).await;
    let (mut players, _code) = four_in_a_game(&server.url()).await;
    play_into_hand(&mut players, 0, 8).await;
    let policies = policies(server.pid());
    assert!(
        policies.len() > 2,
        "a runtime worker, the journal and more: {policies:?}"
    );
    policies
}

#[tokio::test]
async fn every_thread_of_the_server_runs_batch_scheduled_by_default() {
    let policies = policies_while_playing(None).await;
    assert!(
        policies.iter().all(|(_, policy)| *policy == SCHED_BATCH),
        "every thread under SCHED_BATCH: {policies:?}"
    );
}

#[tokio::test]
async fn normal_scheduling_leaves_the_default_policy() {
    let policies = policies_while_playing(Some("normal")).await;
    assert!(
        policies.iter().all(|(_, policy)| *policy == SCHED_OTHER),
        "every thread under SCHED_OTHER: {policies:?}"
    );
}
