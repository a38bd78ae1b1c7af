//! The HTTP API's bodies: what the server answers under `/api`, and the
//! bodies it reads, as listed in the README's API section. The tournament
//! view is also what the WebSocket's `tournament` message carries.
//!
//! The store has structs of its own for the same things; the server
//! converts them into these, so that a column renamed in the store cannot
//! change what clients read.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use spades_engine::RuleSet;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::player::PlayerInfo;
use crate::rfc3339::Rfc3339;

/// Every refusal of the API, and the answer to a path or a method that the
/// server does not serve.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct ApiErrorBody {
    /// A code that says what went wrong, such as `not_found` (the README's
    /// "Errors" table lists them all).
    pub error: String,
    /// The same for people, in English; it may change.
    pub message: String,
}

/// `POST /api/register` and `POST /api/login`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    pub name: String,
    pub password: String,
}

/// `POST /api/claim`: the password a guest's account takes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPassword {
    pub password: String,
}

/// The answer to a registration, a login or a claim: a session token and
/// who it belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct Session {
    pub token: String,
    pub player: PlayerInfo,
}

/// `GET /api/players/{id}`: what anyone may read about a player.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct Profile {
    pub id: Uuid,
    pub name: String,
    pub registered: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[schemars(with = "Rfc3339")]
    pub created_at: OffsetDateTime,
    pub rating: f64,
    pub rating_deviation: f64,
    pub games_played: u32,
    pub games_won: u32,
    pub games_abandoned: u32,
    /// Hands in which the player bid a number and his team made its contract.
    pub bids_made: u32,
    /// Hands in which the player bid a number.
    pub bids_total: u32,
    pub nils_made: u32,
    pub nils_tried: u32,
    /// The picture he chose, one of `spade`, `heart`, `diamond`, `club`,
    /// `fox`, `owl`, `cat`, `bear`, `rocket`, `star`, `moon` and `sun`;
    /// absent when he chose none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avatar: Option<String>,
}

/// `GET /api/me`: the caller's profile, with his permissions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct Me {
    #[serde(flatten)]
    pub profile: Profile,
    pub is_admin: bool,
    pub can_organize: bool,
    /// `player`, `moderator` or `admin`.
    pub role: String,
    /// The sanctions that restrict the player now (a mute), so that a
    /// client can say why chat is refused and until when.
    pub sanctions: Vec<crate::moderation::SanctionView>,
    /// Until when quick play is paused for him, for games he abandoned at
    /// rated tables; absent when it is not.
    #[serde(
        default,
        with = "time::serde::rfc3339::option",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<Rfc3339>")]
    pub quick_play_paused_until: Option<OffsetDateTime>,
}

/// `GET /api/presets`: one of the named rule sets a room, quick play or a
/// tournament may use.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct PresetInfo {
    /// The name to give as `preset` (or as quick play's `rules`).
    pub name: String,
    /// What the preset changes from `classic`, in one line for people.
    pub summary: String,
    /// The rule set in full.
    #[schema(value_type = RuleSetSchema)]
    pub rules: RuleSet,
}

/// `GET /api/leaderboard`: one page of registered players by rating.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct Leaderboard {
    /// The page's number, from 1.
    pub page: u32,
    pub per_page: u32,
    /// Registered players in all.
    pub total: u64,
    pub players: Vec<LeaderboardRow>,
}

/// A player on the leaderboard, with his rank from 1.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct LeaderboardRow {
    #[serde(flatten)]
    pub profile: Profile,
    pub rank: u32,
}

/// How far a stored game went.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::EnumString,
    strum::IntoStaticStr,
    JsonSchema,
    ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum GameStatus {
    Playing,
    Finished,
    /// Over without a winner: a player left for good.
    Abandoned,
}

/// `GET /api/me/games`: the caller's recent games, newest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct RecentGames {
    pub games: Vec<RecentGame>,
}

/// A game in a player's list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct RecentGame {
    pub id: Uuid,
    pub room: String,
    pub room_name: String,
    /// Whether it was played at a rated table.
    #[serde(default)]
    pub rated: bool,
    /// The game's number in its room, from 0.
    pub number: u32,
    pub status: GameStatus,
    #[serde(with = "time::serde::rfc3339")]
    #[schemars(with = "Rfc3339")]
    pub started_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schemars(with = "Option<Rfc3339>")]
    pub finished_at: Option<OffsetDateTime>,
    /// The winning team; null while playing and for an abandoned game.
    pub winner: Option<u8>,
    /// Team 0's final score, null while playing.
    pub score0: Option<i32>,
    /// Team 1's final score, null while playing.
    pub score1: Option<i32>,
    /// Every team's final score (two with partners, four in solo); null
    /// while playing.
    #[schema(min_items = 2, max_items = 4)]
    #[schemars(length(min = 2, max = 4))]
    pub score: Option<Vec<i32>>,
}

