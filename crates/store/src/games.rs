//! The games: what the journal writes ([`Write`], stored by `record.rs`),
//! the rooms' event numbers, and reading games back (unfinished ones to resume, one game
//! with its actions, a player's recent games, a game's hands).

use spades_engine::{Seat, Seating};
use sqlx::types::Json;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::{Finish, Pool, Rating, Result, Store, TableLink, rate_game};

// Column lists shared by several queries of games. They are macros so
// that each query stays one string literal, which sqlx accepts as safe
// SQL.
macro_rules! game_columns {
    () => {
        "id, room, room_name, private, rated, speed, number, status, started_at, finished_at, winner, score0, score1, score2, score3"
    };
}

/// A game as it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct NewGame {
    pub id: Uuid,
    pub room: String,
    pub room_name: String,
    pub private: bool,
    pub owner: Uuid,
    /// The game's number in its room.
    pub number: u32,
    pub rules: serde_json::Value,
    pub seed: u64,
    /// The players' accounts in seat order, one per seat of the game.
    pub players: Vec<Uuid>,
    pub started_at: OffsetDateTime,
    /// The tournament table the game is played at, if any.
    pub tournament: Option<TableLink>,
    /// Whether its table is rated: quick play, tournaments, and public
    /// rooms opened as rated.
    pub rated: bool,
    /// The speed its room was opened with (`fast`, `normal` or `slow`).
    pub speed: String,
    /// The earlier game whose deals this one plays again, if any.
    pub same_deals_as: Option<Uuid>,
}

/// One player's counts over a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlayerStats {
    pub bids_made: u32,
    pub bids_total: u32,
    pub nils_made: u32,
    pub nils_tried: u32,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq)]
pub struct FinishedGame {
    pub id: Uuid,
    /// The winning team; `None` when the game was abandoned.
    pub winner: Option<u8>,
    /// One final score per team: two with partners, four in solo.
    pub score: Vec<i32>,
    /// Who played with whom: two partnerships, or everyone alone (teams
    /// of one, numbered as their seats).
    pub seating: Seating,
    /// Seats whose players were gone for good when the game ended: a loss
    /// for them whatever their team did.
    pub abandoned: [bool; 4],
    pub stats: [PlayerStats; 4],
    pub finished_at: OffsetDateTime,
    /// The tournament table the game was played at: its result is stored
    /// with the game's.
    pub tournament: Option<TableLink>,
    /// A moderator ended the game: it moves no rating.
    pub voided: bool,
}

impl FinishedGame {
    /// The team a seat played for.
    pub fn team_of(&self, seat: usize) -> u8 {
        self.seating.team_of(Seat::ALL[seat & 3]).index() as u8
    }

    /// The result as the ratings need it.
    pub fn outcome(&self) -> Finish<'_> {
        match <&[i32; 4]>::try_from(self.score.as_slice()) {
            Ok(score) if self.seating != Seating::Partners => Finish::Solo {
                winner: self.winner,
                score,
            },
            _ => Finish::Partners { winner: self.winner },
        }
    }
}

/// One write of the game journal.
#[derive(Clone, Debug, PartialEq)]
pub enum Write {
    /// The writes of this batch that follow, up to the next fence, are made
    /// by the opening of `room` numbered `epoch` (see [`Store::open_room`]).
    /// A batch holding a fence whose room has been opened again since is
    /// refused whole with [`StoreError::Fenced`], which names the rooms.
    Fence {
        room: String,
        epoch: u64,
    },
    Started(NewGame),
    Action {
        game: Uuid,
        index: u32,
        seat: u8,
        action: String,
        /// The id the player gave the request, as its JSON; `None` for an
        /// action the server made for him.
        request_id: Option<String>,
        /// The room's last event after the action.
        room_seq: u64,
    },
    /// The room may number its events up to `seq` (see [`Store::open_room`]).
    RoomSeq {
        room: String,
        seq: u64,
    },
    Hand {
        game: Uuid,
        hand: u32,
        record: serde_json::Value,
    },
    Finished(FinishedGame),
}

