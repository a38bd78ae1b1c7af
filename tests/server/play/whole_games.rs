//! Whole games under several rule sets, each watched by a spectator. Only a
//! game played to its end reaches every phase the server drives, and the
//! spectator shows that no hidden card is ever sent to someone who should not
//! see it.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_players_play_whole_games_with_blind_nil_and_the_exchange_while_a_spectator_watches() {
    let server = TestServer::start(Config::default()).await;
    let mut players = four_players(&server.url).await;
    // Seat 0 bids blind nil whenever it is offered; the others look.
    players[0].blind_nil = true;
    let code = seat_four(&mut players, blind_nil_rules()).await;

    let mut watcher = Player::connect(&server.url, "Watcher").await;
    watcher.join_room(&code).await;
    let mut lobbyist = Player::lobby_watcher(&server.url, "Lobbyist").await;

    players[1].start_game().await;
    play_games(&mut players, std::slice::from_mut(&mut watcher), 1, GAME_DEADLINE).await;

    // The lobby shows the room as finished between games.
    lobbyist
        .wait_for(Duration::from_secs(5), |m| {
            matches!(m, ServerMessage::LobbyRoom { room } if room.room == code && room.status == RoomStatus::Finished)
        })
        .await;
    // A card after the end is refused as such.
    let late = players[0].try_play("AS").await;
    assert_eq!(refused(late), ErrorCode::GameOver);
    // The game's id comes with its start and its end, and its stored
    // history is there.
    let started = watcher.received.iter().find_map(|m| match m {
        ServerMessage::Event(RoomEvent {
            kind: EventKind::GameStarted { game_id, .. },
            ..
        }) => Some(game_id.clone()),
        _ => None,
    });
    let ended = watcher.received.iter().find_map(|m| match m {
        ServerMessage::Event(RoomEvent {
            kind: EventKind::GameOver { game_id, .. },
            ..
        }) => Some(game_id.clone()),
        _ => None,
    });
    let game_id = started.expect("a game started");
    assert_eq!(Some(&game_id), ended.as_ref());
    let stored = server.api().history(game_id).await;
    assert_eq!(stored.status, 200, "{}", stored.body);

    // A second game in the same room.
    players[2].start_game().await;
    play_games(&mut players, std::slice::from_mut(&mut watcher), 1, GAME_DEADLINE).await;
    // The spectator sees the end too.
    watcher
        .until(Duration::from_secs(5), |w| w.table.games_over == 2)
        .await;

    let all = |player: &Player, what: fn(&ServerMessage) -> bool| {
        player.received.iter().filter(|m| what(m)).count()
    };
    let watched = &watcher;
    assert_eq!(
        all(watched, |m| matches!(
            m.event(),
            Some(EventKind::GameStarted { .. })
        )),
        2
    );
    assert_eq!(
        all(watched, |m| matches!(
            m.event(),
            Some(EventKind::GameOver { winner: Some(_), .. })
        )),
        2
    );
    assert!(
        all(watched, |m| matches!(
            m.event(),
            Some(EventKind::BidMade { blind: true, .. })
        )) >= 1,
        "a blind nil"
    );
    assert!(
        all(watched, |m| matches!(
            m.event(),
            Some(EventKind::CardsPassed { .. })
        )) >= 2,
        "an exchange"
    );
    assert!(
        all(watched, |m| matches!(
            m.event(),
            Some(EventKind::HandScored { .. })
        )) >= 2
    );

    // Everyone saw the same events in the same order, without gaps.
    for player in players.iter().chain(std::iter::once(&watcher)) {
        assert_eq!(player.gaps, 0, "{} missed events", player.name);
    }

    // The spectator never got a card; each player got his own cards only:
    // the four hands dealt in a hand are disjoint and make a pack.
    for message in &watcher.received {
        let hidden = match message {
            ServerMessage::Event(RoomEvent {
                kind: EventKind::HandStarted { cards, .. },
                ..
            })
            | ServerMessage::Event(RoomEvent {
                kind: EventKind::HandRevealed { cards, .. },
                ..
            }) => cards.is_some(),
            ServerMessage::Event(RoomEvent {
                kind: EventKind::CardsPassed { cards, .. },
                ..
            }) => cards.is_some(),
            _ => false,
        };
        assert!(!hidden, "the spectator received hidden cards: {message:?}");
    }
    // Each player's own cards per hand: from the deal, or from the reveal
    // that follows when they were hidden for blind nil.
    let deals = |player: &Player| -> Vec<CardSet> {
        let mut hands = Vec::new();
        for message in &player.received {
            match message {
                ServerMessage::Event(RoomEvent {
                    kind: EventKind::HandStarted { cards, .. },
                    ..
                }) => hands.push(cards.unwrap_or_default()),
                ServerMessage::Event(RoomEvent {
                    kind:
                        EventKind::HandRevealed {
                            seat,
                            cards: Some(cards),
                            ..
                        },
                    ..
                }) if Some(*seat) == player.table.seat => {
                    *hands.last_mut().unwrap() = *cards;
                }
                _ => {}
            }
        }
        hands
    };
    let per_player: Vec<Vec<CardSet>> = players.iter().map(deals).collect();
    for hand in 0..per_player[0].len() {
        let mut union = CardSet::EMPTY;
        for seat_hands in &per_player {
            let cards = seat_hands[hand];
            assert_eq!(cards.len(), 13, "hand {hand}");
            assert!((union & cards).is_empty(), "two players were dealt the same card");
            union |= cards;
        }
    }
    server.server.shutdown().await.unwrap();
}

