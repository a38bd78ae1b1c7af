//! The named presets: each one is a [`RuleSet`] value with a name and a
//! line that says what it changes from `classic`.

use std::fmt;

use crate::rules::{Bidding, Deck, Leading, RuleSet, SpadesLead};

/// The named presets. A rule set made from a preset with overrides is no
/// longer that preset, and [`RuleSet::name`] calls it `custom`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum Preset {
    #[cfg_attr(feature = "serde", serde(rename = "classic"))]
    Classic,
    #[cfg_attr(feature = "serde", serde(rename = "tournament"))]
    Tournament,
    #[cfg_attr(feature = "serde", serde(rename = "board-4"))]
    Board4,
    #[cfg_attr(feature = "serde", serde(rename = "suicide"))]
    Suicide,
    #[cfg_attr(feature = "serde", serde(rename = "whiz"))]
    Whiz,
    #[cfg_attr(feature = "serde", serde(rename = "mirror"))]
    Mirror,
    #[cfg_attr(feature = "serde", serde(rename = "ten-for-two-hundred"))]
    TenForTwoHundred,
    #[cfg_attr(feature = "serde", serde(rename = "bags-5"))]
    Bags5,
    #[cfg_attr(feature = "serde", serde(rename = "minus-bags"))]
    MinusBags,
    #[cfg_attr(feature = "serde", serde(rename = "nil-50"))]
    Nil50,
    #[cfg_attr(feature = "serde", serde(rename = "no-nil"))]
    NoNil,
    #[cfg_attr(feature = "serde", serde(rename = "two-of-clubs"))]
    TwoOfClubs,
    #[cfg_attr(feature = "serde", serde(rename = "dealer-leads"))]
    DealerLeads,
    #[cfg_attr(feature = "serde", serde(rename = "jokers"))]
    Jokers,
    #[cfg_attr(feature = "serde", serde(rename = "deuce-high"))]
    DeuceHigh,
    #[cfg_attr(feature = "serde", serde(rename = "solo"))]
    Solo,
    #[cfg_attr(feature = "serde", serde(rename = "new-york"))]
    NewYork,
    #[cfg_attr(feature = "serde", serde(rename = "three-player"))]
    ThreePlayer,
}

impl Preset {
    pub const ALL: [Preset; 18] = [
        Preset::Classic,
        Preset::Tournament,
        Preset::Board4,
        Preset::Suicide,
        Preset::Whiz,
        Preset::Mirror,
        Preset::TenForTwoHundred,
        Preset::Bags5,
        Preset::MinusBags,
        Preset::Nil50,
        Preset::NoNil,
        Preset::TwoOfClubs,
        Preset::DealerLeads,
        Preset::Jokers,
        Preset::DeuceHigh,
        Preset::Solo,
        Preset::NewYork,
        Preset::ThreePlayer,
    ];

