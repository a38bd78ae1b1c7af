//! The hand-history format: one JSON object per finished hand, one per
//! line. `docs/hand-history.md` describes every field.

use serde::{Deserialize, Serialize};
use spades_engine::{BidRecord, ByTeam, CardSet, HandRecord, PassRecord, RuleSet, Seat, Team, TrickRecord};

/// One line of a hand history, borrowing the engine's record.
#[derive(Serialize, Debug)]
pub struct HandLine<'a> {
    /// The game's number in the file or in the store, from 0.
    pub game: u64,
    pub hand: u32,
    /// The rule set's preset name, or `custom`.
    pub rules: &'a str,
    /// The rule set in full, so that a game replays from its record alone.
    pub rule_set: &'a RuleSet,
    pub dealer: Seat,
    /// Each seat's cards as dealt, one entry per seat of the game.
    pub hands: &'a [CardSet],
    pub bids: &'a [BidRecord],
    pub passes: &'a [PassRecord],
    pub tricks: &'a [TrickRecord],
    /// One entry per seat of the game.
    pub tricks_won: &'a [u8],
    pub hand_score: &'a ByTeam<i32>,
    pub score: &'a ByTeam<i32>,
    pub bags: &'a ByTeam<i32>,
    pub winner: Option<Team>,
}

impl<'a> HandLine<'a> {
    pub fn new(game: u64, rules: &'a RuleSet, record: &'a HandRecord) -> HandLine<'a> {
        HandLine {
            game,
            hand: record.hand,
            rules: rules.name(),
            rule_set: rules,
            dealer: record.dealer,
            hands: record.hands.played(rules.seating()),
            bids: &record.bids,
            passes: &record.passes,
            tricks: &record.tricks,
            tricks_won: record.tricks_won.played(rules.seating()),
            hand_score: &record.hand_score,
            score: &record.score,
            bags: &record.bags,
            winner: record.winner,
        }
    }

    /// The line as JSON, without the newline.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a hand line always serializes")
    }
}

/// Adds the game's id, seed and commitment to a stored hand's line, as the
/// server gives it out once the game is over (protocol.md, "Verifiable
/// deals"), so that each line can be checked on its own.
pub fn reveal_seed(line: &mut serde_json::Value, game_id: &str, seed: u64) {
    if let Some(fields) = line.as_object_mut() {
        fields.insert("game_id".into(), game_id.into());
        fields.insert("seed".into(), seed.to_string().into());
        let commitment = spades_engine::deal_commitment(game_id, seed);
        fields.insert("deal_commitment".into(), commitment.into());
    }
}

/// One line of a hand history read back.
#[derive(Deserialize, Clone, PartialEq, Eq, Debug)]
pub struct OwnedHandLine {
    pub game: u64,
    pub rules: String,
    /// Absent from histories written before it was added.
    #[serde(default)]
    pub rule_set: Option<RuleSet>,
    /// The stored game's id, seed (in decimal) and the commitment to the
    /// seed, in the histories the server gives out; absent from
    /// `spades simulate`'s.
    #[serde(default)]
    pub game_id: Option<String>,
    #[serde(default)]
    pub seed: Option<String>,
    #[serde(default)]
    pub deal_commitment: Option<String>,
    #[serde(flatten)]
    pub record: HandRecord,
}

impl OwnedHandLine {
    pub fn parse(line: &str) -> serde_json::Result<OwnedHandLine> {
        serde_json::from_str(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spades_engine::{Game, RuleSet};

    /// Plays the first hand of a game with the lowest legal action.
    fn first_hand() -> HandRecord {
        first_hand_of(RuleSet::CLASSIC)
    }

    fn first_hand_of(rules: RuleSet) -> HandRecord {
        let mut game = Game::new(rules, 3).unwrap();
        while game.hand_number() == 0 {
            let seat = game.to_act().first().unwrap();
            let action = match game.legal(seat) {
                spades_engine::Legal::Bid(_) => spades_engine::Action::Bid(spades_engine::Bid::Tricks(3)),
                spades_engine::Legal::Play(cards) => spades_engine::Action::Play(cards.lowest().unwrap()),
                other => panic!("unexpected {other:?}"),
            };
            game.apply(seat, action).unwrap();
        }
        game.last_hand().unwrap().clone()
    }

    #[test]
    fn a_line_has_the_documented_shape_and_reads_back() {
        let record = first_hand();
        let json = HandLine::new(7, &RuleSet::CLASSIC, &record).to_json();
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        // Fields come in the documented order.
        let names = [
            "game",
            "hand",
            "rules",
            "rule_set",
            "dealer",
            "hands",
            "bids",
            "passes",
            "tricks",
            "tricks_won",
            "hand_score",
            "score",
            "bags",
            "winner",
        ];
        let positions: Vec<usize> = names
            .iter()
            // The last match, since tricks have a "winner" of their own.
            .map(|name| json.rfind(&format!("\"{name}\":")).expect(name))
            .collect();
        assert!(positions.windows(2).all(|pair| pair[0] < pair[1]), "{json}");
        assert_eq!(value.as_object().unwrap().len(), names.len());
        assert_eq!(value["game"], 7);
        assert_eq!(value["hands"].as_array().unwrap().len(), 4);
        assert_eq!(value["hands"][0].as_array().unwrap().len(), 13);
        assert!(value["hands"][0][0].as_str().unwrap().len() == 2);
        assert_eq!(value["bids"][0]["seat"], u8::from(record.dealer.next()));
        assert_eq!(value["bids"][0]["bid"], 3);
        assert_eq!(value["bids"][0]["blind"], false);
        assert_eq!(value["tricks"].as_array().unwrap().len(), 13);
        assert_eq!(value["tricks"][0]["cards"].as_array().unwrap().len(), 4);
        assert_eq!(value["winner"], serde_json::Value::Null);

        let back = OwnedHandLine::parse(&json).unwrap();
        assert_eq!(back.game, 7);
        assert_eq!(back.rules, "classic");
        assert_eq!(back.record, record);
    }

    #[test]
    fn a_three_player_line_has_three_seats_and_reads_back() {
        let rules = spades_engine::Preset::ThreePlayer.rules();
        let record = first_hand_of(rules);
        let json = HandLine::new(0, &rules, &record).to_json();
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["hands"].as_array().unwrap().len(), 3);
        assert_eq!(value["hands"][0].as_array().unwrap().len(), 17);
        assert_eq!(value["tricks_won"].as_array().unwrap().len(), 3);
        assert_eq!(value["bids"].as_array().unwrap().len(), 3);
        assert_eq!(value["tricks"].as_array().unwrap().len(), 17);
        assert_eq!(value["tricks"][0]["cards"].as_array().unwrap().len(), 3);
        assert_eq!(value["score"].as_array().unwrap().len(), 3);
        assert_eq!(OwnedHandLine::parse(&json).unwrap().record, record);
    }
}
