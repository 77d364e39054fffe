//! Live games: records, the round (one controller task per live game), clocks, ratings, the
//! socket protocol and the sweeper. The rules come only from the engine.

pub mod clock;
pub mod export;
pub mod health;
pub mod http;
pub mod identity;
pub mod model;
pub mod patch;
pub mod protocol;
pub mod reason;
pub mod refusal;
pub mod round;
pub mod socket;
pub mod source;
pub mod store;
pub mod sweeper;
pub mod view;

#[cfg(test)]
mod listed;

use std::fmt;

use chessgold_engine::Color;

pub use model::{CreateGame, PlayerRef};
pub use reason::Reason;
pub use source::Source;
pub use store::create_game;

/// Characters of game and player ids.
const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// `n` random base62 characters.
///
/// # Errors
/// No randomness is available.
pub fn random_base62(n: usize) -> anyhow::Result<String> {
    let mut out = String::with_capacity(n);
    while out.len() < n {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no randomness: {e}"))?;
        // 248 = 4 * 62: rejection keeps the characters uniform.
        for b in bytes.iter().filter(|b| **b < 248) {
            if out.len() == n {
                break;
            }
            out.push(char::from(BASE62[usize::from(*b % 62)]));
        }
    }
    Ok(out)
}

fn is_base62(text: &str, len: usize) -> bool {
    text.len() == len && text.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// A game id: 8 base62 characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameId(String);

impl GameId {
    /// Checks an id as it appears in a path.
    pub fn parse(text: &str) -> Option<GameId> {
        is_base62(text, 8).then(|| GameId(text.to_string()))
    }

    /// A new random id.
    ///
    /// # Errors
    /// No randomness is available.
    pub fn random() -> anyhow::Result<GameId> {
        random_base62(8).map(GameId)
    }

    /// The id text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A game's status, with lichess's stable ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Waiting for an opponent.
    Created = 10,
    /// Being played.
    Started = 20,
    /// Aborted by a player before both had moved.
    Aborted = 25,
    /// Checkmate.
    Mate = 30,
    /// A player resigned.
    Resign = 31,
    /// Stalemate.
    Stalemate = 32,
    /// Victory claimed over a disconnected opponent.
    Timeout = 33,
    /// A draw (agreed, claimed, or by the rules).
    Draw = 34,
    /// A clock ran out.
    Outoftime = 35,
    /// A first move did not come in time.
    NoStart = 37,
    /// A variant's own ending.
    VariantEnd = 60,
}

impl Status {
    /// Every status.
    pub const ALL: [Status; 11] = [
        Status::Created,
        Status::Started,
        Status::Aborted,
        Status::Mate,
        Status::Resign,
        Status::Stalemate,
        Status::Timeout,
        Status::Draw,
        Status::Outoftime,
        Status::NoStart,
        Status::VariantEnd,
    ];

    /// The stable id.
    pub fn id(self) -> i16 {
        self as i16
    }

    /// The status of a stored id.
    pub fn from_id(id: i16) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.id() == id)
    }

    /// The protocol's name.
    pub fn name(self) -> &'static str {
        match self {
            Status::Created => "created",
            Status::Started => "started",
            Status::Aborted => "aborted",
            Status::Mate => "mate",
            Status::Resign => "resign",
            Status::Stalemate => "stalemate",
            Status::Timeout => "timeout",
            Status::Draw => "draw",
            Status::Outoftime => "outoftime",
            Status::NoStart => "no_start",
            Status::VariantEnd => "variant_end",
        }
    }

    /// Whether the game is still going on (waiting or being played).
    pub fn is_live(self) -> bool {
        matches!(self, Status::Created | Status::Started)
    }

    /// Whether the game ended with a result that counts (not aborted, not unstarted).
    pub fn has_result(self) -> bool {
        !self.is_live() && !matches!(self, Status::Aborted | Status::NoStart)
    }
}

/// A time control: limit and increment in centiseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeControl {
    /// Initial time, centiseconds.
    pub limit: i32,
    /// Added after each turn, centiseconds.
    pub increment: i32,
}

/// The time controls the site offers, as minutes + seconds.
pub const TIME_CONTROLS: [(i32, i32); 10] =
    [(1, 0), (3, 0), (3, 2), (5, 0), (5, 3), (10, 0), (10, 5), (15, 10), (30, 0), (30, 20)];

impl TimeControl {
    /// A clock of any length (tests and future pools); the site's forms offer [`TIME_CONTROLS`].
    pub fn new(limit: i32, increment: i32) -> Option<TimeControl> {
        (limit > 0 && increment >= 0).then_some(TimeControl { limit, increment })
    }

