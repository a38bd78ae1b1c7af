//! Making a game: from a seed (`Game::new`), from a chosen deal
//! (`Game::from_deal`), from a moment of play written out in full
//! (`Game::from_position`), or by replaying recorded actions, with the
//! reasons each of them can refuse.

use std::fmt;

use arrayvec::ArrayVec;

use super::play::winning_position;
use super::{Game, Phase};
use crate::action::Action;
use crate::card::{Card, CardSet};
use crate::error::RuleError;
use crate::event::Event;
use crate::history::{TrickCards, TrickRecord};
use crate::position::Position;
use crate::rng::GameRng;
use crate::rules::{Leading, RuleSet, RuleSetError};
use crate::score::Streaks;
use crate::seat::{BySeat, ByTeam, Seat, SeatSet, Seating};

impl Game {
    /// Starts a game: checks the rules, draws the first dealer and deals.
    pub fn new(rules: RuleSet, seed: u64) -> Result<Game, RuleSetError> {
        rules.validate()?;
        let mut rng = GameRng::new(seed);
        let seating = rules.seating();
        let dealer = Seat::ALL[rng.below(seating.seat_count() as u32) as usize];
        let mut game = Game {
            rules,
            seed,
            rng,
            phase: Phase::Bidding,
            hand_number: 0,
            dealer,
            score: ByTeam::filled(rules.seating(), 0),
            bags: ByTeam::filled(rules.seating(), 0),
            streaks: Streaks::new(rules.seating()),
            winner: None,
            dealt: BySeat::default(),
            hands: BySeat::default(),
            blind_eligible: SeatSet::EMPTY,
            hidden: SeatSet::EMPTY,
            bids: BySeat::default(),
            turn: seating.next(dealer),
            exchanges: ByTeam::default(),
            pass_pending: SeatSet::EMPTY,
            pass_chosen: BySeat::default(),
            passes: ArrayVec::new(),
            tricks: [TrickRecord {
                leader: seating.next(dealer),
                cards: TrickCards::EMPTY,
                winner: seating.next(dealer),
            }; crate::MAX_TRICKS as usize],
            hand_size: rules.hand_size(),
            seating,
            players: seating.seat_count() as u8,
            pack: pack_order(&rules),
            pack_len: rules.pack().len() as u8,
            two_of_spades: rules.deck.card(Card::TWO_OF_SPADES),
            two_of_diamonds: rules.deck.card(Card::TWO_OF_DIAMONDS),
            tricks_done: 0,
            trick_len: 0,
            trick_cards: CardSet::EMPTY,
            led: CardSet::EMPTY,
            tricks_won: BySeat::default(),
            spades_broken: false,
            last_hand: None,
            last_scores: None,
        };
        game.deal();
        Ok(game)
    }

    /// Starts a game from a chosen position instead of a random first deal:
    /// for tests, puzzles and analysis. Later hands are dealt from `seed`.
    pub fn from_deal(rules: RuleSet, seed: u64, mut deal: Deal) -> Result<Game, SetupError> {
        rules.validate().map_err(SetupError::Rules)?;
        for seat in Seat::ALL {
            deal.hands[seat] = rules.deck.set(deal.hands[seat]);
        }
        let mut seen = CardSet::EMPTY;
        let size = rules.hand_size();
        for (seat, &hand) in deal.hands.iter() {
            if hand.len() != cards_held(&rules, seat, size) {
                return Err(SetupError::HandSize {
                    seat,
                    cards: hand.len() as u8,
                });
            }
            if let Some(card) = (seen & hand).lowest() {
                return Err(SetupError::DealtTwice { card });
            }
            seen |= hand;
        }
        if seen != rules.pack() {
            return Err(SetupError::NotAPack);
        }
        let seating = rules.seating();
        if !deal.score.fits(seating) || !deal.bags.fits(seating) {
            return Err(SetupError::TeamCount);
        }
        let mut game = Game::new(rules, seed).map_err(SetupError::Rules)?;
        game.hand_number = deal.hand_number;
        game.dealer = deal.dealer;
        game.score = deal.score;
        game.bags = deal.bags;
        game.deal();
        game.dealt = deal.hands;
        game.hands = deal.hands;
        if game.phase == Phase::Playing {
            // An unbid hand starts in play: its leader may depend on the cards.
            game.begin_play();
        }
        Ok(game)
    }

