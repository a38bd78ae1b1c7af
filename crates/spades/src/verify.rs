//! `spades verify`: checks games' hand histories against their seeds, from
//! files a player downloaded or from the server's own database.
//!
//! For each game it checks that every line names the same game, seed and
//! commitment, that the commitment is the seed's (protocol.md, "Verifiable
//! deals"), and that replaying the records on a game dealt from the seed
//! gives every hand's cards, allows every action and scores as recorded.

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;

use anyhow::{Context, bail};
use serde::Serialize;
use spades_engine::{HandRecord, HistoryFault, Preset, RuleSet, check_hands, deal_commitment};
use spades_protocol::history::{OwnedHandLine, reveal_seed};
use spades_store::Store;
use uuid::Uuid;

use crate::serve::DatabaseArgs;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Hand histories to check, as `GET /api/games/{id}/history` gives them
    /// (JSON lines; several games may follow each other); `-` reads
    /// standard input.
    files: Vec<PathBuf>,
    /// Check every game the database holds that is no longer being played.
    #[arg(long, conflicts_with = "files")]
    stored: bool,
    /// Check this stored game.
    #[arg(long, conflicts_with = "files")]
    game: Option<Uuid>,
    /// The commitment received when the game started (`game_started`'s
    /// `deal_commitment`), to compare with the history's; for one game.
    #[arg(long)]
    commitment: Option<String>,
    /// Print one JSON object per game instead of sentences.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    database: DatabaseArgs,
}

/// The result for one game.
#[derive(Serialize, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The game's id, when its lines name one.
    pub game_id: Option<String>,
    pub ok: bool,
    /// Hands checked when all is well.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hands: Option<usize>,
    /// The hand (from 0) where a fault shows; null for a fault of the
    /// whole game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hand: Option<Option<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Verdict {
    fn of(game_id: Option<String>, result: Result<usize, HistoryFault>) -> Verdict {
        match result {
            Ok(hands) => Verdict {
                game_id,
                ok: true,
                hands: Some(hands),
                hand: None,
                reason: None,
            },
            Err(fault) => Verdict {
                game_id,
                ok: false,
                hands: None,
                hand: Some(fault.hand),
                reason: Some(fault.to_string()),
            },
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let verdicts = if args.stored || args.game.is_some() {
        stored_verdicts(&args)?
    } else {
        if args.files.is_empty() {
            bail!("name the histories to check, or --stored or --game ID for the database's games");
        }
        let mut text = String::new();
        for path in &args.files {
            text.push_str(&read(path)?);
            text.push('\n');
        }
        verify_text(&text, args.commitment.as_deref())?
    };
    let mut failed = 0;
    for verdict in &verdicts {
        failed += usize::from(!verdict.ok);
        if args.json {
            println!("{}", serde_json::to_string(verdict)?);
        } else {
            println!("{}", sentence(verdict));
        }
    }
    if verdicts.is_empty() {
        bail!("there was no game to check");
    }
    if failed > 0 {
        bail!("{failed} of {} games failed the check", verdicts.len());
    }
    Ok(())
}

fn read(path: &PathBuf) -> anyhow::Result<String> {
    let mut text = String::new();
    if path.as_os_str() == "-" {
        std::io::stdin().read_to_string(&mut text)?;
    } else {
        let file = std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        for line in BufReader::new(file).lines() {
            text.push_str(&line?);
            text.push('\n');
        }
    }
    Ok(text)
}

fn sentence(verdict: &Verdict) -> String {
    let game = verdict.game_id.as_deref().unwrap_or("without an id");
    match (&verdict.hands, &verdict.reason) {
        (Some(hands), _) => {
            format!(
                "game {game}: verified: {hands} hands dealt from the committed seed and played by the rules"
            )
        }
        (_, Some(reason)) => format!("game {game}: FAILED: {reason}"),
        _ => format!("game {game}: nothing checked"),
    }
}

/// Checks every game of a history text: its lines are grouped by game, a
/// new game starting at each change of id or at each hand 0.
pub fn verify_text(text: &str, commitment: Option<&str>) -> anyhow::Result<Vec<Verdict>> {
    let mut games: Vec<Vec<OwnedHandLine>> = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let line = OwnedHandLine::parse(line)
            .with_context(|| format!("line {} is not a hand of the history format", number + 1))?;
        let same_game = games.last().and_then(|game| game.last()).is_some_and(|last| {
            last.game_id == line.game_id && last.game == line.game && line.record.hand != 0
        });
        match games.last_mut() {
            Some(game) if same_game => game.push(line),
            _ => games.push(vec![line]),
        }
    }
    if commitment.is_some() && games.len() > 1 {
        bail!(
            "--commitment is for a history of one game; this one has {}",
            games.len()
        );
    }
    Ok(games
        .iter()
        .map(|lines| Verdict::of(lines[0].game_id.clone(), verify_game(lines, commitment)))
        .collect())
}

