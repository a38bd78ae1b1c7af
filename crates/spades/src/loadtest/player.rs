//! The clients of the tables: how a table is seated, and how each of its
//! clients plays, thinks and times the server's confirmations.

use std::net::{IpAddr, SocketAddr};
use std::ops::ControlFlow;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use spades_client::table::Move;
use spades_client::{Client, ClientError, TableState};
use spades_protocol::event::EventKind;
use spades_protocol::ws::{BotLevel, ClientMessage, RulesSpec, ServerMessage};

use super::{Layout, SLOW, Totals, report_error};

/// When a table starts and how long its players think.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pace {
    pub(super) think_ms: u64,
    pub(super) spread: f64,
    pub(super) start_at: tokio::time::Instant,
}

impl Pace {
    fn think(&self, rng: &mut spades_engine::GameRng) -> Duration {
        think_time(Duration::from_millis(self.think_ms), self.spread, rng)
    }
}

/// What a client knows about its last action until the server confirms it.
struct Pending {
    sent: Instant,
    mv: Move,
    step: Step,
}

/// The kinds of action whose latencies are also reported apart. The play
/// that ends a hand does the most: the server stores the hand's record
/// with it and deals the next hand before confirming it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Step {
    /// A bid, a look at one's cards or a choice of cards to pass.
    Bid,
    Play,
    LastPlay,
}

impl Step {
    pub(super) const ALL: [Step; 3] = [Step::Bid, Step::Play, Step::LastPlay];

    /// The step of `mv`, made at the table `state` describes.
    fn of(mv: Move, state: &TableState) -> Step {
        let seats = state.rules.map_or(4, |rules| rules.seating().seat_count());
        match mv {
            Move::Play(_) if state.cards.len() == 1 && state.trick.len() + 1 == seats => Step::LastPlay,
            Move::Play(_) => Step::Play,
            Move::Bid { .. } | Move::Look | Move::Pass(_) => Step::Bid,
        }
    }

    pub(super) fn describe(self) -> &'static str {
        match self {
            Step::Bid => "bids, looks and passes",
            Step::Play => "plays but a hand's last",
            Step::LastPlay => "a hand's last play",
        }
    }
}

/// One think time, uniform between mean × (1 − spread) and
/// mean × (1 + spread), to the microsecond.
pub(super) fn think_time(mean: Duration, spread: f64, rng: &mut spades_engine::GameRng) -> Duration {
    let mean = mean.as_micros() as f64;
    let low = mean * (1.0 - spread);
    let width = (2.0 * mean * spread) as u32;
    let offset = if width == 0 { 0 } else { rng.below(width + 1) };
    Duration::from_micros((low as u64).saturating_add(u64::from(offset)))
}

/// Connects four clients, seats them at a new private room and starts a game.
pub(super) async fn seat_table(
    urls: &[String],
    sources: &[IpAddr],
    layout: Layout,
    table: usize,
    bot: Option<BotLevel>,
) -> anyhow::Result<Vec<(Client, TableState, bool)>> {
    let people = if bot.is_some() { 3 } else { 4 };
    let mut clients = Vec::with_capacity(people);
    // The room opens on the node of seat 0, whose client creates it.
    let owner = layout.server(table, 0, urls.len());
    for seat in 0..people {
        let server = layout.server(table, seat, urls.len());
        // The clients take the source addresses in turn, table after table.
        let source = (!sources.is_empty()).then(|| sources[(table * 4 + seat) % sources.len()]);
        let mut client = connect(&urls[server], source).await?;
        client.timeout = Duration::from_secs(60);
        let welcome = client.hello(&format!("t{table}s{seat}")).await?;
        let ServerMessage::Welcome { player, .. } = welcome else {
            bail!("expected a welcome, got {welcome:?}");
        };
        let state = TableState {
            me: Some(player.id),
            ..TableState::default()
        };
        clients.push((client, state, server != owner));
    }
    let created = clients[0]
        .0
        .request(|id| ClientMessage::CreateRoom {
            speed: Default::default(),
            id,
            name: None,
            rules: RulesSpec::default(),
            private: true,
            bots: Some(BotLevel::Basic),
            rated: false,
        })
        .await?;
    let ServerMessage::Snapshot { state, .. } = created else {
        bail!("expected a snapshot, got {created:?}");
    };
    let code = state.room;
    for (seat, (client, _, _)) in clients.iter_mut().enumerate() {
        if seat > 0 {
            join(client, &code).await?;
        }
        let seat = spades_engine::Seat::new(seat as u8);
        client.request(|id| ClientMessage::Sit { id, seat }).await?;
    }
    if let Some(level) = bot {
        let seat = spades_engine::Seat::new(3);
        let level = Some(level);
        clients[0]
            .0
            .request(|id| ClientMessage::AddBot { id, seat, level })
            .await?;
    }
    // What arrived while waiting for the replies tells each client its seat.
    // The first client starts the game when the table's turn comes.
    for (client, state, _) in &mut clients {
        for message in client.take_pending() {
            state.apply(&message);
        }
    }
    Ok(clients)
}

