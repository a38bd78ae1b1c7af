//! The OpenAPI document at `/api/openapi.json` says what the server does:
//! every route of the router is in it and everything in it is a route, and
//! real answers have the statuses, media types and bodies it gives them.

use std::collections::BTreeSet;

use reqwest::Method;
use serde_json::{Value, json};
use spades_protocol::http::{Session, TournamentView};
use spades_server::Config;

use crate::support::api::PASSWORD;
use crate::support::*;

/// The document as a client reads it.
struct Document(Value);

impl Document {
    async fn fetch(api: &Api) -> Document {
        let answer = api.get("/api/openapi.json", None).await.expect(200);
        assert_eq!(answer.header("content-type"), Some("application/json"));
        Document(answer.value())
    }

    /// The documented answer to `method` at `template` (a path as the
    /// document writes it, such as `/api/games/{id}`) with `status`, its
    /// shared responses resolved.
    #[track_caller]
    fn response(&self, method: &str, template: &str, status: u16) -> &Value {
        let operation = &self.0["paths"][template][method.to_lowercase()];
        assert!(operation.is_object(), "{method} {template} is not documented");
        let response = &operation["responses"][status.to_string()];
        assert!(
            response.is_object(),
            "{method} {template} does not document the status {status}"
        );
        match response["$ref"].as_str() {
            Some(reference) => {
                let name = reference
                    .strip_prefix("#/components/responses/")
                    .expect("a shared response");
                &self.0["components"]["responses"][name]
            }
            None => response,
        }
    }

    /// Fails the test unless `answer` is one the document gives for
    /// `method` at `template`: a documented status, the documented media
    /// type, and for JSON a body valid against the documented schema.
    #[track_caller]
    fn check(&self, method: &str, template: &str, answer: &HttpAnswer) {
        let response = self.response(method, template, answer.status);
        let Some(content) = response["content"].as_object() else {
            assert!(
                answer.body.is_empty(),
                "{method} {template} {}: the document gives no body, the server sent {}",
                answer.status,
                answer.body
            );
            return;
        };
        let media_type = |text: &str| text.split(';').next().unwrap_or_default().trim().to_string();
        let sent = media_type(answer.header("content-type").unwrap_or_default());
        let (documented, media) = content
            .iter()
            .find(|(documented, _)| media_type(documented) == sent)
            .unwrap_or_else(|| {
                panic!(
                    "{method} {template} {}: sent as {sent}, documented as {:?}",
                    answer.status,
                    content.keys().collect::<Vec<_>>()
                )
            });
        if documented != "application/json" {
            return;
        }
        let validator = self.validator(&media["schema"]);
        let body = answer.value();
        let errors: Vec<String> = validator
            .iter_errors(&body)
            .map(|error| format!("{error} at {}", error.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{method} {template} {}: the body does not fit the document: {errors:?}\n{body:#}",
            answer.status
        );
    }

    /// A validator of `schema`, whose references into the document's
    /// components resolve: OpenAPI 3.1's schemas are JSON Schema 2020-12,
    /// so the components only need to sit where the references point.
    fn validator(&self, schema: &Value) -> jsonschema::Validator {
        let root = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "components": self.0["components"],
            "allOf": [schema],
        });
        jsonschema::options()
            .should_validate_formats(true)
            .build(&root)
            .unwrap_or_else(|error| panic!("the schema {schema} compiles: {error}"))
    }

