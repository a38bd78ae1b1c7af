//! Verifiable deals: every connection gets a commitment to the seed when a
//! game starts, nothing before the end gives the seed away, the seed comes
//! with the finished game's history, and `spades verify` accepts the true
//! history and refuses a changed one, naming the hand.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use sha2::{Digest, Sha256};
use spades_engine::Preset;
use spades_protocol::event::EventKind;
use spades_server::Config;
use tokio_tungstenite::tungstenite::Message;

use crate::support::*;

/// A spectator that keeps every text frame exactly as the server sent it,
/// so that nothing the typed client leaves out when parsing escapes the
/// search for the seed.
struct RawSpectator {
    frames: Vec<String>,
    socket: tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
}

impl RawSpectator {
    async fn join(url: &str, room: &str) -> RawSpectator {
        let (socket, _) = tokio_tungstenite::connect_async(url).await.expect("connects");
        let mut spectator = RawSpectator {
            frames: Vec::new(),
            socket,
        };
        for text in [
            r#"{"type":"hello","id":1,"version":1,"name":"Spy"}"#.to_string(),
            format!(r#"{{"type":"join_room","id":2,"room":"{room}"}}"#),
        ] {
            spectator
                .socket
                .send(Message::Text(text.into()))
                .await
                .expect("sent");
        }
        spectator
    }

    /// Reads what has come, waiting at most `wait` for each frame.
    async fn read(&mut self, wait: Duration) {
        while let Ok(Some(Ok(message))) = tokio::time::timeout(wait, self.socket.next()).await {
            if let Message::Text(text) = message {
                self.frames.push(text.to_string());
            }
        }
    }
}

fn commitment_of(game_id: &str, seed: &str) -> String {
    let digest = Sha256::digest(format!("spades-deal-v1:{game_id}:{seed}"));
    digest.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// What each client was sent with `game_started`: the game's id and the
/// commitment.
fn started(player: &Player) -> (String, String) {
    player
        .received
        .iter()
        .find_map(|message| match message.event() {
            Some(EventKind::GameStarted {
                game_id,
                deal_commitment,
                ..
            }) => Some((game_id.clone(), deal_commitment.clone())),
            _ => None,
        })
        .expect("the game started")
}

/// Runs `spades verify ARGS`: whether it succeeded, and what it printed.
fn verify(args: &[&str]) -> (bool, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_spades"))
        .arg("verify")
        .args(args)
        .output()
        .expect("spades verify runs");
    let printed =
        String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), printed)
}

