//! Plain, separately written statements of the rules, which the random
//! games are checked against. They are kept apart from the tests and written
//! without the engine's shortcuts, so that a mistake in the engine is not
//! repeated here and hidden.

use super::*;

/// The number of cards of a hand that follow as spades.
pub(crate) fn naive_spades(deck: Deck, hand: CardSet) -> u32 {
    hand.iter()
        .filter(|&card| naive_suit(deck, card) == Suit::Spades)
        .count() as u32
}

/// The suit a card follows as in `deck`, from its string: jokers count as
/// spades, and so does the two of diamonds in New York City's pack.
pub(crate) fn naive_suit(deck: Deck, card: Card) -> Suit {
    let text = card.to_string();
    match (text.as_str(), text.as_bytes()[1]) {
        ("2D", _) if deck == Deck::NewYorkCity => Suit::Spades,
        (_, b'J') => Suit::Spades,
        (_, letter) => Suit::from_letter(letter as char).unwrap(),
    }
}

/// How high a card ranks within the suit it follows as, from its string:
/// the jokers and, in the packs that raise it, the two of spades rank
/// above the ace, and in New York City's the two of diamonds under them.
pub(crate) fn naive_power(deck: Deck, card: Card) -> usize {
    let text = card.to_string();
    match text.as_str() {
        "BJ" => 102,
        "LJ" => 101,
        "2S" if deck != Deck::Standard => 100,
        "2D" if deck == Deck::NewYorkCity => 99,
        _ => "23456789TJQKA".find(&text[..1]).unwrap(),
    }
}

/// How many play.
pub(crate) fn naive_players(rules: &RuleSet) -> usize {
    if rules.players == 3 { 3 } else { 4 }
}

/// The seat `n` places clockwise from `seat` among those who play.
pub(crate) fn naive_plus(rules: &RuleSet, seat: Seat, n: usize) -> Seat {
    Seat::ALL[(seat.index() + n) % naive_players(rules)]
}

/// The cards dealt under the rules: the pack, and for three players the
/// pack without the two of clubs, or, in the packs that put the twos of
/// clubs and hearts out for the jokers, all 52 cards and the two jokers.
pub(crate) fn naive_rules_pack(rules: &RuleSet) -> CardSet {
    let pack = naive_pack(rules.deck);
    if naive_players(rules) == 4 {
        return pack;
    }
    let two_of_clubs: Card = "2C".parse().unwrap();
    let two_of_hearts: Card = "2H".parse().unwrap();
    if matches!(rules.deck, Deck::Jokers | Deck::NewYorkCity) {
        pack | CardSet::single(two_of_clubs) | CardSet::single(two_of_hearts)
    } else {
        pack - CardSet::single(two_of_clubs)
    }
}

/// Cards in each hand: the pack shared by the players.
pub(crate) fn naive_hand_size(rules: &RuleSet) -> u8 {
    (naive_rules_pack(rules).len() as usize / naive_players(rules)) as u8
}

/// The cards dealt, by the plain statement of each pack, as strings.
pub(crate) fn naive_pack(deck: Deck) -> CardSet {
    let mut names: Vec<String> = "CDHS"
        .chars()
        .flat_map(|suit| "23456789TJQKA".chars().map(move |rank| format!("{rank}{suit}")))
        .collect();
    let out: &[&str] = match deck {
        Deck::Jokers | Deck::NewYorkCity => &["2C", "2H"],
        Deck::NewYork => &["2D", "2H"],
        Deck::Standard | Deck::DeuceHigh => &[],
    };
    if !out.is_empty() {
        names.retain(|name| !out.contains(&name.as_str()));
        names.extend(["BJ".to_string(), "LJ".to_string()]);
    }
    names
        .iter()
        .map(|name| deck.card(name.parse().unwrap()))
        .collect()
}

