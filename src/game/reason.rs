//! Why a game ended: one enum for every end of a game, the engine's rules and the platform's
//! (resignation, clocks, aborts, agreements, abandonment). One spelling everywhere — the socket's
//! and the API's `reason`, the `games.reason` column, the stored `end` events — the rule book's
//! names, hyphenated (`no-progress`, `timeout`); the PGN's `Termination` takes lichess's words
//! for them (`src/game/export.rs`). Names the rule book does not give are chosen in
//! docs/rules-decisions.md. docs/api.md lists every reason and
//! static/js/format.js gives each its words (checked by `src/game/listed.rs`).

use core::fmt;

use chessgold_engine::EndReason;

macro_rules! end_reasons {
    ($($(#[doc = $doc:literal])+ $name:ident => $text:literal,)+) => {
        /// Why a game ended. See the module documentation.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Reason {
            $($(#[doc = $doc])+ $name,)+
        }

        impl Reason {
            /// Every reason, in the order of docs/api.md's table.
            pub const ALL: &'static [Reason] = &[$(Reason::$name,)+];

            /// The name on the wire and in the database.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Reason::$name => $text,)+
                }
            }
        }
    };
}

end_reasons! {
    /// Checkmate.
    Checkmate => "checkmate",
    /// Stalemate.
    Stalemate => "stalemate",
    /// Threefold repetition.
    Repetition => "repetition",
    /// 100 plies without progress.
    NoProgress => "no-progress",
    /// Neither side can mate.
    InsufficientMaterial => "insufficient-material",
    /// Conqueror: the opponent was left with only the king after a conversion.
    Conversion => "conversion",
    /// Chessception: a king reached 0 HP.
    KingKilled => "king-killed",
    /// Class Warfare: the king was captured.
    KingCaptured => "king-captured",
    /// Class Warfare: the proletariat has no pawn left.
    NoPawns => "no-pawns",
    /// The side to move has no legal move and loses or draws by its variant's rule.
    NoMove => "no-move",
    /// Class Warfare: the proletariat's 50 moves are used up.
    MoveLimit => "move-limit",
    /// Chessception: 150 plies.
    PlyLimit => "ply-limit",
    /// Chessception: only the two kings are left.
    KingsOnly => "kings-only",
    /// Chessception: a king shuffled back and forth.
    KingRepeat => "king-repeat",
    /// A player resigned.
    Resign => "resign",
    /// A player's clock ran out and the opponent could still win: a loss.
    Timeout => "timeout",
    /// A player's clock ran out, but the opponent could not have won: a draw.
    TimeoutDraw => "timeout-draw",
    /// A player left the game and the opponent claimed the victory.
    Abandoned => "abandoned",
    /// A player left the game and the opponent called it a draw.
    AbandonedDraw => "abandoned-draw",
    /// The players agreed to a draw.
    Agreement => "agreement",
    /// A player aborted the game before both sides had moved.
    Aborted => "aborted",
    /// The first move did not come in time: the game is aborted.
    NoStart => "no-start",
}

impl Reason {
    /// The reason named `text` by [`Reason::as_str`].
    pub fn from_name(text: &str) -> Option<Reason> {
        Reason::ALL.iter().copied().find(|r| r.as_str() == text)
    }
}

impl From<EndReason> for Reason {
    fn from(r: EndReason) -> Reason {
        match r {
            EndReason::Checkmate => Reason::Checkmate,
            EndReason::Stalemate => Reason::Stalemate,
            EndReason::Repetition => Reason::Repetition,
            EndReason::NoProgress => Reason::NoProgress,
            EndReason::InsufficientMaterial => Reason::InsufficientMaterial,
            EndReason::Conversion => Reason::Conversion,
            EndReason::KingKilled => Reason::KingKilled,
            EndReason::KingCaptured => Reason::KingCaptured,
            EndReason::NoPawns => Reason::NoPawns,
            EndReason::NoMove => Reason::NoMove,
            EndReason::MoveLimit => Reason::MoveLimit,
            EndReason::PlyLimit => Reason::PlyLimit,
            EndReason::KingsOnly => Reason::KingsOnly,
            EndReason::KingRepeat => Reason::KingRepeat,
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not an end reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an end reason (one of: {names})", names = names())]
pub struct UnknownReason(pub String);

fn names() -> String {
    Reason::ALL.iter().map(|r| r.as_str()).collect::<Vec<_>>().join(", ")
}

impl core::str::FromStr for Reason {
    type Err = UnknownReason;

    fn from_str(text: &str) -> Result<Reason, UnknownReason> {
        Reason::from_name(text).ok_or_else(|| UnknownReason(text.to_string()))
    }
}

impl serde::Serialize for Reason {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Reason {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Reason, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

// Stored as `text` (`games.reason`).
crate::stored_as_text!(Reason);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_lowercase_words_joined_by_hyphens() {
        let mut seen = std::collections::HashSet::new();
        for r in Reason::ALL {
            assert!(seen.insert(r.as_str()), "{r} twice");
            assert!(r.as_str().split('-').all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase())), "{r}");
        }
    }

    #[test]
    fn names_read_back_in_json_and_text() {
        for &r in Reason::ALL {
            assert_eq!(Reason::from_name(r.as_str()), Some(r));
            assert_eq!(r.to_string().parse::<Reason>(), Ok(r));
            let json = serde_json::to_value(r).expect("a string");
            assert_eq!(json, serde_json::json!(r.as_str()));
            assert_eq!(serde_json::from_value::<Reason>(json).expect("a reason"), r);
        }
    }

    #[test]
    fn an_old_or_unknown_name_is_refused_with_the_list() {
        let e = "no_start".parse::<Reason>().expect_err("the old spelling");
        assert!(e.to_string().contains("\"no_start\" is not an end reason (one of: checkmate, "), "{e}");
        assert!(serde_json::from_str::<Reason>("\"flag\"").is_err());
    }

    #[test]
    fn the_engine_reasons_keep_their_rule_book_names() {
        for r in EndReason::ALL {
            assert_eq!(Reason::from(r).as_str(), r.as_str());
        }
    }

    #[test]
    fn the_platform_reasons_the_rule_book_names_are_spelt_as_it_writes_them() {
        for name in ["resign", "timeout", "abandoned", "agreement", "aborted"] {
            assert!(Reason::from_name(name).is_some(), "{name}");
        }
    }
}
