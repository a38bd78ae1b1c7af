//! The rule set as the checker understands it: read from the `rule_set`
//! object of a log line as plain JSON, field by field, with the meaning
//! `docs/rules.md` gives each field. Nothing here comes from the engine.

use serde_json::Value;

/// Which cards are in play, by the `deck` field.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Pack {
    Standard,
    Jokers,
    DeuceHigh,
    NewYork,
    NewYorkCity,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Leading {
    LeftOfDealer,
    Dealer,
    TwoOfClubs,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SpadesLead {
    Broken,
    AnyTime,
    FromFourthTrick,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bidding {
    Standard,
    Suicide,
    Whiz,
    Mirror,
}

/// Every field of a rule set.
#[derive(Clone, PartialEq, Debug)]
pub struct Rules {
    pub partners: bool,
    pub players: i64,
    pub target: i64,
    pub mercy: Option<i64>,
    pub max_hands: Option<i64>,
    pub nil_value: i64,
    pub blind_nil_value: i64,
    pub blind_nil: bool,
    pub blind_nil_min_deficit: i64,
    pub nil_pass: usize,
    pub blind_nil_pass: usize,
    pub simultaneous: bool,
    pub bag_limit: i64,
    pub bag_penalty: i64,
    pub pack: Pack,
    pub leading: Leading,
    pub spades_lead: SpadesLead,
    pub bidding: Bidding,
    pub nil: bool,
    pub nil_after_partner: bool,
    pub min_team_bid: i64,
    pub max_team_bid: Option<i64>,
    pub ten_for_two_hundred: bool,
    pub moon: bool,
    pub boston_wins: bool,
    pub bag_value: i64,
    pub max_overtricks: Option<i64>,
    pub set_at_double: bool,
    pub sets_to_lose: Option<i64>,
    pub unbid_first_hand: bool,
    pub team_blind: i64,
    pub team_blind_min_deficit: i64,
    pub team_blind_set_doubled: bool,
}

fn field<'v>(set: &'v Value, name: &str) -> &'v Value {
    set.get(name)
        .unwrap_or_else(|| panic!("the rule set has no `{name}`: {set}"))
}

fn number(set: &Value, name: &str) -> i64 {
    field(set, name)
        .as_i64()
        .unwrap_or_else(|| panic!("`{name}` is not a number"))
}

fn optional(set: &Value, name: &str) -> Option<i64> {
    let value = field(set, name);
    if value.is_null() {
        None
    } else {
        Some(
            value
                .as_i64()
                .unwrap_or_else(|| panic!("`{name}` is not a number")),
        )
    }
}

fn flag(set: &Value, name: &str) -> bool {
    field(set, name)
        .as_bool()
        .unwrap_or_else(|| panic!("`{name}` is not true or false"))
}

fn word<'v>(set: &'v Value, name: &str) -> &'v str {
    field(set, name)
        .as_str()
        .unwrap_or_else(|| panic!("`{name}` is not a string"))
}

impl Rules {
    /// Reads a rule set, refusing any value `docs/rules.md` does not name.
    pub fn read(set: &Value) -> Rules {
        let pack = match word(set, "deck") {
            "standard" => Pack::Standard,
            "jokers" => Pack::Jokers,
            "deuce_high" => Pack::DeuceHigh,
            "new_york" => Pack::NewYork,
            "new_york_city" => Pack::NewYorkCity,
            other => panic!("unknown deck {other}"),
        };
        let leading = match word(set, "leading") {
            "left_of_dealer" => Leading::LeftOfDealer,
            "dealer" => Leading::Dealer,
            "two_of_clubs" => Leading::TwoOfClubs,
            other => panic!("unknown leading {other}"),
        };
        let spades_lead = match word(set, "spades_lead") {
            "broken" => SpadesLead::Broken,
            "any_time" => SpadesLead::AnyTime,
            "from_fourth_trick" => SpadesLead::FromFourthTrick,
            other => panic!("unknown spades_lead {other}"),
        };
        let bidding = match word(set, "bidding") {
            "standard" => Bidding::Standard,
            "suicide" => Bidding::Suicide,
            "whiz" => Bidding::Whiz,
            "mirror" => Bidding::Mirror,
            other => panic!("unknown bidding {other}"),
        };
        let simultaneous = match word(set, "pass_order") {
            "sequential" => false,
            "simultaneous" => true,
            other => panic!("unknown pass_order {other}"),
        };
        Rules {
            partners: flag(set, "partners"),
            players: number(set, "players"),
            target: number(set, "target"),
            mercy: optional(set, "mercy"),
            max_hands: optional(set, "max_hands"),
            nil_value: number(set, "nil_value"),
            blind_nil_value: number(set, "blind_nil_value"),
            blind_nil: flag(set, "blind_nil"),
            blind_nil_min_deficit: number(set, "blind_nil_min_deficit"),
            nil_pass: number(set, "nil_pass") as usize,
            blind_nil_pass: number(set, "blind_nil_pass") as usize,
            simultaneous,
            bag_limit: number(set, "bag_limit"),
            bag_penalty: number(set, "bag_penalty"),
            pack,
            leading,
            spades_lead,
            bidding,
            nil: flag(set, "nil"),
            nil_after_partner: flag(set, "nil_after_partner"),
            min_team_bid: number(set, "min_team_bid"),
            max_team_bid: optional(set, "max_team_bid"),
            ten_for_two_hundred: flag(set, "ten_for_two_hundred"),
            moon: flag(set, "moon"),
            boston_wins: flag(set, "boston_wins"),
            bag_value: number(set, "bag_value"),
            max_overtricks: optional(set, "max_overtricks"),
            set_at_double: flag(set, "set_at_double"),
            sets_to_lose: optional(set, "sets_to_lose"),
            unbid_first_hand: flag(set, "unbid_first_hand"),
            team_blind: number(set, "team_blind"),
            team_blind_min_deficit: number(set, "team_blind_min_deficit"),
            team_blind_set_doubled: flag(set, "team_blind_set_doubled"),
        }
    }

