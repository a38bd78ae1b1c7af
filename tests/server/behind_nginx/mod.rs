//! The server behind a real nginx (Debian's), with TLS, run with the very
//! site configuration the README gives operators (`docs/deploy/nginx.conf`):
//! players register, log in and play over `wss://`, the per-address limits
//! count the real clients (whom the test connects from several loopback
//! addresses, since Linux routes all of 127.0.0.0/8 to the loopback
//! device), and what a client writes in its own forwarding headers changes
//! nothing.

mod harness;

use std::net::{IpAddr, Ipv6Addr};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use spades_server::{Config, TrustedProxies};
use tokio_tungstenite::tungstenite::Message;

use crate::support::*;
use harness::*;

async fn send(socket: &mut Socket, message: Value) {
    socket.send(Message::text(message.to_string())).await.unwrap();
}

/// The next message whose `type` is `kind`.
async fn next_of(socket: &mut Socket, kind: &str) -> Value {
    let wait = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            match socket.next().await {
                Some(Ok(Message::Text(text))) => {
                    let message: Value = serde_json::from_str(text.as_str()).unwrap();
                    if message["type"] == kind {
                        return message;
                    }
                    assert_ne!(message["type"], "error", "refused: {message}");
                }
                Some(Ok(_)) => {}
                other => panic!("the socket ended before a {kind}: {other:?}"),
            }
        }
    });
    wait.await.unwrap_or_else(|_| panic!("no {kind} came"))
}

/// A server behind nginx, or `None` (outside CI) where nginx is missing.
async fn behind_nginx(config: Config) -> Option<(TestServer, Nginx)> {
    if let Some(reason) = missing() {
        assert!(!required(), "CI: the nginx tests cannot run: {reason}");
        eprintln!("skipped: {reason}");
        return None;
    }
    let config = Config {
        trusted_proxies: TrustedProxies::parse("127.0.0.1").unwrap(),
        ..config
    };
    let server = TestServer::start(config).await;
    let nginx = Nginx::start(server.address()).await;
    Some((server, nginx))
}

