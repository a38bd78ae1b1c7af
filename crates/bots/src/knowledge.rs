//! What a bot knows at one decision, worked out from its seat's view: the
//! cards that have gone, the suits each player has shown he lacks, the
//! cards it gave its partner, and where each team stands against its bid.
//!
//! It is rebuilt from the view at every decision rather than kept between
//! them, so a bot can take over a seat at any moment (a player who dropped
//! out) and its choices depend on nothing but what the seat has seen.

use arrayvec::ArrayVec;
use spades_engine::{
    Bid, BySeat, ByTeam, Card, CardSet, MAX_TRICKS, PassRecord, Position, RuleSet, Seat, Seating, Suit, Team,
    TrickRecord, View,
};

/// A set of suits as four bits, by [`Suit::index`].
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
pub struct Suits(u8);

impl Suits {
    pub const NONE: Suits = Suits(0);

    pub fn contains(self, suit: Suit) -> bool {
        self.0 & (1 << suit.index()) != 0
    }

    pub fn insert(&mut self, suit: Suit) {
        self.0 |= 1 << suit.index();
    }

    /// The cards of every suit in the set.
    pub fn cards(self) -> CardSet {
        Suit::ALL
            .into_iter()
            .filter(|&suit| self.contains(suit))
            .fold(CardSet::EMPTY, |all, suit| all | CardSet::suit(suit))
    }
}

/// The trick on the table.
#[derive(Clone, Debug)]
pub struct Trick {
    /// Who plays: the trick goes round four seats, or three.
    pub seating: Seating,
    pub leader: Seat,
    /// The cards played to it so far, in order.
    pub cards: ArrayVec<Card, 4>,
}

impl Trick {
    pub fn len(&self) -> usize {
        self.cards.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cards.is_empty()
    }

    pub fn led(&self) -> Option<Suit> {
        self.cards.first().map(|card| card.suit())
    }

    /// The seat that played the card at `position` (0 is the lead).
    pub fn player(&self, position: usize) -> Seat {
        self.seating.plus(self.leader, position as u8)
    }

    /// Whether `seat` has played to this trick.
    pub fn has_played(&self, seat: Seat) -> bool {
        (0..self.len()).any(|position| self.player(position) == seat)
    }

    /// The seat winning the trick so far and its card.
    pub fn winner(&self) -> Option<(Seat, Card)> {
        let led = self.led()?;
        let mut best: Option<(Seat, Card)> = None;
        for (position, &card) in self.cards.iter().enumerate() {
            if best.is_none_or(|(_, winning)| beats(card, winning, led)) {
                best = Some((self.player(position), card));
            }
        }
        best
    }

    /// The seats still to play to this trick after the one playing now.
    pub fn still_to_play(&self) -> impl Iterator<Item = Seat> + '_ {
        (self.len() + 1..self.seating.seat_count()).map(|position| self.player(position))
    }
}

/// Whether `card` beats `winning` in a trick to which `led` was led.
pub fn beats(card: Card, winning: Card, led: Suit) -> bool {
    if card.is_spade() != winning.is_spade() {
        return card.is_spade();
    }
    if card.suit() == winning.suit() {
        return card.order() > winning.order();
    }
    // Two cards of different plain suits: only one of the suit led can win.
    card.suit() == led
}

/// What one seat has seen of its game: everything a bot decides from. A
/// bot inside the server fills it from the seat's [`View`]; a bot that
/// plays over the network fills it from the messages it received.
#[derive(Clone, Copy, Debug)]
pub struct Seen<'a> {
    pub seat: Seat,
    pub rules: RuleSet,
    pub hand_number: u32,
    pub dealer: Seat,
    /// The running totals before this hand.
    pub score: ByTeam<i32>,
    pub bags: ByTeam<i32>,
    /// The seat's cards, or `None` while they are hidden for blind nil.
    pub hand: Option<CardSet>,
    pub bids: BySeat<Option<Bid>>,
    /// The complete tricks of this hand.
    pub tricks: &'a [TrickRecord],
    /// The cards on the table, in the order played.
    pub trick: &'a [Card],
    /// Who led the cards on the table (any seat while the table is empty).
    pub trick_leader: Seat,
    /// The exchanges this seat gave or received this hand.
    pub passes: &'a [PassRecord],
}