    /// The rule book's game, which every preset changes in a few fields.
    pub fn classic() -> Rules {
        Rules {
            partners: true,
            players: 4,
            target: 500,
            mercy: Some(-500),
            max_hands: None,
            nil_value: 100,
            blind_nil_value: 200,
            blind_nil: true,
            blind_nil_min_deficit: 100,
            nil_pass: 0,
            blind_nil_pass: 2,
            simultaneous: false,
            bag_limit: 10,
            bag_penalty: 100,
            pack: Pack::Standard,
            leading: Leading::LeftOfDealer,
            spades_lead: SpadesLead::Broken,
            bidding: Bidding::Standard,
            nil: true,
            nil_after_partner: false,
            min_team_bid: 0,
            max_team_bid: None,
            ten_for_two_hundred: false,
            moon: false,
            boston_wins: false,
            bag_value: 1,
            max_overtricks: None,
            set_at_double: false,
            sets_to_lose: None,
            unbid_first_hand: false,
            team_blind: 0,
            team_blind_min_deficit: 100,
            team_blind_set_doubled: true,
        }
    }

    /// A preset as the table in `docs/rules.md` describes it: classic with
    /// the changes its line names.
    pub fn preset(name: &str) -> Rules {
        let classic = Rules::classic();
        match name {
            "classic" => classic,
            "tournament" => Rules {
                target: 300,
                mercy: Some(-300),
                max_hands: Some(7),
                ..classic
            },
            "board-4" => Rules {
                min_team_bid: 4,
                ..classic
            },
            "suicide" => Rules {
                bidding: Bidding::Suicide,
                ..classic
            },
            "whiz" => Rules {
                bidding: Bidding::Whiz,
                ..classic
            },
            "mirror" => Rules {
                bidding: Bidding::Mirror,
                blind_nil: false,
                ..classic
            },
            "ten-for-two-hundred" => Rules {
                ten_for_two_hundred: true,
                moon: true,
                ..classic
            },
            "bags-5" => Rules {
                bag_limit: 5,
                bag_penalty: 50,
                ..classic
            },
            "minus-bags" => Rules {
                bag_value: -1,
                bag_penalty: 0,
                ..classic
            },
            "nil-50" => Rules {
                nil_value: 50,
                blind_nil_value: 100,
                ..classic
            },
            "no-nil" => Rules {
                nil: false,
                blind_nil: false,
                ..classic
            },
            "two-of-clubs" => Rules {
                leading: Leading::TwoOfClubs,
                ..classic
            },
            "dealer-leads" => Rules {
                leading: Leading::Dealer,
                spades_lead: SpadesLead::AnyTime,
                ..classic
            },
            "jokers" => Rules {
                pack: Pack::Jokers,
                ..classic
            },
            "deuce-high" => Rules {
                pack: Pack::DeuceHigh,
                ..classic
            },
            "solo" => Rules {
                partners: false,
                blind_nil_pass: 0,
                ..classic
            },
            "new-york" => Rules {
                pack: Pack::NewYorkCity,
                max_team_bid: Some(10),
                spades_lead: SpadesLead::FromFourthTrick,
                nil: false,
                blind_nil: false,
                blind_nil_pass: 0,
                min_team_bid: 4,
                ten_for_two_hundred: true,
                boston_wins: true,
                max_overtricks: Some(2),
                sets_to_lose: Some(2),
                unbid_first_hand: true,
                team_blind: 6,
                team_blind_set_doubled: false,
                ..classic
            },
            "three-player" => Rules {
                partners: false,
                players: 3,
                blind_nil_pass: 0,
                leading: Leading::TwoOfClubs,
                ..classic
            },
            other => panic!("no preset {other} in docs/rules.md"),
        }
    }

    /// How many teams keep a score: two partnerships, or each player
    /// alone (four in solo, three in the three-player game).
    pub fn teams(&self) -> usize {
        if self.partners { 2 } else { self.players as usize }
    }

    /// Cards in each hand, and tricks in each hand: the 52 cards shared by
    /// four, or 51 (54 with the jokers) by three.
    pub fn hand_size(&self) -> usize {
        match (self.players, self.pack) {
            (3, Pack::Jokers | Pack::NewYorkCity) => 18,
            (3, _) => 17,
            _ => 13,
        }
    }

    pub fn team_of(&self, seat: usize) -> usize {
        if self.partners { seat % 2 } else { seat }
    }

    pub fn members(&self, team: usize) -> Vec<usize> {
        if self.partners {
            vec![team, team + 2]
        } else {
            vec![team]
        }
    }

    pub fn partner(&self, seat: usize) -> Option<usize> {
        self.partners.then_some((seat + 2) % 4)
    }
}

/// Every preset the server offers, as `GET /api/presets` and the table in
/// `docs/rules.md` list them.
pub const PRESETS: [&str; 18] = [
    "classic",
    "tournament",
    "board-4",
    "suicide",
    "whiz",
    "mirror",
    "ten-for-two-hundred",
    "bags-5",
    "minus-bags",
    "nil-50",
    "no-nil",
    "two-of-clubs",
    "dealer-leads",
    "jokers",
    "deuce-high",
    "solo",
    "new-york",
    "three-player",
];
