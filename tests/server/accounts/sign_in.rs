//! Registering, choosing a name and logging in, and the lockout that follows
//! repeated failures. An account is only as safe as these doors, so the cases
//! try names that look alike, passwords guessed from elsewhere and the time a
//! refusal takes.

use super::*;

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
    assert!(!me.is_admin, "registering first makes no one an administrator");
    assert_eq!(me.role, "player");

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
            speed: Default::default(),
            id,
            name: Some("\u{202E}moor".into()),
            rules: RulesSpec::default(),
            private: false,
            bots: Some(BotLevel::Basic),
            rated: false,
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
