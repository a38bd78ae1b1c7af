//! What an account's token gives on the WebSocket and what its games leave
//! behind: seats, ratings, history and the leaderboard. A token must never
//! reach another player's seat, and a finished game must be counted exactly
//! once.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_never_gives_another_players_seat() {
    let server = TestServer::start(Config::default()).await;
    let (mut players, code) = four_in_a_game(&server.url).await;

    // Someone else, with his own token, cannot take or use a seat.
    let mut other = Player::connect(&server.url, "Mallory").await;
    other.join_room(&code).await;
    let sit = other.try_sit(0).await;
    assert_eq!(refused(sit), ErrorCode::GameInProgress);
    let play = other
        .request(|id| ClientMessage::Bid {
            id,
            bid: 3,
            blind: false,
        })
        .await;
    assert_eq!(refused(play), ErrorCode::NotSeated);

    // When North is gone, another player resyncing into the room is still
    // only a spectator, and sees no cards.
    drop(std::mem::replace(
        &mut players[0].client,
        Client::connect(&server.url).await.unwrap(),
    ));
    other.client = Client::connect(&server.url).await.unwrap();
    other.client.hello_again(&other.token).await.unwrap();
    // Every replayed event goes through the privacy check of the test
    // client; none may hold cards for a spectator.
    let room = code.clone();
    let replay = other
        .request(|id| ClientMessage::Resync {
            id,
            room,
            last_seq: 0,
        })
        .await
        .unwrap();
    assert!(matches!(replay, ServerMessage::Ack { .. }), "{replay:?}");
    assert_eq!(other.table.seat, None);
    assert!(other.table.cards.is_empty());
    // Asking from past the end gives a snapshot: a spectator's.
    let room = code.clone();
    let snapshot = other
        .request(|id| ClientMessage::Resync {
            id,
            room,
            last_seq: 1_000_000,
        })
        .await
        .unwrap();
    let ServerMessage::Snapshot { state, .. } = snapshot else {
        panic!("{snapshot:?}")
    };
    assert_eq!(state.your_seat, None);
    let game = state.game.expect("a game is on");
    assert_eq!((game.seat, game.cards), (None, None));
    // A forged token is no one.
    let mut forger = Client::connect(&server.url).await.unwrap();
    let forged = format!("{}x", &players[1].token[..players[1].token.len() - 1]);
    assert!(forger.hello_again(&forged).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_between_accounts_is_kept_rated_and_its_history_given_once_over() {
    let server = TestServer::start(Config::default()).await;
    let mut tokens = Vec::new();
    for name in ["Ann", "Ben", "Cat", "Dov"] {
        tokens.push(token_of(&server.api().register(name, "a long password").await));
    }
    let mut players = Vec::new();
    for token in &tokens {
        let mut client = Client::connect(&server.url).await.unwrap();
        let welcome = client.hello_again(token).await.unwrap();
        let ServerMessage::Welcome { player, .. } = welcome else {
            panic!()
        };
        players.push(Player {
            client,
            table: spades_client::TableState {
                me: Some(player.id.clone()),
                ..Default::default()
            },
            name: player.name,
            token: token.clone(),
            id: player.id,
            received: Vec::new(),
            blind_nil: false,
            acted_on: 0,
            gaps: 0,
        });
    }
    let tournament = RulesSpec {
        preset: Some(spades_engine::Preset::Tournament),
        ..RulesSpec::default()
    };
    // A rated table, so that the ratings move.
    seat_four_at(&mut players, tournament, true).await;
    players[0].start_game().await;

    // While the game is on, its history is not given.
    let games: RecentGames = http(server.address(), "GET", "/api/me/games", None, Some(&tokens[1]))
        .await
        .json();
    let game_id = games.games.first().expect("the game is listed").id;
    assert_eq!(games.games[0].status, GameStatus::Playing);
    assert_eq!((games.games[0].score0, games.games[0].winner), (None, None));
    let early = server.api().history(&game_id).await;
    assert_eq!(early.error(), (409, "game_in_progress".to_string()));
    let summary = http(
        server.address(),
        "GET",
        &format!("/api/games/{game_id}"),
        None,
        None,
    )
    .await;
    let raw = summary.value();
    assert!(
        raw.get("seed").is_none() && raw.get("actions").is_none(),
        "nothing that shows cards"
    );
    let summary: GameRecord = summary.json();
    assert_eq!((summary.status, summary.score), (GameStatus::Playing, None));

    play_games(&mut players, &mut [], 1, GAME_DEADLINE).await;
    let hands = players[0].table.hands_scored;

    let history = server.api().history(&game_id).await;
    assert_eq!(history.status, 200);
    let lines: Vec<serde_json::Value> = history
        .body
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len() as u32, hands, "every hand is kept");
    assert_eq!(lines[0]["hand"], 0);
    assert_eq!(lines[0]["hands"].as_array().unwrap().len(), 4);
    assert!(lines.last().unwrap()["winner"].is_number());

    let summary: GameRecord = http(
        server.address(),
        "GET",
        &format!("/api/games/{game_id}"),
        None,
        None,
    )
    .await
    .json();
    assert_eq!(summary.status, GameStatus::Finished);
    assert!(summary.seed.is_some_and(|seed| seed.parse::<u64>().is_ok()));
    assert!(summary.actions.expect("the actions").len() >= 56);
    assert_eq!(summary.players.len(), 4);
    // The final score is given as the WebSocket's game_over gives it.
    let over = players[0]
        .received
        .iter()
        .rev()
        .find_map(|m| match m {
            ServerMessage::Event(RoomEvent {
                kind: EventKind::GameOver { score, .. },
                ..
            }) => Some(*score),
            _ => None,
        })
        .expect("a game over");
    assert_eq!(summary.score.as_deref(), Some(over.as_slice()));

    // Ratings moved: the winners up, the losers down.
    let winner = usize::from(summary.winner.expect("a winner"));
    let board: Leaderboard = http(server.address(), "GET", "/api/leaderboard?per_page=2", None, None)
        .await
        .json();
    assert_eq!(board.total, 4);
    assert_eq!(board.players.len(), 2);
    assert_eq!(board.players[0].rank, 1);
    assert_eq!(board.players[1].rank, 2);
    for (seat, token) in tokens.iter().enumerate() {
        let profile = server.api().me(token).await.profile;
        assert_eq!(profile.games_played, 1);
        let won = seat % 2 == winner;
        assert_eq!(profile.games_won, if won { 1 } else { 0 });
        let rating = profile.rating;
        assert!(
            if won { rating > 1500.0 } else { rating < 1500.0 },
            "seat {seat}: {rating}"
        );
        let winners_on_board: Vec<&str> = board.players.iter().map(|p| p.profile.name.as_str()).collect();
        assert_eq!(winners_on_board.contains(&profile.name.as_str()), won);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leaderboard_page_past_every_player_is_empty() {
    let server = TestServer::start(Config::default()).await;
    server.api().account("Only").await;
    for (query, page) in [
        ("page=2&per_page=100", 2),
        ("page=42949674&per_page=100", 42_949_674),
        ("page=4294967295&per_page=100", u32::MAX),
    ] {
        let board: Leaderboard = server
            .api()
            .get(&format!("/api/leaderboard?{query}"), None)
            .await
            .expect(200)
            .json();
        assert_eq!(board.page, page, "{query}");
        assert_eq!(board.total, 1, "{query}");
        assert!(board.players.is_empty(), "{query}: {:?}", board.players);
    }
}
