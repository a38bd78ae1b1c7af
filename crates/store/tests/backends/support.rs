//! The stores the tests run on and the records they write. Every test needs a
//! fresh store and a few players and games, so these are written once here and
//! cleaned up the same way on both backends.

use super::*;

/// A store for one test, and how to clean it up.
pub(crate) struct TestStore {
    pub(crate) store: Store,
    /// The database's address, for tests that reach past the store.
    pub(crate) url: String,
    pub(crate) cleanup: Option<(String, String)>,
}

impl TestStore {
    pub(crate) async fn sqlite() -> TestStore {
        let (store, path) = sqlite_file().await;
        let url = format!("sqlite:{}", path.display());
        TestStore {
            store,
            url,
            cleanup: None,
        }
    }

    /// A fresh database on the Postgres server of `DATABASE_URL`, or `None`
    /// (outside CI) when there is none.
    pub(crate) async fn postgres() -> Option<TestStore> {
        let in_ci = std::env::var("CI").is_ok_and(|ci| ci == "true");
        let Ok(url) = std::env::var("DATABASE_URL") else {
            assert!(!in_ci, "CI: DATABASE_URL is not set");
            eprintln!("DATABASE_URL is not set: Postgres tests skipped");
            return None;
        };
        let admin = match Store::open(&url).await {
            Ok(admin) => admin,
            Err(error) => {
                assert!(!in_ci, "CI: Postgres at {url} is unreachable: {error}");
                eprintln!("Postgres unreachable ({error}): Postgres tests skipped");
                return None;
            }
        };
        let name = format!("spades_test_{}", Uuid::new_v4().simple());
        admin.create_database(&name).await.expect("creates a database");
        admin.close().await;
        let test_url = replace_database(&url, &name);
        let store = Store::open(&test_url).await.expect("the new database opens");
        store.migrate().await.expect("migrations apply");
        Some(TestStore {
            store,
            url: test_url,
            cleanup: Some((url, name)),
        })
    }

    pub(crate) async fn finish(self) {
        self.store.close().await;
        if let Some((url, name)) = self.cleanup
            && let Ok(admin) = Store::open(&url).await
        {
            let _ = admin.drop_database(&name).await;
            admin.close().await;
        }
    }
}

/// A migrated SQLite store in a fresh file, and the file's path for tests
/// that look at it directly.
pub(crate) async fn sqlite_file() -> (Store, std::path::PathBuf) {
    let path = std::env::temp_dir().join(format!("spades-store-test-{}.db", Uuid::new_v4()));
    let store = Store::open(&format!("sqlite:{}", path.display()))
        .await
        .expect("sqlite opens");
    store.migrate().await.expect("migrations apply");
    (store, path)
}

/// Closes a store made by `sqlite_file` and deletes its files.
pub(crate) async fn remove_sqlite_file(store: Store, path: &std::path::Path) {
    store.close().await;
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

/// The same Postgres address with another database name.
pub(crate) fn replace_database(url: &str, database: &str) -> String {
    let (base, query) = url.split_once('?').map_or((url, None), |(b, q)| (b, Some(q)));
    let prefix = match base.rfind('/') {
        Some(slash) if slash > "postgres://".len() => &base[..slash],
        _ => base,
    };
    match query {
        Some(query) => format!("{prefix}/{database}?{query}"),
        None => format!("{prefix}/{database}"),
    }
}

pub(crate) fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc()
}

pub(crate) async fn registered(store: &Store, name: &str) -> Uuid {
    let id = Uuid::new_v4();
    store
        .create_account(id, name, Some("$argon2id$hash"), now())
        .await
        .unwrap();
    id
}

pub(crate) async fn guest(store: &Store, name: &str) -> Uuid {
    let id = Uuid::new_v4();
    store.create_account(id, name, None, now()).await.unwrap();
    id
}

pub(crate) fn new_game(players: [Uuid; 4]) -> NewGame {
    NewGame {
        id: Uuid::new_v4(),
        room: "ABCDEF".into(),
        room_name: "test".into(),
        private: false,
        owner: players[0],
        number: 0,
        rules: serde_json::json!({"target": 500}),
        seed: u64::MAX - 5,
        players: players.to_vec(),
        started_at: now(),
        tournament: None,
        rated: true,
        speed: "normal".into(),
        same_deals_as: None,
    }
}

pub(crate) fn finished(game: Uuid, winner: Option<u8>) -> FinishedGame {
    FinishedGame {
        id: game,
        winner,
        score: vec![512, 230],
        seating: Seating::Partners,
        abandoned: [false; 4],
        stats: [PlayerStats {
            bids_made: 3,
            bids_total: 5,
            nils_made: 1,
            nils_tried: 2,
        }; 4],
        finished_at: now(),
        tournament: None,
        voided: false,
    }
}
