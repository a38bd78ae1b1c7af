//! The web client in real headless Chromium, driven by the Node tests of
//! `tests/browser/` (playwright-core): four pages play a whole game with
//! a blind nil and the exchange, one with the keyboard alone, one
//! reloading mid-hand, a fifth watching; quick play with bots; a
//! tournament to its final places; a replay; a report from the table, a
//! moderator's suspension, the audit log and an administrator's notice;
//! blocking, a player's own account, a reset link and maintenance; the
//! first load's weight and the time a played card takes to show on
//! the other pages; the table fitting the window at five sizes; the
//! turn alert of a page in the background; and, against a second server
//! whose bots keep their human pace, the felt's pace. Screenshots and `metrics.json` go to
//! `target/browser-screenshots/`.
//!
//! A test binary of its own, so that no other test runs beside it: five
//! browser pages already fill the machine's cores, and the time a card
//! takes to show is measured here.

use std::time::Duration;

use serde_json::json;
use spades_server::Config;

// The server tests' helpers; this binary uses only a few of them.
#[allow(dead_code, unused_imports)]
#[path = "server/support.rs"]
mod support;

use support::api::PASSWORD;
use support::{TestServer, node_tests, repository, required};

/// The accounts the pages sign in with, made before the pages start: no
/// page can make an administrator (only the operator's command line can),
/// and the moderator is named by that administrator, as on a real site.
struct Staff {
    organiser: &'static str,
    moderator: &'static str,
    admin: &'static str,
}

const STAFF: Staff = Staff {
    organiser: "Olga",
    moderator: "Mia",
    admin: "Abe",
};

/// Registers the staff's accounts through the HTTP API, makes the
/// organiser and the administrator administrators with `spades admin`,
/// and has the administrator make the moderator one.
async fn prepare_staff(server: &TestServer) {
    let api = server.api();
    for name in [STAFF.organiser, STAFF.admin] {
        api.account(name).await;
        server.make_admin(name);
    }
    let admin = api.login(STAFF.admin, PASSWORD).await.expect(200).value();
    let moderator = api.account(STAFF.moderator).await;
    let path = format!("/api/players/{}/role", moderator.player.id);
    let token = admin["token"].as_str().expect("a session token");
    api.post(&path, Some(json!({"role": "moderator"})), Some(token))
        .await
        .expect(204);
}

const CHROMIUM: &str = "/usr/bin/chromium";

/// Why the browser tests cannot run here, if they cannot.
fn missing() -> Option<String> {
    let root = repository();
    if !std::path::Path::new(CHROMIUM).exists() {
        return Some(format!("{CHROMIUM} is not installed (Debian's `chromium`)"));
    }
    if !root.join("tests/browser/node_modules/playwright-core").exists() {
        return Some("tests/browser/node_modules is missing (`npm ci --prefix tests/browser`)".into());
    }
    if std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_err()
    {
        return Some("Node.js (`node`) is not installed".into());
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_client_plays_in_headless_chromium() {
    if let Some(reason) = missing() {
        assert!(!required(), "the browser tests cannot run: {reason}");
        eprintln!("skipped: {reason}");
        return;
    }
    // Quick play fills a table with bots after a second; the clocks are
    // long enough for a busy machine never to act for a page.
    let server = TestServer::start(Config {
        queue_max_wait: Duration::from_secs(1),
        turn_time: Duration::from_secs(60),
        seat_hold: Duration::from_secs(120),
        bot_time: Duration::from_millis(20),
        ..Config::default()
    })
    .await;
    let url = format!("http://{}", server.address());
    prepare_staff(&server).await;
    let screenshots = repository().join("target/browser-screenshots");
    let _ = std::fs::remove_dir_all(&screenshots);
    let (passed, report) = node_tests(
        &[
            "--test",
            "--test-concurrency=1",
            "tests/browser/load.test.mjs",
            "tests/browser/game.test.mjs",
            "tests/browser/quickplay.test.mjs",
            "tests/browser/tournament.test.mjs",
            "tests/browser/duplicate.test.mjs",
            "tests/browser/variant.test.mjs",
            "tests/browser/moderation.test.mjs",
            "tests/browser/layout.test.mjs",
            "tests/browser/alerts.test.mjs",
            "tests/browser/friends.test.mjs",
            "tests/browser/levels.test.mjs",
            "tests/browser/deals.test.mjs",
        ],
        &[
            ("SPADES_URL", url.into()),
            ("SCREENSHOTS", screenshots.clone().into()),
            ("STAFF_PASSWORD", PASSWORD.into()),
            ("ORGANISER_NAME", STAFF.organiser.into()),
            ("MODERATOR_NAME", STAFF.moderator.into()),
            ("ADMIN_NAME", STAFF.admin.into()),
        ],
    )
    .await;
    // The measurements, and anything the pages noticed on the way, for
    // whoever reads the test's output.
    for line in report
        .lines()
        .filter(|line| line.contains("metrics:") || line.contains("note:"))
    {
        eprintln!("{}", line.trim_start_matches(['#', ' ', '\\']));
    }
    assert!(passed, "{report}");
    assert!(
        report.contains("# fail 0") && report.contains("# skipped 0") && report.contains("# pass 16"),
        "{report}"
    );

    // The felt's pace is measured against bots at their own pace: a
    // second server that keeps the default bot delay.
    let paced = TestServer::start_paced(Config {
        turn_time: Duration::from_secs(60),
        ..Config::default()
    })
    .await;
    let (passed, report) = node_tests(
        &["--test", "tests/browser/pace.test.mjs"],
        &[
            ("SPADES_URL", format!("http://{}", paced.address()).into()),
            ("SCREENSHOTS", screenshots.into()),
        ],
    )
    .await;
    for line in report.lines().filter(|line| line.contains("metrics:")) {
        eprintln!("{}", line.trim_start_matches(['#', ' ', '\\']));
    }
    assert!(passed, "{report}");
    assert!(
        report.contains("# fail 0") && report.contains("# skipped 0") && report.contains("# pass 1"),
        "{report}"
    );
}