    /// Sets up a game at a position in the play phase of a hand: for bots
    /// that look ahead on guessed hands, tests and analysis. Later hands are
    /// dealt from `seed`.
    ///
    /// The position is checked for consistency (every card once, each seat
    /// holding 13 cards less what it played, each trick led by the winner
    /// of the one before and won by its best card), not for the legality
    /// of the plays that led to it.
    pub fn from_position(rules: RuleSet, seed: u64, position: &Position<'_>) -> Result<Game, PositionError> {
        rules.validate().map_err(PositionError::Rules)?;
        let done = position.tricks.len();
        let seating = rules.seating();
        let size = rules.hand_size();
        if done >= usize::from(size) || position.trick.len() >= seating.seat_count() {
            return Err(PositionError::NotInPlay);
        }
        if !position.score.fits(seating) || !position.bags.fits(seating) {
            return Err(PositionError::TeamCount);
        }
        let mut game = Game::new(rules, seed).map_err(PositionError::Rules)?;
        game.hand_number = position.hand_number;
        game.dealer = position.dealer;
        game.score = position.score;
        game.bags = position.bags;

        let mut seen = CardSet::EMPTY;
        let mut played = BySeat::<CardSet>::default();
        let mut tricks_won = BySeat::<u8>::default();
        let mut leader = first_leader(&rules, position).ok_or(PositionError::WrongLeader { trick: 0 })?;
        let mut add = |card: Card, seat: Seat, seen: &mut CardSet| {
            if seen.contains(card) {
                return Err(PositionError::CardTwice { card });
            }
            seen.insert(card);
            played[seat].insert(card);
            Ok(())
        };
        for (number, trick) in position.tricks.iter().enumerate() {
            if trick.leader != leader {
                return Err(PositionError::WrongLeader { trick: number as u8 });
            }
            if trick.cards.len() != seating.seat_count() {
                return Err(PositionError::WrongTrickSize { trick: number as u8 });
            }
            let cards: CardSet = trick.cards.iter().copied().collect();
            for (seat, &card) in trick.players().zip(trick.cards.iter()) {
                add(card, seat, &mut seen)?;
            }
            let position = winning_position(trick.cards.slots(), trick.cards.len() as u8, cards);
            let winner = seating.plus(trick.leader, position);
            if trick.winner != winner {
                return Err(PositionError::WrongWinner { trick: number as u8 });
            }
            tricks_won[winner] += 1;
            game.tricks[number] = *trick;
            leader = winner;
        }
        for (i, &card) in position.trick.iter().enumerate() {
            add(card, seating.plus(leader, i as u8), &mut seen)?;
            game.tricks[done].cards.set(i, card);
        }
        game.tricks[done].leader = leader;
        check_hands(&rules, position, seen, &played, size)?;
        game.enter_position(position, seating, &played, tricks_won, leader);
        Ok(game)
    }

