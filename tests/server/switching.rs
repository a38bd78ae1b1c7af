//! A connection is in one room at a time: once it has entered another
//! room (or left one), nothing of the room it left reaches it, however
//! busy that room is.

use std::time::Duration;

use spades_engine::Seat;
use spades_protocol::event::RoomEvent;
use spades_protocol::ws::{ClientMessage, ServerMessage};
use spades_server::Config;

use crate::support::*;

/// The room a message is about, if it is about one.
fn room_of(message: &ServerMessage) -> Option<&str> {
    let room = match message {
        ServerMessage::Event(RoomEvent { room, .. }) | ServerMessage::Turn { room, .. } => room,
        _ => return None,
    };
    Some(room.as_str())
}

/// Sits down and stands up, again and again, so that its room sends a
/// stream of `seats` events; stops when told.
fn fidget(
    mut player: Player,
    seat: u8,
    stop: tokio_util::sync::CancellationToken,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        while !stop.is_cancelled() {
            let sit = ClientMessage::Sit {
                id: player.client.next_id(),
                seat: Seat::new(seat),
            };
            let stand = ClientMessage::Stand {
                id: player.client.next_id(),
            };
            if player.client.send(&sit).await.is_err() || player.client.send(&stand).await.is_err() {
                return;
            }
            // Reads what came, so that its own queue never fills.
            player.pump().await;
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    })
}

/// Receives whatever comes for a while.
async fn listen(player: &mut Player, during: Duration) {
    let until = tokio::time::Instant::now() + during;
    while tokio::time::Instant::now() < until {
        player.pump().await;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_of_a_room_left_reaches_the_connection_after_the_next_rooms_reply() {
    let server = TestServer::start(Config::default()).await;
    let mut traveller = Player::connect(&server.url, "Traveller").await;
    // Two rooms, each kept busy by three players who sit and stand.
    let stop = tokio_util::sync::CancellationToken::new();
    let mut codes = Vec::new();
    let mut fidgets = Vec::new();
    for name in ["Ann", "Bob"] {
        let mut host = Player::connect(&server.url, name).await;
        let code = host.create_room(Default::default(), false).await;
        for seat in 2..4 {
            let mut guest = Player::connect(&server.url, &format!("{name}{seat}")).await;
            guest.join_room(&code).await;
            fidgets.push(fidget(guest, seat, stop.clone()));
        }
        fidgets.push(fidget(host, 1, stop.clone()));
        codes.push(code);
    }

    for round in 0..200 {
        let (to, from) = (&codes[round % 2], &codes[(round + 1) % 2]);
        let room = to.clone();
        traveller.received.clear();
        if round % 3 == 2 && round > 0 {
            // Sometimes the traveller leaves first: nothing of the room
            // follows the ack either.
            let left = traveller.request(|id| ClientMessage::LeaveRoom { id }).await;
            assert!(matches!(left, Ok(ServerMessage::Ack { .. })), "{left:?}");
            let acked_at = traveller.received.len();
            listen(&mut traveller, Duration::from_millis(20)).await;
            for late in &traveller.received[acked_at..] {
                assert_ne!(
                    room_of(late),
                    Some(from.as_str()),
                    "round {round}: an event came after leaving: {late:?}"
                );
            }
        }
        let reply = traveller.request(|id| ClientMessage::JoinRoom { id, room }).await;
        assert!(matches!(reply, Ok(ServerMessage::Snapshot { .. })), "{reply:?}");
        // What came before the reply may be of either room; after it,
        // only of the room entered.
        let replied_at = traveller.received.len();
        listen(&mut traveller, Duration::from_millis(40)).await;
        for late in &traveller.received[replied_at..] {
            assert_ne!(
                room_of(late),
                Some(from.as_str()),
                "round {round}: an event of the room left came after entering {to}: {late:?}"
            );
        }
        traveller.clear_table();
    }
    stop.cancel();
    for fidget in fidgets {
        fidget.await.unwrap();
    }
}
