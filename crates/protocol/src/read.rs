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

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(text: &str) -> Unreadable {
        read_client_message(text).expect_err(text)
    }

    #[test]
    fn well_formed_messages_are_read() {
        let message = read_client_message(r#"{"type":"play","id":3,"card":"TS"}"#).unwrap();
        assert_eq!(message.id(), &MessageId::Number(3));
    }

    #[test]
    fn each_fault_gets_its_own_code() {
        assert_eq!(refusal("{").code, ErrorCode::BadJson);
        assert_eq!(refusal("[1]").code, ErrorCode::BadMessage);
        assert_eq!(refusal(r#"{"id":1}"#).code, ErrorCode::BadMessage);
        let unknown = refusal(r#"{"type":"dance","id":4}"#);
        assert_eq!(
            (unknown.code, unknown.id),
            (ErrorCode::UnknownType, Some(MessageId::Number(4)))
        );
        let missing = refusal(r#"{"type":"play","id":"a"}"#);
        assert_eq!(missing.code, ErrorCode::BadMessage);
        assert_eq!(missing.id, Some(MessageId::Text("a".into())));
        assert!(missing.message.contains("card"), "{}", missing.message);
    }

    #[test]
    fn a_bid_out_of_range_is_an_invalid_bid() {
        for bid in ["-1", "300", "1.5", "1e40"] {
            let refused = refusal(&format!(r#"{{"type":"bid","id":9,"bid":{bid}}}"#));
            assert_eq!(refused.code, ErrorCode::InvalidBid, "{bid}");
            assert_eq!(refused.id, Some(MessageId::Number(9)));
        }
        // A bid that is not a number at all is a malformed message.
        assert_eq!(
            refusal(r#"{"type":"bid","id":9,"bid":"four"}"#).code,
            ErrorCode::BadMessage
        );
    }

    #[test]
    fn a_refusal_names_the_field_at_fault() {
        let cases = [
            (
                r#"{"type":"play","id":1,"card":5}"#,
                ErrorCode::BadMessage,
                "\"card\" has a value of the wrong kind",
            ),
            (
                r#"{"type":"play","id":1}"#,
                ErrorCode::BadMessage,
                "the field \"card\" is missing",
            ),
            (
                r#"{"type":"hello","id":1,"version":"1"}"#,
                ErrorCode::BadMessage,
                "\"version\" has a value of the wrong kind",
            ),
            (
                r#"{"type":"sit","id":1,"seat":9}"#,
                ErrorCode::NoSuchSeat,
                "seat 9 does not exist",
            ),
            (
                r#"{"type":"add_bot","id":1,"seat":"north"}"#,
                ErrorCode::BadMessage,
                "\"seat\" has a value of the wrong kind",
            ),
            (
                r#"{"type":"pass_cards","id":1,"cards":["AS","AS"]}"#,
                ErrorCode::BadMessage,
                "\"cards\"",
            ),
            // A setting of the rules that cannot be read is bad rules.
            (
                r#"{"type":"create_room","id":1,"rules":{"preset":"nope"}}"#,
                ErrorCode::BadRules,
                "\"rules.preset\" cannot be \"nope\"",
            ),
            (
                r#"{"type":"create_room","id":1,"rules":{"nil":"yes"}}"#,
                ErrorCode::BadRules,
                "\"rules.nil\" has a value of the wrong kind",
            ),
            (
                r#"{"type":"create_room","id":1,"rules":{"colour":"red"}}"#,
                ErrorCode::BadRules,
                "the rules have no setting \"colour\"",
            ),
            (
                r#"{"type":"queue","id":1,"rules":"nope"}"#,
                ErrorCode::BadRules,
                "\"rules\" cannot be \"nope\"",
            ),
        ];
        for (text, code, words) in cases {
            let refused = refusal(text);
            assert_eq!(refused.code, code, "{text}: {}", refused.message);
            assert!(refused.message.contains(words), "{text}: {}", refused.message);
            assert_eq!(refused.id, Some(MessageId::Number(1)), "{text}");
        }
        // A field the message does not take is left unread, so that a
        // client may send those of a later version.
        assert!(read_client_message(r#"{"type":"play","id":1,"card":"AS","zz":1}"#).is_ok());
    }

    #[test]
    fn ids_are_counted_in_characters() {
        let long = "é".repeat(MessageId::MAX_LEN);
        let text = format!(r#"{{"type":"ping","id":"{long}"}}"#);
        assert!(
            read_client_message(&text).is_ok(),
            "64 characters in 128 bytes is a valid id"
        );
        let longer = "é".repeat(MessageId::MAX_LEN + 1);
        let refused = refusal(&format!(r#"{{"type":"ping","id":"{longer}"}}"#));
        assert_eq!((refused.code, refused.id), (ErrorCode::BadMessage, None));
        let negative = refusal(r#"{"type":"ping","id":-1}"#);
        assert_eq!((negative.code, negative.id), (ErrorCode::BadMessage, None));
    }

    /// The rule set a `create_room` asks for, as the server reads it: the
    /// whole message through [`read_client_message`], then its rules
    /// resolved and checked. A refusal comes back as the message a client
    /// would get.
    fn rules_asked(rules: &Value) -> Result<spades_engine::RuleSet, String> {
        let text = serde_json::json!({"type": "create_room", "id": 1, "rules": rules}).to_string();
        match read_client_message(&text) {
            Ok(ClientMessage::CreateRoom { rules, .. }) => rules.resolve().map_err(|error| error.to_string()),
            Ok(other) => panic!("{text} read as {other:?}"),
            Err(refused) => {
                assert_eq!(refused.code, ErrorCode::BadRules, "{text}: {}", refused.message);
                Err(refused.message)
            }
        }
    }

    /// The settings of a rule set, as the server writes one.
    fn settings() -> Vec<String> {
        let classic = serde_json::to_value(spades_engine::RuleSet::CLASSIC).unwrap();
        classic.as_object().unwrap().keys().cloned().collect()
    }

    /// Each setting given a value the rules refuse, alone on `classic`, is
    /// refused by its own name: not by another setting whose name holds
    /// it (`nil_pass` in `blind_nil_pass`), nor by one it holds.
    #[test]
    fn a_setting_out_of_range_is_refused_by_its_own_name() {
        let out_of_range: &[(&str, Value)] = &[
            ("players", 5.into()),
            ("target", 0.into()),
            ("mercy", 1.into()),
            ("max_hands", 0.into()),
            ("nil_value", (-1).into()),
            ("blind_nil_value", 1001.into()),
            ("blind_nil_min_deficit", (-1).into()),
            ("nil_pass", 5.into()),
            ("blind_nil_pass", 5.into()),
            ("bag_limit", 0.into()),
            ("bag_penalty", (-1).into()),
            ("min_team_bid", 14.into()),
            ("max_team_bid", 0.into()),
            ("bag_value", 2.into()),
            ("max_overtricks", 13.into()),
            ("sets_to_lose", 0.into()),
            ("team_blind", 14.into()),
            ("team_blind_min_deficit", (-1).into()),
        ];
        // Every setting that holds a number is in the table.
        let classic = serde_json::to_value(spades_engine::RuleSet::CLASSIC).unwrap();
        let numeric: Vec<String> = settings()
            .into_iter()
            .filter(|name| !classic[name.as_str()].is_boolean() && !classic[name.as_str()].is_string())
            .collect();
        let tried: Vec<&str> = out_of_range.iter().map(|(name, _)| *name).collect();
        for name in &numeric {
            assert!(tried.contains(&name.as_str()), "{name} is not tried");
        }
        for (name, value) in out_of_range {
            let refused = rules_asked(&serde_json::json!({ *name: value })).expect_err(name);
            assert!(
                refused.starts_with(&format!("rule {name}: ")),
                "{name} = {value} was refused as {refused:?}"
            );
        }
        // Solo has nobody to exchange with: each exchange is named.
        for name in ["nil_pass", "blind_nil_pass"] {
            let other = if name == "nil_pass" {
                "blind_nil_pass"
            } else {
                "nil_pass"
            };
            let rules = serde_json::json!({"preset": "solo", name: 1, other: 0});
            let refused = rules_asked(&rules).expect_err(name);
            assert!(refused.starts_with(&format!("rule {name}: ")), "{refused}");
        }
        // A value of the wrong kind is named by the path to it, whole.
        for name in settings() {
            let refused = rules_asked(&serde_json::json!({ name.as_str(): "x" })).expect_err(&name);
            assert!(
                refused.starts_with(&format!("\"rules.{name}\" ")),
                "{name}: {refused:?}"
            );
        }
        let refused = rules_asked(&serde_json::json!({"blind_nil_pass": 300})).unwrap_err();
        assert!(
            refused.starts_with("\"rules.blind_nil_pass\" is out of range"),
            "{refused}"
        );
    }

    /// `null` turns off each rule that a rule set may hold as `null`, as
    /// the rule set itself writes it; leaving the setting out keeps the
    /// preset's value.
    #[test]
    fn null_turns_off_the_rules_that_may_be_off() {
        // New York with a hand limit has every such rule on.
        let base = serde_json::json!({"preset": "new-york", "max_hands": 7});
        let on = serde_json::to_value(rules_asked(&base).unwrap()).unwrap();
        let schema = serde_json::to_value(schemars::schema_for!(spades_engine::RuleSet)).unwrap();
        let nullable: Vec<String> = settings()
            .into_iter()
            .filter(|name| {
                schema["properties"][name.as_str()]["type"]
                    .as_array()
                    .is_some_and(|kinds| kinds.contains(&Value::from("null")))
            })
            .collect();
        assert_eq!(
            nullable,
            [
                "max_hands",
                "max_overtricks",
                "max_team_bid",
                "mercy",
                "sets_to_lose"
            ],
            "the rules that may be off"
        );
        for name in &nullable {
            assert!(!on[name.as_str()].is_null(), "{name} is on in {on}");
            let mut asked = base.clone();
            asked[name.as_str()] = Value::Null;
            let off = serde_json::to_value(rules_asked(&asked).unwrap()).unwrap();
            assert!(
                off[name.as_str()].is_null(),
                "{name}: null read as {}",
                off[name.as_str()]
            );
            for other in settings().iter().filter(|other| *other != name) {
                assert_eq!(off[other.as_str()], on[other.as_str()], "{name}: {other} changed");
            }
        }
        // The documented case: a null mercy is no loss threshold, as
        // `no_mercy` is; without it, the preset's threshold.
        let classic = |rules: Value| rules_asked(&rules).unwrap().mercy;
        assert_eq!(classic(serde_json::json!({"mercy": null})), None);
        assert_eq!(classic(serde_json::json!({"no_mercy": true})), None);
        assert_eq!(classic(serde_json::json!({})), Some(-500));
        assert_eq!(classic(serde_json::json!({"mercy": -200})), Some(-200));
        // A setting that is never off keeps the preset's value for null.
        let target = rules_asked(&serde_json::json!({"preset": "tournament", "target": null}));
        assert_eq!(target.unwrap().target, 300);
    }

    /// Every field of every message, given values of every wrong kind,
    /// is refused in words that name no Rust type.
    #[test]
    fn no_refusal_names_the_servers_types() {
        let samples = [
            r#"{"type":"hello","id":1,"version":1,"name":"Ann","token":"t"}"#,
            r#"{"type":"create_room","id":1,"name":"r","rules":{"preset":"classic","target":300,"mercy":-300,"no_mercy":false,"max_hands":7,"nil_value":100,"blind_nil_value":200,"blind_nil":true,"blind_nil_min_deficit":100,"nil_pass":1,"blind_nil_pass":2,"pass_order":"sequential","bag_limit":10,"bag_penalty":100},"private":true,"bots":"basic"}"#,
            r#"{"type":"join_room","id":1,"room":"ABC"}"#,
            r#"{"type":"sit","id":1,"seat":2}"#,
            r#"{"type":"add_bot","id":1,"seat":2}"#,
            r#"{"type":"remove_bot","id":1,"seat":2}"#,
            r#"{"type":"queue","id":1,"rules":"tournament","partner":"Bo"}"#,
            r#"{"type":"watch_tournament","id":1,"tournament":"x"}"#,
            r#"{"type":"bid","id":1,"bid":3,"blind":false}"#,
            r#"{"type":"pass_cards","id":1,"cards":["AS","KS"]}"#,
            r#"{"type":"play","id":1,"card":"AS"}"#,
            r#"{"type":"chat","id":1,"text":"hi"}"#,
            r#"{"type":"resync","id":1,"room":"ABC","last_seq":4}"#,
        ];
        let wrong = [
            "-1",
            "300",
            "70000",
            "5000000000",
            "-5000000000",
            "1e40",
            "1.5",
            "true",
            "null",
            "\"x\"",
            "[]",
            "[1,2]",
            "{}",
            r#"["AS","AS"]"#,
            r#"["ZZ"]"#,
        ];
        let mut tried = 0;
        for sample in samples {
            let value: Value = serde_json::from_str(sample).unwrap();
            assert!(read_client_message(sample).is_ok(), "{sample}");
            let mut paths: Vec<Vec<String>> = Vec::new();
            for (key, field) in value.as_object().unwrap() {
                if key == "type" {
                    continue;
                }
                paths.push(vec![key.clone()]);
                if let Some(inner) = field.as_object() {
                    paths.extend(inner.keys().map(|inner| vec![key.clone(), inner.clone()]));
                }
            }
            for path in paths {
                for bad in wrong {
                    let mut broken = value.clone();
                    let mut slot = &mut broken;
                    for key in &path {
                        slot = &mut slot[key.as_str()];
                    }
                    *slot = serde_json::from_str(bad).unwrap();
                    let text = broken.to_string();
                    let Err(refused) = read_client_message(&text) else {
                        continue;
                    };
                    tried += 1;
                    let words: Vec<&str> = refused
                        .message
                        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .collect();
                    for internal in INTERNAL {
                        assert!(
                            !words.contains(internal),
                            "{text} was refused with {:?}",
                            refused.message
                        );
                    }
                    assert!(!refused.message.is_empty());
                }
            }
        }
        assert!(tried > 300, "only {tried} refusals were tried");
    }
}
