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

    /// The seat's number, 0 to 3. Masked to two bits, which it never
    /// exceeds, so that indexing a four-value array by it needs no bounds
    /// check.
    #[inline]
    pub const fn index(self) -> usize {
        (self.0 & 3) as usize
    }

    /// The seat to this one's left, who acts next.
    pub const fn next(self) -> Seat {
        Seat((self.0 + 1) & 3)
    }

    /// The seat `n` places clockwise from this one.
    pub const fn plus(self, n: u8) -> Seat {
        Seat((self.0 + (n & 3)) & 3)
    }

    /// The seat after this one among the first `players` seats. For the
    /// play loop, which knows its count of seats and must not branch on
    /// the seating.
    #[inline]
    pub(crate) const fn next_among(self, players: u8) -> Seat {
        let next = self.0 + 1;
        Seat(if next >= players { 0 } else { next })
    }

    /// The seat `n` places after this one among the first `players` seats,
    /// for `n` below `players`.
    #[inline]
    pub(crate) const fn plus_among(self, n: u8, players: u8) -> Seat {
        let seat = self.0 + n;
        Seat(if seat >= players { seat - players } else { seat })
    }

    pub const fn partner(self) -> Seat {
        Seat(self.0 ^ 2)
    }

    /// The seat's partnership when there are partners: seats 0 and 2 are
    /// team 0, seats 1 and 3 team 1. [`Seating::team_of`] covers solo too.
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

/// A side that keeps its own score: one of the two partnerships, or in a
/// game without partners one of the four players (numbered as his seat).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "u8", into = "u8"))]
pub struct Team(u8);

impl Team {
    /// The two partnerships of a game with partners.
    pub const ALL: [Team; 2] = [Team(0), Team(1)];

    pub const fn new(index: u8) -> Option<Team> {
        if index < 4 { Some(Team(index)) } else { None }
    }

    /// The team's number, 0 to 3, masked as [`Seat::index`] is.
    #[inline]
    pub const fn index(self) -> usize {
        (self.0 & 3) as usize
    }

    /// The two seats of a partnership, lower first. Only for games with
    /// partners: [`Seating::seats_of`] covers solo too.
    pub const fn seats(self) -> [Seat; 2] {
        [Seat(self.0 & 1), Seat((self.0 & 1) + 2)]
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
        Team::new(index).ok_or_else(|| format!("team {index} does not exist: teams are 0 to 3"))
    }
}

/// Who plays with whom: two partnerships sitting opposite each other,
/// four players each on his own ("solo", or cutthroat), or three players
/// each on his own in seats 0 to 2, seat 3 staying empty.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Seating {
    #[default]
    Partners,
    Solo,
    Three,
}

impl Seating {
    pub const fn team_count(self) -> usize {
        match self {
            Seating::Partners => 2,
            Seating::Solo => 4,
            Seating::Three => 3,
        }
    }

    /// How many seats are played: 4, or 3 in the three-player game.
    pub const fn seat_count(self) -> usize {
        match self {
            Seating::Partners | Seating::Solo => 4,
            Seating::Three => 3,
        }
    }

    /// The seats that are played, from seat 0 clockwise.
    pub fn seats(self) -> impl Iterator<Item = Seat> {
        (0..self.seat_count() as u8).map(Seat)
    }

    /// The played seat to this one's left, who acts next.
    #[inline]
    pub const fn next(self, seat: Seat) -> Seat {
        self.plus(seat, 1)
    }

    /// The played seat `n` places clockwise from this one.
    #[inline]
    pub const fn plus(self, seat: Seat, n: u8) -> Seat {
        match self {
            Seating::Partners | Seating::Solo => seat.plus(n),
            Seating::Three => Seat((seat.0 + n % 3) % 3),
        }
    }

    pub fn teams(self) -> impl Iterator<Item = Team> {
        (0..self.team_count() as u8).map(Team)
    }

