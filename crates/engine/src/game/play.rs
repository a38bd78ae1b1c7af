//! The play of the cards: leading, following and winning tricks.

use super::{Game, Phase};
use crate::card::{Card, CardSet, Suit};
use crate::event::{Event, Events};
use crate::history::TrickRecord;
use crate::rules::Leading;
use crate::seat::Seat;

impl Game {
    /// The cards that follow suit when `led` is led. Every pack keeps its
    /// extra trumps in the spade suit's bits, so this is the same for all.
    #[inline]
    pub(super) fn follows(&self, led: Card) -> CardSet {
        CardSet::suit_of(led)
    }

    /// The cards that are trumps.
    #[inline]
    pub(super) fn trumps(&self) -> CardSet {
        CardSet::suit(Suit::Spades)
    }

    /// The suit that was led to the trick being played, for error messages.
    pub(super) fn led_suit(&self) -> Suit {
        self.open_trick().cards[0].suit()
    }

    /// The trick being played (or the last one, once a hand is over).
    #[inline]
    pub(super) fn open_trick(&self) -> &TrickRecord {
        &self.tricks[usize::from(self.tricks_done.min(self.hand_size - 1))]
    }

    pub(super) fn start_play(&mut self, events: &mut Events) {
        self.begin_play();
        events.push(Event::PlayStarted { leader: self.turn });
    }

    /// Moves to the play of the first trick, led as the rules say.
    pub(super) fn begin_play(&mut self) {
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
    pub(super) fn play(&mut self, seat: Seat, card: Card, events: &mut Events) {
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
}

/// The position (0 for the lead) of the card that wins a full trick: the
/// highest trump if any was played, else the highest card of the suit led.
/// Within one suit a higher byte is a higher card in every pack, and the
/// jokers and the raised twos are spades by their byte. It works on the
/// trick as a card set, without branches on the cards, because trick
/// winners are as unpredictable as the deal.
pub(super) fn winning_position(cards: &[Card; 4], len: u8, played: CardSet) -> u8 {
    let trumps = played.in_suit(Suit::Spades);
    let led = played & CardSet::suit_of(cards[0]);
    let best = if trumps.is_empty() { led } else { trumps }.highest();
    let best = best.unwrap_or(cards[0]);
    // A trick of three leaves its fourth place holding anything.
    u8::from(cards[1] == best) + 2 * u8::from(cards[2] == best) + 3 * u8::from(len == 4 && cards[3] == best)
}
