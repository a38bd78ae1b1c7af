//! JSON Schemas of the types whose serde form is written by hand: a card is
//! a two-letter string, a set of cards a list of them, a seat and a team
//! small numbers, per-team values a list of two or four. The derived types take these as they are.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use crate::{ByTeam, Card, CardSet, Seat, Team};

impl JsonSchema for Card {
    fn schema_name() -> Cow<'static, str> {
        "Card".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A card: its rank (2-9, T, J, Q, K, A) then its suit (S, H, D, C), as \"TS\"; or a joker of the joker packs, \"BJ\" (big) or \"LJ\" (little). A two that a pack raises above the ace of spades keeps its string (\"2S\", or \"2D\" in the new_york_city pack).",
            "type": "string",
            "pattern": "^([2-9TJQKA][SHDC]|BJ|LJ)$"
        })
    }
}

impl JsonSchema for CardSet {
    fn schema_name() -> Cow<'static, str> {
        "CardSet".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "Distinct cards, highest first when the server writes them.",
            "type": "array",
            "items": generator.subschema_for::<Card>(),
            "uniqueItems": true,
            "maxItems": 52
        })
    }
}

impl JsonSchema for Seat {
    fn schema_name() -> Cow<'static, str> {
        "Seat".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A seat, numbered 0 to 3 clockwise; 0 and 2 are partners, as are 1 and 3.",
            "type": "integer",
            "minimum": 0,
            "maximum": 3
        })
    }
}

impl JsonSchema for Team {
    fn schema_name() -> Cow<'static, str> {
        "Team".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A team: with partners 0 (seats 0 and 2) or 1 (seats 1 and 3); in solo each player is a team numbered as his seat.",
            "type": "integer",
            "minimum": 0,
            "maximum": 3
        })
    }
}

impl<T: JsonSchema> JsonSchema for ByTeam<T> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("ByTeam_{}", T::schema_name()).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "One value per team, in team order: two with partners, four in solo.",
            "type": "array",
            "items": generator.subschema_for::<T>(),
            "minItems": 2,
            "maxItems": 4
        })
    }
}
