//! Who leads the first trick and when spades may be led under the house rules.
//! A wrong leader or an early spade lead would change every trick after it, so
//! each rule is pinned separately.

use super::*;

fn bid_ones(game: &mut Game) {
    bid_round(game, [Bid::Tricks(1); 4]);
}

#[test]
fn the_dealers_left_leads_by_default() {
    let mut game = mixed(RuleSet::CLASSIC);
    bid_ones(&mut game);
    assert_eq!(game.to_act().first(), Some(seat(0)));
}

#[test]
fn the_dealer_leads_when_the_rule_says_so() {
    let mut game = mixed(RuleSet {
        leading: Leading::Dealer,
        ..RuleSet::CLASSIC
    });
    bid_ones(&mut game);
    assert_eq!(game.to_act().first(), Some(seat(3)));
}

#[test]
fn the_holder_of_the_two_of_clubs_leads_it() {
    let mut game = mixed(Preset::TwoOfClubs.rules());
    bid_ones(&mut game);
    // Seat 3 holds the two of clubs, and it is his only lead.
    assert_eq!(game.to_act().first(), Some(seat(3)));
    assert_eq!(game.legal_plays(seat(3)), cards("2C"));
    assert_eq!(
        game.apply(seat(3), Action::Play(card("4C"))),
        Err(RuleError::MustLead { card: card("2C") })
    );
    play(&mut game, 3, "2C");
    // The second trick is led freely by the winner.
    play(&mut game, 0, "AC");
    play(&mut game, 1, "7C");
    play(&mut game, 2, "5C");
    assert_eq!(game.to_act().first(), Some(seat(0)));
    assert!(game.legal_plays(seat(0)).len() > 1);
}

#[test]
fn spades_may_be_led_at_any_time_when_the_rule_says_so() {
    let mut game = mixed(RuleSet {
        spades_lead: SpadesLead::AnyTime,
        ..RuleSet::CLASSIC
    });
    bid_ones(&mut game);
    assert!(game.legal_plays(seat(0)).contains(card("AS")));
    play(&mut game, 0, "AS");
}

#[test]
fn new_yorks_spades_open_from_the_fourth_trick() {
    let mut game = mixed(RuleSet {
        spades_lead: SpadesLead::FromFourthTrick,
        ..RuleSet::CLASSIC
    });
    bid_ones(&mut game);
    // Three tricks of clubs and hearts, no spade played.
    for (leader, trick) in [
        (0, ["AC", "9C", "6C", "4C"]),
        (0, ["KC", "8C", "5C", "3C"]),
        (0, ["AH", "JH", "8H", "4H"]),
    ] {
        assert!(!game.legal_plays(seat(leader)).contains(card("AS")));
        for (i, text) in trick.iter().enumerate() {
            play(&mut game, (leader + i as u8) % 4, text);
        }
    }
    assert!(!game.spades_broken());
    assert!(
        game.legal_plays(seat(0)).contains(card("AS")),
        "the fourth trick may open with a spade"
    );
}
