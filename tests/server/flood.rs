//! Floods of registrations and logins: the tables keep their pace, the
//! requests beyond what the hashing threads can take are refused `busy`,
//! and a crowd guessing at one name locks nobody out.

use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

use spades_server::{Config, PasswordCost, Server};

use crate::support::api::PASSWORD;
use crate::support::*;

/// A password cost that keeps a hashing thread busy for tens of
/// milliseconds, as the real one does, so that a few dozen clients fill
/// the hashing queue. Unoptimised, Argon2 is about ten times as slow.
fn real_cost() -> PasswordCost {
    if cfg!(debug_assertions) {
        PasswordCost {
            memory_kib: 4 * 1024,
            iterations: 1,
        }
    } else {
        PasswordCost {
            memory_kib: 19 * 1024,
            iterations: 2,
        }
    }
}

/// Held by each test of this file while it runs, so that two floods do not
/// share the machine's cores and blur each other's measurements.
static ONE_FLOOD_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

async fn start(config: Config) -> TestServer {
    let config = Config {
        database_url: fresh_database(),
        password_cost: real_cost(),
        ..config
    };
    let server = Server::start(config, "127.0.0.1:0".parse().unwrap())
        .await
        .expect("the server starts");
    let url = format!("ws://{}/ws", server.local_addr());
    TestServer { server, url }
}

/// The `n`th of the flood's client addresses (Linux routes all of 127/8
/// to the loopback interface), apart from the players' 127.0.0.1.
fn flooder(n: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 1, n))
}

/// The times from each action to the first message that follows it, and
/// the longest the table went without an action, while `players` play for
/// `within`.
struct Pace {
    waits: Vec<Duration>,
    longest_still: Duration,
}

impl Pace {
    fn p99(&self) -> Duration {
        let mut waits = self.waits.clone();
        waits.sort();
        waits
            .get((waits.len() * 99).div_ceil(100).saturating_sub(1))
            .copied()
            .unwrap_or_default()
    }
}

