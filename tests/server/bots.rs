//! Bots at the table: seated by a room's owner, playing whole games, and
//! the `bot` command playing over the protocol like any client.

use std::time::Duration;

use spades_engine::Seat;
use spades_protocol::event::{EventKind, RoomEvent};
use spades_protocol::ws::{BotLevel, ClientMessage, ErrorCode, PlayerInfo, RulesSpec, ServerMessage};
use spades_server::Config;

use crate::metrics::Scrape;
use crate::support::*;

fn tournament() -> RulesSpec {
    RulesSpec {
        preset: Some(spades_engine::Preset::Tournament),
        ..RulesSpec::default()
    }
}

async fn add_bot(player: &mut Player, seat: Option<u8>) -> Result<ServerMessage, spades_client::ClientError> {
    add_bot_of(player, seat, None).await
}

async fn add_bot_of(
    player: &mut Player,
    seat: Option<u8>,
    level: Option<BotLevel>,
) -> Result<ServerMessage, spades_client::ClientError> {
    let seat = seat.and_then(Seat::new);
    player
        .request(|id| ClientMessage::AddBot { id, seat, level })
        .await
}

async fn remove_bot(player: &mut Player, seat: u8) -> Result<ServerMessage, spades_client::ClientError> {
    let seat = Seat::new(seat).unwrap();
    player.request(|id| ClientMessage::RemoveBot { id, seat }).await
}

/// The seats as the last `seats` event (or snapshot) the player got shows them.
fn seats_seen(player: &Player) -> Vec<Option<(String, bool)>> {
    seat_players(player)
        .into_iter()
        .map(|seat| seat.map(|(player, connected)| (player.name, player.bot && connected)))
        .collect()
}

/// The players in the seats as `player` saw them last, with whether each
/// is connected.
fn seat_players(player: &Player) -> Vec<Option<(PlayerInfo, bool)>> {
    let seats = player
        .received
        .iter()
        .rev()
        .find_map(|message| match message {
            ServerMessage::Event(RoomEvent {
                kind: EventKind::Seats { seats, .. },
                ..
            }) => Some(seats.to_vec()),
            ServerMessage::Snapshot { state, .. } => Some(state.seats.clone()),
            _ => None,
        })
        .expect("the player has seen the seats");
    seats
        .into_iter()
        .map(|seat| seat.map(|seat| (seat.player, seat.connected)))
        .collect()
}

async fn create_room_with(player: &mut Player, rules: RulesSpec, bots: BotLevel) -> String {
    create_room_asking(player, rules, Some(bots), bots).await
}

