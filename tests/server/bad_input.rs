//! Bad input of every kind gets its documented error code, and the
//! connection, the table and the other players carry on.

use std::time::Duration;

use spades_client::Client;
use spades_engine::Card;
use spades_protocol::event::EventKind;
use spades_protocol::ws::{
    BotLevel, ClientMessage, ErrorCode, Expected, MessageId, RulesSpec, ServerMessage,
};
use spades_server::Config;

use crate::support::*;

/// Sends raw text and returns the error it brings.
async fn error_for(player: &mut Player, text: String) -> (Option<MessageId>, ErrorCode) {
    let (id, code, _) = refusal_of(player, text).await;
    (id, code)
}

/// Sends raw text and returns the error it brings, with its message.
async fn refusal_of(player: &mut Player, text: String) -> (Option<MessageId>, ErrorCode, String) {
    player.client.send_text(text).await.unwrap();
    match player
        .wait_for(Duration::from_secs(5), |m| {
            matches!(m, ServerMessage::Error { .. })
        })
        .await
    {
        ServerMessage::Error { id, code, message } => (id, code, message),
        _ => unreachable!(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_messages_get_their_codes_and_the_connection_carries_on() {
    let server = TestServer::start(Config::default()).await;

    // Before hello, only hello is accepted.
    let mut raw = Client::connect(&server.url).await.unwrap();
    let refusal = raw.request(|id| ClientMessage::Ping { id }).await;
    assert!(matches!(
        refusal,
        Err(spades_client::ClientError::Refused {
            code: ErrorCode::HelloFirst,
            ..
        })
    ));
    let old = raw
        .request(|id| ClientMessage::Hello {
            id,
            version: 99,
            name: Some("Old".into()),
            token: None,
        })
        .await;
    assert!(matches!(
        old,
        Err(spades_client::ClientError::Refused {
            code: ErrorCode::UnsupportedVersion,
            ..
        })
    ));
    let forged = raw.hello_again("g_0123456789abcdef").await;
    assert!(matches!(
        forged,
        Err(spades_client::ClientError::Refused {
            code: ErrorCode::BadToken,
            ..
        })
    ));
    let nameless = raw.hello("   ").await;
    assert!(matches!(
        nameless,
        Err(spades_client::ClientError::Refused {
            code: ErrorCode::BadName,
            ..
        })
    ));

    let mut player = Player::connect(&server.url, "Mallory").await;
    assert_eq!(
        error_for(&mut player, r#"{"type":"ping","id":1"#.into()).await,
        (None, ErrorCode::BadJson)
    );
    assert_eq!(
        error_for(&mut player, r#"{"type":"teleport","id":5}"#.into()).await,
        (Some(MessageId::Number(5)), ErrorCode::UnknownType)
    );
    assert_eq!(
        error_for(&mut player, r#"{"type":"play","id":6,"card":"ZZ"}"#.into()).await,
        (Some(MessageId::Number(6)), ErrorCode::BadMessage)
    );
    assert_eq!(
        error_for(
            &mut player,
            r#"{"type":"pass_cards","id":7,"cards":["AS","AS"]}"#.into()
        )
        .await,
        (Some(MessageId::Number(7)), ErrorCode::BadMessage)
    );
    assert_eq!(
        error_for(&mut player, r#"{"id":8}"#.into()).await.1,
        ErrorCode::BadMessage
    );
    // A bid no bid can be is an invalid bid, said in words for people.
    let (id, code, message) = refusal_of(&mut player, r#"{"type":"bid","id":10,"bid":-1}"#.into()).await;
    assert_eq!((id, code), (Some(MessageId::Number(10)), ErrorCode::InvalidBid));
    assert!(!message.contains("u8"), "{message}");
    // A field of the wrong type is named in plain words too.
    let (_, code, message) = refusal_of(&mut player, r#"{"type":"sit","id":11,"seat":"north"}"#.into()).await;
    assert_eq!(code, ErrorCode::BadMessage);
    assert!(!message.contains("u8") && !message.contains("Seat"), "{message}");
    assert!(message.contains("\"seat\""), "the field is named: {message}");
    // A seat no table has is a seat that does not exist.
    let (_, code, _) = refusal_of(&mut player, r#"{"type":"sit","id":12,"seat":4}"#.into()).await;
    assert_eq!(code, ErrorCode::NoSuchSeat);
    // Rules that cannot be read are bad rules, and the setting is named.
    let unknown_preset = r#"{"type":"create_room","id":13,"rules":{"preset":"nope"}}"#;
    let (id, code, message) = refusal_of(&mut player, unknown_preset.into()).await;
    assert_eq!((id, code), (Some(MessageId::Number(13)), ErrorCode::BadRules));
    assert!(message.contains("\"rules.preset\""), "{message}");
    assert_eq!(
        error_for(&mut player, "[1,2,3]".into()).await.1,
        ErrorCode::BadMessage
    );
    let long = format!(r#"{{"type":"chat","id":9,"text":"{}"}}"#, "x".repeat(5000));
    assert_eq!(
        error_for(&mut player, long).await,
        (None, ErrorCode::FrameTooLarge)
    );
    let hello_again = player.request(|id| ClientMessage::Hello {
        id,
        version: 1,
        name: Some("Twice".into()),
        token: None,
    });
    assert_eq!(refused(hello_again.await), ErrorCode::AlreadyHello);
    assert_eq!(refused(player.try_play("AS").await), ErrorCode::NotInRoom);
    assert_eq!(
        refused(
            player
                .request(|id| ClientMessage::JoinRoom {
                    id,
                    room: "NOPE42".into()
                })
                .await
        ),
        ErrorCode::RoomNotFound
    );
    let bad_rules = RulesSpec {
        target: Some(-10),
        ..RulesSpec::default()
    };
    let bad = player.request(|id| ClientMessage::CreateRoom {
        speed: Default::default(),
        id,
        name: None,
        rules: bad_rules,
        private: false,
        bots: Some(BotLevel::Basic),
        rated: false,
    });
    assert_eq!(refused(bad.await), ErrorCode::BadRules);

    // After all that, the connection works.
    player.still_answers().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_above_the_hard_limit_closes_only_that_connection() {
    let server = TestServer::start(Config::default()).await;
    let mut bystander = Player::connect(&server.url, "Bystander").await;
    let mut player = Player::connect(&server.url, "Huge").await;
    player.client.send_text("x".repeat(100 * 1024)).await.unwrap();
    let end = player.client.recv().await;
    assert!(end.is_err(), "the connection is closed: {end:?}");
    bystander.still_answers().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_is_slowed_down_and_nothing_of_it_is_lost() {
    let server = TestServer::start(Config::default()).await;
    let mut flooder = Player::connect(&server.url, "Flood").await;
    let sent = tokio::time::Instant::now();
    for n in 0..600u64 {
        let ping = ClientMessage::Ping {
            id: MessageId::Number(10_000 + n),
        };
        flooder.client.send(&ping).await.unwrap();
    }
    let mut pongs = Vec::new();
    let mut limited = 0;
    while let Some(message) = flooder.client.try_recv(Duration::from_millis(500)).await.unwrap() {
        match flooder.note(message) {
            ServerMessage::Pong { id } => pongs.push(id),
            ServerMessage::Error {
                code: ErrorCode::RateLimited,
                id: None,
                ..
            } => limited += 1,
            other => panic!("unexpected {other:?}"),
        }
    }
    let took = sent.elapsed();
    // Every ping is answered, in order: the ones past the burst allowance
    // (200, less the hello) waited to be read rather than being dropped.
    let expected: Vec<MessageId> = (0..600u64).map(|n| MessageId::Number(10_000 + n)).collect();
    assert_eq!(pongs, expected, "pings were lost or reordered");
    // The 401 past the allowance were read at 100 a second.
    assert!(
        took >= Duration::from_millis(3_800),
        "600 pings were read in {took:?}"
    );
    assert!(
        (1..=6).contains(&limited),
        "one notice a second while slowed down, not one per message: {limited}"
    );
    flooder.still_answers().await;
}

/// A player over his message rate who then makes his move has it read in
/// its turn and answered: dropped, it would leave the whole table waiting
/// on the turn clock for a move that the player believes he made.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_sent_past_the_rate_is_answered_in_its_turn() {
    let server = TestServer::start(Config::default()).await;
    let (mut players, _) = four_in_a_game(&server.url).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let due = loop {
        for player in players.iter_mut() {
            player.pump().await;
        }
        if let Some(due) = players.iter().position(|player| player.table.should_act()) {
            break due;
        }
        assert!(tokio::time::Instant::now() < deadline, "nobody's turn came");
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    let player = &mut players[due];
    for n in 0..300u64 {
        let ping = ClientMessage::Ping {
            id: MessageId::Number(50_000 + n),
        };
        player.client.send(&ping).await.unwrap();
    }
    let mv = player.table.decide(false).expect("a move to make");
    let answer = player.play_move(mv).await.expect("the move is answered");
    assert!(
        matches!(answer, ServerMessage::Ack { .. }),
        "the move was answered {answer:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn illegal_moves_are_refused_and_the_table_plays_on() {
    let server = TestServer::start(Config::default()).await;
    let mut players = four_players(&server.url).await;
    let code = seat_four(&mut players, RulesSpec::default()).await;

    // Nobody can take a seat that is taken, before or during the game.
    let mut intruder = Player::connect(&server.url, "Intruder").await;
    intruder.join_room(&code).await;
    let taken = intruder.try_sit(1).await;
    assert_eq!(refused(taken), ErrorCode::SeatTaken);
    let early = players[0].try_play("2C").await;
    assert_eq!(refused(early), ErrorCode::NoGame);
    players[0].start_game().await;
    let during = intruder.try_sit(1).await;
    assert_eq!(refused(during), ErrorCode::GameInProgress);
    let spectator_play = intruder.try_play("2C").await;
    assert_eq!(refused(spectator_play), ErrorCode::NotSeated);

    let mut seen = std::collections::HashSet::new();
    let deadline = tokio::time::Instant::now() + GAME_DEADLINE;
    while players[0].table.games_over == 0 {
        for i in 0..4 {
            players[i].pump().await;
            let table = players[i].table.clone();
            if table.my_turn() && players[i].acted_on < table.turn_seq {
                let turn = table.turn.clone().unwrap();
                let other = (i + 1) % 4;
                // Out of turn: the next player tries to act now.
                if turn.expected == Expected::Bid
                    && !players[other].table.my_turn()
                    && seen.insert(ErrorCode::NotYourTurn)
                {
                    let refusal = players[other]
                        .request(|id| ClientMessage::Bid {
                            id,
                            bid: 3,
                            blind: false,
                        })
                        .await;
                    assert_eq!(refused(refusal), ErrorCode::NotYourTurn);
                }
                match turn.expected {
                    Expected::Bid if seen.insert(ErrorCode::WrongPhase) => {
                        let card = table.cards.lowest().unwrap();
                        let refusal = players[i].request(|id| ClientMessage::Play { id, card }).await;
                        assert_eq!(refused(refusal), ErrorCode::WrongPhase);
                    }
                    Expected::Play => {
                        let legal = turn.legal.unwrap();
                        let not_mine: Card = (!table.cards).lowest().unwrap();
                        if seen.insert(ErrorCode::CardNotInHand) {
                            let refusal = players[i]
                                .request(|id| ClientMessage::Play { id, card: not_mine })
                                .await;
                            assert_eq!(refused(refusal), ErrorCode::CardNotInHand);
                        }
                        let illegal = (table.cards - legal).lowest();
                        if let Some(card) = illegal {
                            let refusal = players[i].request(|id| ClientMessage::Play { id, card }).await;
                            let code = refused(refusal);
                            assert!(
                                matches!(code, ErrorCode::MustFollowSuit | ErrorCode::SpadesNotBroken),
                                "{code:?}"
                            );
                            seen.insert(code);
                        }
                    }
                    _ => {}
                }
                players[i].act_if_due().await;
            }
        }
        assert!(tokio::time::Instant::now() < deadline, "the game did not end");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    for code in [
        ErrorCode::NotYourTurn,
        ErrorCode::WrongPhase,
        ErrorCode::CardNotInHand,
        ErrorCode::MustFollowSuit,
    ] {
        assert!(seen.contains(&code), "{code:?} was tried");
    }
    for player in players.iter_mut() {
        player
            .until(Duration::from_secs(5), |p| p.table.games_over == 1)
            .await;
        assert_eq!(player.gaps, 0);
    }
}

/// Sends a chat message and returns the answer.
async fn chat(player: &mut Player, text: &str) -> Result<ServerMessage, spades_client::ClientError> {
    let text = text.to_string();
    player.request(|id| ClientMessage::Chat { id, text }).await
}

/// A server, a host in the room he opened, a second player in it, and the
/// room's code.
async fn host_and_talker() -> (TestServer, Player, Player, String) {
    let server = TestServer::start(Config::default()).await;
    let mut owner = Player::connect(&server.url, "Host").await;
    let code = owner.create_room(RulesSpec::default(), false).await;
    let mut talker = Player::connect(&server.url, "Talker").await;
    talker.join_room(&code).await;
    (server, owner, talker, code)
}

/// The chat limit counts a player's messages in a room, whether he sends
/// them on one connection or comes back on another to send more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_chat_limit_holds_across_connections_of_one_player() {
    let (server, mut owner, mut talker, code) = host_and_talker().await;
    let limit = Config::default().chat_limit;
    for i in 0..limit {
        chat(&mut talker, &format!("hello {i}"))
            .await
            .expect("within the limit");
    }
    assert_eq!(
        refused(chat(&mut talker, "one more").await),
        ErrorCode::ChatRateLimited
    );
    // He leaves and comes back on a new connection: still over the limit.
    let mut again = Player::sign_in(&server.url, "Talker", &talker.token).await;
    again.join_room(&code).await;
    assert_eq!(
        refused(chat(&mut again, "and again").await),
        ErrorCode::ChatRateLimited
    );
    // Another player's count is his own.
    chat(&mut owner, "welcome").await.expect("the host may talk");
}

/// The chat limit belongs to the player, not to a room or a connection:
/// hopping from room to room, and coming back on a new connection, he
/// gets no more lines within the window than the limit, in all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_chat_limit_holds_across_rooms_and_connections() {
    let server = TestServer::start(Config::default()).await;
    let (limit, window) = (Config::default().chat_limit, Config::default().chat_window);
    let started = tokio::time::Instant::now();
    // Four hosts, each staying in the room he opened, so that it stays
    // open.
    let mut hosts = Vec::new();
    let mut rooms = Vec::new();
    for n in 0..4 {
        let mut host = Player::connect(&server.url, &format!("Host{n}")).await;
        rooms.push(host.create_room(RulesSpec::default(), false).await);
        hosts.push(host);
    }
    let mut talker = Player::connect(&server.url, "Talker").await;
    let (mut accepted, mut tried) = (0, 0);
    // Three lines in each of four rooms, then again in two rooms on a new
    // connection: far more lines than the limit.
    for round in 0..2 {
        if round == 1 {
            let previous = talker.client;
            talker = Player::sign_in(&server.url, "Talker", &talker.token).await;
            talker.client.continue_ids(&previous);
            previous.close().await;
        }
        for code in rooms.iter().take(if round == 0 { 4 } else { 2 }) {
            talker.join_room(code).await;
            for _ in 0..3 {
                tried += 1;
                match chat(&mut talker, &format!("line {tried}")).await {
                    Ok(_) => accepted += 1,
                    Err(spades_client::ClientError::Refused { code, .. }) => {
                        assert_eq!(code, ErrorCode::ChatRateLimited)
                    }
                    Err(other) => panic!("{other}"),
                }
            }
        }
    }
    assert!(
        started.elapsed() < window,
        "the test outlasted the chat window, and proves nothing"
    );
    assert_eq!(
        accepted, limit,
        "{accepted} of {tried} lines accepted within one window"
    );
}

/// Chat text that would break lines or reorder what the others see is
/// refused with a reason; emoji built with joiners pass, and the room
/// carries on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_text_with_control_or_direction_characters_is_refused() {
    let (_server, mut owner, mut talker, _code) = host_and_talker().await;
    for text in [
        "two\nlines",
        "bell\u{7}",
        "gg \u{202E}olleh",
        "isolated \u{2066}x",
        "next\u{2028}line",
    ] {
        match chat(&mut talker, text).await {
            Err(spades_client::ClientError::Refused { code, message, .. }) => {
                assert_eq!(code, ErrorCode::BadMessage, "{text:?}");
                assert!(message.contains("control characters"), "{message}");
            }
            other => panic!("{text:?} was not refused: {other:?}"),
        }
    }
    let family = "well played \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}";
    chat(&mut talker, family)
        .await
        .expect("emoji with joiners are chat");
    let lines = |player: &Player| -> Vec<String> {
        player
            .received
            .iter()
            .filter_map(|message| match message.event() {
                Some(EventKind::ChatMessage { text, .. }) => Some(text.clone()),
                _ => None,
            })
            .collect()
    };
    owner
        .until(Duration::from_secs(5), |p| {
            lines(p).iter().any(|line| line == family)
        })
        .await;
    assert_eq!(lines(&owner), [family], "only the accepted line reached the room");
}
