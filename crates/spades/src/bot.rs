//! `spades bot`: bots that play on a server over the WebSocket protocol,
//! exactly as any other client does, in a given room or through quick play.

use std::time::Duration;

use anyhow::{Context, bail};
use spades_bots::knowledge::Knowledge;
use spades_bots::{BeginnerBot, Budget, ExpertBot, StrongBot, basic};
use spades_client::table::Move;
use spades_client::{Client, ClientError, TableState};
use spades_engine::{Action, Legal, Preset};
use spades_protocol::event::{EventKind, RoomEvent};
use spades_protocol::ws::{BotLevel, ClientMessage, ErrorCode, ServerMessage};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The server's WebSocket address.
    #[arg(long, default_value = "ws://127.0.0.1:8080/ws")]
    server: String,
    /// The room to join and sit in. Without it, the bots queue for quick
    /// play.
    #[arg(long)]
    room: Option<String>,
    /// The rule preset to queue for, without --room.
    #[arg(long, default_value = "classic", value_parser = parse_preset)]
    queue: Preset,
    /// How many bots to run, each on its own connection.
    #[arg(long, default_value_t = 1)]
    count: usize,
    /// How well they play: beginner, basic, strong or expert.
    #[arg(long, default_value = "basic", value_parser = parse_level)]
    level: BotLevel,
    /// Their names are this, then a number.
    #[arg(long, default_value = "Bot")]
    name: String,
    /// In a room: start a game whenever all four seats are taken and none
    /// is being played.
    #[arg(long)]
    start: bool,
    /// Games each bot plays before it disconnects; 0 plays until stopped.
    #[arg(long, default_value_t = 1)]
    games: u32,
    /// Milliseconds a bot waits before each action, to look less hasty to
    /// people at the table.
    #[arg(long, default_value_t = 0)]
    think: u64,
}

fn parse_preset(name: &str) -> Result<Preset, String> {
    Preset::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Preset::ALL.iter().map(|preset| preset.name()).collect();
        format!("unknown rules {name:?}: use one of {}", names.join(", "))
    })
}

fn parse_level(name: &str) -> Result<BotLevel, String> {
    match name {
        "bot" => Ok(BotLevel::Basic),
        _ => BotLevel::from_name(name)
            .ok_or_else(|| format!("unknown level {name:?}: use beginner, basic, strong or expert")),
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if args.count == 0 {
        bail!("--count must be at least 1");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let mut bots = Vec::with_capacity(args.count);
        for number in 0..args.count {
            let settings = Settings {
                server: args.server.clone(),
                room: args.room.clone(),
                preset: args.queue,
                level: args.level,
                name: format!("{} {}", args.name, number + 1),
                start: args.start && number == 0,
                games: args.games,
                think: Duration::from_millis(args.think),
                seed: number as u64,
            };
            bots.push(tokio::spawn(play(settings)));
        }
        let mut failures = 0;
        for bot in bots {
            match bot.await {
                Ok(Ok(())) => {}
                Ok(Err(error)) => {
                    failures += 1;
                    eprintln!("a bot stopped: {error:#}");
                }
                Err(error) => {
                    failures += 1;
                    eprintln!("a bot failed: {error}");
                }
            }
        }
        if failures > 0 {
            bail!("{failures} of {} bots stopped early", args.count);
        }
        Ok(())
    })
}

/// One bot's settings.
struct Settings {
    server: String,
    room: Option<String>,
    preset: Preset,
    level: BotLevel,
    name: String,
    start: bool,
    games: u32,
    think: Duration,
    seed: u64,
}

/// The bot's brain: the basic bot is a function of what it knows; the
/// others carry their generator from one decision to the next.
enum Brain {
    Beginner(BeginnerBot),
    Basic,
    Strong(Box<StrongBot>),
    Expert(Box<ExpertBot>),
}

impl Brain {
    fn new(level: BotLevel, seed: u64) -> Brain {
        match level {
            BotLevel::Beginner => Brain::Beginner(BeginnerBot::new(seed)),
            BotLevel::Basic => Brain::Basic,
            BotLevel::Strong => Brain::Strong(Box::new(StrongBot::new(seed, Budget::SERVER))),
            BotLevel::Expert => Brain::Expert(Box::new(ExpertBot::new(seed, Budget::SERVER))),
        }
    }

    /// The action for the seat's turn, if it has one. The look-ahead bots
    /// think on a blocking thread so that the other bots of this process
    /// keep playing meanwhile.
    async fn decide(&mut self, state: &TableState) -> Option<Action> {
        let knowledge = state.knowledge()?;
        let legal = state.legal()?;
        match self {
            Brain::Beginner(bot) => bot.decide(&knowledge, legal),
            Brain::Basic => basic::decide(&knowledge, legal),
            Brain::Strong(bot) => think_apart(bot, knowledge, legal, StrongBot::decide).await,
            Brain::Expert(bot) => think_apart(bot, knowledge, legal, ExpertBot::decide).await,
        }
    }
}

/// Runs a look-ahead bot's decision on a blocking thread, and keeps the
/// bot as it is after it (its generator moved on).
async fn think_apart<B: Clone + Send + 'static>(
    bot: &mut Box<B>,
    knowledge: Knowledge,
    legal: Legal,
    decide: fn(&mut B, &Knowledge, Legal) -> Option<Action>,
) -> Option<Action> {
    let mut thinking = bot.clone();
    let (action, after) = tokio::task::spawn_blocking(move || {
        let action = decide(&mut thinking, &knowledge, legal);
        (action, thinking)
    })
    .await
    .ok()?;
    *bot = after;
    action
}

