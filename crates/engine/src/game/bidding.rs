//! Bidding: the bids open to a seat, blind bids, and making a bid.

use super::{Game, Phase};
use crate::action::Bid;
use crate::choices::{BidChoices, MAX_TRICKS};
use crate::event::{Event, Events};
use crate::rules::{Bidding, PassOrder};
use crate::seat::{Seat, Team};

impl Game {
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
    pub(super) fn most_for_team(&self) -> u8 {
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
    pub(super) fn blind_nil_open(&self, seat: Seat) -> bool {
        self.blind_eligible.contains(seat)
            && self.rules.bidding != Bidding::Mirror
            && self.nil_open_after(self.partner_bid(seat))
    }

    /// Whether a team trails the best other score by at least `margin`.
    pub(super) fn trails_by(&self, team: Team, margin: i32) -> bool {
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
    pub(super) fn scores_spread_by(&self, margin: i32) -> bool {
        let scores = self.score.as_slice();
        let (low, high) = scores.iter().fold((i32::MAX, i32::MIN), |(low, high), &score| {
            (low.min(score), high.max(score))
        });
        i64::from(high) - i64::from(low) >= i64::from(margin)
    }

    /// Whether the deal offered a seat's team a blind bid: the rules have
    /// one and the team trails by their margin. The scores do not change
    /// during a hand, so this holds for the whole of it.
    pub(super) fn team_blind_offered(&self, seat: Seat) -> bool {
        let rules = &self.rules;
        rules.team_blind > 0
            && rules.partners
            && !self.is_unbid_hand()
            && self.trails_by(self.seating.team_of(seat), rules.team_blind_min_deficit)
    }

    /// Whether a seat may make his team's blind bid now: it was offered,
    /// and neither he nor his partner has seen his cards or bid.
    pub(super) fn team_blind_open(&self, seat: Seat) -> bool {
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
    pub(super) fn reveal_if_closed(&mut self, seat: Seat, events: &mut Events) {
        if self.hidden.contains(seat) && !self.blind_open(seat) {
            self.hidden.remove(seat);
            self.blind_eligible.remove(seat);
            events.push(Event::LookedAtHand { seat });
        }
    }

    pub(super) fn bid(&mut self, seat: Seat, bid: Bid, events: &mut Events) {
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
}