/// Everything a bot uses to decide, as seen from its seat.
#[derive(Clone, Debug)]
pub struct Knowledge {
    pub seat: Seat,
    pub rules: RuleSet,
    pub hand_number: u32,
    pub dealer: Seat,
    /// The seat's cards (none while they are hidden for blind nil).
    pub hand: CardSet,
    pub hidden: bool,
    pub bids: BySeat<Option<Bid>>,
    pub tricks_won: BySeat<u8>,
    pub score: ByTeam<i32>,
    pub bags: ByTeam<i32>,
    /// The complete tricks of this hand.
    pub tricks: ArrayVec<TrickRecord, { MAX_TRICKS as usize }>,
    /// The exchanges this seat gave or received.
    pub passes: ArrayVec<PassRecord, 4>,
    /// Every card played this hand, the trick on the table included.
    pub played: CardSet,
    /// The same cards, by the seat that played them.
    pub played_by: BySeat<CardSet>,
    /// Cards the bot's partner gave it in an exchange this hand.
    pub received: CardSet,
    /// Cards the bot gave its partner in an exchange this hand.
    pub given: CardSet,
    /// Cards neither in the bot's hand nor played: held by the other three.
    pub unseen: CardSet,
    /// The suits each seat has shown it no longer holds.
    pub void: BySeat<Suits>,
    /// Cards the bot knows a seat holds: those it passed to its partner and
    /// that have not been played since.
    pub known: BySeat<CardSet>,
    pub hand_sizes: BySeat<u8>,
    pub trick: Trick,
    pub tricks_done: u8,
    pub spades_broken: bool,
}

impl Knowledge {
    /// What the view's seat knows; `None` for a spectator.
    pub fn new(view: &View<'_>) -> Option<Knowledge> {
        let passes: ArrayVec<PassRecord, 4> = view.passes().copied().collect();
        Some(Knowledge::from_seen(&Seen {
            seat: view.seat()?,
            rules: *view.rules(),
            hand_number: view.hand_number(),
            dealer: view.dealer(),
            score: view.score(),
            bags: view.bags(),
            hand: view.hand(),
            bids: *view.bids(),
            tricks: view.tricks(),
            trick: view.current_trick().1,
            trick_leader: view.current_trick().0,
            passes: &passes,
        }))
    }

    /// Works out what follows from what a seat has seen.
    pub fn from_seen(seen: &Seen<'_>) -> Knowledge {
        let seat = seen.seat;
        let seating = seen.rules.seating();
        let hand = seen.hand.unwrap_or(CardSet::EMPTY);
        let mut played = CardSet::EMPTY;
        let mut played_by = BySeat::<CardSet>::default();
        let mut void = BySeat::<Suits>::default();
        let mut tricks_won = BySeat::<u8>::default();
        let mut broken = false;

        let mut note_trick =
            |leader: Seat, cards: &[Card], played: &mut CardSet, played_by: &mut BySeat<CardSet>| {
                let Some(&lead) = cards.first() else { return };
                if lead.is_spade() && !broken {
                    // Spades may be led before they are broken only by a
                    // player who holds nothing else.
                    for suit in [Suit::Clubs, Suit::Diamonds, Suit::Hearts] {
                        void[leader].insert(suit);
                    }
                }
                for (position, &card) in cards.iter().enumerate() {
                    let player = seating.plus(leader, position as u8);
                    if card.suit() != lead.suit() {
                        void[player].insert(lead.suit());
                    }
                    broken |= card.is_spade();
                    played.insert(card);
                    played_by[player].insert(card);
                }
            };
        for trick in seen.tricks {
            note_trick(trick.leader, &trick.cards, &mut played, &mut played_by);
            tricks_won[trick.winner] += 1;
        }
        let leader = seen.tricks.last().map_or(seen.trick_leader, |trick| trick.winner);
        note_trick(leader, seen.trick, &mut played, &mut played_by);

        let (known, received, given) = read_passes(seat, seen.passes, played);
        Knowledge {
            seat,
            rules: seen.rules,
            hand_number: seen.hand_number,
            dealer: seen.dealer,
            hand,
            hidden: seen.hand.is_none(),
            bids: seen.bids,
            tricks_won,
            score: seen.score,
            bags: seen.bags,
            tricks: seen.tricks.iter().copied().collect(),
            passes: seen.passes.iter().copied().collect(),
            played,
            played_by,
            received,
            given,
            unseen: seen.rules.pack() - hand - played,
            void,
            known,
            hand_sizes: hand_sizes(&seen.rules, &played_by),
            trick: Trick {
                seating,
                leader,
                cards: seen.trick.iter().copied().collect(),
            },
            tricks_done: seen.tricks.len() as u8,
            spades_broken: broken,
        }
    }