async fn play(settings: Settings) -> anyhow::Result<()> {
    let (mut client, mut state) = sign_in(&settings).await?;
    let mut brain = Brain::new(settings.level, settings.seed);
    let mut seats_taken = find_table(&mut client, &mut state, &settings).await?;

    let mut games_over = 0;
    // The number of games over when this bot last started one: it starts
    // at most one game after each.
    let mut started_for = None;
    // Every message goes through `try_recv`, which first hands back those
    // that arrived while a request waited for its reply.
    loop {
        if settings.start && seats_taken == 4 && !state.playing && started_for != Some(games_over) {
            started_for = Some(games_over);
            start_game(&mut client).await?;
        }
        if state.should_act() {
            state.acted();
            if let Some(action) = brain.decide(&state).await {
                if !settings.think.is_zero() {
                    tokio::time::sleep(settings.think).await;
                }
                let id = client.next_id();
                client.send(&Move::from_action(action).message(id)).await?;
            }
        }
        let message = match client.try_recv(Duration::from_millis(500)).await {
            Ok(Some(message)) => message,
            Ok(None) => continue,
            Err(ClientError::Closed) => bail!("the server closed the connection"),
            Err(error) => return Err(error.into()),
        };
        seats_taken = note(&mut state, &message, seats_taken);
        match message {
            ServerMessage::Event(RoomEvent {
                kind: EventKind::GameOver { .. },
                ..
            }) => {
                games_over += 1;
                if settings.games > 0 && games_over >= settings.games {
                    break;
                }
                if settings.room.is_none() {
                    next_quick_table(&mut client, &mut state, settings.preset).await?;
                }
            }
            ServerMessage::Matched { room, .. } => {
                let reply = client.request(|id| ClientMessage::JoinRoom { id, room }).await?;
                seats_taken = note(&mut state, &reply, seats_taken);
            }
            ServerMessage::Error {
                code: ErrorCode::RateLimited,
                ..
            } => {
                // Too fast for the server: wait, then send the action again.
                tokio::time::sleep(Duration::from_secs(1)).await;
                state.dropped();
            }
            ServerMessage::Error { code, message, id } => {
                if id.is_some() {
                    state.refused();
                }
                eprintln!(
                    "{}: the server refused: {}: {message}",
                    settings.name,
                    code.name()
                );
            }
            _ => {}
        }
    }
    client.close().await;
    Ok(())
}

/// Connects to the server and says hello under the bot's name; returns the
/// client and a table state that knows who the bot is.
async fn sign_in(settings: &Settings) -> anyhow::Result<(Client, TableState)> {
    let mut client = Client::connect(&settings.server)
        .await
        .with_context(|| format!("cannot connect to {}", settings.server))?;
    client.timeout = Duration::from_secs(120);
    let welcome = client.hello(&settings.name).await?;
    let ServerMessage::Welcome { player, .. } = welcome else {
        bail!("expected a welcome, got {welcome:?}");
    };
    let state = TableState {
        me: Some(player.id),
        ..TableState::default()
    };
    Ok((client, state))
}

/// Joins the room named in the settings and sits down, or queues for quick
/// play without one; returns the number of seats taken at the table as
/// far as the bot knows.
async fn find_table(
    client: &mut Client,
    state: &mut TableState,
    settings: &Settings,
) -> anyhow::Result<usize> {
    let mut seats_taken = 0;
    match &settings.room {
        Some(room) => {
            let reply = client
                .request(|id| ClientMessage::JoinRoom {
                    id,
                    room: room.clone(),
                })
                .await?;
            seats_taken = note(state, &reply, seats_taken);
            client.request(|id| ClientMessage::Sit { id, seat: None }).await?;
        }
        None => queue(client, settings.preset).await?,
    }
    Ok(seats_taken)
}

/// Quick play: leaves the table of the game just over and queues for a new
/// one, forgetting all but who the bot is.
async fn next_quick_table(client: &mut Client, state: &mut TableState, preset: Preset) -> anyhow::Result<()> {
    let leave = client.request(|id| ClientMessage::LeaveRoom { id }).await;
    leave.map_err(anyhow::Error::from)?;
    *state = TableState {
        me: state.me.take(),
        ..TableState::default()
    };
    queue(client, preset).await
}

/// Asks to start a game at the bot's table. A refusal (another player
/// started first) is harmless.
async fn start_game(client: &mut Client) -> anyhow::Result<()> {
    match client.request(|id| ClientMessage::StartGame { id }).await {
        Ok(_) | Err(ClientError::Refused { .. }) => Ok(()),
        Err(error) => Err(error.into()),
    }
}

/// Queues for quick play.
async fn queue(client: &mut Client, preset: Preset) -> anyhow::Result<()> {
    client
        .request(|id| ClientMessage::Queue {
            id,
            rules: preset,
            partner: None,
        })
        .await?;
    Ok(())
}

/// Applies a message to the table state and returns how many seats are
/// taken, as far as the messages so far tell.
fn note(state: &mut TableState, message: &ServerMessage, taken: usize) -> usize {
    state.apply(message);
    match message {
        ServerMessage::Snapshot { state, .. } => state.seats.iter().flatten().count(),
        ServerMessage::Event(RoomEvent {
            kind: EventKind::Seats { seats, .. },
            ..
        }) => seats.iter().flatten().count(),
        _ => taken,
    }
}