/// A suicide room over the WebSocket: every turn to bid says which bids are
/// allowed, the players keep to them, each team has exactly one nil a
/// hand, a bid outside them is refused with `bid_not_allowed`, and the
/// spectator gets no hidden card.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_suicide_room_plays_a_whole_game_with_its_forced_bids() {
    let server = TestServer::start(Config::default()).await;
    let rules = RulesSpec {
        preset: Some(spades_engine::Preset::Suicide),
        max_hands: Some(Some(3)),
        ..RulesSpec::default()
    };
    let (mut players, mut watcher) = watched_game(&server, rules).await;

    // The first bidder's turn names his choices: nil or 4 to 13. A bid of
    // 2 is refused, and the turn stays his.
    let first = loop {
        let mut found = None;
        for (index, player) in players.iter_mut().enumerate() {
            player.pump().await;
            let Some(turn) = player.table.turn.as_ref() else {
                continue;
            };
            if turn.bids.is_some() {
                found = Some((index, turn.bids.clone().unwrap()));
            }
        }
        if let Some(found) = found {
            break found;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    let expected: Vec<u8> = std::iter::once(0).chain(4..=13).collect();
    assert_eq!(first.1, expected);
    let refused_bid = players[first.0]
        .request(|id| ClientMessage::Bid {
            id,
            bid: 2,
            blind: false,
        })
        .await;
    assert_eq!(refused(refused_bid), ErrorCode::BidNotAllowed);

    finish_game(&mut players, &mut watcher).await;

    // One nil per team per hand, the partner at least 4.
    let bids: Vec<(Seat, u8)> = watcher
        .received
        .iter()
        .filter_map(|m| match m.event() {
            Some(EventKind::BidMade { seat, bid, .. }) => Some((*seat, *bid)),
            _ => None,
        })
        .collect();
    assert_eq!(bids.len() % 4, 0);
    assert!(bids.len() >= 8, "{} bids", bids.len());
    for hand in bids.chunks(4) {
        for team in 0..2 {
            let mut ours: Vec<u8> = hand
                .iter()
                .filter(|(seat, _)| seat.index() % 2 == team)
                .map(|&(_, bid)| bid)
                .collect();
            ours.sort_unstable();
            assert_eq!(ours[0], 0, "a nil in team {team}: {hand:?}");
            assert!(ours[1] >= 4, "a partner at 4 or more in team {team}: {hand:?}");
        }
    }
    assert_no_hidden_card(&watcher);
    server.server.shutdown().await.unwrap();
}

/// A jokers room over the WebSocket: every hand deals the joker pack (the
/// jokers in, the twos of clubs and hearts out), the cards travel as `BJ`,
/// `LJ` and `2S`, each trick goes to its best card in this pack's order,
/// and the spectator gets no hidden card.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jokers_room_plays_a_whole_game_with_the_jokers_on_top() {
    let server = TestServer::start(Config::default()).await;
    let rules = RulesSpec {
        preset: Some(spades_engine::Preset::Jokers),
        max_hands: Some(Some(3)),
        ..RulesSpec::default()
    };
    let (mut players, mut watcher) = watched_game(&server, rules).await;
    finish_game(&mut players, &mut watcher).await;

    // The pack, written as the protocol writes it.
    let mut pack: Vec<String> = "CDHS"
        .chars()
        .flat_map(|suit| "23456789TJQKA".chars().map(move |rank| format!("{rank}{suit}")))
        .filter(|card| card != "2C" && card != "2H")
        .chain(["BJ".to_string(), "LJ".to_string()])
        .collect();
    pack.sort();
    // How high a card stands in the suit it follows: the jokers follow as
    // spades, and they and the two of spades outrank the ace.
    let suit = |card: &str| {
        if card.ends_with('J') {
            'S'
        } else {
            card.as_bytes()[1] as char
        }
    };
    let power = |card: &str| match card {
        "BJ" => 102,
        "LJ" => 101,
        "2S" => 100,
        _ => "23456789TJQKA".find(&card[..1]).unwrap(),
    };

    let mut hand: Vec<String> = Vec::new();
    let mut trick: Vec<(Seat, String)> = Vec::new();
    let mut hands = 0;
    for message in &watcher.received {
        match message.event() {
            Some(EventKind::CardPlayed { seat, card, .. }) => {
                hand.push(card.to_string());
                trick.push((*seat, card.to_string()));
            }
            Some(EventKind::TrickWon { winner, .. }) => {
                let led = suit(&trick[0].1);
                let best = trick
                    .iter()
                    .max_by_key(|(_, card)| match suit(card) {
                        'S' => 200 + power(card),
                        s if s == led => power(card),
                        _ => 0,
                    })
                    .unwrap();
                assert_eq!(best.0, *winner, "trick {trick:?}");
                trick.clear();
            }
            Some(EventKind::HandScored { .. }) => {
                hand.sort();
                assert_eq!(hand, pack, "the cards of hand {hands}");
                hand.clear();
                hands += 1;
            }
            _ => {}
        }
    }
    assert!(hands >= 1, "no hand was played");
    assert_no_hidden_card(&watcher);
    // A player's own hand comes with the jokers' strings when he holds them.
    let dealt: Vec<CardSet> = players
        .iter()
        .flat_map(|player| &player.received)
        .filter_map(|m| match m.event() {
            Some(EventKind::HandStarted {
                cards: Some(cards), ..
            }) => Some(*cards),
            _ => None,
        })
        .collect();
    assert!(
        dealt
            .iter()
            .any(|cards| cards.iter().any(|card| card.to_string() == "BJ")),
        "nobody was dealt the big joker"
    );
    server.server.shutdown().await.unwrap();
}

