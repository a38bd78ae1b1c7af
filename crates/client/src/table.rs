//! What one seat knows of its table, rebuilt from the messages it receives.

use spades_bots::knowledge::{Knowledge, Seen};
use spades_engine::{
    Action, Bid, BidChoices, BySeat, ByTeam, Card, CardSet, Deck, Legal, PassRecord, Rank, RuleSet, Seat,
    Seating, Suit, Team, TrickCards, TrickRecord,
};
use spades_protocol::event::{EventKind, RoomEvent};
use spades_protocol::ws::{BidView, ClientMessage, Expected, MessageId, ServerMessage, TurnView};

/// An action this seat can take, before it is given an id.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Move {
    Bid { bid: u8, blind: bool },
    Look,
    Pass(CardSet),
    Play(Card),
}

impl Move {
    /// The move that carries out an engine action.
    pub fn from_action(action: Action) -> Move {
        match action {
            Action::LookAtHand => Move::Look,
            Action::Bid(bid) => Move::Bid {
                bid: bid.contract(),
                blind: bid.is_blind(),
            },
            Action::Pass(cards) => Move::Pass(cards),
            Action::Play(card) => Move::Play(card),
        }
    }

    pub fn message(self, id: MessageId) -> ClientMessage {
        match self {
            Move::Bid { bid, blind } => ClientMessage::Bid { id, bid, blind },
            Move::Look => ClientMessage::Look { id },
            Move::Pass(cards) => ClientMessage::PassCards { id, cards },
            Move::Play(card) => ClientMessage::Play { id, card },
        }
    }
}

/// The table as one seat sees it.
#[derive(Clone, Debug, Default)]
pub struct TableState {
    /// This client's player id, from its welcome, to find its seat.
    pub me: Option<String>,
    pub room: Option<String>,
    /// The last room event seen.
    pub last_seq: u64,
    pub seat: Option<Seat>,
    pub rules: Option<RuleSet>,
    pub hand: u32,
    pub dealer: Option<Seat>,
    /// This seat's cards, as far as it has been told.
    pub cards: CardSet,
    /// True while the cards are hidden for blind nil.
    pub hidden: bool,
    pub bids: [Option<BidView>; 4],
    /// The trick being played: who played what, in order.
    pub trick: Vec<(Seat, Card)>,
    /// The complete tricks of this hand.
    pub tricks: Vec<TrickRecord>,
    /// The exchanges of this hand that this seat gave or received.
    pub passes: Vec<PassRecord>,
    pub turn: Option<TurnView>,
    /// The room event after which the last turn message was sent.
    pub turn_seq: u64,
    /// An action of this seat is on its way and not yet confirmed.
    pub outstanding: bool,
    /// Turn messages sent before this event are stale: it is the event that
    /// confirmed this seat's last action.
    pub min_turn: u64,
    /// The turn message this seat last acted on: the server sends a turn
    /// again when the table changes (someone comes back, say), and that is
    /// not a new turn.
    pub last_acted_turn: Option<u64>,
    pub playing: bool,
    pub winner: Option<Team>,
    /// The running totals, as they stood before the hand being played.
    pub score: ByTeam<i32>,
    pub bags: ByTeam<i32>,
    pub hands_scored: u32,
    pub games_over: u32,
}