/// The trick winner by the plain statement of the rule.
pub(crate) fn naive_winner(rules: &RuleSet, leader: Seat, cards: &[Card]) -> Seat {
    let deck = rules.deck;
    assert_eq!(cards.len(), naive_players(rules), "one card from each player");
    let led = naive_suit(deck, cards[0]);
    let mut best = 0;
    for i in 1..cards.len() {
        let (card, top) = (cards[i], cards[best]);
        let (suit, top_suit) = (naive_suit(deck, card), naive_suit(deck, top));
        let better = match (suit == Suit::Spades, top_suit == Suit::Spades) {
            (true, false) => true,
            (false, true) => false,
            _ => suit == top_suit && naive_power(deck, card) > naive_power(deck, top),
        };
        if better && (suit == led || suit == Suit::Spades) {
            best = i;
        }
    }
    naive_plus(rules, leader, best)
}

/// One team's hand by the plain statement of the rules.
pub(crate) struct NaiveTeam {
    pub(crate) change: i32,
    pub(crate) bags: i32,
    pub(crate) set: bool,
    pub(crate) boston: bool,
}

/// One team's score change and bags by the plain statement of the rules.
pub(crate) fn naive_team_score(rules: &RuleSet, bids: &[Bid], taken: &[u8], bags: i32) -> NaiveTeam {
    let mut change = 0;
    let mut contract = 0;
    let mut counted = 0;
    let mut new_bags = 0;
    let mut blind = false;
    for (&bid, &took) in bids.iter().zip(taken) {
        match bid {
            // Both partners hold the one blind bid of the team.
            Bid::Blind(n) => {
                blind = true;
                contract = i32::from(n);
                counted += i32::from(took);
            }
            Bid::Nil => {
                change += if took == 0 {
                    rules.nil_value
                } else {
                    -rules.nil_value
                }
            }
            Bid::BlindNil => {
                change += if took == 0 {
                    rules.blind_nil_value
                } else {
                    -rules.blind_nil_value
                }
            }
            Bid::Tricks(n) => {
                contract += i32::from(n);
                counted += i32::from(took);
            }
        }
        if bid.is_nil() {
            new_bags += i32::from(took);
        }
    }
    let mut set = false;
    if contract > 0 {
        let value = match contract {
            c if rules.moon && c == i32::from(naive_hand_size(rules)) && rules.ten_for_two_hundred => 500,
            c if rules.moon && c == i32::from(naive_hand_size(rules)) => 200,
            10 if rules.ten_for_two_hundred => 200,
            _ => 10 * contract,
        };
        let over = counted - contract;
        let made = if blind {
            counted >= contract
        } else {
            counted >= contract
                && !(contract < 10 && rules.max_overtricks.is_some_and(|m| over > i32::from(m)))
                && !(rules.set_at_double && counted >= 2 * contract)
        };
        if made {
            change += if blind { 2 * value } else { value };
            new_bags += over;
        } else {
            change -= if blind && rules.team_blind_set_doubled {
                2 * value
            } else {
                value
            };
            set = true;
        }
    }
    change += new_bags * rules.bag_value;
    let mut total = bags + new_bags;
    while total >= rules.bag_limit {
        total -= rules.bag_limit;
        change -= rules.bag_penalty;
    }
    NaiveTeam {
        change,
        bags: total,
        set,
        boston: rules.boston_wins && !set && contract >= 10 && counted == i32::from(naive_hand_size(rules)),
    }
}

