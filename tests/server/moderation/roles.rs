//! What each role may do, and nothing more: a player moderates nothing, a
//! moderator sanctions players but neither his peers nor the
//! administrators and has none of the administrators' levers, and nobody
//! can change the audit log through the API.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_role_acts_within_its_reach_only() {
    let site = Site::start(Config::default()).await;
    let api = site.api();
    let pat = api.account("Pat").await;
    let other_mod = api.account("Max").await;
    let path = format!("/api/players/{}/role", other_mod.player.id);
    site.call(
        Method::POST,
        &path,
        Some(json!({"role": "moderator"})),
        &site.admin.token,
    )
    .await
    .expect(204);
    let warn = json!({"kind": "warn", "reason": "testing the limits"});

    // A player moderates nothing.
    let player_only = [
        (
            Method::POST,
            format!("/api/players/{}/sanctions", other_mod.player.id),
            Some(warn.clone()),
        ),
        (Method::GET, "/api/reports".to_string(), None),
        (Method::GET, "/api/sanctions".to_string(), None),
        (
            Method::GET,
            format!("/api/players/{}/moderation", other_mod.player.id),
            None,
        ),
        (Method::GET, "/api/audit".to_string(), None),
        (
            Method::POST,
            "/api/admin/notice".to_string(),
            Some(json!({"message": "hi"})),
        ),
    ];
    for (method, path, body) in player_only {
        let answer = site.call(method.clone(), &path, body, &pat.token).await;
        assert_eq!(answer.error(), (403, "forbidden".into()), "{method} {path}");
    }

    // A moderator has none of the administrators' levers.
    let admin_only = [
        (
            Method::POST,
            format!("/api/players/{}/role", pat.player.id),
            Some(json!({"role": "moderator"})),
        ),
        (Method::GET, "/api/audit".to_string(), None),
        (
            Method::POST,
            "/api/admin/notice".to_string(),
            Some(json!({"message": "hi"})),
        ),
        (
            Method::PUT,
            "/api/admin/maintenance".to_string(),
            Some(json!({"message": "soon"})),
        ),
        (Method::DELETE, "/api/admin/maintenance".to_string(), None),
        (
            Method::POST,
            format!("/api/players/{}/reset-link", pat.player.id),
            None,
        ),
    ];
    for (method, path, body) in admin_only {
        let answer = site
            .call(method.clone(), &path, body, &site.moderator.token)
            .await;
        assert_eq!(answer.error(), (403, "forbidden".into()), "{method} {path}");
    }

    // Nor may he sanction a peer, an administrator or himself.
    for target in [
        &other_mod.player.id,
        &site.admin.player.id,
        &site.moderator.player.id,
    ] {
        let answer = site.sanction(&site.moderator.token, target, warn.clone()).await;
        assert_eq!(answer.error(), (403, "forbidden".into()), "{target}");
    }
    // An administrator may sanction a moderator, but not another
    // administrator, and may not change his own role.
    site.sanction(&site.admin.token, &other_mod.player.id, warn.clone())
        .await
        .expect(201);
    let second_admin = api.account("Adele").await;
    site.server.make_admin("Adele");
    let answer = site
        .sanction(&site.admin.token, &second_admin.player.id, warn.clone())
        .await;
    assert_eq!(answer.error(), (403, "forbidden".into()));
    let own = format!("/api/players/{}/role", site.admin.player.id);
    let answer = site
        .call(
            Method::POST,
            &own,
            Some(json!({"role": "player"})),
            &site.admin.token,
        )
        .await;
    assert_eq!(answer.error(), (403, "forbidden".into()));
    let answer = site
        .call(
            Method::POST,
            &own,
            Some(json!({"role": "king"})),
            &second_admin.token,
        )
        .await;
    assert_eq!(answer.error(), (400, "bad_request".into()));

    // The moderator sanctions a player; taking his role back ends that.
    site.sanction(&site.moderator.token, &pat.player.id, warn.clone())
        .await
        .expect(201);
    let path = format!("/api/players/{}/role", site.moderator.player.id);
    site.call(
        Method::POST,
        &path,
        Some(json!({"role": "player"})),
        &site.admin.token,
    )
    .await
    .expect(204);
    let answer = site.sanction(&site.moderator.token, &pat.player.id, warn).await;
    assert_eq!(answer.error(), (403, "forbidden".into()));
    assert_eq!(api.me(&site.moderator.token).await.role, "player");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_log_records_who_did_what_and_cannot_be_changed_through_the_api() {
    let site = Site::start(Config::default()).await;
    let pat = site.api().account("Pat").await;
    let body = json!({"kind": "suspend", "reason": "griefing", "minutes": 30});
    site.sanction(&site.moderator.token, &pat.player.id, body)
        .await
        .expect(201);
    let log = site
        .call(Method::GET, "/api/audit", None, &site.admin.token)
        .await
        .expect(200);
    let lines = log.value()["lines"].as_array().unwrap().clone();
    let actions: Vec<&str> = lines
        .iter()
        .map(|line| line["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["sanction", "role", "role"], "newest first");
    assert_eq!(lines[0]["actor_name"], "Mo");
    assert_eq!(lines[0]["target_name"], "Pat");
    assert_eq!(lines[0]["reason"], "griefing");
    assert!(
        lines[0]["detail"]
            .as_str()
            .unwrap()
            .starts_with("suspend, until 20")
    );
    assert_eq!(
        lines[2]["actor_name"], "operator (command line)",
        "the first administrator"
    );

    // No method changes it, at the log or at a line.
    let seq = lines[0]["seq"].as_i64().unwrap();
    for method in [Method::POST, Method::PUT, Method::PATCH, Method::DELETE] {
        let answer = site
            .call(
                method.clone(),
                "/api/audit",
                Some(json!({"lines": []})),
                &site.admin.token,
            )
            .await;
        assert_eq!(answer.status, 405, "{method}");
        let line = format!("/api/audit/{seq}");
        let answer = site
            .call(
                method.clone(),
                &line,
                Some(json!({"reason": "nothing"})),
                &site.admin.token,
            )
            .await;
        assert_eq!(answer.status, 404, "{method} {line}");
    }
    let page = site
        .call(
            Method::GET,
            &format!("/api/audit?before={seq}&limit=1"),
            None,
            &site.admin.token,
        )
        .await;
    let older = page.expect(200).value()["lines"].as_array().unwrap().clone();
    assert_eq!(older.len(), 1);
    assert_eq!(older[0]["action"], "role");
    let again = site
        .call(Method::GET, "/api/audit", None, &site.admin.token)
        .await
        .expect(200);
    assert_eq!(
        again.value()["lines"].as_array().unwrap().clone(),
        lines,
        "unchanged"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_moderator_finds_a_player_by_the_name_he_plays_under() {
    let site = Site::start(Config::default()).await;
    let pat = site.api().account("Pat Smith").await;
    let found = site
        .api()
        .get("/api/players?name=pat%20SMITH", None)
        .await
        .expect(200)
        .value();
    assert_eq!(found["id"], pat.player.id.as_str());
    let warn = json!({"kind": "warn", "reason": "found by name"});
    let id = found["id"].as_str().unwrap();
    site.sanction(&site.moderator.token, id, warn).await.expect(201);
    let missing = site.api().get("/api/players?name=Nobody", None).await;
    assert_eq!(missing.error(), (404, "not_found".into()));
    let nameless = site.api().get("/api/players", None).await;
    assert_eq!(nameless.error(), (400, "bad_query".into()));
    // A guest of the same name is not a registered player.
    let guest = Player::connect(&site.server.url, "Wanderer").await;
    assert!(!guest.token.is_empty());
    assert_eq!(
        site.api().get("/api/players?name=Wanderer", None).await.status,
        404
    );
}
