//! The Elo difference a match result shows, with its 95% confidence interval.
//!
//! The score per game is a trinomial variable (1, ½, 0); its mean `s` and standard error
//! `σ = sqrt(var / n)` (var from the observed W/D/L frequencies) give the interval
//! `s ± 1.96 σ`, mapped through `Elo(s) = -400 log10(1/s - 1)`. A bound at a score of 0 or 1
//! is infinite.

/// An Elo estimate from wins, draws and losses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// Score of the first player, 0 to 1.
    pub score: f64,
    /// Elo difference (first minus second); infinite for a score of 0 or 1.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

/// The Elo difference for an expected score `s`.
pub fn elo_of_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / s - 1.0).log10()
    }
}

/// The estimate from `wins`, `draws` and `losses` of the first player; `None` for no games.
pub fn elo_estimate(wins: u32, draws: u32, losses: u32) -> Option<EloEstimate> {
    let n = f64::from(wins + draws + losses);
    if n == 0.0 {
        return None;
    }
    let (w, d, l) = (f64::from(wins) / n, f64::from(draws) / n, f64::from(losses) / n);
    let s = w + d / 2.0;
    let var = w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2);
    let se = (var / n).sqrt();
    Some(EloEstimate {
        score: s,
        elo: elo_of_score(s),
        low: elo_of_score(s - 1.96 * se),
        high: elo_of_score(s + 1.96 * se),
    })
}

impl EloEstimate {
    /// `+120 (95%: +60 .. +190)`, with `inf` for unbounded ends.
    pub fn to_text(&self) -> String {
        let f = |x: f64| {
            if x.is_infinite() {
                if x > 0.0 { "+inf".to_string() } else { "-inf".to_string() }
            } else {
                format!("{x:+.0}")
            }
        };
        format!("{} (95%: {} .. {})", f(self.elo), f(self.low), f(self.high))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn even_score_is_zero_elo_with_a_symmetric_interval() {
        let e = elo_estimate(10, 0, 10).expect("games");
        assert!(close(e.elo, 0.0, 1e-9));
        assert!(close(e.low, -e.high, 1e-9));
        // s = 0.5, var = 0.25, se = sqrt(0.25/20) = 0.1118; 0.5 + 1.96 se = 0.7191 -> +163.3
        assert!(close(e.high, 163.3, 0.1), "{}", e.high);
    }

    #[test]
    fn known_scores_map_to_known_elo() {
        assert!(close(elo_of_score(0.75), 190.85, 0.05));
        assert!(close(elo_of_score(0.25), -190.85, 0.05));
        assert!(close(elo_of_score(0.64), 100.0, 0.5));
        let e = elo_estimate(30, 20, 10).expect("games");
        assert!(close(e.score, 40.0 / 60.0, 1e-12));
        assert!(close(e.elo, 120.4, 0.1), "{}", e.elo);
        assert!(e.low < e.elo && e.elo < e.high);
        // Draws shrink the interval compared with the same score from wins and losses only.
        let decisive = elo_estimate(40, 0, 20).expect("games");
        assert!(e.high - e.low < decisive.high - decisive.low);
    }

    #[test]
    fn sweeps_and_empty_matches() {
        assert_eq!(elo_estimate(0, 0, 0), None);
        let e = elo_estimate(8, 0, 0).expect("games");
        assert!(e.elo.is_infinite() && e.high.is_infinite() && e.low.is_infinite(), "{e:?}");
        assert_eq!(e.to_text(), "+inf (95%: +inf .. +inf)");
        let e = elo_estimate(7, 1, 0).expect("games");
        assert!(e.elo.is_finite() && e.low.is_finite() && e.high.is_infinite());
        assert!(e.to_text().starts_with('+'));
    }
}
