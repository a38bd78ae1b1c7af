//! `protocol.md` cannot fall behind the code: every message type and every
//! error code that exists must be documented there.

use spades_protocol::event::EventKind;
use spades_protocol::ws::{ClientMessage, ErrorCode, ServerMessage};
use strum::VariantNames;

fn protocol_md() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../protocol.md");
    std::fs::read_to_string(path).expect("protocol.md at the top of the repository")
}

fn missing(document: &str, names: &[&str]) -> Vec<String> {
    names
        .iter()
        .filter(|name| !document.contains(&format!("`{name}`")))
        .map(|name| name.to_string())
        .collect()
}

#[test]
fn every_client_message_is_documented() {
    let missing = missing(&protocol_md(), ClientMessage::VARIANTS);
    assert!(
        missing.is_empty(),
        "client messages missing from protocol.md: {missing:?}"
    );
}

#[test]
fn every_server_message_is_documented() {
    // Room events are one variant, `Event`, whose kinds carry the `type`s.
    let names: Vec<&str> = ServerMessage::VARIANTS
        .iter()
        .copied()
        .filter(|name| *name != "event")
        .chain(EventKind::VARIANTS.iter().copied())
        .collect();
    let missing = missing(&protocol_md(), &names);
    assert!(
        missing.is_empty(),
        "server messages missing from protocol.md: {missing:?}"
    );
}

#[test]
fn every_error_code_is_documented() {
    let missing = missing(&protocol_md(), ErrorCode::VARIANTS);
    assert!(
        missing.is_empty(),
        "error codes missing from protocol.md: {missing:?}"
    );
}

/// The schemas checked in under `docs/schema/`, by file name, with the
/// ones the protocol crate generates.
fn schemas() -> [(&'static str, String, serde_json::Value); 2] {
    use spades_protocol::schema;
    [
        ("client-messages.json", schema::client_messages()),
        ("server-messages.json", schema::server_messages()),
    ]
    .map(|(name, generated)| {
        let path = format!("{}/../../docs/schema/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = schema::to_file_text(&generated);
        // `SPADES_WRITE_SCHEMA=1 cargo test -p spades --test server schema`
        // writes the files anew after a change to the protocol's types.
        if std::env::var_os("SPADES_WRITE_SCHEMA").is_some() {
            std::fs::write(&path, &text).expect("docs/schema is writable");
        }
        (name, text, generated.to_value())
    })
}

#[test]
fn the_published_schemas_are_the_generated_ones() {
    for (name, generated, _) in schemas() {
        let path = format!("{}/../../docs/schema/{name}", env!("CARGO_MANIFEST_DIR"));
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            checked_in == generated,
            "docs/schema/{name} is not the schema of the protocol's types; \
             run `SPADES_WRITE_SCHEMA=1 cargo test -p spades --test server schema` and commit it"
        );
    }
}

#[test]
fn every_example_in_protocol_md_is_a_valid_message() {
    let [(_, _, client), (_, _, server)] = schemas();
    let client = jsonschema::validator_for(&client).expect("the client schema compiles");
    let server = jsonschema::validator_for(&server).expect("the server schema compiles");
    let document = protocol_md();
    let mut checked = 0;
    for (number, line) in document.lines().enumerate() {
        let (validator, json, from_client) = match (line.strip_prefix("-> "), line.strip_prefix("<- ")) {
            (Some(json), _) => (&client, json, true),
            (_, Some(json)) => (&server, json, false),
            _ => continue,
        };
        let at = number + 1;
        let value: serde_json::Value =
            serde_json::from_str(json).unwrap_or_else(|error| panic!("protocol.md:{at}: not JSON: {error}"));
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|error| format!("{} at {}", error, error.instance_path()))
            .collect();
        assert!(errors.is_empty(), "protocol.md:{at}: {errors:?}\n{json}");
        // What the schema allows, the types read, and the other way round.
        let read = if from_client {
            serde_json::from_str::<ClientMessage>(json).map(drop)
        } else {
            serde_json::from_str::<ServerMessage>(json).map(drop)
        };
        assert!(
            read.is_ok(),
            "protocol.md:{at}: the schema allows what the types refuse: {read:?}"
        );
        checked += 1;
    }
    assert!(checked >= 90, "only {checked} examples found in protocol.md");
}

#[test]
fn the_schemas_refuse_what_the_types_refuse() {
    let [(_, _, client), (_, _, server)] = schemas();
    let client = jsonschema::validator_for(&client).unwrap();
    let server = jsonschema::validator_for(&server).unwrap();
    for bad in [
        serde_json::json!({"type": "bid", "id": 1}),
        serde_json::json!({"type": "play_card", "id": 1, "card": "1S"}),
        serde_json::json!({"type": "no_such_message", "id": 1}),
        serde_json::json!({"type": "sit", "id": 1, "seat": 4}),
    ] {
        assert!(!client.is_valid(&bad), "client schema allows {bad}");
    }
    for bad in [
        serde_json::json!({"type": "card_played", "room": "ABCD", "seat": 1, "card": "QH"}),
        serde_json::json!({"type": "card_played", "room": "ABCD", "seq": 3, "seat": 1}),
        serde_json::json!({"type": "pong"}),
    ] {
        assert!(!server.is_valid(&bad), "server schema allows {bad}");
    }
}

#[tokio::test]
async fn the_server_serves_the_schemas() {
    let server = crate::support::TestServer::start(spades_server::Config::default()).await;
    let api = server.api();
    for (name, generated, _) in schemas() {
        let answer = api.get(&format!("/api/schema/{name}"), None).await.expect(200);
        assert_eq!(answer.header("content-type"), Some("application/schema+json"));
        assert!(
            answer.body == generated,
            "/api/schema/{name} is not the generated schema"
        );
    }
}
