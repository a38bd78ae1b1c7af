//! A game read back from the store: replayed to where it stopped, and
//! the room set up around it.

use std::sync::Arc;

use spades_engine::{Action, BySeat, Event, Game, RuleSet, Seat, SeatSet};
use spades_protocol::ws::{MessageId, TableSpeed};
use spades_store::{PlayerStats, RoomSeqs, StoredGame};
use tokio::time::Instant;
use uuid::Uuid;

use crate::PlayerRef;

use super::member::RECENT_IDS;
use super::seat_life::SeatLife;
use super::{Applied, Member, Refusal, Room, Settings, Stage, Table};

/// A game read back from the store, replayed to where it stopped.
#[derive(Debug)]
pub struct Resumed {
    pub(super) id: Uuid,
    pub(super) number: u32,
    pub(super) seed: u64,
    pub(super) game: Game,
    /// How many actions the stored game holds.
    pub(super) actions: u32,
    pub(super) stats: BySeat<PlayerStats>,
    /// The players in seat order, one per seat of the game.
    pub(super) players: Vec<PlayerRef>,
    /// Each seat's last requests that made actions, oldest first, with the
    /// room's event after each: a player who sends one again after the
    /// restart is answered as before it.
    pub(super) requests: RecentRequests,
    /// The room's opening, made in the store before the game was read, so
    /// that no write of an earlier owner can land after the read.
    pub(super) opened: RoomSeqs,
}

impl Resumed {
    /// Replays a stored game, read after its room was `opened`. Fails if
    /// the stored rules or actions do not make a game.
    pub fn from_store(
        stored: StoredGame,
        owner: PlayerRef,
        opened: RoomSeqs,
    ) -> Result<(Settings, Resumed), String> {
        let (moves, requests) = read_actions(&stored)?;
        let rules: RuleSet =
            serde_json::from_value(stored.rules).map_err(|error| format!("rules: {error}"))?;
        // Each hand's bids are counted as it ends, as they were in play.
        let mut stats = BySeat::<PlayerStats>::default();
        let game = Game::replay_observed(rules, stored.seed, &moves, |game, events| {
            if events
                .iter()
                .any(|event| matches!(event, Event::HandEnded { .. }))
            {
                count_hand(game, &mut stats);
            }
        })
        .map_err(|error| error.to_string())?;
        let actions = stored.actions.len() as u32;
        let seats = rules.seating().seat_count();
        if stored.players.len() != seats {
            return Err(format!(
                "{} players stored for {seats} seats",
                stored.players.len()
            ));
        }
        let players: Vec<PlayerRef> = stored
            .players
            .iter()
            .map(|player| PlayerRef::new(player.account_id, &player.name))
            .collect();
        // The room's bot level is not stored with the game; its bots say
        // what it was (the strongest of them, when the owner mixed levels).
        let bots = players
            .iter()
            .filter_map(|player| player.bot)
            .max()
            .unwrap_or_default();
        let summary = stored.summary;
        let tournament = stored.tournament;
        let settings = Settings {
            tournament,
            code: summary.room.as_str().into(),
            name: summary.room_name,
            private: summary.private,
            rated: summary.rated,
            rules,
            owner,
            bots,
            speed: TableSpeed::from_name(&summary.speed),
            // The game is dealt already, from the seed stored with it.
            deal_seed: None,
        };
        let resumed = Resumed {
            id: summary.id,
            number: summary.number.max(0) as u32,
            seed: stored.seed,
            game,
            actions,
            stats,
            players,
            requests,
            opened,
        };
        Ok((settings, resumed))
    }

    pub fn players(&self) -> &[PlayerRef] {
        &self.players
    }
}

/// The stored actions as moves to replay, and each seat's latest request
/// ids with the action and event number they were answered with.
fn read_actions(stored: &StoredGame) -> Result<(Vec<(Seat, Action)>, RecentRequests), String> {
    let mut moves = Vec::with_capacity(stored.actions.len());
    let mut requests: RecentRequests = Default::default();
    for (index, stored_action) in stored.actions.iter().enumerate() {
        let seat = stored_action.seat;
        let seat = Seat::new(seat).ok_or_else(|| format!("action {index}: no seat {seat}"))?;
        let action: Action = stored_action
            .action
            .parse()
            .map_err(|error| format!("action {index}: {error}"))?;
        moves.push((seat, action));
        // An id that does not read back only costs its retry the duplicate
        // answer.
        let request = stored_action
            .request_id
            .as_deref()
            .and_then(|id| serde_json::from_str::<MessageId>(id).ok());
        if let (Some(id), Some(seq)) = (request, stored_action.room_seq) {
            let recent = &mut requests[seat];
            if recent.len() == RECENT_IDS {
                recent.remove(0);
            }
            recent.push((id, action, seq));
        }
    }
    Ok((moves, requests))
}

/// Each seat's latest request ids, with the action and event number each
/// was answered with.
pub(super) type RecentRequests = BySeat<Vec<(MessageId, Action, u64)>>;

/// Adds a finished hand to each player's counts: a number bid, and whether
/// his team made its contract; a nil tried, and whether it was made.
pub(super) fn count_hand(game: &Game, stats: &mut BySeat<PlayerStats>) {
    let (Some(record), Some(scores)) = (game.last_hand(), game.last_hand_scores()) else {
        return;
    };
    for bid in &record.bids {
        let seat = bid.seat;
        let counts = &mut stats[seat];
        if bid.bid == 0 {
            counts.nils_tried += 1;
            counts.nils_made += u32::from(record.tricks_won[seat] == 0);
        } else {
            let team = scores[game.rules().seating().team_of(seat)];
            counts.bids_total += 1;
            counts.bids_made += u32::from(team.counted_tricks >= team.contract);
        }
    }
}

