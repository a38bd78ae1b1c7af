//! Servers killed with SIGKILL or stopped with SIGTERM in the middle of a hand.
//! Players must find the same game afterwards, with the numbering of events
//! going on and retried requests recognised, or a restart would cost them their
//! game.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_hand_resumes_the_game_exactly() {
    let (server, mut players, code) = a_game_on_a_process().await;
    let url = server.url();
    play_into_hand(&mut players, 1, 6).await;

    restart_and_finish(server, &mut players, &url, &code).await;
}

/// A three-player game resumes with its three seats: the stored game has
/// three players, and the replay of its actions checks the result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_three_player_game_killed_mid_hand_resumes_exactly() {
    let server = ServerProcess::start(&fresh_database(), free_port()).await;
    let url = server.url();
    let mut players = Vec::new();
    for name in ["North", "East", "South"] {
        players.push(Player::connect(&url, name).await);
    }
    let rules = spades_protocol::ws::RulesSpec {
        preset: Some(spades_engine::Preset::ThreePlayer),
        max_hands: Some(Some(3)),
        ..Default::default()
    };
    let code = players[0].create_room(rules, false).await;
    for player in players.iter_mut().skip(1) {
        player.join_room(&code).await;
    }
    for (seat, player) in players.iter_mut().enumerate() {
        player.sit(seat as u8).await;
    }
    players[0].start_game().await;
    play_into_hand(&mut players, 1, 10).await;

    restart_and_finish(server, &mut players, &url, &code).await;
    assert_eq!(game_over(&players[0]).1.len(), 3, "three final scores");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_tells_clients_and_the_game_resumes_after_the_restart() {
    let (server, mut players, code) = a_game_on_a_process().await;
    let url = server.url();
    play_into_hand(&mut players, 0, 9).await;

    let status = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    for player in players.iter_mut() {
        player
            .wait_for(Duration::from_secs(10), |m| {
                matches!(m, ServerMessage::ShuttingDown { .. })
            })
            .await;
        assert!(player.client.recv().await.is_err(), "then the connection closes");
    }
    let mut server = server;
    let exit = tokio::task::spawn_blocking(move || {
        let status = server.child.wait();
        (server, status)
    })
    .await
    .unwrap();
    let (server, status) = exit;
    assert!(status.unwrap().success(), "the server stops cleanly");

    restart_and_finish(server, &mut players, &url, &code).await;
}

