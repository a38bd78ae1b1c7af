//! One deal pair of the arena: the same seed played twice, the two players'
//! seats swapped the second time, so that each holds the cards the other
//! held and the luck of the deal cancels out.

use std::time::Instant;

use anyhow::{Context, bail};
use spades_bots::knowledge::Knowledge;
use spades_bots::{Budget, Kind, Player};
use spades_engine::{Action, Game, HandRecord, Legal, RuleSet, Seat, Seating, Team, Viewer};

use super::watch::{Habits, note_play, settle};

/// The two players of an arena, by side: 0 is the first named.
pub type Side = usize;

/// What one side did over a pair's two games.
#[derive(Clone, Default, Debug)]
pub struct SideRecord {
    pub contracts: (u64, u64),
    pub nils: (u64, u64),
    pub blind_nils: (u64, u64),
    /// Bids made, nils included.
    pub bids: u64,
    pub bags: u64,
    /// Team hands played (a side holds two teams a hand in solo).
    pub team_hands: u64,
    pub habits: Habits,
    /// Decision times in nanoseconds.
    pub times: Vec<u32>,
}

/// What a deal pair came to.
#[derive(Clone, Default, Debug)]
pub struct PairResult {
    /// Games won by the first side, of two (a game without a winner counts
    /// half to each).
    pub first_wins: f64,
    pub games: u64,
    pub hands: u64,
    /// The first side's points per hand less the second's, over the hands
    /// both games reached (so over the same deals), averaged.
    pub points_per_hand: Option<f64>,
    pub sides: [SideRecord; 2],
}

/// The side playing `seat` in game `round` (0 or 1): the first side holds
/// the even seats in the first game and the odd ones in the second.
fn side_of(seat: Seat, round: usize) -> Side {
    usize::from(seat.index().is_multiple_of(2) != (round == 0))
}

fn team_side(seating: Seating, team: Team, round: usize) -> Side {
    let seat = seating.seats_of(team).first().expect("every team has a seat");
    side_of(seat, round)
}

pub fn play_pair(
    kinds: [Kind; 2],
    budget: [Budget; 2],
    rules: RuleSet,
    seed: u64,
) -> anyhow::Result<PairResult> {
    let mut result = PairResult::default();
    let mut gains: [Vec<f64>; 2] = Default::default();
    for (round, gains) in gains.iter_mut().enumerate() {
        let winner = play_game(kinds, budget, rules, seed, round, &mut result, gains)?;
        result.games += 1;
        result.first_wins += match winner {
            Some(side) => f64::from(u8::from(side == 0)),
            None => 0.5,
        };
    }
    let paired = gains[0].len().min(gains[1].len());
    if paired > 0 {
        let sum: f64 = (0..paired).map(|hand| gains[0][hand] + gains[1][hand]).sum();
        result.points_per_hand = Some(sum / (2.0 * paired as f64));
    }
    Ok(result)
}

/// Plays one game of the pair; `gains` gets the first side's lead in
/// points on each hand. Returns the winning side.
fn play_game(
    kinds: [Kind; 2],
    budget: [Budget; 2],
    rules: RuleSet,
    seed: u64,
    round: usize,
    result: &mut PairResult,
    gains: &mut Vec<f64>,
) -> anyhow::Result<Option<Side>> {
    let seating = rules.seating();
    let mut game = Game::new(rules, seed).context("the rules are valid")?;
    let mut players: Vec<_> = Seat::ALL
        .iter()
        .map(|&seat| {
            let side = side_of(seat, round);
            let player_seed = seed ^ (0x5EA7_0000 + seat.index() as u64 + 8 * round as u64);
            kinds[side].player(player_seed, budget[side])
        })
        .collect();
    let mut pending = None;
    while let Some(seat) = game.first_to_act() {
        let hand = game.hand_number();
        let side = side_of(seat, round);
        let view = game.view(Viewer::Seat(seat));
        let started = Instant::now();
        let Some(action) = players[seat.index()].act(&view) else {
            bail!("{seat} is expected to act but chose nothing");
        };
        let record = &mut result.sides[side];
        record
            .times
            .push(started.elapsed().as_nanos().min(u128::from(u32::MAX)) as u32);
        if let (Action::Play(card), Legal::Play(legal)) = (action, view.legal())
            && let Some(k) = Knowledge::new(&view)
            && let Some(play) = note_play(&k, legal, card, &mut record.habits)
        {
            pending = Some((side, play));
        }
        if let Err(error) = game.apply(seat, action) {
            bail!("{seat} chose {action}, which is refused: {error}");
        }
        if let Some((side, play)) = pending.take() {
            pending = settle(play, &game, &mut result.sides[side].habits).map(|play| (side, play));
        }
        if (game.hand_number() != hand || game.is_over())
            && let Some(record) = game.last_hand()
        {
            result.hands += 1;
            count_hand(record, seating, round, result, gains);
        }
    }
    Ok(game.winner().map(|team| team_side(seating, team, round)))
}

/// Adds a finished hand's contracts, nils and bags to each side's record,
/// and the first side's lead in points on it to `gains`.
fn count_hand(
    record: &HandRecord,
    seating: Seating,
    round: usize,
    result: &mut PairResult,
    gains: &mut Vec<f64>,
) {
    let mut points = [(0.0, 0.0); 2];
    for team in seating.teams() {
        let side = team_side(seating, team, round);
        let change = f64::from(record.hand_score[team]);
        points[side].0 += change;
        points[side].1 += 1.0;
        if record.bids.is_empty() {
            continue;
        }
        let books = &mut result.sides[side];
        books.team_hands += 1;
        let mut bids = Vec::with_capacity(2);
        let (mut counted, mut nil_tricks) = (0u8, 0u8);
        for seat in seating.seats_of(team).iter() {
            let Some(bid) = record.bids.iter().find(|bid| bid.seat == seat) else {
                continue;
            };
            let taken = record.tricks_won[seat];
            books.bids += 1;
            if bid.bid == 0 {
                let tally = if bid.blind {
                    &mut books.blind_nils
                } else {
                    &mut books.nils
                };
                tally.0 += u64::from(taken == 0);
                tally.1 += 1;
                nil_tricks += taken;
            } else {
                counted += taken;
            }
            bids.extend(bid.to_bid());
        }
        let contract = spades_engine::score::team_contract(bids);
        let mut bags = u64::from(nil_tricks);
        if contract > 0 {
            let made = counted >= contract;
            books.contracts.0 += u64::from(made);
            books.contracts.1 += 1;
            if made {
                bags += u64::from(counted - contract);
            }
        }
        books.bags += bags;
    }
    let mean = |(sum, count): (f64, f64)| if count > 0.0 { sum / count } else { 0.0 };
    gains.push(mean(points[0]) - mean(points[1]));
}
