//! The eight bot levels and the time a move may take.

use core::fmt;
use core::str::FromStr;
use std::time::Duration;

/// A bot level, 1 (beginner) to 8 (the full engine).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(u8);

/// What a level does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelSpec {
    /// 1 to 8.
    pub level: u8,
    /// The name shown to players.
    pub name: &'static str,
    /// The estimated rating shown to players (see `docs/benchmarks.md` for how it was measured).
    pub rating: u32,
    /// Deepest iteration, plies.
    pub max_depth: u32,
    /// Most nodes per move, if capped.
    pub nodes: Option<u64>,
    /// Amplitude of the seeded evaluation noise, centipawns.
    pub noise_cp: i32,
    /// Chance per move, in thousandths, of playing a random legal action instead.
    pub blunder_permille: u32,
    /// Share of the move's time budget the level uses, in thousandths. Node caps and time
    /// shares both grow about threefold per level, so a level searches about three times
    /// what the level below does whether its node cap or its time binds.
    pub time_share_permille: u32,
    /// Transposition table size, MB.
    pub tt_megabytes: usize,
}

/// The level table, level 1 first.
pub const LEVELS: [LevelSpec; 8] = [
    LevelSpec {
        level: 1,
        name: "Beginner",
        rating: 500,
        max_depth: 1,
        nodes: Some(550),
        noise_cp: 250,
        blunder_permille: 300,
        time_share_permille: 1,
        tt_megabytes: 1,
    },
    LevelSpec {
        level: 2,
        name: "Novice",
        rating: 800,
        max_depth: 2,
        nodes: Some(1_600),
        noise_cp: 150,
        blunder_permille: 150,
        time_share_permille: 2,
        tt_megabytes: 1,
    },
    LevelSpec {
        level: 3,
        name: "Casual",
        rating: 1150,
        max_depth: 3,
        nodes: Some(5_000),
        noise_cp: 80,
        blunder_permille: 60,
        time_share_permille: 5,
        tt_megabytes: 2,
    },
    LevelSpec {
        level: 4,
        name: "Club player",
        rating: 1400,
        max_depth: 4,
        nodes: Some(15_000),
        noise_cp: 45,
        blunder_permille: 25,
        time_share_permille: 14,
        tt_megabytes: 4,
    },
    LevelSpec {
        level: 5,
        name: "Strong club player",
        rating: 1650,
        max_depth: 6,
        nodes: Some(45_000),
        noise_cp: 30,
        blunder_permille: 10,
        time_share_permille: 41,
        tt_megabytes: 8,
    },
    LevelSpec {
        level: 6,
        name: "Expert",
        rating: 1800,
        max_depth: 8,
        nodes: Some(135_000),
        noise_cp: 10,
        blunder_permille: 0,
        time_share_permille: 123,
        tt_megabytes: 16,
    },
    LevelSpec {
        level: 7,
        name: "Candidate master",
        rating: 1900,
        max_depth: 12,
        nodes: Some(400_000),
        noise_cp: 0,
        blunder_permille: 0,
        time_share_permille: 370,
        tt_megabytes: 32,
    },
    LevelSpec {
        level: 8,
        name: "Master",
        rating: 2000,
        max_depth: 40,
        nodes: None,
        noise_cp: 0,
        blunder_permille: 0,
        time_share_permille: 1000,
        tt_megabytes: 64,
    },
];

/// Nodes a level without its own cap searches when the caller gives no clock at all.
pub const DEFAULT_NODES: u64 = 1_500_000;

impl Level {
    /// The weakest level.
    pub const MIN: Level = Level(1);
    /// The full engine.
    pub const MAX: Level = Level(8);

    /// Level `n` (1 to 8).
    pub const fn new(n: u8) -> Option<Level> {
        if n >= 1 && n <= 8 { Some(Level(n)) } else { None }
    }

    /// Every level, weakest first.
    pub fn all() -> impl Iterator<Item = Level> {
        (1..=8).map(Level)
    }

    /// The number, 1 to 8.
    pub const fn number(self) -> u8 {
        self.0
    }

