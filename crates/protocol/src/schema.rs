//! The JSON Schemas of the WebSocket protocol's messages, generated from
//! the types that read and write them, so that they cannot disagree.
//!
//! The server serves them (see `protocol.md`) and a copy is kept under
//! `docs/schema/`; a test fails when that copy is not what these functions
//! give.

use schemars::{Schema, schema_for};

use crate::ws::{ClientMessage, ServerMessage};

/// Every message a client may send.
pub fn client_messages() -> Schema {
    schema_for!(ClientMessage)
}

/// Every message the server may send.
pub fn server_messages() -> Schema {
    schema_for!(ServerMessage)
}

/// A schema as its checked-in file holds it: pretty JSON and a final
/// newline.
pub fn to_file_text(schema: &Schema) -> String {
    let mut text = serde_json::to_string_pretty(schema).expect("a schema is JSON");
    text.push('\n');
    text
}
