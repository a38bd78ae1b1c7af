//! Rule sets: every rule the engine enforces is a field of [`RuleSet`], and a
//! named preset is nothing more than a particular value of it.

use std::fmt;

use crate::card::{Card, CardSet};
pub use crate::deck::Deck;
use crate::seat::Seating;

#[cfg(test)]
mod tests;

/// How the two partners of a nil exchange give their cards.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum PassOrder {
    /// The nil bidder gives first; his partner picks the cards up and then
    /// gives the same number back.
    #[default]
    Sequential,
    /// Both partners choose their cards before seeing what they receive.
    Simultaneous,
}

/// Who leads the first trick of each hand.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Leading {
    /// The player on the dealer's left leads any card he may lead. Rule
    /// sets stored before the spade rule had its own field name this
    /// value `left_of_dealer_spades_broken`, which still reads.
    #[default]
    #[cfg_attr(feature = "serde", serde(alias = "left_of_dealer_spades_broken"))]
    LeftOfDealer,
    /// The dealer leads.
    Dealer,
    /// The holder of the two of clubs leads it.
    TwoOfClubs,
}

/// When a spade may be led.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum SpadesLead {
    /// Once a spade has been played to an earlier trick, or by a leader
    /// who holds nothing else.
    #[default]
    Broken,
    /// At any time.
    AnyTime,
    /// As `Broken` during the first three tricks of a hand, then at any
    /// time (New York's rule).
    FromFourthTrick,
}

/// How each player's bid is constrained, beyond the rule set's other
/// bidding fields.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Bidding {
    /// One bid each from 0 (nil) to the cards in a hand (13, or 17 or 18
    /// with three players), plus blind nil under its own rule.
    #[default]
    Standard,
    /// In each team one partner bids nil (or blind nil) and the other at
    /// least 4: the first of the two to bid chooses which he is.
    Suicide,
    /// Each player bids the number of spades he holds, or nil.
    Whiz,
    /// Each player bids exactly the number of spades he holds; a player
    /// with none bids nil.
    Mirror,
}