    /// Parses the form's `3+2`; `unlimited` is `Ok(None)`.
    ///
    /// # Errors
    /// A sentence naming the accepted values.
    pub fn parse_offer(text: &str) -> Result<Option<TimeControl>, String> {
        if text == "unlimited" {
            return Ok(None);
        }
        let found = TIME_CONTROLS.iter().find(|(m, s)| format!("{m}+{s}") == text);
        match found {
            Some((m, s)) => Ok(Some(TimeControl { limit: m * 6000, increment: s * 100 })),
            None => Err(format!(
                "unknown time control '{}' (choose {} or unlimited)",
                text.chars().take(20).collect::<String>(),
                TIME_CONTROLS.iter().map(|(m, s)| format!("{m}+{s}")).collect::<Vec<_>>().join(", ")
            )),
        }
    }

    /// Lichess's name of the clock: `3+2`, and for limits that are not whole minutes `¼+0`,
    /// `½+1`, `¾+0`, `1.5+0`, else the minutes with up to two decimals (`2.25+1`).
    pub fn show(&self) -> String {
        let inc = self.increment / 100;
        let seconds = self.limit / 100;
        let limit = match seconds {
            s if s % 60 == 0 => (s / 60).to_string(),
            15 => "¼".to_string(),
            30 => "½".to_string(),
            45 => "¾".to_string(),
            s => {
                let text = format!("{:.2}", f64::from(s) / 60.0);
                text.trim_end_matches('0').trim_end_matches('.').to_string()
            }
        };
        format!("{limit}+{inc}")
    }

    /// The estimated length of a game in seconds, as lichess reckons it: the limit plus 40
    /// increments.
    pub fn estimate_secs(&self) -> i32 {
        self.limit / 100 + 40 * (self.increment / 100)
    }
}

/// How fast a game is, by the estimated length of its clock, with lichess's bounds
/// (scalachess `Speed`): up to 29 s ultra bullet, up to 179 s bullet, up to 479 s blitz, up to
/// 1,499 s rapid, classical beyond; unlimited games are correspondence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Speed {
    /// Estimated under 30 s.
    UltraBullet,
    /// 30 s to 179 s.
    Bullet,
    /// 180 s to 479 s.
    Blitz,
    /// 480 s to 1,499 s.
    Rapid,
    /// 1,500 s and more.
    Classical,
    /// No clock.
    Correspondence,
}

/// Lichess's perf key of a game: standard chess is rated per speed on lichess (`bullet`,
/// `blitz`, ...), each variant once (its id). The rule book keeps one Elo for standard; the API
/// reports it under the speed of each game (`docs/api.md`, Speeds).
pub fn perf_key(variant: &'static str, clock: Option<TimeControl>) -> &'static str {
    if variant == "standard" { Speed::of(clock).key() } else { variant }
}

impl Speed {
    /// Every speed, fastest first.
    pub const ALL: [Speed; 6] =
        [Speed::UltraBullet, Speed::Bullet, Speed::Blitz, Speed::Rapid, Speed::Classical, Speed::Correspondence];

    /// The speed of a clock; `None` (unlimited) is correspondence.
    pub fn of(clock: Option<TimeControl>) -> Speed {
        match clock.map(|c| c.estimate_secs()) {
            None => Speed::Correspondence,
            Some(..30) => Speed::UltraBullet,
            Some(30..180) => Speed::Bullet,
            Some(180..480) => Speed::Blitz,
            Some(480..1500) => Speed::Rapid,
            Some(_) => Speed::Classical,
        }
    }

    /// The estimated lengths of this speed's clocks, in seconds (from, to excluded), as
    /// [`Speed::of`] counts them; `None` for correspondence (games without a clock).
    pub fn estimate_range(self) -> Option<(i32, i32)> {
        match self {
            Speed::UltraBullet => Some((0, 30)),
            Speed::Bullet => Some((30, 180)),
            Speed::Blitz => Some((180, 480)),
            Speed::Rapid => Some((480, 1500)),
            Speed::Classical => Some((1500, i32::MAX)),
            Speed::Correspondence => None,
        }
    }

    /// The speed of a lichess key.
    pub fn from_key(key: &str) -> Option<Speed> {
        Speed::ALL.into_iter().find(|s| s.key() == key)
    }

    /// Lichess's key (`ultraBullet`, `bullet`, ...), as in its API.
    pub fn key(self) -> &'static str {
        match self {
            Speed::UltraBullet => "ultraBullet",
            Speed::Bullet => "bullet",
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
            Speed::Correspondence => "correspondence",
        }
    }

    /// The name shown to people (`UltraBullet`, `Bullet`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Speed::UltraBullet => "UltraBullet",
            Speed::Bullet => "Bullet",
            Speed::Blitz => "Blitz",
            Speed::Rapid => "Rapid",
            Speed::Classical => "Classical",
            Speed::Correspondence => "Correspondence",
        }
    }
}

