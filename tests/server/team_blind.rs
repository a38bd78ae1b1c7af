//! A team's blind bid over the WebSocket: offered in the turn, made for
//! both partners at once, shown to each of them alone, and scored double.

use spades_protocol::event::EventKind;
use spades_protocol::ws::{ClientMessage, ErrorCode, RulesSpec, ServerMessage};
use spades_server::Config;

use crate::support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_bids_blind_for_both_partners_and_scores_double() {
    let server = TestServer::start(Config::default()).await;
    // Team blind bids from 6 at any score, and no blind nil: at 0 to 0
    // both teams are offered the blind bid.
    let rules = RulesSpec {
        team_blind: Some(6),
        team_blind_min_deficit: Some(0),
        blind_nil: Some(false),
        max_hands: Some(Some(3)),
        ..RulesSpec::default()
    };
    let mut players = four_players(&server.url).await;
    let code = seat_four(&mut players, rules).await;
    let mut watcher = Player::connect(&server.url, "Watcher").await;
    watcher.join_room(&code).await;
    players[0].start_game().await;

    // The first bidder's turn offers the blind bids 6 to 13, with his
    // cards still hidden; a blind 5 and a seen bid are refused.
    let first = loop {
        let mut found = None;
        for (index, player) in players.iter_mut().enumerate() {
            player.pump().await;
            if let Some(turn) = player.table.turn.as_ref().filter(|_| player.table.my_turn()) {
                found = Some((index, turn.clone()));
            }
        }
        if let Some(found) = found {
            break found;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    };
    let (bidder, turn) = first;
    assert_eq!(turn.expected, spades_protocol::ws::Expected::BlindNilOrLook);
    assert_eq!(turn.bids, Some((6..=13).collect::<Vec<u8>>()));
    assert!(players[bidder].table.hidden, "the bidder's cards are hidden");
    let low = players[bidder]
        .request(|id| ClientMessage::Bid {
            id,
            bid: 5,
            blind: true,
        })
        .await;
    assert_eq!(refused(low), ErrorCode::BlindBidNotAllowed);
    let seen = players[bidder]
        .request(|id| ClientMessage::Bid {
            id,
            bid: 6,
            blind: false,
        })
        .await;
    assert_eq!(refused(seen), ErrorCode::MustLookAtHand);

    // The first bidder of each team bids blind whenever it is offered.
    for player in players.iter_mut() {
        player.blind_nil = true;
    }
    play_games(&mut players, std::slice::from_mut(&mut watcher), 1, GAME_DEADLINE).await;
    watcher
        .until(std::time::Duration::from_secs(5), |w| w.table.games_over == 1)
        .await;

    // Every blind bid is followed at once by the partner's same bid, and
    // each partner is then shown his own cards and no one else's.
    let events: Vec<&EventKind> = watcher.received.iter().filter_map(ServerMessage::event).collect();
    let blind_at: Vec<usize> = (0..events.len())
        .filter(|&i| matches!(events[i], EventKind::BidMade { blind: true, bid, .. } if *bid > 0))
        .collect();
    for pair in blind_at.chunks(2) {
        let [first, second] = pair else {
            panic!("a blind bid without its partner's: {pair:?}");
        };
        // Between the two bids, only the first bidder's cards are shown.
        assert!(
            events[first + 1..*second]
                .iter()
                .all(|event| matches!(event, EventKind::HandRevealed { .. })),
            "the partner's bid comes next: {:?}",
            &events[*first..=*second]
        );
        let (
            EventKind::BidMade { seat, bid, .. },
            EventKind::BidMade {
                seat: partner,
                bid: same,
                ..
            },
        ) = (events[*first], events[*second])
        else {
            unreachable!("both are bids");
        };
        assert_eq!((*partner, *same), (seat.partner(), *bid));
        assert!(*bid >= 6);
    }
    let blind_bids = blind_at.len();
    assert!(blind_bids >= 2, "{blind_bids} blind bids");
    for player in &players {
        let seat = player.table.seat.expect("seated");
        for message in &player.received {
            if let Some(EventKind::HandRevealed { seat: shown, cards }) = message.event() {
                assert_eq!(
                    cards.is_some(),
                    *shown == seat,
                    "{} saw {shown}'s cards",
                    player.name
                );
            }
        }
    }

    // A hand with a team blind bid scores that team's contract double.
    let scored: Vec<_> = events
        .iter()
        .filter_map(|event| match event {
            EventKind::HandScored { teams, .. } => Some(teams.clone()),
            _ => None,
        })
        .collect();
    let blind_scores: Vec<_> = scored.iter().flatten().filter(|team| team.blind).collect();
    assert!(!blind_scores.is_empty(), "a blind contract scored");
    for team in blind_scores {
        let value = 10 * i32::from(team.contract);
        let expected = if team.set { -2 * value } else { 2 * value };
        assert_eq!(team.contract_points, expected, "{team:?}");
    }
    server.server.shutdown().await.unwrap();
}
