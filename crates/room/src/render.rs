//! Turning the engine's state into the protocol's views, for one viewer.
//!
//! What a player is sent about a game comes from an engine `View`, so the
//! rule "nobody sees another player's cards" is kept in one place; the one
//! exception is an exchange's cards, which the room sends from the engine's
//! event to the two seats of the exchange alone.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use spades_engine::{Bid, BySeat, ByTeam, Game, Legal, Seat, Seating, TeamHandScore, View, Viewer};
use spades_protocol::ws::{BidView, Expected, GameView, PassView, TeamScoreView, TrickView, TurnView};
use uuid::Uuid;

/// The seats of each team, in team order, as the room state tells them.
pub fn teams(seating: Seating) -> Vec<Vec<Seat>> {
    seating
        .teams()
        .map(|team| {
            seating
                .seats()
                .filter(|&seat| seating.team_of(seat) == team)
                .collect()
        })
        .collect()
}

pub fn bid_view(bid: Bid) -> BidView {
    BidView {
        bid: bid.contract(),
        blind: bid.is_blind(),
    }
}

pub fn team_scores(scores: &ByTeam<TeamHandScore>) -> Vec<TeamScoreView> {
    scores
        .as_slice()
        .iter()
        .map(|s| TeamScoreView {
            contract: s.contract,
            blind: s.blind,
            tricks: s.counted_tricks,
            contract_points: s.contract_points,
            set: s.set,
            nil_points: s.nil_points,
            bags_taken: s.bags_taken,
            bag_points: s.bag_points,
            bag_penalty: s.bag_penalty,
            change: s.change,
            score: s.score,
            bags: s.bags,
        })
        .collect()
}

/// What the game expects of a seat, if anything (a seat that may only look
/// at its cards is not expected to act).
pub fn expected(game: &Game, seat: Seat) -> Option<Expected> {
    match game.legal(seat) {
        Legal::Wait | Legal::Look => None,
        Legal::BlindOrLook(_) => Some(Expected::BlindNilOrLook),
        Legal::Bid(_) => Some(Expected::Bid),
        Legal::Pass { .. } => Some(Expected::Pass),
        Legal::Play(_) => Some(Expected::Play),
    }
}

/// Milliseconds since the Unix epoch of an instant `remaining` from now.
pub fn epoch_ms_in(remaining: Duration) -> u64 {
    let at = SystemTime::now() + remaining;
    at.duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as u64)
}

/// The turn as `viewer` sees it: the acting seats, what they must do and
/// the clock; the acting player alone also gets his legal cards or pass
/// count.
pub fn turn_view(game: &Game, clocks: &BySeat<Option<Duration>>, viewer: Viewer) -> Option<TurnView> {
    let seats: Vec<Seat> = game.to_act().iter().collect();
    let first = *seats.first()?;
    let remaining = |seat: Seat| clocks[seat].unwrap_or_default();
    let mine = match viewer {
        Viewer::Seat(seat) if seats.contains(&seat) => Some(seat),
        _ => None,
    };
    let clock = remaining(mine.unwrap_or(first));
    let (legal, pass_count, bids) = match mine.map(|seat| game.legal(seat)) {
        Some(Legal::Play(cards)) => (Some(cards), None, None),
        Some(Legal::Pass { count }) => (None, Some(count), None),
        Some(Legal::Bid(choices) | Legal::BlindOrLook(choices)) => {
            (None, None, Some(choices.numbers().collect()))
        }
        _ => (None, None, None),
    };
    Some(TurnView {
        seats,
        expected: expected(game, mine.unwrap_or(first))?,
        clock_ms: clock.as_millis() as u64,
        deadline: epoch_ms_in(clock),
        legal,
        pass_count,
        bids,
    })
}

fn trick_view(view: &View<'_>) -> TrickView {
    let (leader, cards) = view.current_trick();
    TrickView {
        leader,
        cards: cards.to_vec(),
        winner: None,
    }
}

/// The whole game as one viewer may see it: the game is the room's
/// `number`th, stored under `id`.
pub fn game_view(
    game: &Game,
    (number, id): (u32, Uuid),
    clocks: &BySeat<Option<Duration>>,
    viewer: Viewer,
) -> GameView {
    let view = game.view(viewer);
    let seating = game.seating();
    let game_id = id.to_string();
    GameView {
        game: number,
        deal_commitment: spades_engine::deal_commitment(&game_id, game.seed()),
        game_id,
        rules: *view.rules(),
        phase: view.phase().to_string(),
        hand: view.hand_number(),
        dealer: view.dealer(),
        score: view.score(),
        bags: view.bags(),
        seat: view.seat(),
        cards: view.hand(),
        blind_nil_offered: view.blind_nil_offered(),
        hand_sizes: view.hand_sizes().played(seating).to_vec(),
        bids: view
            .bids()
            .played(seating)
            .iter()
            .map(|bid| bid.map(bid_view))
            .collect(),
        passes: view
            .passes()
            .map(|pass| PassView {
                from: pass.from,
                to: pass.to,
                cards: pass.cards,
            })
            .collect(),
        pass_chosen: Some(view.pass_chosen()).filter(|cards| !cards.is_empty()),
        trick: trick_view(&view),
        tricks: view
            .tricks()
            .iter()
            .map(|trick| TrickView {
                leader: trick.leader,
                cards: trick.cards.to_vec(),
                winner: Some(trick.winner),
            })
            .collect(),
        tricks_won: view.tricks_won().played(seating).to_vec(),
        spades_broken: view.spades_broken(),
        turn: turn_view(game, clocks, viewer),
        winner: view.winner(),
    }
}