    /// The position of the hand in play with the hidden cards dealt as
    /// `hands` says, to set a game up from; `None` before every seat has bid.
    pub fn position(&self, hands: BySeat<CardSet>) -> Option<Position<'_>> {
        let mut bids = BySeat::from_fn(|_| Bid::Nil);
        for seat in self.rules.seating().seats() {
            bids[seat] = self.bids[seat]?;
        }
        Some(Position {
            hand_number: self.hand_number,
            dealer: self.dealer,
            score: self.score,
            bags: self.bags,
            bids,
            hands,
            tricks: &self.tricks,
            trick: &self.trick.cards,
            passes: &self.passes,
        })
    }

    /// The bot's partner; `None` in solo, where everyone plays alone.
    pub fn partner(&self) -> Option<Seat> {
        self.rules.seating().partner(self.seat)
    }

    pub fn team(&self) -> Team {
        self.rules.seating().team_of(self.seat)
    }

    pub fn is_opponent(&self, seat: Seat) -> bool {
        self.rules.seating().team_of(seat) != self.team()
    }

    /// Whether `seat` is the bot's partner.
    pub fn is_partner(&self, seat: Seat) -> bool {
        self.partner() == Some(seat)
    }

    /// The teams the bot plays against: one partnership, or the three
    /// other players in solo.
    pub fn opponents(&self) -> impl Iterator<Item = Team> + '_ {
        let ours = self.team();
        self.rules.seating().teams().filter(move |&team| team != ours)
    }

    /// How far the bot's team leads the best of the others (negative when
    /// behind).
    pub fn margin(&self) -> i32 {
        let best = self.opponents().map(|team| self.score[team]).max().unwrap_or(0);
        self.score[self.team()] - best
    }

    /// Whether `seat` bid nil or blind nil and has taken no trick yet.
    pub fn nil_alive(&self, seat: Seat) -> bool {
        self.bids[seat].is_some_and(Bid::is_nil) && self.tricks_won[seat] == 0
    }

    /// Whether the hand is played without bids (see
    /// `RuleSet::unbid_first_hand`).
    pub fn is_unbid_hand(&self) -> bool {
        self.rules.unbid_first_hand && self.hand_number == 0
    }

    /// The team's contract: the bids of its partners who did not bid nil.
    /// In a hand played without bids every trick is worth 10 points, so
    /// the team plays as if it had bid them all.
    pub fn contract(&self, team: Team) -> u8 {
        if self.is_unbid_hand() {
            return self.rules.hand_size();
        }
        let seats = self.rules.seating().seats_of(team);
        spades_engine::score::team_contract(seats.iter().filter_map(|seat| self.bids[seat]))
    }

    /// Tricks that count toward the team's contract so far.
    pub fn counted(&self, team: Team) -> u8 {
        self.rules
            .seating()
            .seats_of(team)
            .iter()
            .filter(|&seat| !self.bids[seat].is_some_and(Bid::is_nil))
            .map(|seat| self.tricks_won[seat])
            .sum()
    }

    /// Tricks the team still needs to make its contract.
    pub fn need(&self, team: Team) -> u8 {
        self.contract(team).saturating_sub(self.counted(team))
    }

    pub fn tricks_left(&self) -> u8 {
        self.rules.hand_size() - self.tricks_done
    }

    /// The cards `seat` was dealt, were it holding `now`: what it has
    /// played added back, and the exchange with this bot undone. (An
    /// exchange between the opponents cannot be undone, being unseen.)
    pub fn dealt(&self, seat: Seat, now: CardSet) -> CardSet {
        let mut cards = now | self.played_by[seat];
        if self.is_partner(seat) {
            cards = (cards - self.given) | self.received;
        }
        cards
    }

    /// Unseen cards that `seat` may hold: not in a suit it lacks.
    pub fn possible(&self, seat: Seat) -> CardSet {
        if seat == self.seat {
            return self.hand;
        }
        let others_known = Seat::ALL
            .iter()
            .filter(|&&other| other != seat)
            .fold(CardSet::EMPTY, |all, &other| all | self.known[other]);
        ((self.unseen - others_known) - self.void[seat].cards()) | self.known[seat]
    }

    /// Whether no unseen card of the same suit outranks `card`.
    pub fn is_top(&self, card: Card) -> bool {
        let higher = self.unseen.in_suit(card.suit());
        higher.highest().is_none_or(|best| best.order() < card.order())
    }

    /// Unseen cards of `card`'s suit that rank below it.
    pub fn unseen_below(&self, card: Card) -> u32 {
        self.unseen
            .in_suit(card.suit())
            .iter()
            .filter(|other| other.order() < card.order())
            .count() as u32
    }

    /// Unseen cards of `card`'s suit that rank above it.
    pub fn unseen_above(&self, card: Card) -> u32 {
        self.unseen
            .in_suit(card.suit())
            .iter()
            .filter(|other| other.order() > card.order())
            .count() as u32
    }

    /// Whether `card`, played now, would win the trick against everything
    /// already on it and everything the players after may hold.
    pub fn wins_for_sure(&self, card: Card) -> bool {
        let trick = &self.trick;
        let led = trick.led().unwrap_or(card.suit());
        if let Some((_, winning)) = trick.winner()
            && !beats(card, winning, led)
        {
            return false;
        }
        trick.still_to_play().all(|seat| {
            let holds = self.possible(seat);
            // A player who follows can only beat it in the suit led; one who
            // cannot follow may trump.
            let follows = holds.in_suit(led);
            let threats = if follows.is_empty() { holds } else { follows };
            !threats.iter().any(|other| beats(other, card, led))
        })
    }
}

