//! Tests of reading client messages and of the reasons given for refusing them.

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