/// A game as stored, for a list or a summary.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct GameSummary {
    pub id: Uuid,
    pub room: String,
    pub room_name: String,
    pub private: bool,
    /// Whether its table was rated (whether the ratings moved also depends
    /// on who played; see `Store::write`).
    pub rated: bool,
    /// The speed its room was opened with.
    pub speed: String,
    pub number: i32,
    pub status: String,
    pub started_at: OffsetDateTime,
    pub finished_at: Option<OffsetDateTime>,
    pub winner: Option<i16>,
    pub score0: Option<i32>,
    pub score1: Option<i32>,
    /// The third and fourth players' scores of a game without partners
    /// (the fourth absent with three players).
    pub score2: Option<i32>,
    pub score3: Option<i32>,
}

impl GameSummary {
    /// The final scores, one per team; `None` while the game is played.
    pub fn scores(&self) -> Option<Vec<i32>> {
        let two = [self.score0?, self.score1?];
        match (self.score2, self.score3) {
            (Some(third), Some(fourth)) => Some(vec![two[0], two[1], third, fourth]),
            (Some(third), None) => Some(vec![two[0], two[1], third]),
            _ => Some(two.to_vec()),
        }
    }
}

/// A seat of a stored game.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct GamePlayer {
    pub seat: i16,
    pub account_id: Uuid,
    pub name: String,
    pub abandoned: bool,
}

/// An action of a stored game.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredAction {
    pub seat: u8,
    pub action: String,
    /// The id the player gave the request, as its JSON, if a player sent it.
    pub request_id: Option<String>,
    /// The room's last event after the action, where it was stored.
    pub room_seq: Option<u64>,
}

/// Where a room's event numbers start when it opens, and how far it may
/// go before it must store a higher mark (see [`Store::open_room`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoomSeqs {
    /// The number before the room's first event in this opening: higher
    /// than any event it had before.
    pub base: u64,
    /// The highest number the room may give an event before it stores a
    /// new mark.
    pub reserved: u64,
    /// This opening's epoch: above every earlier opening's, so that the
    /// writes of an earlier one are refused from now on (see
    /// [`Write::Fence`]).
    pub epoch: u64,
}

/// Everything needed to resume a game: its room, rules, seed, players and
/// every action so far.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredGame {
    pub summary: GameSummary,
    pub owner: Uuid,
    pub rules: serde_json::Value,
    pub seed: u64,
    pub players: Vec<GamePlayer>,
    pub actions: Vec<StoredAction>,
    /// The tournament table the game is played at, if any.
    pub tournament: Option<TableLink>,
    /// The earlier game whose deals this one played again, if any.
    pub same_deals_as: Option<Uuid>,
    /// The later games that played this one's deals again, oldest first.
    pub played_again: Vec<Uuid>,
}

#[derive(sqlx::FromRow)]
struct GameDetails {
    owner_id: Uuid,
    rules: Json<serde_json::Value>,
    seed: i64,
    same_deals_as: Option<Uuid>,
}

#[derive(sqlx::FromRow)]
pub(crate) struct RatingRow {
    pub(crate) registered: bool,
    rating: f64,
    rating_deviation: f64,
    rating_volatility: f64,
}

impl RatingRow {
    fn rating(&self) -> Rating {
        Rating {
            rating: self.rating,
            deviation: self.rating_deviation,
            volatility: self.rating_volatility,
        }
    }
}

/// How many days back a meeting of the same four players counts against
/// the weight of their next rated game.
pub const REPEAT_WINDOW_DAYS: i64 = 7;

/// How much of the usual rating change a rated game makes, given how many
/// rated games the same four people finished together in the last
/// [`REPEAT_WINDOW_DAYS`]: the whole of it for their first, half for their
/// second, a third for their third, and so on, so that friends who play
/// each other over and over cannot farm a rating.
pub fn rating_weight(earlier_meetings: u32) -> f64 {
    1.0 / f64::from(earlier_meetings + 1)
}

/// What the end of a game adds to one of its players' account.
#[derive(Debug, PartialEq)]
pub(crate) struct PlayerResult {
    pub(crate) seat: usize,
    pub(crate) won: bool,
    pub(crate) abandoned: bool,
    pub(crate) stats: PlayerStats,
    /// The account's rating after the game: moved only when all four
    /// players were registered.
    pub(crate) rating: Rating,
}