/// A room whose first hand is played without bids: the game goes from
/// `hand_started` straight to `play_started`, each team scores 10 points a
/// trick in that hand, and the second hand is bid as usual.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_hand_without_bids_goes_straight_to_play() {
    let server = TestServer::start(Config::default()).await;
    let rules = RulesSpec {
        unbid_first_hand: Some(true),
        max_hands: Some(Some(2)),
        ..RulesSpec::default()
    };
    let (mut players, mut watcher) = watched_game(&server, rules).await;
    finish_game(&mut players, &mut watcher).await;

    let events: Vec<&EventKind> = watcher.received.iter().filter_map(|m| m.event()).collect();
    let first_hand: Vec<&EventKind> = events
        .iter()
        .skip_while(|kind| !matches!(kind, EventKind::HandStarted { hand: 0, .. }))
        .take_while(|kind| !matches!(kind, EventKind::HandStarted { hand: 1, .. }))
        .copied()
        .collect();
    assert!(
        matches!(first_hand.get(1), Some(EventKind::PlayStarted { .. })),
        "play starts right after the deal: {:?}",
        first_hand.get(1)
    );
    assert!(
        !first_hand
            .iter()
            .any(|kind| matches!(kind, EventKind::BidMade { .. }))
    );
    let teams = first_hand
        .iter()
        .find_map(|kind| match kind {
            EventKind::HandScored { teams, .. } => Some(teams.clone()),
            _ => None,
        })
        .expect("the first hand is scored");
    let tricks: u8 = teams.iter().map(|team| team.tricks).sum();
    assert_eq!(tricks, 13);
    for team in teams.iter() {
        assert_eq!(team.change, 10 * i32::from(team.tricks), "{team:?}");
        assert_eq!(team.bags, 0);
    }
    // The second hand has its four bids. (Equal scores after it play a
    // third hand, whose bids are not counted here.)
    let bids = events
        .iter()
        .skip_while(|kind| !matches!(kind, EventKind::HandStarted { hand: 1, .. }))
        .take_while(|kind| !matches!(kind, EventKind::HandStarted { hand: 2, .. }))
        .filter(|kind| matches!(kind, EventKind::BidMade { .. }))
        .count();
    assert_eq!(bids, 4);
    server.server.shutdown().await.unwrap();
}

