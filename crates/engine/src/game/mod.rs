//! The state of one game and the only way to change it, [`Game::apply`].
//!
//! This file holds the game's types and its plain queries. The methods that
//! follow the rules live in the files beside it, one concern to a file, so
//! that each can be read on its own: the legal actions, bidding, the
//! exchange, checking and applying an action, the deal, the play of the
//! cards and the scoring at the end of a hand.

use arrayvec::ArrayVec;

use crate::action::Bid;
use crate::card::{Card, CardSet};
use crate::choices::{BidChoices, MAX_TRICKS};
use crate::history::{HandRecord, PassRecord, TrickRecord};
use crate::rng::GameRng;
use crate::rules::{PassOrder, RuleSet};
use crate::score::{Streaks, TeamHandScore};
use crate::seat::{BySeat, ByTeam, Seat, SeatSet, Seating, Team};

mod bidding;
mod check;
mod deal;
mod exchange;
mod legal;
mod play;
mod scoring;
mod setup;

pub use setup::{Deal, PositionError, ReplayError, SetupError};

use crate::phase::Phase;

/// What a seat may do right now, in a form a player (human or bot) can
/// choose from without trying actions one by one.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Legal {
    /// Nothing: another seat is to act.
    Wait,
    /// Not this seat's turn to bid, but it was offered a blind bid and may
    /// look at its cards (giving the blind bid up) while it waits.
    Look,
    /// This seat's turn to bid while its cards are hidden: one of these
    /// blind bids (nil for blind nil, a number for the team's blind bid), or
    /// look at the cards first.
    BlindOrLook(BidChoices),
    /// Bid one of these (nil, or a number of tricks up to the cards in a
    /// hand, as the rules and the bids before allow).
    Bid(BidChoices),
    /// Give exactly `count` cards of the hand to the partner.
    Pass { count: u8 },
    /// Play one of these cards.
    Play(CardSet),
}

/// The exchange one team makes in the current hand.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Exchange {
    count: u8,
    order: PassOrder,
    /// In a sequential exchange, the nil bidder, who gives first.
    first: Seat,
}

/// One game of Spades, from the first deal to the winner.
///
/// The game owns its random generator, so a game is fully determined by its
/// rule set, its seed and the actions applied to it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Game {
    rules: RuleSet,
    seed: u64,
    rng: GameRng,
    phase: Phase,
    hand_number: u32,
    dealer: Seat,
    score: ByTeam<i32>,
    bags: ByTeam<i32>,
    streaks: Streaks,
    winner: Option<Team>,

    // The hand in progress.
    dealt: BySeat<CardSet>,
    hands: BySeat<CardSet>,
    /// Seats offered blind nil this hand.
    blind_eligible: SeatSet,
    /// Seats whose cards are still hidden from them.
    hidden: SeatSet,
    bids: BySeat<Option<Bid>>,
    /// The seat to bid or play next (unused while passing).
    turn: Seat,
    exchanges: ByTeam<Option<Exchange>>,
    /// Seats that owe cards to their partner right now.
    pass_pending: SeatSet,
    /// Cards chosen in a simultaneous exchange, held until the partner chooses.
    pass_chosen: BySeat<CardSet>,
    passes: ArrayVec<PassRecord, 4>,
    /// The tricks of this hand. Those before `tricks_done` are complete;
    /// the one at `tricks_done` is being played and holds `trick_len`
    /// cards. Cards are written straight into the record they end up in.
    tricks: [TrickRecord; MAX_TRICKS as usize],
    tricks_done: u8,
    trick_len: u8,
    /// Cards in a hand and tricks in a hand: 13, or 17 or 18 for three.
    hand_size: u8,
    /// Who plays with whom, and the seats played (4, or 3), kept so that
    /// the play loop does not work them out of the rules for every card.
    seating: Seating,
    players: u8,
    /// The cards dealt, in byte order, the start of every shuffle: the
    /// first `pack_len` places count.
    pack: [Card; 54],
    pack_len: u8,
    /// The cards of this pack that the plain twos of spades and of
    /// diamonds name: `Deck::card` worked out once, for the cards of every
    /// play.
    two_of_spades: Card,
    two_of_diamonds: Card,
    /// The cards of the trick being played, as a set, to find its winner.
    trick_cards: CardSet,
    /// The cards that follow the suit led to the trick being played (empty
    /// before the lead), kept so that legal plays are one AND.
    led: CardSet,
    tricks_won: BySeat<u8>,
    spades_broken: bool,

    last_hand: Option<HandRecord>,
    last_scores: Option<ByTeam<TeamHandScore>>,
}

