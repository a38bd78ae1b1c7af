//! What one seat, or a spectator, may know of a game.
//!
//! A [`View`] borrows the game and exposes only public facts plus the
//! viewer's own secrets. The server sends players nothing that does not come
//! through a view, and bots decide from a view alone, so "nobody learns
//! another player's cards" is enforced by this one type.

use crate::action::Bid;
use crate::card::{Card, CardSet};
use arrayvec::ArrayVec;

use crate::game::{Game, Legal, PositionError};
use crate::history::{PassRecord, TrickRecord};
use crate::phase::Phase;
use crate::position::Position;
use crate::rules::RuleSet;
use crate::score::TeamHandScore;
use crate::seat::{BySeat, ByTeam, Seat, SeatSet, Team};

/// Who is looking.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Viewer {
    Seat(Seat),
    Spectator,
}

/// One viewer's window on a game.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    game: &'a Game,
    viewer: Viewer,
}

impl Game {
    /// What the seat may see of the game.
    pub fn view(&self, viewer: Viewer) -> View<'_> {
        View::new(self, viewer)
    }
}

impl<'a> View<'a> {
    pub(crate) fn new(game: &'a Game, viewer: Viewer) -> View<'a> {
        View { game, viewer }
    }

    pub fn viewer(&self) -> Viewer {
        self.viewer
    }

    /// The viewer's seat, if he plays.
    pub fn seat(&self) -> Option<Seat> {
        match self.viewer {
            Viewer::Seat(seat) => Some(seat),
            Viewer::Spectator => None,
        }
    }

    pub fn rules(&self) -> &'a RuleSet {
        self.game.rules()
    }

    pub fn phase(&self) -> Phase {
        self.game.phase()
    }

    pub fn hand_number(&self) -> u32 {
        self.game.hand_number()
    }

    pub fn dealer(&self) -> Seat {
        self.game.dealer()
    }

    pub fn score(&self) -> ByTeam<i32> {
        self.game.score()
    }

    pub fn bags(&self) -> ByTeam<i32> {
        self.game.bags()
    }

    pub fn winner(&self) -> Option<Team> {
        self.game.winner()
    }

    /// The viewer's own cards, or `None` for a spectator and for a player
    /// whose cards are hidden while he is offered a blind bid.
    #[inline]
    pub fn hand(&self) -> Option<CardSet> {
        let seat = self.seat()?;
        (!self.game.is_hand_hidden(seat)).then(|| self.game.hand(seat))
    }

    /// How many cards each seat holds: public, since everyone can count.
    pub fn hand_sizes(&self) -> BySeat<u8> {
        BySeat::from_fn(|seat| self.game.hand(seat).len() as u8)
    }

