//! A rematch: once a game is over, the players seated for it ask for
//! another with the same seats, and it starts when the last has asked.
//!
//! The room keeps who asked, by player, with the finished game's table:
//! a player who leaves takes his request with him, and one who sits in
//! his place has not asked, so the same four (bots agreeing always) are
//! the only way a rematch starts.

use spades_engine::{Seat, SeatSet};
use spades_protocol::event::EventKind;
use spades_protocol::ws::ErrorCode;

use super::{Refusal, Room, Stage};

impl Room {
    pub(super) fn rematch(&mut self, player: &str) -> Result<(), Refusal> {
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
        if !table.rematch.contains(&key) {
            table.rematch.push(key);
        }
        let waiting_for = self.rematch_waiting_for();
        let seats = waiting_for.iter().collect::<Vec<Seat>>();
        self.emit(SeatSet::EMPTY, |_| EventKind::RematchAsked {
            seat,
            waiting_for: seats.clone(),
        });
        if waiting_for.is_empty() {
            // Everyone asked: the new game starts as `start_game` would
            // start it, with the same checks (the store, the server's
            // state, every seat taken).
            self.start_game()?;
        }
        Ok(())
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
