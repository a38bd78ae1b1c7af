//! Random games played to the end under every rule variation, and positions
//! written out from them. A few hand-picked deals cannot reach the rare
//! combinations of rules and cards, so these properties play many seeds and
//! compare each step with the plain statements of the rules.

use super::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_games_follow_every_rule(rules in rule_sets(), seed in any::<u64>()) {
        follow_every_rule(rules, seed)?;
    }

    #[test]
    fn random_three_player_games_follow_every_rule(rules in three_player_rule_sets(), seed in any::<u64>()) {
        follow_every_rule(rules, seed)?;
    }
}

/// Plays a game of random actions under `rules`, checking every refusal,
/// every legal play and every hand's record against the plain statement
/// of the rules, then replays it.
fn follow_every_rule(rules: RuleSet, seed: u64) -> Result<(), TestCaseError> {
    let mut game = Game::new(rules, seed).unwrap();
    let mut rng = GameRng::new(seed.rotate_left(17));
    let mut actions = Vec::new();
    let team_count = naive_teams(&rules).len();
    let mut score = vec![0; team_count];
    let mut bags = vec![0; team_count];
    let mut hands = 0;
    let mut sets = vec![0u8; team_count];

    while let Some(seat) = game.to_act().first() {
        // Every bid is accepted exactly when the bidding rules allow it.
        if game.phase() == spades_engine::Phase::Bidding && !game.is_hand_hidden(seat) {
            let partner = if rules.partners {
                game.bids()[seat.partner()]
            } else {
                None
            };
            let spades = naive_spades(rules.deck, game.hand(seat));
            for n in 0..=spades_engine::MAX_TRICKS + 1 {
                let bid = if n == 0 { Bid::Nil } else { Bid::Tricks(n) };
                let accepted = game.check(seat, Action::Bid(bid)).is_ok();
                prop_assert_eq!(
                    accepted,
                    naive_bid_allowed(&rules, bid, spades, partner),
                    "bid {}",
                    bid
                );
            }
        }
        // A team blind bid is accepted exactly when the team trails by
        // the margin and neither partner has seen his cards or bid; a
        // player whose cards are hidden always has a blind bid open.
        if game.phase() == spades_engine::Phase::Bidding && game.is_hand_hidden(seat) {
            let partner = seat.partner();
            let scores = game.score();
            let best_other = scores
                .teams()
                .filter(|&t| t != seat.team())
                .map(|t| scores[t])
                .max()
                .unwrap();
            let open = rules.partners
                && rules.team_blind > 0
                && best_other - scores[seat.team()] >= rules.team_blind_min_deficit
                && game.is_hand_hidden(partner)
                && game.bids()[partner].is_none();
            for n in 1..=spades_engine::MAX_TRICKS + 1 {
                let accepted = game.check(seat, Action::Bid(Bid::Blind(n))).is_ok();
                let most = rules.max_team_bid.unwrap_or(13);
                prop_assert_eq!(
                    accepted,
                    open && n >= rules.team_blind && n <= most,
                    "blind {}",
                    n
                );
            }
            let blind_nil = game.check(seat, Action::Bid(Bid::BlindNil)).is_ok();
            prop_assert!(open || blind_nil, "{} hidden with no blind bid open", seat);
        }

        // Every card is accepted exactly when it is a legal play, for
        // the seat to act and for every other seat.
        for probe in Seat::ALL {
            let legal = game.legal_plays(probe);
            prop_assert_eq!(legal, naive_legal_plays(&game, probe));
            // Both twos of spades and the jokers are probed in every
            // pack: a card string names the pack's own two.
            for card in CardSet::STANDARD_DECK | Deck::Jokers.cards() {
                let accepted = game.check(probe, Action::Play(card)).is_ok();
                prop_assert_eq!(
                    accepted,
                    legal.contains(rules.deck.card(card)),
                    "{} {}",
                    probe,
                    card
                );
            }
        }

        // A refused action returns the same reason as `check` and
        // changes nothing.
        let probe_seat = Seat::ALL[rng.below(4) as usize];
        let probe = arbitrary_action(&mut rng);
        if let Err(reason) = game.check(probe_seat, probe) {
            let before = game.clone();
            prop_assert_eq!(game.apply(probe_seat, probe), Err(reason));
            prop_assert_eq!(&game, &before);
        }

        let action = random_action(&game, seat, &mut rng).unwrap();
        let events = game.apply(seat, action).unwrap();
        actions.push((seat, action));
        for event in &events {
            if let Event::HandEnded { hand } = *event {
                prop_assert_eq!(hand, hands);
                let record = game.last_hand().unwrap();
                let teams = check_record(&rules, record, &score, &bags);
                score = record.score.as_slice().to_vec();
                bags = record.bags.as_slice().to_vec();
                hands += 1;
                for (count, (set, _)) in sets.iter_mut().zip(teams.iter().copied()) {
                    *count = if set { *count + 1 } else { 0 };
                }
                let boston = (0..team_count)
                    .find(|&i| teams[i].1)
                    .and_then(|i| Team::new(i as u8));
                prop_assert_eq!(record.winner, naive_end(&rules, &score, hands, boston, &sets));
                prop_assert_eq!(game.winner(), record.winner);
            }
        }
    }
    prop_assert!(game.is_over());
    prop_assert!(game.winner().is_some());

    // The game replays exactly from its rules, seed and actions, and
    // an observer of the replay sees every hand end, in order.
    let replayed = Game::replay(rules, seed, &actions).unwrap();
    prop_assert_eq!(&replayed, &game);
    let mut seen = Vec::new();
    let mut applied = 0;
    let observed = Game::replay_observed(rules, seed, &actions, |game, events| {
        applied += 1;
        for event in events {
            if let Event::HandEnded { hand } = *event {
                seen.push((hand, game.last_hand().map(|record| record.score)));
            }
        }
    })
    .unwrap();
    prop_assert_eq!(observed, game);
    prop_assert_eq!(applied, actions.len());
    prop_assert_eq!(seen.len() as u32, hands);
    prop_assert!(
        seen.iter()
            .enumerate()
            .all(|(i, (hand, score))| *hand == i as u32 && score.is_some())
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A game set up from a position written out from another game plays
    /// on exactly as the original: same legal plays, same tricks, same
    /// score for the hand.
    #[test]
    fn a_written_out_position_plays_on_like_the_original(
        rules in rule_sets(),
        seed in any::<u64>(),
        plays in 0usize..54,
    ) {
        let mut game = Game::new(rules, seed).unwrap();
        let mut rng = GameRng::new(seed ^ 0xF00D);
        let mut played = 0;
        while let Some(seat) = game.to_act().first() {
            if game.phase() == spades_engine::Phase::Playing && played == plays {
                break;
            }
            let action = random_action(&game, seat, &mut rng).unwrap();
            if matches!(action, Action::Play(_)) {
                played += 1;
            }
            game.apply(seat, action).unwrap();
            prop_assume!(game.hand_number() == 0);
        }
        prop_assume!(game.phase() == spades_engine::Phase::Playing);
        // A position names the bids, which a hand played without them lacks.
        prop_assume!(!game.is_unbid_hand());
        // The empty seat of a three-player game never bids.
        let bids = spades_engine::BySeat::from_fn(|seat| game.bids()[seat].unwrap_or(Bid::Nil));
        let position = spades_engine::Position {
            hand_number: game.hand_number(),
            dealer: game.dealer(),
            score: game.score(),
            bags: game.bags(),
            bids,
            hands: spades_engine::BySeat::from_fn(|seat| game.hand(seat)),
            tricks: game.tricks(),
            trick: game.current_trick().1,
            passes: game.passes(),
        };
        let mut copy = Game::from_position(rules, 1, &position).unwrap();
        prop_assert_eq!(copy.dealt(), game.dealt());
        while game.hand_number() == 0 && !game.is_over() {
            let seat = game.to_act().first().unwrap();
            prop_assert_eq!(copy.to_act(), game.to_act());
            prop_assert_eq!(copy.legal_plays(seat), game.legal_plays(seat));
            prop_assert_eq!(copy.spades_broken(), game.spades_broken());
            let action = random_action(&game, seat, &mut rng).unwrap();
            prop_assert_eq!(copy.apply(seat, action), game.apply(seat, action));
        }
        prop_assert_eq!(copy.last_hand(), game.last_hand());
        prop_assert_eq!(copy.last_hand_scores(), game.last_hand_scores());
    }
}
