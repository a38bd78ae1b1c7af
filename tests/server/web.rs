//! The web client as the server serves it: the page at `/` and at a room's
//! link, its modules with the right types, compression, revalidation, and
//! a policy that allows no inline script.

use spades_server::Config;

use crate::support::{TestServer, http, node_tests, required};

/// Sends a GET with extra header lines and returns the head (lowercased)
/// and the raw body.
async fn get(server: &TestServer, path: &str, extra: &str) -> (String, Vec<u8>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(server.address()).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n{extra}\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a whole head");
    let head = String::from_utf8_lossy(&response[..split]).to_ascii_lowercase();
    (head, response[split + 4..].to_vec())
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines()
        .find_map(|line| line.strip_prefix(&format!("{name}:")).map(str::trim))
}

#[tokio::test]
async fn the_page_is_served_at_the_root_and_at_a_rooms_link() {
    let server = TestServer::start(Config::default()).await;
    let root = http(server.address(), "GET", "/", None, None).await;
    assert_eq!(root.status, 200, "{:?}", root.headers);
    assert_eq!(root.header("content-type"), Some("text/html; charset=utf-8"));
    let policy = root
        .header("content-security-policy")
        .expect("a content security policy");
    assert!(policy.contains("default-src 'self'"), "{policy}");
    assert!(
        policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"),
        "{policy}"
    );
    assert_eq!(root.header("x-content-type-options"), Some("nosniff"));
    // Every script of the page is a file of this server: none is inline,
    // and none comes from another host.
    for script in root.body.split("<script").skip(1) {
        let tag = &script[..script.find('>').unwrap()];
        assert!(tag.contains("src=\"/"), "an inline or foreign script: {tag}");
        assert!(
            script[script.find('>').unwrap() + 1..]
                .trim_start()
                .starts_with("</script>")
        );
    }
    assert!(
        !root.body.contains("http://") && !root.body.contains("https://"),
        "nothing from another host"
    );

    let link = http(server.address(), "GET", "/r/ABC123", None, None).await;
    assert_eq!(link.status, 200);
    assert_eq!(link.body, root.body, "a room's link opens the same page");
}

#[tokio::test]
async fn modules_have_their_type_and_unknown_files_get_the_json_404() {
    let server = TestServer::start(Config::default()).await;
    for (path, kind) in [
        ("/js/main.js", "text/javascript; charset=utf-8"),
        ("/js/protocol.js", "text/javascript; charset=utf-8"),
        ("/js/views/lobby.js", "text/javascript; charset=utf-8"),
        ("/app.css", "text/css; charset=utf-8"),
        ("/favicon.svg", "image/svg+xml"),
    ] {
        let (head, body) = get(&server, path, "").await;
        assert!(head.starts_with("http/1.1 200"), "{path}: {head}");
        assert_eq!(header(&head, "content-type"), Some(kind), "{path}");
        assert!(!body.is_empty(), "{path}");
    }
    // The folder's tests and notes are not served, and a missing module is
    // refused in the API's error shape.
    for path in [
        "/js/nope.js",
        "/test/state.test.mjs",
        "/README.md",
        "/js/../README.md",
    ] {
        let answer = http(server.address(), "GET", path, None, None).await;
        assert_eq!(answer.status, 404, "{path}");
        assert_eq!(answer.value()["error"], "not_found", "{path}");
    }
}

#[tokio::test]
async fn files_are_gzipped_when_asked_and_revalidated_with_their_tag() {
    let server = TestServer::start(Config::default()).await;
    let (plain_head, plain) = get(&server, "/js/protocol.js", "").await;
    assert!(header(&plain_head, "content-encoding").is_none());
    let (head, gzipped) = get(&server, "/js/protocol.js", "Accept-Encoding: gzip, br\r\n").await;
    assert_eq!(header(&head, "content-encoding"), Some("gzip"));
    assert_eq!(header(&head, "vary"), Some("accept-encoding"));
    assert_eq!(&gzipped[..2], &[0x1f, 0x8b], "a gzip stream");
    assert!(
        gzipped.len() * 2 < plain.len(),
        "{} of {} bytes",
        gzipped.len(),
        plain.len()
    );

    let tag = header(&head, "etag").expect("an entity tag").to_owned();
    assert_eq!(header(&head, "cache-control"), Some("no-cache"));
    let (again, body) = get(
        &server,
        "/js/protocol.js",
        &format!("Accept-Encoding: gzip\r\nIf-None-Match: {tag}\r\n"),
    )
    .await;
    assert!(again.starts_with("http/1.1 304"), "{again}");
    assert!(body.is_empty());
    // The plain body is another representation: the gzipped one's tag
    // does not stand for it.
    let (plain_again, _) = get(&server, "/js/protocol.js", &format!("If-None-Match: {tag}\r\n")).await;
    assert!(plain_again.starts_with("http/1.1 200"), "{plain_again}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_clients_own_tests_pass_against_this_server() {
    if std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(
            !required(),
            "the web client's tests need Node.js (`node`), which is not installed"
        );
        eprintln!("skipped: the web client's tests need Node.js (`node`)");
        return;
    }
    // Its end-to-end test plays a whole game against this server, with a
    // connection lost mid-hand.
    let server = TestServer::start(Config::default()).await;
    let url = format!("http://{}", server.address());
    let (passed, report) = node_tests(&["--test", "web/test/"], &[("SPADES_URL", url.into())]).await;
    assert!(passed, "{report}");
    assert!(
        report.contains("# fail 0") && report.contains("# skipped 0"),
        "{report}"
    );
}