/// Whether a bid may be made, by the plain statement of the bidding rules:
/// `spades` held, and the partner's bid if he has bid.
pub(crate) fn naive_bid_allowed(rules: &RuleSet, bid: Bid, spades: u32, partner: Option<Bid>) -> bool {
    let team_ok = matches!(bid, Bid::Blind(_))
        || partner.is_none_or(|p| p.contract() + bid.contract() >= rules.min_team_bid);
    let kind_ok = match bid {
        Bid::Nil | Bid::BlindNil => {
            (if bid.is_blind() {
                rules.blind_nil
            } else {
                rules.nil
            }) && (!rules.nil_after_partner || matches!(partner, Some(Bid::Tricks(_))))
                && match rules.bidding {
                    Bidding::Standard | Bidding::Whiz => true,
                    Bidding::Mirror => spades == 0,
                    Bidding::Suicide => !partner.is_some_and(Bid::is_nil),
                }
        }
        // The first partner's blind bid; the second holds the same one.
        Bid::Blind(n) => {
            rules.team_blind > 0
                && n >= rules.team_blind
                && n <= rules.max_team_bid.unwrap_or(13)
                && partner.is_none_or(|p| p == bid)
        }
        Bid::Tricks(n) => {
            (1..=naive_hand_size(rules)).contains(&n)
                && match rules.bidding {
                    Bidding::Standard => true,
                    Bidding::Whiz | Bidding::Mirror => u32::from(n) == spades,
                    Bidding::Suicide => n >= 4 && !matches!(partner, Some(Bid::Tricks(_))),
                }
        }
    };
    // Under a team maximum the team's bids add up to no more, and the
    // first partner to bid leaves the second a bid he may make.
    let most_ok = match (rules.max_team_bid, bid) {
        (None, _) => true,
        (Some(_), Bid::Blind(_)) => true,
        (Some(most), _) => {
            partner.map_or(0, Bid::contract) + bid.contract() <= most
                && (!rules.partners
                    || partner.is_some()
                    || (0..=naive_hand_size(rules)).any(|n| {
                        let next = if n == 0 { Bid::Nil } else { Bid::Tricks(n) };
                        naive_bid_allowed(rules, next, 0, Some(bid))
                    }))
        }
    };
    team_ok && kind_ok && most_ok
}

/// Whether a spade may be led to trick `number` (from 0), by the rule.
pub(crate) fn naive_spades_open(rules: &RuleSet, broken: bool, number: usize) -> bool {
    match rules.spades_lead {
        SpadesLead::Broken => broken,
        SpadesLead::AnyTime => true,
        SpadesLead::FromFourthTrick => broken || number >= 3,
    }
}

/// The lowest club among some hands, which leads under the two-of-clubs
/// rule when the two itself is out of the pack.
pub(crate) fn lowest_club(deck: Deck, cards: CardSet) -> Card {
    cards
        .iter()
        .filter(|&card| naive_suit(deck, card) == Suit::Clubs)
        .min_by_key(|&card| naive_power(deck, card))
        .unwrap()
}

/// Checks one finished hand's record against the rules; says which teams
/// were set and which took a Boston.
/// The teams of the rules, each as its seats, written out plainly: two
/// partnerships of opposite seats, or four players alone.
pub(crate) fn naive_teams(rules: &RuleSet) -> Vec<Vec<Seat>> {
    if rules.partners {
        vec![vec![Seat::ALL[0], Seat::ALL[2]], vec![Seat::ALL[1], Seat::ALL[3]]]
    } else {
        Seat::ALL[..naive_players(rules)]
            .iter()
            .map(|&seat| vec![seat])
            .collect()
    }
}

