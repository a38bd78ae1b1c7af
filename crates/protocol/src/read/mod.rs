//! Reading a client's message, and saying in words for people what is
//! wrong with one that cannot be read.
//!
//! Well-formed messages are read in one pass. A message that fails is
//! looked at again, as plain JSON, to find the most precise refusal: not
//! JSON at all, no `type`, an unknown `type`, a bid out of range, or a
//! field of the wrong kind. Serde's own error texts name Rust types
//! (`expected u8`, `struct RulesSpec`); they are reworded here, and any
//! that would still show one is replaced by a plain sentence, so that no
//! refusal shows the server's internals.

use serde_json::Value;
use strum::VariantNames;

use crate::ws::{ClientMessage, ErrorCode, MessageId};

#[cfg(test)]
mod tests;

/// A message the server cannot act on, and what to answer.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Unreadable {
    /// The message's id, when it has a valid one to echo.
    pub id: Option<MessageId>,
    pub code: ErrorCode,
    pub message: String,
}

impl Unreadable {
    fn new(id: Option<MessageId>, code: ErrorCode, message: impl Into<String>) -> Unreadable {
        Unreadable {
            id,
            code,
            message: message.into(),
        }
    }
}

/// Reads one text frame as a client message.
pub fn read_client_message(text: &str) -> Result<ClientMessage, Unreadable> {
    if let Ok(message) = serde_json::from_str::<ClientMessage>(text) {
        if !message.id().is_valid() {
            return Err(Unreadable::new(None, ErrorCode::BadMessage, bad_id()));
        }
        return Ok(message);
    }
    let value: Value = serde_json::from_str(text)
        .map_err(|error| Unreadable::new(None, ErrorCode::BadJson, format!("not JSON: {error}")))?;
    let Some(object) = value.as_object() else {
        return Err(Unreadable::new(
            None,
            ErrorCode::BadMessage,
            "a message is a JSON object with a \"type\" and an \"id\"",
        ));
    };
    let id = object
        .get("id")
        .and_then(|id| serde_json::from_value::<MessageId>(id.clone()).ok())
        .filter(MessageId::is_valid);
    let Some(kind) = object.get("type").and_then(Value::as_str) else {
        return Err(Unreadable::new(
            id,
            ErrorCode::BadMessage,
            "a message needs a string \"type\"",
        ));
    };
    if !ClientMessage::VARIANTS.contains(&kind) {
        return Err(Unreadable::new(
            id,
            ErrorCode::UnknownType,
            format!("unknown message type {kind:?}"),
        ));
    }
    if object.get("id").is_some() && id.is_none() {
        return Err(Unreadable::new(None, ErrorCode::BadMessage, bad_id()));
    }
    // A bid that is a number, but too far out of range to be read as
    // one, is a bad bid (14 to 255 are read, and refused by the rules).
    let unreadable_number = |bid: &Value| bid.is_number() && bid.as_u64().is_none_or(|n| n > 255);
    if kind == "bid" && object.get("bid").is_some_and(unreadable_number) {
        return Err(Unreadable::new(
            id,
            ErrorCode::InvalidBid,
            "a bid is a whole number from 0 (nil) to 13",
        ));
    }
    let (code, message) = match serde_json::from_value::<ClientMessage>(value.clone()) {
        Err(error) => explain(object, &error.to_string()),
        // The typed read failed above; reading the same value cannot pass.
        Ok(_) => (ErrorCode::BadMessage, "the message could not be read".to_string()),
    };
    Err(Unreadable::new(id, code, message))
}

/// How many of a message's fields [`explain`] tries leaving out, so that a
/// frame of many fields costs little more than one of a few.
const FIELDS_TRIED: usize = 16;

