//! Properties that hold for every seed and every rule variation: random
//! games are played to the end and checked at every step against simple,
//! separately written statements of the rules.

#[path = "../common/mod.rs"]
mod common;

use common::*;
use proptest::prelude::*;
use spades_engine::{
    Action, Bid, Bidding, Card, CardSet, Deck, Event, Game, GameRng, HandRecord, Leading, PassOrder, Preset,
    RuleSet, Seat, SpadesLead, Suit, Team,
};

mod naive;
mod random_games;

use naive::*;

/// Every preset, with the exchange, blind nil, the first lead and the
/// scoring house rules varied on top where the result is playable.
fn rule_sets() -> impl Strategy<Value = RuleSet> {
    rule_sets_from(Preset::ALL.to_vec())
}

/// Three-player games: solo's rules with every house rule varied.
fn three_player_rule_sets() -> impl Strategy<Value = RuleSet> {
    rule_sets_from(vec![Preset::Solo])
        .prop_map(|rules| RuleSet { players: 3, ..rules })
        .prop_filter("a playable rule set", |rules| rules.validate().is_ok())
}

/// Rule sets made from one of `presets` with house rules varied.
fn rule_sets_from(presets: Vec<Preset>) -> impl Strategy<Value = RuleSet> {
    let exchange = (
        any::<bool>(),
        0u8..=2,
        1u8..=3,
        any::<bool>(),
        prop_oneof![Just(50), Just(100)],
    );
    let house = (0usize..3, 0usize..3, any::<bool>(), 0u8..4, any::<bool>(), 0u8..4);
    (
        0..presets.len(),
        exchange,
        house,
        any::<bool>(),
        any::<bool>(),
        0u8..3,
        0u8..4,
    )
        .prop_map(
            move |(
                preset,
                (simultaneous, nil_pass, blind_nil_pass, blind_nil, deficit),
                house,
                vary,
                unbid,
                blind,
                most,
            )| {
                let base = presets[preset].rules();
                let mut rules = RuleSet {
                    pass_order: if simultaneous {
                        PassOrder::Simultaneous
                    } else {
                        PassOrder::Sequential
                    },
                    // A game without partners has nobody to pass to.
                    nil_pass: if base.partners { nil_pass } else { 0 },
                    blind_nil_pass: if base.partners { blind_nil_pass } else { 0 },
                    blind_nil: blind_nil && base.nil && base.bidding != Bidding::Mirror,
                    blind_nil_min_deficit: deficit,
                    ..base
                };
                if vary {
                    let (leading, spades, double, overtricks, boston, sets) = house;
                    rules.leading = [Leading::LeftOfDealer, Leading::Dealer, Leading::TwoOfClubs][leading];
                    rules.spades_lead = [
                        SpadesLead::Broken,
                        SpadesLead::AnyTime,
                        SpadesLead::FromFourthTrick,
                    ][spades];
                    rules.set_at_double = double;
                    rules.max_overtricks = (overtricks > 0).then_some(overtricks);
                    rules.boston_wins = boston;
                    rules.sets_to_lose = (sets > 1).then_some(sets);
                    rules.unbid_first_hand = unbid;
                }
                // Team blind bids where they can be played, from any
                // score or only 50 or 100 behind.
                if blind > 0 && rules.partners && rules.bidding == Bidding::Standard {
                    rules.team_blind = rules.min_team_bid.max(5 + blind);
                    rules.team_blind_min_deficit = if vary { deficit } else { 0 };
                    rules.team_blind_set_doubled = unbid;
                }
                // A team maximum, from the least the other bidding rules
                // leave room for up to a whole hand, where bids are chosen.
                if most > 0 && matches!(rules.bidding, Bidding::Standard | Bidding::Suicide) {
                    let least = rules.min_team_bid.max(rules.team_blind).max(4);
                    rules.max_team_bid = Some((least + 3 * (most - 1)).min(13));
                }
                // Half of the games without partners are played by three.
                if !rules.partners && simultaneous {
                    rules.players = 3;
                }
                rules
            },
        )
        .prop_filter("a playable rule set", |rules| rules.validate().is_ok())
}
