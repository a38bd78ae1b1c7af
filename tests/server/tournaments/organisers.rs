//! Who may run a tournament: its organiser, an administrator (made one by
//! `spades admin`, never by registering first) and nobody else. The checks come in a fixed order so that a
//! stranger learns nothing about a tournament from the answers he gets.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_is_refused_for_its_token_or_permission_before_its_path_query_or_body() {
    let server = TestServer::start(fast_config()).await;
    let address = server.address();
    // An administrator, and an ordinary player.
    account(address, "Boss").await;
    server.make_admin("Boss");
    let (player, _) = account(address, "Plain").await;
    let raw = reqwest::Client::new();
    let base = format!("http://{address}");

    // No token: 401, however broken the rest is.
    let text_body = raw
        .post(format!("{base}/api/tournaments"))
        .header("content-type", "text/plain")
        .body("not json")
        .send()
        .await
        .expect("an answer");
    assert_eq!(text_body.status().as_u16(), 401);
    let checks = [
        ("POST", "/api/claim", Some(json!({}))),
        ("POST", "/api/tournaments", Some(json!({"max_players": "many"}))),
        (
            "POST",
            "/api/tournaments/not-an-id/bots",
            Some(json!({"count": -1})),
        ),
        ("POST", "/api/players/not-an-id/permissions", Some(json!([]))),
        ("GET", "/api/me/games?limit=lots", None),
    ];
    for (method, path, body) in &checks {
        let answer = http(address, method, path, body.clone(), None).await;
        assert_eq!(answer.error(), (401, "unauthorized".into()), "{method} {path}");
    }

    // A valid token without the permission: 403, before the path or body.
    for (method, path, body) in &checks[1..4] {
        let answer = http(address, method, path, body.clone(), Some(&player)).await;
        assert_eq!(answer.error(), (403, "forbidden".into()), "{method} {path}");
    }
    // With the token, what is wrong with the request is said as before.
    let bad_query = http(address, "GET", "/api/me/games?limit=lots", None, Some(&player)).await;
    assert_eq!(bad_query.error().0, 400);
    let bad_claim = http(address, "POST", "/api/claim", Some(json!({})), Some(&player)).await;
    assert_eq!(bad_claim.error(), (422, "bad_fields".into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_organisers_start_or_cancel_and_registration_closes() {
    let server = TestServer::start(fast_config()).await;
    let address = server.address();
    let (admin, _) = account(address, "Organiser").await;
    server.make_admin("Organiser");
    let (player, player_id) = account(address, "Ordinary").await;
    let settings = json!({"name": "Closed", "max_players": 8});
    // An ordinary player can neither create, start nor cancel.
    let refused = http(
        address,
        "POST",
        "/api/tournaments",
        Some(settings.clone()),
        Some(&player),
    )
    .await;
    assert_eq!(refused.status, 403);
    assert_eq!(refused.value()["error"], "forbidden");
    let id = create(address, &admin, settings).await;
    for action in ["start", "cancel"] {
        let path = format!("/api/tournaments/{id}/{action}");
        let refused = http(address, "POST", &path, None, Some(&player)).await;
        assert_eq!(refused.status, 403, "{action}: {}", refused.body);
        assert_eq!(add_bots(address, &player, &id, 2).await.status, 403);
    }
    assert_eq!(view(address, &id).await.summary.status, TournamentStatus::Open);

    // Registration: once, then withdrawn, then again.
    let register = format!("/api/tournaments/{id}/register");
    assert_eq!(
        http(address, "POST", &register, None, Some(&player)).await.status,
        201
    );
    let twice = http(address, "POST", &register, None, Some(&player)).await;
    assert_eq!(twice.error(), (409, "already_registered".to_string()));
    assert_eq!(
        http(address, "DELETE", &register, None, Some(&player))
            .await
            .status,
        204
    );
    assert_eq!(
        http(address, "DELETE", &register, None, Some(&player))
            .await
            .status,
        404
    );
    assert_eq!(
        http(address, "POST", &register, None, Some(&player)).await.status,
        201
    );

    // Too few to start.
    let start = format!("/api/tournaments/{id}/start");
    let early = http(address, "POST", &start, None, Some(&admin)).await;
    assert_eq!(early.error(), (409, "too_few_players".to_string()));

    // The administrator grants the permission; then the player may.
    let grant = format!("/api/players/{player_id}/permissions");
    let refused = http(
        address,
        "POST",
        &grant,
        Some(json!({"organizer": true})),
        Some(&player),
    )
    .await;
    assert_eq!(refused.status, 403);
    assert_eq!(
        http(
            address,
            "POST",
            &grant,
            Some(json!({"organizer": true})),
            Some(&admin)
        )
        .await
        .status,
        204
    );
    let cancel = format!("/api/tournaments/{id}/cancel");
    assert_eq!(
        http(address, "POST", &cancel, None, Some(&player)).await.status,
        204
    );
    assert_eq!(
        view(address, &id).await.summary.status,
        TournamentStatus::Cancelled
    );
    let late = http(address, "POST", &register, None, Some(&admin)).await;
    assert_eq!(late.error(), (409, "not_open".to_string()));

    // Watching a tournament that does not exist is a clear error.
    let mut client = Player::sign_in(&server.url, "Ordinary", &player).await;
    let tournament = "00000000-0000-4000-8000-000000000000".to_string();
    let reply = client
        .request(|id| ClientMessage::WatchTournament { id, tournament })
        .await;
    assert_eq!(crate::support::refused(reply), ErrorCode::TournamentNotFound);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_command_line_makes_the_first_administrator() {
    let server = TestServer::start(fast_config()).await;
    let address = server.address();
    let is_admin = |token: String| async move { Api::new(address).me(&token).await.is_admin };
    let (first, _) = account(address, "First").await;
    let (boss, _) = account(address, "Boss").await;
    assert!(
        !is_admin(first.clone()).await,
        "registering first makes no administrator"
    );
    let refused = http(
        address,
        "POST",
        "/api/tournaments",
        Some(json!({"name": "Mine"})),
        Some(&first),
    )
    .await;
    assert_eq!(refused.status, 403);
    // The operator, with shell access, names one; the name is found in any case.
    let printed = server.admin(&["role", "boss", "admin"]);
    assert!(printed.contains("admin"), "{printed}");
    assert!(is_admin(boss.clone()).await);
    assert!(!is_admin(first).await);
    create(address, &boss, json!({"name": "Boss cup"})).await;
}