/// Plays on for `within`, a new game whenever one ends, and measures how
/// long each action waits for the server's answer. Each player acts as
/// soon as asked, so the table's pace is the server's.
async fn play_for(players: &mut [Player], within: Duration) -> Pace {
    let started = Instant::now();
    let mut sent: Vec<Option<Instant>> = vec![None; players.len()];
    let mut waits = Vec::new();
    let mut last_action = Instant::now();
    let mut longest_still = Duration::ZERO;
    while started.elapsed() < within {
        let mut busy = false;
        for (n, player) in players.iter_mut().enumerate() {
            let games = player.table.games_over;
            if player.pump().await > 0 {
                busy = true;
                if let Some(at) = sent[n].take() {
                    waits.push(at.elapsed());
                }
            }
            if player.table.games_over > games && n == 0 {
                player.start_game().await;
            }
            if player.act_if_due().await {
                busy = true;
                sent[n] = Some(Instant::now());
                longest_still = longest_still.max(last_action.elapsed());
                last_action = Instant::now();
            }
        }
        if !busy {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }
    longest_still = longest_still.max(last_action.elapsed());
    Pace { waits, longest_still }
}

/// What a flood's requests were answered.
#[derive(Default, Debug)]
struct Answers {
    registered: u32,
    refused_busy: u32,
    wrong_password: u32,
}

/// Posts registrations, and with `logins` every third time a login at a
/// name that does not exist, from `clients` addresses, each as fast as it
/// is answered, for `within`.
async fn flood(server: &TestServer, clients: u8, logins: bool, within: Duration) -> Answers {
    let mut tasks = Vec::new();
    for n in 1..=clients {
        let api = Api::from_address(server.address(), flooder(n));
        tasks.push(tokio::spawn(async move {
            let started = Instant::now();
            let mut answers = Answers::default();
            let mut k = 0u32;
            while started.elapsed() < within {
                k += 1;
                let name = format!("flood{n}x{k}");
                let answer = if logins && k.is_multiple_of(3) {
                    api.login(&name, PASSWORD).await
                } else {
                    api.register(&name, PASSWORD).await
                };
                match answer.status {
                    201 => answers.registered += 1,
                    401 => answers.wrong_password += 1,
                    503 => {
                        assert_eq!(answer.error(), (503, "busy".to_string()));
                        let wait = answer.header("retry-after").and_then(|v| v.parse::<u64>().ok());
                        assert!(wait.is_some_and(|wait| wait >= 1), "{:?}", answer.headers);
                        answers.refused_busy += 1;
                    }
                    _ => panic!("a flood request was answered {}: {}", answer.status, answer.body),
                }
            }
            answers
        }));
    }
    let mut all = Answers::default();
    for task in tasks {
        let answers = task.await.expect("a flooding client panicked");
        all.registered += answers.registered;
        all.refused_busy += answers.refused_busy;
        all.wrong_password += answers.wrong_password;
    }
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_keeps_its_pace_while_passwords_are_turned_away() {
    let _alone = ONE_FLOOD_AT_A_TIME.lock().await;
    let config = Config {
        // The flood's logins are failures at names that do not exist; the
        // limits on failures are not what this test is about.
        login_failures_per_account: 10_000,
        login_failures_per_address: 10_000,
        ..Config::default()
    };
    let server = start(config).await;
    let (mut players, _) = four_in_a_game(&server.url).await;
    let before = play_for(&mut players, Duration::from_secs(2)).await;

    let flooding = flood(&server, 48, true, Duration::from_secs(4));
    let playing = play_for(&mut players, Duration::from_secs(4));
    let (answers, during) = tokio::join!(flooding, playing);

    eprintln!(
        "before the flood: {} actions, p99 {:?}; during it: {} actions, p99 {:?}, longest without an action {:?}; \
         the flood: {answers:?}",
        before.waits.len(),
        before.p99(),
        during.waits.len(),
        during.p99(),
        during.longest_still,
    );
    assert!(
        answers.refused_busy > 0,
        "the flood never filled the hashing queue: {answers:?}"
    );
    assert!(answers.registered > 0, "no registration got through: {answers:?}");
    // The players share the test's two threads with the flood's clients,
    // so how many actions they make says as much of the test as of the
    // server; that the table never stops is what counts.
    assert!(
        during.waits.len() >= 4,
        "the table made {} actions in 4 s of flood",
        during.waits.len()
    );
    assert!(
        during.longest_still < Duration::from_secs(1),
        "the table went {:?} without an action",
        during.longest_still
    );
    assert!(
        during.p99() < Duration::from_millis(250),
        "actions waited {:?} (p99) for their answer during the flood",
        during.p99()
    );
}

/// Logs in until the server says yes, retrying after `busy` as its
/// `Retry-After` allows (shortened, to keep the test short); fails the test
/// on any other answer. Returns how many `busy` refusals it took.
async fn log_in_through(api: &Api, name: &str, password: &str) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut busy = 0;
    loop {
        let answer = api.login(name, password).await;
        match answer.status {
            200 => return busy,
            503 if answer.error().1 == "busy" => busy += 1,
            _ => panic!("{name} was answered {}: {}", answer.status, answer.body),
        }
        assert!(
            Instant::now() < deadline,
            "{name} was still refused busy after {busy} tries"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crowd_guessing_at_a_name_locks_out_neither_its_owner_nor_anyone_else() {
    let _alone = ONE_FLOOD_AT_A_TIME.lock().await;
    let server = start(Config::default()).await;
    let home = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1));
    let elsewhere = IpAddr::V4(Ipv4Addr::new(127, 0, 3, 1));
    let owner = Api::from_address(server.address(), home);
    let bystander = Api::from_address(server.address(), elsewhere);
    assert_eq!(owner.register("Owner", "the owner's password").await.status, 201);
    assert_eq!(owner.register("Bystander", "another password").await.status, 201);
    // The owner has logged in from home before; the bystander has never
    // logged in from where he is now.
    assert_eq!(log_in_through(&owner, "Owner", "the owner's password").await, 0);

    // Forty addresses guess six times each at the owner's password, all
    // at once, while others keep the hashing queue full with
    // registrations, and the owner and the bystander log in again and
    // again meanwhile.
    let mut guessers = Vec::new();
    for n in 1..=40 {
        let api = Api::from_address(server.address(), flooder(n));
        guessers.push(tokio::spawn(async move {
            let mut busy = 0;
            for k in 0..6 {
                let answer = api.login("owner", &format!("guess number {k}")).await;
                match answer.error() {
                    (401, code) if code == "bad_credentials" => {}
                    (429, code) if code == "too_many_attempts" => {}
                    (503, code) if code == "busy" => busy += 1,
                    other => panic!("a guess was answered {other:?}"),
                }
            }
            busy
        }));
    }
    let flood_for = Duration::from_secs(5);
    let flooding = flood(&server, 48, false, flood_for);
    let logging_in = async {
        let started = Instant::now();
        // From the moment the queue is full.
        tokio::time::sleep(Duration::from_secs(1)).await;
        let (mut owner_busy, mut bystander_busy, mut rounds) = (0, 0, 0);
        while started.elapsed() < flood_for {
            let (owner_tries, bystander_tries) = tokio::join!(
                log_in_through(&owner, "Owner", "the owner's password"),
                log_in_through(&bystander, "Bystander", "another password"),
            );
            owner_busy += owner_tries;
            bystander_busy += bystander_tries;
            rounds += 1;
        }
        (owner_busy, bystander_busy, rounds)
    };
    let (answers, (owner_busy, bystander_busy, rounds)) = tokio::join!(flooding, logging_in);
    let mut guesses_busy = 0;
    for guesser in guessers {
        guesses_busy += guesser.await.expect("a guesser panicked");
    }
    eprintln!(
        "guesses refused busy: {guesses_busy}; registrations: {answers:?}; in {rounds} rounds of logins, \
         the owner's refused busy: {owner_busy}, the bystander's: {bystander_busy}"
    );
    assert!(answers.refused_busy > 0, "the hashing queue was never full");
    // The owner's logins from home wait in a lane of their own.
    assert_eq!(owner_busy, 0, "the owner was refused busy");
    // Once the crowd has stopped, both log in at the first try.
    assert_eq!(log_in_through(&owner, "Owner", "the owner's password").await, 0);
    assert_eq!(
        log_in_through(&bystander, "Bystander", "another password").await,
        0
    );
}