impl FinishedGame {
    /// Each player's result, from his account as it stood before the game
    /// (`players` holds each seat with its account's rating row), so that
    /// the store only has to write what this computes.
    ///
    /// `weight` is how much of the usual rating change the game makes
    /// (see [`rating_weight`]); `None` leaves every rating as it was.
    pub(crate) fn player_results(
        &self,
        players: &[(usize, RatingRow)],
        weight: Option<f64>,
    ) -> Vec<PlayerResult> {
        let rated = weight.filter(|_| players.len() == 4).map(|weight| {
            let current: [Rating; 4] = std::array::from_fn(|i| players[i].1.rating());
            let full = rate_game(&current, &self.outcome(), &self.abandoned);
            std::array::from_fn::<Rating, 4, _>(|i| current[i].toward(full[i], weight))
        });
        players
            .iter()
            .enumerate()
            .map(|(i, (seat, row))| PlayerResult {
                seat: *seat,
                won: !self.abandoned[*seat] && self.winner == Some(self.team_of(*seat)),
                abandoned: self.abandoned[*seat],
                stats: self.stats[*seat],
                rating: rated.map_or_else(|| row.rating(), |rated| rated[i]),
            })
            .collect()
    }
}

impl Store {
    // Rooms.

    /// Opens a room, new or again: returns the number its first event in
    /// this opening comes after, above every number it used before, and
    /// stores a mark `reserve` above that. The room must store a higher
    /// mark ([`Write::RoomSeq`]) before it sends an event numbered above
    /// the mark, so that the next opening starts above whatever it sent.
    /// A room that was never opened starts at 0.
    pub async fn open_room(&self, code: &str, reserve: u64) -> Result<RoomSeqs> {
        // The upsert takes the room's row lock, so it waits for a batch of
        // the previous opening that holds it, and every batch after it
        // sees the new epoch.
        let sql = "INSERT INTO rooms (code, seq, epoch) VALUES ($1, $2, 1) \
                   ON CONFLICT (code) DO UPDATE SET seq = rooms.seq + 1 + $2, epoch = rooms.epoch + 1 \
                   RETURNING seq, epoch";
        let (reserved, epoch): (i64, i64) = on_pool!(self, pool => sqlx::query_as(sql)
            .bind(code).bind(reserve as i64).fetch_one(pool).await?);
        let reserved = reserved as u64;
        Ok(RoomSeqs {
            base: reserved - reserve,
            reserved,
            epoch: epoch as u64,
        })
    }

    /// Games that were being played when the server stopped, with all they
    /// need to be resumed.
    pub async fn unfinished_games(&self) -> Result<Vec<StoredGame>> {
        let sql = concat!(
            "SELECT ",
            game_columns!(),
            " FROM games WHERE status = 'playing' ORDER BY started_at"
        );
        let summaries = on_pool!(self, pool => sqlx::query_as::<_, GameSummary>(sql).fetch_all(pool).await?);
        let mut games = Vec::with_capacity(summaries.len());
        for summary in summaries {
            games.push(self.stored_game(summary).await?);
        }
        Ok(games)
    }

    /// The rooms of the games that were being played when the server
    /// stopped, oldest game first, each once.
    pub async fn unfinished_rooms(&self) -> Result<Vec<String>> {
        let sql = "SELECT room FROM games WHERE status = 'playing' GROUP BY room ORDER BY min(started_at)";
        Ok(on_pool!(self, pool => sqlx::query_scalar(sql).fetch_all(pool).await?))
    }

    /// The game being played in room `code`, if there is one.
    pub async fn unfinished_game_in_room(&self, code: &str) -> Result<Option<StoredGame>> {
        let sql = concat!(
            "SELECT ",
            game_columns!(),
            " FROM games WHERE status = 'playing' AND room = $1 ORDER BY started_at DESC LIMIT 1"
        );
        let summary = on_pool!(self, pool => sqlx::query_as::<_, GameSummary>(sql).bind(code).fetch_optional(pool).await?);
        match summary {
            Some(summary) => Ok(Some(self.stored_game(summary).await?)),
            None => Ok(None),
        }
    }

