//! The games: the journal's batches ([`Store::write`]), the rooms' event
//! numbers, and reading games back (unfinished ones to resume, one game
//! with its actions, a player's recent games, a game's hands).

use spades_engine::{Seat, Seating};
use sqlx::types::Json;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::fence::CheckFences;
use crate::{Finish, Pool, Rating, Result, Store, StoreError, TableLink, rate_game};

// Column lists shared by several queries of games. They are macros so
// that each query stays one string literal, which sqlx accepts as safe
// SQL.
macro_rules! game_columns {
    () => {
        "id, room, room_name, private, number, status, started_at, finished_at, winner, score0, score1, score2, score3"
    };
}

/// One action row of a journal batch, ready to bind.
pub(crate) struct ActionRow<'a> {
    pub(crate) game: Uuid,
    pub(crate) index: i32,
    pub(crate) seat: i16,
    pub(crate) action: &'a str,
    pub(crate) request_id: Option<&'a str>,
    pub(crate) room_seq: i64,
}

/// How each backend stores a batch of actions inside a transaction. The
/// actions are most of what the journal writes, so this is the one place
/// where the backends run different SQL.
pub(crate) trait InsertActions: sqlx::Database {
    async fn insert_actions<'e, E>(executor: E, rows: &[ActionRow<'_>]) -> Result<()>
    where
        E: sqlx::Executor<'e, Database = Self>;
}

impl InsertActions for sqlx::Postgres {
    /// One statement for the whole batch, whatever its size: the columns go
    /// as arrays, so the statement text never changes and stays prepared.
    async fn insert_actions<'e, E>(executor: E, rows: &[ActionRow<'_>]) -> Result<()>
    where
        E: sqlx::Executor<'e, Database = Self>,
    {
        let games: Vec<Uuid> = rows.iter().map(|row| row.game).collect();
        let indexes: Vec<i32> = rows.iter().map(|row| row.index).collect();
        let seats: Vec<i16> = rows.iter().map(|row| row.seat).collect();
        let actions: Vec<&str> = rows.iter().map(|row| row.action).collect();
        let requests: Vec<Option<&str>> = rows.iter().map(|row| row.request_id).collect();
        let room_seqs: Vec<i64> = rows.iter().map(|row| row.room_seq).collect();
        sqlx::query(
            "INSERT INTO game_actions (game_id, idx, seat, action, request_id, room_seq) \
             SELECT * FROM UNNEST($1::uuid[], $2::integer[], $3::smallint[], $4::text[], $5::text[], \
             $6::bigint[]) ON CONFLICT (game_id, idx) DO NOTHING",
        )
        .bind(games)
        .bind(indexes)
        .bind(seats)
        .bind(actions)
        .bind(requests)
        .bind(room_seqs)
        .execute(executor)
        .await?;
        Ok(())
    }
}

impl InsertActions for sqlx::Sqlite {
    /// SQLite runs each statement on the connection's own thread, so every
    /// statement costs two thread wake-ups: the batch goes as one JSON
    /// array that SQLite unpacks itself, in one fixed statement.
    async fn insert_actions<'e, E>(executor: E, rows: &[ActionRow<'_>]) -> Result<()>
    where
        E: sqlx::Executor<'e, Database = Self>,
    {
        type Row<'a> = (String, i32, i16, &'a str, Option<&'a str>, i64);
        let batch: Vec<Row<'_>> = rows
            .iter()
            .map(|row| {
                let game = row.game.simple().to_string();
                (
                    game,
                    row.index,
                    row.seat,
                    row.action,
                    row.request_id,
                    row.room_seq,
                )
            })
            .collect();
        let batch = serde_json::to_string(&batch).map_err(|error| StoreError::Corrupt(error.to_string()))?;
        sqlx::query(
            "INSERT INTO game_actions (game_id, idx, seat, action, request_id, room_seq) \
             SELECT unhex(value ->> 0), value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5 \
             FROM json_each($1) WHERE true ON CONFLICT (game_id, idx) DO NOTHING",
        )
        .bind(batch)
        .execute(executor)
        .await?;
        Ok(())
    }
}