/// Enters a room. On a cluster the room may have opened on another node a
/// moment ago, before every node knows of it: a join refused with
/// `room_not_found` is tried again for a little while.
async fn join(client: &mut Client, code: &str) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let room = code.to_string();
        match client.request(|id| ClientMessage::JoinRoom { id, room }).await {
            Ok(_) => return Ok(()),
            Err(ClientError::Refused {
                code: spades_protocol::ws::ErrorCode::RoomNotFound,
                ..
            }) if Instant::now() < deadline => tokio::time::sleep(Duration::from_millis(20)).await,
            Err(error) => return Err(error.into()),
        }
    }
}

/// Connects one client, and says what to change when the server turns it
/// away.
async fn connect(url: &str, source: Option<IpAddr>) -> anyhow::Result<Client> {
    use tokio_tungstenite::tungstenite::Error;
    let connected = match source {
        None => Client::connect(url).await,
        Some(source) => Client::connect_over(url, connect_from(url, source).await?).await,
    };
    match connected {
        Ok(client) => Ok(client),
        Err(ClientError::WebSocket(Error::Http(response))) if response.status() == 503 => {
            bail!("{}", refusal(response.body().as_deref()))
        }
        Err(error) => Err(error).context("cannot connect"),
    }
}

/// A TCP connection to the server of `url` from the local address `source`.
async fn connect_from(url: &str, source: IpAddr) -> anyhow::Result<tokio::net::TcpStream> {
    let parsed: tokio_tungstenite::tungstenite::http::Uri =
        url.parse().with_context(|| format!("{url} is not a URL"))?;
    let host = parsed.host().context("the server's URL names no host")?;
    if parsed.scheme_str() != Some("ws") {
        bail!("--source connects over plain TCP: give the server a ws:// URL");
    }
    let port = parsed.port_u16().unwrap_or(80);
    let server = tokio::net::lookup_host((host, port))
        .await?
        .find(|address| address.is_ipv4() == source.is_ipv4())
        .with_context(|| format!("{host} has no address of the same family as {source}"))?;
    let socket = if source.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    socket
        .bind(SocketAddr::new(source, 0))
        .with_context(|| format!("cannot connect from {source}"))?;
    let stream = socket.connect(server).await.context("cannot connect")?;
    stream.set_nodelay(true)?;
    Ok(stream)
}

/// What a `503` refusal of the upgrade means for the run, from its body (the
/// HTTP API's `{"error": code, "message": text}`).
fn refusal(body: Option<&[u8]>) -> String {
    let code = body
        .and_then(|body| serde_json::from_slice::<serde_json::Value>(body).ok())
        .and_then(|body| body["error"].as_str().map(str::to_owned));
    match code.as_deref() {
        Some("too_many_connections") => "the server refused a connection because this address holds as many \
             as it allows one address (too_many_connections); every client of the load test comes from \
             one address, so start the server with `--max-connections-per-address 0 \
             --max-sockets-per-address 0` (no limit per address)"
            .into(),
        Some("server_full") => "the server refused a connection because it is full (server_full); \
             raise its --max-connections and its open-file limit, or run fewer tables"
            .into(),
        _ => {
            let body = body.map(String::from_utf8_lossy).unwrap_or_default();
            format!(
                "the server refused a connection with 503 ({}); if it limits connections per address, \
                 start it with `--max-connections-per-address 0 --max-sockets-per-address 0`",
                body.trim()
            )
        }
    }
}

