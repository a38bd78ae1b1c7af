//! What a seat may do now: the plays a trick allows.

use super::{Game, Legal, Phase};
use crate::card::CardSet;
use crate::rules::{Leading, SpadesLead};
use crate::seat::Seat;

impl Game {
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
    pub(super) fn plays_from(&self, hand: CardSet) -> CardSet {
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
}