/// The action writes of a batch, in order, as rows to bind.
fn action_rows(writes: &[Write]) -> Vec<ActionRow<'_>> {
    writes.iter().filter_map(Write::action_row).collect()
}

impl Write {
    /// An action write as the row both backends and the journal's SQLite
    /// connection bind, so that every path stores an action's columns
    /// with the same types; `None` for any other write.
    pub(crate) fn action_row(&self) -> Option<ActionRow<'_>> {
        match self {
            Write::Action {
                game,
                index,
                seat,
                action,
                request_id,
                room_seq,
            } => Some(ActionRow {
                game: *game,
                index: *index as i32,
                seat: i16::from(*seat),
                action,
                request_id: request_id.as_deref(),
                room_seq: *room_seq as i64,
            }),
            _ => None,
        }
    }
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
}

#[derive(sqlx::FromRow)]
struct GameDetails {
    owner_id: Uuid,
    rules: Json<serde_json::Value>,
    seed: i64,
}

#[derive(sqlx::FromRow)]
struct RatingRow {
    registered: bool,
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

/// What the end of a game adds to one of its players' account.
#[derive(Debug, PartialEq)]
struct PlayerResult {
    seat: usize,
    won: bool,
    abandoned: bool,
    stats: PlayerStats,
    /// The account's rating after the game: moved only when all four
    /// players were registered.
    rating: Rating,
}

impl FinishedGame {
    /// Each player's result, from his account as it stood before the game
    /// (`players` holds each seat with its account's rating row), so that
    /// the store only has to write what this computes.
    fn player_results(&self, players: &[(usize, RatingRow)]) -> Vec<PlayerResult> {
        let all_registered = players.len() == 4 && players.iter().all(|(_, row)| row.registered);
        let rated = all_registered.then(|| {
            let current: [Rating; 4] = std::array::from_fn(|i| players[i].1.rating());
            rate_game(&current, &self.outcome(), &self.abandoned)
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
    /// Applies a batch of journal writes in one transaction: either all of
    /// them are stored or none is.
    pub async fn write(&self, writes: &[Write]) -> Result<()> {
        let fences = crate::fence::fences(writes);
        let actions_only = writes
            .iter()
            .all(|write| matches!(write, Write::Action { .. } | Write::Fence { .. }));
        if actions_only && !writes.is_empty() {
            // Most batches are a few actions: one statement, which is atomic
            // on its own, saves the round trips of a transaction.
            let rows = action_rows(writes);
            if let Pool::Postgres(pool) = &self.journal {
                return crate::fence::insert_actions_fenced(pool, &fences, &rows).await;
            }
            if fences.is_empty() {
                on_pool!(@ &self.journal, pool => InsertActions::insert_actions(pool, &rows).await?);
                return Ok(());
            }
        }
        on_pool!(@ &self.journal, pool => {
            let mut tx = pool.begin().await?;
            // The fences first: their rows stay locked until the commit, so
            // no room can be opened again while its batch is stored.
            CheckFences::check_fences(&mut *tx, &fences).await?;
            // New games first, so that the actions and hands of a game that
            // starts in this batch find their parent row; then every action
            // of the batch in one statement; then hands and endings, in order.
            for write in writes {
                if let Write::Started(game) = write {
                    sqlx::query(
                        "INSERT INTO games (id, room, room_name, private, owner_id, number, rules, seed, status, started_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'playing', $9) ON CONFLICT (id) DO NOTHING",
                    )
                    .bind(game.id)
                    .bind(&game.room)
                    .bind(&game.room_name)
                    .bind(game.private)
                    .bind(game.owner)
                    .bind(game.number as i32)
                    .bind(Json(&game.rules))
                    .bind(game.seed as i64)
                    .bind(game.started_at)
                    .execute(&mut *tx)
                    .await?;
                    for (seat, player) in game.players.iter().enumerate() {
                        sqlx::query(
                            "INSERT INTO game_players (game_id, seat, account_id) VALUES ($1, $2, $3) \
                             ON CONFLICT (game_id, seat) DO NOTHING",
                        )
                        .bind(game.id)
                        .bind(seat as i16)
                        .bind(player)
                        .execute(&mut *tx)
                        .await?;
                    }
                    if let Some(link) = &game.tournament {
                        sqlx::query(
                            "UPDATE tournament_tables SET game_id = $1, status = 'playing' \
                             WHERE tournament_id = $2 AND stage = $3 AND table_no = $4 AND status = 'pending'",
                        )
                        .bind(game.id)
                        .bind(link.tournament)
                        .bind(link.stage as i32)
                        .bind(link.table as i32)
                        .execute(&mut *tx)
                        .await?;
                    }
                }
            }
            let actions = action_rows(writes);
            if !actions.is_empty() {
                InsertActions::insert_actions(&mut *tx, &actions).await?;
            }
            for write in writes {
                match write {
                    // Stored or checked above.
                    Write::Fence { .. } | Write::Started(_) | Write::Action { .. } => {}
                    Write::RoomSeq { room, seq } => {
                        sqlx::query("UPDATE rooms SET seq = $1 WHERE code = $2 AND seq < $1")
                            .bind(*seq as i64)
                            .bind(room)
                            .execute(&mut *tx)
                            .await?;
                    }
                    Write::Hand { game, hand, record } => {
                        sqlx::query(
                            "INSERT INTO hands (game_id, hand, record) VALUES ($1, $2, $3) \
                             ON CONFLICT (game_id, hand) DO NOTHING",
                        )
                        .bind(game)
                        .bind(*hand as i32)
                        .bind(Json(record))
                        .execute(&mut *tx)
                        .await?;
                    }
                    Write::Finished(end) => {
                        let status = if end.winner.is_some() { "finished" } else { "abandoned" };
                        let updated = sqlx::query(
                            "UPDATE games SET status = $1, finished_at = $2, winner = $3, score0 = $4, score1 = $5, \
                             score2 = $6, score3 = $7 WHERE id = $8 AND status = 'playing'",
                        )
                        .bind(status)
                        .bind(end.finished_at)
                        .bind(end.winner.map(i16::from))
                        .bind(end.score.first().copied())
                        .bind(end.score.get(1).copied())
                        .bind(end.score.get(2).copied())
                        .bind(end.score.get(3).copied())
                        .bind(end.id)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                        if updated == 0 {
                            // Already finished: a retry of a batch that was stored.
                            continue;
                        }
                        if let (Some(_), Some(winner)) = (&end.tournament, end.winner) {
                            sqlx::query(
                                "UPDATE tournament_tables SET status = 'finished', winner = $1, score0 = $2, \
                                 score1 = $3 WHERE game_id = $4",
                            )
                            .bind(i16::from(winner))
                            .bind(end.score.first().copied())
                            .bind(end.score.get(1).copied())
                            .bind(end.id)
                            .execute(&mut *tx)
                            .await?;
                        }
                        let players: Vec<(i16, Uuid)> =
                            sqlx::query_as("SELECT seat, account_id FROM game_players WHERE game_id = $1 ORDER BY seat")
                                .bind(end.id)
                                .fetch_all(&mut *tx)
                                .await?;
                        let mut rows = Vec::with_capacity(4);
                        for (seat, account) in &players {
                            let row: RatingRow = sqlx::query_as(
                                "SELECT registered, rating, rating_deviation, rating_volatility FROM accounts WHERE id = $1",
                            )
                            .bind(account)
                            .fetch_one(&mut *tx)
                            .await?;
                            rows.push((*seat as usize, row));
                        }
                        let results = end.player_results(&rows);
                        for ((_, account), result) in players.iter().zip(&results) {
                            let (seat, stats, new) = (result.seat, result.stats, result.rating);
                            sqlx::query(
                                "UPDATE accounts SET games_played = games_played + 1, games_won = games_won + $1, \
                                 games_abandoned = games_abandoned + $2, bids_made = bids_made + $3, \
                                 bids_total = bids_total + $4, nils_made = nils_made + $5, nils_tried = nils_tried + $6, \
                                 rating = $7, rating_deviation = $8, rating_volatility = $9 WHERE id = $10",
                            )
                            .bind(i32::from(result.won))
                            .bind(i32::from(result.abandoned))
                            .bind(stats.bids_made as i32)
                            .bind(stats.bids_total as i32)
                            .bind(stats.nils_made as i32)
                            .bind(stats.nils_tried as i32)
                            .bind(new.rating)
                            .bind(new.deviation)
                            .bind(new.volatility)
                            .bind(account)
                            .execute(&mut *tx)
                            .await?;
                            sqlx::query("UPDATE game_players SET abandoned = $1 WHERE game_id = $2 AND seat = $3")
                                .bind(result.abandoned)
                                .bind(end.id)
                                .bind(seat as i16)
                                .execute(&mut *tx)
                                .await?;
                        }
                    }
                }
            }
            tx.commit().await?;
        });
        Ok(())
    }

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
            "SELECT owner_id, rules, seed FROM games WHERE id = $1").bind(id).fetch_one(pool).await?);
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

    /// The records of a game's finished hands, in order.
    pub async fn hands(&self, game: Uuid) -> Result<Vec<serde_json::Value>> {
        let sql = "SELECT record FROM hands WHERE game_id = $1 ORDER BY hand";
        let rows: Vec<Json<serde_json::Value>> =
            on_pool!(self, pool => sqlx::query_scalar(sql).bind(game).fetch_all(pool).await?);
        Ok(rows.into_iter().map(|record| record.0).collect())
    }

    /// A player's most recent games, newest first.
    pub async fn recent_games(&self, account: Uuid, limit: u32) -> Result<Vec<GameSummary>> {
        let sql = "SELECT g.id, g.room, g.room_name, g.private, g.number, g.status, g.started_at, g.finished_at, \
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

    #[test]
    fn only_an_action_write_has_an_action_row() {
        let game = Uuid::from_u128(7);
        let action = Write::Action {
            game,
            index: 12,
            seat: 3,
            action: "play AS".into(),
            request_id: Some("\"r1\"".into()),
            room_seq: 40,
        };
        let row = action.action_row().expect("an action has a row");
        assert_eq!(
            (
                row.game,
                row.index,
                row.seat,
                row.action,
                row.request_id,
                row.room_seq
            ),
            (game, 12, 3, "play AS", Some("\"r1\""), 40)
        );
        let mark = Write::RoomSeq {
            room: "ABCDEF".into(),
            seq: 40,
        };
        assert!(mark.action_row().is_none());
        assert_eq!(action_rows(&[mark, action.clone(), action]).len(), 2);
    }

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
        }
    }

    #[test]
    fn a_game_of_four_registered_players_moves_every_rating() {
        let end = partnership_win([false, false, true, false]);
        let rows: Vec<(usize, RatingRow)> = (0..4).map(|seat| (seat, account(true, 1500.0))).collect();
        let results = end.player_results(&rows);
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
    fn a_game_with_a_guest_moves_no_rating() {
        let end = partnership_win([false; 4]);
        let rows: Vec<(usize, RatingRow)> = (0..4)
            .map(|seat| (seat, account(seat != 1, 1400.0 + seat as f64)))
            .collect();
        let results = end.player_results(&rows);
        for (seat, result) in results.iter().enumerate() {
            assert_eq!(result.rating, rows[seat].1.rating(), "seat {seat}");
        }
        assert_eq!(
            results.iter().map(|result| result.won).collect::<Vec<_>>(),
            [true, false, true, false]
        );
    }
}