    /// Puts the game in the play phase at a position that has passed its
    /// checks: `played` holds the cards each seat has played, `tricks_won`
    /// the tricks each has won, and `leader` leads the trick being played.
    fn enter_position(
        &mut self,
        position: &Position<'_>,
        seating: Seating,
        played: &BySeat<CardSet>,
        tricks_won: BySeat<u8>,
        leader: Seat,
    ) {
        let done = position.tricks.len();
        // Undo the exchanges that are known, last first (a card can go
        // there and back), so that the record of the hand shows what each
        // seat was dealt as far as the position tells.
        let mut dealt = BySeat::from_fn(|seat| position.hands[seat] | played[seat]);
        for pass in position.passes.iter().rev() {
            dealt[pass.to] -= pass.cards;
            dealt[pass.from] |= pass.cards;
        }
        self.dealt = dealt;
        self.hands = position.hands;
        // The empty seat of the three-player game never bids.
        self.bids =
            BySeat::from_fn(|seat| (seat.index() < seating.seat_count()).then_some(position.bids[seat]));
        self.blind_eligible = SeatSet::EMPTY;
        self.hidden = SeatSet::EMPTY;
        self.passes = position.passes.iter().copied().collect();
        self.phase = Phase::Playing;
        self.tricks_done = done as u8;
        self.trick_len = position.trick.len() as u8;
        self.trick_cards = position.trick.iter().copied().collect();
        self.led = position
            .trick
            .first()
            .map_or(CardSet::EMPTY, |&card| self.follows(card));
        self.turn = seating.plus(leader, position.trick.len() as u8);
        self.tricks_won = tricks_won;
        let all_played = Seat::ALL
            .iter()
            .fold(CardSet::EMPTY, |all, &seat| all | played[seat]);
        self.spades_broken = !(all_played & self.trumps()).is_empty();
    }

    /// Rebuilds a game by applying recorded actions to a new one. Fails with
    /// the index of the first refused action.
    pub fn replay<'a>(
        rules: RuleSet,
        seed: u64,
        actions: impl IntoIterator<Item = &'a (Seat, Action)>,
    ) -> Result<Game, ReplayError> {
        Game::replay_observed(rules, seed, actions, |_, _| {})
    }

    /// [`Game::replay`], showing `observe` the game and the events after
    /// each action, for a caller that keeps its own record of the game (a
    /// server counting each hand's bids, say).
    pub fn replay_observed<'a>(
        rules: RuleSet,
        seed: u64,
        actions: impl IntoIterator<Item = &'a (Seat, Action)>,
        mut observe: impl FnMut(&Game, &[Event]),
    ) -> Result<Game, ReplayError> {
        let mut game = Game::new(rules, seed).map_err(ReplayError::Rules)?;
        for (index, &(seat, action)) in actions.into_iter().enumerate() {
            let events = game
                .apply(seat, action)
                .map_err(|error| ReplayError::Refused { index, error })?;
            observe(&game, &events);
        }
        Ok(game)
    }
}

/// A chosen position to start a game from (see [`Game::from_deal`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Deal {
    pub dealer: Seat,
    pub hands: BySeat<CardSet>,
    pub score: ByTeam<i32>,
    pub bags: ByTeam<i32>,
    pub hand_number: u32,
}

/// Why a chosen position is not a valid start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    Rules(RuleSetError),
    HandSize {
        seat: Seat,
        cards: u8,
    },
    DealtTwice {
        card: Card,
    },
    NotAPack,
    /// The scores or bags do not have one value per team of the rules.
    TeamCount,
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::Rules(error) => write!(f, "invalid rules: {error}"),
            SetupError::HandSize { seat, cards } => {
                write!(f, "{seat} has the wrong number of cards ({cards})")
            }
            SetupError::DealtTwice { card } => write!(f, "{card} is dealt twice"),
            SetupError::NotAPack => f.write_str("the hands are not one standard pack"),
            SetupError::TeamCount => f.write_str("the scores and bags need one value per team"),
        }
    }
}

impl std::error::Error for SetupError {}

/// The cards of the rules' pack in byte order, in the first places.
fn pack_order(rules: &RuleSet) -> [Card; 54] {
    let mut order = [Card::TWO_OF_SPADES; 54];
    for (place, card) in order.iter_mut().zip(rules.pack().iter()) {
        *place = card;
    }
    order
}

/// The cards a seat holds at the deal: a hand, or none for the seat left
/// empty in the three-player game.
fn cards_held(rules: &RuleSet, seat: Seat, size: u8) -> u32 {
    if seat.index() < rules.seating().seat_count() {
        u32::from(size)
    } else {
        0
    }
}

