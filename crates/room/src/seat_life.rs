//! A seat's life at the table: present, held after a lost connection,
//! away (played by the server), a bot's, or thinking (a strong bot
//! deciding for it), with the turn clock that runs while it must act.
//!
//! Each seat's life is one value ([`SeatLife`]), kept by seat in the
//! table. Its transitions only change that value and take the time as an
//! argument, so that they are tested without a room, sockets or a clock;
//! the room announces what they return.

use std::time::Duration;

use spades_engine::{BySeat, Seat, SeatSet};
use tokio::time::Instant;

use super::Table;

/// Whether a seat's player is there, as the table sees him.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Presence {
    /// He plays the seat himself (or nobody has left it).
    #[default]
    Present,
    /// His connection was lost: the seat waits for him until `until`, and
    /// his clock runs on meanwhile.
    Held { until: Instant },
    /// He is gone for good (he left, or his hold ended): the server plays
    /// the seat. `clock_left` is the clock he had when he went away in his
    /// turn, which he gets back if he returns within that turn, so that
    /// leaving and joining again cannot buy a fresh one.
    Away { clock_left: Option<Instant> },
}

/// One seat's life in a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct SeatLife {
    presence: Presence,
    /// A bot holds the seat for the whole game.
    bot: bool,
    /// A strong bot is deciding for the seat, away from the room's task;
    /// the seat's clock is stopped until its decision comes.
    thinking: bool,
    /// When the seat's turn clock runs out, while it must act.
    deadline: Option<Instant>,
}

impl SeatLife {
    /// Every seat of a new game: `bots` are the bots' seats.
    pub(super) fn new_game(bots: SeatSet) -> BySeat<SeatLife> {
        BySeat::from_fn(|seat| SeatLife {
            bot: bots.contains(seat),
            ..SeatLife::default()
        })
    }

    fn is_away(&self) -> bool {
        matches!(self.presence, Presence::Away { .. })
    }

    /// Forgets the clock a player left with: his turn is over.
    fn forget_clock_left(&mut self) {
        if let Presence::Away { clock_left } = &mut self.presence {
            *clock_left = None;
        }
    }
}

impl Table {
    /// Whether the seat's player is away, and the server plays for him.
    pub(super) fn is_away(&self, seat: Seat) -> bool {
        self.lives[seat].is_away()
    }

    /// Whether a bot holds the seat.
    pub(super) fn is_bot(&self, seat: Seat) -> bool {
        self.lives[seat].bot
    }

    /// Seats the server plays for: bots, and players who are away.
    pub(super) fn played_by_server(&self) -> SeatSet {
        let mut seats = SeatSet::EMPTY;
        for (seat, life) in self.lives.iter() {
            if life.bot || life.is_away() {
                seats.insert(seat);
            }
        }
        seats
    }

