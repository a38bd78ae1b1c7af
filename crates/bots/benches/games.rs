//! Speed of the engine under random play.
//!
//! `random_games` plays complete games of every preset and reports hands
//! per second;
//! `legal_plays` and `apply` time the two calls of the play loop alone;
//! `decide` times one decision of each bot at the start and in the middle
//! of a hand's play;
//! `finished_game` times the check of a whole game against its seed
//! (`spades verify`) and the expert's review of one seat's play.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use spades_bots::expert::review::{REVIEW_SAMPLES, review};
use spades_bots::{BasicBot, Budget, Player, RandomPlayer, StrongBot, play_out};
use spades_engine::{Action, Game, Phase, Preset, RuleSet, Seat};
use std::hint::black_box;

const GAMES: u64 = 100;

fn players(seed: u64) -> [RandomPlayer; 4] {
    std::array::from_fn(|i| RandomPlayer::new(seed.wrapping_mul(4).wrapping_add(i as u64)))
}

/// Plays `GAMES` games from fixed seeds and returns the number of hands.
fn play_games(rules: RuleSet) -> u64 {
    let mut hands = 0;
    for seed in 0..GAMES {
        let mut game = Game::new(rules, seed).expect("preset rules are valid");
        play_out(&mut game, &mut players(seed), |_| hands += 1);
    }
    hands
}

/// A game in the middle of the first hand's play: every seat has bid and
/// `tricks` tricks have been played.
fn mid_hand(tricks: usize) -> Game {
    let mut game = Game::new(RuleSet::CLASSIC, 42).expect("valid rules");
    let mut players = players(42);
    while game.phase() != Phase::Playing || game.tricks().len() < tricks {
        let seat = game.to_act().iter().next().expect("the first hand is not over");
        let action = spades_bots::Player::act(
            &mut players[seat.index()],
            &game.view(spades_engine::Viewer::Seat(seat)),
        )
        .expect("a seat to act has an action");
        game.apply(seat, action).expect("random players play legally");
    }
    game
}

fn bench(c: &mut Criterion) {
    // Every preset, so that a house rule that slows the engine shows here.
    for preset in Preset::ALL {
        let (name, rules) = (preset.name(), preset.rules());
        let hands = play_games(rules);
        let mut group = c.benchmark_group(format!("random_games/{name}"));
        group.throughput(Throughput::Elements(hands));
        group.bench_function(format!("{GAMES} games, {hands} hands"), |b| {
            b.iter(|| black_box(play_games(rules)))
        });
        group.finish();
    }

    let game = mid_hand(5);
    let seat: Seat = game.to_act().iter().next().expect("someone is to play");
    c.bench_function("legal_plays", |b| {
        b.iter(|| black_box(&game).legal_plays(black_box(seat)))
    });
    let card = game
        .legal_plays(seat)
        .lowest()
        .expect("the player holds a legal card");
    c.bench_function("apply/play", |b| {
        b.iter_batched_ref(
            || game.clone(),
            |game| black_box(game.apply(seat, Action::Play(card))),
            BatchSize::SmallInput,
        )
    });
}

fn bench_decisions(c: &mut Criterion) {
    let mut group = c.benchmark_group("decide");
    for tricks in [0, 6] {
        let game = mid_hand(tricks);
        let seat: Seat = game.to_act().iter().next().expect("someone is to play");
        let view = game.view(spades_engine::Viewer::Seat(seat));
        group.bench_function(format!("bot/after {tricks} tricks"), |b| {
            b.iter(|| black_box(BasicBot.act(black_box(&view))))
        });
        let mut strong = StrongBot::new(1, Budget::REPEATABLE);
        group.bench_function(format!("strong/after {tricks} tricks"), |b| {
            b.iter(|| black_box(strong.act(black_box(&view))))
        });
    }
    group.finish();
}

/// A whole classic game played by basic bots: its actions and its hands.
fn basic_game(seed: u64) -> (Vec<(Seat, Action)>, Vec<spades_engine::HandRecord>) {
    let mut game = Game::new(RuleSet::CLASSIC, seed).expect("valid rules");
    let (mut actions, mut hands) = (Vec::new(), Vec::new());
    while let Some(seat) = game.first_to_act() {
        let action = BasicBot
            .act(&game.view(spades_engine::Viewer::Seat(seat)))
            .expect("a seat to act has an action");
        let hand = game.hand_number();
        game.apply(seat, action).expect("the basic bot plays legally");
        actions.push((seat, action));
        if game.hand_number() != hand || game.is_over() {
            hands.extend(game.last_hand().cloned());
        }
    }
    (actions, hands)
}

fn bench_finished_game(c: &mut Criterion) {
    let (actions, hands) = basic_game(3);
    let mut group = c.benchmark_group(format!("finished_game/{} hands", hands.len()));
    group.bench_function("verify", |b| {
        b.iter(|| black_box(spades_engine::check_hands(RuleSet::CLASSIC, 3, black_box(&hands)).is_ok()))
    });
    // A review takes about a second: a few samples are enough.
    group.sample_size(10);
    group.bench_function("review one seat", |b| {
        b.iter(|| {
            let review = review(
                RuleSet::CLASSIC,
                3,
                black_box(&actions),
                Seat::ALL[0],
                REVIEW_SAMPLES,
            );
            black_box(review.expect("the game replays").decisions)
        })
    });
    group.finish();
}

criterion_group!(benches, bench, bench_decisions, bench_finished_game);
criterion_main!(benches);
