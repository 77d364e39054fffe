//! Elo exactly as the rule book's Ratings section says.

/// Every account starts here in every variant.
pub const START: i32 = 1500;
/// Rated games in a variant below which a rating is provisional (`?`).
pub const PROVISIONAL_GAMES: i32 = 30;

/// A player's rating in a variant before a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Perf {
    /// The rating.
    pub rating: i32,
    /// Rated games played in the variant.
    pub games: i32,
}

impl Perf {
    /// Whether the rating is still provisional.
    pub fn provisional(self) -> bool {
        self.games < PROVISIONAL_GAMES
    }

    /// The K factor: 40 while provisional, else 10 at 2400 or more, else 20.
    pub fn k(self) -> f64 {
        if self.provisional() {
            40.0
        } else if self.rating >= 2400 {
            10.0
        } else {
            20.0
        }
    }
}

/// Rounds to the nearest integer, an exact .5 away from zero.
pub fn round_half_away(x: f64) -> i32 {
    // f64::round rounds half away from zero; ratings are far inside i32.
    x.round() as i32
}

/// The expected score of a player rated `ra` against `rb`.
pub fn expected(ra: i32, rb: i32) -> f64 {
    1.0 / (1.0 + 10f64.powf(f64::from(rb - ra) / 400.0))
}

/// New ratings of A and B after a game where A scored `score_a` (1, 0.5 or 0); both updates use
/// the pre-game ratings.
pub fn update(a: Perf, b: Perf, score_a: f64) -> (i32, i32) {
    let ea = expected(a.rating, b.rating);
    let eb = expected(b.rating, a.rating);
    let new_a = round_half_away(f64::from(a.rating) + a.k() * (score_a - ea));
    let new_b = round_half_away(f64::from(b.rating) + b.k() * ((1.0 - score_a) - eb));
    (new_a, new_b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn perf(rating: i32, games: i32) -> Perf {
        Perf { rating, games }
    }

    #[test]
    fn halves_round_away_from_zero() {
        assert_eq!(round_half_away(1512.5), 1513);
        assert_eq!(round_half_away(1512.4999), 1512);
        assert_eq!(round_half_away(-2.5), -3);
        assert_eq!(round_half_away(-2.4), -2);
        assert_eq!(round_half_away(0.5), 1);
    }

    #[test]
    fn equal_new_players() {
        assert_eq!(update(perf(1500, 0), perf(1500, 0), 1.0), (1520, 1480));
        assert_eq!(update(perf(1500, 0), perf(1500, 0), 0.5), (1500, 1500));
        assert_eq!(update(perf(1500, 0), perf(1500, 0), 0.0), (1480, 1520));
    }

    #[test]
    fn k_depends_on_games_and_rating() {
        assert_eq!(perf(1500, 29).k(), 40.0);
        assert_eq!(perf(2500, 29).k(), 40.0);
        assert_eq!(perf(2399, 30).k(), 20.0);
        assert_eq!(perf(2400, 30).k(), 10.0);
        assert!(perf(1500, 29).provisional() && !perf(1500, 30).provisional());
    }

    #[test]
    fn both_updates_use_pre_game_ratings() {
        // E(1700 vs 1500) = 1 / (1 + 10^(-0.5)) = 0.759746926...
        let e = expected(1700, 1500);
        assert!((e - 0.759_746_926_647_957_1).abs() < 1e-12);
        // Established 1700 (K 20) loses to provisional 1500 (K 40):
        // 1700 + 20 * (0 - 0.75975) = 1684.805 -> 1685; 1500 + 40 * (1 - 0.24025) = 1530.39 -> 1530.
        assert_eq!(update(perf(1700, 50), perf(1500, 3), 0.0), (1685, 1530));
        // Draw between a 2400+ player (K 10) and an established 2000 (K 20): E = 0.930242;
        // 2450 + 10 * (0.5 - 0.930242) = 2445.698 -> 2446; 2000 + 20 * (0.5 - 0.069758) = 2008.605 -> 2009.
        let (a, b) = update(perf(2450, 100), perf(2000, 100), 0.5);
        let ea = expected(2450, 2000);
        assert_eq!(a, round_half_away(2450.0 + 10.0 * (0.5 - ea)));
        assert_eq!(b, round_half_away(2000.0 + 20.0 * (0.5 - (1.0 - ea))));
        assert_eq!((a, b), (2446, 2009));
    }

    #[test]
    fn expectations_sum_to_one() {
        for (ra, rb) in [(1500, 1500), (1200, 2000), (2800, 1000)] {
            assert!((expected(ra, rb) + expected(rb, ra) - 1.0).abs() < 1e-12);
        }
    }
}