/// `GET /api/games/{id}`: a stored game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct GameRecord {
    pub id: Uuid,
    pub room: String,
    pub room_name: String,
    /// Whether it was played at a rated table (README, "Ratings").
    #[serde(default)]
    pub rated: bool,
    /// The game's number in its room, from 0.
    pub number: u32,
    pub status: GameStatus,
    #[serde(with = "time::serde::rfc3339")]
    #[schemars(with = "Rfc3339")]
    pub started_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schemars(with = "Option<Rfc3339>")]
    pub finished_at: Option<OffsetDateTime>,
    /// The winning team; null while playing and for an abandoned game.
    pub winner: Option<u8>,
    /// The teams' final scores, as the WebSocket's `score` (two values with
    /// partners, four in solo); null while playing.
    #[schema(min_items = 2, max_items = 4)]
    #[schemars(length(min = 2, max = 4))]
    pub score: Option<Vec<i32>>,
    pub players: Vec<GamePlayer>,
    #[schema(value_type = RuleSetSchema)]
    pub rules: RuleSet,
    /// The commitment to the deal's seed that `game_started` sent
    /// (protocol.md, "Verifiable deals").
    pub deal_commitment: String,
    /// The deal's seed, as a decimal string (it does not fit a JavaScript
    /// number); given once the game is over, as it reveals every card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<String>,
    /// Every action in order; given once the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions: Option<Vec<GameAction>>,
    /// The earlier game whose deals this one played again, every player
    /// one seat to the left (`rematch` with `same_deals`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_deals_as: Option<Uuid>,
    /// The later games that played this one's deals again, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub played_again: Vec<Uuid>,
}

/// A seat of a stored game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct GamePlayer {
    pub seat: u8,
    pub account_id: Uuid,
    pub name: String,
    /// He was gone for good when the game ended.
    pub abandoned: bool,
}

/// An action of a stored game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct GameAction {
    pub seat: u8,
    /// The action as the store keeps it.
    pub action: String,
}

/// A tournament's format.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::EnumString,
    strum::IntoStaticStr,
    JsonSchema,
    ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum TournamentFormat {
    #[default]
    Knockout,
    Swiss,
    /// Every table of a round plays the same deals, by fixed partnerships
    /// (README, "Tournaments").
    DuplicatePairs,
    /// The same, with partners drawn anew each round.
    DuplicateIndividual,
}

impl TournamentFormat {
    /// Whether every table of a round plays the same deals.
    pub fn is_duplicate(self) -> bool {
        matches!(
            self,
            TournamentFormat::DuplicatePairs | TournamentFormat::DuplicateIndividual
        )
    }
}

/// Where a tournament is in its life.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::EnumString,
    strum::IntoStaticStr,
    JsonSchema,
    ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum TournamentStatus {
    /// Taking registrations.
    Open,
    Running,
    Finished,
    Cancelled,
}

/// `POST /api/tournaments`: an organiser's settings for a new tournament.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTournament {
    pub name: String,
    /// `knockout`, `swiss`, `duplicate_pairs` or `duplicate_individual`.
    /// Read as text, so that another word is
    /// refused as a bad setting, as a bad number is, rather than as a
    /// body of the wrong shape.
    #[serde(default = "knockout")]
    pub format: String,
    /// 4 to 1024; 16 when absent.
    #[serde(default = "sixteen")]
    pub max_players: u32,
    /// Absent: the tournament starts when full.
    #[serde(
        default,
        with = "time::serde::rfc3339::option",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<Rfc3339>")]
    pub starts_at: Option<OffsetDateTime>,
    /// Rounds of a Swiss tournament (7 when absent) or a duplicate one (3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    /// The score that wins a game (300 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<i32>,
    /// The score at which a team loses a game (-300 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_threshold: Option<i32>,
    /// The most hands a game lasts, up to 50 (7 when absent); in a
    /// duplicate tournament, the boards of each round: 1 to 13, 4 when
    /// absent, and every game plays them all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hands: Option<u32>,
    /// The preset the games' other rules come from (`tournament` when
    /// absent); `target`, `loss_threshold` and `hands` apply on top.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
}

fn knockout() -> String {
    "knockout".into()
}

fn sixteen() -> u32 {
    16
}

/// A line of `GET /api/tournaments`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct TournamentSummary {
    pub id: Uuid,
    pub name: String,
    pub format: TournamentFormat,
    pub status: TournamentStatus,
    pub organizer_id: Uuid,
    pub organizer_name: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schemars(with = "Rfc3339")]
    pub created_at: OffsetDateTime,
    /// Null for a tournament that starts when full.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schemars(with = "Option<Rfc3339>")]
    pub starts_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schemars(with = "Option<Rfc3339>")]
    pub started_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schemars(with = "Option<Rfc3339>")]
    pub finished_at: Option<OffsetDateTime>,
    pub max_players: u32,
    /// Null for a knockout.
    pub rounds: Option<u32>,
    /// Entries registered so far, bots included.
    pub players: u32,
}

