//! The seats and the game being played: sitting, standing, bots seated by
//! the owner, and starting a game.

use std::sync::Arc;

use spades_engine::{BySeat, Game, Seat, SeatSet};
use spades_protocol::event::EventKind;
use spades_protocol::ws::{BotLevel, ErrorCode};
use spades_store::{NewGame, PlayerStats, Write};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::PlayerRef;
use crate::maintenance_words;
use crate::unavailable::Unavailable;

use super::seat_life::SeatLife;
use super::{LobbyNote, Member, Refusal, Room, TableNote};

/// Games started by this process, for seeds derived from `RoomConfig::seed`.
static GAMES_STARTED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The game being played, with its clocks.
#[derive(Debug)]
pub(super) struct Table {
    /// The game's id in the store.
    pub(super) id: Uuid,
    pub(super) game: Game,
    pub(super) number: u32,
    pub(super) seed: u64,
    /// Each seat's counts so far, stored when the game ends.
    pub(super) stats: BySeat<PlayerStats>,
    /// How many actions the game has taken. The actions themselves go to
    /// the journal as they happen; keeping them here as well would grow
    /// every room by a few kilobytes a hand for nothing.
    pub(super) actions: u32,
    /// Each seat's life: its player there, held, away or a bot, and its
    /// turn clock (see `seat_life.rs`).
    pub(super) lives: BySeat<SeatLife>,
    /// The players who asked, once the game is over, for another game with
    /// the same seats (see `rematch.rs`).
    pub(super) rematch: Vec<Arc<str>>,
    /// Whether the rematch asked for plays the same deals again.
    pub(super) rematch_same_deals: bool,
}

/// Where a room's game is. A game over stays, for its final view and
/// scores, until the next one starts.
#[derive(Debug, Default)]
pub(super) enum Stage {
    #[default]
    Waiting,
    Playing(Table),
    Finished(Table),
}

impl Stage {
    /// The game being played, if one is.
    pub(super) fn playing(&self) -> Option<&Table> {
        match self {
            Stage::Playing(table) => Some(table),
            _ => None,
        }
    }

    pub(super) fn playing_mut(&mut self) -> Option<&mut Table> {
        match self {
            Stage::Playing(table) => Some(table),
            _ => None,
        }
    }

    /// The last game, being played or over.
    pub(super) fn table(&self) -> Option<&Table> {
        match self {
            Stage::Waiting => None,
            Stage::Playing(table) | Stage::Finished(table) => Some(table),
        }
    }

    pub(super) fn table_mut(&mut self) -> Option<&mut Table> {
        match self {
            Stage::Waiting => None,
            Stage::Playing(table) | Stage::Finished(table) => Some(table),
        }
    }

    /// The game being played is over. Nothing changes otherwise.
    pub(super) fn finish(&mut self) {
        *self = match std::mem::take(self) {
            Stage::Playing(table) => Stage::Finished(table),
            other => other,
        };
    }
}

impl Room {
    /// Empties a seat and forgets its player if he is not connected.
    pub(super) fn free_seat(&mut self, seat: Seat) {
        let Some(player) = self.seats[seat].take() else {
            return;
        };
        if let Some(member) = self.members.get_mut(&player) {
            member.seat = None;
            if member.outbox.is_none() {
                self.members.remove(&player);
            }
        }
        let _ = self.context.lobby.send(LobbyNote::Unseated {
            player,
            code: self.settings.code.clone(),
        });
        self.emit_seats();
    }

    pub(super) fn member_seat(&self, player: &str) -> Result<Option<Seat>, Refusal> {
        self.members
            .get(player)
            .map(|member| member.seat)
            .ok_or_else(|| Refusal::new(ErrorCode::NotInRoom, "you are not in this room"))
    }

    pub(super) fn sit(&mut self, player: &str, wanted: Option<Seat>) -> Result<(), Refusal> {
        let current = self.member_seat(player)?;
        if self.playing() {
            return match current {
                Some(seat) if wanted.is_none_or(|wanted| wanted == seat) => Ok(()),
                _ => Err(Refusal::new(
                    ErrorCode::GameInProgress,
                    "seats cannot change while a game is being played",
                )),
            };
        }
        self.seat_exists(wanted)?;
        let free = |seat: Seat| self.seats[seat].is_none();
        let seat = match wanted {
            Some(seat) if current == Some(seat) => return Ok(()),
            Some(seat) if free(seat) => seat,
            Some(seat) => return Err(Refusal::new(ErrorCode::SeatTaken, format!("{seat} is taken"))),
            None if current.is_some() => return Ok(()),
            None => self
                .seat_list()
                .find(|&seat| free(seat))
                .ok_or_else(|| Refusal::new(ErrorCode::SeatTaken, "every seat is taken"))?,
        };
        if let Some(old) = current {
            self.seats[old] = None;
        }
        let key: Arc<str> = self
            .members
            .get_key_value(player)
            .expect("checked above")
            .0
            .clone();
        self.seats[seat] = Some(key.clone());
        if let Some(member) = self.members.get_mut(player) {
            member.seat = Some(seat);
        }
        let _ = self.context.lobby.send(LobbyNote::Seated {
            player: key,
            code: self.settings.code.clone(),
        });
        self.emit_seats();
        Ok(())
    }