    /// Everything stored about one game.
    pub async fn game(&self, id: Uuid) -> Result<Option<StoredGame>> {
        let sql = concat!("SELECT ", game_columns!(), " FROM games WHERE id = $1");
        let summary = on_pool!(self, pool => sqlx::query_as::<_, GameSummary>(sql).bind(id).fetch_optional(pool).await?);
        match summary {
            Some(summary) => Ok(Some(self.stored_game(summary).await?)),
            None => Ok(None),
        }
    }

    async fn stored_game(&self, summary: GameSummary) -> Result<StoredGame> {
        let id = summary.id;
        let details = on_pool!(self, pool => sqlx::query_as::<_, GameDetails>(
            "SELECT owner_id, rules, seed, same_deals_as FROM games WHERE id = $1").bind(id).fetch_one(pool).await?);
        let played_again = on_pool!(self, pool => sqlx::query_scalar::<_, Uuid>(
            "SELECT id FROM games WHERE same_deals_as = $1 ORDER BY started_at, id").bind(id).fetch_all(pool).await?);
        let players = on_pool!(self, pool => sqlx::query_as::<_, GamePlayer>(
            "SELECT p.seat, p.account_id, a.name, p.abandoned FROM game_players p \
             JOIN accounts a ON a.id = p.account_id WHERE p.game_id = $1 ORDER BY p.seat")
            .bind(id).fetch_all(pool).await?);
        type Row = (i16, String, Option<String>, Option<i64>);
        let actions: Vec<Row> = match &self.pool {
            Pool::Postgres(pool) => {
                sqlx::query_as(
                    "SELECT seat, action, request_id, room_seq FROM game_actions WHERE game_id = $1 \
                     ORDER BY idx",
                )
                .bind(id)
                .fetch_all(pool)
                .await?
            }
            // The journal's latest actions may be in its log still, and an
            // action may be in both tables while it is being copied.
            Pool::Sqlite(pool) => {
                sqlx::query_as(
                    "SELECT seat, action, request_id, room_seq FROM (\
                     SELECT idx, seat, action, request_id, room_seq FROM game_actions WHERE game_id = $1 \
                     UNION SELECT idx, seat, action, request_id, room_seq FROM action_log \
                     WHERE game_id = $1) ORDER BY idx",
                )
                .bind(id)
                .fetch_all(pool)
                .await?
            }
        };
        let tournament = self.game_table(id).await?;
        Ok(StoredGame {
            tournament,
            summary,
            owner: details.owner_id,
            rules: details.rules.0,
            seed: details.seed as u64,
            same_deals_as: details.same_deals_as,
            played_again,
            players,
            actions: actions
                .into_iter()
                .map(|(seat, action, request_id, room_seq)| StoredAction {
                    seat: seat as u8,
                    action,
                    request_id,
                    room_seq: room_seq.map(|seq| seq as u64),
                })
                .collect(),
        })
    }

    /// Whether the deals of a game that is over must stay secret: another
    /// game dealt from the same seed is still being played, or the game was
    /// played at a duplicate tournament's table whose round is not over at
    /// every table (some may not have started yet).
    pub async fn deals_in_play(&self, game: Uuid, seed: u64) -> Result<bool> {
        let sql = "SELECT EXISTS (SELECT 1 FROM games WHERE seed = $1 AND status = 'playing') \
                   OR EXISTS (SELECT 1 FROM tournament_tables t \
                   JOIN tournaments d ON d.id = t.tournament_id AND d.format IN ('duplicate_pairs', 'duplicate_individual') \
                   JOIN tournament_tables o ON o.tournament_id = t.tournament_id AND o.stage = t.stage \
                   WHERE t.game_id = $2 AND o.status <> 'finished')";
        Ok(
            on_pool!(self, pool => sqlx::query_scalar::<_, bool>(sql).bind(seed as i64).bind(game).fetch_one(pool).await?),
        )
    }

    /// The records of a game's finished hands, in order.
    pub async fn hands(&self, game: Uuid) -> Result<Vec<serde_json::Value>> {
        let sql = "SELECT record FROM hands WHERE game_id = $1 ORDER BY hand";
        let rows: Vec<Json<serde_json::Value>> =
            on_pool!(self, pool => sqlx::query_scalar(sql).bind(game).fetch_all(pool).await?);
        Ok(rows.into_iter().map(|record| record.0).collect())
    }

