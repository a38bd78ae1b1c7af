//! "Play these deals again": after a casual game its players ask for a
//! rematch on the same deals, and the new game deals every hand of the
//! old one again with everyone one seat to the left.

use std::time::Duration;

use spades_engine::{CardSet, Preset, Seat};
use spades_protocol::event::EventKind;
use spades_protocol::ws::{ClientMessage, ErrorCode, RulesSpec};
use spades_server::Config;

use crate::support::*;

/// The cards `player` was dealt in the first hand of the room's `game`th
/// game (from 0).
fn first_cards(player: &Player, game: usize) -> CardSet {
    let mut games = 0;
    for message in &player.received {
        match message.event() {
            Some(EventKind::GameStarted { .. }) => games += 1,
            Some(EventKind::HandStarted {
                hand: 0,
                cards: Some(cards),
                ..
            }) if games == game + 1 => return *cards,
            _ => {}
        }
    }
    panic!("{} saw no first hand of game {game}", player.name);
}

async fn ask(player: &mut Player, same_deals: bool) -> Vec<Seat> {
    let mine = player.table.seat.expect("seated");
    let from = player.received.len();
    player
        .request(|id| ClientMessage::Rematch { id, same_deals })
        .await
        .expect("the rematch is asked for");
    // The room's event may come before or after the reply.
    let told = |player: &Player| {
        player.received[from..].iter().find_map(|m| match m.event() {
            Some(EventKind::RematchAsked {
                seat,
                waiting_for,
                same_deals: told,
            }) if *seat == mine => Some((waiting_for.clone(), *told)),
            _ => None,
        })
    };
    player
        .until(Duration::from_secs(5), |player| told(player).is_some())
        .await;
    let (waiting_for, told) = told(player).expect("told");
    assert_eq!(told, same_deals);
    waiting_for
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_players_play_the_same_deals_again_from_the_other_seats() {
    let server = TestServer::start(Config::default()).await;
    let mut players = four_players(&server.url).await;
    let rules = RulesSpec {
        preset: Some(Preset::Tournament),
        max_hands: Some(Some(2)),
        ..RulesSpec::default()
    };
    seat_four(&mut players, rules).await;
    players[0].start_game().await;
    play_games(&mut players, &mut [], 1, GAME_DEADLINE).await;
    let first_id = server.api().recent_games(&players[0].token).await.games[0].id;

    // Three ask for the same deals; a plain rematch from the fourth drops
    // their requests, as it asks for something else.
    for player in &mut players[..3] {
        ask(player, true).await;
    }
    let waiting = ask(&mut players[3], false).await;
    assert_eq!(
        waiting.len(),
        3,
        "the other kind of rematch starts over: {waiting:?}"
    );
    for player in &mut players[..3] {
        ask(player, true).await;
    }
    players[3]
        .request(|id| ClientMessage::Rematch { id, same_deals: true })
        .await
        .expect("the last request");
    for player in players.iter_mut() {
        player
            .until(Duration::from_secs(10), |player| {
                player
                    .received
                    .iter()
                    .filter(|m| matches!(m.event(), Some(EventKind::HandStarted { hand: 0, .. })))
                    .count()
                    == 2
            })
            .await;
    }
    // Everyone moved one seat to the left and holds the first hand that
    // seat was dealt in the first game.
    let before: Vec<(u8, CardSet)> = (0..4u8)
        .map(|seat| (seat, first_cards(&players[seat as usize], 0)))
        .collect();
    for (old_seat, player) in players.iter().enumerate() {
        let seat = player.table.seat.expect("seated").index();
        assert_eq!(seat, (old_seat + 1) % 4, "{} moved left", player.name);
        let (_, held_there) = before[seat];
        assert_eq!(
            first_cards(player, 1),
            held_there,
            "{} got seat {seat}'s cards again",
            player.name
        );
    }

    play_games(&mut players, &mut [], 1, GAME_DEADLINE).await;
    let games = server.api().recent_games(&players[0].token).await.games;
    let second_id = games[0].id;
    assert_ne!(second_id, first_id);
    let (first, second) = (
        server.api().game(first_id).await,
        server.api().game(second_id).await,
    );
    assert_eq!(second.same_deals_as, Some(first_id));
    assert_eq!(first.played_again, vec![second_id]);
    assert_eq!(second.seed, first.seed, "the same seed deals the same hands");
    assert!(!second.rated, "known deals are never rated");
    let names = |record: &spades_protocol::http::GameRecord| -> Vec<String> {
        record.players.iter().map(|player| player.name.clone()).collect()
    };
    assert_eq!(names(&first), ["North", "East", "South", "West"]);
    assert_eq!(names(&second), ["West", "North", "East", "South"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_player_with_bots_plays_the_deals_again_at_once() {
    let server = TestServer::start(Config::default()).await;
    let mut owner = alone_with_bots(&server.url, "Solo", Preset::Tournament, 1).await;
    play_games(std::slice::from_mut(&mut owner), &mut [], 1, GAME_DEADLINE).await;
    // The bots agree at once, and the new game starts with the player one
    // seat to the left; another rematch waits for its end.
    let waiting = ask(&mut owner, true).await;
    assert!(waiting.is_empty(), "the bots always agree: {waiting:?}");
    owner
        .until(Duration::from_secs(10), |owner| owner.table.seat == Seat::new(1))
        .await;
    let playing = owner
        .request(|id| ClientMessage::Rematch { id, same_deals: true })
        .await;
    assert_eq!(refused(playing), ErrorCode::GameInProgress);
}
