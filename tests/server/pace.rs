//! The table's pace: bots wait a varied, human time before they act, a
//! little longer after a trick, and a room's speed sets its turn clock.

use std::time::Duration;

use spades_engine::Seat;
use spades_protocol::event::EventKind;
use spades_protocol::ws::{BotLevel, ClientMessage, RulesSpec, ServerMessage, TableSpeed};
use spades_server::{BotDelay, Config};
use tokio::time::Instant;

use crate::support::*;

/// A pace short enough for a test and long enough to measure.
const DELAY: BotDelay = BotDelay {
    min: Duration::from_millis(150),
    max: Duration::from_millis(300),
    trick_pause: Duration::from_millis(400),
};

async fn create_room(player: &mut Player, speed: TableSpeed) -> Box<spades_protocol::ws::RoomState> {
    let reply = player
        .request(|id| ClientMessage::CreateRoom {
            id,
            name: None,
            rules: RulesSpec::default(),
            private: false,
            bots: Some(BotLevel::Basic),
            rated: false,
            speed,
        })
        .await
        .expect("room created");
    let ServerMessage::Snapshot { state, .. } = reply else {
        panic!("expected the room's state, got {reply:?}");
    };
    state
}

/// Seats the owner in seat 0 and bots in the other three, and starts the
/// game.
async fn start_with_bots(owner: &mut Player) {
    owner.sit(0).await;
    for _ in 0..3 {
        owner
            .request(|id| ClientMessage::AddBot {
                id,
                seat: None,
                level: None,
            })
            .await
            .expect("a bot is seated");
    }
    owner.start_game().await;
}

/// One card a bot played, when the owner heard of it, and whether it
/// led a trick after the first.
struct BotCard {
    at: Instant,
    after_trick: bool,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_wait_a_varied_human_time_and_longer_after_a_trick() {
    let server = TestServer::start_paced(Config {
        bot_delay: DELAY,
        ..Config::default()
    })
    .await;
    let mut owner = Player::connect(&server.url, "Owner").await;
    create_room(&mut owner, TableSpeed::Normal).await;
    start_with_bots(&mut owner).await;

    // The owner plays his own cards at once; every card of the bots is
    // timed from the event before it.
    let mut cards: Vec<BotCard> = Vec::new();
    let mut last_event = Instant::now();
    let mut played_in_hand = 0;
    let deadline = Instant::now() + Duration::from_secs(60);
    while owner.table.hands_scored == 0 {
        owner.act_if_due().await;
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "the hand did not end");
        let Some(message) = owner.client.try_recv(left).await.expect("connection open") else {
            continue;
        };
        let now = Instant::now();
        if let ServerMessage::Event(event) = &message {
            if let EventKind::CardPlayed { seat, .. } = &event.kind {
                if *seat != Seat::ALL[0] {
                    cards.push(BotCard {
                        at: now,
                        after_trick: played_in_hand > 0 && played_in_hand % 4 == 0,
                    });
                    // The wait is measured from the event that gave the
                    // bot its turn.
                    let wait = now - last_event;
                    let least = DELAY.min / 2
                        + if played_in_hand % 4 == 0 && played_in_hand > 0 {
                            DELAY.trick_pause
                        } else {
                            Duration::ZERO
                        };
                    assert!(
                        wait + Duration::from_millis(10) >= least,
                        "a bot played after {wait:?}, sooner than {least:?}"
                    );
                }
                played_in_hand += 1;
            }
            last_event = now;
        }
        owner.note(message);
    }
    assert!(cards.len() >= 39, "the bots played {} cards", cards.len());

    // Between two bots' cards in a row, away from a trick's end, the wait
    // varies within the bounds, as a person's does.
    let mut gaps: Vec<Duration> = cards
        .windows(2)
        .filter(|pair| !pair[1].after_trick)
        .map(|pair| pair[1].at - pair[0].at)
        .filter(|gap| *gap < DELAY.max * 2)
        .collect();
    gaps.sort();
    assert!(gaps.len() >= 10, "{gaps:?}");
    let median = gaps[gaps.len() / 2];
    assert!(
        median >= DELAY.min / 2 && median <= DELAY.max + Duration::from_millis(50),
        "the median wait is {median:?}: {gaps:?}"
    );
    assert!(
        gaps[gaps.len() - 1] - gaps[0] >= Duration::from_millis(30),
        "the waits do not vary: {gaps:?}"
    );
    let after_trick: Vec<Duration> = cards
        .windows(2)
        .filter(|pair| pair[1].after_trick)
        .map(|pair| pair[1].at - pair[0].at)
        .collect();
    assert!(
        after_trick.iter().all(|gap| *gap >= DELAY.trick_pause),
        "a bot led too soon after a trick: {after_trick:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rooms_speed_sets_its_clock_and_the_lobby_shows_it() {
    let server = TestServer::start(Config {
        turn_time: Duration::from_secs(20),
        ..Config::default()
    })
    .await;
    let mut watcher = Player::connect(&server.url, "Watcher").await;
    let expected = [
        (TableSpeed::Fast, 10),
        (TableSpeed::Normal, 20),
        (TableSpeed::Slow, 40),
    ];
    for (speed, seconds) in expected {
        let mut owner = Player::connect(&server.url, &format!("Owner {}", speed.name())).await;
        let state = create_room(&mut owner, speed).await;
        assert_eq!((state.speed, state.turn_seconds), (speed, seconds));
        let code = state.room.clone();
        let listed = watcher
            .request(|id| ClientMessage::ListRooms { id })
            .await
            .expect("the list");
        let ServerMessage::Rooms { rooms, .. } = listed else {
            panic!("expected the list, got {listed:?}");
        };
        let summary = rooms.iter().find(|room| room.room == code).expect("listed");
        assert_eq!(summary.speed, speed);

        // The owner's clock is the room's, once his turn comes.
        start_with_bots(&mut owner).await;
        owner
            .until(Duration::from_secs(10), |owner| owner.table.should_act())
            .await;
        let clock = owner
            .received
            .iter()
            .rev()
            .find_map(|message| match message {
                ServerMessage::Turn { turn, .. } if turn.seats.contains(&Seat::ALL[0]) => Some(turn.clock_ms),
                _ => None,
            })
            .expect("a turn for the owner");
        let full = u64::from(seconds) * 1000;
        assert!(
            clock <= full && clock + 2000 >= full,
            "{speed:?}: {clock} ms of {full}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_keeps_its_speed_when_the_server_restarts_mid_game() {
    let config = Config {
        database_url: fresh_database(),
        ..Config::default()
    };
    let server = TestServer::start(config.clone()).await;
    let mut owner = Player::connect(&server.url, "Owner").await;
    let code = create_room(&mut owner, TableSpeed::Slow).await.room.clone();
    start_with_bots(&mut owner).await;
    drop(owner);
    server.server.shutdown().await.unwrap();

    let server = TestServer::start(config).await;
    let mut watcher = Player::connect(&server.url, "Watcher").await;
    let reply = watcher
        .request(|id| ClientMessage::JoinRoom {
            id,
            room: code.clone(),
        })
        .await
        .expect("the room is open again");
    let ServerMessage::Snapshot { state, .. } = reply else {
        panic!("expected the room's state, got {reply:?}");
    };
    assert!(state.game.is_some(), "its game was resumed");
    assert_eq!((state.speed, state.turn_seconds), (TableSpeed::Slow, 60));
}