/// Names the field at fault in a message that could not be read, and says
/// what is wrong with it in a sentence; a field of `rules` that cannot be
/// read is a `bad_rules`.
///
/// A message's fields are read after its `type`, so serde's error does not
/// say where it happened. The field is found by reading the message again
/// without each field in turn: the one whose absence turns the complaint
/// into its own absence, or ends it (a field that may be left out), is
/// the culprit. Inside `rules`, a plain object of settings, serde's path
/// names the setting.
fn explain(object: &serde_json::Map<String, Value>, error: &str) -> (ErrorCode, String) {
    if let Some(field) = quoted(error, "missing field ") {
        return (ErrorCode::BadMessage, format!("the field \"{field}\" is missing"));
    }
    let culprit = object
        .keys()
        .filter(|key| *key != "type" && *key != "id")
        .take(FIELDS_TRIED)
        .find(|key| {
            let mut without = object.clone();
            without.remove(*key);
            match serde_json::from_value::<ClientMessage>(Value::Object(without)) {
                Ok(_) => true,
                Err(error) => error.to_string() == format!("missing field `{key}`"),
            }
        });
    let Some(field) = culprit else {
        return (ErrorCode::BadMessage, in_words(error));
    };
    // A seat beyond the four a table can have is a seat that does not
    // exist, as seat 3 of a three-player table is.
    if field == "seat"
        && let Some(seat) = object[field].as_u64()
    {
        return (
            ErrorCode::NoSuchSeat,
            format!("seat {seat} does not exist: a table's seats are numbered from 0"),
        );
    }
    let mut place = field.clone();
    let mut code = ErrorCode::BadMessage;
    if field == "rules" {
        code = ErrorCode::BadRules;
        let settings = object[field].clone();
        if let Err(inner) = serde_path_to_error::deserialize::<_, crate::ws::RulesSpec>(settings) {
            let path = inner.path().to_string();
            if path != "." {
                place = format!("rules.{path}");
            }
        }
    }
    (code, in_words(&sentence(&place, error)))
}

/// Serde's complaint about the field at `place`, as a sentence.
fn sentence(place: &str, error: &str) -> String {
    if let Some(unknown) = quoted(error, "unknown field ") {
        let expected = error.split_once(", expected ").map_or("", |(_, rest)| rest);
        let expected = expected.strip_prefix("one of ").unwrap_or(expected);
        return if place.starts_with("rules") {
            format!("the rules have no setting \"{unknown}\"; the settings are {expected}")
        } else {
            format!("this message takes no field \"{unknown}\"; its fields are {expected}")
        };
    }
    if let Some(value) = quoted(error, "unknown variant ") {
        let expected = error.split_once(", expected ").map_or("", |(_, rest)| rest);
        return format!("\"{place}\" cannot be \"{value}\": expected {expected}");
    }
    for (start, what) in [
        ("invalid type: ", "has a value of the wrong kind"),
        ("invalid value: ", "is out of range"),
        ("invalid length ", "has the wrong length"),
    ] {
        if let Some(rest) = error.strip_prefix(start) {
            return format!("\"{place}\" {what}: {rest}");
        }
    }
    format!("\"{place}\" is not valid: {error}")
}

/// The name in backquotes that follows `prefix` at the start of `error`.
fn quoted<'a>(error: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = error.strip_prefix(prefix)?.strip_prefix('`')?;
    rest.split('`').next()
}

fn bad_id() -> String {
    format!(
        "an id is a whole number of 0 or more, or a string of at most {} characters",
        MessageId::MAX_LEN
    )
}

/// Serde's words for what it expected, and ours.
const EXPECTED: &[(&str, &str)] = &[
    ("expected u8", "expected a whole number from 0 to 255"),
    ("expected u16", "expected a whole number from 0 to 65535"),
    ("expected u32", "expected a whole number from 0 to 4294967295"),
    ("expected u64", "expected a whole number of 0 or more"),
    ("expected i8", "expected a whole number from -128 to 127"),
    ("expected i16", "expected a whole number from -32768 to 32767"),
    (
        "expected i32",
        "expected a whole number from -2147483648 to 2147483647",
    ),
    ("expected i64", "expected a whole number"),
    ("expected struct RulesSpec", "expected an object of rule settings"),
    ("expected a boolean", "expected true or false"),
    ("unknown variant", "unknown value"),
];

/// Words that would show the server's internals in a refusal.
const INTERNAL: &[&str] = &[
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "f32",
    "f64",
    "struct",
    "enum",
    "variant",
    "tuple",
    "untagged",
    "ClientMessage",
    "MessageId",
    "RulesSpec",
    "Preset",
    "PassOrder",
    "BotLevel",
    "CardSet",
    "Option",
    "Vec",
];

/// A serde error, reworded for people.
fn in_words(error: &str) -> String {
    let mut text = error.to_string();
    for (theirs, ours) in EXPECTED {
        text = text.replace(theirs, ours);
    }
    let leaks = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|word| INTERNAL.contains(&word));
    if leaks {
        "a field has a value of the wrong kind or out of range".to_string()
    } else {
        text
    }
}
