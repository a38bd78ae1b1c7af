//! A client that never reads is cut off and does not slow the table.

use std::time::{Duration, Instant};

use spades_client::Client;
use spades_protocol::ws::{ClientMessage, MessageId, ServerMessage};
use spades_server::Config;
use tokio::net::TcpSocket;

use crate::support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_reads_is_disconnected_and_the_table_keeps_its_pace() {
    let config = Config {
        outbox_capacity: 32,
        ..Config::default()
    };
    let server = TestServer::start(config).await;
    let mut players = four_players(&server.url).await;
    let code = seat_four(&mut players, blind_nil_rules()).await;

    // The sluggard joins with a tiny receive buffer and then never reads,
    // while asking again and again for the whole event log.
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let stream = socket.connect(server.address()).await.unwrap();
    let mut sluggard = Client::connect_over(&server.url, stream).await.unwrap();
    sluggard.hello("Sluggard").await.unwrap();
    let room = code.clone();
    sluggard
        .request(|id| ClientMessage::JoinRoom { id, room })
        .await
        .unwrap();
    assert_eq!(server.server.state().connections(), 5);

    players[0].start_game().await;
    let spam = tokio::spawn(async move {
        for n in 0..400u64 {
            let resync = ClientMessage::Resync {
                id: MessageId::Number(n),
                room: code.clone(),
                last_seq: 0,
            };
            if sluggard.send(&resync).await.is_err() {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(60)).await;
        }
        false
    });

    // The players time each action until its acknowledgement.
    let mut worst = Duration::ZERO;
    let started = Instant::now();
    while players[0].table.games_over == 0 {
        for player in players.iter_mut() {
            player.pump().await;
            if player.table.my_turn() && player.acted_on < player.table.turn_seq {
                let mv = player.table.decide(player.blind_nil).unwrap();
                player.acted_on = player.table.turn_seq;
                let sent = Instant::now();
                player.play_move(mv).await.expect("accepted");
                worst = worst.max(sent.elapsed());
            }
        }
        assert!(started.elapsed() < GAME_DEADLINE, "the game did not end");
    }
    assert!(worst < Duration::from_millis(500), "an action took {worst:?}");

    // The server cut the sluggard off.
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.server.state().connections() > 4 {
        assert!(Instant::now() < deadline, "the slow client is still connected");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(players.iter().all(|p| p.gaps == 0));
    spam.abort();
    let _ = ServerMessage::Replaced;
}
