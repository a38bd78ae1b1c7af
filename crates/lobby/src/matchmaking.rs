//! Quick play: the queue of players waiting for a table, and how tables are
//! made from it.
//!
//! The queue is plain data, owned by the lobby task and tested on its own.
//! Players wait per rule preset. A ticket is one player, or two friends who
//! named each other and sit as partners. Tickets are matched oldest first,
//! with the players of closest rating; how far apart the ratings of a table
//! may be grows with the time each ticket has waited. A ticket that has
//! waited the longest time allowed gets a table at once, with bots in the
//! seats nobody suitable could fill.

use std::time::Duration;

use spades_engine::{Preset, Seat, Team};
use tokio::time::Instant;
use uuid::Uuid;

use spades_room::PlayerRef;

/// How tables are made.
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    /// After this long, a ticket's table is completed with bots.
    pub max_wait: Duration,
    /// The rating gap accepted between players at first.
    pub gap: f64,
    /// How much the accepted gap grows for every second waited.
    pub growth: f64,
}

/// One player in the queue.
#[derive(Clone, Debug)]
pub struct Entry {
    pub player: PlayerRef,
    pub rating: f64,
    pub preset: Preset,
    /// The name of the friend he wants as partner, if any.
    pub partner: Option<String>,
    /// The account registered under that name, if there is one: only that
    /// account can be his partner, not a guest who took the same name.
    pub partner_account: Option<uuid::Uuid>,
    pub since: Instant,
}

impl Entry {
    fn named(&self, other: &Entry) -> bool {
        let name_fits = self
            .partner
            .as_deref()
            .is_some_and(|name| name.eq_ignore_ascii_case(&other.player.name));
        name_fits
            && self
                .partner_account
                .is_none_or(|account| account == other.player.account)
    }
}

/// One or two players who will sit at the same table.
#[derive(Clone, Debug)]
struct Ticket {
    players: Vec<Entry>,
    preset: Preset,
    since: Instant,
}

impl Ticket {
    fn size(&self) -> usize {
        self.players.len()
    }

    /// A player who named a partner waits for him before he can be seated.
    fn waiting_for_partner(&self) -> bool {
        self.players.len() == 1 && self.players[0].partner.is_some()
    }

    fn rating(&self) -> f64 {
        self.players.iter().map(|entry| entry.rating).sum::<f64>() / self.players.len() as f64
    }

    fn holds(&self, player: &str) -> bool {
        self.players.iter().any(|entry| *entry.player.id == *player)
    }
}

/// A table made from the queue: who sits where (`None` for a bot).
#[derive(Clone, Debug)]
pub struct Match {
    pub preset: Preset,
    /// One entry per seat of the preset's game: four, or three.
    pub seats: Vec<Option<Entry>>,
}

/// The outcome of a player leaving the queue.
#[derive(Debug)]
pub struct Left {
    /// The partner he had been paired with, who leaves the queue with him.
    pub partner: Option<Entry>,
}

/// Everyone waiting for quick play.
#[derive(Debug)]
pub struct Queue {
    rules: Rules,
    tickets: Vec<Ticket>,
}

