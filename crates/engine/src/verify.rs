//! Checking a finished game against its seed: the deal commitment, and the
//! replay of its hand records by the rules.
//!
//! The server commits to a game's seed when the game starts and publishes
//! the seed once the game is over. Anyone holding the records can then
//! check three things: that the seed is the one committed to, that every
//! hand was dealt from it as `docs/rules.md` ("The deal") says, and that
//! every bid, exchange and card was allowed and scored by the rules. Only
//! the last needs this engine; the first two are simple enough to write in
//! any language (the web client does it in JavaScript).

use std::fmt;

use sha2::{Digest, Sha256};

use crate::action::Action;
use crate::game::Game;
use crate::history::{BidRecord, HandRecord};
use crate::rules::RuleSet;

/// The prefix of the committed text, naming the construction so that a
/// later one can never be mistaken for it.
const COMMITMENT_PREFIX: &str = "spades-deal-v1:";

/// The commitment to a game's seed: the lowercase hexadecimal SHA-256 of
/// the text `spades-deal-v1:{game_id}:{seed}`, with the game's id as a
/// lowercase hyphenated UUID and the seed in decimal.
pub fn deal_commitment(game_id: &str, seed: u64) -> String {
    let digest = Sha256::digest(format!("{COMMITMENT_PREFIX}{game_id}:{seed}"));
    digest.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// What is wrong with a game's records: the hand (from 0) where it shows,
/// or none for a fault of the whole game, and a sentence for people.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct HistoryFault {
    pub hand: Option<u32>,
    pub reason: String,
}

impl HistoryFault {
    pub fn game(reason: impl Into<String>) -> HistoryFault {
        HistoryFault {
            hand: None,
            reason: reason.into(),
        }
    }

