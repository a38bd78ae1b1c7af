//! Looking after one's account without email: a new password with the old
//! one, a one-time reset link from an administrator, deleting the account
//! and downloading its data.

use spades_client::{Client, ClientError};
use spades_protocol::ws::ErrorCode;

use super::*;
use crate::sessions::{close_code, signed_in};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_password_needs_the_old_one_and_ends_every_other_session() {
    let site = Site::start(Config::default()).await;
    let api = site.api();
    let kim = api.account("Kim").await;
    let laptop = api.login("Kim", PASSWORD).await.expect(200).json::<Session>();
    let mut socket = signed_in(&site.server, &laptop.token).await;
    let wrong = json!({"old_password": "not the old one", "new_password": "a brand new password"});
    let answer = site
        .call(Method::POST, "/api/me/password", Some(wrong), &kim.token)
        .await;
    assert_eq!(answer.error(), (403, "wrong_password".into()));
    let short = json!({"old_password": PASSWORD, "new_password": "short"});
    let answer = site
        .call(Method::POST, "/api/me/password", Some(short), &kim.token)
        .await;
    assert_eq!(answer.error(), (400, "bad_password".into()));

    let body = json!({"old_password": PASSWORD, "new_password": "a brand new password"});
    let fresh = site
        .call(Method::POST, "/api/me/password", Some(body), &kim.token)
        .await;
    let fresh = fresh.expect(200).json::<Session>();
    assert_eq!(
        close_code(&mut socket).await,
        Some(4004),
        "the other session's socket closes"
    );
    for old in [&kim.token, &laptop.token] {
        assert_eq!(api.try_me(old).await.status, 401);
    }
    api.me(&fresh.token).await;
    assert_eq!(api.login("Kim", PASSWORD).await.status, 401);
    api.login("Kim", "a brand new password").await.expect(200);

    let guest = Player::connect(&site.server.url, "Guest").await;
    let body = json!({"old_password": "", "new_password": "a brand new password"});
    let answer = site
        .call(Method::POST, "/api/me/password", Some(body), &guest.token)
        .await;
    assert_eq!(answer.error(), (409, "guest_account".into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reset_link_works_once_and_only_as_issued() {
    let site = Site::start(Config::default()).await;
    let api = site.api();
    let lee = api.account("Lee").await;
    let path = format!("/api/players/{}/reset-link", lee.player.id);
    let link = site
        .call(Method::POST, &path, None, &site.admin.token)
        .await
        .expect(201)
        .value();
    let token = link["token"].as_str().unwrap().to_string();
    assert_eq!(link["path"], format!("/#/reset/{token}"));
    assert!(token.len() >= 60, "not guessable: {token}");
    let unknown = site
        .call(
            Method::POST,
            "/api/players/00000000-0000-4000-8000-000000000009/reset-link",
            None,
            &site.admin.token,
        )
        .await;
    assert_eq!(unknown.status, 404);

    // A guess, or a nearly right link, does nothing.
    let mut guessed = token.clone();
    guessed.replace_range(..1, if token.starts_with('0') { "1" } else { "0" });
    for wrong in [guessed.as_str(), "", "0000"] {
        let body = json!({"token": wrong, "password": "my new password"});
        let answer = api.post("/api/reset", Some(body), None).await;
        assert_eq!(answer.error(), (400, "bad_reset_link".into()), "{wrong:?}");
    }
    let mut client = Client::connect(&site.server.url).await.unwrap();
    client.hello_again(&lee.token).await.expect("still signed in");

    let body = json!({"token": token, "password": "my new password"});
    let session = api
        .post("/api/reset", Some(body.clone()), None)
        .await
        .expect(200)
        .json::<Session>();
    assert_eq!(session.player.name, "Lee");
    assert_eq!(
        api.try_me(&lee.token).await.status,
        401,
        "every old session ended"
    );
    let mut client = Client::connect(&site.server.url).await.unwrap();
    assert!(matches!(
        client.hello_again(&lee.token).await,
        Err(ClientError::Refused {
            code: ErrorCode::BadToken,
            ..
        })
    ));
    api.login("Lee", "my new password").await.expect(200);
    let again = api.post("/api/reset", Some(body), None).await;
    assert_eq!(again.error(), (400, "bad_reset_link".into()), "it works once");

    // The operator's command line issues one too.
    let printed = site.server.admin(&["reset-link", "Lee"]);
    let token = printed
        .trim()
        .strip_prefix("/#/reset/")
        .expect("a path")
        .to_string();
    let body = json!({"token": token, "password": "the third password"});
    api.post("/api/reset", Some(body), None).await.expect(200);
    api.login("Lee", "the third password").await.expect(200);
    let audit = site
        .call(Method::GET, "/api/audit", None, &site.admin.token)
        .await
        .value();
    let actions: Vec<&str> = audit["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["action"].as_str().unwrap())
        .collect();
    assert_eq!(&actions[..2], ["reset_link", "reset_link"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_account_is_anonymous_and_its_data_can_be_downloaded_first() {
    let site = Site::start(Config::default()).await;
    let api = site.api();
    let dee = api.account("Dee").await;
    let other = api.account("Eli").await;
    let path = format!("/api/me/blocks/{}", other.player.id);
    site.call(Method::PUT, &path, None, &dee.token).await.expect(204);

    let export = site
        .call(Method::GET, "/api/me/export", None, &dee.token)
        .await
        .expect(200);
    assert!(
        export
            .header("content-disposition")
            .unwrap()
            .starts_with("attachment")
    );
    let data = export.value();
    assert_eq!(data["account"]["name"], "Dee");
    assert_eq!(data["profile"]["name"], "Dee");
    assert!(data["games"].is_array());
    assert_eq!(data["blocked"][0]["name"], "Eli");
    assert!(
        data.to_string().find("password").is_none(),
        "no password hash is given out"
    );

    let wrong = site
        .call(
            Method::POST,
            "/api/me/delete",
            Some(json!({"password": "no"})),
            &dee.token,
        )
        .await;
    assert_eq!(wrong.error(), (403, "wrong_password".into()));
    let done = site
        .call(
            Method::POST,
            "/api/me/delete",
            Some(json!({"password": PASSWORD})),
            &dee.token,
        )
        .await;
    assert_eq!(done.status, 204);
    assert_eq!(api.try_me(&dee.token).await.status, 401);
    assert_eq!(api.login("Dee", PASSWORD).await.status, 401);
    let profile = api
        .get(&format!("/api/players/{}", dee.player.id), None)
        .await
        .expect(200)
        .value();
    assert_eq!(profile["name"], "Deleted player");
    // The name is free for someone else.
    api.register("Dee", "someone else's password").await.expect(201);
    // An administrator keeps his account until his role is taken.
    let answer = site
        .call(
            Method::POST,
            "/api/me/delete",
            Some(json!({"password": PASSWORD})),
            &site.admin.token,
        )
        .await;
    assert_eq!(answer.error(), (403, "forbidden".into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operator_sets_a_lost_password_from_the_command_line() {
    let site = Site::start(Config::default()).await;
    let api = site.api();
    let ned = api.account("Ned").await;
    let database = site.server.server.state().config().database_url.clone();
    let printed = admin_cli_with_input(&database, &["password", "ned"], "the operator's choice\n");
    assert!(printed.contains("Ned"), "{printed}");
    assert_eq!(api.try_me(&ned.token).await.status, 401, "every session ended");
    api.login("Ned", "the operator's choice").await.expect(200);
    let log = site
        .call(Method::GET, "/api/audit", None, &site.admin.token)
        .await
        .value();
    assert_eq!(log["lines"][0]["action"], "password");
    assert_eq!(log["lines"][0]["target_name"], "Ned");
}