/// Writes a history (one JSON value per line) to a new file.
fn write_history(lines: &[Value], name: &str) -> String {
    let path = std::env::temp_dir().join(format!("spades-verify-{}-{name}.jsonl", std::process::id()));
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(&path, text).expect("written");
    path.display().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seed_is_secret_until_the_end_and_matches_the_commitment() {
    let server = TestServer::start(Config::default()).await;
    let mut players = four_players(&server.url).await;
    players[0].blind_nil = true;
    let code = seat_four(&mut players, blind_nil_rules()).await;
    let mut spy = RawSpectator::join(&server.url, &code).await;
    let mut lobbyist = Player::lobby_watcher(&server.url, "Lobbyist").await;
    players[1].start_game().await;
    for player in players.iter_mut() {
        player
            .until(Duration::from_secs(10), |player| {
                player
                    .received
                    .iter()
                    .any(|m| matches!(m.event(), Some(EventKind::GameStarted { .. })))
            })
            .await;
    }
    let (game_id, commitment) = started(&players[0]);
    assert_eq!(commitment.len(), 64, "a SHA-256 in hexadecimal: {commitment}");
    for player in &players {
        assert_eq!(started(player), (game_id.clone(), commitment.clone()));
    }
    // While the game is played the store gives the commitment, but neither
    // the seed nor the history.
    let during = server.api().game(&game_id).await;
    assert_eq!(during.deal_commitment, commitment);
    assert_eq!(during.seed, None);
    assert_eq!(server.api().history(&game_id).await.status, 409);

    play_games(&mut players, &mut [], 1, GAME_DEADLINE).await;
    spy.read(Duration::from_millis(300)).await;
    lobbyist.pump().await;
    let record = server.api().game(&game_id).await;
    let seed = record.seed.expect("the seed once the game is over");
    assert_eq!(record.deal_commitment, commitment);
    assert_eq!(
        commitment_of(&game_id, &seed),
        commitment,
        "the commitment is the seed's"
    );

    // Nothing sent before the end holds the seed, in decimal or in hex.
    let number: u64 = seed.parse().expect("a decimal seed");
    let forms = [
        seed.clone(),
        format!("{number:x}"),
        format!("{number:X}"),
        format!("{number:016x}"),
    ];
    let spied_until_end = spy
        .frames
        .iter()
        .take_while(|frame| !frame.contains(r#""type":"game_over""#))
        .cloned();
    assert!(
        spy.frames.iter().any(|frame| frame.contains(&commitment)),
        "the spectator got the commitment"
    );
    let typed = players.iter().chain([&lobbyist]).flat_map(|player| {
        player
            .received
            .iter()
            .take_while(|m| !matches!(m.event(), Some(EventKind::GameOver { .. })))
            .map(|m| serde_json::to_string(m).expect("serializes"))
    });
    let mut looked_at = 0;
    for text in spied_until_end.chain(typed) {
        looked_at += 1;
        for form in &forms {
            assert!(
                !text.contains(form.as_str()),
                "a message before the end holds the seed {form}: {text}"
            );
        }
    }
    assert!(looked_at > 200, "only {looked_at} messages were looked at");

    // The downloaded history checks out, against the commitment too.
    let history = server.api().history(&game_id).await;
    assert_eq!(history.status, 200, "{}", history.body);
    let lines: Vec<Value> = history
        .body
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    assert!(lines.len() >= 2, "a game of several hands");
    for line in &lines {
        assert_eq!(line["game_id"], game_id.as_str());
        assert_eq!(line["seed"], seed.as_str());
        assert_eq!(line["deal_commitment"], commitment.as_str());
    }
    let file = write_history(&lines, "true");
    let (ok, printed) = verify(&[&file, "--commitment", &commitment]);
    assert!(ok, "{printed}");
    assert!(printed.contains("verified"), "{printed}");
    refuse_changed_histories(&lines, &commitment);
    drop(server);
}

/// A changed history, what `spades verify` must say of it, and whether the
/// web page's check (which leaves the bids and scores to `spades verify`)
/// sees it too.
struct Changed {
    name: &'static str,
    lines: Vec<Value>,
    /// The commitment the player received, when the check is given it.
    received: Option<String>,
    expect: &'static str,
    hand: Option<u32>,
    seen_by_page: bool,
}

/// One card, one action or the seed changed: each is refused, and the
/// hand it shows in is named.
fn refuse_changed_histories(lines: &[Value], commitment: &str) {
    let cases = changed_histories(lines, commitment);
    for case in &cases {
        let file = write_history(&case.lines, case.name);
        let mut args = vec![file.as_str()];
        if let Some(received) = &case.received {
            args.extend(["--commitment", received]);
        }
        let (ok, printed) = verify(&args);
        assert!(!ok, "{}: the changed history was accepted: {printed}", case.name);
        assert!(
            printed.contains(case.expect),
            "{}: expected {:?} in {printed}",
            case.name,
            case.expect
        );
    }
    if std::env::var_os("SPADES_WRITE_FIXTURES").is_some() {
        write_fixtures(lines, commitment, &cases);
    }
}

fn changed_histories(lines: &[Value], commitment: &str) -> Vec<Changed> {
    let change = |name, change: &dyn Fn(&mut Vec<Value>), expect, hand| {
        let mut changed = lines.to_vec();
        change(&mut changed);
        Changed {
            name,
            lines: changed,
            received: None,
            expect,
            hand,
            seen_by_page: true,
        }
    };
    let wrong_seed = |lines: &mut Vec<Value>| {
        for line in lines {
            let number: u64 = line["seed"].as_str().unwrap().parse().unwrap();
            line["seed"] = Value::from((number ^ 1).to_string());
        }
    };
    let made_up = |lines: &mut Vec<Value>| {
        wrong_seed(lines);
        for line in lines {
            let made_up = commitment_of(line["game_id"].as_str().unwrap(), line["seed"].as_str().unwrap());
            line["deal_commitment"] = Value::from(made_up);
        }
    };
    vec![
        // A card dealt to seat 2 in hand 1 swapped with one of seat 3's.
        change(
            "dealt",
            &|lines| {
                let hands = lines[1]["hands"].as_array_mut().expect("hands");
                let (two, three) = (hands[2][0].clone(), hands[3][0].clone());
                hands[2][0] = three;
                hands[3][0] = two;
            },
            "hand 1: the cards of seat 2 are not the ones the seed dealt",
            Some(1),
        ),
        // One card of hand 0's last trick replaced by the card before it:
        // that player never held it at that moment.
        change(
            "played",
            &|lines| {
                let tricks = lines[0]["tricks"].as_array_mut().expect("tricks");
                let last = tricks.last_mut().expect("a trick");
                last["cards"][1] = last["cards"][0].clone();
            },
            "hand 0: trick 13:",
            Some(0),
        ),
        // A bid changed: the play is the same, its score is not.
        Changed {
            seen_by_page: false,
            ..change(
                "bid",
                &|lines| {
                    let first = &mut lines[1]["bids"][0]["bid"];
                    *first = Value::from(if first.as_u64() == Some(5) { 6 } else { 5 });
                },
                "hand 1:",
                Some(1),
            )
        },
        // A wrong seed does not match the commitment.
        change(
            "seed",
            &wrong_seed,
            "the seed does not match the commitment",
            None,
        ),
        // A wrong seed with a commitment made up for it fails against the
        // commitment the player received, and at the first deal without it.
        Changed {
            received: Some(commitment.to_string()),
            ..change("made-up", &made_up, "not the one received", None)
        },
        change("made-up-alone", &made_up, "hand 0:", Some(0)),
    ]
}

/// The directory of the histories that the web client's check is tested
/// on against `spades verify`'s verdicts.
fn fixtures() -> std::path::PathBuf {
    repository().join("web/test/fixtures/verify")
}

/// Writes the true history and the changed ones as the web client's test
/// fixtures, with the verdicts `spades verify` gives.
fn write_fixtures(lines: &[Value], commitment: &str, cases: &[Changed]) {
    std::fs::create_dir_all(fixtures()).expect("the fixtures' directory");
    let mut expected = vec![serde_json::json!({
        "file": "true.jsonl", "ok": true, "hand": null, "commitment": commitment, "js": true,
    })];
    let text = |lines: &[Value]| lines.iter().map(|line| format!("{line}\n")).collect::<String>();
    std::fs::write(fixtures().join("true.jsonl"), text(lines)).expect("written");
    for case in cases {
        let file = format!("{}.jsonl", case.name);
        std::fs::write(fixtures().join(&file), text(&case.lines)).expect("written");
        expected.push(serde_json::json!({
            "file": file, "ok": false, "hand": case.hand, "commitment": case.received, "js": case.seen_by_page,
        }));
    }
    let expected = serde_json::json!({ "cases": expected });
    std::fs::write(fixtures().join("expected.json"), format!("{expected:#}\n")).expect("written");
}

#[test]
fn the_web_clients_fixtures_get_their_verdicts_from_spades_verify() {
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("expected.json"))
            .expect("the fixtures (SPADES_WRITE_FIXTURES=1 writes them)"),
    )
    .expect("JSON");
    let cases = expected["cases"].as_array().expect("cases");
    assert!(cases.len() >= 6);
    for case in cases {
        let file = fixtures()
            .join(case["file"].as_str().unwrap())
            .display()
            .to_string();
        let mut args = vec!["--json", file.as_str()];
        if let Some(received) = case["commitment"].as_str() {
            args.extend(["--commitment", received]);
        }
        let (_, printed) = verify(&args);
        let verdict: Value = serde_json::from_str(printed.lines().next().unwrap_or_default())
            .unwrap_or_else(|_| panic!("{file}: {printed}"));
        assert_eq!(verdict["ok"], case["ok"], "{file}: {printed}");
        if case["ok"] == false {
            assert_eq!(verdict["hand"], case["hand"], "{file}: {printed}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_stored_game_of_a_run_is_verified() {
    // Two rooms of bots, one of three players, play whole games; each
    // game's stored history must pass.
    let server = TestServer::start(Config::default()).await;
    let mut owners = Vec::new();
    for (name, preset) in [("Ann", Preset::Classic), ("Ben", Preset::ThreePlayer)] {
        let owner = alone_with_bots(&server.url, name, preset, 3).await;
        owners.push(owner);
    }
    play_games(&mut owners, &mut [], 1, GAME_DEADLINE).await;
    let database = server.server.state().config().database_url.clone();
    drop(server);
    let (ok, printed) = verify(&["--stored", "--database", &database]);
    assert!(ok, "{printed}");
    assert_eq!(printed.matches("verified").count(), 2, "{printed}");
    let (ok, printed) = verify(&["--stored", "--json", "--database", &database]);
    assert!(ok, "{printed}");
    for line in printed.lines() {
        let verdict: Value = serde_json::from_str(line).expect("one JSON verdict per game");
        assert_eq!(verdict["ok"], true, "{verdict}");
        assert!(verdict["hands"].as_u64().unwrap() >= 1, "{verdict}");
    }
}
