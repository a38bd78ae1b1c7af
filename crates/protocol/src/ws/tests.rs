//! Tests of the shape of the protocol's messages in JSON.

use spades_engine::{RuleSet, Seat, SpadesLead};
use strum::VariantNames;

use super::event::{EventKind, RoomEvent};
use super::*;

#[test]
fn client_messages_have_the_documented_shape() {
    let play: ClientMessage = serde_json::from_str(r#"{"type":"play","id":7,"card":"TS"}"#).unwrap();
    assert_eq!(
        play,
        ClientMessage::Play {
            id: MessageId::Number(7),
            card: "TS".parse().unwrap()
        }
    );
    let bid: ClientMessage =
        serde_json::from_str(r#"{"type":"bid","id":"b1","bid":0,"blind":true}"#).unwrap();
    assert_eq!(
        bid,
        ClientMessage::Bid {
            id: MessageId::Text("b1".into()),
            bid: 0,
            blind: true
        }
    );
    let pass: Result<ClientMessage, _> =
        serde_json::from_str(r#"{"type":"pass_cards","id":1,"cards":["AS","AS"]}"#);
    assert!(pass.is_err(), "a card listed twice is refused");
    let round_trip = ClientMessage::Sit {
        id: MessageId::Number(3),
        seat: Seat::new(2),
    };
    assert_eq!(
        serde_json::from_str::<ClientMessage>(&round_trip.to_json()).unwrap(),
        round_trip
    );
}

#[test]
fn error_codes_are_snake_case_names() {
    assert_eq!(ErrorCode::MustFollowSuit.name(), "must_follow_suit");
    assert_eq!(
        serde_json::to_string(&ErrorCode::BadJson).unwrap(),
        "\"bad_json\""
    );
    for (index, name) in ErrorCode::VARIANTS.iter().enumerate() {
        let code: ErrorCode = serde_json::from_str(&format!("\"{name}\"")).unwrap();
        assert_eq!(code as usize, index);
    }
}

#[test]
fn a_rule_set_stored_before_the_house_rules_reads_as_the_same_rules() {
    let stored = r#"{"target":500,"mercy":-500,"max_hands":null,"nil_value":100,"blind_nil_value":200,"blind_nil":true,"blind_nil_min_deficit":100,"nil_pass":0,"blind_nil_pass":2,"pass_order":"sequential","bag_limit":10,"bag_penalty":100,"deck":"standard","leading":"left_of_dealer_spades_broken","bidding":"standard"}"#;
    let rules: RuleSet = serde_json::from_str(stored).unwrap();
    assert_eq!(rules, RuleSet::CLASSIC);
}

#[test]
fn house_rules_override_a_preset_and_contradictions_are_refused() {
    let spec: RulesSpec =
        serde_json::from_str(r#"{"preset":"board-4","bidding":"suicide","spades_lead":"any_time"}"#).unwrap();
    let rules = spec.resolve().unwrap();
    assert_eq!(
        (rules.min_team_bid, rules.bidding),
        (4, spades_engine::Bidding::Suicide)
    );
    assert_eq!(rules.spades_lead, SpadesLead::AnyTime);
    let spec: RulesSpec = serde_json::from_str(r#"{"preset":"whiz","min_team_bid":4}"#).unwrap();
    let error = spec.resolve().unwrap_err();
    assert_eq!(error.field, "min_team_bid");
    assert!(serde_json::from_str::<RulesSpec>(r#"{"preset":"chess"}"#).is_err());
}

#[test]
fn rules_specs_override_a_preset() {
    let spec: RulesSpec = serde_json::from_str(r#"{"preset":"tournament","target":250}"#).unwrap();
    let rules = spec.resolve().unwrap();
    assert_eq!(rules.target, 250);
    assert_eq!(rules.max_hands, Some(7));
    let spec: RulesSpec = serde_json::from_str(r#"{"no_mercy":true,"nil_pass":1}"#).unwrap();
    let rules = spec.resolve().unwrap();
    assert_eq!((rules.mercy, rules.nil_pass), (None, 1));
    let bad: RulesSpec = serde_json::from_str(r#"{"target":-5}"#).unwrap();
    assert!(bad.resolve().is_err());
    assert!(serde_json::from_str::<RulesSpec>(r#"{"trumps":"hearts"}"#).is_err());
}

#[test]
fn events_carry_room_and_seq() {
    let event = RoomEvent::message(
        "ABCD",
        12,
        EventKind::CardPlayed {
            seat: Seat::new(1).unwrap(),
            card: "QH".parse().unwrap(),
        },
    );
    let json = event.to_json();
    // One object with the envelope's fields and the kind's, whatever
    // their order.
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&json).unwrap(),
        serde_json::json!({"type": "card_played", "room": "ABCD", "seq": 12, "seat": 1, "card": "QH"})
    );
    assert_eq!(serde_json::from_str::<ServerMessage>(&json).unwrap(), event);
    assert_eq!(event.seq(), Some(12));
    let ServerMessage::Event(owned) = &event else {
        unreachable!()
    };
    assert_eq!(
        RoomEvent::json("ABCD", 12, &owned.kind),
        json,
        "borrowed and owned agree"
    );
    let passing = r#"{"type":"passing_started","room":"ABCD","seq":3}"#;
    assert_eq!(
        serde_json::from_str::<ServerMessage>(passing).unwrap(),
        RoomEvent::message("ABCD", 3, EventKind::PassingStarted {})
    );
}

#[test]
fn other_messages_are_not_read_as_events() {
    let pong: ServerMessage = serde_json::from_str(r#"{"type":"pong","id":4}"#).unwrap();
    assert_eq!(
        pong,
        ServerMessage::Pong {
            id: MessageId::Number(4)
        }
    );
    assert!(serde_json::from_str::<ServerMessage>(r#"{"type":"no_such","room":"A","seq":1}"#).is_err());
    assert!(serde_json::from_str::<ServerMessage>(r#"{"type":"card_played","room":"A"}"#).is_err());
}
