//! Roles, sanctions, the audit log, reset links, deletion, blocks and
//! reports, on both backends.

use spades_store::{Actor, AuditNote, NewReport, Role, Sanction, SanctionKind};

use super::*;

fn note(action: &str) -> AuditNote {
    AuditNote {
        actor: Actor::operator(),
        action: action.into(),
        target: None,
        reason: "because".into(),
        detail: String::new(),
    }
}

fn sanction(account: Uuid, kind: SanctionKind, ends_at: Option<OffsetDateTime>) -> Sanction {
    Sanction {
        id: Uuid::new_v4(),
        account,
        kind,
        reason: "spam".into(),
        issued_by: None,
        created_at: now(),
        ends_at,
        lifted_at: None,
    }
}

pub(crate) async fn roles_and_sanctions_are_audited(store: &Store) {
    let ann = registered(store, "Ann").await;
    assert!(store.set_role(ann, Role::Moderator, &note("role")).await.unwrap());
    let account = store.account(ann).await.unwrap().unwrap();
    assert_eq!(account.role(), Role::Moderator);
    assert!(account.can_moderate() && !account.is_admin);
    assert!(store.set_role(ann, Role::Admin, &note("role")).await.unwrap());
    let account = store.account(ann).await.unwrap().unwrap();
    assert_eq!(account.role(), Role::Admin);
    assert!(account.can_organize, "an administrator runs tournaments");
    assert!(
        !store
            .set_role(Uuid::new_v4(), Role::Admin, &note("role"))
            .await
            .unwrap()
    );
    store
        .add_sanction(&sanction(ann, SanctionKind::Warn, None), &note("sanction"))
        .await
        .unwrap();
    let log = store.audit_log(None, 10).await.unwrap();
    let actions: Vec<&str> = log.iter().map(|line| line.action.as_str()).collect();
    assert_eq!(
        actions,
        ["sanction", "role", "role"],
        "newest first, one line per change"
    );
    assert!(log[0].seq > log[1].seq);
    let older = store.audit_log(Some(log[0].seq), 10).await.unwrap();
    assert_eq!(older.len(), 2);
    assert_eq!(log[0].actor_name, "operator (command line)");
}

pub(crate) async fn sanctions_end_by_themselves_or_when_lifted(store: &Store) {
    let bob = registered(store, "Bob").await;
    let t = now();
    let mute = sanction(bob, SanctionKind::Mute, Some(t + Duration::from_secs(600)));
    let ban = sanction(bob, SanctionKind::Ban, None);
    let old = sanction(bob, SanctionKind::Suspend, Some(t - Duration::from_secs(1)));
    for one in [&mute, &ban, &old] {
        store.add_sanction(one, &note("sanction")).await.unwrap();
    }
    let in_force = store.sanctions_in_force(bob, t).await.unwrap();
    let kinds: Vec<SanctionKind> = in_force.iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        [SanctionKind::Ban, SanctionKind::Mute],
        "the heaviest first; the ended one is gone"
    );
    let later = store
        .sanctions_in_force(bob, t + Duration::from_secs(700))
        .await
        .unwrap();
    assert_eq!(later.len(), 1, "the mute ended by itself");
    let lifted = store.lift_sanction(ban.id, None, &note("lift")).await.unwrap();
    assert_eq!(lifted.map(|s| s.kind), Some(SanctionKind::Ban));
    assert_eq!(
        store.lift_sanction(ban.id, None, &note("lift")).await.unwrap(),
        None,
        "a sanction is lifted once"
    );
    assert_eq!(
        store.lift_sanction(old.id, None, &note("lift")).await.unwrap(),
        None,
        "an ended one is not lifted"
    );
    assert_eq!(
        store.sanctions_of(bob).await.unwrap().len(),
        3,
        "the record keeps them all"
    );
    assert_eq!(store.all_sanctions_in_force(t).await.unwrap().len(), 1);
}

pub(crate) async fn the_audit_log_refuses_changes_and_removals(store: &Store, url: &str) {
    store.audit(&note("notice")).await.unwrap();
    let attempts = [
        "UPDATE audit_log SET reason = 'nothing happened'",
        "DELETE FROM audit_log",
    ];
    for sql in attempts {
        let refused = if url.starts_with("sqlite:") {
            let pool = sqlx::SqlitePool::connect(url).await.unwrap();
            let done = sqlx::query(sql).execute(&pool).await;
            pool.close().await;
            done.map(|_| ())
        } else {
            let pool = sqlx::PgPool::connect(url).await.unwrap();
            let done = sqlx::query(sql).execute(&pool).await;
            pool.close().await;
            done.map(|_| ())
        };
        let error = refused.expect_err(sql).to_string();
        assert!(error.contains("append-only"), "{sql}: {error}");
    }
    let log = store.audit_log(None, 10).await.unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].reason, "because", "the line is as written");
}