    /// How long each seat's clock has left at `now`.
    pub(super) fn clocks(&self, now: Instant) -> BySeat<Option<Duration>> {
        BySeat::from_fn(|seat| {
            self.lives[seat]
                .deadline
                .map(|at| at.saturating_duration_since(now))
        })
    }

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
        let life = &mut self.lives[seat];
        let (was_away, clock_left) = match life.presence {
            Presence::Away { clock_left } => (true, clock_left),
            Presence::Present | Presence::Held { .. } => (false, None),
        };
        let returned = was_away || (matches!(life.presence, Presence::Held { .. }) && !first_arrival);
        life.presence = Presence::Present;
        if (was_away && life.deadline.is_some()) || life.thinking {
            life.deadline = Some(clock_left.unwrap_or(now + turn_time));
        }
        returned
    }

    /// Starts the clock of every seat that must act and has none,
    /// `bot_wait` from `now` for a seat the server plays and `turn_time`
    /// for a player, and stops the others. `acted` just acted: if it must
    /// act again, its clock starts afresh. Returns whether a clock started,
    /// which is a new turn to announce.
    pub(super) fn start_clocks(
        &mut self,
        acted: Option<Seat>,
        now: Instant,
        turn_time: Duration,
        bot_wait: Duration,
    ) -> bool {
        if let Some(seat) = acted {
            let life = &mut self.lives[seat];
            life.deadline = None;
            life.forget_clock_left();
        }
        let acting = self.game.to_act();
        let server_plays = self.played_by_server();
        let mut started = false;
        for seat in Seat::ALL {
            let life = &mut self.lives[seat];
            if !acting.contains(seat) {
                life.deadline = None;
                // His turn is over: a clock he left with is no longer his.
                life.forget_clock_left();
            } else if life.deadline.is_none() {
                let wait = if server_plays.contains(seat) {
                    bot_wait
                } else {
                    turn_time
                };
                life.deadline = Some(now + wait);
                started = true;
            }
        }
        started
    }

    /// The seat's player lost his connection: the seat waits for him until
    /// `until`. A seat already played by the server stays so.
    pub(super) fn hold_seat(&mut self, seat: Seat, until: Instant) {
        let life = &mut self.lives[seat];
        if !life.is_away() {
            life.presence = Presence::Held { until };
        }
    }

    /// The seat's player is gone for good (he left, or his hold ended):
    /// the server plays the seat, at once if it must act.
    pub(super) fn seat_away(&mut self, seat: Seat, now: Instant) {
        let life = &mut self.lives[seat];
        let clock_left = match life.presence {
            // Gone already: the clock he left with stays his.
            Presence::Away { clock_left } => clock_left,
            // A bot was deciding for the seat: no clock of his own ran.
            _ if life.thinking => None,
            // The clock of his own that was running, kept for his return.
            Presence::Present | Presence::Held { .. } => life.deadline,
        };
        life.presence = Presence::Away { clock_left };
        if life.deadline.is_some() {
            life.deadline = Some(now);
        }
    }

    /// Held seats whose hold has ended by `now` go to the server.
    pub(super) fn end_holds(&mut self, now: Instant) {
        for seat in Seat::ALL {
            if matches!(self.lives[seat].presence, Presence::Held { until } if until <= now) {
                self.seat_away(seat, now);
            }
        }
    }

    /// The seats whose clock has run out by `now`.
    pub(super) fn clocks_out(&self, now: Instant) -> Vec<Seat> {
        self.lives
            .iter()
            .filter(|(_, life)| life.deadline.is_some_and(|at| at <= now))
            .map(|(seat, _)| seat)
            .collect()
    }

    /// When the table next needs the room: a clock or a hold that ends.
    pub(super) fn next_wake(&self) -> Option<Instant> {
        self.lives
            .0
            .iter()
            .flat_map(|life| {
                let hold = match life.presence {
                    Presence::Held { until } => Some(until),
                    Presence::Present | Presence::Away { .. } => None,
                };
                [life.deadline, hold]
            })
            .flatten()
            .min()
    }

    /// A strong bot starts deciding for the seat, away from the room: the
    /// seat's clock stops until its decision comes.
    pub(super) fn start_thinking(&mut self, seat: Seat) {
        let life = &mut self.lives[seat];
        life.thinking = true;
        life.deadline = None;
    }

    /// The strong bot deciding for the seat has answered.
    pub(super) fn stop_thinking(&mut self, seat: Seat) {
        self.lives[seat].thinking = false;
    }

    /// The game is over: no clock runs and no seat is held.
    pub(super) fn stop_clocks(&mut self) {
        for seat in Seat::ALL {
            let life = &mut self.lives[seat];
            life.deadline = None;
            life.forget_clock_left();
            if let Presence::Held { .. } = life.presence {
                life.presence = Presence::Present;
            }
        }
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
        table.lives[NORTH].deadline = Some(at(start, 30));
        table.hold_seat(NORTH, at(start, 60));
        assert_eq!(table.next_wake(), Some(at(start, 30)), "the clock ends first");

        table.end_holds(at(start, 59));
        assert!(!table.is_away(NORTH), "still held");

        table.end_holds(at(start, 60));
        assert!(table.is_away(NORTH), "played by the server from then");
        assert!(!matches!(table.lives[NORTH].presence, Presence::Held { .. }));
        assert_eq!(
            table.lives[NORTH].deadline,
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
        table.lives[EAST].deadline = Some(at(start, 5));
        assert!(table.is_away(EAST));

        assert!(table.seat_present(EAST, at(start, 5), TURN, false), "a return");
        assert!(!table.is_away(EAST));
        assert_eq!(table.lives[EAST].deadline, Some(at(start, 35)));
        assert!(table.clocks_out(at(start, 34)).is_empty());
    }

    #[test]
    fn leaving_and_joining_again_gives_back_the_clock_he_left_with() {
        let start = Instant::now();
        let mut table = Table::sample();
        table.lives[EAST].deadline = Some(at(start, 30));
        for second in [3, 10, 29] {
            // He leaves in his turn; the server is to play for him at once,
            // but he is back before it does.
            table.seat_away(EAST, at(start, second));
            assert_eq!(table.lives[EAST].deadline, Some(at(start, second)));
            assert!(table.seat_present(EAST, at(start, second), TURN, false));
            assert_eq!(
                table.lives[EAST].deadline,
                Some(at(start, 30)),
                "the clock he had, not a fresh one"
            );
        }
        assert_eq!(table.clocks_out(at(start, 30)), [EAST]);

        // Once his turn is over, the clock he left with is forgotten.
        table.seat_away(EAST, at(start, 31));
        table.start_clocks(Some(EAST), at(start, 31), TURN, Duration::ZERO);
        assert_eq!(table.lives[EAST].presence, Presence::Away { clock_left: None });
    }

    #[test]
    fn a_player_back_within_his_hold_keeps_the_clock_he_had() {
        let start = Instant::now();
        let mut table = Table::sample();
        table.lives[EAST].deadline = Some(at(start, 30));
        for second in [5, 10, 20] {
            table.hold_seat(EAST, at(start, second + 120));
            assert!(
                table.seat_present(EAST, at(start, second), TURN, false),
                "a return"
            );
            assert_eq!(
                table.lives[EAST].deadline,
                Some(at(start, 30)),
                "the clock runs on"
            );
        }
        assert_eq!(table.clocks_out(at(start, 30)), [EAST]);
    }

    #[test]
    fn a_quick_play_players_first_arrival_is_no_return() {
        let start = Instant::now();
        let mut table = Table::sample();
        table.hold_seat(SOUTH, at(start, 120));
        assert!(!table.seat_present(SOUTH, at(start, 1), TURN, true));
        assert_eq!(table.lives[SOUTH].presence, Presence::Present, "no longer held");
        assert_eq!(
            table.lives[SOUTH].deadline, None,
            "no clock for a seat that need not act"
        );
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
        table.lives[WEST].deadline = Some(at(start, 30));
        table.start_thinking(WEST);
        assert_eq!(table.lives[WEST].deadline, None);
        assert_eq!(table.next_wake(), None);
        assert!(
            !table.seat_present(WEST, at(start, 3), TURN, false),
            "not a return"
        );
        assert_eq!(table.lives[WEST].deadline, Some(at(start, 33)));
    }

    #[test]
    fn the_seat_to_act_gets_a_players_clock_or_none_if_the_server_plays_it() {
        let start = Instant::now();
        let mut table = Table::sample();
        let first = table.game.to_act();
        assert!(
            table.start_clocks(None, start, TURN, Duration::ZERO),
            "a new turn"
        );
        for seat in Seat::ALL {
            let expected = first.contains(seat).then(|| at(start, 30));
            assert_eq!(table.lives[seat].deadline, expected);
        }
        assert!(
            !table.start_clocks(None, at(start, 1), TURN, Duration::ZERO),
            "the same turn: clocks run on"
        );

        let mut table = Table::sample();
        for seat in first.iter() {
            table.seat_away(seat, start);
        }
        table.start_clocks(None, at(start, 2), TURN, Duration::ZERO);
        assert_eq!(
            table.clocks_out(at(start, 2)),
            first.iter().collect::<Vec<_>>(),
            "the server acts at once"
        );

        let mut table = Table::sample();
        for seat in first.iter() {
            table.seat_away(seat, start);
        }
        table.start_clocks(None, start, TURN, Duration::from_millis(900));
        assert!(
            table.clocks_out(start + Duration::from_millis(899)).is_empty(),
            "a paced server waits"
        );
        assert_eq!(
            table.clocks_out(start + Duration::from_millis(900)),
            first.iter().collect::<Vec<_>>(),
            "and then acts"
        );
    }

    #[test]
    fn a_finished_game_runs_no_clock_and_holds_no_seat() {
        let start = Instant::now();
        let mut table = Table::sample();
        table.lives[NORTH].deadline = Some(at(start, 1));
        table.hold_seat(EAST, at(start, 2));
        table.stop_clocks();
        assert_eq!(table.next_wake(), None);
        assert!(table.clocks_out(at(start, 100)).is_empty());
    }

    #[test]
    fn a_seat_played_by_the_server_stays_so_when_a_hold_comes() {
        let start = Instant::now();
        let mut table = Table::sample();
        table.lives[NORTH].deadline = Some(at(start, 30));
        table.seat_away(NORTH, at(start, 2));
        table.hold_seat(NORTH, at(start, 60));
        assert!(table.is_away(NORTH), "still the server's to play");
        assert_eq!(table.next_wake(), Some(at(start, 2)), "and at once");
        // His return still gives back the clock he left with.
        assert!(table.seat_present(NORTH, at(start, 3), TURN, false));
        assert_eq!(table.lives[NORTH].deadline, Some(at(start, 30)));
    }

    #[test]
    fn bots_and_absent_players_are_the_servers_to_play() {
        let start = Instant::now();
        let mut table = Table::sample();
        table.lives = SeatLife::new_game([EAST].into_iter().collect());
        table.seat_away(WEST, start);
        table.hold_seat(SOUTH, at(start, 60));
        assert!(table.is_bot(EAST) && !table.is_bot(WEST));
        assert_eq!(
            table.played_by_server().iter().collect::<Vec<_>>(),
            [EAST, WEST],
            "a held seat waits for its player"
        );
    }
}