    /// The level's row of the table.
    pub const fn spec(self) -> &'static LevelSpec {
        &LEVELS[(self.0 - 1) as usize]
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl FromStr for Level {
    type Err = String;

    fn from_str(s: &str) -> Result<Level, String> {
        s.parse::<u8>().ok().and_then(Level::new).ok_or_else(|| format!("a level is a number from 1 to 8, not '{s}'"))
    }
}

/// The clock and budget of one move. All fields optional; with none, a level searches its own
/// node budget (level 8: [`DEFAULT_NODES`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// The bot's remaining clock time, ms.
    pub remaining_ms: Option<u64>,
    /// Its increment per move, ms.
    pub increment_ms: u64,
    /// A fixed time for this move, ms (overrides the clock).
    pub movetime_ms: Option<u64>,
    /// A node budget for this move (the lower of this and the level's own applies).
    pub nodes: Option<u64>,
}

impl Limits {
    /// A fixed time per move.
    pub const fn movetime(ms: u64) -> Limits {
        Limits { remaining_ms: None, increment_ms: 0, movetime_ms: Some(ms), nodes: None }
    }

    /// A node budget per move (reproducible).
    pub const fn nodes(n: u64) -> Limits {
        Limits { remaining_ms: None, increment_ms: 0, movetime_ms: None, nodes: Some(n) }
    }

    /// A game clock.
    pub const fn clock(remaining_ms: u64, increment_ms: u64) -> Limits {
        Limits { remaining_ms: Some(remaining_ms), increment_ms, movetime_ms: None, nodes: None }
    }
}

/// The budget of one move for a level: (hard time, soft time, nodes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// The search stops at once after this.
    pub hard: Option<Duration>,
    /// No new iteration starts after this.
    pub soft: Option<Duration>,
    /// Node cap.
    pub nodes: Option<u64>,
}

/// Plans the time of one move: a fixed move time is used in full (times the level's share); on
/// a clock, about a thirtieth of the remaining time plus most of the increment, never more
/// than a fifth of what is left.
pub fn plan(limits: Limits, spec: &LevelSpec) -> Budget {
    let share = |ms: u64| ms * u64::from(spec.time_share_permille) / 1000;
    let (hard, soft) = if let Some(mt) = limits.movetime_ms {
        let hard = share(mt).max(1);
        (Some(hard), Some(hard * 6 / 10))
    } else if let Some(rem) = limits.remaining_ms {
        let safe = rem.saturating_sub(50);
        let base = safe / 30 + limits.increment_ms * 3 / 4;
        let hard = share((base * 3).min(safe / 5)).max(1);
        let soft = share(base.min(safe / 5)).max(1);
        (Some(hard), Some(soft.min(hard)))
    } else {
        (None, None)
    };
    let mut nodes = match (spec.nodes, limits.nodes) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    if nodes.is_none() && hard.is_none() {
        nodes = Some(DEFAULT_NODES);
    }
    Budget { hard: hard.map(Duration::from_millis), soft: soft.map(Duration::from_millis), nodes }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_and_grow_stronger() {
        assert_eq!("3".parse::<Level>(), Ok(Level(3)));
        assert!("0".parse::<Level>().is_err() && "9".parse::<Level>().is_err() && "x".parse::<Level>().is_err());
        for pair in LEVELS.windows(2) {
            assert!(pair[1].rating > pair[0].rating);
            assert!(pair[1].max_depth >= pair[0].max_depth);
            assert!(pair[1].noise_cp <= pair[0].noise_cp);
            assert!(pair[1].blunder_permille <= pair[0].blunder_permille);
            assert!(pair[1].time_share_permille > pair[0].time_share_permille);
            assert!(pair[1].nodes.unwrap_or(u64::MAX) > pair[0].nodes.unwrap_or(0));
        }
        assert_eq!(Level::MAX.spec().nodes, None, "level 8 is bounded by time only");
    }

    #[test]
    fn time_plans_stay_within_the_clock() {
        let full = Level::MAX.spec();
        let b = plan(Limits::movetime(500), full);
        assert_eq!(b.hard, Some(Duration::from_millis(500)));
        let b = plan(Limits::clock(60_000, 1_000), full);
        let hard = b.hard.map_or(0, |d| d.as_millis());
        assert!(hard > 1_000 && hard <= 12_000, "{hard}");
        let b = plan(Limits::clock(100, 0), full);
        assert!(b.hard.is_some_and(|d| d.as_millis() <= 20), "{b:?}");
        let b = plan(Limits::default(), full);
        assert_eq!((b.hard, b.nodes), (None, Some(DEFAULT_NODES)));
        let b = plan(Limits::nodes(5_000), Level::new(6).map_or(full, Level::spec));
        assert_eq!(b.nodes, Some(5_000));
    }
}
