//! How a game came to be: lichess's `source` of a game (`lobby`, `friend`, `ai`, `pool`), in
//! the API's game objects and stored in `games.source`.

use core::fmt;

/// How a game came to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// A seek accepted in the lobby.
    Lobby,
    /// A game with a friend: an invitation link or an accepted challenge.
    Friend,
    /// A game against the computer.
    Ai,
    /// Quick pairing (the lobby's pools, and the API's board seek).
    Pool,
}

impl Source {
    /// Every source.
    pub const ALL: [Source; 4] = [Source::Lobby, Source::Friend, Source::Ai, Source::Pool];

    /// The name on the wire and in the database, as lichess spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Source::Lobby => "lobby",
            Source::Friend => "friend",
            Source::Ai => "ai",
            Source::Pool => "pool",
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a game source.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a game source (one of: lobby, friend, ai, pool)")]
pub struct UnknownSource(pub String);

impl core::str::FromStr for Source {
    type Err = UnknownSource;

    fn from_str(text: &str) -> Result<Source, UnknownSource> {
        Source::ALL.into_iter().find(|s| s.as_str() == text).ok_or_else(|| UnknownSource(text.to_string()))
    }
}

// Stored as `text` (`games.source`).
crate::stored_as_text!(Source);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_others_are_refused() {
        for s in Source::ALL {
            assert_eq!(s.as_str().parse::<Source>(), Ok(s));
            assert_eq!(s.to_string(), s.as_str());
        }
        let e = "api".parse::<Source>().expect_err("not one of ours");
        assert_eq!(e.to_string(), "\"api\" is not a game source (one of: lobby, friend, ai, pool)");
    }
}