/// Plays until the run stops; returns this client's latency samples in
/// microseconds, each with the kind of action it measured.
pub(super) async fn play(
    mut client: Client,
    mut state: TableState,
    pace: Pace,
    seed: u64,
    totals: Arc<Totals>,
) -> Vec<(Step, u32)> {
    let mut samples = Vec::new();
    let mut acted_on = 0;
    let mut pending: Option<Pending> = None;
    let first = state.seat.is_some_and(|seat| seat.index() == 0);
    let mut rng = spades_engine::GameRng::new(seed);
    let mut counted = client.traffic();
    let stop = totals.stop.child_token();
    let stopped = stop.cancelled();
    tokio::pin!(stopped);
    if first
        && start_first_game(&mut client, stopped.as_mut(), pace, &totals)
            .await
            .is_break()
    {
        return samples;
    }
    loop {
        if state.my_turn() && acted_on < state.turn_seq {
            let Some(mv) = state.decide(false) else { break };
            acted_on = state.turn_seq;
            let think = pace.think(&mut rng);
            match act(&mut client, stopped.as_mut(), mv, &state, think, &totals).await {
                Some(sent) => pending = Some(sent),
                None => break,
            }
        }
        let message = tokio::select! {
            biased;
            () = &mut stopped => break,
            message = client.next_message() => match message {
                Ok(message) => message,
                Err(_) => {
                    totals.errors.fetch_add(1, Ordering::Relaxed);
                    break;
                }
            },
        };
        state.apply(&message);
        let measuring = totals.measuring.load(Ordering::Relaxed);
        let traffic = client.traffic();
        if measuring {
            totals.count_traffic(traffic - counted);
        }
        counted = traffic;
        if let Some((sent, step)) = pending
            .as_ref()
            .filter(|p| confirms(&message, p.mv, &state))
            .map(|p| (p.sent, p.step))
        {
            if measuring {
                record_latency(sent, step, &mut samples, &totals);
            }
            totals.all_actions.fetch_add(1, Ordering::Relaxed);
            pending = None;
        }
        if let ServerMessage::Error { code, message, .. } = &message {
            report_error(&totals, *code, message);
        }
        if first
            && keep_table_going(&mut client, &message, measuring, &totals)
                .await
                .is_break()
        {
            break;
        }
    }
    client.close().await;
    samples
}

/// Waits for the table's moment to start, then starts its first game: the
/// first client's part before it plays. Breaks when the run stops first or
/// the game cannot be started.
async fn start_first_game(
    client: &mut Client,
    stopped: Pin<&mut impl Future<Output = ()>>,
    pace: Pace,
    totals: &Totals,
) -> ControlFlow<()> {
    tokio::select! {
        () = stopped => return ControlFlow::Break(()),
        () = tokio::time::sleep_until(pace.start_at) => {}
    }
    let id = client.next_id();
    if client.send(&ClientMessage::StartGame { id }).await.is_err() {
        totals.errors.fetch_add(1, Ordering::Relaxed);
        return ControlFlow::Break(());
    }
    ControlFlow::Continue(())
}

/// Thinks for `think`, then sends `mv`; returns what to wait for to
/// confirm it, or `None` when the run stops first or the move cannot be
/// sent.
async fn act(
    client: &mut Client,
    stopped: Pin<&mut impl Future<Output = ()>>,
    mv: Move,
    state: &TableState,
    think: Duration,
    totals: &Totals,
) -> Option<Pending> {
    if !think.is_zero() {
        tokio::select! {
            () = stopped => return None,
            () = tokio::time::sleep(think) => {}
        }
    }
    let id = client.next_id();
    let pending = Pending {
        sent: Instant::now(),
        mv,
        step: Step::of(mv, state),
    };
    if client.send(&mv.message(id)).await.is_err() {
        totals.errors.fetch_add(1, Ordering::Relaxed);
        return None;
    }
    Some(pending)
}

