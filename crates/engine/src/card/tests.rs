//! Tests of cards, their strings and sets of cards.

use super::*;

#[test]
fn every_card_string_round_trips() {
    let mut seen = CardSet::EMPTY;
    for suit in Suit::ALL {
        for rank in Rank::ALL {
            let card = Card::new(rank, suit);
            assert_eq!(card.suit(), suit);
            assert_eq!(card.rank(), rank);
            let text = card.to_string();
            assert_eq!(text.len(), 2);
            assert_eq!(text.parse::<Card>(), Ok(card));
            assert!(!seen.contains(card));
            seen.insert(card);
        }
    }
    assert_eq!(seen, CardSet::STANDARD_DECK);
    assert_eq!(seen.len(), 52);
}

#[test]
fn card_strings_use_t_for_ten() {
    assert_eq!(Card::new(Rank::Ten, Suit::Spades).to_string(), "TS");
    assert_eq!("AH".parse::<Card>(), Ok(Card::new(Rank::Ace, Suit::Hearts)));
    for bad in ["", "A", "10S", "1S", "AX", "ASS", "ZS"] {
        assert!(bad.parse::<Card>().is_err(), "{bad:?} parsed");
    }
}

#[test]
fn jokers_and_the_raised_twos_sit_above_the_ace_of_spades() {
    let ace = Card::new(Rank::Ace, Suit::Spades);
    let order = [
        ace,
        Card::TRUMP_TWO_OF_DIAMONDS,
        Card::HIGH_TWO_OF_SPADES,
        Card::LITTLE_JOKER,
        Card::BIG_JOKER,
    ];
    assert!(order.windows(2).all(|pair| pair[0] < pair[1]));
    for card in order {
        assert!(card.is_spade());
        assert!(CardSet::suit(Suit::Spades).contains(card));
        assert_eq!(Card::from_index(card.index()), Some(card));
    }
    assert_eq!(Card::BIG_JOKER.to_string(), "BJ");
    assert_eq!(Card::LITTLE_JOKER.to_string(), "LJ");
    assert_eq!(Card::HIGH_TWO_OF_SPADES.to_string(), "2S");
    assert_eq!("bj".parse::<Card>(), Ok(Card::BIG_JOKER));
    assert_eq!("LJ".parse::<Card>(), Ok(Card::LITTLE_JOKER));
    // A string names the plain two; the rules raise it where the pack does.
    assert_eq!("2S".parse::<Card>(), Ok(Card::TWO_OF_SPADES));
    assert_eq!(Card::HIGH_TWO_OF_SPADES.plain(), Card::TWO_OF_SPADES);
    assert_eq!(Card::HIGH_TWO_OF_SPADES.rank(), Rank::Two);
    assert_eq!(Card::new(Rank::BigJoker, Suit::Hearts), Card::BIG_JOKER);
    assert!(!Card::HIGH_TWO_OF_SPADES.is_joker() && Card::LITTLE_JOKER.is_joker());
    // The trump two of diamonds is written as the plain one, follows as
    // a spade, and ranks under the raised two of spades.
    assert_eq!(Card::TRUMP_TWO_OF_DIAMONDS.to_string(), "2D");
    assert_eq!("2D".parse::<Card>(), Ok(Card::TWO_OF_DIAMONDS));
    assert_eq!(Card::TRUMP_TWO_OF_DIAMONDS.plain(), Card::TWO_OF_DIAMONDS);
    assert_eq!(Card::TRUMP_TWO_OF_DIAMONDS.rank(), Rank::Two);
    assert_eq!(Card::TRUMP_TWO_OF_DIAMONDS.suit(), Suit::Spades);
    assert!(!Card::TRUMP_TWO_OF_DIAMONDS.is_joker());
    assert_eq!(
        order.map(Card::order),
        [12, 13, 14, 15, 16],
        "the places above the ace follow it"
    );
    for index in [13, 14, 15, 29, 30, 31, 45, 46] {
        assert_eq!(Card::from_index(index), None);
    }
    assert!("CJ".parse::<Card>().is_err());
}

/// Every byte that names a card is in its suit's bits and no other's,
/// the suits' bits cover all 64 and never overlap, and the standard
/// cards of a suit are its lowest thirteen places, two to ace.
#[test]
fn every_byte_belongs_to_exactly_one_suit() {
    let mut covered = 0u64;
    for suit in Suit::ALL {
        let bits = CardSet::suit(suit).bits();
        assert_eq!(covered & bits, 0, "{suit} overlaps");
        covered |= bits;
        let ranks: Vec<Rank> = (CardSet::suit(suit) & CardSet::STANDARD_DECK)
            .iter()
            .map(Card::rank)
            .collect();
        assert_eq!(ranks, Rank::ALL, "{suit}");
    }
    assert_eq!(covered, u64::MAX);
    for index in 0..64 {
        if let Some(card) = Card::from_index(index) {
            assert!(CardSet::suit(card.suit()).contains(card), "{card}");
            assert_eq!(CardSet::suit_of(card), CardSet::suit(card.suit()));
            assert_eq!(card.is_spade(), card.suit() == Suit::Spades, "{card}");
            assert_eq!(
                Card::from_index(card.index() - card.order()).map(Card::rank),
                Some(Rank::Two),
                "{card}'s suit starts at its two"
            );
        }
    }
    let named = (0..64).filter_map(Card::from_index).count();
    assert_eq!(named, 56, "52 standard cards and four above the ace of spades");
}

#[test]
fn suit_masks_partition_the_deck() {
    let mut all = CardSet::EMPTY;
    for suit in Suit::ALL {
        let cards = CardSet::suit(suit) & CardSet::STANDARD_DECK;
        assert_eq!(cards.len(), 13);
        assert!((all & cards).is_empty());
        assert!(cards.iter().all(|card| card.suit() == suit));
        all |= cards;
    }
    assert_eq!(all, CardSet::STANDARD_DECK);
}

#[test]
fn highest_lowest_and_nth() {
    let set: CardSet = ["2S", "AS", "KH", "3C"]
        .iter()
        .map(|text| text.parse::<Card>().unwrap())
        .collect();
    assert_eq!(set.highest().unwrap().to_string(), "AS");
    assert_eq!(set.lowest().unwrap().to_string(), "3C");
    assert_eq!(set.in_suit(Suit::Spades).lowest().unwrap().to_string(), "2S");
    let by_nth: Vec<String> = (0..4).map(|n| set.nth(n).unwrap().to_string()).collect();
    assert_eq!(by_nth, ["3C", "KH", "2S", "AS"]);
    assert_eq!(set.nth(4), None);
    assert_eq!(set.choose(|len| len - 1).unwrap().to_string(), "AS");
    assert_eq!(CardSet::EMPTY.choose(|_| 0), None);
    assert_eq!(set.to_string(), "AS 2S KH 3C");
}