    /// Every documented operation, as its method and path.
    fn operations(&self) -> BTreeSet<(String, String)> {
        let paths = self.0["paths"].as_object().expect("paths");
        paths
            .iter()
            .flat_map(|(path, item)| {
                let item = item.as_object().expect("a path item");
                item.keys()
                    .filter(|key| ["get", "put", "post", "delete", "patch"].contains(&key.as_str()))
                    .map(|method| (method.to_uppercase(), path.clone()))
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

/// The routes that the router's source files declare, as method and path,
/// read from their `.route("PATH", get(a).post(b))` calls.
fn declared_routes() -> BTreeSet<(String, String)> {
    let mut routes = BTreeSet::new();
    for file in [
        "crates/server/src/lib.rs",
        "crates/server/src/api/mod.rs",
        "crates/server/src/api/tournaments.rs",
    ] {
        let text = std::fs::read_to_string(repository().join(file)).expect("a source file");
        for (start, call) in text.match_indices(".route(") {
            let rest = &text[start + call.len()..];
            let mut depth = 1;
            let end = rest
                .char_indices()
                .find(|&(_, c)| {
                    match c {
                        '(' => depth += 1,
                        ')' => depth -= 1,
                        _ => {}
                    }
                    depth == 0
                })
                .map(|(end, _)| end)
                .expect("the call is closed");
            let arguments = &rest[..end];
            let mut parts = arguments.split('"');
            let path = parts.nth(1).expect("a path").to_string();
            let handlers = parts.next().expect("the handlers");
            for handler in handlers.split(')') {
                let handler = handler.trim_start_matches(|c: char| c == ',' || c == '.' || c.is_whitespace());
                if let Some((method, _)) = handler.split_once('(') {
                    routes.insert((method.to_uppercase(), path.clone()));
                }
            }
        }
    }
    // The WebSocket is the protocol's, described in protocol.md.
    routes.remove(&("GET".to_string(), "/ws".to_string()));
    routes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_document_lists_every_route_and_only_routes() {
    let server = TestServer::start(Config::default()).await;
    let api = server.api();
    let document = Document::fetch(&api).await;
    let version = document.0["openapi"].as_str().unwrap_or_default();
    assert!(version.starts_with("3."), "OpenAPI {version}");

    let declared = declared_routes();
    assert!(
        declared.len() >= 25,
        "the routes were not read from the source: {declared:?}"
    );
    let documented = document.operations();
    let undocumented: Vec<_> = declared.difference(&documented).collect();
    assert!(
        undocumented.is_empty(),
        "routes missing from the document: {undocumented:?}"
    );

    // Each documented operation is served: a path that no route serves
    // gets 404 from the fallback, a method that it does not take 405. An
    // id that is not a UUID is refused before anything is looked up, so a
    // real route never answers these.
    for (method, template) in &documented {
        let path = template.replace("{id}", "not-a-uuid");
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("a method");
        let answer = api.send(method.clone(), &path, None, None).await;
        assert!(
            answer.status != 404 && answer.status != 405,
            "{method} {template} is documented but not served: {} {}",
            answer.status,
            answer.body
        );
        document.check(method.as_str(), template, &answer);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_answers_fit_the_document() {
    let server = TestServer::start(Config::default()).await;
    let api = server.api();
    let document = Document::fetch(&api).await;
    let check = |method: &str, template: &str, answer: HttpAnswer, status: u16| {
        let answer = answer.expect(status);
        document.check(method, template, &answer);
        answer
    };

    // Accounts. The operator makes the first administrator.
    let ann = check("POST", "/api/register", api.register("Ann", PASSWORD).await, 201);
    let ann: Session = ann.json();
    server.make_admin("Ann");
    check("POST", "/api/register", api.register("ann", PASSWORD).await, 409);
    check("POST", "/api/register", api.register(" ", PASSWORD).await, 400);
    let bare = api.post("/api/register", None, None).await;
    check("POST", "/api/register", bare, 415);
    let half = api.post("/api/register", Some(json!({"name": "Cy"})), None).await;
    check("POST", "/api/register", half, 422);
    let bob: Session = api.account("Bob").await;
    check("POST", "/api/login", api.login("Ann", PASSWORD).await, 200);
    check(
        "POST",
        "/api/login",
        api.login("Ann", "not the password").await,
        401,
    );
    check("GET", "/api/me", api.get("/api/me", Some(&ann.token)).await, 200);
    check("GET", "/api/me", api.get("/api/me", None).await, 401);

    // Players and the leaderboard.
    let profile = format!("/api/players/{}", ann.player.id);
    check("GET", "/api/players/{id}", api.get(&profile, None).await, 200);
    let nobody = format!("/api/players/{}", uuid_like());
    check("GET", "/api/players/{id}", api.get(&nobody, None).await, 404);
    check(
        "GET",
        "/api/players",
        api.get("/api/players?name=ann", None).await,
        200,
    );
    check(
        "GET",
        "/api/players",
        api.get("/api/players?name=Zed", None).await,
        404,
    );
    let board = api.get("/api/leaderboard?page=1&per_page=5", None).await;
    check("GET", "/api/leaderboard", board, 200);
    let bad_page = api.get("/api/leaderboard?page=first", None).await;
    check("GET", "/api/leaderboard", bad_page, 400);

    // Tournaments.
    let cup = json!({"name": "Cup", "format": "swiss", "rounds": 3});
    let refused = api.create_tournament(&bob.token, cup.clone()).await;
    check("POST", "/api/tournaments", refused, 403);
    let created = api.create_tournament(&ann.token, cup).await;
    let created: TournamentView = check("POST", "/api/tournaments", created, 201).json();
    let id = created.summary.id;
    let show = format!("/api/tournaments/{id}");
    check("GET", "/api/tournaments/{id}", api.get(&show, None).await, 200);
    let missing = format!("/api/tournaments/{}", uuid_like());
    check("GET", "/api/tournaments/{id}", api.get(&missing, None).await, 404);
    let list = api.get("/api/tournaments?status=upcoming", None).await;
    check("GET", "/api/tournaments", list, 200);
    let bad_list = api.get("/api/tournaments?status=someday", None).await;
    check("GET", "/api/tournaments", bad_list, 400);
    let entered = api.enter(&bob.token, &id.to_string()).await;
    check("POST", "/api/tournaments/{id}/register", entered, 201);
    let again = api.enter(&bob.token, &id.to_string()).await;
    check("POST", "/api/tournaments/{id}/register", again, 409);
    let start = format!("/api/tournaments/{id}/start");
    let too_few = api.post(&start, None, Some(&ann.token)).await;
    check("POST", "/api/tournaments/{id}/start", too_few, 409);
    let played = format!("/api/players/{}/tournaments", bob.player.id);
    check(
        "GET",
        "/api/players/{id}/tournaments",
        api.get(&played, None).await,
        200,
    );

    // A game being played, and the operators' endpoints.
    let (players, _) = four_in_a_game(&server.url).await;
    let token = &players[0].token;
    let games = api.get("/api/me/games?limit=5", Some(token)).await;
    let games = check("GET", "/api/me/games", games, 200).value();
    let game = games["games"][0]["id"].as_str().expect("the game is listed");
    let path = format!("/api/games/{game}");
    check("GET", "/api/games/{id}", api.get(&path, None).await, 200);
    let history = api.get(&format!("{path}/history"), None).await;
    check("GET", "/api/games/{id}/history", history, 409);
    for path in [
        "/healthz",
        "/readyz",
        "/metrics",
        "/api/schema/client-messages.json",
        "/api/schema/server-messages.json",
        "/api/presets",
    ] {
        check("GET", path, api.get(path, None).await, 200);
    }

    // Moderation, the operators' levers and one's own account.
    let role = format!("/api/players/{}/role", bob.player.id);
    let body = json!({"role": "moderator"});
    check(
        "POST",
        "/api/players/{id}/role",
        api.post(&role, Some(body.clone()), Some(&bob.token)).await,
        403,
    );
    check(
        "POST",
        "/api/players/{id}/role",
        api.post(&role, Some(body), Some(&ann.token)).await,
        204,
    );
    let cy: Session = api.account("Cy").await;
    let sanctions = format!("/api/players/{}/sanctions", cy.player.id);
    let warn = json!({"kind": "warn", "reason": "testing"});
    let made = api.post(&sanctions, Some(warn), Some(&bob.token)).await;
    check("POST", "/api/players/{id}/sanctions", made, 201);
    let mute = json!({"kind": "mute", "reason": "testing", "minutes": 5});
    let made = check(
        "POST",
        "/api/players/{id}/sanctions",
        api.post(&sanctions, Some(mute), Some(&bob.token)).await,
        201,
    );
    let lift = format!("/api/sanctions/{}/lift", made.value()["id"].as_str().unwrap());
    check(
        "POST",
        "/api/sanctions/{id}/lift",
        api.post(&lift, Some(json!({})), Some(&bob.token)).await,
        200,
    );
    check(
        "GET",
        "/api/sanctions",
        api.get("/api/sanctions", Some(&bob.token)).await,
        200,
    );
    let record = format!("/api/players/{}/moderation", cy.player.id);
    check(
        "GET",
        "/api/players/{id}/moderation",
        api.get(&record, Some(&bob.token)).await,
        200,
    );
    let report = format!("/api/players/{}/report", cy.player.id);
    let filed = api
        .post(&report, Some(json!({"reason": "testing"})), Some(&ann.token))
        .await;
    let filed = check("POST", "/api/players/{id}/report", filed, 201);
    check(
        "GET",
        "/api/reports",
        api.get("/api/reports", Some(&bob.token)).await,
        200,
    );
    let resolve = format!("/api/reports/{}/resolve", filed.value()["id"].as_str().unwrap());
    let body = json!({"resolution": "nothing to do"});
    check(
        "POST",
        "/api/reports/{id}/resolve",
        api.post(&resolve, Some(body), Some(&bob.token)).await,
        204,
    );
    check(
        "GET",
        "/api/audit",
        api.get("/api/audit?limit=5", Some(&ann.token)).await,
        200,
    );
    check(
        "GET",
        "/api/audit",
        api.get("/api/audit", Some(&bob.token)).await,
        403,
    );
    let notice = json!({"message": "hello everyone"});
    check(
        "POST",
        "/api/admin/notice",
        api.post("/api/admin/notice", Some(notice), Some(&ann.token))
            .await,
        204,
    );
    let on = api
        .send(
            Method::PUT,
            "/api/admin/maintenance",
            Some(json!({"minutes": 5})),
            Some(&ann.token),
        )
        .await;
    check("PUT", "/api/admin/maintenance", on, 200);
    check(
        "GET",
        "/api/maintenance",
        api.get("/api/maintenance", None).await,
        200,
    );
    let off = api
        .send(Method::DELETE, "/api/admin/maintenance", None, Some(&ann.token))
        .await;
    check("DELETE", "/api/admin/maintenance", off, 204);
    let link = format!("/api/players/{}/reset-link", cy.player.id);
    check(
        "POST",
        "/api/players/{id}/reset-link",
        api.post(&link, None, Some(&ann.token)).await,
        201,
    );
    let bad = json!({"token": "nothing", "password": PASSWORD});
    check(
        "POST",
        "/api/reset",
        api.post("/api/reset", Some(bad), None).await,
        400,
    );
    let block = format!("/api/me/blocks/{}", bob.player.id);
    check(
        "PUT",
        "/api/me/blocks/{id}",
        api.send(Method::PUT, &block, None, Some(&cy.token)).await,
        204,
    );
    check(
        "GET",
        "/api/me/blocks",
        api.get("/api/me/blocks", Some(&cy.token)).await,
        200,
    );
    check(
        "DELETE",
        "/api/me/blocks/{id}",
        api.send(Method::DELETE, &block, None, Some(&cy.token)).await,
        204,
    );
    check(
        "GET",
        "/api/me/export",
        api.get("/api/me/export", Some(&cy.token)).await,
        200,
    );
    let wrong = json!({"old_password": "wrong", "new_password": "a new password"});
    check(
        "POST",
        "/api/me/password",
        api.post("/api/me/password", Some(wrong), Some(&cy.token)).await,
        403,
    );
    let delete = json!({"password": PASSWORD});
    check(
        "POST",
        "/api/me/delete",
        api.post("/api/me/delete", Some(delete), Some(&cy.token)).await,
        204,
    );

    check("POST", "/api/logout", api.logout(&bob.token).await, 204);
    check("POST", "/api/logout", api.logout(&bob.token).await, 401);
}

/// A UUID that names nothing.
fn uuid_like() -> String {
    "00000000-0000-4000-8000-000000000000".to_string()
}
