//! How a game ends.

use core::fmt;

use crate::square::Color;

/// The state of a game as the CLI and protocol name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The game goes on.
    Ongoing,
    /// The side to move is checkmated.
    Checkmate,
    /// The side to move has no legal action and is not in check.
    Stalemate,
    /// Drawn by another rule (repetition, no progress, material, ...).
    Draw,
    /// Decided by a variant's own rule (conversion, king killed, ...).
    VariantEnd,
}

impl Status {
    /// Whether the game is over (any status but [`Status::Ongoing`]).
    pub const fn is_over(self) -> bool {
        !matches!(self, Status::Ongoing)
    }

    /// `ongoing`, `checkmate`, `stalemate`, `draw` or `variant_end`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Ongoing => "ongoing",
            Status::Checkmate => "checkmate",
            Status::Stalemate => "stalemate",
            Status::Draw => "draw",
            Status::VariantEnd => "variant_end",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a game ended, as the rule book names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// Checkmate.
    Checkmate,
    /// Stalemate.
    Stalemate,
    /// Threefold repetition.
    Repetition,
    /// 100 plies without progress.
    NoProgress,
    /// Neither side can mate.
    InsufficientMaterial,
    /// Conqueror: the opponent was left with only the king after a conversion.
    Conversion,
    /// Chessception: a king reached 0 HP.
    KingKilled,
    /// Class Warfare: the king was captured.
    KingCaptured,
    /// Class Warfare: the proletariat has no pawn left.
    NoPawns,
    /// The side to move has no legal move and loses or draws by its variant's rule.
    NoMove,
    /// Class Warfare: the proletariat's 50 moves are used up.
    MoveLimit,
    /// Chessception: 150 plies.
    PlyLimit,
    /// Chessception: only the two kings are left.
    KingsOnly,
    /// Chessception: a king shuffled back and forth.
    KingRepeat,
}

impl EndReason {
    /// Every reason, in the order of the rule book's list.
    pub const ALL: [EndReason; 14] = [
        EndReason::Checkmate,
        EndReason::Stalemate,
        EndReason::Repetition,
        EndReason::NoProgress,
        EndReason::InsufficientMaterial,
        EndReason::Conversion,
        EndReason::KingKilled,
        EndReason::KingCaptured,
        EndReason::NoPawns,
        EndReason::NoMove,
        EndReason::MoveLimit,
        EndReason::PlyLimit,
        EndReason::KingsOnly,
        EndReason::KingRepeat,
    ];

    /// The reason named `text` by [`EndReason::as_str`].
    pub fn from_name(text: &str) -> Option<EndReason> {
        EndReason::ALL.into_iter().find(|r| r.as_str() == text)
    }

    /// The rule book's name: `checkmate`, `no-progress`, ...
    pub const fn as_str(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::Repetition => "repetition",
            EndReason::NoProgress => "no-progress",
            EndReason::InsufficientMaterial => "insufficient-material",
            EndReason::Conversion => "conversion",
            EndReason::KingKilled => "king-killed",
            EndReason::KingCaptured => "king-captured",
            EndReason::NoPawns => "no-pawns",
            EndReason::NoMove => "no-move",
            EndReason::MoveLimit => "move-limit",
            EndReason::PlyLimit => "ply-limit",
            EndReason::KingsOnly => "kings-only",
            EndReason::KingRepeat => "king-repeat",
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Status {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for EndReason {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A finished game's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Outcome {
    /// How it ended.
    pub status: Status,
    /// The winner; `None` for a draw.
    pub winner: Option<Color>,
    /// The rule that ended it.
    pub reason: EndReason,
}

impl Outcome {
    /// A draw for `reason`.
    pub const fn draw(reason: EndReason) -> Outcome {
        let status = match reason {
            EndReason::Stalemate => Status::Stalemate,
            _ => Status::Draw,
        };
        Outcome { status, winner: None, reason }
    }

    /// A win for `winner` by checkmate.
    pub const fn checkmate(winner: Color) -> Outcome {
        Outcome { status: Status::Checkmate, winner: Some(winner), reason: EndReason::Checkmate }
    }

    /// A win for `winner` by a variant rule.
    pub const fn variant_win(winner: Color, reason: EndReason) -> Outcome {
        Outcome { status: Status::VariantEnd, winner: Some(winner), reason }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for r in EndReason::ALL {
            assert_eq!(EndReason::from_name(r.as_str()), Some(r));
            assert_eq!(r.to_string(), r.as_str());
        }
        assert_eq!(EndReason::from_name("no_progress"), None);
        assert_eq!(Status::VariantEnd.to_string(), "variant_end");
        assert!(!Status::Ongoing.is_over() && Status::Draw.is_over());
    }
}
