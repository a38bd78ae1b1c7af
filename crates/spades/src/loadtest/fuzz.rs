//! Clients that misbehave beside the load test's tables: `--fuzz N` runs
//! N of them for the whole run.
//!
//! Each one says `hello` as a new guest (so the server writes an account
//! and a session), sends a few dozen messages drawn at random from every
//! kind a client may send, well-formed or not (rooms opened and joined,
//! seats taken, bids and cards out of turn, resyncs from anywhere, chat,
//! unknown types, bad JSON, oversized and non-text frames), reads whatever
//! comes back, then hangs up and starts again as someone else. The tables
//! measure how the server's players fare meanwhile: an attacker's load must
//! not pause them.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::{Value, json};
use spades_client::Client;
use spades_protocol::ws::ServerMessage;
use tokio_util::sync::CancellationToken;

/// Messages a fuzzing client sends on one connection before it hangs up.
const PER_CONNECTION: u32 = 40;

/// What the fuzzing clients did, for the report.
#[derive(Default)]
pub struct FuzzTotals {
    pub connections: AtomicU64,
    pub sent: AtomicU64,
    pub received: AtomicU64,
    /// Connections refused or lost before their messages were all sent.
    pub dropped: AtomicU64,
}

/// Runs one fuzzing client until `stop`, sending `rate` messages a second.
pub async fn fuzz(url: String, index: u64, rate: f64, totals: Arc<FuzzTotals>, stop: CancellationToken) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x5eed_0000 + index);
    let gap = Duration::from_secs_f64(1.0 / rate.max(0.01));
    let mut generation = 0u64;
    // Codes of rooms this client saw, so that some joins and resyncs hit
    // real rooms.
    let mut rooms: Vec<String> = Vec::new();
    while !stop.is_cancelled() {
        generation += 1;
        let Ok(mut client) = Client::connect(&url).await else {
            totals.dropped.fetch_add(1, Ordering::Relaxed);
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(Duration::from_millis(200)) => continue,
            }
        };
        totals.connections.fetch_add(1, Ordering::Relaxed);
        if client.hello(&format!("fz{index}g{generation}")).await.is_err() {
            totals.dropped.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        let mut whole = true;
        for _ in 0..PER_CONNECTION {
            let id = client.next_id();
            let text = message(&mut rng, json!(id), &rooms);
            if client.send_text(text).await.is_err() {
                whole = false;
                break;
            }
            totals.sent.fetch_add(1, Ordering::Relaxed);
            // Read what comes back until the next message is due.
            let until = tokio::time::Instant::now() + gap;
            loop {
                let message = tokio::select! {
                    () = stop.cancelled() => return,
                    () = tokio::time::sleep_until(until) => break,
                    message = client.next_message() => message,
                };
                match message {
                    Ok(message) => {
                        totals.received.fetch_add(1, Ordering::Relaxed);
                        remember_room(&message, &mut rooms);
                    }
                    Err(_) => {
                        whole = false;
                        break;
                    }
                }
            }
            if !whole {
                break;
            }
        }
        if !whole {
            totals.dropped.fetch_add(1, Ordering::Relaxed);
        }
        // Half the clients hang up politely; the others just go.
        if rng.next_u64() % 2 == 0 {
            client.close().await;
        }
    }
}

/// Keeps the codes of rooms the client entered or saw listed, at most 32.
fn remember_room(message: &ServerMessage, rooms: &mut Vec<String>) {
    let code = match message {
        ServerMessage::Snapshot { state, .. } => state.room.clone(),
        ServerMessage::Rooms { rooms: listed, .. } => match listed.first() {
            Some(room) => room.room.clone(),
            None => return,
        },
        _ => return,
    };
    if !rooms.contains(&code) {
        if rooms.len() == 32 {
            rooms.remove(0);
        }
        rooms.push(code);
    }
}

/// One message, drawn from every kind a client may send, with fields that
/// are sometimes right and often wrong.
fn message(rng: &mut Xoshiro256PlusPlus, id: Value, rooms: &[String]) -> String {
    let mut draw = |n: u64| rng.next_u64() % n;
    let room = if rooms.is_empty() || draw(4) == 0 {
        format!("R{:05}", draw(100_000))
    } else {
        rooms[draw(rooms.len() as u64) as usize].clone()
    };
    let value = match draw(22) {
        0 => json!({"type": "list_rooms", "id": id}),
        1 => json!({"type": "watch_lobby", "id": id}),
        2 => json!({"type": "unwatch_lobby", "id": id}),
        3 => json!({"type": "create_room", "id": id, "private": draw(2) == 0,
                    "name": format!("fuzz {}", draw(1000))}),
        4 => json!({"type": "join_room", "id": id, "room": room}),
        5 => json!({"type": "leave_room", "id": id}),
        6 => json!({"type": "sit", "id": id, "seat": draw(6)}),
        7 => json!({"type": "stand", "id": id}),
        8 => json!({"type": "add_bot", "id": id, "seat": draw(5)}),
        9 => json!({"type": "start_game", "id": id}),
        10 => json!({"type": "chat", "id": id, "text": "x".repeat(draw(320) as usize)}),
        11 => json!({"type": "bid", "id": id, "bid": draw(16) as i64 - 2, "blind": draw(2) == 0}),
        12 => {
            let card = ["AS", "2C", "QH", "ZZ", "10D", ""][draw(6) as usize];
            json!({"type": "play", "id": id, "card": card})
        }
        13 => json!({"type": "pass_cards", "id": id, "cards": ["2C", "2C"]}),
        14 => json!({"type": "resync", "id": id, "room": room, "last_seq": draw(300)}),
        15 => json!({"type": "queue", "id": id}),
        16 => json!({"type": "leave_queue", "id": id}),
        17 => json!({"type": "ping", "id": id}),
        18 => json!({"type": "no_such_type", "id": id}),
        19 => json!({"type": "bid", "id": id, "bid": "seven"}),
        // Not JSON at all, cut short, or too large.
        20 => {
            let broken = ["{\"type\":", "}{", "null", "[1,2,3]", "\u{feff}hello"];
            return broken[draw(5) as usize].into();
        }
        _ => return format!("{{\"type\":\"chat\",\"id\":1,\"text\":\"{}\"}}", "y".repeat(5000)),
    };
    value.to_string()
}