/// What the exchanges of a hand tell `seat`: the cards he gave that the
/// seat he gave them to still holds (those not played since), the cards he
/// received, and the cards he gave.
fn read_passes(seat: Seat, passes: &[PassRecord], played: CardSet) -> (BySeat<CardSet>, CardSet, CardSet) {
    let mut known = BySeat::<CardSet>::default();
    let mut received = CardSet::EMPTY;
    let mut given = CardSet::EMPTY;
    for pass in passes {
        if pass.from == seat {
            given |= pass.cards;
            known[pass.to] |= pass.cards - played;
        } else if pass.to == seat {
            received |= pass.cards;
        }
    }
    (known, received, given)
}

/// The number of cards each seat holds. Exchanges swap equal numbers of
/// cards, so a seat holds a hand's size less what it has played (the empty
/// seat of the three-player game nothing).
fn hand_sizes(rules: &RuleSet, played_by: &BySeat<CardSet>) -> BySeat<u8> {
    let seating = rules.seating();
    BySeat::from_fn(|seat| {
        if seat.index() < seating.seat_count() {
            rules.hand_size() - played_by[seat].len() as u8
        } else {
            0
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(text: &str) -> Card {
        text.parse().unwrap()
    }

    #[test]
    fn trumps_beat_the_suit_led_and_off_suits_never_win() {
        let hearts = Suit::Hearts;
        assert!(beats(card("2S"), card("AH"), hearts));
        assert!(!beats(card("AH"), card("2S"), hearts));
        assert!(beats(card("KH"), card("QH"), hearts));
        assert!(!beats(card("AD"), card("2H"), hearts));
        assert!(beats(card("3S"), card("2S"), hearts));
    }
}