pub(crate) async fn a_reset_link_works_once_and_not_after_it_expires(store: &Store) {
    let ann = registered(store, "Ann").await;
    let (link, old, other) = ([7u8; 32], [8u8; 32], [9u8; 32]);
    let t = now();
    store
        .create_session(&[1; 32], ann, t, t + Duration::from_secs(3600))
        .await
        .unwrap();
    let day = t + Duration::from_secs(24 * 3600);
    assert!(
        store
            .create_reset_link(&link, ann, day, &note("reset_link"))
            .await
            .unwrap()
    );
    assert!(
        store
            .create_reset_link(&other, ann, day, &note("reset_link"))
            .await
            .unwrap()
    );
    assert!(
        store
            .create_reset_link(&old, ann, t - Duration::from_secs(1), &note("reset_link"))
            .await
            .unwrap()
    );
    assert_eq!(store.use_reset_link(&old, "h1").await.unwrap(), None, "expired");
    assert_eq!(
        store.use_reset_link(&[0; 32], "h1").await.unwrap(),
        None,
        "unknown"
    );
    assert_eq!(store.use_reset_link(&link, "new-hash").await.unwrap(), Some(ann));
    assert_eq!(store.use_reset_link(&link, "again").await.unwrap(), None, "used");
    assert_eq!(
        store.use_reset_link(&other, "again").await.unwrap(),
        None,
        "every link of the account is spent"
    );
    let account = store.account(ann).await.unwrap().unwrap();
    assert_eq!(account.password_hash.as_deref(), Some("new-hash"));
    assert_eq!(
        store.session_account(&[1; 32], t).await.unwrap(),
        None,
        "its sessions ended"
    );
    let guest = guest(store, "Guest").await;
    assert!(
        !store
            .create_reset_link(&[3; 32], guest, day, &note("reset_link"))
            .await
            .unwrap(),
        "a guest has no password to reset"
    );
}

pub(crate) async fn a_deleted_account_keeps_its_games_under_an_anonymous_name(store: &Store) {
    let players = [
        registered(store, "Ann").await,
        registered(store, "Bob").await,
        registered(store, "Cy").await,
        registered(store, "Di").await,
    ];
    let game = new_game(players);
    store.write(&[Write::Started(game.clone())]).await.unwrap();
    store.block(players[0], players[1]).await.unwrap();
    assert!(store.delete_account(players[0]).await.unwrap());
    assert!(!store.delete_account(players[0]).await.unwrap(), "once");
    let account = store.account(players[0]).await.unwrap().unwrap();
    assert_eq!(account.name, spades_store::DELETED_NAME);
    assert!(account.deleted_at.is_some() && !account.registered && account.password_hash.is_none());
    assert!(
        store.registered_account("Ann").await.unwrap().is_none(),
        "the name is free again"
    );
    assert!(store.blocks_of(players[0]).await.unwrap().is_empty());
    let stored = store.game(game.id).await.unwrap().expect("the game is kept");
    assert_eq!(stored.summary.id, game.id);
}

