//! Static evaluation, one evaluator per variant family.
//!
//! The search knows a variant only through [`BotVariant`]: which [`Evaluator`] judges its
//! positions, and how a position without legal actions ends. A new variant implements
//! [`BotVariant`] here, usually by wrapping [`ChessEval`] with its own terms as [`GoldEval`]
//! does; the dispatch ([`crate::dispatch()`]) takes the engine's list of variants, so a registered
//! variant without an implementation does not compile. The search is not touched.
//!
//! The search reads the end rules from the engine: a variant's own results
//! ([`Variant::variant_outcome`]: a captured or killed king, a conversion, a move limit), the
//! result of having no move ([`Variant::no_moves_outcome`]), and only the draws the variant has
//! ([`Variant::REPETITION`], [`Variant::NO_PROGRESS_PLIES`]). Without check (Class Warfare,
//! Chessception) the king is simply taken: such evaluators give the king a large value so that
//! the capture is ordered first and never pruned.

mod chess;
mod chessception;
mod class_warfare;
mod electrum;
mod gold;
mod grunt;
mod loot;

pub use chess::{ChessEval, EvalInfo, attacks, role_of_kind};
pub use chessception::ChessceptionEval;
pub use class_warfare::ClassWarfareEval;
pub use electrum::ElectrumEval;
pub use gold::GoldEval;
pub use grunt::GruntEval;
pub use loot::LootEval;

use core::fmt::Debug;

use chessgold_engine::action::MoveKind;
use chessgold_engine::pieces::Role;
use chessgold_engine::variants::chessception::Chessception;
use chessgold_engine::variants::class_warfare::ClassWarfare;
use chessgold_engine::variants::electrum::Electrum;
use chessgold_engine::variants::gold::{ChessGold, Conqueror, ConquerorGold, Sandbox};
use chessgold_engine::variants::grunt::Grunt;
use chessgold_engine::variants::lootbox::LootBox;
use chessgold_engine::variants::standard::Standard;
use chessgold_engine::{Move, Position, Variant};

/// A score above this (in absolute value) announces a forced mate.
pub const MATE_BOUND: i32 = 31_000;
/// The score of being mated now (negated: mating now).
pub const MATE: i32 = 32_000;

/// Judges positions of variant `V` for the search. Scores are centipawns from the point of
/// view of the side to move.
pub trait Evaluator<V: Variant>: Debug + Send + Sync {
    /// The static score of `pos` for the side to move.
    fn evaluate(&self, pos: &Position<V>) -> i32;

    /// The rough worth of a piece of `role`, for move ordering and pruning.
    fn role_value(&self, role: Role) -> i32;

    /// What the action wins at once in material (captures, promotions), for ordering and for
    /// pruning hopeless captures in the quiescence search.
    fn material_gain(&self, pos: &Position<V>, mv: Move) -> i32 {
        let mut gain = 0;
        let victim = match mv.kind {
            MoveKind::EnPassant => (V::PAWN < V::PIECES.len()).then_some(Role(V::PAWN as u8)),
            MoveKind::Normal | MoveKind::Promotion => pos.board().role_at(mv.to),
            _ => None,
        };
        if let Some(v) = victim {
            // A conversion takes the piece from the opponent and gives it to the capturer.
            gain += self.role_value(v) * if V::CONVERSION { 2 } else { 1 };
        }
        if matches!(mv.kind, MoveKind::Promotion | MoveKind::PromoteInPlace) && V::PAWN < V::PIECES.len() {
            gain += self.role_value(mv.role) - self.role_value(Role(V::PAWN as u8));
        }
        gain
    }

    /// Whether the quiescence search looks at the action: captures and promotions by
    /// default. Placements are quiet: they only spend a turn.
    fn is_noisy(&self, pos: &Position<V>, mv: Move) -> bool {
        match mv.kind {
            MoveKind::EnPassant | MoveKind::Promotion | MoveKind::PromoteInPlace => true,
            MoveKind::Normal => pos.board().piece_at(mv.to).is_some_and(|p| p.color != pos.turn()),
            _ => false,
        }
    }
}

