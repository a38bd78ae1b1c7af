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