/// A complete set of rules for one game.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
pub struct RuleSet {
    /// Whether the players sitting opposite each other are partners (two
    /// teams of two) or each plays alone (solo: four teams of one).
    pub partners: bool,
    /// How many play: 4, or 3 (each on his own, 17 cards each, or 18 with
    /// the jokers).
    pub players: u8,
    /// The game ends after a hand in which a team reaches this score.
    pub target: i32,
    /// A team whose score falls to this value or below loses at once;
    /// `None` turns the rule off.
    pub mercy: Option<i32>,
    /// The game ends after this many hands; `None` means no limit.
    pub max_hands: Option<u32>,
    /// Points won for a nil made, and lost for a nil failed.
    pub nil_value: i32,
    /// Points won for a blind nil made, and lost for a blind nil failed.
    pub blind_nil_value: i32,
    /// Whether blind nil may be bid at all.
    pub blind_nil: bool,
    /// How far a team must trail at the start of a hand for its players to
    /// be offered blind nil.
    pub blind_nil_min_deficit: i32,
    /// Cards exchanged between partners after an ordinary nil (0: none).
    pub nil_pass: u8,
    /// Cards exchanged between partners after a blind nil (0: none).
    pub blind_nil_pass: u8,
    /// Whether the nil bidder gives first or both give at once.
    pub pass_order: PassOrder,
    /// Every time a team's bag count reaches this number it pays
    /// `bag_penalty` and the count goes down by this number.
    pub bag_limit: i32,
    /// Points lost each time the bag count reaches `bag_limit`.
    pub bag_penalty: i32,
    /// The pack, and with it the order of the trumps.
    pub deck: Deck,
    /// Who leads the first trick of a hand.
    pub leading: Leading,
    /// When spades may be led.
    pub spades_lead: SpadesLead,
    /// The constraint on each player's bid.
    pub bidding: Bidding,
    /// Whether nil may be bid (blind nil has its own switch).
    pub nil: bool,
    /// Nil, blind or not, may be bid only after the partner has bid a
    /// number.
    pub nil_after_partner: bool,
    /// The least a team's two bids may add up to (0: no minimum). The
    /// second partner to bid must bring the team to it.
    pub min_team_bid: u8,
    /// The most a team's bids may add up to, its blind bid included
    /// (`None`: no limit beyond the tricks of a hand). The first partner to
    /// bid leaves the second a bid he may make.
    pub max_team_bid: Option<u8>,
    /// A team contract of exactly 10 is worth 200 when made and costs 200
    /// when set.
    pub ten_for_two_hundred: bool,
    /// A team contract of every trick (a moon: 13, or 17 or 18 with three
    /// players) is worth 200 when made and costs 200 when set; 500 with
    /// `ten_for_two_hundred`.
    pub moon: bool,
    /// A team that takes every trick of a hand with a contract of at least 10
    /// wins the game at once.
    pub boston_wins: bool,
    /// Points each bag is worth when taken (1 in the rule book; 0 or -1 in
    /// some house rules).
    pub bag_value: i32,
    /// A contract below 10 made with more overtricks than this is set
    /// (`None`: no limit).
    pub max_overtricks: Option<u8>,
    /// A contract made with at least twice its tricks is set.
    pub set_at_double: bool,
    /// A team set in this many hands in a row loses the game (`None`: off).
    pub sets_to_lose: Option<u8>,
    /// The first hand of each game is played without bids or exchanges:
    /// each team scores 10 points a trick and takes no bags.
    pub unbid_first_hand: bool,
    /// The lowest number a team may bid blind, for both partners, before
    /// either has seen his cards (0: no team blind bids).
    pub team_blind: u8,
    /// How far a team must trail at the start of a hand to bid blind.
    pub team_blind_min_deficit: i32,
    /// Whether a failed team blind bid costs double, as a made one wins
    /// double; otherwise it costs what the same bid seen would.
    pub team_blind_set_doubled: bool,
}

/// The largest score a rule set may name as a target, a loss threshold
/// (negated) or a deficit. With [`MAX_VALUE`] it keeps what a hand can
/// change far inside an `i32`.
pub const MAX_POINTS: i32 = 10_000;

/// The most a nil, a blind nil or a bag penalty may be worth.
pub const MAX_VALUE: i32 = 1_000;

/// The largest exchange a rule set may ask for. Passing more than a few
/// cards stops being Spades, and a bound keeps the pass records fixed-size.
pub const MAX_PASS: u8 = 4;

impl RuleSet {
    /// Everything in the rule book with its defaults.
    pub const CLASSIC: RuleSet = RuleSet {
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
        pass_order: PassOrder::Sequential,
        bag_limit: 10,
        bag_penalty: 100,
        deck: Deck::Standard,
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
    };

    /// The seven-hand game of the tournaments: to 300, out at -300.
    pub const TOURNAMENT: RuleSet = RuleSet {
        target: 300,
        mercy: Some(-300),
        max_hands: Some(7),
        ..RuleSet::CLASSIC
    };

    /// Who plays with whom under these rules.
    pub const fn seating(&self) -> Seating {
        if self.partners {
            Seating::Partners
        } else if self.players == 3 {
            Seating::Three
        } else {
            Seating::Solo
        }
    }

    /// The cards dealt each hand.
    pub const fn pack(&self) -> CardSet {
        self.deck.pack(self.players)
    }

    /// How many cards each player holds at the deal, and so how many
    /// tricks a hand has: 13 with four players, 17 or 18 with three.
    pub const fn hand_size(&self) -> u8 {
        (self.pack().len() / self.seating().seat_count() as u32) as u8
    }

    /// The club that leads the first trick under [`Leading::TwoOfClubs`].
    pub const fn lowest_club(&self) -> Card {
        self.deck.lowest_club_of(self.players)
    }