    pub(super) fn stand(&mut self, player: &str) -> Result<(), Refusal> {
        let seat = self
            .member_seat(player)?
            .ok_or_else(|| Refusal::new(ErrorCode::NotSeated, "you have no seat"))?;
        if self.playing() {
            return Err(Refusal::new(
                ErrorCode::GameInProgress,
                "you cannot stand up during a game; leave the room instead",
            ));
        }
        self.seats[seat] = None;
        if let Some(member) = self.members.get_mut(player) {
            member.seat = None;
        }
        if let Some((player, _)) = self.members.get_key_value(player) {
            let _ = self.context.lobby.send(LobbyNote::Unseated {
                player: player.clone(),
                code: self.settings.code.clone(),
            });
        }
        self.emit_seats();
        Ok(())
    }

    pub(super) fn start(&mut self, player: &str) -> Result<(), Refusal> {
        self.member_seat(player)?
            .ok_or_else(|| Refusal::new(ErrorCode::NotSeated, "only a seated player can start the game"))?;
        if let Some(maintenance) = self.context.policy.maintenance() {
            return Err(Refusal::new(
                ErrorCode::Maintenance,
                maintenance_words(&maintenance),
            ));
        }
        self.start_game()
    }

    /// Starts a game with the players in the seats.
    pub(super) fn start_game(&mut self) -> Result<(), Refusal> {
        self.start_game_dealing(None)
    }