/// A variant the bot can play: its evaluator and its end rules as the search sees them.
pub trait BotVariant: Variant {
    /// The variant's evaluator.
    type Eval: Evaluator<Self>;

    /// A fresh evaluator.
    fn evaluator() -> Self::Eval;

    /// The score (for the side to move, before mate-distance adjustment) of a position in
    /// which the side to move has no legal action and no variant rule has ended the game: by
    /// default what the engine's own rule says ([`Variant::no_moves_outcome`]): checkmate
    /// (`-MATE`) or stalemate (0) in the check variants, a loss in Class Warfare, a draw in
    /// Chessception.
    fn no_move_score(pos: &Position<Self>) -> i32 {
        match Self::no_moves_outcome(pos).winner {
            None => 0,
            Some(w) if w == pos.turn() => MATE,
            Some(_) => -MATE,
        }
    }

    /// The transposition table's key of a position: its repetition key by default. A variant
    /// whose end rules read a counter the repetition key leaves out (Class Warfare's move
    /// limit) adds it here, so that positions nearer the end are not mistaken for earlier ones.
    fn table_key(pos: &Position<Self>) -> u64 {
        pos.hash()
    }

    /// Removes from a copy of the position what a player may not know before the search
    /// plays actions on it (the seed of random events: rule 2 of `lootbox`), replacing it
    /// with a stand-in drawn from the bot's own seed.
    fn hide_secrets(_pos: &mut Position<Self>, _stand_in: u64) {}
}

impl BotVariant for Standard {
    type Eval = ChessEval<Standard>;
    fn evaluator() -> Self::Eval {
        ChessEval::new()
    }
}

impl BotVariant for Conqueror {
    type Eval = GoldEval<Conqueror>;
    fn evaluator() -> Self::Eval {
        GoldEval::new()
    }
}

impl BotVariant for ChessGold {
    type Eval = GoldEval<ChessGold>;
    fn evaluator() -> Self::Eval {
        GoldEval::new()
    }
}

impl BotVariant for ConquerorGold {
    type Eval = GoldEval<ConquerorGold>;
    fn evaluator() -> Self::Eval {
        GoldEval::new()
    }
}

impl BotVariant for Sandbox {
    type Eval = GoldEval<Sandbox>;
    fn evaluator() -> Self::Eval {
        GoldEval::new()
    }
}

impl BotVariant for LootBox {
    type Eval = LootEval;
    fn evaluator() -> Self::Eval {
        LootEval::new()
    }

    /// Without a turn action a player may still have equips, which the bot does not play:
    /// judge such a position as level rather than lost.
    fn no_move_score(pos: &Position<Self>) -> i32 {
        let mut equips = Vec::new();
        Self::gen_equips(pos, &mut equips);
        if !equips.is_empty() {
            0
        } else if pos.is_check() {
            -MATE
        } else {
            0
        }
    }

    fn hide_secrets(pos: &mut Position<Self>, stand_in: u64) {
        pos.ext_mut().seed = stand_in;
    }
}

impl BotVariant for Electrum {
    type Eval = ElectrumEval;
    fn evaluator() -> Self::Eval {
        ElectrumEval::new()
    }
}

impl BotVariant for ClassWarfare {
    type Eval = ClassWarfareEval;
    fn evaluator() -> Self::Eval {
        ClassWarfareEval::new()
    }

    /// The move limit reads the move number, which the repetition key leaves out.
    fn table_key(pos: &Position<Self>) -> u64 {
        pos.hash() ^ crate::search::mix64(u64::from(pos.fullmoves()) ^ 0xC1A5_5A2E)
    }
}

impl BotVariant for Grunt {
    type Eval = GruntEval;
    fn evaluator() -> Self::Eval {
        GruntEval::new()
    }
}

impl BotVariant for Chessception {
    type Eval = ChessceptionEval;
    fn evaluator() -> Self::Eval {
        ChessceptionEval::new()
    }

    /// The ply limit reads the move number, which the repetition key leaves out.
    fn table_key(pos: &Position<Self>) -> u64 {
        pos.hash() ^ crate::search::mix64(u64::from(pos.fullmoves()) ^ 0xCE97_10A0)
    }
}
