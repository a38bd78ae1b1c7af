//! What players say and ask at a table besides their play: quick chat's
//! set phrases, and a rematch with the same seats after a game.

use std::time::Duration;

use spades_engine::Seat;
use spades_protocol::event::{EventKind, RoomEvent};
use spades_protocol::ws::{ClientMessage, ErrorCode, QuickPhrase, RulesSpec, ServerMessage};
use spades_server::Config;

use crate::support::*;

fn refused(answer: Result<ServerMessage, spades_client::ClientError>) -> ErrorCode {
    match answer {
        Err(spades_client::ClientError::Refused { code, .. }) => code,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quick_phrase_reaches_the_table_as_a_chat_line_and_counts_as_chat() {
    let server = TestServer::start(Config {
        chat_limit: 2,
        chat_window: Duration::from_secs(60),
        ..Config::default()
    })
    .await;
    let mut ann = Player::connect(&server.url, "Ann").await;
    let code = ann.create_room(RulesSpec::default(), false).await;
    ann.sit(0).await;
    let mut ben = Player::connect(&server.url, "Ben").await;
    ben.join_room(&code).await;

    ann.request(|id| ClientMessage::QuickChat {
        id,
        phrase: QuickPhrase::NicePlay,
    })
    .await
    .expect("said");
    let line = ben
        .wait_for(Duration::from_secs(5), |m| {
            matches!(
                m,
                ServerMessage::Event(RoomEvent {
                    kind: EventKind::ChatMessage { .. },
                    ..
                })
            )
        })
        .await;
    let ServerMessage::Event(RoomEvent {
        kind:
            EventKind::ChatMessage {
                from,
                seat,
                text,
                quick,
                hidden,
            },
        ..
    }) = line
    else {
        unreachable!()
    };
    assert_eq!(
        (from.name.as_str(), seat, text.as_str(), quick, hidden),
        (
            "Ann",
            Seat::new(0),
            "Nice play!",
            Some(QuickPhrase::NicePlay),
            false
        )
    );

    // A phrase that is not in the set is refused by name, and quick chat
    // shares the chat's rate with typed lines.
    let raw = r#"{"type":"quick_chat","id":"odd","phrase":"you_lose"}"#;
    ann.client.send_text(raw.to_string()).await.expect("sent");
    let answer = ann
        .wait_for(Duration::from_secs(5), |m| {
            matches!(m, ServerMessage::Error { .. })
        })
        .await;
    let ServerMessage::Error { code, message, .. } = answer else {
        unreachable!()
    };
    assert_eq!(code, ErrorCode::BadMessage);
    assert!(message.contains("phrase"), "{message}");
    ann.request(|id| ClientMessage::Chat {
        id,
        text: "hi".into(),
    })
    .await
    .expect("the second line of the window");
    let third = ann
        .request(|id| ClientMessage::QuickChat {
            id,
            phrase: QuickPhrase::Thanks,
        })
        .await;
    assert_eq!(refused(third), ErrorCode::ChatRateLimited);
    ben.still_answers().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_seats_play_again_once_each_person_asks_for_a_rematch() {
    let server = TestServer::start(Config::default()).await;
    let mut ann = Player::connect(&server.url, "Ann").await;
    let code = ann.create_room(RulesSpec::default(), false).await;
    assert_eq!(
        refused(
            ann.request(|id| ClientMessage::Rematch {
                id,
                same_deals: false
            })
            .await
        ),
        ErrorCode::NotSeated
    );
    ann.sit(0).await;
    assert_eq!(
        refused(
            ann.request(|id| ClientMessage::Rematch {
                id,
                same_deals: false
            })
            .await
        ),
        ErrorCode::NoGame,
        "no game has been played yet"
    );
    let mut ben = Player::connect(&server.url, "Ben").await;
    ben.join_room(&code).await;
    ben.sit(2).await;
    for seat in [1, 3] {
        ann.request(|id| ClientMessage::AddBot {
            id,
            seat: Seat::new(seat),
            level: None,
        })
        .await
        .expect("a bot is seated");
    }
    ann.start_game().await;
    assert_eq!(
        refused(
            ann.request(|id| ClientMessage::Rematch {
                id,
                same_deals: false
            })
            .await
        ),
        ErrorCode::GameInProgress
    );
    let mut players = [ann, ben];
    play_games(&mut players, &mut [], 1, Duration::from_secs(120)).await;
    let [mut ann, mut ben] = players;

    // Ann asks: the table waits for Ben, the bots agreeing already.
    ann.request(|id| ClientMessage::Rematch {
        id,
        same_deals: false,
    })
    .await
    .expect("asked");
    let asked = |m: &ServerMessage| {
        matches!(
            m,
            ServerMessage::Event(RoomEvent {
                kind: EventKind::RematchAsked { .. },
                ..
            })
        )
    };
    let first = ben.wait_for(Duration::from_secs(5), asked).await;
    let ServerMessage::Event(RoomEvent {
        kind: EventKind::RematchAsked {
            seat, waiting_for, ..
        },
        ..
    }) = first
    else {
        unreachable!()
    };
    assert_eq!(
        (seat, waiting_for),
        (Seat::new(0).unwrap(), vec![Seat::new(2).unwrap()])
    );

    // Ben asks too, and the second game starts with the same seats.
    ben.request(|id| ClientMessage::Rematch {
        id,
        same_deals: false,
    })
    .await
    .expect("asked");
    ann.wait_for(Duration::from_secs(5), |m| {
        matches!(
            m,
            ServerMessage::Event(RoomEvent {
                kind: EventKind::GameStarted { game: 1, .. },
                ..
            })
        )
    })
    .await;
    let state = ann
        .request(|id| ClientMessage::JoinRoom {
            id,
            room: code.clone(),
        })
        .await
        .expect("the room's state");
    let ServerMessage::Snapshot { state, .. } = state else {
        panic!("expected the room's state");
    };
    let names: Vec<String> = state
        .seats
        .iter()
        .map(|seat| seat.as_ref().expect("every seat taken").player.name.clone())
        .collect();
    assert_eq!((names[0].as_str(), names[2].as_str()), ("Ann", "Ben"));
    assert_eq!(state.games, 2);
}