impl Room {
    /// Sets the room up around a game resumed from the store: its players
    /// hold their seats, disconnected, until they come back.
    pub(super) fn resume(&mut self, resumed: Resumed) {
        let hold = Instant::now() + self.context.config.seat_hold;
        let mut bots = SeatSet::EMPTY;
        for ((seat, player), requests) in Seat::ALL.into_iter().zip(resumed.players).zip(resumed.requests.0) {
            if player.bot.is_some() {
                bots.insert(seat);
            }
            let key = self.seat_member(seat, player.renumbered(seat.index() as u8));
            if let Some(member) = self.members.get_mut(&key) {
                for (id, action, seq) in requests {
                    member.remember(&id, &Applied::Action(action), seq);
                }
            }
        }
        self.games = resumed.number + 1;
        let mut table = Table {
            id: resumed.id,
            game: resumed.game,
            number: resumed.number,
            seed: resumed.seed,
            stats: resumed.stats,
            actions: resumed.actions,
            lives: SeatLife::new_game(bots),
            rematch: Vec::new(),
            rematch_same_deals: false,
        };
        for seat in Seat::ALL.into_iter().filter(|&seat| !bots.contains(seat)) {
            table.hold_seat(seat, hold);
        }
        self.stage = Stage::Playing(table);
        // Clocks start afresh; nobody is connected to be told yet.
        self.schedule_turn(None);
    }

    /// Sets up a quick-play table and starts its game: the players' seats
    /// are held for them, as after a restart, until they come in.
    pub(super) fn open_matched(&mut self, players: Vec<PlayerRef>) {
        for (seat, player) in Seat::ALL.into_iter().zip(players) {
            let key = self.seat_member(seat, player);
            if let Some(member) = self.members.get_mut(&key) {
                member.fresh = !member.is_bot();
            }
        }
        if let Err(Refusal(code, message)) = self.start_game() {
            tracing::warn!(room = %self.settings.code, ?code, message, "a quick-play game could not start");
            return;
        }
        let hold = Instant::now() + self.context.config.seat_hold;
        let seats = self.seat_list();
        if let Some(table) = self.stage.table_mut() {
            for seat in seats {
                if !table.is_bot(seat) {
                    table.hold_seat(seat, hold);
                }
            }
        }
    }

    /// Seats a member who is not connected (yet): a player of a resumed or
    /// quick-play game, or a bot. Returns his key.
    pub(super) fn seat_member(&mut self, seat: Seat, player: PlayerRef) -> Arc<str> {
        let key = player.id.clone();
        let mut member = Member::new(player, None);
        member.seat = Some(seat);
        self.members.insert(key.clone(), member);
        self.seats[seat] = Some(key.clone());
        key
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;
    use spades_engine::{Deck, Preset, Seat};
    use spades_store::{GamePlayer, GameSummary, StoredAction, StoredGame};
    use uuid::Uuid;

    use super::Resumed;
    use crate::PlayerRef;

    /// A stored game of the `new-york` preset from before it took the rule
    /// book's pack and a team maximum (`testdata/old-new-york-game.json`
    /// says how it was made) replays to the same moment: its stored rule
    /// set keeps the pack it was dealt from.
    #[test]
    fn a_game_stored_under_the_old_new_york_preset_replays_the_same() {
        let fixture: Value =
            serde_json::from_str(include_str!("../testdata/old-new-york-game.json")).unwrap();
        let actions = fixture["actions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|action| StoredAction {
                seat: action[0].as_u64().unwrap() as u8,
                action: action[1].as_str().unwrap().to_string(),
                request_id: None,
                room_seq: None,
            })
            .collect();
        let stored = StoredGame {
            summary: GameSummary {
                id: Uuid::new_v4(),
                room: "OLDNY1".into(),
                room_name: "New York, stored".into(),
                private: false,
                rated: false,
                speed: "normal".into(),
                number: 0,
                status: "playing".into(),
                started_at: time::OffsetDateTime::UNIX_EPOCH,
                finished_at: None,
                winner: None,
                score0: None,
                score1: None,
                score2: None,
                score3: None,
            },
            owner: Uuid::new_v4(),
            rules: fixture["rules"].clone(),
            seed: fixture["seed"].as_u64().unwrap(),
            players: (0..4)
                .map(|seat| GamePlayer {
                    seat,
                    account_id: Uuid::new_v4(),
                    name: format!("Player {seat}"),
                    abandoned: false,
                })
                .collect(),
            actions,
            tournament: None,
            same_deals_as: None,
            played_again: Vec::new(),
        };
        let owner = PlayerRef::new(stored.owner, "Owner");
        let opened = spades_store::RoomSeqs {
            base: 0,
            reserved: 1000,
            epoch: 1,
        };
        let (settings, resumed) =
            Resumed::from_store(stored, owner, opened).expect("the stored game replays");
        // It is no longer the preset's rule set, and keeps its pack.
        assert_eq!(settings.rules.deck, Deck::NewYork);
        assert_eq!(settings.rules.max_team_bid, None);
        assert_ne!(settings.rules, Preset::NewYork.rules());
        let game = &resumed.game;
        assert_eq!(
            u64::from(game.hand_number()),
            fixture["hand_number"].as_u64().unwrap()
        );
        assert_eq!(serde_json::to_value(game.score()).unwrap(), fixture["score"]);
        assert_eq!(
            serde_json::to_value(game.last_hand()).unwrap(),
            fixture["last_hand"]
        );
        let hands = Seat::ALL.map(|seat| game.hand(seat));
        assert_eq!(serde_json::to_value(hands).unwrap(), fixture["hands_now"]);
    }
}
