//! The database going away under a running server. Play carries on while it is
//! gone, and this case checks that every hand reaches the database once it
//! comes back rather than being lost.

use super::*;

/// A Postgres server of the test's own, in a folder of its own, run as the
/// `postgres` user (Postgres refuses to run as root).
struct ThrowawayPostgres {
    bin: PathBuf,
    data: PathBuf,
    port: u16,
}

impl ThrowawayPostgres {
    fn as_postgres(&self, program: &str) -> Command {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(self.bin.join(program));
        command
    }

    /// Sets one up, or says why it cannot be (outside CI only).
    fn create() -> Option<ThrowawayPostgres> {
        let in_ci = std::env::var("CI").is_ok_and(|ci| ci == "true");
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .ok()
            .and_then(|versions| {
                versions
                    .flatten()
                    .map(|v| v.path().join("bin"))
                    .find(|b| b.join("initdb").exists())
            });
        let Some(bin) = bin else {
            assert!(!in_ci, "CI: initdb is not installed");
            eprintln!("no initdb: the Postgres outage test is skipped");
            return None;
        };
        let data = std::env::temp_dir().join(format!("spades-pg-{}-{}", std::process::id(), free_port()));
        std::fs::create_dir_all(&data).unwrap();
        let owned = Command::new("chown")
            .args(["-R", "postgres:postgres"])
            .arg(&data)
            .status();
        if !owned.is_ok_and(|s| s.success()) {
            assert!(!in_ci, "CI: cannot give the data folder to the postgres user");
            eprintln!("cannot chown to postgres: the Postgres outage test is skipped");
            return None;
        }
        let postgres = ThrowawayPostgres {
            bin,
            data,
            port: free_port(),
        };
        let init = postgres
            .as_postgres("initdb")
            .args(["-A", "trust", "-U", "postgres", "-D"])
            .arg(&postgres.data)
            .stdout(Stdio::null())
            .status()
            .expect("runuser runs");
        assert!(init.success(), "initdb failed");
        Some(postgres)
    }

    fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    fn start(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1",
            self.port,
            self.data.display()
        );
        let status = self
            .as_postgres("pg_ctl")
            .args(["-D"])
            .arg(&self.data)
            .args(["-o", &options, "-l"])
            .arg(self.data.join("log"))
            .args(["-w", "start"])
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "pg_ctl start failed");
    }

    fn stop(&self) {
        let status = self
            .as_postgres("pg_ctl")
            .args(["-D"])
            .arg(&self.data)
            .args(["-m", "fast", "-w", "stop"])
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "pg_ctl stop failed");
    }
}

impl Drop for ThrowawayPostgres {
    fn drop(&mut self) {
        let _ = self
            .as_postgres("pg_ctl")
            .args(["-D"])
            .arg(&self.data)
            .args(["-m", "immediate", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.data);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_postgres_goes_away_play_goes_on_and_every_hand_is_stored_when_it_returns() {
    let Some(postgres) = ThrowawayPostgres::create() else {
        return;
    };
    postgres.start();
    let server = ServerProcess::start(&postgres.url(), free_port()).await;
    let url = server.url();
    let mut players = four_players(&url).await;
    let tournament = RulesSpec {
        preset: Some(spades_engine::Preset::Tournament),
        ..RulesSpec::default()
    };
    seat_four(&mut players, tournament).await;
    players[0].start_game().await;
    // Four more players wait at another table, to try to start a game.
    let mut others = four_players(&url).await;
    seat_four(&mut others, RulesSpec::default()).await;
    play_into_hand(&mut players, 1, 4).await;

    postgres.stop();
    // Play goes on; the server says it is degraded and starts no game.
    play_into_hand(&mut players, 2, 8).await;
    let ready = http(server.address, "GET", "/readyz", None, None).await;
    assert_eq!(ready.status, 503);
    assert!(ready.body.contains("degraded"), "{}", ready.body);
    let refused_start = others[0].request(|id| ClientMessage::StartGame { id }).await;
    assert_eq!(refused(refused_start), ErrorCode::StoreUnavailable);

    // East's connection drops. The server cannot ask the store about his
    // token, but it has seen his session: he comes back to his seat.
    let east = &mut players[1];
    let mut client = Client::connect(&url).await.expect("reconnects");
    client.continue_ids(&east.client);
    let welcome = client
        .hello_again(&east.token)
        .await
        .expect("a session seen before is let in while the store is down");
    assert!(
        matches!(welcome, ServerMessage::Welcome { room: Some(_), .. }),
        "{welcome:?}"
    );
    east.client = client;
    east.table.dropped();
    let (room, last_seq) = (east.table.room.clone().unwrap(), east.table.last_seq);
    let back = east
        .request(|id| ClientMessage::Resync { id, room, last_seq })
        .await
        .expect("resync");
    assert!(
        matches!(back, ServerMessage::Ack { .. } | ServerMessage::Snapshot { .. }),
        "{back:?}"
    );
    // A token the server never saw cannot be checked now.
    let mut stranger = Client::connect(&url).await.unwrap();
    assert!(matches!(
        stranger.hello_again("a_0123456789abcdef0123456789abcdef").await,
        Err(spades_client::ClientError::Refused {
            code: ErrorCode::StoreUnavailable,
            ..
        })
    ));
    // No room opens either: it could not number its events.
    let refused_room = others[0].try_create_room().await;
    assert_eq!(refused(refused_room), ErrorCode::StoreUnavailable);
    play_into_hand(&mut players, 2, 11).await;

    postgres.start();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while http(server.address, "GET", "/readyz", None, None).await.status != 200 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the server stayed degraded"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    play_games(&mut players, &mut [], 1, Duration::from_secs(120)).await;

    // Everything played while the database was down is stored.
    let (winner, score) = game_over(&players[0]);
    check_against_replay(server.address, &players[0].token, winner, score).await;
    let api = Api::new(server.address);
    let games = api.recent_games(&players[0].token).await;
    let history = api.history(games.games[0].id).await;
    assert_eq!(
        history.body.lines().count() as u32,
        players[0].table.hands_scored,
        "every hand is stored"
    );
}