    pub const fn team_of(self, seat: Seat) -> Team {
        match self {
            Seating::Partners => Team(seat.0 & 1),
            Seating::Solo | Seating::Three => Team(seat.0),
        }
    }

    /// The seat across the table when it is a partner's.
    pub const fn partner(self, seat: Seat) -> Option<Seat> {
        match self {
            Seating::Partners => Some(seat.partner()),
            Seating::Solo | Seating::Three => None,
        }
    }

    /// The seats of a team: two partners, or one player.
    pub const fn seats_of(self, team: Team) -> SeatSet {
        match self {
            Seating::Partners => SeatSet((1 << team.0) | (1 << (team.0 + 2))),
            Seating::Solo | Seating::Three => SeatSet(1 << team.0),
        }
    }
}

/// One value per seat. It reads back from three values too (those of the
/// three-player game, whose fourth seat keeps its default), as the hand
/// history writes them.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct BySeat<T>(pub [T; 4]);

#[cfg(feature = "serde")]
impl<'de, T: serde::Deserialize<'de> + Default> serde::Deserialize<'de> for BySeat<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<BySeat<T>, D::Error> {
        let values = Vec::<T>::deserialize(deserializer)?;
        let count = values.len();
        if count != 3 && count != 4 {
            return Err(serde::de::Error::custom(format!(
                "{count} values where a game has 4 seats, or 3 in the three-player game"
            )));
        }
        let mut values = values.into_iter();
        Ok(BySeat::from_fn(|_| values.next().unwrap_or_default()))
    }
}

impl<T> BySeat<T> {
    pub fn from_fn(mut f: impl FnMut(Seat) -> T) -> BySeat<T> {
        BySeat(std::array::from_fn(|i| f(Seat(i as u8))))
    }

    pub fn iter(&self) -> impl Iterator<Item = (Seat, &T)> {
        Seat::ALL.into_iter().zip(self.0.iter())
    }

