//! The state of one game and the only way to change it, [`Game::apply`].

use std::fmt;

use arrayvec::ArrayVec;

use crate::action::{Action, Bid, BidChoices, MAX_TRICKS};
use crate::card::{Card, CardSet, Suit};
use crate::error::RuleError;
use crate::event::{Event, Events};
use crate::history::{BidRecord, HandRecord, PassRecord, TrickRecord};
use crate::rng::GameRng;
use crate::rules::{Bidding, Leading, PassOrder, RuleSet, SpadesLead};
use crate::score::{self, Streaks, TeamHandScore};
use crate::seat::{BySeat, ByTeam, Seat, SeatSet, Seating, Team};
use crate::view::{View, Viewer};

mod setup;

pub use setup::{Deal, PositionError, ReplayError, SetupError};

/// The part of a hand the game is in.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Phase {
    Bidding,
    /// Partners of a nil bidder exchange cards.
    Passing,
    Playing,
    GameOver,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::Bidding => "bidding",
            Phase::Passing => "passing",
            Phase::Playing => "playing",
            Phase::GameOver => "game over",
        })
    }
}

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

    /// What the seat may see of the game.
    pub fn view(&self, viewer: Viewer) -> View<'_> {
        View::new(self, viewer)
    }

    /// What a seat may do now.
    #[inline]
    pub fn legal(&self, seat: Seat) -> Legal {
        // Play first: it is asked for some thirteen times as often as the
        // rest together.
        if self.phase == Phase::Playing {
            return if seat == self.turn {
                Legal::Play(self.plays_from(self.hands[seat]))
            } else {
                Legal::Wait
            };
        }
        match self.phase {
            Phase::Bidding if seat == self.turn => {
                if self.hidden.contains(seat) {
                    Legal::BlindOrLook(self.blind_choices(seat))
                } else {
                    Legal::Bid(self.bid_choices(seat))
                }
            }
            Phase::Bidding if self.hidden.contains(seat) => Legal::Look,
            Phase::Passing if self.pass_pending.contains(seat) => match self.pass_count(seat) {
                Some(count) => Legal::Pass { count },
                None => Legal::Wait,
            },
            _ => Legal::Wait,
        }
    }

    /// The cards a seat may play now: empty unless it is his turn to play.
    #[inline]
    pub fn legal_plays(&self, seat: Seat) -> CardSet {
        if self.phase != Phase::Playing || seat != self.turn {
            return CardSet::EMPTY;
        }
        self.plays_from(self.hands[seat])
    }

    /// The cards of `hand` that may be played to the trick on the table.
    #[inline]
    fn plays_from(&self, hand: CardSet) -> CardSet {
        if self.trick_len == 0 {
            if self.tricks_done == 0 && self.rules.leading == Leading::TwoOfClubs {
                let two = hand & CardSet::single(self.rules.lowest_club());
                if !two.is_empty() {
                    return two;
                }
            }
            let others = hand - self.trumps();
            if self.spades_closed() && !others.is_empty() {
                others
            } else {
                hand
            }
        } else {
            let follow = hand & self.led;
            if follow.is_empty() { hand } else { follow }
        }
    }

    /// Whether a spade may not be led now (when the leader holds another suit).
    #[inline]
    fn spades_closed(&self) -> bool {
        match self.rules.spades_lead {
            SpadesLead::Broken => !self.spades_broken,
            SpadesLead::AnyTime => false,
            SpadesLead::FromFourthTrick => !self.spades_broken && self.tricks_done < 3,
        }
    }

    /// The bids a seat may make when it is his turn, his cards in view.
    pub fn bid_choices(&self, seat: Seat) -> BidChoices {
        let rules = &self.rules;
        // Under the rule book's bidding every seat has the same choices
        // whatever was bid before him: the common case, answered at once.
        if rules.bidding == Bidding::Standard
            && rules.min_team_bid == 0
            && rules.max_team_bid.is_none()
            && !rules.nil_after_partner
        {
            let numbers = BidChoices::tricks(1, self.hand_size);
            return if rules.nil {
                numbers.union(BidChoices::NIL)
            } else {
                numbers
            };
        }
        let partner = self.partner_bid(seat);
        let numbers = match rules.bidding {
            Bidding::Standard => BidChoices::tricks(1, self.hand_size),
            Bidding::Suicide if partner.is_some_and(|bid| !bid.is_nil()) => BidChoices::NONE,
            Bidding::Suicide => BidChoices::tricks(4, self.hand_size),
            Bidding::Whiz | Bidding::Mirror => {
                let spades = self.spades_held(seat);
                BidChoices::tricks(spades, spades)
            }
        };
        // The second partner to bid brings the team to its minimum.
        let numbers = match partner {
            Some(bid) if rules.min_team_bid > 0 => {
                let short = rules.min_team_bid.saturating_sub(bid.contract());
                numbers.without(BidChoices::tricks(1, short.saturating_sub(1)))
            }
            _ => numbers,
        };
        // No team bids above its maximum.
        let numbers = match rules.max_team_bid {
            Some(most) => numbers.without(BidChoices::tricks(
                self.most_under_cap(seat, partner, most) + 1,
                MAX_TRICKS,
            )),
            None => numbers,
        };
        // Mirror's only nil is the count of a hand without spades.
        let nil =
            self.nil_open_after(partner) && (rules.bidding != Bidding::Mirror || self.spades_held(seat) == 0);
        if nil {
            numbers.union(BidChoices::NIL)
        } else {
            numbers
        }
    }

    /// The most a seat may bid under the team maximum `most`: what his
    /// partner's bid leaves of it, or, while his partner is still to bid,
    /// as much as leaves the partner a bid: all of it when the partner may
    /// then bid nil (he always may after a number, once nil exists and the
    /// maximum reaches the team minimum), one trick less when nil does not
    /// exist.
    fn most_under_cap(&self, seat: Seat, partner: Option<Bid>, most: u8) -> u8 {
        match partner {
            Some(bid) => most.saturating_sub(bid.contract()),
            None if self.seating.partner(seat).is_some() && !self.rules.nil => most.saturating_sub(1),
            None => most,
        }
    }

    /// The highest bid a team may make in one go: its blind bid.
    fn most_for_team(&self) -> u8 {
        self.rules
            .max_team_bid
            .map_or(self.hand_size, |most| most.min(self.hand_size))
    }

    /// The number of spades (trumps) a seat holds, which whiz and mirror
    /// bid.
    fn spades_held(&self, seat: Seat) -> u8 {
        (self.hands[seat] & self.trumps()).len() as u8
    }

    /// The bid of a seat's partner, if he has one and has bid.
    #[inline]
    fn partner_bid(&self, seat: Seat) -> Option<Bid> {
        self.seating.partner(seat).and_then(|partner| self.bids[partner])
    }

    /// Whether the bids so far and the bidding rules leave nil open to a
    /// seat whose partner (if any) made `partner`, whatever his cards: the
    /// part of [`Game::bid_choices`] that blind nil, decided before the
    /// cards are seen, also obeys.
    #[inline]
    fn nil_open_after(&self, partner: Option<Bid>) -> bool {
        let rules = &self.rules;
        let suicide_ok = rules.bidding != Bidding::Suicide || !partner.is_some_and(Bid::is_nil);
        rules.nil
            && suicide_ok
            && (!rules.nil_after_partner || matches!(partner, Some(Bid::Tricks(_))))
            && partner.is_none_or(|bid| bid.contract() >= rules.min_team_bid)
    }

    /// Whether blind nil is open to a seat once it is his turn, given the
    /// bids made so far (the deal decides whether he was offered it).
    fn blind_nil_open(&self, seat: Seat) -> bool {
        self.blind_eligible.contains(seat)
            && self.rules.bidding != Bidding::Mirror
            && self.nil_open_after(self.partner_bid(seat))
    }

    /// Whether a team trails the best other score by at least `margin`.
    fn trails_by(&self, team: Team, margin: i32) -> bool {
        let scores = self.score.as_slice();
        let best_other = scores
            .iter()
            .enumerate()
            .filter(|&(other, _)| other != team.index())
            .fold(i32::MIN, |best, (_, &score)| best.max(score));
        i64::from(best_other) - i64::from(self.score[team]) >= i64::from(margin)
    }

    /// Whether some team may trail another by `margin`: the gap between the
    /// best and worst scores reaches it. Most hands are dealt with the
    /// scores closer than the blind margins, and this spares asking team
    /// by team.
    fn scores_spread_by(&self, margin: i32) -> bool {
        let scores = self.score.as_slice();
        let (low, high) = scores.iter().fold((i32::MAX, i32::MIN), |(low, high), &score| {
            (low.min(score), high.max(score))
        });
        i64::from(high) - i64::from(low) >= i64::from(margin)
    }

    /// Whether the deal offered a seat's team a blind bid: the rules have
    /// one and the team trails by their margin. The scores do not change
    /// during a hand, so this holds for the whole of it.
    fn team_blind_offered(&self, seat: Seat) -> bool {
        let rules = &self.rules;
        rules.team_blind > 0
            && rules.partners
            && !self.is_unbid_hand()
            && self.trails_by(self.seating.team_of(seat), rules.team_blind_min_deficit)
    }

    /// Whether a seat may make his team's blind bid now: it was offered,
    /// and neither he nor his partner has seen his cards or bid.
    fn team_blind_open(&self, seat: Seat) -> bool {
        let partner = seat.partner();
        self.team_blind_offered(seat)
            && self.hidden.contains(seat)
            && self.hidden.contains(partner)
            && self.bids[seat].is_none()
            && self.bids[partner].is_none()
    }

    /// Whether some blind bid is open to a seat whose cards are hidden.
    fn blind_open(&self, seat: Seat) -> bool {
        self.blind_nil_open(seat) || self.team_blind_open(seat)
    }

    /// The blind bids a seat may make on his turn while his cards are
    /// hidden: nil for blind nil, numbers for the team's blind bid.
    pub fn blind_choices(&self, seat: Seat) -> BidChoices {
        let nil = if self.blind_nil_open(seat) {
            BidChoices::NIL
        } else {
            BidChoices::NONE
        };
        if self.team_blind_open(seat) {
            nil.union(BidChoices::tricks(self.rules.team_blind, self.most_for_team()))
        } else {
            nil
        }
    }

    /// Whether the deal offered a seat a blind bid of any kind, and so kept
    /// his cards from him at first.
    pub fn is_blind_offered(&self, seat: Seat) -> bool {
        self.blind_eligible.contains(seat) || self.team_blind_offered(seat)
    }

    /// Shows a seat his cards when they are hidden and no blind bid is
    /// open to him any more, so that he is never asked to bid blind
    /// without a choice.
    fn reveal_if_closed(&mut self, seat: Seat, events: &mut Events) {
        if self.hidden.contains(seat) && !self.blind_open(seat) {
            self.hidden.remove(seat);
            self.blind_eligible.remove(seat);
            events.push(Event::LookedAtHand { seat });
        }
    }

    /// Checks an action without applying it. `apply` accepts exactly the
    /// actions this accepts.
    #[inline]
    pub fn check(&self, seat: Seat, action: Action) -> Result<(), RuleError> {
        self.check_in_pack(seat, self.in_pack(action))
    }

    /// [`Game::check`] for an action already put through `in_pack`, so that
    /// `apply` maps its cards once.
    #[inline]
    fn check_in_pack(&self, seat: Seat, action: Action) -> Result<(), RuleError> {
        if self.phase == Phase::GameOver {
            return Err(RuleError::GameOver);
        }
        match action {
            Action::LookAtHand => {
                self.expect_phase(Phase::Bidding)?;
                if !self.hidden.contains(seat) {
                    return Err(RuleError::HandAlreadyVisible);
                }
            }
            Action::Bid(bid) => {
                self.expect_phase(Phase::Bidding)?;
                self.expect_turn(seat)?;
                match bid {
                    Bid::BlindNil => {
                        if !self.blind_nil_open(seat) {
                            return Err(RuleError::BlindNilNotAllowed);
                        }
                        if !self.hidden.contains(seat) {
                            return Err(RuleError::BlindNilAfterLooking);
                        }
                    }
                    Bid::Blind(tricks) => {
                        if !(1..=self.hand_size).contains(&tricks) {
                            return Err(RuleError::InvalidBid {
                                tricks,
                                most: self.hand_size,
                            });
                        }
                        let highest = self.most_for_team();
                        if !(self.rules.team_blind..=highest).contains(&tricks) || !self.team_blind_open(seat)
                        {
                            return Err(RuleError::BlindBidNotAllowed {
                                lowest: self.rules.team_blind,
                                highest,
                            });
                        }
                    }
                    Bid::Nil | Bid::Tricks(_) => {
                        if let Bid::Tricks(tricks) = bid
                            && (tricks == 0 || tricks > self.hand_size)
                        {
                            return Err(RuleError::InvalidBid {
                                tricks,
                                most: self.hand_size,
                            });
                        }
                        if self.hidden.contains(seat) {
                            return Err(RuleError::MustLookAtHand);
                        }
                        let choices = self.bid_choices(seat);
                        if !choices.contains(bid) {
                            return Err(RuleError::BidNotAllowed { choices });
                        }
                    }
                }
            }
            Action::Pass(cards) => {
                self.expect_phase(Phase::Passing)?;
                if !self.rules.partners {
                    return Err(RuleError::NothingToPass);
                }
                let exchange = self.exchanges[seat.team()].ok_or(RuleError::NothingToPass)?;
                if !self.pass_pending.contains(seat) {
                    let waiting = exchange.order == PassOrder::Sequential
                        && seat != exchange.first
                        && self.pass_pending.contains(exchange.first);
                    return Err(if waiting {
                        RuleError::NotYourTurn { turn: None }
                    } else {
                        RuleError::NothingToPass
                    });
                }
                if let Some(card) = (cards - self.hands[seat]).lowest() {
                    return Err(RuleError::CardNotInHand { card });
                }
                if cards.len() != u32::from(exchange.count) {
                    return Err(RuleError::WrongPassCount {
                        expected: exchange.count,
                        got: cards.len() as u8,
                    });
                }
            }
            Action::Play(card) => {
                self.expect_phase(Phase::Playing)?;
                self.expect_turn(seat)?;
                let hand = self.hands[seat];
                if !self.plays_from(hand).contains(card) {
                    return Err(if !hand.contains(card) {
                        RuleError::CardNotInHand { card }
                    } else if self.trick_len == 0
                        && self.tricks_done == 0
                        && self.rules.leading == Leading::TwoOfClubs
                    {
                        RuleError::MustLead {
                            card: self.rules.lowest_club(),
                        }
                    } else if self.trick_len == 0 {
                        RuleError::SpadesNotBroken
                    } else {
                        RuleError::MustFollowSuit {
                            suit: self.led_suit(),
                        }
                    });
                }
            }
        }
        Ok(())
    }

    /// Applies one action of one seat. A refused action returns the reason
    /// and leaves the game exactly as it was.
    #[inline]
    pub fn apply(&mut self, seat: Seat, action: Action) -> Result<Events, RuleError> {
        if let Action::Play(card) = action {
            return self.apply_play(seat, card);
        }
        let action = self.in_pack(action);
        self.check_in_pack(seat, action)?;
        let mut events = Events::new();
        match action {
            Action::LookAtHand => {
                self.hidden.remove(seat);
                events.push(Event::LookedAtHand { seat });
                // Looking may close the team's blind bid to the partner
                // whose turn it is.
                let turn = self.turn;
                self.reveal_if_closed(turn, &mut events);
            }
            Action::Bid(bid) => self.bid(seat, bid, &mut events),
            Action::Pass(cards) => self.pass(seat, cards, &mut events),
            Action::Play(card) => self.play(seat, card, &mut events),
        }
        Ok(events)
    }

    /// [`Game::apply`] for a card, the action of nearly every call: the
    /// checks of [`Game::check`] for a play, folded into one test that
    /// passes for every card it accepts, then the play.
    #[inline]
    fn apply_play(&mut self, seat: Seat, card: Card) -> Result<Events, RuleError> {
        let card = self.card_in_pack(card);
        let playable = self.phase == Phase::Playing
            && seat == self.turn
            && self.plays_from(self.hands[seat]).contains(card);
        if !playable {
            return Err(self.refusal(seat, Action::Play(card)));
        }
        let mut events = Events::new();
        self.play(seat, card, &mut events);
        Ok(events)
    }

    /// Why `check` refuses an action it is known to refuse.
    #[cold]
    #[inline(never)]
    fn refusal(&self, seat: Seat, action: Action) -> RuleError {
        match self.check_in_pack(seat, action) {
            Err(error) => error,
            Ok(()) => unreachable!("{action} of {seat} is refused by the fast test but not by check"),
        }
    }

    /// The action with its cards as this game's pack has them: a card
    /// string names a two the same whether or not it is raised above the
    /// ace of spades.
    #[inline]
    fn in_pack(&self, action: Action) -> Action {
        match action {
            Action::Play(card) => Action::Play(self.card_in_pack(card)),
            Action::Pass(cards) => Action::Pass(self.rules.deck.set(cards)),
            other => other,
        }
    }

    /// [`Deck::card`](crate::Deck::card) for this game's pack, worked out
    /// once when the game was made.
    #[inline]
    fn card_in_pack(&self, card: Card) -> Card {
        match card {
            Card::TWO_OF_SPADES => self.two_of_spades,
            Card::TWO_OF_DIAMONDS => self.two_of_diamonds,
            _ => card,
        }
    }

    fn expect_phase(&self, phase: Phase) -> Result<(), RuleError> {
        if self.phase == phase {
            Ok(())
        } else {
            Err(RuleError::WrongPhase { phase: self.phase })
        }
    }

    fn expect_turn(&self, seat: Seat) -> Result<(), RuleError> {
        if seat == self.turn {
            Ok(())
        } else {
            Err(RuleError::NotYourTurn {
                turn: Some(self.turn),
            })
        }
    }

    /// The cards that follow suit when `led` is led. Every pack keeps its
    /// extra trumps in the spade suit's bits, so this is the same for all.
    #[inline]
    fn follows(&self, led: Card) -> CardSet {
        CardSet::suit_of(led)
    }

    /// The cards that are trumps.
    #[inline]
    fn trumps(&self) -> CardSet {
        CardSet::suit(Suit::Spades)
    }

    /// The suit that was led to the trick being played, for error messages.
    fn led_suit(&self) -> Suit {
        self.open_trick().cards[0].suit()
    }

    /// The trick being played (or the last one, once a hand is over).
    #[inline]
    fn open_trick(&self) -> &TrickRecord {
        &self.tricks[usize::from(self.tricks_done.min(self.hand_size - 1))]
    }

    fn deal(&mut self) {
        let seating = self.seating();
        let players = seating.seat_count();
        // The pack starts in byte order, so that a seed deals the same
        // hands on every machine and in every version.
        let mut order = self.pack;
        let pack = &mut order[..usize::from(self.pack_len)];
        self.rng.shuffle(pack);
        // Cards go round one at a time from the dealer's left: card `k` of
        // the shuffled pack goes to the seat `1 + k % players` places after him.
        let by_offset = if players == 4 {
            deal_round_the_table::<4>(pack)
        } else {
            deal_round_the_table::<3>(pack)
        };
        let mut hands = BySeat::<CardSet>::default();
        let mut seat = seating.next(self.dealer);
        for &cards in &by_offset[..players] {
            hands[seat] = cards;
            seat = seating.next(seat);
        }
        self.dealt = hands;
        self.hands = hands;

        self.blind_eligible = SeatSet::EMPTY;
        if self.rules.blind_nil && self.scores_spread_by(self.rules.blind_nil_min_deficit) {
            for team in seating.teams() {
                if self.trails_by(team, self.rules.blind_nil_min_deficit) {
                    for seat in seating.seats_of(team).iter() {
                        // With nil only after the partner's number, the
                        // first of the two to bid can never bid blind nil,
                        // so his cards are not kept from him.
                        let bids_first = seat == self.dealer.next() || seat == self.dealer.plus(2);
                        if !(self.rules.nil_after_partner && bids_first) {
                            self.blind_eligible.insert(seat);
                        }
                    }
                }
            }
        }
        self.hidden = self.blind_eligible;
        for seat in Seat::ALL {
            if self.team_blind_offered(seat) {
                self.hidden.insert(seat);
            }
        }
        self.bids = BySeat::default();
        self.turn = seating.next(self.dealer);
        self.exchanges = ByTeam::default();
        self.pass_pending = SeatSet::EMPTY;
        self.pass_chosen = BySeat::default();
        self.passes.clear();
        self.tricks_done = 0;
        self.trick_len = 0;
        self.trick_cards = CardSet::EMPTY;
        self.led = CardSet::EMPTY;
        self.tricks_won = BySeat::default();
        self.spades_broken = false;
        self.phase = Phase::Bidding;
        if self.is_unbid_hand() {
            self.hidden = SeatSet::EMPTY;
            self.blind_eligible = SeatSet::EMPTY;
            self.begin_play();
        }
    }

    /// Whether the hand being played is played without bids.
    pub fn is_unbid_hand(&self) -> bool {
        self.rules.unbid_first_hand && self.hand_number == 0
    }

    fn bid(&mut self, seat: Seat, bid: Bid, events: &mut Events) {
        if bid.is_blind() {
            // Bidding blind nil is what lets the player see his cards.
            self.hidden.remove(seat);
        }
        self.bids[seat] = Some(bid);
        events.push(Event::BidMade { seat, bid });
        if let Bid::Blind(_) = bid {
            // The team's blind bid is the partner's bid too, and he sees
            // his cards with it.
            let partner = seat.partner();
            self.hidden.remove(partner);
            self.bids[partner] = Some(bid);
            events.push(Event::BidMade { seat: partner, bid });
        }
        // The next to bid is the next seat round the table without a bid:
        // a partner of a team blind bid has made his already.
        let seating = self.seating();
        if let Some(next) = (1..seating.seat_count() as u8)
            .map(|n| seating.plus(seat, n))
            .find(|&next| self.bids[next].is_none())
        {
            self.turn = next;
            // A player whose cards are kept from him for a blind bid sees
            // them as soon as the bids before his close every blind bid.
            if self.hidden.contains(next) {
                self.reveal_if_closed(next, events);
            }
            return;
        }
        // Exchanges are between partners; a game without partners has none.
        let partnerships: &[Team] = if self.rules.partners { &Team::ALL } else { &[] };
        for &team in partnerships {
            self.exchanges[team] = self.exchange_for(team);
            if let Some(exchange) = self.exchanges[team] {
                match exchange.order {
                    PassOrder::Sequential => self.pass_pending.insert(exchange.first),
                    PassOrder::Simultaneous => {
                        for seat in team.seats() {
                            self.pass_pending.insert(seat);
                        }
                    }
                }
            }
        }
        if self.pass_pending.is_empty() {
            self.start_play(events);
        } else {
            self.phase = Phase::Passing;
            events.push(Event::PassingStarted);
        }
    }

    /// The exchange a team makes after the bids, if any.
    fn exchange_for(&self, team: Team) -> Option<Exchange> {
        let count_for = |seat: Seat| match self.bids[seat] {
            Some(Bid::Nil) => Some(self.rules.nil_pass),
            Some(Bid::BlindNil) => Some(self.rules.blind_nil_pass),
            _ => None,
        };
        let [a, b] = team.seats();
        let (count, order, first) = match (count_for(a), count_for(b)) {
            (None, None) => return None,
            // Both partners bid nil: one simultaneous exchange of the larger count.
            (Some(x), Some(y)) => (x.max(y), PassOrder::Simultaneous, a),
            (Some(x), None) => (x, self.rules.pass_order, a),
            (None, Some(y)) => (y, self.rules.pass_order, b),
        };
        (count > 0).then_some(Exchange { count, order, first })
    }

    fn pass(&mut self, seat: Seat, cards: CardSet, events: &mut Events) {
        let partner = seat.partner();
        self.pass_pending.remove(seat);
        let order = self.exchanges[seat.team()].map(|exchange| exchange.order);
        match order {
            Some(PassOrder::Sequential) => {
                self.give(seat, cards, events);
                if self.exchanges[seat.team()].is_some_and(|exchange| exchange.first == seat) {
                    self.pass_pending.insert(partner);
                }
            }
            Some(PassOrder::Simultaneous) => {
                self.pass_chosen[seat] = cards;
                events.push(Event::PassChosen { seat });
                if !self.pass_pending.contains(partner) {
                    // The partner chose first, so his cards are recorded first.
                    let (mine, theirs) = (self.pass_chosen[seat], self.pass_chosen[partner]);
                    self.hands[seat] -= mine;
                    self.hands[partner] -= theirs;
                    self.pass_chosen[seat] = CardSet::EMPTY;
                    self.pass_chosen[partner] = CardSet::EMPTY;
                    for (from, given) in [(partner, theirs), (seat, mine)] {
                        self.hands[from.partner()] |= given;
                        self.record_pass(from, given, events);
                    }
                }
            }
            None => unreachable!("check() refuses passes from a team without an exchange"),
        }
        if self.pass_pending.is_empty() {
            self.start_play(events);
        }
    }

    fn give(&mut self, from: Seat, cards: CardSet, events: &mut Events) {
        self.hands[from] -= cards;
        self.hands[from.partner()] |= cards;
        self.record_pass(from, cards, events);
    }

    fn record_pass(&mut self, from: Seat, cards: CardSet, events: &mut Events) {
        let record = PassRecord {
            from,
            to: from.partner(),
            cards,
        };
        self.passes.push(record);
        events.push(Event::CardsPassed {
            from,
            to: record.to,
            cards,
        });
    }

    fn start_play(&mut self, events: &mut Events) {
        self.begin_play();
        events.push(Event::PlayStarted { leader: self.turn });
    }

    /// Moves to the play of the first trick, led as the rules say.
    fn begin_play(&mut self) {
        self.phase = Phase::Playing;
        self.turn = match self.rules.leading {
            Leading::LeftOfDealer => self.seating().next(self.dealer),
            Leading::Dealer => self.dealer,
            Leading::TwoOfClubs => Seat::ALL
                .into_iter()
                .find(|&seat| self.hands[seat].contains(self.rules.lowest_club()))
                .unwrap_or(self.seating().next(self.dealer)),
        };
        self.tricks[0].leader = self.turn;
    }

    #[inline]
    fn play(&mut self, seat: Seat, card: Card, events: &mut Events) {
        self.hands[seat].remove(card);
        self.spades_broken |= self.trumps().contains(card);
        let number = usize::from(self.tricks_done);
        self.tricks[number].cards.set(usize::from(self.trick_len), card);
        self.trick_len += 1;
        self.trick_cards.insert(card);
        if self.trick_len == 1 {
            self.led = self.follows(card);
        }
        events.push(Event::CardPlayed { seat, card });
        if self.trick_len < self.players {
            self.turn = seat.next_among(self.players);
            return;
        }

        let trick = &mut self.tricks[number];
        let position = winning_position(trick.cards.slots(), self.trick_len, self.trick_cards);
        let winner = trick.leader.plus_among(position, self.players);
        trick.winner = winner;
        self.tricks_won[winner] += 1;
        events.push(Event::TrickWon {
            trick: number as u8,
            winner,
        });
        self.tricks_done += 1;
        self.trick_len = 0;
        self.trick_cards = CardSet::EMPTY;
        self.led = CardSet::EMPTY;
        self.turn = winner;
        if number + 1 < usize::from(self.hand_size) {
            self.tricks[number + 1].leader = winner;
        } else {
            self.end_hand(events);
        }
    }

    /// Scores the hand and deals the next one. Kept out of line so that the
    /// play path, which runs for every card, stays small.
    #[inline(never)]
    fn end_hand(&mut self, events: &mut Events) {
        let bids = BySeat::from_fn(|seat| self.bids[seat].unwrap_or(Bid::Nil));
        let unbid = self.is_unbid_hand();
        let scores = if unbid {
            score::score_unbid_hand(&self.rules, &self.tricks_won, &self.score, &self.bags)
        } else {
            score::score_hand(&self.rules, &bids, &self.tricks_won, &self.score, &self.bags)
        };
        let seating = self.seating;
        self.score = ByTeam::from_fn(seating, |team| scores[team].score);
        self.bags = ByTeam::from_fn(seating, |team| scores[team].bags);
        self.streaks = self.streaks.after(&self.rules, &scores);
        self.winner = score::game_winner(&self.rules, &self.score, self.hand_number + 1, &self.streaks);

        self.last_hand = Some(HandRecord {
            hand: self.hand_number,
            dealer: self.dealer,
            hands: self.dealt,
            bids: if unbid {
                ArrayVec::new()
            } else {
                (1..=seating.seat_count() as u8)
                    .map(|i| {
                        let seat = seating.plus(self.dealer, i);
                        BidRecord::new(seat, bids[seat])
                    })
                    .collect()
            },
            passes: self.passes.clone(),
            tricks: self.tricks[..usize::from(self.hand_size)]
                .iter()
                .copied()
                .collect(),
            tricks_won: self.tricks_won,
            hand_score: ByTeam::from_fn(seating, |team| scores[team].change),
            score: self.score,
            bags: self.bags,
            winner: self.winner,
        });
        self.last_scores = Some(scores);
        events.push(Event::HandEnded {
            hand: self.hand_number,
        });

        match self.winner {
            Some(winner) => {
                self.phase = Phase::GameOver;
                events.push(Event::GameEnded { winner });
            }
            None => {
                self.hand_number += 1;
                self.dealer = seating.next(self.dealer);
                self.deal();
                events.push(Event::HandStarted {
                    hand: self.hand_number,
                    dealer: self.dealer,
                });
                if self.phase == Phase::Playing {
                    events.push(Event::PlayStarted { leader: self.turn });
                }
            }
        }
    }
}