    /// Checks that the values make a playable game.
    pub fn validate(&self) -> Result<(), RuleSetError> {
        let fail = |field: &'static str, reason: &'static str| Err(RuleSetError { field, reason });
        if self.players != 3 && self.players != 4 {
            return fail("players", "a game has 3 or 4 players");
        }
        if self.players == 3 && self.partners {
            return fail(
                "partners",
                "three players cannot sit as partners: set partners to false",
            );
        }
        if !(1..=MAX_POINTS).contains(&self.target) {
            return fail("target", "must be from 1 to 10000");
        }
        if self.mercy.is_some_and(|mercy| !(-MAX_POINTS..0).contains(&mercy)) {
            return fail("mercy", "must be from -10000 to -1");
        }
        if self.max_hands == Some(0) {
            return fail("max_hands", "must be at least one hand");
        }
        if !(0..=MAX_VALUE).contains(&self.nil_value) {
            return fail("nil_value", "must be from 0 to 1000");
        }
        if !(0..=MAX_VALUE).contains(&self.blind_nil_value) {
            return fail("blind_nil_value", "must be from 0 to 1000");
        }
        if !(0..=MAX_POINTS).contains(&self.blind_nil_min_deficit) {
            return fail("blind_nil_min_deficit", "must be from 0 to 10000");
        }
        if self.nil_pass > MAX_PASS {
            return fail("nil_pass", "at most 4 cards may be passed");
        }
        if self.blind_nil_pass > MAX_PASS {
            return fail("blind_nil_pass", "at most 4 cards may be passed");
        }
        if self.bag_limit <= 0 {
            return fail("bag_limit", "must be above zero");
        }
        if !(0..=MAX_VALUE).contains(&self.bag_penalty) {
            return fail("bag_penalty", "must be from 0 to 1000");
        }
        if !(-1..=1).contains(&self.bag_value) {
            return fail("bag_value", "a bag is worth -1, 0 or 1 point");
        }
        if self.min_team_bid > 13 {
            return fail("min_team_bid", "a team cannot bid more than 13");
        }
        if self
            .max_team_bid
            .is_some_and(|most| most == 0 || most > self.hand_size())
        {
            return fail(
                "max_team_bid",
                "must be from 1 to the cards in a hand (13, or 17 or 18 with three players)",
            );
        }
        if self.max_team_bid.is_some_and(|most| most < self.min_team_bid) {
            return fail("max_team_bid", "must be at least the team minimum");
        }
        if self.max_overtricks.is_some_and(|limit| limit > 12) {
            return fail("max_overtricks", "must be at most 12");
        }
        if self.sets_to_lose == Some(0) {
            return fail("sets_to_lose", "must be at least one set");
        }
        if self.team_blind > 13 {
            return fail("team_blind", "a team cannot bid more than 13");
        }
        if !(0..=MAX_POINTS).contains(&self.team_blind_min_deficit) {
            return fail("team_blind_min_deficit", "must be from 0 to 10000");
        }
        self.validate_bidding()?;
        self.validate_solo()
    }

    /// The rules that need a partner, refused in a game without partners.
    fn validate_solo(&self) -> Result<(), RuleSetError> {
        let fail = |field: &'static str, reason: &'static str| Err(RuleSetError { field, reason });
        if self.partners {
            return Ok(());
        }
        let nobody =
            "without partners there is nobody to exchange cards with: set nil_pass and blind_nil_pass to 0";
        if self.nil_pass > 0 {
            return fail("nil_pass", nobody);
        }
        if self.blind_nil_pass > 0 {
            return fail("blind_nil_pass", nobody);
        }
        if self.nil_after_partner {
            return fail(
                "nil_after_partner",
                "without partners there is no partner's bid to wait for",
            );
        }
        if self.bidding == Bidding::Suicide {
            return fail(
                "bidding",
                "suicide bidding is played by partners: one nil in each team",
            );
        }
        if self.min_team_bid > 0 {
            return fail("min_team_bid", "a team minimum needs partners to share it");
        }
        if self.team_blind > 0 {
            return fail("team_blind", "a team blind bid is made by two partners");
        }
        Ok(())
    }