/// Checks a hand's record against the plain rules and returns, for each
/// team, whether it was set and whether it made a Boston.
pub(crate) fn check_record(
    rules: &RuleSet,
    record: &HandRecord,
    score: &[i32],
    bags: &[i32],
) -> Vec<(bool, bool)> {
    let deck = rules.deck;
    // The pack in distinct cards, a hand to each player (13, or 17 or 18
    // for three) and none to the empty fourth seat of three.
    let players = naive_players(rules);
    let size = naive_hand_size(rules);
    let mut all = CardSet::EMPTY;
    for (i, hand) in record.hands.0.into_iter().enumerate() {
        assert_eq!(hand.len(), if i < players { u32::from(size) } else { 0 });
        assert!((all & hand).is_empty());
        all |= hand;
    }
    assert_eq!(all, naive_rules_pack(rules));
    assert_eq!(record.tricks.len(), usize::from(size));
    let first_club = lowest_club(deck, all);

    // Bids in order from the dealer's left; none in the first hand when
    // it is played without bids.
    let unbid = rules.unbid_first_hand && record.hand == 0;
    assert_eq!(record.bids.len(), if unbid { 0 } else { players });
    for (i, bid) in record.bids.iter().enumerate() {
        assert_eq!(bid.seat, naive_plus(rules, record.dealer, 1 + i));
        let made = bid.to_bid().unwrap();
        if let Bid::Blind(_) = made {
            // Only a team that trailed by the margin bids blind.
            let team = naive_teams(rules)
                .iter()
                .position(|seats| seats.contains(&bid.seat))
                .unwrap();
            let best_other = (0..score.len())
                .filter(|&t| t != team)
                .map(|t| score[t])
                .max()
                .unwrap();
            assert!(
                best_other - score[team] >= rules.team_blind_min_deficit,
                "blind bid not behind"
            );
        }
        // The partner bid before when he sits two places earlier.
        let partner = (rules.partners && i >= 2).then(|| record.bids[i - 2].to_bid().unwrap());
        let spades = naive_spades(deck, record.hands[bid.seat]);
        assert!(
            naive_bid_allowed(rules, made, spades, partner),
            "{made} with {spades} spades after {partner:?}"
        );
    }

    // Hands after the exchange; passes go to the partner, from own cards.
    let mut holding = record.hands;
    assert!(
        rules.partners || record.passes.is_empty(),
        "a pass without partners"
    );
    for pass in &record.passes {
        assert_eq!(pass.to, pass.from.partner());
        assert!(pass.cards.is_subset(holding[pass.from]));
        holding[pass.from] -= pass.cards;
        holding[pass.to] |= pass.cards;
    }

    // Thirteen tricks, every card once, legal plays, right winners.
    let mut leader = match rules.leading {
        Leading::LeftOfDealer => naive_plus(rules, record.dealer, 1),
        Leading::Dealer => record.dealer,
        Leading::TwoOfClubs => Seat::ALL
            .into_iter()
            .find(|&s| holding[s].contains(first_club))
            .unwrap(),
    };
    let mut broken = false;
    let mut won = [0u8; 4];
    for (number, trick) in record.tricks.iter().enumerate() {
        assert_eq!(trick.leader, leader);
        let led = naive_suit(deck, trick.cards[0]);
        if number == 0 && rules.leading == Leading::TwoOfClubs {
            assert_eq!(trick.cards[0], first_club);
        }
        for (i, &card) in trick.cards.iter().enumerate() {
            let player = naive_plus(rules, trick.leader, i);
            let hand = holding[player];
            assert!(hand.contains(card), "{player} does not hold {card}");
            if i == 0 {
                let only_spades = naive_spades(deck, hand) == hand.len();
                assert!(
                    naive_suit(deck, card) != Suit::Spades
                        || naive_spades_open(rules, broken, number)
                        || only_spades,
                    "spade led early"
                );
            } else {
                let can_follow = hand.iter().any(|other| naive_suit(deck, other) == led);
                assert!(naive_suit(deck, card) == led || !can_follow, "revoke");
            }
            holding[player].remove(card);
        }
        broken |= trick
            .cards
            .iter()
            .any(|&card| naive_suit(deck, card) == Suit::Spades);
        assert_eq!(trick.winner, naive_winner(rules, trick.leader, &trick.cards));
        won[trick.winner.index()] += 1;
        leader = trick.winner;
    }
    assert!(holding.0.iter().all(|hand| hand.is_empty()));
    assert_eq!(record.tricks_won.0, won);

    // Scores and bags. Without bids, 10 points a trick and no bags.
    let teams = naive_teams(rules);
    assert_eq!(record.score.len(), teams.len());
    if unbid {
        return teams
            .iter()
            .enumerate()
            .map(|(i, seats)| {
                let team = Team::new(i as u8).unwrap();
                let change: i32 = seats.iter().map(|seat| 10 * i32::from(won[seat.index()])).sum();
                assert_eq!(record.hand_score[team], change);
                assert_eq!(record.score[team], score[i] + change);
                assert_eq!(record.bags[team], bags[i]);
                (false, false)
            })
            .collect();
    }
    let bid_of = |seat: Seat| {
        record
            .bids
            .iter()
            .find(|b| b.seat == seat)
            .unwrap()
            .to_bid()
            .unwrap()
    };
    teams
        .iter()
        .enumerate()
        .map(|(i, seats)| {
            let team = Team::new(i as u8).unwrap();
            let bids: Vec<Bid> = seats.iter().map(|&seat| bid_of(seat)).collect();
            let tricks: Vec<u8> = seats.iter().map(|seat| won[seat.index()]).collect();
            let naive = naive_team_score(rules, &bids, &tricks, bags[i]);
            assert_eq!(record.hand_score[team], naive.change);
            assert_eq!(record.score[team], score[i] + naive.change);
            assert_eq!(record.bags[team], naive.bags);
            (naive.set, naive.boston)
        })
        .collect()
}