fn credentials(name: &str) -> Value {
    json!({"name": name, "password": "a good password"})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_register_log_in_and_play_over_wss_through_nginx() {
    let Some((_server, nginx)) = behind_nginx(Config::default()).await else {
        return;
    };
    let tess = client(2);
    let session = nginx
        .send(tess, Call::post("/api/register", credentials("Tess")))
        .await;
    assert_eq!(session.status, 201, "{session:?}");
    let login = nginx
        .send(tess, Call::post("/api/login", credentials("Tess")))
        .await;
    assert_eq!(login.status, 200, "{login:?}");
    let token = login.json()["token"].as_str().unwrap().to_string();
    let me = nginx.send(tess, Call::get("/api/me").token(&token)).await;
    assert_eq!((me.status, me.json()["name"].as_str()), (200, Some("Tess")));

    // Over wss://: a table with three bots, the game started and a bid made.
    let mut socket = nginx.websocket(tess, &[]).await.expect("an upgrade");
    send(
        &mut socket,
        json!({"type": "hello", "id": 1, "version": 1, "token": token}),
    )
    .await;
    assert_eq!(next_of(&mut socket, "welcome").await["player"]["name"], "Tess");
    send(&mut socket, json!({"type": "create_room", "id": 2})).await;
    next_of(&mut socket, "snapshot").await;
    send(&mut socket, json!({"type": "sit", "id": 3, "seat": 0})).await;
    next_of(&mut socket, "ack").await;
    for (id, seat) in [(4, 1), (5, 2), (6, 3)] {
        send(&mut socket, json!({"type": "add_bot", "id": id, "seat": seat})).await;
        next_of(&mut socket, "ack").await;
    }
    send(&mut socket, json!({"type": "start_game", "id": 7})).await;
    let dealt = next_of(&mut socket, "hand_started").await;
    assert_eq!(dealt["cards"].as_array().map(Vec::len), Some(13), "{dealt}");
    // The bots bid before her if they sit first; then it is her turn.
    let turn = loop {
        let turn = next_of(&mut socket, "turn").await;
        if turn["seats"]
            .as_array()
            .is_some_and(|seats| seats.iter().any(|seat| seat == 0))
        {
            break turn;
        }
    };
    assert_eq!(turn["expected"], "bid", "{turn}");
    let bid = turn["bids"]
        .as_array()
        .and_then(|bids| bids.last())
        .cloned()
        .unwrap_or(json!(3));
    send(&mut socket, json!({"type": "bid", "id": 8, "bid": bid})).await;
    // Other acks (the start's) may still be on their way first.
    while next_of(&mut socket, "ack").await["id"] != 8 {}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_nginx_the_per_address_limits_count_the_real_clients() {
    let config = Config {
        max_connections_per_address: 2,
        max_sockets_per_address: 3,
        login_failures_per_address: 3,
        // The connections below never say hello; on a busy machine they
        // must not be closed for it before the test is done with them.
        hello_timeout: Duration::from_secs(120),
        ..Config::default()
    };
    let Some((_server, nginx)) = behind_nginx(config).await else {
        return;
    };
    // Three clients hold two connections each: six sockets from nginx,
    // twice the cap on one address's sockets, which a trusted proxy's
    // sockets are not held to.
    let mut held = Vec::new();
    for n in 3..=5 {
        for _ in 0..2 {
            let socket = nginx.websocket(client(n), &[]).await;
            held.push(socket.unwrap_or_else(|refused| panic!("client {n}: {refused:?}")));
        }
    }
    // A third connection of one client is refused, with the reason, also
    // when its upgrade names other addresses in forwarding headers of its
    // own: nginx replaces its `Forwarded` and appends to its
    // `X-Forwarded-For`.
    for headers in [&[][..], &FORGED[..]] {
        let refused = nginx.websocket(client(3), headers).await.err();
        let (status, body) = refused.expect("a third connection of one client is refused");
        assert_eq!(
            (status, body["error"].as_str()),
            (503, Some("too_many_connections"))
        );
    }
    let other = nginx.websocket(client(6), &FORGED).await;
    held.push(other.expect("another client's connection"));
    drop(held);

    // A guesser is stopped at his address's limit, whatever headers he
    // writes; the owner, elsewhere, logs in.
    let owner = nginx
        .send(client(7), Call::post("/api/register", credentials("Owner")))
        .await;
    assert_eq!(owner.status, 201);
    let guess = || {
        Call::post(
            "/api/login",
            json!({"name": "Owner", "password": "a wrong guess"}),
        )
    };
    for _ in 0..3 {
        assert_eq!(nginx.send(client(8), guess().forged()).await.status, 401);
    }
    let stopped = nginx.send(client(8), guess().forged()).await;
    assert_eq!(
        (stopped.status, stopped.json()["error"].as_str()),
        (429, Some("too_many_attempts"))
    );
    let login = nginx
        .send(client(7), Call::post("/api/login", credentials("Owner")))
        .await;
    assert_eq!(login.status, 200, "the owner is not locked out by the guesser");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_nginx_the_server_names_each_client_by_the_address_nginx_saw() {
    let Some((server, nginx)) = behind_nginx(Config::default()).await else {
        return;
    };
    let ada = nginx
        .send(client(9), Call::post("/api/register", credentials("Ada")))
        .await;
    assert_eq!(ada.status, 201);
    let token = ada.json()["token"].as_str().unwrap().to_string();
    server.make_admin("Ada");
    let pat = nginx
        .send(client(10), Call::post("/api/register", credentials("Pat")))
        .await;
    let sanctions = format!(
        "/api/players/{}/sanctions",
        pat.json()["player"]["id"].as_str().unwrap()
    );

    // The audit log names the client each of Ada's warnings came from,
    // not the addresses she wrote herself.
    let mut clients = vec![(client(11), "127.0.0.11")];
    if nginx.ipv6 {
        clients.push((IpAddr::V6(Ipv6Addr::LOCALHOST), "::1"));
    } else {
        eprintln!("no IPv6 on this machine: the test connects over IPv4 only");
    }
    for (from, expected) in clients {
        let warn = json!({"kind": "warn", "reason": "testing"});
        let call = Call::post(&sanctions, warn).token(&token).forged();
        assert_eq!(nginx.send(from, call).await.status, 201);
        let log = nginx.send(from, Call::get("/api/audit").token(&token)).await;
        assert_eq!(log.json()["lines"][0]["client"], expected, "{log:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_site_answers_acme_challenges_and_sends_the_rest_to_https() {
    let Some((_server, nginx)) = behind_nginx(Config::default()).await else {
        return;
    };
    let token = "a-challenge-token";
    let challenge = nginx.webroot.join(".well-known/acme-challenge").join(token);
    std::fs::write(&challenge, "the key authorization").unwrap();
    let path = format!("/.well-known/acme-challenge/{token}");
    let answer = nginx.send_plain(client(12), Call::get(&path)).await;
    assert_eq!(
        (answer.status, answer.body.as_str()),
        (200, "the key authorization")
    );

    let answer = nginx.send_plain(client(12), Call::get("/api/me?x=1")).await;
    assert_eq!(answer.status, 301);
    assert_eq!(answer.header("location"), Some("https://localhost/api/me?x=1"));

    // The health checks are public; the metrics are for the operator, who
    // scrapes the server on its own address.
    let health = nginx.send(client(12), Call::get("/healthz")).await;
    assert_eq!(health.status, 200, "{health:?}");
    let metrics = nginx.send(client(12), Call::get("/metrics")).await;
    assert_eq!(metrics.status, 403, "{metrics:?}");
}