    pub fn bids(&self) -> &'a BySeat<Option<Bid>> {
        self.game.bids()
    }

    /// Whether the viewer was offered a blind bid this hand (blind nil or
    /// his team's blind bid), which kept his cards from him at first.
    pub fn blind_nil_offered(&self) -> bool {
        self.seat().is_some_and(|seat| self.game.is_blind_offered(seat))
    }

    /// The passes this viewer gave or received this hand.
    pub fn passes(&self) -> impl Iterator<Item = &'a PassRecord> + 'a {
        let seat = self.seat();
        self.game
            .passes()
            .iter()
            .filter(move |pass| Some(pass.from) == seat || Some(pass.to) == seat)
    }

    /// Cards the viewer has chosen in a simultaneous exchange that have not
    /// moved yet.
    pub fn pass_chosen(&self) -> CardSet {
        self.seat()
            .map_or(CardSet::EMPTY, |seat| self.game.pass_chosen(seat))
    }

    /// The number of cards the viewer's team exchanges this hand, if any.
    pub fn pass_count(&self) -> Option<u8> {
        self.game.pass_count(self.seat()?)
    }

    /// The trick being played: its leader and the cards so far, in order.
    pub fn current_trick(&self) -> (Seat, &'a [Card]) {
        self.game.current_trick()
    }

    /// The completed tricks of this hand: every card in them was played face up.
    pub fn tricks(&self) -> &'a [TrickRecord] {
        self.game.tricks()
    }

    pub fn tricks_won(&self) -> &'a BySeat<u8> {
        self.game.tricks_won()
    }

    pub fn spades_broken(&self) -> bool {
        self.game.spades_broken()
    }

    /// Every seat that is expected to act now.
    pub fn to_act(&self) -> SeatSet {
        self.game.to_act()
    }

    /// What the viewer may do now (always `Wait` for a spectator).
    #[inline]
    pub fn legal(&self) -> Legal {
        self.seat().map_or(Legal::Wait, |seat| self.game.legal(seat))
    }

    /// A game to look ahead on: this one, with the cards the viewer cannot
    /// see dealt as `hands` says (the viewer's own hand unchanged, every
    /// other seat holding as many cards as it does now, and together exactly
    /// the cards not yet played). Only the play phase can be imagined.
    ///
    /// The copy is built from what the viewer may know and the guess alone
    /// (see [`Game::from_position`]), and its later deals come from `seed`,
    /// not from the real game's generator.
    pub fn imagine(&self, hands: BySeat<CardSet>, seed: u64) -> Result<Game, ImagineError> {
        let seat = self.seat().ok_or(ImagineError::Spectator)?;
        if self.phase() != Phase::Playing {
            return Err(ImagineError::NotPlaying);
        }
        if Some(hands[seat]) != self.hand() {
            return Err(ImagineError::OwnHandChanged);
        }
        let sizes = self.hand_sizes();
        if let Some(seat) = Seat::ALL
            .into_iter()
            .find(|&seat| hands[seat].len() != u32::from(sizes[seat]))
        {
            return Err(ImagineError::HandSize { seat });
        }
        let bids = self.bids();
        let mut all_bids = BySeat::from_fn(|_| Bid::Nil);
        for seat in self.game.seating().seats() {
            all_bids[seat] = bids[seat].ok_or(ImagineError::NotPlaying)?;
        }
        // Built from public facts and the guess alone, so nothing hidden
        // from the viewer can reach the copy.
        let passes: ArrayVec<PassRecord, 4> = self.passes().copied().collect();
        let position = Position {
            hand_number: self.hand_number(),
            dealer: self.dealer(),
            score: self.score(),
            bags: self.bags(),
            bids: all_bids,
            hands,
            tricks: self.tricks(),
            trick: self.current_trick().1,
            passes: &passes,
        };
        Game::from_position(*self.rules(), seed, &position).map_err(|error| match error {
            PositionError::HandSize { seat } => ImagineError::HandSize { seat },
            PositionError::CardTwice { .. } | PositionError::NotAPack => ImagineError::NotTheUnseenCards,
            other => ImagineError::Position(other),
        })
    }

    /// The cards no seat has played yet this hand, the viewer's included:
    /// public, since everyone saw the others go.
    pub fn unplayed(&self) -> CardSet {
        Seat::ALL
            .iter()
            .fold(CardSet::EMPTY, |all, &seat| all | self.game.hand(seat))
    }

    /// How each team scored in the last finished hand.
    pub fn last_hand_scores(&self) -> Option<&'a ByTeam<TeamHandScore>> {
        self.game.last_hand_scores()
    }
}

/// Why a guess at the hidden hands was refused (see [`View::imagine`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImagineError {
    /// Only a hand being played can be imagined.
    NotPlaying,
    /// Spectators hold no cards to imagine around.
    Spectator,
    /// The viewer's own hand must stay as it is.
    OwnHandChanged,
    /// A seat was given a different number of cards than it holds.
    HandSize { seat: Seat },
    /// The hands overlap or are not exactly the cards left unplayed.
    NotTheUnseenCards,
    /// The position was refused for another reason.
    Position(PositionError),
}

impl std::fmt::Display for ImagineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ImagineError::NotPlaying => f.write_str("only a hand being played can be imagined"),
            ImagineError::Spectator => f.write_str("a spectator holds no cards"),
            ImagineError::OwnHandChanged => f.write_str("the viewer's own hand was changed"),
            ImagineError::HandSize { seat } => write!(f, "{seat} was given the wrong number of cards"),
            ImagineError::NotTheUnseenCards => f.write_str("the hands are not the unplayed cards, once each"),
            ImagineError::Position(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for ImagineError {}
