//! A seat's life at the table: present, held after a lost connection,
//! away (played by the server), or thinking (a strong bot deciding for
//! it), with the turn clock that runs while it must act.
//!
//! These transitions only change the table's fields and take the time as
//! an argument, so that they are tested without a room, sockets or a
//! clock; the room announces what they return.

use std::time::Duration;

use spades_engine::Seat;
use tokio::time::Instant;

use super::Table;

impl Table {
    /// The seat's player came in at `now`. Returns whether that is a
    /// return, which the room announces: he had been away, or held (but a
    /// quick-play player's `first_arrival` is no return). Back from away,
    /// or while a bot thinks for his seat, he gets a clock of his own if
    /// the seat must act, rather than being played for: a fresh one for a
    /// turn that began while he was away, the one he left with for the
    /// turn he went away in. Back within his hold, his clock runs on as it
    /// was. Either way no return lengthens a turn: otherwise a player could
    /// put off his turn for ever by connecting (or leaving and joining)
    /// again and again.
    pub(super) fn seat_present(
        &mut self,
        seat: Seat,
        now: Instant,
        turn_time: Duration,
        first_arrival: bool,
    ) -> bool {
        let i = seat.index();
        let was_away = self.away.contains(seat);
        let returned = was_away || (self.holds[i].is_some() && !first_arrival);
        self.holds[i] = None;
        self.away.remove(seat);
        let clock_left = self.clocks_left[i].take();
        if (was_away && self.deadlines[i].is_some()) || self.thinking.contains(seat) {
            self.deadlines[i] = Some(clock_left.unwrap_or(now + turn_time));
        }
        returned
    }

    /// Starts the clock of every seat that must act and has none, now for
    /// a seat the server plays and `turn_time` from `now` for a player, and
    /// stops the others. `acted` just acted: if it must act again, its
    /// clock starts afresh. Returns whether a clock started, which is a new
    /// turn to announce.
    pub(super) fn start_clocks(&mut self, acted: Option<Seat>, now: Instant, turn_time: Duration) -> bool {
        if let Some(seat) = acted {
            self.deadlines[seat.index()] = None;
            self.clocks_left[seat.index()] = None;
        }
        let acting = self.game.to_act();
        let server_plays = self.played_by_server();
        let mut started = false;
        for seat in Seat::ALL {
            let deadline = &mut self.deadlines[seat.index()];
            if !acting.contains(seat) {
                *deadline = None;
                // His turn is over: a clock he left with is no longer his.
                self.clocks_left[seat.index()] = None;
            } else if deadline.is_none() {
                let wait = if server_plays.contains(seat) {
                    Duration::ZERO
                } else {
                    turn_time
                };
                *deadline = Some(now + wait);
                started = true;
            }
        }
        started
    }

    /// The seat's player lost his connection: the seat waits for him until
    /// `until`.
    pub(super) fn hold_seat(&mut self, seat: Seat, until: Instant) {
        self.holds[seat.index()] = Some(until);
    }

    /// The seat's player is gone for good (he left, or his hold ended):
    /// the server plays the seat, at once if it must act.
    pub(super) fn seat_away(&mut self, seat: Seat, now: Instant) {
        let i = seat.index();
        self.holds[i] = None;
        if !self.away.contains(seat) && !self.thinking.contains(seat) {
            // The clock of his own that was running, kept for his return.
            self.clocks_left[i] = self.deadlines[i];
        }
        self.away.insert(seat);
        if self.deadlines[i].is_some() {
            self.deadlines[i] = Some(now);
        }
    }

    /// Held seats whose hold has ended by `now` go to the server.
    pub(super) fn end_holds(&mut self, now: Instant) {
        for seat in Seat::ALL {
            if self.holds[seat.index()].is_some_and(|until| until <= now) {
                self.seat_away(seat, now);
            }
        }
    }

    /// The seats whose clock has run out by `now`.
    pub(super) fn clocks_out(&self, now: Instant) -> Vec<Seat> {
        Seat::ALL
            .into_iter()
            .filter(|seat| self.deadlines[seat.index()].is_some_and(|at| at <= now))
            .collect()
    }

    /// When the table next needs the room: a clock or a hold that ends.
    pub(super) fn next_wake(&self) -> Option<Instant> {
        self.deadlines.iter().chain(&self.holds).flatten().min().copied()
    }

    /// A strong bot starts deciding for the seat, away from the room: the
    /// seat's clock stops until its decision comes.
    pub(super) fn start_thinking(&mut self, seat: Seat) {
        self.thinking.insert(seat);
        self.deadlines[seat.index()] = None;
    }

    /// The strong bot deciding for the seat has answered.
    pub(super) fn stop_thinking(&mut self, seat: Seat) {
        self.thinking.remove(seat);
    }