impl TableState {
    /// Updates the state from one message. Returns false when a room event
    /// skipped sequence numbers (something was missed).
    pub fn apply(&mut self, message: &ServerMessage) -> bool {
        let mut in_order = true;
        if let Some(seq) = message.seq() {
            in_order = self.last_seq == 0 || seq == self.last_seq + 1;
            self.last_seq = seq;
        }
        if self.confirms_mine(message) {
            self.outstanding = false;
            self.min_turn = message.seq().unwrap_or(self.min_turn);
        }
        match message {
            ServerMessage::Snapshot { seq, state, .. } => {
                self.outstanding = false;
                self.min_turn = *seq;
                self.last_seq = *seq;
                self.room = Some(state.room.clone());
                self.seat = state.your_seat;
                self.rules = Some(state.rules);
                self.playing = state.status == spades_protocol::ws::RoomStatus::Playing;
                if let Some(game) = &state.game {
                    self.hand = game.hand;
                    self.dealer = Some(game.dealer);
                    self.cards = game.cards.unwrap_or_default();
                    self.hidden = game.cards.is_none() && game.seat.is_some();
                    self.bids = [None; 4];
                    for (place, bid) in self.bids.iter_mut().zip(&game.bids) {
                        *place = *bid;
                    }
                    let seating = state.rules.seating();
                    self.trick = game
                        .trick
                        .cards
                        .iter()
                        .enumerate()
                        .map(|(i, &card)| (seating.plus(game.trick.leader, i as u8), card))
                        .collect();
                    self.tricks = game
                        .tricks
                        .iter()
                        .filter_map(|trick| {
                            Some(TrickRecord {
                                leader: trick.leader,
                                cards: TrickCards::from_slice(&trick.cards)?,
                                winner: trick.winner?,
                            })
                        })
                        .collect();
                    self.passes = game
                        .passes
                        .iter()
                        .map(|pass| PassRecord {
                            from: pass.from,
                            to: pass.to,
                            cards: pass.cards,
                        })
                        .collect();
                    self.turn = game.turn.clone();
                    self.turn_seq = *seq;
                    self.score = game.score;
                    self.bags = game.bags;
                    self.winner = game.winner;
                }
            }
            ServerMessage::Turn { turn, after, .. } => {
                self.turn = Some(turn.clone());
                self.turn_seq = *after;
            }
            ServerMessage::Event(event) => self.apply_event(event),
            _ => {}
        }
        in_order
    }

    /// Updates the state from a room event.
    fn apply_event(&mut self, event: &RoomEvent) {
        match &event.kind {
            EventKind::Seats { seats, .. } => {
                self.room = Some(event.room.clone());
                if self.me.is_some() {
                    self.seat = seats
                        .iter()
                        .flatten()
                        .find(|info| Some(&info.player.id) == self.me.as_ref())
                        .map(|info| info.seat);
                }
            }
            EventKind::GameStarted { rules, .. } => {
                self.rules = Some(*rules);
                self.playing = true;
                self.winner = None;
                self.score = ByTeam::filled(rules.seating(), 0);
                self.bags = ByTeam::filled(rules.seating(), 0);
            }
            EventKind::HandStarted {
                hand,
                dealer,
                cards,
                blind_nil_offered,
                ..
            } => {
                self.hand = *hand;
                self.dealer = Some(*dealer);
                self.cards = cards.unwrap_or_default();
                self.hidden = cards.is_none() && *blind_nil_offered;
                self.bids = [None; 4];
                self.trick.clear();
                self.tricks.clear();
                self.passes.clear();
            }
            EventKind::HandScored { teams, .. } => {
                self.hands_scored += 1;
                // A list of the wrong length is the server's error; the
                // totals stay as they were rather than be made up.
                let scores: Vec<i32> = teams.iter().map(|team| team.score).collect();
                let bags: Vec<i32> = teams.iter().map(|team| team.bags).collect();
                if let (Some(score), Some(bags)) = (ByTeam::from_slice(&scores), ByTeam::from_slice(&bags)) {
                    self.score = score;
                    self.bags = bags;
                }
            }
            EventKind::GameOver { winner, score, .. } => {
                self.playing = false;
                self.winner = *winner;
                self.score = *score;
                self.games_over += 1;
                self.turn = None;
            }
            _ => self.apply_card_event(&event.kind),
        }
    }

