//! The end of a hand: its score, its record and the next deal.

use arrayvec::ArrayVec;

use super::{Game, Phase};
use crate::action::Bid;
use crate::event::{Event, Events};
use crate::history::{BidRecord, HandRecord};
use crate::score::{self};
use crate::seat::{BySeat, ByTeam};

impl Game {
    /// Scores the hand and deals the next one. Kept out of line so that the
    /// play path, which runs for every card, stays small.
    #[inline(never)]
    pub(super) fn end_hand(&mut self, events: &mut Events) {
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
