//! A player's review of his finished game by the expert bot: refused while
//! the game is played and to anyone who did not play in it, queued, then
//! kept; a bid far off the hand is marked.

use std::time::Duration;

use spades_client::table::Move;
use spades_engine::Preset;
use spades_protocol::event::EventKind;
use spades_protocol::review::GameReview;
use spades_protocol::ws::Expected;
use spades_server::Config;

use crate::support::*;

/// The id of the game the player saw start.
fn started(player: &Player) -> Option<String> {
    player.received.iter().find_map(|m| match m.event() {
        Some(EventKind::GameStarted { game_id, .. }) => Some(game_id.clone()),
        _ => None,
    })
}

/// Plays the owner's game to its end, bidding 10 in the first hand
/// whatever he holds, and otherwise as the test client does.
async fn play_bidding_ten(owner: &mut Player) {
    let deadline = tokio::time::Instant::now() + GAME_DEADLINE;
    while owner.table.games_over == 0 {
        owner.pump().await;
        let overbid = owner.table.should_act()
            && owner.table.hand == 0
            && owner.table.turn.as_ref().is_some_and(|turn| {
                turn.expected == Expected::Bid && turn.bids.as_ref().is_some_and(|bids| bids.contains(&10))
            });
        if overbid {
            owner.acted_on = owner.table.turn_seq;
            owner.table.acted();
            let id = owner.client.next_id();
            let bid = Move::Bid {
                bid: 10,
                blind: false,
            };
            owner.client.send(&bid.message(id)).await.expect("sent");
        } else {
            owner.act_if_due().await;
        }
        assert!(tokio::time::Instant::now() < deadline, "the game did not end");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_gets_his_game_reviewed_once_it_is_over() {
    // Fixed deals, so that the owner's first hand is an ordinary one that
    // no good player would bid 10 on.
    let server = TestServer::start(Config {
        seed: Some(4242),
        ..Config::default()
    })
    .await;
    let api = server.api();
    let mut owner = alone_with_bots(&server.url, "Ann", Preset::Tournament, 2).await;
    owner
        .until(Duration::from_secs(5), |owner| started(owner).is_some())
        .await;
    let game_id = started(&owner).expect("the game's id");
    let path = format!("/api/games/{game_id}/review");

    // Not while the game is played, not without a session, not for
    // someone else's game, not for a game that does not exist.
    let during = api.post(&path, None, Some(&owner.token)).await;
    assert_eq!(during.error(), (409, "game_in_progress".into()));
    let anonymous = api.post(&path, None, None).await;
    assert_eq!(anonymous.status, 401, "{}", anonymous.body);
    let stranger = Player::connect(&server.url, "Bob").await;
    let nosy = api.post(&path, None, Some(&stranger.token)).await;
    assert_eq!(nosy.error(), (403, "not_a_player".into()));
    let missing = api
        .post(
            "/api/games/00000000-0000-4000-8000-000000000000/review",
            None,
            Some(&owner.token),
        )
        .await;
    assert_eq!(missing.status, 404, "{}", missing.body);
    let bad = api
        .post("/api/games/nonsense/review", None, Some(&owner.token))
        .await;
    assert_eq!(bad.status, 400, "{}", bad.body);

    play_bidding_ten(&mut owner).await;
    let unasked = api.get(&path, Some(&owner.token)).await;
    assert_eq!(unasked.status, 404, "nothing asked yet: {}", unasked.body);
    let asked = api.post(&path, None, Some(&owner.token)).await;
    assert!(matches!(asked.status, 200 | 202), "{}", asked.body);
    let review = loop {
        let answer = api.post(&path, None, Some(&owner.token)).await;
        match answer.status {
            200 => break answer.json::<GameReview>(),
            202 => tokio::time::sleep(Duration::from_millis(200)).await,
            status => panic!("{status}: {}", answer.body),
        }
    };
    assert_eq!(review.seat, 0);
    assert_eq!(review.level, "expert");
    assert!(review.decisions >= 10, "{review:?}");
    let overbid = review
        .marks
        .iter()
        .find(|mark| mark.hand == 0 && mark.played == "bid 10")
        .unwrap_or_else(|| panic!("the bid of 10 is not marked: {review:?}"));
    assert!(overbid.loss >= 10.0 && overbid.better != "bid 10", "{overbid:?}");
    // It is kept: reading it again gives the same review.
    let again = api.get(&path, Some(&owner.token)).await;
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(again.json::<GameReview>(), review);
}
