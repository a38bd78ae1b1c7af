//! The store's structs turned into the protocol's views: the one place
//! where a stored column meets a field that clients read. The store keeps
//! statuses and rule sets as text and JSON, and counts as SQL integers; a
//! value that does not read as the protocol's type is stored data gone
//! wrong, reported as [`StoreError::Corrupt`].

use std::str::FromStr;

use spades_engine::RuleSet;
use spades_protocol::http::{
    Entrant, GameAction, GamePlayer, GameRecord, GameStatus, LeaderboardRow, Me, PlayedTournament, Profile,
    RecentGame, Stage, Table, TournamentSummary, TournamentView,
};
use spades_store::{self as store, Account, StoreError};

type Result<T> = std::result::Result<T, StoreError>;

/// A stored word (a status, a format) as the protocol's enum.
fn word<T: FromStr>(what: &str, text: &str) -> Result<T> {
    text.parse()
        .map_err(|_| StoreError::Corrupt(format!("{what} {text:?}")))
}

/// A stored integer that the protocol gives as a count or a number.
fn count<N: TryInto<u32> + Copy + std::fmt::Display>(what: &str, n: N) -> Result<u32> {
    n.try_into()
        .map_err(|_| StoreError::Corrupt(format!("{what} {n}")))
}

fn team(what: &str, winner: Option<i16>) -> Result<Option<u8>> {
    winner
        .map(|team| u8::try_from(team).map_err(|_| StoreError::Corrupt(format!("{what} {team}"))))
        .transpose()
}

pub fn rules(value: &serde_json::Value) -> Result<RuleSet> {
    serde_json::from_value(value.clone()).map_err(|error| StoreError::Corrupt(format!("rule set: {error}")))
}

pub fn profile(profile: store::Profile) -> Result<Profile> {
    Ok(Profile {
        id: profile.id,
        name: profile.name,
        registered: profile.registered,
        created_at: profile.created_at,
        rating: profile.rating,
        rating_deviation: profile.rating_deviation,
        games_played: count("games played", profile.games_played)?,
        games_won: count("games won", profile.games_won)?,
        games_abandoned: count("games abandoned", profile.games_abandoned)?,
        bids_made: count("bids made", profile.bids_made)?,
        bids_total: count("bids", profile.bids_total)?,
        nils_made: count("nils made", profile.nils_made)?,
        nils_tried: count("nils", profile.nils_tried)?,
        avatar: profile.avatar,
    })
}

pub fn me(stored: store::Profile, account: &Account) -> Result<Me> {
    Ok(Me {
        profile: profile(stored)?,
        is_admin: account.is_admin,
        can_organize: account.can_organize,
        role: account.role().as_str().to_string(),
        sanctions: Vec::new(),
        quick_play_paused_until: None,
    })
}

pub fn leaderboard_row(stored: store::Profile, rank: u32) -> Result<LeaderboardRow> {
    Ok(LeaderboardRow {
        profile: profile(stored)?,
        rank,
    })
}

pub fn recent_game(game: store::GameSummary) -> Result<RecentGame> {
    let score = game.scores();
    Ok(RecentGame {
        id: game.id,
        rated: game.rated,
        number: count("game number", game.number)?,
        status: word("game status", &game.status)?,
        winner: team("winner", game.winner)?,
        room: game.room,
        room_name: game.room_name,
        started_at: game.started_at,
        finished_at: game.finished_at,
        score,
        score0: game.score0,
        score1: game.score1,
    })
}

/// A stored game. The seed and the actions, which reveal every card, are
/// left out while it is being played, and while its deals are in play
/// elsewhere (`deals_in_play`: the store's `Store::deals_in_play`).
pub fn game_record(game: store::StoredGame, deals_in_play: bool) -> Result<GameRecord> {
    let summary = game.summary;
    let status: GameStatus = word("game status", &summary.status)?;
    let score = summary.scores();
    let over = status != GameStatus::Playing && !deals_in_play;
    let players = game
        .players
        .into_iter()
        .map(|player| {
            Ok(GamePlayer {
                seat: u8::try_from(player.seat)
                    .map_err(|_| StoreError::Corrupt(format!("seat {}", player.seat)))?,
                account_id: player.account_id,
                name: player.name,
                abandoned: player.abandoned,
            })
        })
        .collect::<Result<_>>()?;
    let actions = game
        .actions
        .into_iter()
        .map(|stored| GameAction {
            seat: stored.seat,
            action: stored.action,
        })
        .collect();
    Ok(GameRecord {
        id: summary.id,
        rated: summary.rated,
        room: summary.room,
        room_name: summary.room_name,
        number: count("game number", summary.number)?,
        status,
        started_at: summary.started_at,
        finished_at: summary.finished_at,
        winner: team("winner", summary.winner)?,
        score,
        players,
        rules: rules(&game.rules)?,
        deal_commitment: spades_engine::deal_commitment(&summary.id.to_string(), game.seed),
        seed: over.then(|| game.seed.to_string()),
        actions: over.then_some(actions),
        same_deals_as: game.same_deals_as,
        played_again: game.played_again,
    })
}

pub fn tournament_summary(summary: store::TournamentSummary) -> Result<TournamentSummary> {
    Ok(TournamentSummary {
        id: summary.id,
        format: word("tournament format", &summary.format)?,
        status: word("tournament status", &summary.status)?,
        max_players: count("max players", summary.max_players)?,
        rounds: summary.rounds.map(|rounds| count("rounds", rounds)).transpose()?,
        players: count("players", summary.players)?,
        name: summary.name,
        organizer_id: summary.organizer_id,
        organizer_name: summary.organizer_name,
        created_at: summary.created_at,
        starts_at: summary.starts_at,
        started_at: summary.started_at,
        finished_at: summary.finished_at,
    })
}

fn entrant(entrant: &store::Entrant) -> Result<Entrant> {
    Ok(Entrant {
        entry: count("entry", entrant.entry)?,
        account_id: entrant.account_id,
        name: entrant.name.clone(),
        bot: entrant.bot,
        points: entrant.points,
        score_diff: entrant.score_diff,
        place: entrant.place.map(|place| count("place", place)).transpose()?,
    })
}

fn table(table: &store::StoredTable) -> Result<Table> {
    Ok(Table {
        table: table.table,
        seats: table.seats,
        room: table.room.clone(),
        game: table.game,
        status: word("table status", &table.status)?,
        winner: table.winner,
        score: table.score,
    })
}

pub fn tournament(tournament: &store::Tournament) -> Result<TournamentView> {
    Ok(TournamentView {
        summary: tournament_summary(tournament.summary.clone())?,
        rules: rules(&tournament.rules)?,
        entrants: tournament.entrants.iter().map(entrant).collect::<Result<_>>()?,
        stages: tournament
            .stages
            .iter()
            .map(|stage| {
                Ok(Stage {
                    stage: stage.stage,
                    tables: stage.tables.iter().map(table).collect::<Result<_>>()?,
                })
            })
            .collect::<Result<_>>()?,
    })
}

pub fn played_tournament(played: store::PlayedTournament) -> Result<PlayedTournament> {
    Ok(PlayedTournament {
        id: played.id,
        format: word("tournament format", &played.format)?,
        status: word("tournament status", &played.status)?,
        started_at: played.started_at,
        entry: count("entry", played.entry)?,
        points: played.points,
        score_diff: played.score_diff,
        place: played.place.map(|place| count("place", place)).transpose()?,
        name: played.name,
    })
}