/// Whether the game ends after a hand, and who wins, by the plain rules:
/// `boston` is the team that took one this hand, `sets` each team's sets in
/// a row.
///
/// With two teams, one beaten by its sets loses whatever the scores; with
/// more, the beaten are out and the best of the rest wins. A tie for the
/// best score plays on.
pub(crate) fn naive_end(
    rules: &RuleSet,
    score: &[i32],
    hands_played: u32,
    boston: Option<Team>,
    sets: &[u8],
) -> Option<Team> {
    if boston.is_some() {
        return boston;
    }
    let out: Vec<bool> = sets
        .iter()
        .map(|&n| rules.sets_to_lose.is_some_and(|limit| n >= limit))
        .collect();
    let over = score.iter().any(|&s| s >= rules.target)
        || rules.mercy.is_some_and(|m| score.iter().any(|&s| s <= m))
        || rules.max_hands.is_some_and(|m| hands_played >= m)
        || out.contains(&true);
    if !over {
        return None;
    }
    let everyone_out = out.iter().all(|&o| o);
    let still_in: Vec<usize> = (0..score.len()).filter(|&i| everyone_out || !out[i]).collect();
    let best = still_in.iter().map(|&i| score[i]).max()?;
    let leaders: Vec<usize> = still_in.into_iter().filter(|&i| score[i] == best).collect();
    match leaders[..] {
        [only] => Team::new(only as u8),
        _ => None,
    }
}

/// The cards a seat may play, by the plain statement of the rules, from the
/// hand and the cards played so far in the hand.
pub(crate) fn naive_legal_plays(game: &Game, seat: Seat) -> CardSet {
    if game.phase() != spades_engine::Phase::Playing || game.to_act().first() != Some(seat) {
        return CardSet::EMPTY;
    }
    let hand = game.hand(seat);
    let deck = game.rules().deck;
    let (_, on_table) = game.current_trick();
    let broken = game
        .tricks()
        .iter()
        .flat_map(|trick| trick.cards)
        .chain(on_table.iter().copied())
        .any(|card| naive_suit(deck, card) == Suit::Spades);
    let rules = game.rules();
    let first_lead = game.tricks().is_empty() && on_table.is_empty();
    let first_club = lowest_club(rules.deck, naive_rules_pack(rules));
    if first_lead && rules.leading == Leading::TwoOfClubs && hand.contains(first_club) {
        return CardSet::single(first_club);
    }
    let open = naive_spades_open(rules, broken, game.tricks().len());
    let holds = |suit: Suit| hand.iter().any(|card| naive_suit(deck, card) == suit);
    let allowed = |card: Card| match on_table.first() {
        None => naive_suit(deck, card) != Suit::Spades || open || naive_spades(deck, hand) == hand.len(),
        Some(&lead) => naive_suit(deck, card) == naive_suit(deck, lead) || !holds(naive_suit(deck, lead)),
    };
    hand.iter().filter(|&card| allowed(card)).collect()
}

/// An arbitrary action, legal or not, for probing refusals.
pub(crate) fn arbitrary_action(rng: &mut GameRng) -> Action {
    let every = CardSet::STANDARD_DECK | Deck::Jokers.cards();
    let any_card = |rng: &mut GameRng| every.nth(rng.below(every.len())).unwrap();
    match rng.below(5) {
        0 => Action::Bid(Bid::Tricks(rng.below(16) as u8)),
        1 => Action::Bid(if rng.chance(1, 2) { Bid::Nil } else { Bid::BlindNil }),
        2 => Action::LookAtHand,
        3 => Action::Pass((0..rng.below(4)).map(|_| any_card(rng)).collect()),
        _ => Action::Play(any_card(rng)),
    }
}
