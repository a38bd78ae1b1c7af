//! `spades admin`: the operator's tools, working on the database directly,
//! so that someone with shell access to the server can always recover it:
//! make an administrator (no account becomes one by registering), set a
//! password or issue a reset link, and lift sanctions. Every change goes
//! in the audit log under "operator (command line)".
//!
//! They work while the server runs: it reads sessions, sanctions and roles
//! from the database at each request, and it reloads the mutes, blocks and
//! maintenance in force every few seconds.

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use spades_store::{Actor, AuditNote, Role, Store};
use std::io::BufRead;
use time::OffsetDateTime;

use crate::serve::DatabaseArgs;

#[derive(Parser, Debug)]
pub struct Args {
    #[command(flatten)]
    database: DatabaseArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Give a registered account a role: player, moderator or admin.
    Role {
        /// The account's name, in any case.
        name: String,
        /// player, moderator or admin.
        role: String,
    },
    /// Set a registered account's password, read from the first line of
    /// standard input; every session of the account ends.
    Password { name: String },
    /// Print a one-time link (24 hours) with which the player sets a new
    /// password himself.
    ResetLink { name: String },
    /// Lift every sanction in force on the account (mute, suspension, ban).
    Lift { name: String },
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let store = Store::open(&args.database.url)
            .await
            .with_context(|| format!("cannot open {}", args.database.url))?;
        store.migrate().await.context("migrations failed")?;
        let done = act(&store, args.command).await;
        store.close().await;
        done
    })
}

fn note(action: &str, account: &spades_store::Account, detail: String) -> AuditNote {
    AuditNote {
        actor: Actor::operator(),
        action: action.to_string(),
        target: Some((account.id, account.name.clone())),
        reason: String::new(),
        detail,
    }
}

async fn act(store: &Store, command: Command) -> anyhow::Result<()> {
    let name = match &command {
        Command::Role { name, .. }
        | Command::Password { name }
        | Command::ResetLink { name }
        | Command::Lift { name } => name.trim().to_string(),
    };
    let Some(account) = store.registered_account(&name).await? else {
        bail!("no registered account is named {name:?}");
    };
    match command {
        Command::Role { role, .. } => {
            let Some(role) = Role::parse(&role) else {
                bail!("a role is player, moderator or admin, not {role:?}");
            };
            let note = note("role", &account, format!("role: {}", role.as_str()));
            store.set_role(account.id, role, &note).await?;
            println!("{} is now {}", account.name, role.as_str());
        }
        Command::Password { .. } => {
            let mut password = String::new();
            std::io::stdin().lock().read_line(&mut password)?;
            let password = password.trim_end_matches(['\r', '\n']);
            let (min, max) = spades_server::PASSWORD_LENGTH;
            if !(min..=max).contains(&password.chars().count()) {
                bail!("a password is {min} to {max} characters");
            }
            let hash = spades_server::hash_password(spades_server::PasswordCost::default(), password)
                .context("hashing the password failed")?;
            let note = note("password", &account, "password set; every session ended".into());
            store.set_password(account.id, &hash, Some(&note)).await?;
            println!(
                "the password of {} is set; every session of the account has ended",
                account.name
            );
        }
        Command::ResetLink { .. } => {
            let token = spades_server::new_secret();
            let hash = spades_server::token_hash(&token);
            let expires_at = OffsetDateTime::now_utc() + spades_server::RESET_LINK_LIFE;
            let note = note(
                "reset_link",
                &account,
                "a one-time password reset link, for 24 hours".into(),
            );
            store
                .create_reset_link(&hash, account.id, expires_at, &note)
                .await?;
            println!("/#/reset/{token}");
            eprintln!("give the player this path after the server's address; it works once, for 24 hours");
        }
        Command::Lift { .. } => {
            let now = OffsetDateTime::now_utc();
            let sanctions = store.sanctions_in_force(account.id, now).await?;
            for sanction in &sanctions {
                let note = note("lift", &account, sanction.kind.as_str().to_string());
                store.lift_sanction(sanction.id, None, &note).await?;
            }
            println!("{} sanction(s) of {} lifted", sanctions.len(), account.name);
        }
    }
    Ok(())
}
