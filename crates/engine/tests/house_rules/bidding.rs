//! The house rules that change the auction: board, suicide, whiz, mirror, no
//! nil, nil after partner and the closing of blind nil. Each variant narrows
//! which bids are allowed, so each is checked on a hand worked out in advance.

use super::*;

#[test]
fn board_makes_the_second_partner_bring_the_team_to_the_minimum() {
    let mut game = mixed(Preset::Board4.rules());
    // The first of each team bids freely.
    assert_eq!(choices(&game, 0), BidChoices::ALL);
    bid(&mut game, 0, 1);
    bid(&mut game, 1, 0);
    // Seat 2's partner bid 1: he must bid at least 3, and not nil.
    assert_eq!(choices(&game, 2), BidChoices::tricks(3, 13));
    assert_eq!(
        refused_bid(&mut game, 2, 2),
        RuleError::BidNotAllowed {
            choices: BidChoices::tricks(3, 13)
        }
    );
    bid(&mut game, 2, 3);
    // Seat 3's partner bid nil: he must bid 4 or more.
    assert_eq!(choices(&game, 3), BidChoices::tricks(4, 13));
    assert!(matches!(
        refused_bid(&mut game, 3, 0),
        RuleError::BidNotAllowed { .. }
    ));
    bid(&mut game, 3, 4);
}

#[test]
fn suicide_has_one_partner_bid_nil_and_the_other_at_least_four() {
    let mut game = mixed(Preset::Suicide.rules());
    let nil_or_four_up = BidChoices::NIL.union(BidChoices::tricks(4, 13));
    assert_eq!(choices(&game, 0), nil_or_four_up);
    assert!(matches!(
        refused_bid(&mut game, 0, 3),
        RuleError::BidNotAllowed { .. }
    ));
    bid(&mut game, 0, 0);
    assert_eq!(choices(&game, 1), nil_or_four_up);
    bid(&mut game, 1, 5);
    // Partner of a nil bids 4 or more; partner of a number bids nil.
    assert_eq!(choices(&game, 2), BidChoices::tricks(4, 13));
    bid(&mut game, 2, 4);
    assert_eq!(choices(&game, 3), BidChoices::NIL);
    assert!(matches!(
        refused_bid(&mut game, 3, 4),
        RuleError::BidNotAllowed { .. }
    ));
    bid(&mut game, 3, 0);
    assert_eq!(game.phase(), spades_engine::Phase::Playing);
}

#[test]
fn whiz_bids_the_spades_held_or_nil() {
    let mut game = mixed(Preset::Whiz.rules());
    assert_eq!(choices(&game, 0), BidChoices::NIL.union(BidChoices::tricks(3, 3)));
    assert!(matches!(
        refused_bid(&mut game, 0, 4),
        RuleError::BidNotAllowed { .. }
    ));
    bid(&mut game, 0, 3);
    assert_eq!(choices(&game, 1), BidChoices::NIL.union(BidChoices::tricks(4, 4)));
    bid(&mut game, 1, 0);
}

#[test]
fn whiz_leaves_only_nil_to_a_player_without_spades() {
    let game = game_with(Preset::Whiz.rules(), 3, SUIT_EACH, [0, 0]);
    assert_eq!(choices(&game, 0), BidChoices::NIL);
}

#[test]
fn mirror_bids_exactly_the_spades_held() {
    let mut game = mixed(Preset::Mirror.rules());
    assert_eq!(choices(&game, 0), BidChoices::tricks(3, 3));
    assert!(matches!(
        refused_bid(&mut game, 0, 0),
        RuleError::BidNotAllowed { .. }
    ));
    bid(&mut game, 0, 3);
    assert_eq!(choices(&game, 1), BidChoices::tricks(4, 4));
    // Seat 3 of SUIT_EACH holds all thirteen spades, the others none.
    let game = game_with(Preset::Mirror.rules(), 3, SUIT_EACH, [0, 0]);
    assert_eq!(choices(&game, 0), BidChoices::NIL);
}

#[test]
fn no_nil_refuses_nil() {
    let mut game = mixed(Preset::NoNil.rules());
    assert_eq!(choices(&game, 0), BidChoices::tricks(1, 13));
    assert_eq!(
        refused_bid(&mut game, 0, 0),
        RuleError::BidNotAllowed {
            choices: BidChoices::tricks(1, 13)
        }
    );
}

#[test]
fn nil_after_partner_waits_for_the_partners_number() {
    let rules = RuleSet {
        nil_after_partner: true,
        blind_nil: false,
        ..RuleSet::CLASSIC
    };
    let mut game = mixed(rules);
    assert!(!choices(&game, 0).has_nil());
    bid(&mut game, 0, 2);
    assert!(!choices(&game, 1).has_nil());
    bid(&mut game, 1, 3);
    assert!(choices(&game, 2).has_nil(), "his partner bid a number");
    bid(&mut game, 2, 0);
    assert!(choices(&game, 3).has_nil());
}

#[test]
fn blind_nil_closed_by_the_bids_before_shows_the_cards() {
    // Team 0 trails by 200, so seats 0 and 2 are offered blind nil.
    let mut game = game_with(Preset::Suicide.rules(), 3, MIXED, [-200, 0]);
    assert_eq!(game.legal(seat(0)), Legal::BlindOrLook(BidChoices::NIL));
    assert!(game.is_hand_hidden(seat(2)));
    ok(&mut game, 0, Action::Bid(Bid::BlindNil));
    // In suicide seat 2 must now bid 4 or more: blind nil is gone, and
    // he is shown his cards as his turn comes.
    let events = bid(&mut game, 1, 4);
    assert!(
        events.contains(&Event::LookedAtHand { seat: seat(2) }),
        "{events:?}"
    );
    assert!(!game.is_hand_hidden(seat(2)));
    assert_eq!(choices(&game, 2), BidChoices::tricks(4, 13));
    assert_eq!(
        game.check(seat(2), Action::Bid(Bid::BlindNil)),
        Err(RuleError::BlindNilNotAllowed)
    );
}
