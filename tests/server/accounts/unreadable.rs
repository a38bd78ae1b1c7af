//! Requests the HTTP API cannot read. Clients written by others send all sorts
//! of broken input, so every such request must get an answer in the API's own
//! error shape and never leak the server's internal types.

use super::*;

/// Words that would show the server's Rust types through an error message.
fn shows_rust_types(message: &str) -> bool {
    let words = [
        "::",
        "u8",
        "u16",
        "u32",
        "u64",
        "i32",
        "i64",
        "usize",
        "String",
        "Uuid",
        "struct",
        "Option",
        "Credentials",
        "NewPassword",
        "NewSettings",
        "Permissions",
        "Page",
        "Limit",
        "serde",
        "axum",
        "Rejection",
        "Failed to",
    ];
    words.iter().any(|word| message.contains(word))
}

/// A request the API cannot read, and its answer: what the request is, its
/// head and body; the status, the error code, and words its message holds.
type Unreadable = (&'static str, String, Vec<u8>, u16, &'static str, &'static str);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_the_api_cannot_read_are_answered_in_its_error_shape() {
    let server = TestServer::start(Config::default()).await;
    let here = IpAddr::from([127, 0, 0, 1]);
    // Requests that need a token carry an administrator's: without one
    // they would be refused for it first.
    let token = server.api().account("Chief").await.token;
    server.make_admin("Chief");
    let authorized = |head: String| format!("{head}\r\nAuthorization: Bearer {token}");
    let json = |value: serde_json::Value| value.to_string().into_bytes();
    let big = {
        let mut body = br#"{"name": "Kim", "password": ""#.to_vec();
        body.resize(10 * 1024 * 1024, b'x');
        body.extend_from_slice(br#""}"#);
        body
    };
    let cases: Vec<Unreadable> = vec![
        (
            "a 10 MB body",
            json_head("POST", "/api/register"),
            big,
            413,
            "payload_too_large",
            "KiB",
        ),
        (
            "a missing field",
            json_head("POST", "/api/register"),
            json(json!({"name": "Kim"})),
            422,
            "bad_fields",
            "`password`",
        ),
        (
            "a field of the wrong type",
            json_head("POST", "/api/login"),
            json(json!({"name": 5, "password": "long enough"})),
            422,
            "bad_fields",
            "`name`",
        ),
        (
            "a number out of range",
            authorized(json_head("POST", "/api/tournaments")),
            json(json!({"name": "Cup", "max_players": -1})),
            422,
            "bad_fields",
            "`max_players`",
        ),
        (
            "a field the request does not take",
            authorized(json_head("POST", "/api/tournaments")),
            json(json!({"name": "Cup", "colour": "red", "format": "swiss"})),
            422,
            "bad_fields",
            "`colour`",
        ),
        (
            "a registration with a field it does not take",
            json_head("POST", "/api/register"),
            json(json!({"name": "Kim", "password": "long enough", "x": 1})),
            422,
            "bad_fields",
            "`x`",
        ),
        (
            "a string for an object",
            json_head("POST", "/api/register"),
            json(json!("Kim")),
            422,
            "bad_fields",
            "object",
        ),
        (
            "a body that is not JSON",
            json_head("POST", "/api/register"),
            br#"{"name": "Kim" "password"}"#.to_vec(),
            400,
            "bad_json",
            "line 1",
        ),
        (
            "an empty body",
            authorized(json_head("POST", "/api/claim")),
            Vec::new(),
            400,
            "bad_json",
            "empty",
        ),
        (
            "JSON sent as plain text",
            "POST /api/register HTTP/1.1\r\nContent-Type: text/plain".into(),
            json(json!({"name": "Kim", "password": "long enough"})),
            415,
            "unsupported_media_type",
            "application/json",
        ),
        (
            "JSON sent with no content type",
            "POST /api/login HTTP/1.1".into(),
            json(json!({"name": "Kim", "password": "long enough"})),
            415,
            "unsupported_media_type",
            "application/json",
        ),
        (
            "a player id that is not a UUID",
            "GET /api/players/not-an-id HTTP/1.1".into(),
            Vec::new(),
            400,
            "bad_path",
            "`id`",
        ),
        (
            "a game id that is not a UUID",
            "GET /api/games/42/history HTTP/1.1".into(),
            Vec::new(),
            400,
            "bad_path",
            "`id`",
        ),
        (
            "a tournament id that is not a UUID",
            "GET /api/tournaments/zzz HTTP/1.1".into(),
            Vec::new(),
            400,
            "bad_path",
            "`id`",
        ),
        (
            "a page that is not a number",
            "GET /api/leaderboard?page=two HTTP/1.1".into(),
            Vec::new(),
            400,
            "bad_query",
            "`page`",
        ),
        (
            "a negative limit",
            authorized("GET /api/me/games?limit=-1 HTTP/1.1".into()),
            Vec::new(),
            400,
            "bad_query",
            "`limit`",
        ),
        (
            "an unknown path",
            "GET /api/nothing/here HTTP/1.1".into(),
            Vec::new(),
            404,
            "not_found",
            "path",
        ),
        (
            "a path outside the API",
            "GET /nothing-here.html HTTP/1.1".into(),
            Vec::new(),
            404,
            "not_found",
            "path",
        ),
        (
            "a method the path does not take",
            "DELETE /api/login HTTP/1.1".into(),
            Vec::new(),
            405,
            "method_not_allowed",
            "method",
        ),
    ];
    for (what, head, body, status, code, said) in cases {
        let answer = send_from(&server, here, &head, body).await;
        assert_eq!(answer.status, status, "{what}: {}", answer.body);
        assert!(
            answer
                .header("content-type")
                .is_some_and(|kind| kind.starts_with("application/json")),
            "{what}: {:?}",
            answer.headers
        );
        let error = answer.value();
        assert_eq!(error["error"], code, "{what}: {}", answer.body);
        let message = error["message"].as_str().expect("a message");
        assert!(message.contains(said), "{what}: {message}");
        assert!(!shows_rust_types(message), "{what}: {message}");
        assert_eq!(error.as_object().unwrap().len(), 2, "{what}: {}", answer.body);
        if status == 405 {
            assert!(
                answer
                    .header("allow")
                    .is_some_and(|allow| allow.to_ascii_uppercase().contains("POST")),
                "{:?}",
                answer.headers
            );
        }
    }
}
