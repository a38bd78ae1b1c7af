//! Dealing a hand.

use super::{Game, Phase};
use crate::card::{Card, CardSet};
use crate::seat::{BySeat, ByTeam, Seat, SeatSet};

impl Game {
    pub(super) fn deal(&mut self) {
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