/// Waits until it is player `who`'s turn, the others playing meanwhile,
/// then plays his move as a request. Returns the message sent and the
/// `seq` of its `ack`.
async fn act_and_confirm(players: &mut [Player], who: usize) -> (ClientMessage, u64) {
    let deadline = tokio::time::Instant::now() + GAME_DEADLINE;
    loop {
        for (i, player) in players.iter_mut().enumerate() {
            player.pump().await;
            if i != who {
                player.act_if_due().await;
            }
        }
        let me = &mut players[who];
        if me.table.should_act()
            && let Some(mv) = me.table.decide(false)
        {
            me.table.acted();
            let id = me.client.next_id();
            let message = mv.message(id.clone());
            me.client.send(&message).await.expect("sent");
            let reply = me.client.reply_to(&id).await.expect("a reply");
            for pending in me.client.take_pending() {
                me.note(pending);
            }
            let reply = me.note(reply);
            let ServerMessage::Ack { seq: Some(seq), .. } = reply else {
                panic!("the move was not accepted: {reply:?}")
            };
            return (message, seq);
        }
        assert!(tokio::time::Instant::now() < deadline, "no turn came");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// The highest room event any player saw.
fn highest_seq(players: &[Player]) -> u64 {
    players
        .iter()
        .flat_map(|player| player.received.iter().filter_map(ServerMessage::seq))
        .max()
        .unwrap_or(0)
}

/// A restart must not make a client believe something false: a room's
/// events are numbered on above every number it used before, a client
/// that resyncs from before the restart gets a snapshot and not events of
/// the new numbering, and an action sent again with its id is recognised.
async fn numbering_and_retries_survive(stop: Stop) {
    let database = fresh_database();
    // Held seats are given to the server after a second, so that the game
    // goes on without the player who stays away.
    let server = ServerProcess::start_timed(&database, free_port(), 600, 1).await;
    let url = server.url();
    let (mut players, code) = four_in_a_game(&url).await;
    play_into_hand(&mut players, 0, 3).await;

    // West leaves the table; the server plays for him from now on.
    let mut west = players.pop().expect("four players");
    let west_seen = west.table.last_seq;
    let reply = west.request(|id| ClientMessage::LeaveRoom { id }).await;
    assert!(matches!(reply, Ok(ServerMessage::Ack { .. })), "{reply:?}");
    // The others play on, and North's last move is confirmed just before
    // the server stops.
    play_into_hand(&mut players, 0, 8).await;
    let (last_move, acked_seq) = act_and_confirm(&mut players, 0).await;
    let before = highest_seq(&players).max(acked_seq);
    assert!(before > west_seen + 5, "the table moved on without West");

    let (database, port) = stop_server(server, stop).await;
    let server = ServerProcess::start_timed(&database, port, 600, 1).await;
    come_back(&mut players, &url, &code).await;
    for player in &players {
        let snapshot_seq = player.table.last_seq;
        assert!(
            snapshot_seq > before,
            "{}: the room numbered from {snapshot_seq} after a restart, below the {before} seen before",
            player.name
        );
    }

    // North sends his last move again with the same id: it was applied
    // before the restart, and is not applied twice.
    let north = &mut players[0];
    let id = last_move.id();
    north.client.send(&last_move).await.expect("sent again");
    let again = north.client.reply_to(id).await.expect("an answer");
    for pending in north.client.take_pending() {
        north.note(pending);
    }
    assert_eq!(
        north.note(again),
        ServerMessage::Ack {
            id: id.clone(),
            seq: Some(acked_seq),
            duplicate: true
        },
        "the retry is recognised after the restart, with the seq of its first ack"
    );

    // Play goes on, numbered without gaps from the snapshots.
    let gaps: Vec<u32> = players.iter().map(|player| player.gaps).collect();
    let resumed_at = players[0].table.last_seq;
    play_into_hand(&mut players, 1, 2).await;
    assert!(players[0].table.last_seq > resumed_at + 5, "the game went on");
    for (player, gaps) in players.iter().zip(gaps) {
        assert_eq!(player.gaps, gaps, "{} saw a gap in the events", player.name);
    }

    // West comes back with the last event he saw, from before the restart:
    // he gets a snapshot of the game as it is, not events that only share
    // their numbers with the ones he missed.
    let mut client = Client::connect(&url).await.expect("reconnects");
    client.continue_ids(&west.client);
    client.hello_again(&west.token).await.expect("welcome");
    west.client = client;
    let room = code.clone();
    let reply = west
        .request(|id| ClientMessage::Resync {
            id,
            room,
            last_seq: west_seen,
        })
        .await
        .expect("resync");
    let ServerMessage::Snapshot { seq, state, .. } = &reply else {
        panic!("a resync from before the restart got {reply:?}, not a snapshot")
    };
    assert!(*seq >= players[0].table.last_seq);
    assert_eq!(
        state.your_seat.map(|seat| seat.index()),
        Some(3),
        "back in his seat"
    );
    west.table.dropped();
    players.push(west);

    play_games(&mut players, &mut [], 1, Duration::from_secs(120)).await;
    let (winner, score) = game_over(&players[0]);
    check_against_replay(server.address, &players[0].token, winner, score).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_sigkill_numbering_goes_on_and_retries_are_recognised() {
    numbering_and_retries_survive(Stop::Kill).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_sigterm_numbering_goes_on_and_retries_are_recognised() {
    numbering_and_retries_survive(Stop::Term).await;
}
