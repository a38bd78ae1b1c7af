//! Dropped connections, resynchronisation, repeated actions, and held seats.

use std::time::Duration;

use spades_client::Client;
use spades_protocol::event::{EventKind, RoomEvent};
use spades_protocol::ws::{AutoReason, ClientMessage, ServerMessage};
use spades_server::Config;

use crate::support::*;

/// Plays until the total number of room events seen by player 0 passes `seq`.
async fn play_until_seq(players: &mut [Player], seq: u64) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while players[0].table.last_seq < seq {
        for player in players.iter_mut() {
            player.pump().await;
            player.act_if_due().await;
        }
        assert!(tokio::time::Instant::now() < deadline, "the game stalled");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

impl Player {
    /// Opens a new connection with the player's token, keeping what the
    /// player knew, and asks for what he missed.
    async fn reconnect(&mut self, url: &str) -> ServerMessage {
        let mut client = Client::connect(url).await.expect("reconnects");
        client.continue_ids(&self.client);
        let welcome = client.hello_again(&self.token).await.expect("welcome back");
        let ServerMessage::Welcome { player, room, .. } = &welcome else {
            panic!("{welcome:?}")
        };
        assert_eq!(player.id, self.id, "the token gives back the same player");
        assert_eq!(
            room.as_ref(),
            self.table.room.as_ref(),
            "the welcome names the room of his seat"
        );
        self.client = client;
        // An action sent on the lost connection may never have arrived.
        self.table.dropped();
        let (room, last_seq) = (room.clone().unwrap(), self.table.last_seq);
        self.request(|id| ClientMessage::Resync { id, room, last_seq })
            .await
            .expect("resync accepted")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_player_gets_exactly_the_events_he_missed_and_the_game_goes_on() {
    let server = TestServer::start(Config::default()).await;
    let (mut players, _) = four_in_a_game(&server.url).await;
    play_until_seq(&mut players, 20).await;

    // Seat 2's connection dies without a close frame.
    let seen_before = players[2].table.last_seq;
    let dead = std::mem::replace(
        &mut players[2].client,
        Client::connect(&server.url).await.unwrap(),
    );
    players[2].client.continue_ids(&dead);
    drop(dead);
    players[0]
        .wait_for(
            Duration::from_secs(5),
            |m| matches!(m.event(), Some(EventKind::PlayerAway { seat, .. }) if seat.index() == 2),
        )
        .await;
    // The others play on until it is seat 2's turn.
    for _ in 0..50 {
        for (i, player) in players.iter_mut().enumerate() {
            if i != 2 {
                player.pump().await;
                player.act_if_due().await;
            }
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let now = players[0].table.last_seq;
    assert!(now > seen_before + 1, "events happened while seat 2 was gone");

    let reply = players[2].reconnect(&server.url).await;
    let ServerMessage::Ack {
        seq: Some(caught_up), ..
    } = reply
    else {
        panic!("expected the missed events and an ack, got {reply:?}")
    };
    assert!(caught_up >= now);
    assert_eq!(
        players[2].gaps, 0,
        "the missed events came in order, with nothing left out"
    );
    let replayed: Vec<u64> = players[2]
        .received
        .iter()
        .filter_map(ServerMessage::seq)
        .filter(|&s| s > seen_before)
        .collect();
    let expected: Vec<u64> = (seen_before + 1..=replayed.last().copied().unwrap_or(seen_before)).collect();
    assert_eq!(replayed, expected);
    players[0]
        .wait_for(
            Duration::from_secs(5),
            |m| matches!(m.event(), Some(EventKind::PlayerBack { seat, .. }) if seat.index() == 2),
        )
        .await;

    play_games(&mut players, &mut [], 1, GAME_DEADLINE).await;
    assert!(players.iter().all(|p| p.gaps == 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_too_far_behind_gets_a_snapshot_of_its_view() {
    let config = Config {
        resync_window: 3,
        ..Config::default()
    };
    let server = TestServer::start(config).await;
    let (mut players, _) = four_in_a_game(&server.url).await;
    players[1]
        .until(Duration::from_secs(5), |p| p.table.cards.len() == 13)
        .await;
    let cards_before = players[1].table.cards;
    let stale = players[1].table.last_seq;
    play_until_seq(&mut players, stale + 8).await;
    // Seat 1 comes back on a new connection from far behind.
    players[1].table.last_seq = stale;
    let reply = players[1].reconnect(&server.url).await;
    let ServerMessage::Snapshot { state, .. } = reply else {
        panic!("expected a snapshot, got {reply:?}")
    };
    let game = state.game.expect("a game is on");
    assert_eq!(state.your_seat.map(|s| s.index()), Some(1));
    let cards = game.cards.expect("a player's snapshot shows his own cards");
    assert!(cards.is_subset(cards_before), "his cards, less what he played");
    assert!(game.turn.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_repeated_after_a_reconnect_is_not_applied_twice() {
    let server = TestServer::start(Config::default()).await;
    let (mut players, _) = four_in_a_game(&server.url).await;

    // Wait until it is somebody's turn to play a card.
    let actor = loop {
        for player in players.iter_mut() {
            player.pump().await;
        }
        let due = players.iter().position(|p| {
            p.table.my_turn()
                && p.table
                    .turn
                    .as_ref()
                    .is_some_and(|t| t.expected == spades_protocol::ws::Expected::Play)
        });
        if let Some(due) = due {
            break due;
        }
        for player in players.iter_mut() {
            player.act_if_due().await;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    };
    let mv = players[actor].table.decide(false).unwrap();
    let id = players[actor].client.next_id();
    players[actor].client.send(&mv.message(id.clone())).await.unwrap();
    // The connection drops before the reply is read.
    let dead = std::mem::replace(
        &mut players[actor].client,
        Client::connect(&server.url).await.unwrap(),
    );
    players[actor].client.continue_ids(&dead);
    drop(dead);
    tokio::time::sleep(Duration::from_millis(100)).await;
    players[actor].reconnect(&server.url).await;

    // The same action with the same id is acknowledged as a duplicate.
    players[actor].client.send(&mv.message(id.clone())).await.unwrap();
    let again = players[actor].client.reply_to(&id).await.expect("acknowledged");
    assert!(
        matches!(again, ServerMessage::Ack { duplicate: true, .. }),
        "{again:?}"
    );
    let spades_client::table::Move::Play(card) = mv else {
        panic!("a play")
    };
    // Everything the server did has reached seat 0 by the time a ping comes back.
    players[0].request(|id| ClientMessage::Ping { id }).await.unwrap();
    let played_after = players[0]
        .received
        .iter()
        .filter(|m| matches!(m.event(), Some(EventKind::CardPlayed { card: c, .. }) if *c == card))
        .count();
    assert_eq!(played_after, 1, "the card was played once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_does_not_push_an_action_out_of_the_retry_memory() {
    let server = TestServer::start(Config {
        chat_limit: 100,
        ..Config::default()
    })
    .await;
    let (mut players, _) = four_in_a_game(&server.url).await;
    let actor = loop {
        for player in players.iter_mut() {
            player.pump().await;
        }
        if let Some(due) = players.iter().position(|p| p.table.my_turn()) {
            break due;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    };
    let mv = players[actor].table.decide(false).unwrap();
    let first = players[actor]
        .request(|id| mv.message(id))
        .await
        .expect("the action is applied");
    let ServerMessage::Ack {
        id,
        seq: Some(seq),
        duplicate: false,
    } = first
    else {
        panic!("{first:?}")
    };

    // More chat lines than the retry memory holds of either kind.
    for line in 0..40 {
        let text = format!("line {line}");
        players[actor]
            .request(|id| ClientMessage::Chat { id, text })
            .await
            .expect("chat accepted");
    }

    players[actor].client.send(&mv.message(id.clone())).await.unwrap();
    let again = players[actor].client.reply_to(&id).await.expect("acknowledged");
    assert!(
        matches!(again, ServerMessage::Ack { duplicate: true, seq: Some(s), .. } if s == seq),
        "the action is still known as applied, with its first seq: {again:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_gone_past_the_seat_hold_is_played_for_and_takes_his_seat_back() {
    let config = Config {
        seat_hold: Duration::from_millis(300),
        ..Config::default()
    };
    let server = TestServer::start(config).await;
    let (mut players, _) = four_in_a_game(&server.url).await;
    play_until_seq(&mut players, 6).await;

    let dead = std::mem::replace(
        &mut players[3].client,
        Client::connect(&server.url).await.unwrap(),
    );
    players[3].client.continue_ids(&dead);
    drop(dead);
    // The others go on; seat 3 is played for once the hold has run out.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let away_play = |m: &ServerMessage| matches!(m.event(), Some(EventKind::AutoPlayed { seat, reason: AutoReason::Away, .. }) if seat.index() == 3);
    while !players[0].received.iter().any(away_play) {
        for player in players.iter_mut().take(3) {
            player.pump().await;
            player.act_if_due().await;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "seat 3 was never played for"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let hold = players[0].received.iter().find_map(|m| match m {
        ServerMessage::Event(RoomEvent {
            kind: EventKind::PlayerAway { seat, hold_ms, .. },
            ..
        }) if seat.index() == 3 => Some(*hold_ms),
        _ => None,
    });
    assert_eq!(hold, Some(300));

    players[3].reconnect(&server.url).await;
    players[0]
        .wait_for(
            Duration::from_secs(5),
            |m| matches!(m.event(), Some(EventKind::PlayerBack { seat, .. }) if seat.index() == 3),
        )
        .await;
    play_games(&mut players, &mut [], 1, GAME_DEADLINE).await;
    let auto_after_back = players[3]
        .received
        .iter()
        .skip_while(|m| !matches!(m.event(), Some(EventKind::PlayerBack { seat, .. }) if seat.index() == 3))
        .filter(|m| matches!(m.event(), Some(EventKind::AutoPlayed { seat, .. }) if seat.index() == 3))
        .count();
    assert_eq!(auto_after_back, 0, "once back, he plays for himself");
}
