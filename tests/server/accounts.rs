//! Accounts over the HTTP API and their use on the WebSocket: registration,
//! names, passwords, lockout, expiry, logout, guests claiming their name,
//! and what a token does and does not give access to; and the API's
//! answers to requests it cannot read.

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use serde_json::json;
use spades_client::Client;
use spades_protocol::event::{EventKind, RoomEvent};
use spades_protocol::http::{GameRecord, GameStatus, Leaderboard, RecentGames, Session};
use spades_protocol::ws::{BotLevel, ClientMessage, ErrorCode, RulesSpec, ServerMessage};
use spades_server::{Config, PasswordCost, Server};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support::*;

fn token_of(answer: &HttpAnswer) -> String {
    answer.json::<Session>().token
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn register_log_in_and_names_are_unique_in_any_case() {
    let server = TestServer::start(Config::default()).await;
    let created = server.api().register("Alice", "correct horse").await;
    assert_eq!(created.status, 201, "{}", created.body);
    let token = token_of(&created);
    assert!(token.starts_with("a_"));
    let me = server.api().me(&token).await;
    assert_eq!(me.profile.name, "Alice");
    assert!(me.profile.registered);
    assert_eq!(me.profile.rating, 1500.0);
    assert!(me.is_admin, "the first account administers the server");

    let taken = server.api().register("ALICE", "another one").await;
    assert_eq!(taken.error(), (409, "name_taken".to_string()));
    let short = server.api().register("Bob", "short").await;
    assert_eq!(short.error(), (400, "bad_password".to_string()));
    let nameless = server.api().register(" ", "long enough").await;
    assert_eq!(nameless.error(), (400, "bad_name".to_string()));
    let bob = server.api().register("Bob", "long enough").await;
    assert_eq!(
        server.api().try_me(&token_of(&bob)).await.value()["is_admin"],
        false
    );

    let wrong = server.api().login("alice", "wrong password").await;
    assert_eq!(wrong.error(), (401, "bad_credentials".to_string()));
    let unknown = server.api().login("Nobody", "whatever it is").await;
    assert_eq!(
        unknown.status, 401,
        "an unknown name is refused like a wrong password"
    );
    let again = server.api().login("aLiCe", "correct horse").await;
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(again.json::<Session>().player.id, me.profile.id.to_string());

    // The account token opens the WebSocket as the same player.
    let mut client = Client::connect(&server.url).await.unwrap();
    let welcome = client.hello_again(&token_of(&again)).await.unwrap();
    let ServerMessage::Welcome { player, .. } = welcome else {
        panic!("{welcome:?}")
    };
    assert_eq!(player.id, me.profile.id.to_string());
    assert_eq!(player.name, "Alice");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_failures_lock_the_name_and_then_the_address_from_there() {
    let server = TestServer::start(Config::default()).await;
    server.api().register("Carol", "carol's password").await;
    for _ in 0..5 {
        assert_eq!(server.api().login("carol", "nope nope").await.status, 401);
    }
    let locked = server.api().login("Carol", "carol's password").await;
    assert_eq!(
        locked.status, 429,
        "even the right password waits, from this address: {}",
        locked.body
    );
    assert_eq!(locked.value()["error"], "too_many_attempts");
    assert!(locked.header("retry-after").is_some());

    // Other names from the same address are fine until the address limit.
    server.api().register("Dan", "dan's password").await;
    server.api().register("Eve", "eve's password").await;
    assert_eq!(server.api().login("Dan", "dan's password").await.status, 200);
    for n in 0..20 {
        server.api().login(&format!("ghost{n}"), "nothing here").await;
    }
    assert_eq!(
        server.api().login("Eve", "eve's password").await.status,
        429,
        "the address is locked"
    );
    // Except for an account that has logged in from here before: the
    // address's failures at other names are not its own.
    assert_eq!(server.api().login("Dan", "dan's password").await.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_expire_and_logging_out_ends_them() {
    let config = Config {
        session_lifetime: Duration::from_millis(1500),
        ..Config::default()
    };
    let server = TestServer::start(config).await;
    let token = token_of(&server.api().register("Erin", "erin's password").await);
    assert_eq!(server.api().try_me(&token).await.status, 200);
    // The scheme's name is read in any case, as HTTP has it.
    for scheme in ["bearer", "BEARER"] {
        let answer = reqwest::Client::new()
            .get(format!("http://{}/api/me", server.address()))
            .header("Authorization", format!("{scheme} {token}"))
            .send()
            .await
            .expect("the server answers");
        assert_eq!(answer.status().as_u16(), 200, "{scheme}");
    }
    tokio::time::sleep(Duration::from_millis(1700)).await;
    assert_eq!(server.api().try_me(&token).await.status, 401, "expired");
    let mut client = Client::connect(&server.url).await.unwrap();
    assert!(matches!(
        client.hello_again(&token).await,
        Err(spades_client::ClientError::Refused {
            code: ErrorCode::BadToken,
            ..
        })
    ));

    let fresh = token_of(&server.api().login("Erin", "erin's password").await);
    let out = server.api().logout(&fresh).await;
    assert_eq!(out.status, 204);
    assert_eq!(server.api().try_me(&fresh).await.status, 401, "logged out");
    let mut client = Client::connect(&server.url).await.unwrap();
    assert!(matches!(
        client.hello_again(&fresh).await,
        Err(spades_client::ClientError::Refused {
            code: ErrorCode::BadToken,
            ..
        })
    ));
    assert_eq!(server.api().logout(&fresh).await.status, 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_claims_his_name_unless_someone_registered_it() {
    let server = TestServer::start(Config::default()).await;
    let guest = Player::connect(&server.url, "Zed").await;
    assert!(guest.token.starts_with("g_"));
    let profile = server.api().try_me(&guest.token).await.value();
    assert_eq!(profile["registered"], false);

    let claimed = server.api().claim(&guest.token, "zed's password").await;
    assert_eq!(claimed.status, 200, "{}", claimed.body);
    let account_token = token_of(&claimed);
    let now = server.api().try_me(&account_token).await.value();
    assert_eq!(
        (now["registered"].clone(), now["id"].clone()),
        (json!(true), profile["id"].clone())
    );
    assert_eq!(
        server.api().try_me(&guest.token).await.status,
        401,
        "the guest token ends with the claim"
    );
    assert_eq!(server.api().login("zed", "zed's password").await.status, 200);

    // Another guest with the same name cannot claim it now.
    let copycat = Player::connect(&server.url, "Zed").await;
    let refused = server.api().claim(&copycat.token, "copycat pass").await;
    assert_eq!(refused.error(), (409, "name_taken".to_string()));
}

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
    seat_four(&mut players, tournament).await;
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

/// Names that show as nothing, or that turn the text after them around.
const HIDDEN_NAMES: [&str; 8] = [
    "\u{200B}",
    "\u{202E}evil",
    "evil\u{202E}",
    "Ann\u{200D}",
    "\u{2066}Bob\u{2069}",
    "\u{3164}",
    "\u{2800}",
    "\u{FE0F}",
];

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invisible_and_direction_changing_names_are_refused() {
    let server = TestServer::start(Config::default()).await;
    for name in HIDDEN_NAMES {
        let mut client = Client::connect(&server.url).await.unwrap();
        let hello = client.hello(name).await;
        assert!(
            matches!(
                hello,
                Err(spades_client::ClientError::Refused {
                    code: ErrorCode::BadName,
                    ..
                })
            ),
            "hello as {name:?}: {hello:?}"
        );
        let answer = server.api().register(name, "long enough").await;
        assert_eq!(
            answer.error(),
            (400, "bad_name".to_string()),
            "registering {name:?}"
        );
        assert!(
            answer.value()["message"].as_str().unwrap().contains("direction"),
            "{}",
            answer.body
        );
    }

    // A room's name follows the same rules; one it refuses gives way to
    // the owner's.
    let mut owner = Player::connect(&server.url, "Ivy").await;
    let reply = owner
        .request(|id| ClientMessage::CreateRoom {
            id,
            name: Some("\u{202E}moor".into()),
            rules: RulesSpec::default(),
            private: false,
            bots: BotLevel::Basic,
        })
        .await
        .unwrap();
    let ServerMessage::Snapshot { state, .. } = reply else {
        panic!("{reply:?}")
    };
    assert_eq!(state.name, "Ivy's table");

    // Names are stored in one Unicode form: an accent typed as a letter of
    // its own and one typed as a combining mark make the same name.
    assert_eq!(
        server.api().register("Jose\u{301}", "long enough").await.status,
        201
    );
    let twin = server.api().register("Jos\u{E9}", "long enough").await;
    assert_eq!(twin.error(), (409, "name_taken".to_string()));
    let found = server.api().login("JOS\u{E9}", "long enough").await;
    assert_eq!(found.status, 200, "{}", found.body);
    assert_eq!(found.value()["player"]["name"], "Jos\u{E9}");
}

/// Another loopback address: Linux routes all of 127/8 to the loopback
/// interface, so a test can be a second client address.
const ELSEWHERE: [u8; 4] = [127, 0, 0, 2];

/// Sends a request from the local address `from`: `head` is its request
/// line and any headers beyond `Host`, `Connection` and `Content-Length`.
/// The body is written while the answer is read, since the server may
/// answer a large body, and close, before it has read all of it.
async fn send_from(server: &TestServer, from: IpAddr, head: &str, body: Vec<u8>) -> HttpAnswer {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket
        .bind(SocketAddr::new(from, 0))
        .expect("binds to the address");
    let stream = socket.connect(server.address()).await.expect("connects");
    let (mut reader, mut writer) = stream.into_split();
    let request = format!(
        "{head}\r\nHost: localhost\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let writing = tokio::spawn(async move {
        let _ = writer.write_all(request.as_bytes()).await;
        let _ = writer.write_all(&body).await;
        // The write half stays open until the answer is read, since the
        // server takes a client that closes it for one that is gone.
        std::future::pending::<()>().await;
        drop(writer);
    });
    // A server that closes with some of the body unread resets the
    // connection; what it answered before has arrived and is kept.
    let mut response = Vec::new();
    let _ = reader.read_to_end(&mut response).await;
    writing.abort();
    HttpAnswer::from_raw(&String::from_utf8_lossy(&response))
}

fn json_head(method: &str, path: &str) -> String {
    format!("{method} {path} HTTP/1.1\r\nContent-Type: application/json")
}

async fn login_from(server: &TestServer, from: [u8; 4], name: &str, password: &str) -> HttpAnswer {
    Api::from_address(server.address(), IpAddr::from(from))
        .login(name, password)
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attacker_elsewhere_cannot_lock_the_owner_out() {
    let server = TestServer::start(Config::default()).await;
    assert_eq!(server.api().register("Gina", "gina's password").await.status, 201);
    let mut refused = 0;
    for _ in 0..30 {
        let guess = login_from(&server, ELSEWHERE, "gina", "a wild guess").await;
        if guess.status == 429 {
            assert_eq!(guess.value()["error"], "too_many_attempts");
            let wait: u64 = guess
                .header("retry-after")
                .and_then(|value| value.trim().parse().ok())
                .expect("a Retry-After in seconds");
            assert!((1..=15 * 60).contains(&wait), "{wait}");
            refused += 1;
        } else {
            assert_eq!(guess.status, 401, "{}", guess.body);
        }
    }
    assert_eq!(refused, 25, "the guesser gets 5 tries at the name");
    assert_eq!(
        login_from(&server, ELSEWHERE, "gina", "gina's password")
            .await
            .status,
        429,
        "and then not even the right password from there"
    );

    // The owner, at another address, is not held back by any of it, nor by
    // a typing mistake of his own.
    assert_eq!(server.api().login("Gina", "gina's passwrod").await.status, 401);
    let owner = server.api().login("Gina", "gina's password").await;
    assert_eq!(owner.status, 200, "{}", owner.body);
}

/// Starts a server whose passwords cost what `cost` says (`TestServer`
/// makes them cheap).
async fn start_with_cost(config: Config, cost: PasswordCost) -> TestServer {
    let config = Config {
        database_url: fresh_database(),
        password_cost: cost,
        ..config
    };
    let server = Server::start(config, "127.0.0.1:0".parse().unwrap())
        .await
        .expect("the server starts");
    let url = format!("ws://{}/ws", server.local_addr());
    TestServer { server, url }
}

async fn timed_login(server: &TestServer, name: &str) -> Duration {
    let started = Instant::now();
    let answer = server.api().login(name, "not the password").await;
    assert_eq!(answer.status, 401, "{}", answer.body);
    started.elapsed()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_name_takes_as_long_to_refuse_as_a_wrong_password() {
    // A cost that takes tens of milliseconds to check, so that a login
    // that checks nothing is far quicker than one that does. Unoptimised,
    // Argon2 is about ten times as slow.
    let cost = PasswordCost {
        memory_kib: if cfg!(debug_assertions) {
            2 * 1024
        } else {
            16 * 1024
        },
        iterations: 2,
    };
    let config = Config {
        login_failures_per_account: 100,
        login_failures_per_address: 100,
        ..Config::default()
    };
    let server = start_with_cost(config, cost).await;
    assert_eq!(server.api().register("Hal", "hal's password").await.status, 201);
    // Once each first: the first unknown name also makes the decoy hash.
    timed_login(&server, "Hal").await;
    timed_login(&server, "Nobody").await;
    let (mut known, mut unknown) = (Vec::new(), Vec::new());
    for n in 0..7 {
        known.push(timed_login(&server, "Hal").await);
        unknown.push(timed_login(&server, &format!("Nobody{n}")).await);
    }
    let (known, unknown) = (median(known), median(unknown));
    assert!(
        known >= Duration::from_millis(20),
        "the cost is high enough to see: {known:?}"
    );
    assert!(
        unknown * 3 >= known,
        "an unknown name is refused in {unknown:?}, a wrong password in {known:?}"
    );
}

/// Words that would show the server's Rust types through an error message.
fn shows_rust_types(message: &str) -> bool {
    let words = [
        "::",
        "u8",
        "u16",
        "u32",
        "u64",
        "i32",
        "i64",
        "usize",
        "String",
        "Uuid",
        "struct",
        "Option",
        "Credentials",
        "NewPassword",
        "NewSettings",
        "Permissions",
        "Page",
        "Limit",
        "serde",
        "axum",
        "Rejection",
        "Failed to",
    ];
    words.iter().any(|word| message.contains(word))
}

/// A request the API cannot read, and its answer: what the request is, its
/// head and body; the status, the error code, and words its message holds.
type Unreadable = (&'static str, String, Vec<u8>, u16, &'static str, &'static str);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_the_api_cannot_read_are_answered_in_its_error_shape() {
    let server = TestServer::start(Config::default()).await;
    let here = IpAddr::from([127, 0, 0, 1]);
    // Requests that need a token carry the administrator's (the first
    // account registered): without one they would be refused for it first.
    let token = server.api().account("Chief").await.token;
    let authorized = |head: String| format!("{head}\r\nAuthorization: Bearer {token}");
    let json = |value: serde_json::Value| value.to_string().into_bytes();
    let big = {
        let mut body = br#"{"name": "Kim", "password": ""#.to_vec();
        body.resize(10 * 1024 * 1024, b'x');
        body.extend_from_slice(br#""}"#);
        body
    };
    let cases: Vec<Unreadable> = vec![
        (
            "a 10 MB body",
            json_head("POST", "/api/register"),
            big,
            413,
            "payload_too_large",
            "KiB",
        ),
        (
            "a missing field",
            json_head("POST", "/api/register"),
            json(json!({"name": "Kim"})),
            422,
            "bad_fields",
            "`password`",
        ),
        (
            "a field of the wrong type",
            json_head("POST", "/api/login"),
            json(json!({"name": 5, "password": "long enough"})),
            422,
            "bad_fields",
            "`name`",
        ),
        (
            "a number out of range",
            authorized(json_head("POST", "/api/tournaments")),
            json(json!({"name": "Cup", "max_players": -1})),
            422,
            "bad_fields",
            "`max_players`",
        ),
        (
            "a field the request does not take",
            authorized(json_head("POST", "/api/tournaments")),
            json(json!({"name": "Cup", "colour": "red", "format": "swiss"})),
            422,
            "bad_fields",
            "`colour`",
        ),
        (
            "a registration with a field it does not take",
            json_head("POST", "/api/register"),
            json(json!({"name": "Kim", "password": "long enough", "x": 1})),
            422,
            "bad_fields",
            "`x`",
        ),
        (
            "a string for an object",
            json_head("POST", "/api/register"),
            json(json!("Kim")),
            422,
            "bad_fields",
            "object",
        ),
        (
            "a body that is not JSON",
            json_head("POST", "/api/register"),
            br#"{"name": "Kim" "password"}"#.to_vec(),
            400,
            "bad_json",
            "line 1",
        ),
        (
            "an empty body",
            authorized(json_head("POST", "/api/claim")),
            Vec::new(),
            400,
            "bad_json",
            "empty",
        ),
        (
            "JSON sent as plain text",
            "POST /api/register HTTP/1.1\r\nContent-Type: text/plain".into(),
            json(json!({"name": "Kim", "password": "long enough"})),
            415,
            "unsupported_media_type",
            "application/json",
        ),
        (
            "JSON sent with no content type",
            "POST /api/login HTTP/1.1".into(),
            json(json!({"name": "Kim", "password": "long enough"})),
            415,
            "unsupported_media_type",
            "application/json",
        ),
        (
            "a player id that is not a UUID",
            "GET /api/players/not-an-id HTTP/1.1".into(),
            Vec::new(),
            400,
            "bad_path",
            "`id`",
        ),
        (
            "a game id that is not a UUID",
            "GET /api/games/42/history HTTP/1.1".into(),
            Vec::new(),
            400,
            "bad_path",
            "`id`",
        ),
        (
            "a tournament id that is not a UUID",
            "GET /api/tournaments/zzz HTTP/1.1".into(),
            Vec::new(),
            400,
            "bad_path",
            "`id`",
        ),
        (
            "a page that is not a number",
            "GET /api/leaderboard?page=two HTTP/1.1".into(),
            Vec::new(),
            400,
            "bad_query",
            "`page`",
        ),
        (
            "a negative limit",
            authorized("GET /api/me/games?limit=-1 HTTP/1.1".into()),
            Vec::new(),
            400,
            "bad_query",
            "`limit`",
        ),
        (
            "an unknown path",
            "GET /api/nothing/here HTTP/1.1".into(),
            Vec::new(),
            404,
            "not_found",
            "path",
        ),
        (
            "a path outside the API",
            "GET /nothing-here.html HTTP/1.1".into(),
            Vec::new(),
            404,
            "not_found",
            "path",
        ),
        (
            "a method the path does not take",
            "DELETE /api/login HTTP/1.1".into(),
            Vec::new(),
            405,
            "method_not_allowed",
            "method",
        ),
    ];
    for (what, head, body, status, code, said) in cases {
        let answer = send_from(&server, here, &head, body).await;
        assert_eq!(answer.status, status, "{what}: {}", answer.body);
        assert!(
            answer
                .header("content-type")
                .is_some_and(|kind| kind.starts_with("application/json")),
            "{what}: {:?}",
            answer.headers
        );
        let error = answer.value();
        assert_eq!(error["error"], code, "{what}: {}", answer.body);
        let message = error["message"].as_str().expect("a message");
        assert!(message.contains(said), "{what}: {message}");
        assert!(!shows_rust_types(message), "{what}: {message}");
        assert_eq!(error.as_object().unwrap().len(), 2, "{what}: {}", answer.body);
        if status == 405 {
            assert!(
                answer
                    .header("allow")
                    .is_some_and(|allow| allow.to_ascii_uppercase().contains("POST")),
                "{:?}",
                answer.headers
            );
        }
    }
}