impl Queue {
    pub fn new(rules: Rules) -> Queue {
        Queue {
            rules,
            tickets: Vec::new(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.tickets.is_empty()
    }

    /// Puts a player in the queue, in place of any entry he had. If he
    /// names a partner who is waiting for him (same preset), the two become
    /// one ticket. Returns whether he waits for the partner he named.
    pub fn join(&mut self, entry: Entry) -> bool {
        if let Some(Left {
            partner: Some(partner),
            ..
        }) = self.leave(&entry.player.id)
        {
            // Queueing again undoes a pair: the partner waits for him anew.
            self.push_single(partner);
        }
        if entry.partner.is_some() {
            let waiting = self.tickets.iter().position(|ticket| {
                ticket.waiting_for_partner()
                    && ticket.preset == entry.preset
                    && ticket.players[0].named(&entry)
                    && entry.named(&ticket.players[0])
            });
            if let Some(index) = waiting {
                let ticket = &mut self.tickets[index];
                ticket.since = ticket.since.min(entry.since);
                ticket.players.push(entry);
                return false;
            }
        }
        let waiting_for_partner = entry.partner.is_some();
        self.push_single(entry);
        waiting_for_partner
    }

    fn push_single(&mut self, entry: Entry) {
        self.tickets.push(Ticket {
            preset: entry.preset,
            since: entry.since,
            players: vec![entry],
        });
    }

    /// Takes a player out of the queue, and his partner with him.
    pub fn leave(&mut self, player: &str) -> Option<Left> {
        let index = self.tickets.iter().position(|ticket| ticket.holds(player))?;
        let mut ticket = self.tickets.remove(index);
        ticket.players.retain(|entry| *entry.player.id != *player);
        Some(Left {
            partner: ticket.players.pop(),
        })
    }

    /// The rating gap a ticket accepts after waiting until `now`.
    fn accepted_gap(&self, ticket: &Ticket, now: Instant) -> f64 {
        let waited = now.saturating_duration_since(ticket.since).as_secs_f64();
        self.rules.gap + self.rules.growth * waited
    }

    fn compatible(&self, a: &Ticket, b: &Ticket, now: Instant) -> bool {
        let gap = (a.rating() - b.rating()).abs();
        a.preset == b.preset && gap <= self.accepted_gap(a, now).min(self.accepted_gap(b, now))
    }

    /// Makes every table the queue allows now and takes their players out.
    /// Two players of whom `apart` says one blocks the other never sit at
    /// the same table.
    pub fn make_matches(&mut self, now: Instant, apart: &dyn Fn(Uuid, Uuid) -> bool) -> Vec<Match> {
        let blocked = |a: &Ticket, b: &Ticket| {
            a.players.iter().any(|x| {
                b.players
                    .iter()
                    .any(|y| apart(x.player.account, y.player.account))
            })
        };
        self.tickets.sort_by_key(|ticket| ticket.since);
        let mut used = vec![false; self.tickets.len()];
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for anchor in 0..self.tickets.len() {
            let ticket = &self.tickets[anchor];
            if used[anchor] || ticket.waiting_for_partner() {
                continue;
            }
            let mut candidates: Vec<usize> = (0..self.tickets.len())
                .filter(|&other| {
                    other != anchor
                        && !used[other]
                        && !self.tickets[other].waiting_for_partner()
                        && self.compatible(ticket, &self.tickets[other], now)
                        && !blocked(ticket, &self.tickets[other])
                })
                .collect();
            let rating = ticket.rating();
            candidates.sort_by(|&a, &b| {
                let distance = |i: usize| (self.tickets[i].rating() - rating).abs();
                distance(a).total_cmp(&distance(b))
            });
            // A table holds as many players as the preset's game seats.
            let table = ticket.preset.rules().seating().seat_count();
            let mut group = vec![anchor];
            let mut seats = ticket.size();
            for other in candidates {
                let fits = seats + self.tickets[other].size() <= table
                    && group.iter().all(|&member| {
                        self.compatible(&self.tickets[member], &self.tickets[other], now)
                            && !blocked(&self.tickets[member], &self.tickets[other])
                    });
                if fits {
                    group.push(other);
                    seats += self.tickets[other].size();
                    if seats == table {
                        break;
                    }
                }
            }
            let waited_enough = now.saturating_duration_since(ticket.since) >= self.rules.max_wait;
            if seats == table || waited_enough {
                for &member in &group {
                    used[member] = true;
                }
                groups.push(group);
            }
        }
        let mut tickets: Vec<Option<Ticket>> =
            std::mem::take(&mut self.tickets).into_iter().map(Some).collect();
        let matches = groups
            .into_iter()
            .map(|group| seat(group.into_iter().filter_map(|i| tickets[i].take()).collect()))
            .collect();
        self.tickets = tickets.into_iter().flatten().collect();
        matches
    }
}

/// Seats a table's tickets: each pair as partners, single players so that
/// the two teams are as even as their ratings allow, bots in what is left.
fn seat(tickets: Vec<Ticket>) -> Match {
    let preset = tickets[0].preset;
    let table = preset.rules().seating().seat_count();
    let mut seats: Vec<Option<Entry>> = (0..table).map(|_| None).collect();
    let mut singles: Vec<Entry> = Vec::new();
    let mut teams = Team::ALL.into_iter();
    for ticket in tickets {
        if ticket.size() == 2 {
            let team = teams.next().expect("a table holds at most two pairs");
            for (seat, entry) in team.seats().into_iter().zip(ticket.players) {
                seats[seat.index()] = Some(entry);
            }
        } else {
            singles.extend(ticket.players);
        }
    }
    singles.sort_by(|a, b| b.rating.total_cmp(&a.rating));
    let order: Vec<Seat> = if singles.len() == 4 && table == 4 {
        // The best and the weakest partner each other against the two
        // between: best, second, third and weakest go to seats 0, 1, 3, 2.
        [0, 1, 3, 2].map(|i| Seat::ALL[i]).to_vec()
    } else {
        // Free seats team by team, so that two players completed by bots
        // are partners.
        let mut free: Vec<Seat> = Seat::ALL[..table]
            .iter()
            .copied()
            .filter(|seat| seats[seat.index()].is_none())
            .collect();
        let seating = preset.rules().seating();
        free.sort_by_key(|seat| (seating.team_of(*seat).index(), seat.index()));
        free
    };
    for (entry, seat) in singles.into_iter().zip(order) {
        seats[seat.index()] = Some(entry);
    }
    Match { preset, seats }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    const RULES: Rules = Rules {
        max_wait: Duration::from_secs(20),
        gap: 100.0,
        growth: 25.0,
    };

    fn entry(name: &str, rating: f64, since: Instant) -> Entry {
        Entry {
            player: PlayerRef::new(Uuid::new_v4(), name),
            rating,
            preset: Preset::Classic,
            partner: None,
            partner_account: None,
            since,
        }
    }

    fn names(table: &Match) -> Vec<Option<String>> {
        table
            .seats
            .iter()
            .map(|seat| seat.as_ref().map(|entry| entry.player.name.to_string()))
            .collect()
    }

    fn seated(table: &Match) -> Vec<String> {
        let mut names: Vec<String> = names(table).into_iter().flatten().collect();
        names.sort();
        names
    }

    #[test]
    fn four_players_of_close_rating_make_a_table_and_others_wait() {
        let now = Instant::now();
        let mut queue = Queue::new(RULES);
        for (name, rating) in [
            ("a", 1500.0),
            ("far", 2100.0),
            ("b", 1520.0),
            ("c", 1480.0),
            ("d", 1550.0),
        ] {
            queue.join(entry(name, rating, now));
        }
        let tables = queue.make_matches(now, &|_, _| false);
        assert_eq!(tables.len(), 1);
        assert_eq!(seated(&tables[0]), ["a", "b", "c", "d"]);
        assert_eq!(queue.tickets.len(), 1, "the far player still waits");
        assert_eq!(&*queue.tickets[0].players[0].player.name, "far");
    }

    #[test]
    fn players_who_block_each_other_never_share_a_table() {
        let now = Instant::now();
        let mut queue = Queue::new(RULES);
        let players: Vec<Entry> = ["Ann", "Bob", "Cy", "Di", "Ed"]
            .iter()
            .map(|name| entry(name, 1500.0, now))
            .collect();
        let (ann, bob) = (players[0].player.account, players[1].player.account);
        for player in players {
            queue.join(player);
        }
        let apart = move |a: Uuid, b: Uuid| (a, b) == (ann, bob) || (a, b) == (bob, ann);
        let tables = queue.make_matches(now, &apart);
        assert_eq!(tables.len(), 1);
        let seated = seated(&tables[0]);
        assert!(
            seated.contains(&"Ann".to_string()) != seated.contains(&"Bob".to_string()),
            "{seated:?}"
        );
        assert_eq!(seated.len(), 4);
    }

    #[test]
    fn players_of_closest_rating_are_matched_first() {
        let now = Instant::now();
        let mut queue = Queue::new(Rules { gap: 1000.0, ..RULES });
        for (name, rating) in [
            ("anchor", 1500.0),
            ("near1", 1510.0),
            ("far1", 1900.0),
            ("near2", 1490.0),
            ("far2", 1950.0),
            ("near3", 1530.0),
        ] {
            queue.join(entry(name, rating, now));
        }
        let tables = queue.make_matches(now, &|_, _| false);
        assert_eq!(seated(&tables[0]), ["anchor", "near1", "near2", "near3"]);
    }

    #[test]
    fn the_accepted_gap_widens_with_waiting() {
        let start = Instant::now();
        let mut queue = Queue::new(RULES);
        queue.join(entry("a", 1500.0, start));
        queue.join(entry("b", 1500.0, start));
        queue.join(entry("c", 1500.0, start));
        queue.join(entry("strong", 1800.0, start));
        assert!(
            queue.make_matches(start, &|_, _| false).is_empty(),
            "300 points apart is too far at first"
        );
        // After 10 s each accepts 100 + 250 = 350 points.
        let tables = queue.make_matches(start + Duration::from_secs(10), &|_, _| false);
        assert_eq!(seated(&tables[0]), ["a", "b", "c", "strong"]);
    }

    #[test]
    fn a_registered_partner_cannot_be_replaced_by_a_guest_of_his_name() {
        let now = Instant::now();
        let mut queue = Queue::new(RULES);
        let alice = entry("Alice", 1500.0, now);
        let mut bob = entry("Bob", 1500.0, now);
        bob.partner = Some("Alice".into());
        bob.partner_account = Some(alice.player.account);
        assert!(queue.join(bob));
        let mut impostor = entry("alice", 1500.0, now);
        impostor.partner = Some("Bob".into());
        assert!(queue.join(impostor), "the impostor waits alone");
        let mut alice = alice;
        alice.partner = Some("Bob".into());
        assert!(!queue.join(alice), "Alice herself joins Bob");
    }

    #[test]
    fn a_queued_pair_sits_as_partners() {
        let now = Instant::now();
        let mut queue = Queue::new(RULES);
        let mut ann = entry("Ann", 1500.0, now);
        ann.partner = Some("bob".into());
        let mut bob = entry("Bob", 1500.0, now);
        bob.partner = Some("ANN".into());
        assert!(queue.join(ann));
        assert!(queue.make_matches(now, &|_, _| false).is_empty());
        assert!(!queue.join(bob));
        queue.join(entry("x", 1500.0, now));
        queue.join(entry("y", 1500.0, now));
        let tables = queue.make_matches(now, &|_, _| false);
        let names = names(&tables[0]);
        let seat_of = |name: &str| names.iter().position(|n| n.as_deref() == Some(name)).unwrap();
        assert_eq!(
            seat_of("Ann") % 2,
            seat_of("Bob") % 2,
            "partners sit opposite: {names:?}"
        );
        assert_eq!(seat_of("x") % 2, seat_of("y") % 2);
    }

    #[test]
    fn three_player_tables_seat_three() {
        let now = Instant::now();
        let mut queue = Queue::new(RULES);
        for name in ["a", "b", "c", "d"] {
            queue.join(Entry {
                preset: Preset::ThreePlayer,
                ..entry(name, 1500.0, now)
            });
        }
        let tables = queue.make_matches(now, &|_, _| false);
        assert_eq!(tables.len(), 1, "three of the four make a table at once");
        assert_eq!(tables[0].seats.len(), 3);
        assert_eq!(seated(&tables[0]).len(), 3);
        assert_eq!(queue.tickets.len(), 1);
        // The last waits, then plays with two bots in seats 1 and 2.
        let later = queue.make_matches(now + Duration::from_secs(20), &|_, _| false);
        assert_eq!(names(&later[0]).len(), 3);
        assert_eq!(names(&later[0])[1..], [None, None]);
    }

    #[test]
    fn a_lone_player_gets_bots_after_the_longest_wait() {
        let start = Instant::now();
        let mut queue = Queue::new(RULES);
        queue.join(entry("alone", 1500.0, start));
        assert!(
            queue
                .make_matches(start + Duration::from_secs(19), &|_, _| false)
                .is_empty()
        );
        let tables = queue.make_matches(start + Duration::from_secs(20), &|_, _| false);
        assert_eq!(names(&tables[0]), [Some("alone".to_string()), None, None, None]);
        assert!(queue.is_empty());
    }

    #[test]
    fn two_lone_players_are_partners_when_bots_complete_their_table() {
        let start = Instant::now();
        let mut queue = Queue::new(RULES);
        queue.join(entry("one", 1500.0, start));
        queue.join(entry("two", 1500.0, start));
        let tables = queue.make_matches(start + Duration::from_secs(21), &|_, _| false);
        let names = names(&tables[0]);
        assert_eq!(names[0].as_deref(), Some("one"));
        assert_eq!(names[2].as_deref(), Some("two"));
        assert_eq!((names[1].clone(), names[3].clone()), (None, None));
    }

    #[test]
    fn cancelled_players_and_their_partners_leave_the_queue() {
        let now = Instant::now();
        let mut queue = Queue::new(RULES);
        let mut ann = entry("Ann", 1500.0, now);
        ann.partner = Some("Bob".into());
        let mut bob = entry("Bob", 1500.0, now);
        bob.partner = Some("Ann".into());
        let bob_id = bob.player.id.clone();
        queue.join(ann);
        queue.join(bob);
        let gone = entry("gone", 1500.0, now);
        let gone_id = gone.player.id.clone();
        queue.join(gone);
        let left = queue.leave(&bob_id).unwrap();
        assert_eq!(&*left.partner.unwrap().player.name, "Ann");
        assert!(queue.leave(&gone_id).is_some());
        assert!(queue.is_empty());
        assert!(queue.leave(&gone_id).is_none());
    }

    #[test]
    fn presets_do_not_mix() {
        let now = Instant::now();
        let mut queue = Queue::new(RULES);
        for (i, name) in ["a", "b", "c", "d"].into_iter().enumerate() {
            let mut player = entry(name, 1500.0, now);
            if i == 3 {
                player.preset = Preset::Tournament;
            }
            queue.join(player);
        }
        assert!(queue.make_matches(now, &|_, _| false).is_empty());
    }

    #[test]
    fn four_singles_are_balanced_into_teams() {
        let now = Instant::now();
        let mut queue = Queue::new(Rules { gap: 1000.0, ..RULES });
        for (name, rating) in [
            ("best", 1900.0),
            ("second", 1700.0),
            ("third", 1600.0),
            ("weakest", 1300.0),
        ] {
            queue.join(entry(name, rating, now));
        }
        let names = names(&queue.make_matches(now, &|_, _| false)[0]);
        let seat_of = |name: &str| names.iter().position(|n| n.as_deref() == Some(name)).unwrap();
        assert_eq!(seat_of("best") % 2, seat_of("weakest") % 2, "{names:?}");
        assert_eq!(seat_of("second") % 2, seat_of("third") % 2, "{names:?}");
    }
}
