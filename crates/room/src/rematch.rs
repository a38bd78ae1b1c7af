//! A rematch: once a game is over, the players seated for it ask for
//! another with the same seats, and it starts when the last has asked.
//!
//! The room keeps who asked, by player, with the finished game's table:
//! a player who leaves takes his request with him, and one who sits in
//! his place has not asked, so the same four (bots agreeing always) are
//! the only way a rematch starts.
//!
//! A rematch on the same deals ("play these deals again") deals the
//! finished game's seed again with every player one seat to the left, so
//! that each partnership holds the cards the other held. The two kinds do
//! not mix: asking for one kind drops the requests for the other.

use spades_engine::{Seat, SeatSet};
use spades_protocol::event::EventKind;
use spades_protocol::ws::ErrorCode;

use super::{Refusal, Room, Stage};

impl Room {
    pub(super) fn rematch(&mut self, player: &str, same_deals: bool) -> Result<(), Refusal> {
        let seat = self.member_seat(player)?.ok_or_else(|| {
            Refusal::new(ErrorCode::NotSeated, "only a seated player can ask for a rematch")
        })?;
        if self.settings.tournament.is_some() {
            return Err(Refusal::new(
                ErrorCode::TournamentTable,
                "a tournament table plays one game; the tournament opens the next",
            ));
        }
        let key = self.seats[seat].clone().expect("the member's seat is his");
        let table = match &mut self.stage {
            Stage::Finished(table) => table,
            Stage::Playing(_) => {
                return Err(Refusal::new(
                    ErrorCode::GameInProgress,
                    "a rematch is asked for once the game is over",
                ));
            }
            Stage::Waiting => {
                return Err(Refusal::new(
                    ErrorCode::NoGame,
                    "no game has been played here yet",
                ));
            }
        };
        if table.rematch_same_deals != same_deals {
            table.rematch.clear();
            table.rematch_same_deals = same_deals;
        }
        if !table.rematch.contains(&key) {
            table.rematch.push(key);
        }
        let deals = (table.id, table.seed);
        let waiting_for = self.rematch_waiting_for();
        let seats = waiting_for.iter().collect::<Vec<Seat>>();
        self.emit(SeatSet::EMPTY, |_| EventKind::RematchAsked {
            seat,
            waiting_for: seats.clone(),
            same_deals,
        });
        if !waiting_for.is_empty() {
            return Ok(());
        }
        // Everyone asked: the new game starts as `start_game` would start
        // it, with the same checks (the store, the server's state, every
        // seat taken), which are made before anyone is moved.
        if same_deals {
            self.may_start()?;
            self.move_everyone_left();
            self.start_game_dealing(Some(deals))
        } else {
            self.start_game()
        }
    }

    /// Moves every seated player (and bot) one seat to the left, round the
    /// seats the game is played in.
    fn move_everyone_left(&mut self) {
        let seating = self.settings.rules.seating();
        let before = self.seats.clone();
        for seat in self.seat_list() {
            let to = seating.next(seat);
            self.seats[to] = before[seat].clone();
            if let Some(member) = before[seat].as_ref().and_then(|key| self.members.get_mut(key)) {
                member.seat = Some(to);
            }
        }
        self.emit_seats();
    }

    /// The seats whose players have not asked for the rematch: empty seats
    /// among them, and never a bot's.
    fn rematch_waiting_for(&self) -> SeatSet {
        let asked = match &self.stage {
            Stage::Finished(table) => table.rematch.as_slice(),
            _ => &[],
        };
        let mut waiting = SeatSet::EMPTY;
        for seat in self.seat_list() {
            let agreed = self.seats[seat].as_ref().is_some_and(|key| {
                asked.contains(key) || self.members.get(key).is_some_and(|member| member.is_bot())
            });
            if !agreed {
                waiting.insert(seat);
            }
        }
        waiting
    }
}
