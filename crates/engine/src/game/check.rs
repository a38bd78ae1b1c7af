//! Checking an action against the rules and applying it.

use super::{Game, Phase};
use crate::action::{Action, Bid};
use crate::card::{Card, CardSet};
use crate::error::RuleError;
use crate::event::{Event, Events};
use crate::rules::{Leading, PassOrder};
use crate::seat::Seat;

impl Game {
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
                Ok(())
            }
            Action::Bid(bid) => self.check_bid(seat, bid),
            Action::Pass(cards) => self.check_pass(seat, cards),
            Action::Play(card) => self.check_play(seat, card),
        }
    }

    /// The checks of [`Game::check_in_pack`] for a bid.
    #[inline]
    fn check_bid(&self, seat: Seat, bid: Bid) -> Result<(), RuleError> {
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
                if !(self.rules.team_blind..=highest).contains(&tricks) || !self.team_blind_open(seat) {
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
        Ok(())
    }

    /// The checks of [`Game::check_in_pack`] for the cards given in an exchange.
    #[inline]
    fn check_pass(&self, seat: Seat, cards: CardSet) -> Result<(), RuleError> {
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
        Ok(())
    }

    /// The checks of [`Game::check_in_pack`] for a card played.
    #[inline]
    fn check_play(&self, seat: Seat, card: Card) -> Result<(), RuleError> {
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
}