    /// The values of the seats that `seating` plays, seat 0 first: all
    /// four, or the first three in the three-player game.
    pub fn played(&self, seating: Seating) -> &[T] {
        &self.0[..seating.seat_count()]
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

/// One value per team: two for partnerships, three or four without
/// partners. The values sit
/// in a fixed array so that the type stays `Copy`; only the first `len`
/// count, compare and serialize.
#[derive(Clone, Copy, Debug)]
pub struct ByTeam<T> {
    values: [T; 4],
    len: u8,
}

impl<T: Copy + Default> ByTeam<T> {
    pub fn from_fn(seating: Seating, mut f: impl FnMut(Team) -> T) -> ByTeam<T> {
        let len = seating.team_count();
        let mut values = [T::default(); 4];
        for (index, value) in values[..len].iter_mut().enumerate() {
            *value = f(Team(index as u8));
        }
        ByTeam {
            values,
            len: len as u8,
        }
    }

    pub fn filled(seating: Seating, value: T) -> ByTeam<T> {
        ByTeam::from_fn(seating, |_| value)
    }

    /// The values of two, three or four teams, or `None` for any other count.
    pub fn from_slice(values: &[T]) -> Option<ByTeam<T>> {
        if !(2..=4).contains(&values.len()) {
            return None;
        }
        let mut array = [T::default(); 4];
        array[..values.len()].copy_from_slice(values);
        Some(ByTeam {
            values: array,
            len: values.len() as u8,
        })
    }
}

impl<T> ByTeam<T> {
    pub fn as_slice(&self) -> &[T] {
        &self.values[..self.len as usize]
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the values are one per team of `seating`.
    pub fn fits(&self, seating: Seating) -> bool {
        self.len() == seating.team_count()
    }

    pub fn teams(&self) -> impl Iterator<Item = Team> + use<T> {
        (0..self.len).map(Team)
    }

    pub fn iter(&self) -> impl Iterator<Item = (Team, &T)> {
        self.teams().zip(self.as_slice())
    }
}

impl<T: Copy + Default> Default for ByTeam<T> {
    /// Two teams, as in a game with partners.
    fn default() -> ByTeam<T> {
        ByTeam::filled(Seating::Partners, T::default())
    }
}

impl<T: Copy + Default> From<[T; 2]> for ByTeam<T> {
    fn from(values: [T; 2]) -> ByTeam<T> {
        ByTeam::from_slice(&values).expect("two teams")
    }
}

impl<T: Copy + Default> From<[T; 4]> for ByTeam<T> {
    fn from(values: [T; 4]) -> ByTeam<T> {
        ByTeam::from_slice(&values).expect("four teams")
    }
}

impl<T: PartialEq> PartialEq for ByTeam<T> {
    fn eq(&self, other: &ByTeam<T>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Eq> Eq for ByTeam<T> {}

impl<T: std::hash::Hash> std::hash::Hash for ByTeam<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

impl<T> Index<Team> for ByTeam<T> {
    type Output = T;
    fn index(&self, team: Team) -> &T {
        &self.as_slice()[team.index()]
    }
}

impl<T> IndexMut<Team> for ByTeam<T> {
    fn index_mut(&mut self, team: Team) -> &mut T {
        let len = self.len as usize;
        &mut self.values[..len][team.index()]
    }
}

#[cfg(feature = "serde")]
impl<T: serde::Serialize> serde::Serialize for ByTeam<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(serializer)
    }
}

#[cfg(feature = "serde")]
impl<'de, T: serde::Deserialize<'de> + Copy + Default> serde::Deserialize<'de> for ByTeam<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<ByTeam<T>, D::Error> {
        let values = Vec::<T>::deserialize(deserializer)?;
        ByTeam::from_slice(&values).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "{} values where a game has 2 teams (partners), 3 (three players) or 4 (solo)",
                values.len()
            ))
        })
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

    /// The seats in the set, lowest first.
    pub fn iter(self) -> impl Iterator<Item = Seat> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            let seat = SeatSet(bits).first()?;
            bits &= bits - 1;
            Some(seat)
        })
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
        for seating in [Seating::Partners, Seating::Solo, Seating::Three] {
            for seat in seating.seats() {
                let team = seating.team_of(seat);
                assert!(seating.seats_of(team).contains(seat));
                assert_eq!(seating.partner(seat).is_some(), seating == Seating::Partners);
                assert_eq!(seating.plus(seat, seating.seat_count() as u8), seat);
            }
            let covered: u32 = seating.teams().map(|team| seating.seats_of(team).len()).sum();
            assert_eq!(
                covered as usize,
                seating.seat_count(),
                "{seating:?}: every seat in one team"
            );
        }
    }

    #[test]
    fn per_team_values_count_only_the_games_teams() {
        let two = ByTeam::filled(Seating::Partners, 5);
        let four = ByTeam::from_fn(Seating::Solo, |team| team.index() as i32);
        assert_eq!(two.as_slice(), [5, 5]);
        assert_eq!(four.as_slice(), [0, 1, 2, 3]);
        assert_eq!(ByTeam::from([1, 2]), ByTeam::from_slice(&[1, 2]).unwrap());
        assert_eq!(ByTeam::from_slice(&[1, 2, 3]).unwrap().len(), 3);
        assert!(ByTeam::<i32>::from_slice(&[1, 2, 3, 4, 5]).is_none());
        assert_ne!(ByTeam::from([0, 0]), ByTeam::from([0, 0, 0, 0]));
    }

    #[test]
    fn play_goes_clockwise() {
        let order: Vec<usize> = std::iter::successors(Some(Seat::ALL[3]), |s| Some(s.next()))
            .take(5)
            .map(Seat::index)
            .collect();
        assert_eq!(order, [3, 0, 1, 2, 3]);
        let three: Vec<usize> = std::iter::successors(Some(Seat::ALL[2]), |&s| Some(Seating::Three.next(s)))
            .take(5)
            .map(Seat::index)
            .collect();
        assert_eq!(three, [2, 0, 1, 2, 0]);
    }
}