    /// The game is over: no clock runs and no seat is held.
    pub(super) fn stop_clocks(&mut self) {
        self.deadlines = [None; 4];
        self.clocks_left = [None; 4];
        self.holds = [None; 4];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TURN: Duration = Duration::from_secs(30);
    const NORTH: Seat = Seat::ALL[0];
    const EAST: Seat = Seat::ALL[1];
    const SOUTH: Seat = Seat::ALL[2];
    const WEST: Seat = Seat::ALL[3];

    fn at(start: Instant, seconds: u64) -> Instant {
        start + Duration::from_secs(seconds)
    }

    #[test]
    fn a_lost_connection_holds_the_seat_until_its_hold_ends() {
        let start = Instant::now();
        let mut table = Table::sample();
        table.deadlines[0] = Some(at(start, 30));
        table.hold_seat(NORTH, at(start, 60));
        assert_eq!(table.next_wake(), Some(at(start, 30)), "the clock ends first");

        table.end_holds(at(start, 59));
        assert!(!table.away.contains(NORTH), "still held");

        table.end_holds(at(start, 60));
        assert!(table.away.contains(NORTH), "played by the server from then");
        assert_eq!(table.holds[0], None);
        assert_eq!(
            table.deadlines[0],
            Some(at(start, 60)),
            "and at once, since it must act"
        );
        assert_eq!(table.clocks_out(at(start, 60)), [NORTH]);
    }

    #[test]
    fn a_player_who_comes_back_gets_his_seat_and_a_fresh_clock_for_a_turn_begun_while_away() {
        let start = Instant::now();
        let mut table = Table::sample();
        table.seat_away(EAST, at(start, 1));
        // His turn comes while he is away: the server is to play at once.
        table.deadlines[1] = Some(at(start, 5));
        assert!(table.away.contains(EAST));

        assert!(table.seat_present(EAST, at(start, 5), TURN, false), "a return");
        assert!(!table.away.contains(EAST));
        assert_eq!(table.deadlines[1], Some(at(start, 35)));
        assert!(table.clocks_out(at(start, 34)).is_empty());
    }

    #[test]
    fn leaving_and_joining_again_gives_back_the_clock_he_left_with() {
        let start = Instant::now();
        let mut table = Table::sample();
        table.deadlines[1] = Some(at(start, 30));
        for second in [3, 10, 29] {
            // He leaves in his turn; the server is to play for him at once,
            // but he is back before it does.
            table.seat_away(EAST, at(start, second));
            assert_eq!(table.deadlines[1], Some(at(start, second)));
            assert!(table.seat_present(EAST, at(start, second), TURN, false));
            assert_eq!(
                table.deadlines[1],
                Some(at(start, 30)),
                "the clock he had, not a fresh one"
            );
        }
        assert_eq!(table.clocks_out(at(start, 30)), [EAST]);

        // Once his turn is over, the clock he left with is forgotten.
        table.seat_away(EAST, at(start, 31));
        table.start_clocks(Some(EAST), at(start, 31), TURN);
        assert_eq!(table.clocks_left[1], None);
    }

    #[test]
    fn a_player_back_within_his_hold_keeps_the_clock_he_had() {
        let start = Instant::now();
        let mut table = Table::sample();
        table.deadlines[1] = Some(at(start, 30));
        for second in [5, 10, 20] {
            table.hold_seat(EAST, at(start, second + 120));
            assert!(
                table.seat_present(EAST, at(start, second), TURN, false),
                "a return"
            );
            assert_eq!(table.deadlines[1], Some(at(start, 30)), "the clock runs on");
        }
        assert_eq!(table.clocks_out(at(start, 30)), [EAST]);
    }

    #[test]
    fn a_quick_play_players_first_arrival_is_no_return() {
        let start = Instant::now();
        let mut table = Table::sample();
        table.hold_seat(SOUTH, at(start, 120));
        assert!(!table.seat_present(SOUTH, at(start, 1), TURN, true));
        assert_eq!(table.holds[2], None, "no longer held");
        assert_eq!(table.deadlines[2], None, "no clock for a seat that need not act");
        table.hold_seat(SOUTH, at(start, 120));
        assert!(
            table.seat_present(SOUTH, at(start, 2), TURN, false),
            "a later one is"
        );
    }

    #[test]
    fn a_thinking_bot_stops_the_clock_and_a_returning_player_restarts_it() {
        let start = Instant::now();
        let mut table = Table::sample();
        table.deadlines[3] = Some(at(start, 30));
        table.start_thinking(WEST);
        assert_eq!(table.deadlines[3], None);
        assert_eq!(table.next_wake(), None);
        assert!(
            !table.seat_present(WEST, at(start, 3), TURN, false),
            "not a return"
        );
        assert_eq!(table.deadlines[3], Some(at(start, 33)));
    }

    #[test]
    fn the_seat_to_act_gets_a_players_clock_or_none_if_the_server_plays_it() {
        let start = Instant::now();
        let mut table = Table::sample();
        let first = table.game.to_act();
        assert!(table.start_clocks(None, start, TURN), "a new turn");
        for seat in Seat::ALL {
            let expected = first.contains(seat).then(|| at(start, 30));
            assert_eq!(table.deadlines[seat.index()], expected);
        }
        assert!(
            !table.start_clocks(None, at(start, 1), TURN),
            "the same turn: clocks run on"
        );

        let mut table = Table::sample();
        for seat in first.iter() {
            table.seat_away(seat, start);
        }
        table.start_clocks(None, at(start, 2), TURN);
        assert_eq!(
            table.clocks_out(at(start, 2)),
            first.iter().collect::<Vec<_>>(),
            "the server acts at once"
        );
    }

    #[test]
    fn a_finished_game_runs_no_clock_and_holds_no_seat() {
        let start = Instant::now();
        let mut table = Table::sample();
        table.deadlines[0] = Some(at(start, 1));
        table.hold_seat(EAST, at(start, 2));
        table.stop_clocks();
        assert_eq!(table.next_wake(), None);
        assert!(table.clocks_out(at(start, 100)).is_empty());
    }
}
