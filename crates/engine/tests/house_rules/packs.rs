//! Packs other than the standard one, such as the jokers pack. The rank of each
//! card, which suit it follows and which club leads all change with the pack,
//! so these cases play tricks with the unusual cards.

use super::*;
use spades_engine::{Card, CardSet, Deck, Seat, Suit};

/// A deal of the joker pack, worked out by hand (seat 3 deals, so seat
/// 0 bids and leads first):
///
/// - seat 0: the big joker, 3S and eleven hearts;
/// - seat 1: the little joker, 4S, AH and ten clubs;
/// - seat 2: 2S, AS, KC, AC and nine diamonds;
/// - seat 3: nine spades from KS down and four diamonds.
const JOKER_DEAL: [&str; 4] = [
    "BJ 3S 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
    "LJ 4S AH 3C 4C 5C 6C 7C 8C 9C TC JC QC",
    "2S AS KC AC 2D 3D 4D 5D 6D 7D 8D 9D TD",
    "KS QS JS TS 9S 8S 7S 6S 5S JD QD KD AD",
];

fn jokers(rules: RuleSet) -> Game {
    let game = game_with(rules, 3, JOKER_DEAL, [0, 0]);
    assert_eq!(game.hand(seat(2)).len(), 13);
    game
}

fn ones(game: &mut Game) {
    bid_round(game, [Bid::Tricks(1); 4]);
}

fn trick_winner(events: &[Event]) -> Seat {
    events
        .iter()
        .find_map(|event| match event {
            Event::TrickWon { winner, .. } => Some(*winner),
            _ => None,
        })
        .expect("the trick is complete")
}

#[test]
fn jokers_follow_as_spades_and_rank_above_the_raised_two_and_the_ace() {
    let mut game = jokers(RuleSet {
        spades_lead: SpadesLead::AnyTime,
        ..Preset::Jokers.rules()
    });
    ones(&mut game);
    play(&mut game, 0, "3S");
    // The little joker is a spade: seat 1 must follow with it or 4S.
    assert_eq!(game.legal_plays(seat(1)), cards("LJ 4S"));
    play(&mut game, 1, "4S");
    // "2S" names the raised two, which beats the king.
    play(&mut game, 2, "2S");
    let won = play(&mut game, 3, "KS");
    assert_eq!(trick_winner(&won), seat(2));

    play(&mut game, 2, "AS");
    play(&mut game, 3, "QS");
    play(&mut game, 0, "BJ");
    let won = play(&mut game, 1, "LJ");
    assert_eq!(trick_winner(&won), seat(0), "the big joker beats the little one");
}

#[test]
fn a_joker_trumps_a_plain_suit_it_cannot_follow() {
    let mut game = jokers(RuleSet {
        spades_lead: SpadesLead::AnyTime,
        ..Preset::Jokers.rules()
    });
    ones(&mut game);
    // Seat 0 leads a heart; seat 1 must follow with his only heart.
    play(&mut game, 0, "KH");
    assert_eq!(game.legal_plays(seat(1)), cards("AH"));
    play(&mut game, 1, "AH");
    // Seat 2 has no heart: anything goes, and his raised two trumps.
    assert_eq!(game.legal_plays(seat(2)), game.hand(seat(2)));
    play(&mut game, 2, "2S");
    let won = play(&mut game, 3, "KS");
    assert_eq!(trick_winner(&won), seat(2));
    assert!(game.spades_broken());
    // Seat 2 leads a spade; seat 0 holds the big joker and 3S, both
    // spades, and no other spade.
    play(&mut game, 2, "AS");
    play(&mut game, 3, "5S");
    assert_eq!(game.legal_plays(seat(0)), cards("BJ 3S"));
}

#[test]
fn the_lowest_club_leads_when_the_two_is_out_of_the_pack() {
    let mut game = jokers(RuleSet {
        leading: Leading::TwoOfClubs,
        ..Preset::Jokers.rules()
    });
    ones(&mut game);
    // Seat 1 holds 3C, the lowest club of this pack.
    assert_eq!(game.to_act().first(), Some(seat(1)));
    assert_eq!(game.legal_plays(seat(1)), cards("3C"));
    let refused = game.apply(seat(1), Action::Play(card("QC"))).unwrap_err();
    assert_eq!(refused, RuleError::MustLead { card: card("3C") });
}

#[test]
fn whiz_counts_the_jokers_among_the_spades() {
    let game = jokers(RuleSet {
        bidding: Bidding::Whiz,
        ..Preset::Jokers.rules()
    });
    // Seat 0 holds the big joker and 3S: he bids 2 or nil.
    assert_eq!(choices(&game, 0), BidChoices::from_numbers([0, 2]));
}

#[test]
fn each_pack_deals_its_own_52_cards() {
    for (preset, deck) in [
        (Preset::Classic, Deck::Standard),
        (Preset::Jokers, Deck::Jokers),
        (Preset::DeuceHigh, Deck::DeuceHigh),
        (Preset::NewYork, Deck::NewYorkCity),
    ] {
        for seed in 0..20 {
            let game = Game::new(preset.rules(), seed).unwrap();
            let dealt = Seat::ALL
                .iter()
                .fold(CardSet::EMPTY, |all, &s| all | game.hand(s));
            assert_eq!(dealt, deck.cards(), "{preset} seed {seed}");
        }
    }
    let jokers = Deck::Jokers.cards();
    assert!(jokers.contains(Card::BIG_JOKER) && jokers.contains(Card::LITTLE_JOKER));
    assert!(!jokers.contains(card("2C")) && !jokers.contains(card("2H")));
    assert_eq!(jokers.in_suit(Suit::Spades).len(), 15);
}

#[test]
fn with_the_deuce_high_the_two_of_spades_beats_the_ace() {
    let hands = [
        "AS 3S 4S 5S 6S 7S 8S 9S TS JS QS KS 2H",
        "2S AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H",
        "AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",
        "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C",
    ];
    let mut game = game_with(
        RuleSet {
            spades_lead: SpadesLead::AnyTime,
            ..Preset::DeuceHigh.rules()
        },
        3,
        hands,
        [0, 0],
    );
    ones(&mut game);
    play(&mut game, 0, "AS");
    play(&mut game, 1, "2S");
    play(&mut game, 2, "AD");
    let won = play(&mut game, 3, "AC");
    assert_eq!(trick_winner(&won), seat(1));
    // The record of the hand names the card as people do.
    assert_eq!(game.tricks()[0].cards[1].to_string(), "2S");
}
