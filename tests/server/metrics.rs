//! `/metrics` while people play: every figure the README lists for
//! operators is there, and each one that counts what happens moves when it
//! happens.

use std::time::Duration;

use serde_json::json;
use spades_engine::Seat;
use spades_protocol::ws::{ClientMessage, RulesSpec};
use spades_server::Config;

use crate::support::api::Api;
use crate::support::*;

/// Every metric the README documents, by the name a scrape shows.
const DOCUMENTED: [&str; 23] = [
    "spades_connections",
    "spades_connections_max",
    "spades_connections_refused_total",
    "spades_connections_evicted_total",
    "spades_sockets_closed_total",
    "spades_rooms",
    "spades_games",
    "spades_hands_total",
    "spades_actions_total",
    "spades_action_seconds",
    "spades_messages_in_total",
    "spades_messages_out_total",
    "spades_errors_total",
    "spades_bot_thinking_seconds",
    "spades_strong_bot_busy_total",
    "spades_tournaments_running",
    "spades_journal_writes_total",
    "spades_journal_transactions_total",
    "spades_journal_batch_writes",
    "spades_journal_commit_wait_seconds",
    "spades_degraded",
    "spades_store_pool_connections",
    "spades_store_pool_idle",
];

/// One scrape: each sample's name (with its labels) and value.
pub(crate) struct Scrape(String);

impl Scrape {
    pub(crate) async fn take(api: &Api) -> Scrape {
        let answer = api.get("/metrics", None).await.expect(200);
        let kind = answer.header("content-type").unwrap_or_default().to_string();
        assert!(kind.starts_with("application/openmetrics-text"), "{kind}");
        Scrape(answer.body)
    }

    /// The sum of the samples whose name, labels aside, is `name`.
    pub(crate) fn value(&self, name: &str) -> f64 {
        self.0
            .lines()
            .filter(|line| !line.starts_with('#'))
            .filter_map(|line| {
                let (sample, value) = line.rsplit_once(' ')?;
                let bare = sample.split('{').next()?;
                (bare == name).then(|| value.parse::<f64>().ok()).flatten()
            })
            .sum()
    }

    /// Whether the scrape has samples of `name` (a histogram's by its
    /// count).
    fn has(&self, name: &str) -> bool {
        [name.to_string(), format!("{name}_count")].iter().any(|sample| {
            self.0
                .lines()
                .any(|line| line.split([' ', '{']).next() == Some(sample.as_str()))
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_figure_an_operator_watches_moves_while_people_play() {
    let server = TestServer::start(Config {
        bot_time: Duration::from_millis(5),
        ..Config::default()
    })
    .await;
    let api = server.api();
    let before = Scrape::take(&api).await;
    for name in DOCUMENTED {
        assert!(before.has(name), "{name} is missing:\n{}", before.0);
    }
    assert!(before.value("spades_connections_max") > 0.0);
    assert_eq!(before.value("spades_degraded"), 0.0);
    assert!(before.value("spades_store_pool_connections") >= 1.0);

    // Three people and a bot play a short game; one of them first tries
    // to play out of turn.
    let mut players = Vec::new();
    for name in ["North", "East", "South"] {
        players.push(Player::connect(&server.url, name).await);
    }
    let tournament_rules = RulesSpec {
        preset: Some(spades_engine::Preset::Tournament),
        ..RulesSpec::default()
    };
    let code = players[0].create_room(tournament_rules, false).await;
    for (seat, player) in players.iter_mut().enumerate() {
        if seat > 0 {
            player.join_room(&code).await;
        }
        player.sit(seat as u8).await;
    }
    let seat = Seat::new(3);
    players[0]
        .request(|id| ClientMessage::AddBot {
            id,
            seat,
            level: None,
        })
        .await
        .expect("a bot sits down");
    players[0].start_game().await;
    assert!(
        players[1].try_play("2C").await.is_err(),
        "nobody plays during the bidding"
    );

    let during = Scrape::take(&api).await;
    assert!(during.value("spades_connections") >= 3.0);
    assert!(during.value("spades_rooms") >= 1.0);
    assert_eq!(during.value("spades_games"), 1.0);
    assert!(during.value("spades_errors_total") > before.value("spades_errors_total"));

    play_games(&mut players, &mut [], 1, GAME_DEADLINE).await;
    let after = Scrape::take(&api).await;
    for name in [
        "spades_hands_total",
        "spades_actions_total",
        "spades_action_seconds_count",
        "spades_action_seconds_sum",
        "spades_messages_in_total",
        "spades_messages_out_total",
        "spades_bot_thinking_seconds_count",
        "spades_journal_writes_total",
        "spades_journal_transactions_total",
        "spades_journal_batch_writes_count",
        "spades_journal_commit_wait_seconds_count",
    ] {
        assert!(
            after.value(name) > before.value(name),
            "{name} did not move: {} then {}",
            before.value(name),
            after.value(name)
        );
    }
    assert_eq!(after.value("spades_games"), 0.0, "the game is over");
    // Each action a person sent was timed; the bot's and the clock's were not.
    assert!(after.value("spades_action_seconds_count") < after.value("spades_actions_total"));

    // A tournament with one person who never comes to his table runs
    // until the clock has played his seat out.
    let organizer = api.account("Organiser").await;
    server.make_admin("Organiser");
    let created = api
        .create_tournament(&organizer.token, json!({"name": "Cup", "max_players": 4}))
        .await
        .expect(201);
    let id = created.value()["id"].as_str().unwrap().to_string();
    api.enter(&organizer.token, &id).await.expect(201);
    api.add_bots(&organizer.token, &id, 3).await.expect(204);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        if Scrape::take(&api).await.value("spades_tournaments_running") >= 1.0 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the tournament never counted as running"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