    /// The part of [`TableState::apply_event`] for the events that move
    /// cards: a hand shown, cards passed, a card played and a trick won.
    fn apply_card_event(&mut self, kind: &EventKind) {
        match kind {
            EventKind::HandRevealed { seat, cards, .. } => {
                if Some(*seat) == self.seat
                    && let Some(cards) = cards
                {
                    self.cards = *cards;
                    self.hidden = false;
                }
            }
            EventKind::BidMade { seat, bid, blind, .. } => {
                self.bids[seat.index()] = Some(BidView {
                    bid: *bid,
                    blind: *blind,
                });
            }
            EventKind::CardsPassed {
                from,
                to,
                cards: Some(cards),
                ..
            } => {
                if Some(*from) == self.seat {
                    self.cards -= *cards;
                }
                if Some(*to) == self.seat {
                    self.cards |= *cards;
                }
                self.passes.push(PassRecord {
                    from: *from,
                    to: *to,
                    cards: *cards,
                });
            }
            EventKind::CardPlayed { seat, card, .. } => {
                if Some(*seat) == self.seat {
                    self.cards.remove(*card);
                }
                if self.trick.len() >= self.seating().seat_count() {
                    self.trick.clear();
                }
                self.trick.push((*seat, *card));
            }
            EventKind::TrickWon { winner, .. } => {
                let cards: Vec<Card> = self.trick.iter().map(|&(_, card)| card).collect();
                if let (Some(&(leader, _)), Some(cards)) =
                    (self.trick.first(), TrickCards::from_slice(&cards))
                {
                    self.tricks.push(TrickRecord {
                        leader,
                        cards,
                        winner: *winner,
                    });
                }
                self.trick.clear();
            }
            _ => {}
        }
    }

    /// Whether the message is the event of an action of this seat.
    fn confirms_mine(&self, message: &ServerMessage) -> bool {
        let actor = match message.event() {
            Some(
                EventKind::BidMade { seat, .. }
                | EventKind::HandRevealed { seat, .. }
                | EventKind::PassChosen { seat, .. }
                | EventKind::CardPlayed { seat, .. },
            ) => *seat,
            Some(EventKind::CardsPassed { from, .. }) => *from,
            _ => return false,
        };
        Some(actor) == self.seat
    }

    /// Whether this seat should act now: it is its turn, by a turn message
    /// sent after its last action was applied, and it has not acted on
    /// this message already.
    pub fn should_act(&self) -> bool {
        self.my_turn()
            && !self.outstanding
            && self.turn_seq >= self.min_turn
            && self.last_acted_turn != Some(self.turn_seq)
    }

    /// Notes that this seat sent an action for the current turn.
    pub fn acted(&mut self) {
        self.outstanding = true;
        self.last_acted_turn = Some(self.turn_seq);
    }

    /// Notes that the server refused this seat's last action; it acts again
    /// on the next turn message.
    pub fn refused(&mut self) {
        self.outstanding = false;
    }

    /// Notes that the server dropped this seat's last action unread (over
    /// the rate limit): it may act again on the same turn.
    pub fn dropped(&mut self) {
        self.outstanding = false;
        self.last_acted_turn = None;
    }

    /// Whether the last turn message asks this seat to act.
    pub fn my_turn(&self) -> bool {
        self.playing
            && self
                .turn
                .as_ref()
                .is_some_and(|turn| self.seat.is_some_and(|seat| turn.seats.contains(&seat)))
    }

    /// A plain, legal move when it is this seat's turn: when `blind` is set,
    /// the lowest blind bid offered (blind nil, or else the team's lowest
    /// blind bid), a cautious bid (or the allowed bid
    /// nearest to it), the lowest cards to
    /// pass (the highest when this seat bid nil), the lowest legal card.
    pub fn decide(&self, blind: bool) -> Option<Move> {
        if !self.my_turn() {
            return None;
        }
        let turn = self.turn.as_ref()?;
        let mv = match turn.expected {
            Expected::BlindNilOrLook if blind => match turn.bids.as_deref() {
                // A turn that does not list the blind bids offers blind nil.
                None => Move::Bid { bid: 0, blind: true },
                Some([lowest, ..]) => Move::Bid {
                    bid: *lowest,
                    blind: true,
                },
                Some([]) => Move::Look,
            },
            Expected::BlindNilOrLook => Move::Look,
            Expected::Bid => {
                // The nearest bid the rules allow, when the turn names them.
                let wanted = sure_tricks(self.cards);
                let allowed = turn.bids.as_ref().map_or(BidChoices::ALL, |bids| {
                    BidChoices::from_numbers(bids.iter().copied())
                });
                Move::Bid {
                    bid: allowed.nearest(wanted)?,
                    blind: false,
                }
            }
            Expected::Pass => {
                let count = usize::from(turn.pass_count?);
                let mine_nil = self
                    .seat
                    .and_then(|seat| self.bids[seat.index()])
                    .is_some_and(|b| b.bid == 0);
                let mut order: Vec<Card> = self.deck().set(self.cards).iter().collect();
                order.sort_by_key(|card| (card.order(), card.suit()));
                if mine_nil {
                    order.reverse();
                }
                Move::Pass(order.into_iter().take(count).collect())
            }
            Expected::Play => {
                let legal = self.deck().set(turn.legal?);
                Move::Play(
                    legal
                        .iter()
                        .min_by_key(|card| (card.order(), card.suit() == Suit::Spades))?,
                )
            }
        };
        Some(mv)
    }
}