/// Checks the hands of a position against the cards `seen` in its tricks
/// and `played` by each seat: no card is held twice or both held and
/// played, each seat holds what it was dealt less what it played, and the
/// cards make up the pack.
fn check_hands(
    rules: &RuleSet,
    position: &Position<'_>,
    mut seen: CardSet,
    played: &BySeat<CardSet>,
    size: u8,
) -> Result<(), PositionError> {
    for (seat, &hand) in position.hands.iter() {
        if !(seen & hand).is_empty() {
            return Err(PositionError::CardTwice {
                card: (seen & hand).lowest().expect("checked non-empty"),
            });
        }
        seen |= hand;
        if hand.len() + played[seat].len() != cards_held(rules, seat, size) {
            return Err(PositionError::HandSize { seat });
        }
    }
    if seen != rules.pack() {
        return Err(PositionError::NotAPack);
    }
    Ok(())
}

/// Who led the first trick of a written-out position under the rules'
/// first-lead rule, if the position can tell.
fn first_leader(rules: &RuleSet, position: &Position<'_>) -> Option<Seat> {
    match rules.leading {
        Leading::LeftOfDealer => Some(rules.seating().next(position.dealer)),
        Leading::Dealer => Some(position.dealer),
        Leading::TwoOfClubs => {
            let lowest_club = rules.lowest_club();
            let seating = rules.seating();
            let size = rules.hand_size();
            let led = position
                .tricks
                .first()
                .map_or(position.trick.first(), |trick| trick.cards.first());
            match (position.tricks.first(), led) {
                (_, Some(&card)) if card != lowest_club => None,
                (Some(trick), _) => Some(trick.leader),
                // The first trick is on the table: its leader is the first
                // of the seats that hold one card fewer than the others.
                (None, Some(_)) => seating.seats().find(|&seat| {
                    let before = seating.plus(seat, seating.seat_count() as u8 - 1);
                    position.hands[seat].len() + 1 == u32::from(size)
                        && position.hands[before].len() == u32::from(size)
                }),
                (None, None) => Seat::ALL
                    .into_iter()
                    .find(|&seat| position.hands[seat].contains(lowest_club)),
            }
        }
    }
}

/// Why a position was refused by [`Game::from_position`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    Rules(RuleSetError),
    /// A position has at most twelve complete tricks and three cards on
    /// the table.
    NotInPlay,
    /// A card appears twice among the hands and the tricks.
    CardTwice {
        card: Card,
    },
    /// The hands and the tricks are not one whole pack.
    NotAPack,
    /// A seat's cards and plays do not add up to a hand (13 cards, 17 or
    /// 18 with three players, none in the empty seat).
    HandSize {
        seat: Seat,
    },
    /// A complete trick without one card from each player.
    WrongTrickSize {
        trick: u8,
    },
    /// A trick was not led by the winner of the trick before it (or, for
    /// the first, by the dealer's left).
    WrongLeader {
        trick: u8,
    },
    /// A trick's winner is not the seat that played its best card.
    WrongWinner {
        trick: u8,
    },
    /// The scores or bags do not have one value per team of the rules.
    TeamCount,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::Rules(error) => write!(f, "invalid rules: {error}"),
            PositionError::NotInPlay => f.write_str("the position is not in the play of a hand"),
            PositionError::CardTwice { card } => write!(f, "{card} appears twice"),
            PositionError::NotAPack => f.write_str("the hands and tricks are not one standard pack"),
            PositionError::HandSize { seat } => write!(f, "{seat} holds the wrong number of cards"),
            PositionError::WrongLeader { trick } => write!(f, "trick {trick} has the wrong leader"),
            PositionError::WrongTrickSize { trick } => {
                write!(f, "trick {trick} does not hold one card per player")
            }
            PositionError::WrongWinner { trick } => write!(f, "trick {trick} has the wrong winner"),
            PositionError::TeamCount => f.write_str("the scores and bags need one value per team"),
        }
    }
}

impl std::error::Error for PositionError {}

/// Why a recorded game could not be replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayError {
    Rules(RuleSetError),
    Refused { index: usize, error: RuleError },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Rules(error) => write!(f, "invalid rules: {error}"),
            ReplayError::Refused { index, error } => write!(f, "action {index} refused: {error}"),
        }
    }
}

impl std::error::Error for ReplayError {}