    /// The ids of the games no longer being played (finished or
    /// abandoned), oldest first, from the `offset`th on: for checking every
    /// stored game's deals.
    pub async fn ended_game_ids(&self, offset: u32, limit: u32) -> Result<Vec<Uuid>> {
        let sql = "SELECT id FROM games WHERE status <> 'playing' ORDER BY started_at, id LIMIT $1 OFFSET $2";
        Ok(
            on_pool!(self, pool => sqlx::query_scalar::<_, Uuid>(sql).bind(i64::from(limit)).bind(i64::from(offset))
            .fetch_all(pool).await?),
        )
    }

    /// A player's most recent games, newest first.
    pub async fn recent_games(&self, account: Uuid, limit: u32) -> Result<Vec<GameSummary>> {
        let sql = "SELECT g.id, g.room, g.room_name, g.private, g.rated, g.speed, g.number, g.status, g.started_at, g.finished_at, \
                   g.winner, g.score0, g.score1, g.score2, g.score3 FROM games g JOIN game_players p ON p.game_id = g.id \
                   WHERE p.account_id = $1 ORDER BY g.started_at DESC LIMIT $2";
        Ok(
            on_pool!(self, pool => sqlx::query_as::<_, GameSummary>(sql).bind(account).bind(i64::from(limit))
            .fetch_all(pool).await?),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn account(registered: bool, rating: f64) -> RatingRow {
        RatingRow {
            registered,
            rating,
            rating_deviation: 100.0,
            rating_volatility: 0.06,
        }
    }

    fn partnership_win(abandoned: [bool; 4]) -> FinishedGame {
        FinishedGame {
            id: Uuid::from_u128(1),
            winner: Some(0),
            score: vec![510, 230],
            seating: Seating::Partners,
            abandoned,
            stats: std::array::from_fn(|seat| PlayerStats {
                bids_made: seat as u32,
                ..PlayerStats::default()
            }),
            finished_at: OffsetDateTime::UNIX_EPOCH,
            tournament: None,
            voided: false,
        }
    }

    #[test]
    fn a_game_of_four_registered_players_moves_every_rating() {
        let end = partnership_win([false, false, true, false]);
        let rows: Vec<(usize, RatingRow)> = (0..4).map(|seat| (seat, account(true, 1500.0))).collect();
        let results = end.player_results(&rows, Some(1.0));
        let won: Vec<bool> = results.iter().map(|result| result.won).collect();
        // Seat 2 partnered the winner but had left for good: a loss.
        assert_eq!(won, [true, false, false, false]);
        assert!(results[2].abandoned && !results[0].abandoned);
        assert_eq!(results[3].stats.bids_made, 3, "each seat's own counts");
        assert!(results[0].rating.rating > 1500.0, "{:?}", results[0].rating);
        assert!(results[1].rating.rating < 1500.0, "{:?}", results[1].rating);
        assert!(results[2].rating.rating < 1500.0, "{:?}", results[2].rating);
    }

    #[test]
    fn a_repeated_meeting_moves_ratings_by_its_weight_only() {
        let end = partnership_win([false; 4]);
        let rows: Vec<(usize, RatingRow)> = (0..4).map(|seat| (seat, account(true, 1500.0))).collect();
        let full = end.player_results(&rows, Some(rating_weight(0)));
        let third = end.player_results(&rows, Some(rating_weight(2)));
        for (full, third) in full.iter().zip(&third) {
            let (full, third) = (full.rating.rating - 1500.0, third.rating.rating - 1500.0);
            assert!((third - full / 3.0).abs() < 1e-9, "{third} is a third of {full}");
        }
        assert_eq!(rating_weight(1), 0.5);
    }

    #[test]
    fn an_unrated_game_moves_no_rating() {
        let end = partnership_win([false; 4]);
        let rows: Vec<(usize, RatingRow)> = (0..4)
            .map(|seat| (seat, account(seat != 1, 1400.0 + seat as f64)))
            .collect();
        let results = end.player_results(&rows, None);
        for (seat, result) in results.iter().enumerate() {
            assert_eq!(result.rating, rows[seat].1.rating(), "seat {seat}");
        }
        assert_eq!(
            results.iter().map(|result| result.won).collect::<Vec<_>>(),
            [true, false, true, false]
        );
    }
}
