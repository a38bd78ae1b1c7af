//! The rules of four-player partnership Spades, with nil, blind nil and the
//! nil exchange.
//!
//! The engine is pure and synchronous: no I/O, no clock, no async runtime, no
//! JSON. A [`Game`] is created from a [`RuleSet`] and a seed, and changes only
//! through [`Game::apply`], which either accepts an action and returns the
//! [`Event`]s it caused or refuses it with a [`RuleError`] and changes nothing.
//! What a player may know is read through a [`View`].
//!
//! ```
//! use spades_engine::{Action, Bid, BidChoices, Game, Legal, RuleSet, Viewer};
//!
//! let mut game = Game::new(RuleSet::CLASSIC, 7).unwrap();
//! let seat = game.dealer().next();
//! assert_eq!(game.legal(seat), Legal::Bid(BidChoices::ALL));
//! let events = game.apply(seat, Action::Bid(Bid::Tricks(3))).unwrap();
//! assert_eq!(events.len(), 1);
//! // The player's own view shows his 13 cards; a spectator's shows none.
//! assert_eq!(game.view(Viewer::Seat(seat)).hand().unwrap().len(), 13);
//! assert_eq!(game.view(Viewer::Spectator).hand(), None);
//! ```

mod action;
mod card;
mod choices;
mod deck;
mod error;
mod event;
mod game;
mod history;
mod phase;
mod position;
mod presets;
mod rng;
mod rules;
#[cfg(feature = "schemars")]
mod schema;
pub mod score;
mod seat;
mod select;
mod verify;
mod view;

pub use action::{Action, Bid, ParseActionError};
pub use card::{Card, CardIter, CardSet, ParseCardError, Rank, Suit};
pub use choices::{BidChoices, MAX_TRICKS};
pub use error::RuleError;
pub use event::{Event, Events};
pub use game::{Deal, Game, Legal, PositionError, ReplayError, SetupError};
pub use history::{BidRecord, HandRecord, PassRecord, TrickCards, TrickRecord};
pub use phase::Phase;
pub use position::Position;
pub use presets::Preset;
pub use rng::GameRng;
pub use rules::{Bidding, Deck, Leading, MAX_PASS, MAX_POINTS, PassOrder, RuleSet, RuleSetError, SpadesLead};
pub use score::TeamHandScore;
pub use seat::{BySeat, ByTeam, Seat, SeatSet, Seating, Team};
pub use verify::{HistoryFault, check_hands, deal_commitment};
pub use view::{ImagineError, View, Viewer};
