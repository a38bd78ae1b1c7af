//! Rebuilds the crate when a migration changes: `sqlx::migrate!` embeds the
//! migration files at compile time, and Cargo would not otherwise notice a
//! new one.

fn main() {
    println!("cargo:rerun-if-changed=../../migrations");
}