    /// The combinations of bidding rules that leave some player without a
    /// legal bid, or that contradict each other.
    fn validate_bidding(&self) -> Result<(), RuleSetError> {
        let fail = |field: &'static str, reason: &'static str| Err(RuleSetError { field, reason });
        if self.blind_nil && !self.nil {
            return fail(
                "blind_nil",
                "blind nil needs nil bids: turn nil on or blind nil off",
            );
        }
        if self.partners && !self.nil && self.max_team_bid.is_some_and(|most| most < 2) {
            return fail(
                "max_team_bid",
                "without nil both partners bid at least 1, so the maximum must be at least 2",
            );
        }
        if self.team_blind > 0 && self.bidding != Bidding::Standard {
            return fail(
                "team_blind",
                "suicide, whiz and mirror decide each player's bid, so a team cannot bid blind",
            );
        }
        if self.team_blind > 0 && self.team_blind < self.min_team_bid {
            return fail("team_blind", "the lowest blind bid must reach the team minimum");
        }
        if self.team_blind > 0 && self.max_team_bid.is_some_and(|most| self.team_blind > most) {
            return fail(
                "team_blind",
                "the lowest blind bid must be within the team maximum",
            );
        }
        match self.bidding {
            Bidding::Standard => Ok(()),
            Bidding::Suicide => self.validate_suicide(),
            Bidding::Whiz | Bidding::Mirror => self.validate_counted_spades(),
        }
    }

    /// The bidding rules that suicide bidding, where one partner of each
    /// team bids nil and the other at least 4, cannot be played with.
    fn validate_suicide(&self) -> Result<(), RuleSetError> {
        let fail = |field: &'static str, reason: &'static str| Err(RuleSetError { field, reason });
        if !self.nil {
            return fail(
                "nil",
                "suicide bidding needs nil: one partner of each team bids it",
            );
        }
        if self.nil_after_partner {
            return fail(
                "nil_after_partner",
                "suicide bidding already says which partner bids nil",
            );
        }
        if self.min_team_bid > 4 {
            return fail(
                "min_team_bid",
                "in suicide a team may bid 4, so the minimum must be at most 4",
            );
        }
        if self.max_team_bid.is_some_and(|most| most < 4) {
            return fail(
                "max_team_bid",
                "in suicide the partner who does not bid nil bids at least 4, so the maximum must be at least 4",
            );
        }
        Ok(())
    }

    /// The bidding rules that whiz and mirror, where a bid is the count of
    /// the bidder's spades, cannot be played with.
    fn validate_counted_spades(&self) -> Result<(), RuleSetError> {
        let fail = |field: &'static str, reason: &'static str| Err(RuleSetError { field, reason });
        if !self.nil {
            return fail("nil", "whiz and mirror need nil for a player who holds no spade");
        }
        if self.min_team_bid > 0 {
            return fail(
                "min_team_bid",
                "whiz and mirror bids are counted spades, so a team minimum cannot be kept",
            );
        }
        if self.max_team_bid.is_some() {
            return fail(
                "max_team_bid",
                "whiz and mirror bids are counted spades, so a team maximum cannot be kept",
            );
        }
        if self.nil_after_partner {
            return fail(
                "nil_after_partner",
                "whiz and mirror need nil at any time for a player who holds no spade",
            );
        }
        if self.bidding == Bidding::Mirror && self.blind_nil {
            return fail(
                "blind_nil",
                "in mirror every bid is the count of spades, so blind nil is off",
            );
        }
        Ok(())
    }
}

impl Default for RuleSet {
    fn default() -> RuleSet {
        RuleSet::CLASSIC
    }
}

/// A rule set whose values do not make a playable game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleSetError {
    pub field: &'static str,
    pub reason: &'static str,
}

impl fmt::Display for RuleSetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rule {}: {}", self.field, self.reason)
    }
}

impl std::error::Error for RuleSetError {}