/// A solo room over the WebSocket: four players each on his own. Every
/// hand is scored for four teams of one, each from his own bid and tricks;
/// nobody passes cards; the game ends with four scores, the best of them
/// winning; and the stored game says the same once it is written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_solo_room_plays_a_whole_game_with_four_scores() {
    let server = TestServer::start(Config::default()).await;
    let rules = RulesSpec {
        preset: Some(spades_engine::Preset::Solo),
        max_hands: Some(Some(3)),
        ..RulesSpec::default()
    };
    let (mut players, mut watcher) = watched_game(&server, rules).await;
    finish_game(&mut players, &mut watcher).await;

    let mut bids = [None; 4];
    let mut tricks = [0i32; 4];
    let mut hands = 0;
    let mut over = None;
    for message in &watcher.received {
        match message.event() {
            Some(EventKind::GameStarted { rules, .. }) => assert!(!rules.partners),
            Some(EventKind::HandStarted { .. }) => tricks = [0; 4],
            Some(EventKind::BidMade { seat, bid, blind }) => bids[seat.index()] = Some((*bid, *blind)),
            Some(EventKind::TrickWon { winner, .. }) => tricks[winner.index()] += 1,
            Some(EventKind::CardsPassed { .. }) => panic!("a pass in solo: {message:?}"),
            Some(EventKind::HandScored { teams, .. }) => {
                hands += 1;
                assert_eq!(teams.len(), 4, "{teams:?}");
                for (seat, team) in teams.iter().enumerate() {
                    // Each player's own bid against his own tricks.
                    let (bid, blind) = bids[seat].expect("every seat bid");
                    let taken = tricks[seat];
                    let expected = match (bid, blind) {
                        (0, blind) => {
                            let value = if blind { 200 } else { 100 };
                            if taken == 0 { value } else { -value + taken }
                        }
                        (n, _) if taken >= i32::from(n) => 10 * i32::from(n) + taken - i32::from(n),
                        (n, _) => -10 * i32::from(n),
                    };
                    assert_eq!(team.change + team.bag_penalty, expected, "seat {seat}: {team:?}");
                }
            }
            Some(EventKind::GameOver {
                winner,
                score,
                game_id,
            }) => {
                over = Some((*winner, score.as_slice().to_vec(), game_id.clone()));
            }
            _ => {}
        }
    }
    assert!(hands >= 3, "{hands} hands");
    let (winner, score, game_id) = over.expect("the game ended");
    let winner = winner.expect("a winner").index();
    assert_eq!(score.len(), 4);
    assert_eq!(score[winner], *score.iter().max().unwrap(), "{score:?}");
    assert_eq!(watcher.table.score.as_slice(), score.as_slice());
    assert_no_hidden_card(&watcher);

    // The end is written by the journal after the players learn of it.
    let api = server.api();
    let path = format!("/api/games/{game_id}");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let record = loop {
        let record: spades_protocol::http::GameRecord = api.get(&path, None).await.json();
        if record.status != spades_protocol::http::GameStatus::Playing {
            break record;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the game's end was not stored"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(record.status, spades_protocol::http::GameStatus::Finished);
    assert_eq!(record.winner, Some(winner as u8));
    assert_eq!(record.score, Some(score));
    server.server.shutdown().await.unwrap();
}