impl TableState {
    /// What this seat has seen, worked out as a bot's knowledge; `None`
    /// without a seat and a game.
    pub fn knowledge(&self) -> Option<Knowledge> {
        let bid = |view: BidView| Bid::from_parts(view.bid, view.blind).ok();
        // Card strings do not say whether the two of spades is raised, so
        // the cards are put in the game's pack before the bots read them.
        let deck = self.deck();
        let trick: Vec<Card> = self.trick.iter().map(|&(_, card)| deck.card(card)).collect();
        let tricks: Vec<TrickRecord> = self
            .tricks
            .iter()
            .map(|trick| TrickRecord {
                cards: trick.cards.map(|card| deck.card(card)),
                ..*trick
            })
            .collect();
        let passes: Vec<PassRecord> = self
            .passes
            .iter()
            .map(|pass| PassRecord {
                cards: deck.set(pass.cards),
                ..*pass
            })
            .collect();
        let seen = Seen {
            seat: self.seat?,
            rules: self.rules?,
            hand_number: self.hand,
            dealer: self.dealer?,
            score: self.score,
            bags: self.bags,
            hand: (!self.hidden).then_some(deck.set(self.cards)),
            bids: BySeat(self.bids.map(|view| view.and_then(bid))),
            tricks: &tricks,
            trick: &trick,
            // With no card on the table the leader does not matter.
            trick_leader: self.trick.first().map_or(self.seat?, |&(seat, _)| seat),
            passes: &passes,
        };
        Some(Knowledge::from_seen(&seen))
    }

    /// What the last turn message allows this seat, when it is its turn.
    pub fn legal(&self) -> Option<Legal> {
        if !self.my_turn() {
            return None;
        }
        let turn = self.turn.as_ref()?;
        Some(match turn.expected {
            Expected::Bid => Legal::Bid(turn.bids.as_ref().map_or(BidChoices::ALL, |bids| {
                BidChoices::from_numbers(bids.iter().copied())
            })),
            Expected::BlindNilOrLook => {
                Legal::BlindOrLook(turn.bids.as_ref().map_or(BidChoices::NIL, |bids| {
                    BidChoices::from_numbers(bids.iter().copied())
                }))
            }
            Expected::Pass => Legal::Pass {
                count: turn.pass_count?,
            },
            Expected::Play => Legal::Play(self.deck().set(turn.legal?)),
        })
    }

    /// Who plays in which seats (four seats until the rules are known).
    fn seating(&self) -> Seating {
        self.rules.map_or(Seating::Partners, |rules| rules.seating())
    }

    /// The pack of the game being played (the standard one until the rules
    /// are known).
    fn deck(&self) -> Deck {
        self.rules.map_or(Deck::Standard, |rules| rules.deck)
    }
}

/// Aces and spades beyond the third, at least 1: a cautious bid.
fn sure_tricks(cards: CardSet) -> u8 {
    let aces = Suit::ALL
        .iter()
        .filter(|&&suit| cards.contains(Card::new(Rank::Ace, suit)))
        .count() as u32;
    let long_spades = cards.in_suit(Suit::Spades).len().saturating_sub(3);
    (aces + long_spades).clamp(1, 13) as u8
}