/// Opens a room asking for bots of `asked` (the server's default if none)
/// and checks that the room has bots of `expected`.
async fn create_room_asking(
    player: &mut Player,
    rules: RulesSpec,
    asked: Option<BotLevel>,
    expected: BotLevel,
) -> String {
    let reply = player
        .request(|id| ClientMessage::CreateRoom {
            speed: Default::default(),
            id,
            name: None,
            rules,
            private: false,
            bots: asked,
            rated: false,
        })
        .await
        .expect("room created");
    match reply {
        ServerMessage::Snapshot { state, .. } => {
            assert_eq!(state.bots, expected);
            let seat = |n: u8| spades_engine::Seat::new(n).expect("a seat");
            assert_eq!(
                state.teams,
                [[seat(0), seat(2)], [seat(1), seat(3)]],
                "two partnerships"
            );
            state.room
        }
        other => panic!("expected a snapshot, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_seats_bots_that_play_whole_games_with_him() {
    let server = TestServer::start(Config::default()).await;
    let mut owner = Player::connect(&server.url, "Owner").await;
    let mut guest = Player::connect(&server.url, "Guest").await;
    let code = create_room_with(&mut owner, tournament(), BotLevel::Basic).await;
    guest.join_room(&code).await;
    owner.sit(0).await;

    assert_eq!(refused(add_bot(&mut guest, None).await), ErrorCode::NotOwner);
    for _ in 0..3 {
        add_bot(&mut owner, None).await.expect("a bot is seated");
    }
    assert_eq!(refused(add_bot(&mut owner, None).await), ErrorCode::SeatTaken);
    assert_eq!(refused(remove_bot(&mut owner, 0).await), ErrorCode::NotABot);
    remove_bot(&mut owner, 2).await.expect("the bot leaves");
    add_bot(&mut owner, Some(2)).await.expect("and comes back");
    guest
        .until(Duration::from_secs(5), |guest| {
            seats_seen(guest).iter().all(Option::is_some)
        })
        .await;
    let seats = seats_seen(&guest);
    assert_eq!(seats[0], Some(("Owner".to_string(), false)));
    // Each bot has a name of its own and says its level.
    let bots: Vec<PlayerInfo> = seat_players(&guest)[1..]
        .iter()
        .map(|seat| seat.clone().expect("a bot sits there").0)
        .collect();
    for bot in &bots {
        assert!(bot.bot && bot.level == Some(BotLevel::Basic), "{bots:?}");
    }
    let names: std::collections::HashSet<&str> = bots.iter().map(|bot| bot.name.as_str()).collect();
    assert_eq!(names.len(), 3, "three names for three bots: {bots:?}");

    owner.start_game().await;
    assert_eq!(
        refused(remove_bot(&mut owner, 1).await),
        ErrorCode::GameInProgress
    );
    play_games(
        std::slice::from_mut(&mut owner),
        std::slice::from_mut(&mut guest),
        1,
        Duration::from_secs(120),
    )
    .await;
    let bot_plays = owner
        .received
        .iter()
        .filter(|m| matches!(m.event(), Some(EventKind::CardPlayed { seat, .. }) if seat.index() != 0))
        .count();
    assert!(bot_plays >= 3 * 13, "the bots played {bot_plays} cards");
    assert!(
        !owner
            .received
            .iter()
            .any(|m| matches!(m.event(), Some(EventKind::AutoPlayed { .. }))),
        "a bot's own plays are not announced as plays for an absent player"
    );
    // The bots stay seated for the next game.
    let mut late = Player::connect(&server.url, "Late").await;
    late.join_room(&code).await;
    let seats = seats_seen(&late);
    assert!(
        seats[1..]
            .iter()
            .all(|seat| seat.as_ref().is_some_and(|(_, bot)| *bot))
    );
}

/// An owner plays a hand of the tournament preset with three strong bots
/// on `server`.
async fn play_a_hand_with_strong_bots(server: &TestServer) -> Player {
    let mut owner = Player::connect(&server.url, "Owner").await;
    create_room_with(&mut owner, tournament(), BotLevel::Strong).await;
    owner.sit(0).await;
    for _ in 0..3 {
        add_bot(&mut owner, None).await.expect("a bot is seated");
    }
    owner
        .until(Duration::from_secs(5), |owner| {
            seats_seen(owner).iter().all(Option::is_some)
        })
        .await;
    assert!(seat_players(&owner)[1..].iter().all(|seat| {
        seat.as_ref()
            .is_some_and(|(bot, _)| bot.level == Some(BotLevel::Strong))
    }));
    play_first_hand(&mut owner).await;
    let tricks = owner
        .received
        .iter()
        .filter(|m| matches!(m.event(), Some(EventKind::TrickWon { .. })))
        .count();
    assert_eq!(tricks, 13);
    owner
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_picks_each_bots_level_and_an_expert_plays_a_hand() {
    // This server's rooms have expert bots unless their creator says.
    let config = Config {
        bot_time: Duration::from_millis(30),
        default_bots: BotLevel::Expert,
        ..Config::default()
    };
    let server = TestServer::start(config).await;
    let mut owner = Player::connect(&server.url, "Owner").await;
    create_room_asking(&mut owner, tournament(), None, BotLevel::Expert).await;
    owner.sit(0).await;
    add_bot_of(&mut owner, Some(1), Some(BotLevel::Beginner))
        .await
        .expect("a beginner");
    add_bot_of(&mut owner, Some(2), Some(BotLevel::Strong))
        .await
        .expect("a strong bot");
    add_bot_of(&mut owner, Some(3), None)
        .await
        .expect("the room's level");
    // A level that does not exist is refused, and the seat stays free.
    owner
        .client
        .send_text(r#"{"type":"add_bot","id":"x","seat":1,"level":"grandmaster"}"#.to_string())
        .await
        .expect("sent");
    let refusal = owner
        .wait_for(Duration::from_secs(5), |m| {
            matches!(m, ServerMessage::Error { .. })
        })
        .await;
    assert!(
        matches!(
            refusal,
            ServerMessage::Error {
                code: ErrorCode::BadMessage,
                ..
            }
        ),
        "{refusal:?}"
    );
    owner
        .until(Duration::from_secs(5), |owner| {
            seats_seen(owner).iter().all(Option::is_some)
        })
        .await;
    let seated: Vec<(String, Option<BotLevel>)> = seat_players(&owner)[1..]
        .iter()
        .map(|seat| {
            let (bot, _) = seat.clone().expect("a bot");
            (bot.name, bot.level)
        })
        .collect();
    assert_eq!(
        seated,
        [
            ("Sprout".to_string(), Some(BotLevel::Beginner)),
            ("Vega".to_string(), Some(BotLevel::Strong)),
            ("Ember".to_string(), Some(BotLevel::Expert)),
        ]
    );
    play_first_hand(&mut owner).await;
    // The bots may already bid the second hand before the loop above sees
    // the first one scored, so only the first hand's bids are counted.
    let bids = owner
        .received
        .iter()
        .filter_map(ServerMessage::event)
        .take_while(|event| !matches!(event, EventKind::HandScored { .. }))
        .filter(|event| matches!(event, EventKind::BidMade { .. }))
        .count();
    assert_eq!(bids, 4, "every seat bid, the expert's by looking ahead");
}

/// Starts the game and plays its first hand, the owner acting for his seat.
async fn play_first_hand(owner: &mut Player) {
    owner.start_game().await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    while owner.table.hands_scored == 0 {
        owner.pump().await;
        owner.act_if_due().await;
        assert!(tokio::time::Instant::now() < deadline, "the hand did not end");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// The value of a counter in the server's `/metrics`.
async fn counter(server: &TestServer, name: &str) -> f64 {
    Scrape::take(&server.api()).await.value(name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strong_bots_think_and_play_a_hand() {
    let config = Config {
        bot_time: Duration::from_millis(30),
        ..Config::default()
    };
    let server = TestServer::start(config).await;
    play_a_hand_with_strong_bots(&server).await;
    assert_eq!(
        counter(&server, "spades_strong_bot_busy_total").await,
        0.0,
        "one table never needs more strong bots at once than there are cores"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_every_strong_bot_busy_the_basic_bot_plays_and_the_game_goes_on() {
    let config = Config {
        bot_time: Duration::from_millis(30),
        strong_bots_at_once: Some(0),
        ..Config::default()
    };
    let server = TestServer::start(config).await;
    play_a_hand_with_strong_bots(&server).await;
    // The bots had a choice in most of their 39 cards.
    let busy = counter(&server, "spades_strong_bot_busy_total").await;
    assert!(busy >= 10.0, "{busy} cards counted as played by the basic bot");
}

/// What a finished `spades bot` run left.
struct Finished {
    success: bool,
    stderr: String,
}

/// Runs `spades bot` with these arguments and waits for it to finish; it
/// is killed if it has not within three minutes.
async fn run_bots(args: &[&str]) -> Finished {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_spades"))
        .arg("bot")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the bot command runs");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(180);
    let status = loop {
        if let Some(status) = child.try_wait().expect("the bot command can be waited for") {
            break Some(status);
        }
        if tokio::time::Instant::now() >= deadline {
            let _ = child.kill();
            break None;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        use std::io::Read;
        let _ = pipe.read_to_string(&mut stderr);
    }
    Finished {
        success: status.is_some_and(|status| status.success()),
        stderr,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bot_command_plays_over_the_protocol_in_a_room() {
    let server = TestServer::start(Config::default()).await;
    let mut owner = Player::connect(&server.url, "Owner").await;
    let code = create_room_with(&mut owner, tournament(), BotLevel::Basic).await;
    owner.sit(0).await;
    let url = server.url.clone();
    let bots = tokio::spawn(async move {
        run_bots(&[
            "--server", &url, "--room", &code, "--count", "3", "--start", "--games", "1", "--name", "Remote",
        ])
        .await
    });
    // The remote bots sit, start the game, and play it with the owner.
    play_games(
        std::slice::from_mut(&mut owner),
        &mut [],
        1,
        Duration::from_secs(150),
    )
    .await;
    let output = bots.await.unwrap();
    assert!(output.success, "{}", output.stderr);
    // They sat as ordinary players (and left when their game was over).
    let sat = owner.received.iter().any(|message| match message {
        ServerMessage::Event(RoomEvent {
            kind: EventKind::Seats { seats, .. },
            ..
        }) => seats[1..].iter().all(|seat| {
            seat.as_ref()
                .is_some_and(|seat| seat.player.name.starts_with("Remote") && !seat.player.bot)
        }),
        _ => false,
    });
    assert!(sat, "the remote bots never filled the table");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bot_command_plays_through_quick_play() {
    let server = TestServer::start(Config::default()).await;
    let output = run_bots(&[
        "--server",
        &server.url,
        "--queue",
        "tournament",
        "--count",
        "4",
        "--games",
        "1",
    ])
    .await;
    assert!(output.success, "{}", output.stderr);
}