impl Game {
    // Plain accessors. The game is the server's authoritative copy, so these
    // show everything; what a player may see goes through `view`.

    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn hand_number(&self) -> u32 {
        self.hand_number
    }

    pub fn dealer(&self) -> Seat {
        self.dealer
    }

    pub fn score(&self) -> ByTeam<i32> {
        self.score
    }

    pub fn bags(&self) -> ByTeam<i32> {
        self.bags
    }

    pub fn winner(&self) -> Option<Team> {
        self.winner
    }

    pub fn is_over(&self) -> bool {
        self.phase == Phase::GameOver
    }

    /// A seat's cards now, whether or not he may see them.
    pub fn hand(&self, seat: Seat) -> CardSet {
        self.hands[seat]
    }

    /// Each seat's cards as dealt this hand.
    pub fn dealt(&self) -> &BySeat<CardSet> {
        &self.dealt
    }

    pub fn bids(&self) -> &BySeat<Option<Bid>> {
        &self.bids
    }

    pub fn tricks_won(&self) -> &BySeat<u8> {
        &self.tricks_won
    }

    /// The tricks completed in this hand.
    pub fn tricks(&self) -> &[TrickRecord] {
        &self.tricks[..usize::from(self.tricks_done)]
    }

    /// The leader of the trick being played and the cards played to it.
    pub fn current_trick(&self) -> (Seat, &[Card]) {
        let trick = self.open_trick();
        (trick.leader, &trick.cards[..usize::from(self.trick_len)])
    }

    pub fn spades_broken(&self) -> bool {
        self.spades_broken
    }

    /// Who plays, and in which seats.
    #[inline]
    pub fn seating(&self) -> Seating {
        self.seating
    }

    /// How many cards each player is dealt, and so how many tricks a hand
    /// has.
    pub fn hand_size(&self) -> u8 {
        self.hand_size
    }

    /// Passes made so far this hand, in order.
    pub fn passes(&self) -> &[PassRecord] {
        &self.passes
    }

    /// Cards a seat has chosen in a simultaneous exchange that have not moved yet.
    pub fn pass_chosen(&self, seat: Seat) -> CardSet {
        self.pass_chosen[seat]
    }

    pub fn is_blind_nil_offered(&self, seat: Seat) -> bool {
        self.blind_eligible.contains(seat)
    }

    /// Whether a seat's cards are still hidden from him (he was offered
    /// blind nil and has neither bid it nor looked).
    pub fn is_hand_hidden(&self, seat: Seat) -> bool {
        self.hidden.contains(seat)
    }

    /// The number of cards a seat must give in this hand's exchange, if his
    /// team exchanges.
    pub fn pass_count(&self, seat: Seat) -> Option<u8> {
        if !self.rules.partners {
            return None;
        }
        self.exchanges[seat.team()].map(|exchange| exchange.count)
    }

    /// The record of the last finished hand.
    pub fn last_hand(&self) -> Option<&HandRecord> {
        self.last_hand.as_ref()
    }

    /// How each team scored in the last finished hand.
    pub fn last_hand_scores(&self) -> Option<&ByTeam<TeamHandScore>> {
        self.last_scores.as_ref()
    }

    /// The seats that are expected to act now: one while bidding or
    /// playing, one or more while passing, none when the game is over.
    #[inline]
    pub fn to_act(&self) -> SeatSet {
        match self.phase {
            Phase::Bidding | Phase::Playing => SeatSet::single(self.turn),
            Phase::Passing => self.pass_pending,
            Phase::GameOver => SeatSet::EMPTY,
        }
    }

    /// The first of the seats expected to act now (see [`Game::to_act`]),
    /// which is what a loop that plays a game out asks for.
    #[inline]
    pub fn first_to_act(&self) -> Option<Seat> {
        match self.phase {
            Phase::Bidding | Phase::Playing => Some(self.turn),
            Phase::Passing => self.pass_pending.first(),
            Phase::GameOver => None,
        }
    }
}
