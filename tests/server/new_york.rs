//! The rules a client asks for, read over the WebSocket as the server reads
//! them, and New York's game played to its end: its pack's top trumps
//! decide the tricks, and no team bids above 10.

use std::time::Duration;

use spades_engine::{Deck, Preset};
use spades_protocol::event::EventKind;
use spades_protocol::ws::{ClientMessage, ErrorCode, Expected, MessageId, RulesSpec, ServerMessage};
use spades_server::Config;

use crate::support::*;

/// Sends a `create_room` with `rules` written as JSON, as a client writes
/// it, and returns the server's answer: the room's rule set, or the
/// refusal's code and message.
async fn create_with(
    player: &mut Player,
    id: u64,
    rules: &str,
) -> Result<serde_json::Value, (ErrorCode, String)> {
    let text = format!(r#"{{"type":"create_room","id":{id},"rules":{rules}}}"#);
    player.client.send_text(text).await.unwrap();
    let answer = player
        .wait_for(Duration::from_secs(5), |message| {
            matches!(message, ServerMessage::Error { id: Some(MessageId::Number(n)), .. }
                | ServerMessage::Snapshot { id: Some(MessageId::Number(n)), .. } if *n == id)
        })
        .await;
    match answer {
        ServerMessage::Snapshot { state, .. } => Ok(serde_json::to_value(&state.rules).unwrap()),
        ServerMessage::Error { code, message, .. } => Err((code, message)),
        _ => unreachable!(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_setting_is_named_and_null_turns_a_rule_off() {
    let server = TestServer::start(Config::default()).await;
    let mut player = Player::connect(&server.url, "Rules").await;
    // The blind nil exchange out of range is named as itself, not as the
    // ordinary nil exchange whose name ends it.
    let (code, message) = create_with(&mut player, 1, r#"{"blind_nil_pass":5}"#)
        .await
        .unwrap_err();
    assert_eq!(code, ErrorCode::BadRules);
    assert!(message.starts_with("rule blind_nil_pass: "), "{message}");
    let (_, message) = create_with(&mut player, 2, r#"{"nil_pass":5}"#)
        .await
        .unwrap_err();
    assert!(message.starts_with("rule nil_pass: "), "{message}");
    let (_, message) = create_with(&mut player, 3, r#"{"preset":"solo","blind_nil_pass":2}"#)
        .await
        .unwrap_err();
    assert!(message.starts_with("rule blind_nil_pass: "), "{message}");
    // A null mercy is no loss threshold; left out, the preset's.
    let rules = create_with(&mut player, 4, r#"{"mercy":null}"#).await.unwrap();
    assert!(rules["mercy"].is_null(), "{rules}");
    let rules = create_with(&mut player, 5, r#"{"preset":"tournament"}"#)
        .await
        .unwrap();
    assert_eq!(rules["mercy"], -300);
    // So for the other rules that may be off, New York's among them.
    let rules = create_with(
        &mut player,
        6,
        r#"{"preset":"new-york","max_team_bid":null,"sets_to_lose":null,"max_overtricks":null}"#,
    )
    .await
    .unwrap();
    for name in ["max_team_bid", "sets_to_lose", "max_overtricks"] {
        assert!(rules[name].is_null(), "{name}: {rules}");
    }
    assert_eq!(rules["min_team_bid"], 4);
    // A team maximum that leaves a partner no bid is refused by name.
    let (_, message) = create_with(&mut player, 7, r#"{"preset":"new-york","max_team_bid":3}"#)
        .await
        .unwrap_err();
    assert!(message.starts_with("rule max_team_bid: "), "{message}");
    player.still_answers().await;
    server.server.shutdown().await.unwrap();
}

/// The seat that wins a trick by New York City's rule book, from the card
/// strings in play order: the big joker, the little joker, the two of
/// spades and the two of diamonds above the ace of spades, then the other
/// spades; without a trump, the highest card of the suit led.
fn rule_book_winner(leader: u8, cards: &[String]) -> u8 {
    let rank = |text: &str| -> (char, usize) {
        match ["BJ", "LJ", "2S", "2D"].iter().position(|&top| top == text) {
            Some(place) => ('S', 100 - place),
            None => (
                text.chars().nth(1).unwrap(),
                "23456789TJQKA".find(&text[..1]).unwrap(),
            ),
        }
    };
    let led = rank(&cards[0]).0;
    let best = (0..cards.len())
        .max_by_key(|&i| {
            let (suit, strength) = rank(&cards[i]);
            (suit == 'S', suit == led, strength)
        })
        .unwrap();
    (leader + best as u8) % 4
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_york_game_is_played_and_no_team_bids_above_10() {
    let server = TestServer::start(Config::default()).await;
    // New York from its first bid hand, the team blind bid offered at
    // any score, over a few hands.
    let rules = RulesSpec {
        preset: Some(Preset::NewYork),
        team_blind_min_deficit: Some(0),
        max_hands: Some(Some(4)),
        ..RulesSpec::default()
    };
    let mut players = four_players(&server.url).await;
    let code = seat_four(&mut players, rules).await;
    let mut watcher = Player::connect(&server.url, "Watcher").await;
    watcher.join_room(&code).await;
    players[0].start_game().await;

    // Every player bids as much as his turn allows, to press on the
    // maximum; team 0 (seats 0 and 2) bids blind as high as it may, team 1
    // looks. One bid above the turn's list is tried, and refused.
    let mut tried_above = false;
    let mut highest_offered = 0;
    let deadline = tokio::time::Instant::now() + GAME_DEADLINE;
    while watcher.table.games_over == 0 {
        assert!(tokio::time::Instant::now() < deadline, "the game did not end");
        let mut busy = watcher.pump().await > 0;
        for (index, player) in players.iter_mut().enumerate() {
            busy |= player.pump().await > 0;
            if !player.table.should_act() {
                continue;
            }
            let turn = player.table.turn.clone().expect("a turn");
            let offered = turn.bids.clone().unwrap_or_default();
            highest_offered = highest_offered.max(offered.iter().copied().max().unwrap_or(0));
            assert!(
                offered.iter().all(|&bid| bid <= 10),
                "{}: {offered:?}",
                player.name
            );
            let blind = match turn.expected {
                Expected::Bid => false,
                Expected::BlindNilOrLook if index % 2 == 0 && !offered.is_empty() => true,
                _ => {
                    busy |= player.act_if_due().await;
                    continue;
                }
            };
            let most = *offered.iter().max().expect("a bid to make");
            if !tried_above {
                tried_above = true;
                let above = player
                    .request(|id| ClientMessage::Bid {
                        id,
                        bid: most + 1,
                        blind,
                    })
                    .await;
                let expected = if blind {
                    ErrorCode::BlindBidNotAllowed
                } else {
                    ErrorCode::BidNotAllowed
                };
                assert_eq!(refused(above), expected);
            }
            player.acted_on = player.table.turn_seq;
            player.table.acted();
            player
                .request(|id| ClientMessage::Bid { id, bid: most, blind })
                .await
                .expect("the highest bid offered is accepted");
            busy = true;
        }
        if !busy {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
    assert!(tried_above, "a bid was made");
    assert_eq!(highest_offered, 10, "a turn offered the maximum");

    let events: Vec<&EventKind> = watcher.received.iter().filter_map(ServerMessage::event).collect();
    let rules = events
        .iter()
        .find_map(|event| match event {
            EventKind::GameStarted { rules, .. } => Some(*rules),
            _ => None,
        })
        .expect("the game started");
    assert_eq!((rules.deck, rules.max_team_bid), (Deck::NewYorkCity, Some(10)));

    // Every trick goes to the card the rule book ranks highest.
    let mut trick: Vec<(u8, String)> = Vec::new();
    let mut tricks = 0;
    let mut diamond_twos = 0;
    for event in &events {
        match event {
            EventKind::CardPlayed { seat, card } => {
                diamond_twos += usize::from(card.to_string() == "2D");
                trick.push((seat.index() as u8, card.to_string()));
            }
            EventKind::TrickWon { winner, .. } => {
                let cards: Vec<String> = trick.iter().map(|(_, card)| card.clone()).collect();
                assert_eq!(
                    winner.index() as u8,
                    rule_book_winner(trick[0].0, &cards),
                    "{cards:?}"
                );
                trick.clear();
                tricks += 1;
            }
            _ => {}
        }
    }
    assert!(tricks >= 26, "{tricks} tricks");
    assert!(diamond_twos >= 1, "the two of diamonds was played");

    // No team's contract went above 10, and every bid hand's was 4 or more.
    let mut contracts = Vec::new();
    for event in &events {
        if let EventKind::HandScored { hand, teams, .. } = event {
            for team in teams.iter() {
                assert!(team.contract <= 10, "hand {hand}: {team:?}");
                if *hand > 0 {
                    assert!(team.contract >= 4, "hand {hand}: {team:?}");
                    contracts.push(team.contract);
                }
            }
        }
    }
    assert!(!contracts.is_empty(), "a bid hand was scored");
    assert!(contracts.contains(&10), "a team bid its maximum: {contracts:?}");
    server.server.shutdown().await.unwrap();
}