/// `GET /api/tournaments/{id}`, and the WebSocket's `tournament` message:
/// enough to draw a bracket or standings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct TournamentView {
    #[serde(flatten)]
    pub summary: TournamentSummary,
    /// The rule set every table plays.
    #[schema(value_type = RuleSetSchema)]
    pub rules: RuleSet,
    pub entrants: Vec<Entrant>,
    pub stages: Vec<Stage>,
}

/// One entry of a tournament, with its standing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct Entrant {
    pub entry: u32,
    pub account_id: Uuid,
    pub name: String,
    pub bot: bool,
    pub points: i32,
    pub score_diff: i32,
    /// Null until the tournament is over.
    pub place: Option<u32>,
}

/// One knockout stage or Swiss round, from 0.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct Stage {
    pub stage: u32,
    pub tables: Vec<Table>,
}

/// Where a tournament table is in its game.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::EnumString,
    strum::IntoStaticStr,
    JsonSchema,
    ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum TableStatus {
    /// Not open yet.
    Pending,
    Playing,
    Finished,
}

/// One table of a stage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct Table {
    pub table: u32,
    /// The entries in seats 0 to 3; seats 0 and 2 are partners.
    #[schema(min_items = 4, max_items = 4)]
    pub seats: [u32; 4],
    pub room: String,
    pub game: Option<Uuid>,
    pub status: TableStatus,
    /// The winning team, once finished.
    pub winner: Option<u8>,
    #[schema(min_items = 2, max_items = 2)]
    pub score: Option<[i32; 2]>,
}

/// `POST /api/tournaments/{id}/register`: the caller's entry number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct Entry {
    pub entry: u32,
}

/// `POST /api/tournaments/{id}/bots`: how many bots enter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BotCount {
    pub count: u32,
}

/// A line of `GET /api/players/{id}/tournaments`: a tournament the player
/// entered, with his standing and place.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct PlayedTournament {
    pub id: Uuid,
    pub name: String,
    pub format: TournamentFormat,
    pub status: TournamentStatus,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schemars(with = "Option<Rfc3339>")]
    pub started_at: Option<OffsetDateTime>,
    pub entry: u32,
    pub points: i32,
    pub score_diff: i32,
    pub place: Option<u32>,
}

/// `POST /api/players/{id}/permissions`: what an administrator grants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Permissions {
    /// May run tournaments.
    pub organizer: bool,
    /// Administers the server, which includes running tournaments.
    #[serde(default)]
    pub admin: bool,
}

/// How the OpenAPI document shows a rule set. The engine's `RuleSet` has
/// a JSON Schema (schemars) but no OpenAPI schema, and the engine should
/// not learn of a second schema library for one document: the OpenAPI
/// document says it is an object and points at the JSON Schema instead.
struct RuleSetSchema;

impl utoipa::PartialSchema for RuleSetSchema {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .description(Some(
                "A game's rules: the `RuleSet` of the JSON Schema of the server's messages, \
                 at `/api/schema/server-messages.json` (`docs/schema/server-messages.json`), \
                 under `$defs/RuleSet`.",
            ))
            .into()
    }
}

impl ToSchema for RuleSetSchema {
    fn name() -> Cow<'static, str> {
        "RuleSet".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_the_words_on_the_wire() {
        assert_eq!(
            serde_json::to_string(&GameStatus::Abandoned).unwrap(),
            r#""abandoned""#
        );
        assert_eq!(
            serde_json::to_string(&TournamentFormat::Swiss).unwrap(),
            r#""swiss""#
        );
        assert_eq!(
            serde_json::to_string(&TournamentStatus::Cancelled).unwrap(),
            r#""cancelled""#
        );
        assert_eq!(
            serde_json::to_string(&TableStatus::Pending).unwrap(),
            r#""pending""#
        );
        // The store keeps the same words, which the server parses.
        assert_eq!("running".parse(), Ok(TournamentStatus::Running));
        assert_eq!(<&str>::from(TournamentFormat::Knockout), "knockout");
    }

    #[test]
    fn a_leaderboard_row_is_a_profile_with_its_rank() {
        let row = LeaderboardRow {
            profile: Profile {
                id: Uuid::nil(),
                name: "Ann".into(),
                registered: true,
                created_at: OffsetDateTime::UNIX_EPOCH,
                rating: 1500.0,
                rating_deviation: 350.0,
                games_played: 0,
                games_won: 0,
                games_abandoned: 0,
                bids_made: 0,
                bids_total: 0,
                nils_made: 0,
                nils_tried: 0,
                avatar: None,
            },
            rank: 1,
        };
        let json = serde_json::to_value(&row).unwrap();
        assert_eq!(json["rank"], 1);
        assert_eq!(json["name"], "Ann");
        assert_eq!(json["created_at"], "1970-01-01T00:00:00Z");
        assert_eq!(serde_json::from_value::<LeaderboardRow>(json).unwrap(), row);
    }
}