/// Keeps the latency of an action sent at `sent` and confirmed now, and
/// notes it among the slow ones when it is.
fn record_latency(sent: Instant, step: Step, samples: &mut Vec<(Step, u32)>, totals: &Totals) {
    let latency = sent.elapsed();
    let micros = latency.as_micros().min(u128::from(u32::MAX)) as u32;
    samples.push((step, micros));
    if latency >= SLOW {
        totals
            .slow
            .lock()
            .expect("no client panics holding it")
            .push((sent, micros));
    }
    totals.actions.fetch_add(1, Ordering::Relaxed);
}

/// The first client's care of its table: it counts the hands scored, and
/// starts a new game when one ends. Breaks when the new game cannot be
/// started.
async fn keep_table_going(
    client: &mut Client,
    message: &ServerMessage,
    measuring: bool,
    totals: &Totals,
) -> ControlFlow<()> {
    match message.event() {
        Some(EventKind::HandScored { .. }) => {
            if measuring {
                totals.hands.fetch_add(1, Ordering::Relaxed);
            }
            totals.all_hands.fetch_add(1, Ordering::Relaxed);
        }
        Some(EventKind::GameOver { .. }) => {
            let id = client.next_id();
            if client.send(&ClientMessage::StartGame { id }).await.is_err() {
                return ControlFlow::Break(());
            }
        }
        _ => {}
    }
    ControlFlow::Continue(())
}

/// Whether `message` is the event that shows this seat's move applied.
fn confirms(message: &ServerMessage, mv: Move, state: &TableState) -> bool {
    let me = state.seat;
    match (message.event(), mv) {
        (Some(EventKind::BidMade { seat, .. }), Move::Bid { .. }) => Some(*seat) == me,
        (Some(EventKind::HandRevealed { seat, .. }), Move::Look) => Some(*seat) == me,
        (Some(EventKind::CardsPassed { from, .. }), Move::Pass(_)) => Some(*from) == me,
        (Some(EventKind::PassChosen { seat, .. }), Move::Pass(_)) => Some(*seat) == me,
        (Some(EventKind::CardPlayed { seat, .. }), Move::Play(_)) => Some(*seat) == me,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn think_times_spread_evenly_around_the_mean() {
        let pace = |spread| Pace {
            think_ms: 500,
            spread,
            start_at: tokio::time::Instant::now(),
        };
        let mut rng = spades_engine::GameRng::new(7);
        let spread = pace(0.5);
        let times: Vec<u128> = (0..10_000).map(|_| spread.think(&mut rng).as_micros()).collect();
        assert!(times.iter().all(|&t| (250_000..=750_000).contains(&t)));
        let mean = times.iter().sum::<u128>() / times.len() as u128;
        assert!((490_000..=510_000).contains(&mean), "mean {mean} µs");
        // Both halves of the range are used.
        assert!(times.iter().any(|&t| t < 300_000) && times.iter().any(|&t| t > 700_000));
        let exact = pace(0.0);
        assert_eq!(exact.think(&mut rng), Duration::from_millis(500));
        let none = Pace {
            think_ms: 0,
            ..spread
        };
        assert_eq!(none.think(&mut rng), Duration::ZERO);
    }

    #[test]
    fn a_refusal_names_the_setting_to_change() {
        let per_address = refusal(Some(
            br#"{"error":"too_many_connections","message":"your address holds as many"}"#,
        ));
        assert!(
            per_address.contains("--max-connections-per-address 0"),
            "{per_address}"
        );
        let full = refusal(Some(br#"{"error":"server_full","message":"full"}"#));
        assert!(
            full.contains("--max-connections") && !full.contains("per-address"),
            "{full}"
        );
        // An answer without a body (or from an older server) still points
        // at the likeliest cause.
        let unknown = refusal(None);
        assert!(unknown.contains("--max-connections-per-address 0"), "{unknown}");
    }
}