/// The hands of `PLAYERS` players dealt one card at a time from `pack`, the
/// first card to the first player: player `i` gets the cards at places
/// `i`, `i + PLAYERS`, and so on. The count is a constant so that the hands
/// stay in registers while the pack is walked.
fn deal_round_the_table<const PLAYERS: usize>(pack: &[Card]) -> [CardSet; 4] {
    let mut hands = [CardSet::EMPTY; 4];
    for round in pack.chunks_exact(PLAYERS) {
        for (hand, &card) in hands.iter_mut().zip(round) {
            hand.insert(card);
        }
    }
    hands
}

/// The position (0 for the lead) of the card that wins a full trick: the
/// highest trump if any was played, else the highest card of the suit led.
/// Within one suit a higher byte is a higher card in every pack, and the
/// jokers and the raised twos are spades by their byte. It works on the
/// trick as a card set, without branches on the cards, because trick
/// winners are as unpredictable as the deal.
fn winning_position(cards: &[Card; 4], len: u8, played: CardSet) -> u8 {
    let trumps = played.in_suit(Suit::Spades);
    let led = played & CardSet::suit_of(cards[0]);
    let best = if trumps.is_empty() { led } else { trumps }.highest();
    let best = best.unwrap_or(cards[0]);
    // A trick of three leaves its fourth place holding anything.
    u8::from(cards[1] == best) + 2 * u8::from(cards[2] == best) + 3 * u8::from(len == 4 && cards[3] == best)
}
