//! Seats, teams, and arrays indexed by them.

use std::fmt;
use std::ops::{Index, IndexMut};

/// One of the four seats, numbered 0 to 3 clockwise.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "u8", into = "u8"))]
pub struct Seat(u8);

impl Seat {
    pub const ALL: [Seat; 4] = [Seat(0), Seat(1), Seat(2), Seat(3)];

    pub const fn new(index: u8) -> Option<Seat> {
        if index < 4 { Some(Seat(index)) } else { None }
    }

    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The seat to this one's left, who acts next.
    pub const fn next(self) -> Seat {
        Seat((self.0 + 1) & 3)
    }

    /// The seat `n` places clockwise from this one.
    pub const fn plus(self, n: u8) -> Seat {
        Seat((self.0 + (n & 3)) & 3)
    }

    pub const fn partner(self) -> Seat {
        Seat(self.0 ^ 2)
    }

    /// Seats 0 and 2 are team 0; seats 1 and 3 are team 1.
    pub const fn team(self) -> Team {
        Team(self.0 & 1)
    }
}

impl fmt::Debug for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Seat({})", self.0)
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {}", self.0)
    }
}

impl From<Seat> for u8 {
    fn from(seat: Seat) -> u8 {
        seat.0
    }
}

impl TryFrom<u8> for Seat {
    type Error = String;
    fn try_from(index: u8) -> Result<Seat, String> {
        Seat::new(index).ok_or_else(|| format!("seat {index} does not exist: seats are 0 to 3"))
    }
}

/// One of the two partnerships.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "u8", into = "u8"))]
pub struct Team(u8);

impl Team {
    pub const ALL: [Team; 2] = [Team(0), Team(1)];

    pub const fn new(index: u8) -> Option<Team> {
        if index < 2 { Some(Team(index)) } else { None }
    }

    pub const fn index(self) -> usize {
        self.0 as usize
    }

    pub const fn other(self) -> Team {
        Team(self.0 ^ 1)
    }

    /// The two seats of the team, lower first.
    pub const fn seats(self) -> [Seat; 2] {
        [Seat(self.0), Seat(self.0 + 2)]
    }
}

impl fmt::Debug for Team {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Team({})", self.0)
    }
}

impl From<Team> for u8 {
    fn from(team: Team) -> u8 {
        team.0
    }
}

impl TryFrom<u8> for Team {
    type Error = String;
    fn try_from(index: u8) -> Result<Team, String> {
        Team::new(index).ok_or_else(|| format!("team {index} does not exist: teams are 0 and 1"))
    }
}

/// One value per seat.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct BySeat<T>(pub [T; 4]);

impl<T> BySeat<T> {
    pub fn from_fn(mut f: impl FnMut(Seat) -> T) -> BySeat<T> {
        BySeat(std::array::from_fn(|i| f(Seat(i as u8))))
    }

    pub fn iter(&self) -> impl Iterator<Item = (Seat, &T)> {
        Seat::ALL.into_iter().zip(self.0.iter())
    }
}

impl<T> Index<Seat> for BySeat<T> {
    type Output = T;
    fn index(&self, seat: Seat) -> &T {
        &self.0[seat.index()]
    }
}

impl<T> IndexMut<Seat> for BySeat<T> {
    fn index_mut(&mut self, seat: Seat) -> &mut T {
        &mut self.0[seat.index()]
    }
}

/// One value per team.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct ByTeam<T>(pub [T; 2]);

impl<T> ByTeam<T> {
    pub fn from_fn(mut f: impl FnMut(Team) -> T) -> ByTeam<T> {
        ByTeam(std::array::from_fn(|i| f(Team(i as u8))))
    }

    pub fn iter(&self) -> impl Iterator<Item = (Team, &T)> {
        Team::ALL.into_iter().zip(self.0.iter())
    }
}

impl<T> Index<Team> for ByTeam<T> {
    type Output = T;
    fn index(&self, team: Team) -> &T {
        &self.0[team.index()]
    }
}

impl<T> IndexMut<Team> for ByTeam<T> {
    fn index_mut(&mut self, team: Team) -> &mut T {
        &mut self.0[team.index()]
    }
}

/// A set of seats as four bits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SeatSet(u8);

impl SeatSet {
    pub const EMPTY: SeatSet = SeatSet(0);

    pub const fn single(seat: Seat) -> SeatSet {
        SeatSet(1 << seat.0)
    }

    pub const fn contains(self, seat: Seat) -> bool {
        self.0 & (1 << seat.0) != 0
    }

    pub fn insert(&mut self, seat: Seat) {
        self.0 |= 1 << seat.0;
    }

    pub fn remove(&mut self, seat: Seat) {
        self.0 &= !(1 << seat.0);
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// The lowest seat in the set.
    pub const fn first(self) -> Option<Seat> {
        if self.0 == 0 {
            None
        } else {
            Some(Seat(self.0.trailing_zeros() as u8))
        }
    }

    pub fn iter(self) -> impl Iterator<Item = Seat> {
        Seat::ALL.into_iter().filter(move |&seat| self.contains(seat))
    }
}

impl fmt::Debug for SeatSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter().map(|seat| seat.0)).finish()
    }
}

impl FromIterator<Seat> for SeatSet {
    fn from_iter<I: IntoIterator<Item = Seat>>(iter: I) -> SeatSet {
        let mut set = SeatSet::EMPTY;
        for seat in iter {
            set.insert(seat);
        }
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partners_sit_opposite_and_share_a_team() {
        for seat in Seat::ALL {
            assert_eq!(seat.partner().partner(), seat);
            assert_ne!(seat.partner(), seat);
            assert_eq!(seat.partner().team(), seat.team());
            assert_ne!(seat.next().team(), seat.team());
            assert_eq!(seat.plus(4), seat);
        }
        assert_eq!(Team::ALL[0].seats(), [Seat::ALL[0], Seat::ALL[2]]);
        assert_eq!(Team::ALL[1].seats(), [Seat::ALL[1], Seat::ALL[3]]);
    }

    #[test]
    fn play_goes_clockwise() {
        let order: Vec<usize> = std::iter::successors(Some(Seat::ALL[3]), |s| Some(s.next()))
            .take(5)
            .map(Seat::index)
            .collect();
        assert_eq!(order, [3, 0, 1, 2, 3]);
    }
}