/// `white` / `black` to a colour.
pub fn parse_color(text: &str) -> Option<Color> {
    match text {
        "white" => Some(Color::White),
        "black" => Some(Color::Black),
        _ => None,
    }
}

/// A colour a request may name (a seat asked for): absent or empty is `None`.
///
/// # Errors
/// Anything else than `white` or `black`, with the sentence to answer.
pub fn parse_optional_color(text: Option<&str>) -> Result<Option<Color>, &'static str> {
    match text {
        None | Some("") => Ok(None),
        Some(t) => parse_color(t).map(Some).ok_or("color is white or black"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_base62_of_the_right_length() {
        let id = GameId::random().unwrap();
        assert_eq!(id.as_str().len(), 8);
        assert!(GameId::parse(id.as_str()).is_some());
        assert!(GameId::parse("abc").is_none());
        assert!(GameId::parse("abcd-fgh").is_none());
        assert_ne!(random_base62(12).unwrap(), random_base62(12).unwrap());
    }

    #[test]
    fn statuses_keep_lichess_ids() {
        assert_eq!(Status::Started.id(), 20);
        assert_eq!(Status::NoStart.id(), 37);
        assert_eq!(Status::VariantEnd.id(), 60);
        for s in Status::ALL {
            assert_eq!(Status::from_id(s.id()), Some(s));
        }
        assert!(Status::Mate.has_result() && !Status::Aborted.has_result() && !Status::Started.has_result());
    }

    #[test]
    fn offered_time_controls_parse() {
        assert_eq!(TimeControl::parse_offer("3+2").unwrap(), Some(TimeControl { limit: 18000, increment: 200 }));
        assert_eq!(TimeControl::parse_offer("30+20").unwrap(), Some(TimeControl { limit: 180_000, increment: 2000 }));
        assert_eq!(TimeControl::parse_offer("unlimited").unwrap(), None);
        assert!(TimeControl::parse_offer("2+1").is_err());
        assert_eq!(TimeControl { limit: 18000, increment: 200 }.show(), "3+2");
    }

    fn clock(seconds: i32, increment: i32) -> Option<TimeControl> {
        TimeControl::new(seconds * 100, increment * 100)
    }

    #[test]
    fn speeds_change_at_lichess_bounds() {
        let cases = [
            (29, 0, Speed::UltraBullet),
            (30, 0, Speed::Bullet),
            (179, 0, Speed::Bullet),
            (180, 0, Speed::Blitz),
            (479, 0, Speed::Blitz),
            (480, 0, Speed::Rapid),
            (1499, 0, Speed::Rapid),
            (1500, 0, Speed::Classical),
            // 2+1 is 120 + 40 = 160 s: bullet; 3+2 is 260 s: blitz; 15+10 is 1,300 s: rapid.
            (120, 1, Speed::Bullet),
            (180, 2, Speed::Blitz),
            (900, 10, Speed::Rapid),
            (1800, 20, Speed::Classical),
        ];
        for (limit, inc, speed) in cases {
            assert_eq!(Speed::of(clock(limit, inc)), speed, "{limit}+{inc}");
        }
        assert_eq!(Speed::of(None), Speed::Correspondence);
        assert_eq!(Speed::of(clock(179, 0)).key(), "bullet");
        assert_eq!(Speed::of(clock(29, 0)).name(), "UltraBullet");
    }

    #[test]
    fn clocks_are_named_as_lichess_names_them() {
        assert_eq!(clock(15, 0).unwrap().show(), "¼+0");
        assert_eq!(clock(30, 1).unwrap().show(), "½+1");
        assert_eq!(clock(45, 0).unwrap().show(), "¾+0");
        assert_eq!(clock(90, 0).unwrap().show(), "1.5+0");
        assert_eq!(clock(135, 1).unwrap().show(), "2.25+1");
        assert_eq!(clock(60, 0).unwrap().show(), "1+0");
        assert_eq!(clock(10_800, 180).unwrap().show(), "180+180");
    }
}
