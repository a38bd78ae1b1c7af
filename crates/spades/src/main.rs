//! The `spades` binary: parses the command line and runs one subcommand.
//! With no subcommand it serves.

mod admin;
mod arena;
mod bot;
mod limits;
mod loadtest;
mod scheduling;
mod serve;
mod simulate;
mod stats;
mod verify;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// The server makes and frees many small buffers from both worker threads
/// (messages, frames, batches); mimalloc's per-thread free lists serve that
/// with far less time in the allocator than the system's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A Spades server and its tools.
#[derive(Parser, Debug)]
#[command(name = "spades", version, about, long_about = None, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: serve::Args,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the server (the default).
    Serve(Box<serve::Args>),
    /// Play complete games between built-in players and write every hand's
    /// history as JSON lines.
    Simulate(simulate::Args),
    /// Play duplicate deals between two players (each deal twice, seats
    /// swapped) and report games won, points per hand, contracts, nils,
    /// bags, blunders and decision times.
    Arena(arena::Args),
    /// Apply the database migrations and exit (the server also applies them
    /// when it starts).
    Migrate(serve::DatabaseArgs),
    /// Run tables of WebSocket clients against a server and report hands
    /// per second, latency, errors and the server's CPU time and memory.
    Loadtest(loadtest::Args),
    /// Connect bots to a server over the WebSocket protocol, into a room or
    /// through quick play.
    Bot(bot::Args),
    /// The operator's tools on the database: make an administrator, set a
    /// password, issue a reset link, lift sanctions.
    Admin(admin::Args),
    /// Check finished games' hand histories against their seeds: the
    /// commitment, every deal, every action and every score.
    Verify(verify::Args),
}

/// Runs the command and, when it fails, says why on one line: the error and
/// its causes, without the backtrace that `RUST_BACKTRACE` would add to an
/// error returned from `main`, which is for a program's authors rather than
/// for whoever mistyped an argument or pointed it at a missing database.
fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let outcome = match cli.command {
        None => serve::run(cli.serve),
        Some(Command::Serve(args)) => serve::run(*args),
        Some(Command::Simulate(args)) => simulate::run(args),
        Some(Command::Arena(args)) => arena::run(args),
        Some(Command::Loadtest(args)) => loadtest::run(args),
        Some(Command::Bot(args)) => bot::run(args),
        Some(Command::Migrate(args)) => serve::migrate(args),
        Some(Command::Admin(args)) => admin::run(args),
        Some(Command::Verify(args)) => verify::run(args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