    /// Starts a game with the players in the seats, dealt from a new seed
    /// or, to play a finished game's deals again, from that game's (`id`,
    /// `seed`). A game on known deals is never rated.
    pub(super) fn start_game_dealing(&mut self, same_deals: Option<(Uuid, u64)>) -> Result<(), Refusal> {
        self.may_start()?;
        let (players, bots) = self.players_and_bots()?;
        let given = same_deals.map(|(_, seed)| seed).or(self.settings.deal_seed);
        let seed = match (given, self.context.config.seed) {
            (Some(seed), _) => seed,
            (None, Some(base)) => {
                base.wrapping_add(GAMES_STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
            }
            // Players must not be able to guess the seed from the cards they
            // see or from earlier games, so it comes from the operating
            // system's secure generator.
            (None, None) => getrandom::u64().map_err(|error| {
                Refusal::new(
                    ErrorCode::Internal,
                    format!("no random seed to deal from: {error}"),
                )
            })?,
        };
        let game = Game::new(self.settings.rules, seed)
            .map_err(|error| Refusal::new(ErrorCode::Internal, error.to_string()))?;
        let number = self.games;
        self.games += 1;
        let id = Uuid::new_v4();
        self.pending.push(Write::Started(NewGame {
            id,
            room: self.code(),
            room_name: self.settings.name.clone(),
            private: self.settings.private,
            owner: self.settings.owner.account,
            number,
            rules: serde_json::to_value(self.settings.rules).unwrap_or_default(),
            seed,
            players,
            started_at: OffsetDateTime::now_utc(),
            tournament: self.settings.tournament,
            rated: self.settings.rated && same_deals.is_none(),
            speed: self.settings.speed.name().into(),
            same_deals_as: same_deals.map(|(id, _)| id),
        }));
        self.reported = self.settings.tournament.map(TableNote::Started);
        self.stage = Stage::Playing(Table {
            id,
            game,
            number,
            seed,
            stats: BySeat::default(),
            actions: 0,
            lives: SeatLife::new_game(bots),
            rematch: Vec::new(),
            rematch_same_deals: false,
        });
        self.announce_start(number, id);
        Ok(())
    }

    /// Tells the members that the game started, and deals its first hand.
    fn announce_start(&mut self, number: u32, id: Uuid) {
        let (rules, game_id) = (self.settings.rules, id.to_string());
        let deal_commitment = self
            .stage
            .table()
            .map(|table| spades_engine::deal_commitment(&game_id, table.seed))
            .expect("a game was just started");
        self.emit(SeatSet::EMPTY, |_| EventKind::GameStarted {
            game: number,
            game_id: game_id.clone(),
            deal_commitment: deal_commitment.clone(),
            rules,
        });
        self.emit_hand_started();
        // A first hand played without bids starts in play: the game made no
        // event for it, so the room says who leads.
        if let Some(table) = self.stage.table()
            && table.game.phase() == spades_engine::Phase::Playing
        {
            let leader = table.game.to_act().first().expect("a seat leads");
            self.emit(SeatSet::EMPTY, |_| EventKind::PlayStarted { leader });
        }
        self.schedule_turn(None);
        self.announce();
    }

    /// Whether a game may start now: every seat taken, no game on, and the
    /// server and its store ready for one.
    pub(super) fn may_start(&self) -> Result<(), Refusal> {
        if self.settings.tournament.is_some() && !matches!(self.stage, Stage::Waiting) {
            return Err(Refusal::new(
                ErrorCode::TournamentTable,
                "a tournament table plays one game; the tournament opens the next",
            ));
        }
        if self.playing() {
            return Err(Refusal::new(
                ErrorCode::GameInProgress,
                "a game is already being played",
            ));
        }
        if self.seat_list().any(|seat| self.seats[seat].is_none()) {
            return Err(Refusal::new(
                ErrorCode::NotEnoughPlayers,
                "every seat must be taken",
            ));
        }
        if self.context.lifecycle.is_draining() {
            return Err(Unavailable::ShuttingDown.into());
        }
        if self.context.journal.is_degraded() {
            return Err(Refusal::new(
                Unavailable::Store.code(),
                "storage is unavailable: games in play go on, but none can start",
            ));
        }
        Ok(())
    }

    /// Each seat's account, and the seats that bots play.
    fn players_and_bots(&self) -> Result<(Vec<Uuid>, SeatSet), Refusal> {
        let mut players = vec![Uuid::nil(); self.seat_list().count()];
        let mut bots = SeatSet::EMPTY;
        for (seat, key) in self.seated() {
            let member = self
                .members
                .get(&key)
                .ok_or_else(|| Refusal::new(ErrorCode::NotEnoughPlayers, "every seat must be taken"))?;
            players[seat.index()] = member.player.account;
            if member.is_bot() {
                bots.insert(seat);
            }
        }
        Ok((players, bots))
    }

    /// Checks that `player` owns the room and that no game is being played.
    pub(super) fn owner_between_games(&self, player: &str) -> Result<(), Refusal> {
        self.member_seat(player)?;
        if self.settings.tournament.is_some() {
            return Err(Refusal::new(
                ErrorCode::TournamentTable,
                "the tournament seats its tables",
            ));
        }
        if *self.settings.owner.id != *player {
            return Err(Refusal::new(
                ErrorCode::NotOwner,
                "only the room's owner can do that",
            ));
        }
        if self.playing() {
            return Err(Refusal::new(
                ErrorCode::GameInProgress,
                "bots can be added and removed only between games",
            ));
        }
        Ok(())
    }

    /// Refuses a seat the room's game does not have: seat 3 of a
    /// three-player room.
    fn seat_exists(&self, seat: Option<Seat>) -> Result<(), Refusal> {
        match seat {
            Some(seat) if seat.index() >= self.seat_list().count() => Err(Refusal::new(
                ErrorCode::NoSuchSeat,
                format!("{seat} does not exist: this table seats three, in seats 0 to 2"),
            )),
            _ => Ok(()),
        }
    }

    pub(super) fn add_bot(
        &mut self,
        player: &str,
        wanted: Option<Seat>,
        level: Option<BotLevel>,
    ) -> Result<(), Refusal> {
        self.owner_between_games(player)?;
        self.seat_exists(wanted)?;
        let free = |seat: Seat| self.seats[seat].is_none();
        let seat = match wanted {
            Some(seat) if free(seat) => seat,
            Some(seat) => return Err(Refusal::new(ErrorCode::SeatTaken, format!("{seat} is taken"))),
            None => self
                .seat_list()
                .find(|&seat| free(seat))
                .ok_or_else(|| Refusal::new(ErrorCode::SeatTaken, "every seat is taken"))?,
        };
        let level = level.unwrap_or(self.settings.bots);
        self.seat_member(seat, PlayerRef::bot(level, seat.index() as u8));
        self.emit_seats();
        Ok(())
    }

    pub(super) fn remove_bot(&mut self, player: &str, seat: Seat) -> Result<(), Refusal> {
        self.owner_between_games(player)?;
        self.seat_exists(Some(seat))?;
        let is_bot = self.seats[seat]
            .as_ref()
            .and_then(|key| self.members.get(key))
            .is_some_and(Member::is_bot);
        if !is_bot {
            return Err(Refusal::new(ErrorCode::NotABot, format!("no bot sits in {seat}")));
        }
        if let Some(key) = self.seats[seat].take() {
            self.members.remove(&key);
        }
        self.emit_seats();
        Ok(())
    }
}

#[cfg(test)]
impl Table {
    /// A table at the start of a classic game, for tests of its states.
    pub(super) fn sample() -> Table {
        Table {
            id: Uuid::nil(),
            game: Game::new(spades_engine::RuleSet::CLASSIC, 7).expect("classic rules make a game"),
            number: 0,
            seed: 7,
            stats: BySeat::default(),
            actions: 0,
            lives: SeatLife::new_game(SeatSet::EMPTY),
            rematch: Vec::new(),
            rematch_same_deals: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_room_waits_then_plays_then_keeps_the_game_it_finished() {
        let mut stage = Stage::default();
        assert!(stage.table().is_none() && stage.playing().is_none());
        stage.finish();
        assert!(matches!(stage, Stage::Waiting), "no game to finish");

        stage = Stage::Playing(Table::sample());
        assert!(stage.playing().is_some());
        stage.playing_mut().expect("playing").actions = 3;

        stage.finish();
        assert!(stage.playing().is_none(), "a finished game is not played");
        assert_eq!(stage.table().map(|table| table.actions), Some(3), "but kept");
        stage.finish();
        assert!(
            matches!(stage, Stage::Finished(_)),
            "finishing again changes nothing"
        );
    }
}