pub(crate) async fn blocks_and_reports_are_kept(store: &Store) {
    let (ann, bob, cy) = (
        registered(store, "Ann").await,
        registered(store, "Bob").await,
        registered(store, "Cy").await,
    );
    store.block(ann, bob).await.unwrap();
    store.block(ann, bob).await.unwrap();
    assert_eq!(
        store.blocks_of(ann).await.unwrap().len(),
        1,
        "blocking twice is blocking once"
    );
    assert!(store.any_blocks_among(&[cy, bob, ann]).await.unwrap());
    assert!(!store.any_blocks_among(&[cy, bob]).await.unwrap());
    assert_eq!(store.all_blocks().await.unwrap(), [(ann, bob)]);
    assert!(store.unblock(ann, bob).await.unwrap());
    assert!(!store.unblock(ann, bob).await.unwrap());
    let report = NewReport {
        id: Uuid::new_v4(),
        reporter: ann,
        target: bob,
        reason: "rude".into(),
        room: Some("ABCDEF".into()),
        game: None,
        context: serde_json::json!({"chat": [{"name": "Bob", "text": "you lose"}]}),
    };
    store.add_report(&report).await.unwrap();
    assert_eq!(store.open_reports_by(ann).await.unwrap(), 1);
    let open = store.open_reports(10).await.unwrap();
    assert_eq!(open.len(), 1);
    assert_eq!(
        (open[0].reporter_name.as_str(), open[0].target_name.as_str()),
        ("Ann", "Bob")
    );
    assert_eq!(open[0].context.0["chat"][0]["text"], "you lose");
    assert!(
        store
            .resolve_report(report.id, cy, "warned", &note("resolve_report"))
            .await
            .unwrap()
    );
    assert!(
        !store
            .resolve_report(report.id, cy, "again", &note("resolve_report"))
            .await
            .unwrap()
    );
    assert!(store.open_reports(10).await.unwrap().is_empty());
    assert_eq!(
        store.reports_about(bob).await.unwrap()[0].resolution.as_deref(),
        Some("warned")
    );
}

pub(crate) async fn rated_games_count_less_when_repeated_and_not_at_all_when_casual(store: &Store) {
    let players = [
        registered(store, "Ann").await,
        registered(store, "Bob").await,
        registered(store, "Cy").await,
        registered(store, "Di").await,
    ];
    let rating = |store: &Store, id: Uuid| {
        let store = store.clone();
        async move { store.profile(id).await.unwrap().unwrap().rating }
    };
    let mut gains = Vec::new();
    for _ in 0..3 {
        let before = rating(store, players[0]).await;
        let game = new_game(players);
        store.write(&[Write::Started(game.clone())]).await.unwrap();
        store
            .write(&[Write::Finished(finished(game.id, Some(0)))])
            .await
            .unwrap();
        gains.push(rating(store, players[0]).await - before);
        let stored = store.game(game.id).await.unwrap().unwrap();
        assert!(stored.summary.rated);
    }
    assert!(gains[0] > 0.0 && gains[1] > 0.0 && gains[2] > 0.0, "{gains:?}");
    assert!(
        gains[1] < gains[0] * 0.75,
        "the second meeting counts about half: {gains:?}"
    );
    assert!(gains[2] < gains[1], "the third less again: {gains:?}");

    // A casual table moves nothing, nor does a rated one where a player
    // blocks another.
    let before = rating(store, players[0]).await;
    let casual = NewGame {
        rated: false,
        speed: "normal".into(),
        same_deals_as: None,
        ..new_game(players)
    };
    store.write(&[Write::Started(casual.clone())]).await.unwrap();
    store
        .write(&[Write::Finished(finished(casual.id, Some(0)))])
        .await
        .unwrap();
    assert_eq!(rating(store, players[0]).await, before);
    store.block(players[3], players[1]).await.unwrap();
    let blocked = new_game(players);
    store.write(&[Write::Started(blocked.clone())]).await.unwrap();
    store
        .write(&[Write::Finished(finished(blocked.id, Some(0)))])
        .await
        .unwrap();
    assert_eq!(rating(store, players[0]).await, before);
}

pub(crate) async fn abandoned_rated_games_are_listed_for_the_pause(store: &Store) {
    let players = [
        registered(store, "Ann").await,
        registered(store, "Bob").await,
        registered(store, "Cy").await,
        registered(store, "Di").await,
    ];
    let start = now();
    for rated in [true, false, true] {
        let game = NewGame {
            rated,
            ..new_game(players)
        };
        store.write(&[Write::Started(game.clone())]).await.unwrap();
        let mut end = finished(game.id, Some(1));
        end.abandoned = [true, false, false, false];
        store.write(&[Write::Finished(end)]).await.unwrap();
    }
    let left = store
        .abandoned_rated_since(players[0], start - Duration::from_secs(60))
        .await
        .unwrap();
    assert_eq!(left.len(), 2, "the casual game's abandon does not count");
    assert!(
        store
            .abandoned_rated_since(players[1], start - Duration::from_secs(60))
            .await
            .unwrap()
            .is_empty()
    );
    let later = store
        .abandoned_rated_since(players[0], now() + Duration::from_secs(60))
        .await
        .unwrap();
    assert!(later.is_empty());
}
