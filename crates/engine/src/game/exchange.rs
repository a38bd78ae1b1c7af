//! The exchange of cards between the partners of a nil bidder.

use super::{Exchange, Game};
use crate::action::Bid;
use crate::card::CardSet;
use crate::event::{Event, Events};
use crate::history::PassRecord;
use crate::rules::PassOrder;
use crate::seat::{Seat, Team};

impl Game {
    /// The exchange a team makes after the bids, if any.
    pub(super) fn exchange_for(&self, team: Team) -> Option<Exchange> {
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

    pub(super) fn pass(&mut self, seat: Seat, cards: CardSet, events: &mut Events) {
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
}