    fn hand(hand: usize, reason: impl Into<String>) -> HistoryFault {
        HistoryFault {
            hand: Some(hand as u32),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for HistoryFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.hand {
            Some(hand) => write!(f, "hand {hand}: {}", self.reason),
            None => f.write_str(&self.reason),
        }
    }
}

impl std::error::Error for HistoryFault {}

/// Replays a game's hand records, in order from hand 0, on a game dealt
/// from `seed`: each hand must be the seed's deal, each action must be
/// allowed, and each record must say what the rules make of it. Returns
/// the game after the last record.
pub fn check_hands(rules: RuleSet, seed: u64, records: &[HandRecord]) -> Result<Game, HistoryFault> {
    let mut game = Game::new(rules, seed)
        .map_err(|error| HistoryFault::game(format!("the rule set cannot be played: {error}")))?;
    for (index, record) in records.iter().enumerate() {
        let fault = |reason: String| HistoryFault::hand(index, reason);
        if record.hand as usize != index {
            return Err(fault(format!(
                "the hands are not numbered in order from 0 (this one says {})",
                record.hand
            )));
        }
        if game.is_over() {
            return Err(fault("the game was already over".into()));
        }
        check_deal(&game, record).map_err(fault)?;
        replay_hand(&mut game, record).map_err(fault)?;
        let played = game
            .last_hand()
            .ok_or_else(|| fault("the hand did not end with its last trick".into()))?;
        check_outcome(played, record).map_err(fault)?;
    }
    Ok(game)
}

/// The dealer and each seat's cards must be the ones the seed dealt.
fn check_deal(game: &Game, record: &HandRecord) -> Result<(), String> {
    if game.dealer() != record.dealer {
        return Err(format!(
            "the record says {} dealt, but the seed makes {} the dealer",
            record.dealer,
            game.dealer()
        ));
    }
    for seat in game.seating().seats() {
        if game.dealt()[seat] != record.hands[seat] {
            return Err(format!("the cards of {seat} are not the ones the seed dealt"));
        }
    }
    Ok(())
}

/// Applies the hand's bids, exchanges and cards in their order.
fn replay_hand(game: &mut Game, record: &HandRecord) -> Result<(), String> {
    for bid in &record.bids {
        replay_bid(game, bid)?;
    }
    for pass in &record.passes {
        game.apply(pass.from, Action::Pass(pass.cards))
            .map_err(|error| format!("{} cannot give {}: {error}", pass.from, pass.cards))?;
    }
    for (number, trick) in record.tricks.iter().enumerate() {
        for (seat, card) in trick.players().zip(trick.cards.iter().copied()) {
            game.apply(seat, Action::Play(card))
                .map_err(|error| format!("trick {}: {seat} cannot play {card}: {error}", number + 1))?;
        }
    }
    Ok(())
}

/// Applies one recorded bid. A player who bid a number after being
/// offered a blind bid looked at his cards first, which the record leaves
/// out; the partner's copy of a team's blind bid was made with it.
fn replay_bid(game: &mut Game, record: &BidRecord) -> Result<(), String> {
    let seat = record.seat;
    let bid = record
        .to_bid()
        .ok_or_else(|| format!("{seat}'s bid of {} is not a bid", record.bid))?;
    if let Some(made) = game.bids()[seat] {
        if made == bid && bid.is_blind() && bid.contract() > 0 {
            return Ok(());
        }
        return Err(format!("{seat} bid twice"));
    }
    if !bid.is_blind() && game.is_hand_hidden(seat) {
        game.apply(seat, Action::LookAtHand)
            .map_err(|error| format!("{seat} cannot bid {bid}: {error}"))?;
    }
    game.apply(seat, Action::Bid(bid))
        .map_err(|error| format!("{seat} cannot bid {bid}: {error}"))?;
    Ok(())
}

/// The record's tricks' winners and scores must be the rules' own.
fn check_outcome(played: &HandRecord, record: &HandRecord) -> Result<(), String> {
    for (number, (ours, theirs)) in played.tricks.iter().zip(&record.tricks).enumerate() {
        if ours.winner != theirs.winner {
            return Err(format!(
                "trick {} was won by {}, not {} as recorded",
                number + 1,
                ours.winner,
                theirs.winner
            ));
        }
    }
    let checks: [(&str, bool); 7] = [
        ("the bids", played.bids == record.bids),
        ("the tricks", played.tricks.len() == record.tricks.len()),
        ("the tricks won", played.tricks_won == record.tricks_won),
        ("the hand's score", played.hand_score == record.hand_score),
        ("the running score", played.score == record.score),
        ("the bags", played.bags == record.bags),
        ("the winner", played.winner == record.winner),
    ];
    match checks.iter().find(|(_, same)| !same) {
        Some((what, _)) => Err(format!("{what} differ from what the rules make of the play")),
        None if played != record => Err("the record differs from the replayed hand".into()),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::Bid;
    use crate::choices::MAX_TRICKS;
    use crate::game::Legal;
    use crate::presets::Preset;

    /// Plays a whole game with the lowest legal action, keeping its records.
    fn played(rules: RuleSet, seed: u64) -> Vec<HandRecord> {
        let mut game = Game::new(rules, seed).unwrap();
        let mut records = Vec::new();
        while !game.is_over() && records.len() < 40 {
            let seat = game.to_act().first().unwrap();
            // Blind bids when offered, so that their records are checked
            // too; otherwise modest numbers and the lowest cards.
            let action = match game.legal(seat) {
                Legal::Look => Action::LookAtHand,
                Legal::BlindOrLook(choices) => {
                    Action::Bid(Bid::from_parts(choices.nth(0).unwrap(), true).unwrap())
                }
                Legal::Bid(choices) => {
                    Action::Bid(Bid::from_parts(choices.nearest(3).unwrap(), false).unwrap())
                }
                Legal::Pass { count } => {
                    Action::Pass(game.hand(seat).iter().take(usize::from(count)).collect())
                }
                Legal::Play(cards) => Action::Play(cards.iter().next().unwrap()),
                Legal::Wait => unreachable!("{seat} is to act"),
            };
            let before = game.hand_number();
            game.apply(seat, action).unwrap();
            if game.hand_number() != before || game.is_over() {
                records.push(game.last_hand().unwrap().clone());
            }
        }
        assert!(records.len() > 1);
        records
    }

    #[test]
    fn the_commitment_is_the_documented_digest() {
        // Worked out with `printf '...' | sha256sum` and pinned here.
        assert_eq!(
            deal_commitment("00000000-0000-0000-0000-000000000000", 0),
            "b1d5eafb4aec4ca0345b2006be8ddf83c59025ad9506a1af8b804a9798f721c2"
        );
        assert_eq!(
            deal_commitment("6f9619ff-8b86-d011-b42d-00c04fc964ff", u64::MAX),
            "df17552a8cf48a4fabd45ed8414011c0aac91bbdfa95fe80de131d35437db916"
        );
    }

    #[test]
    fn every_preset_replays_from_its_seed() {
        for preset in Preset::ALL {
            let records = played(preset.rules(), 11);
            check_hands(preset.rules(), 11, &records)
                .unwrap_or_else(|fault| panic!("{}: {fault}", preset.name()));
        }
    }

    #[test]
    fn a_wrong_seed_fails_at_the_first_hand() {
        let records = played(RuleSet::CLASSIC, 5);
        let fault = check_hands(RuleSet::CLASSIC, 6, &records).unwrap_err();
        assert_eq!(fault.hand, Some(0), "{fault}");
    }

    #[test]
    fn a_changed_card_or_bid_names_its_hand() {
        let records = played(RuleSet::CLASSIC, 5);
        // Two cards of one trick swapped: the wrong seat plays each.
        let mut swapped = records.clone();
        let trick = &mut swapped[1].tricks[3];
        let cards: Vec<_> = trick.cards.iter().rev().copied().collect();
        trick.cards = crate::history::TrickCards::from_slice(&cards).unwrap();
        let fault = check_hands(RuleSet::CLASSIC, 5, &swapped).unwrap_err();
        assert_eq!(fault.hand, Some(1), "{fault}");
        // One bid changed: the play is legal, the score is not.
        let mut rebid = records.clone();
        let bid = &mut rebid[1].bids[0];
        bid.bid = if bid.bid == MAX_TRICKS {
            1
        } else {
            bid.bid % 12 + 1
        };
        let fault = check_hands(RuleSet::CLASSIC, 5, &rebid).unwrap_err();
        assert_eq!(fault.hand, Some(1), "{fault}");
    }
}