/// Checks one game's lines, returning how many hands were checked.
pub fn verify_game(lines: &[OwnedHandLine], commitment: Option<&str>) -> Result<usize, HistoryFault> {
    let first = &lines[0];
    let (Some(game_id), Some(seed), Some(committed)) = (&first.game_id, &first.seed, &first.deal_commitment)
    else {
        return Err(HistoryFault::game(
            "the history has no game id, seed and commitment: only a finished game's stored history can be checked",
        ));
    };
    if let Some(line) = lines.iter().find(|line| {
        (&line.game_id, &line.seed, &line.deal_commitment)
            != (&first.game_id, &first.seed, &first.deal_commitment)
    }) {
        return Err(HistoryFault::game(format!(
            "hand {} names another game, seed or commitment than hand 0",
            line.record.hand
        )));
    }
    let seed: u64 = seed
        .parse()
        .map_err(|_| HistoryFault::game(format!("the seed {seed:?} is not a number from 0 to 2^64 - 1")))?;
    if deal_commitment(game_id, seed) != *committed {
        return Err(HistoryFault::game("the seed does not match the commitment"));
    }
    if let Some(received) = commitment
        && received.trim().to_ascii_lowercase() != *committed
    {
        return Err(HistoryFault::game(
            "the history's commitment is not the one received when the game started",
        ));
    }
    let rules = rules_of(first)?;
    let records: Vec<HandRecord> = lines.iter().map(|line| line.record.clone()).collect();
    check_hands(rules, seed, &records)?;
    Ok(records.len())
}

fn rules_of(line: &OwnedHandLine) -> Result<RuleSet, HistoryFault> {
    match line.rule_set {
        Some(rules) => Ok(rules),
        None => Preset::from_name(&line.rules)
            .map(Preset::rules)
            .ok_or_else(|| HistoryFault::game(format!("the rules {:?} are not a preset's", line.rules))),
    }
}

/// Every ended game of the database (or the one asked for), read as the
/// server gives out its history.
fn stored_verdicts(args: &Args) -> anyhow::Result<Vec<Verdict>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let store = Store::open(&args.database.url)
            .await
            .with_context(|| format!("cannot open {}", args.database.url))?;
        let ids = match args.game {
            Some(id) => vec![id],
            None => all_ended(&store).await?,
        };
        let mut verdicts = Vec::new();
        for id in ids {
            let Some(game) = store.game(id).await? else {
                bail!("there is no game {id}");
            };
            // A game whose deals are still played elsewhere is left for a
            // later check, as the server keeps its seed back too.
            if game.summary.status == "playing" || store.deals_in_play(id, game.seed).await? {
                if args.game.is_some() {
                    bail!("game {id} or another dealt from its seed is still being played: its seed is secret until they end");
                }
                continue;
            }
            let mut text = String::new();
            for mut record in store.hands(id).await? {
                reveal_seed(&mut record, &id.to_string(), game.seed);
                text.push_str(&record.to_string());
                text.push('\n');
            }
            if text.is_empty() {
                continue;
            }
            verdicts.extend(verify_text(&text, args.commitment.as_deref())?);
        }
        store.close().await;
        Ok(verdicts)
    })
}

async fn all_ended(store: &Store) -> anyhow::Result<Vec<Uuid>> {
    const PAGE: u32 = 500;
    let mut ids = Vec::new();
    loop {
        let page = store.ended_game_ids(ids.len() as u32, PAGE).await?;
        let done = page.len() < PAGE as usize;
        ids.extend(page);
        if done {
            return Ok(ids);
        }
    }
}