    /// The name used in the protocol, the API and on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Preset::Classic => "classic",
            Preset::Tournament => "tournament",
            Preset::Board4 => "board-4",
            Preset::Suicide => "suicide",
            Preset::Whiz => "whiz",
            Preset::Mirror => "mirror",
            Preset::TenForTwoHundred => "ten-for-two-hundred",
            Preset::Bags5 => "bags-5",
            Preset::MinusBags => "minus-bags",
            Preset::Nil50 => "nil-50",
            Preset::NoNil => "no-nil",
            Preset::TwoOfClubs => "two-of-clubs",
            Preset::DealerLeads => "dealer-leads",
            Preset::Jokers => "jokers",
            Preset::DeuceHigh => "deuce-high",
            Preset::Solo => "solo",
            Preset::NewYork => "new-york",
            Preset::ThreePlayer => "three-player",
        }
    }

    /// What the preset changes from `classic`, in one line for people.
    pub const fn summary(self) -> &'static str {
        match self {
            Preset::Classic => {
                "The rule book: to 500, nil 100, blind nil 200 when 100 behind, 10 bags cost 100."
            }
            Preset::Tournament => "Classic played to 300 (out at -300) over at most seven hands.",
            Preset::Board4 => "Each team must bid at least 4 between its two players.",
            Preset::Suicide => "In each team one partner bids nil and the other at least 4.",
            Preset::Whiz => "Each player bids the number of spades he holds, or nil.",
            Preset::Mirror => "Each player bids exactly the number of spades he holds; no blind nil.",
            Preset::TenForTwoHundred => "A team contract of 10 is worth 200, a moon (13) 500, either way.",
            Preset::Bags5 => "Every 5 bags cost 50 points.",
            Preset::MinusBags => "Each bag costs a point, and there is no bag penalty.",
            Preset::Nil50 => "Nil is worth 50 and blind nil 100.",
            Preset::NoNil => "No nil and no blind nil.",
            Preset::TwoOfClubs => "The holder of the two of clubs leads it to the first trick.",
            Preset::DealerLeads => "The dealer leads the first trick, and spades may be led at any time.",
            Preset::Jokers => {
                "Big and little joker, then the two of spades, rank above the ace; the twos of clubs and hearts are out."
            }
            Preset::DeuceHigh => "The two of spades is the highest trump, above the ace.",
            Preset::Solo => {
                "No partners: each of the four players bids, scores and keeps bags alone; no blind nil exchange."
            }
            Preset::NewYork => {
                "Jokers, the two of spades and the two of diamonds above the ace; no nil, a team bids 4 to 10, at most two bags, blind 6 when 100 behind, two sets in a row lose."
            }
            Preset::ThreePlayer => {
                "Three players, each alone, 17 cards each with the two of clubs out; the three of clubs leads the first trick."
            }
        }
    }

    pub fn from_name(name: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|preset| preset.name() == name)
    }

    pub const fn rules(self) -> RuleSet {
        let classic = RuleSet::CLASSIC;
        match self {
            Preset::Classic => classic,
            Preset::Tournament => RuleSet::TOURNAMENT,
            Preset::Board4 => RuleSet {
                min_team_bid: 4,
                ..classic
            },
            Preset::Suicide => RuleSet {
                bidding: Bidding::Suicide,
                ..classic
            },
            Preset::Whiz => RuleSet {
                bidding: Bidding::Whiz,
                ..classic
            },
            Preset::Mirror => RuleSet {
                bidding: Bidding::Mirror,
                blind_nil: false,
                ..classic
            },
            Preset::TenForTwoHundred => RuleSet {
                ten_for_two_hundred: true,
                moon: true,
                ..classic
            },
            Preset::Bags5 => RuleSet {
                bag_limit: 5,
                bag_penalty: 50,
                ..classic
            },
            Preset::MinusBags => RuleSet {
                bag_value: -1,
                bag_penalty: 0,
                ..classic
            },
            Preset::Nil50 => RuleSet {
                nil_value: 50,
                blind_nil_value: 100,
                ..classic
            },
            Preset::NoNil => RuleSet {
                nil: false,
                blind_nil: false,
                ..classic
            },
            Preset::TwoOfClubs => RuleSet {
                leading: Leading::TwoOfClubs,
                ..classic
            },
            Preset::DealerLeads => RuleSet {
                leading: Leading::Dealer,
                spades_lead: SpadesLead::AnyTime,
                ..classic
            },
            Preset::Jokers => RuleSet {
                deck: Deck::Jokers,
                ..classic
            },
            Preset::DeuceHigh => RuleSet {
                deck: Deck::DeuceHigh,
                ..classic
            },
            Preset::Solo => RuleSet {
                partners: false,
                blind_nil_pass: 0,
                ..classic
            },
            Preset::NewYork => NEW_YORK,
            Preset::ThreePlayer => THREE_PLAYER,
        }
    }
}

/// New York City's rules, the preset that changes the most: its own pack,
/// no nil, team minimums and maximums, a blind bid of six and more. Kept
/// apart from [`Preset::rules`] so that the presets which change a rule or
/// two read as a table.
const NEW_YORK: RuleSet = RuleSet {
    deck: Deck::NewYorkCity,
    spades_lead: SpadesLead::FromFourthTrick,
    nil: false,
    blind_nil: false,
    blind_nil_pass: 0,
    min_team_bid: 4,
    max_team_bid: Some(10),
    ten_for_two_hundred: true,
    boston_wins: true,
    max_overtricks: Some(2),
    sets_to_lose: Some(2),
    unbid_first_hand: true,
    team_blind: 6,
    team_blind_set_doubled: false,
    ..RuleSet::CLASSIC
};

/// The three-player game, each player alone.
const THREE_PLAYER: RuleSet = RuleSet {
    partners: false,
    players: 3,
    blind_nil_pass: 0,
    leading: Leading::TwoOfClubs,
    ..RuleSet::CLASSIC
};

impl RuleSet {
    /// The preset this rule set is exactly equal to, if any.
    pub fn preset(&self) -> Option<Preset> {
        Preset::ALL.into_iter().find(|preset| preset.rules() == *self)
    }

    /// The preset's name, or `custom`.
    pub fn name(&self) -> &'static str {
        self.preset().map_or("custom", Preset::name)
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_named_values() {
        assert_eq!(RuleSet::CLASSIC.name(), "classic");
        assert_eq!(RuleSet::TOURNAMENT.name(), "tournament");
        assert_eq!(Preset::from_name("tournament"), Some(Preset::Tournament));
        assert_eq!(Preset::from_name("bridge"), None);
        let changed = RuleSet {
            target: 250,
            ..RuleSet::CLASSIC
        };
        assert_eq!(changed.name(), "custom");
    }

    #[test]
    fn every_preset_is_playable_and_distinct() {
        for preset in Preset::ALL {
            let rules = preset.rules();
            assert_eq!(rules.validate(), Ok(()), "{preset}");
            assert_eq!(
                rules.preset(),
                Some(preset),
                "{preset} is equal to another preset"
            );
            assert_eq!(Preset::from_name(preset.name()), Some(preset));
            assert!(!preset.summary().is_empty());
        }
    }
}
