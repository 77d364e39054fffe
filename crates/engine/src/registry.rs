//! The registry of variants and the variant-independent game interface used by the CLI and
//! the service.

use core::fmt;

use crate::action::ActionError;
use crate::game::{Game, move_text};
use crate::geometry::Geometry;
use crate::movegen::{legal_moves, perft};
use crate::outcome::{Outcome, Status};
use crate::pieces::PieceDef;
use crate::position::{Position, PositionError};
use crate::square::Color;
use crate::state::VariantState;
use crate::variant::Variant;

/// A piece as shown on a board.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PlacedPiece {
    /// Square name.
    pub square: String,
    /// `white` or `black`.
    pub color: &'static str,
    /// The variant's upper-case letter.
    pub piece: char,
    /// Platform-wide identity (`knight`, `goldrook`, ...), for images.
    pub kind: &'static str,
}

/// A role of the variant's piece table, for piece choosers and the shop.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RoleView {
    /// The variant's upper-case letter.
    pub letter: char,
    /// Platform-wide identity (`knight`, `goldrook`, ...), for images.
    pub kind: &'static str,
    /// Display name.
    pub name: &'static str,
}

/// Everything a client needs to show a game and offer its actions.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Snapshot {
    /// Variant id.
    pub variant: &'static str,
    /// Variant display name.
    pub name: &'static str,
    /// Number of files of the board.
    pub files: u32,
    /// Number of ranks of the board.
    pub ranks: u32,
    /// Whether the variant has gold and a shop.
    pub economy: bool,
    /// The variant's pieces.
    pub roles: Vec<RoleView>,
    /// Position text.
    pub fen: String,
    /// Side to move: `white` or `black`.
    pub side: &'static str,
    /// `ongoing`, `checkmate`, `stalemate`, `draw` or `variant_end`.
    pub status: &'static str,
    /// `white`, `black`, or null.
    pub winner: Option<&'static str>,
    /// The rule that ended the game, or null.
    pub reason: Option<&'static str>,
    /// Every legal action, sorted.
    pub legal: Vec<String>,
    /// Whether the side to move is in check.
    pub check: bool,
    /// The square of the side to move's king when in check.
    pub check_square: Option<String>,
    /// Actions played since the start position.
    pub actions: Vec<String>,
    /// Pieces on the board.
    pub pieces: Vec<PlacedPiece>,
    /// The variant's own state (gold, shop, ...).
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub state: VariantState,
}

/// A game of any variant.
pub trait AnyGame: Send + Sync + fmt::Debug {
    /// The variant.
    fn info(&self) -> &'static VariantInfo;
    /// The current position text.
    fn fen(&self) -> String;
    /// The side to move.
    fn turn(&self) -> Color;
    /// The legal actions, sorted (none once the game is over).
    fn legal_actions(&self) -> Vec<String>;
    /// Plays an action given as text; returns it as the notation writes it.
    ///
    /// # Errors
    /// An [`ActionError`] saying why; the game is unchanged.
    fn play(&mut self, action: &str) -> Result<String, ActionError>;
    /// Checks an action given as text without playing it; returns it as the notation writes it.
    ///
    /// # Errors
    /// The [`ActionError`] that [`AnyGame::play`] would give; the game is unchanged either way.
    fn check_action(&self, action: &str) -> Result<String, ActionError>;
    /// The actions played so far.
    fn actions(&self) -> Vec<String>;
    /// Leaf count of the legal-action tree from the current position.
    fn perft(&self, depth: u32) -> u64;
    /// Perft split by first action, sorted by action text.
    fn divide(&self, depth: u32) -> Vec<(String, u64)>;
    /// How the game ended, typed; `None` while it goes on. [`Snapshot`]'s `status`, `winner`
    /// and `reason` are this outcome's names.
    fn outcome(&self) -> Option<Outcome>;
    /// The flag rule: whether `color` could still win from the current position by some sequence
    /// of legal actions, by its variant's rules ([`Variant::can_win`]). A player whose clock runs
    /// out loses when the opponent could still win, and draws otherwise.
    fn can_win(&self, color: Color) -> bool;
    /// Everything a client needs to show the game.
    fn snapshot(&self) -> Snapshot;
    /// A copy of the game.
    fn boxed_clone(&self) -> Box<dyn AnyGame>;
    /// The typed game, for code generic over variants (bots): downcast to `Game<V>`.
    fn as_any(&self) -> &dyn core::any::Any;
    /// The seed of a variant with random events, if the game has one.
    fn seed(&self) -> Option<u64>;
}

impl Clone for Box<dyn AnyGame> {
    fn clone(&self) -> Self {
        self.boxed_clone()
    }
}

impl<V: Variant> AnyGame for Game<V> {
    fn info(&self) -> &'static VariantInfo {
        info_of::<V>()
    }

    fn fen(&self) -> String {
        self.position().fen()
    }

    fn turn(&self) -> Color {
        self.position().turn()
    }

    fn legal_actions(&self) -> Vec<String> {
        self.legal_texts()
    }

    fn play(&mut self, action: &str) -> Result<String, ActionError> {
        self.play_text(action).map(move_text::<V>)
    }

    fn check_action(&self, action: &str) -> Result<String, ActionError> {
        self.parse(action).map(move_text::<V>)
    }

    fn actions(&self) -> Vec<String> {
        Game::actions(self).iter().map(|m| move_text::<V>(*m)).collect()
    }

    fn perft(&self, depth: u32) -> u64 {
        if self.outcome().is_some() && depth > 0 {
            return 0;
        }
        perft(self.position(), depth)
    }

    fn divide(&self, depth: u32) -> Vec<(String, u64)> {
        if self.outcome().is_some() || depth == 0 {
            return Vec::new();
        }
        let mut list = Vec::new();
        legal_moves(self.position(), &mut list);
        let mut out: Vec<(String, u64)> = list
            .iter()
            .map(|m| {
                let mut next = self.position().clone();
                next.play_unchecked(*m);
                (move_text::<V>(*m), perft(&next, depth - 1))
            })
            .collect();
        out.sort();
        out
    }

    fn outcome(&self) -> Option<Outcome> {
        Game::outcome(self)
    }

    fn can_win(&self, color: Color) -> bool {
        V::can_win(self.position(), color)
    }

    fn snapshot(&self) -> Snapshot {
        let pos = self.position();
        let outcome = self.outcome();
        let check = pos.is_check();
        Snapshot {
            variant: V::ID,
            name: V::NAME,
            files: V::Geo::FILES,
            ranks: V::Geo::RANKS,
            economy: V::ECONOMY,
            roles: V::PIECES
                .iter()
                .map(|d| RoleView { letter: d.letter, kind: d.kind.slug(), name: d.kind.name() })
                .collect(),
            fen: pos.fen(),
            side: pos.turn().name(),
            status: outcome.map_or(Status::Ongoing, |o| o.status).as_str(),
            winner: outcome.and_then(|o| o.winner).map(Color::name),
            reason: outcome.map(|o| o.reason.as_str()),
            legal: self.legal_texts(),
            check,
            check_square: if check { pos.king(pos.turn()).map(|k| V::Geo::name(k).to_string()) } else { None },
            actions: AnyGame::actions(self),
            pieces: pos
                .board()
                .iter()
                .map(|(sq, p)| {
                    let def = &V::PIECES[p.role.idx()];
                    PlacedPiece {
                        square: V::Geo::name(sq).to_string(),
                        color: p.color.name(),
                        piece: def.letter,
                        kind: def.kind.slug(),
                    }
                })
                .collect(),
            state: {
                let mut state = V::state(pos);
                if V::HAS_EQUIPS {
                    state.equips = Some(self.equip_texts());
                }
                state
            },
        }
    }

    fn boxed_clone(&self) -> Box<dyn AnyGame> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn core::any::Any {
        self
    }

    fn seed(&self) -> Option<u64> {
        Game::seed(self)
    }
}

/// A registered variant: its description and constructors.
pub struct VariantInfo {
    /// Identifier (`standard`, `gold`, ...).
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// One-paragraph description.
    pub summary: &'static str,
    /// Number of files.
    pub files: u32,
    /// Number of ranks.
    pub ranks: u32,
    /// Whether the variant has gold and a shop.
    pub economy: bool,
    /// Whether games carry a seed (random events).
    pub seeded: bool,
    /// The piece table.
    pub pieces: &'static [PieceDef],
    /// The start position's text.
    pub start_fen: &'static str,
    new_game: fn(Option<u64>) -> Box<dyn AnyGame>,
    from_fen: FromFen,
}

/// Builds a game of one variant from a position text and an optional seed.
type FromFen = fn(&str, Option<u64>) -> Result<Box<dyn AnyGame>, PositionError>;

impl fmt::Debug for VariantInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VariantInfo").field("id", &self.id).finish_non_exhaustive()
    }
}

impl VariantInfo {
    /// A new game from the start position (seed 0 for variants with random events).
    pub fn new_game(&self) -> Box<dyn AnyGame> {
        (self.new_game)(None)
    }

    /// A new game whose random events (if the variant has any) come from `seed`.
    pub fn new_seeded_game(&self, seed: u64) -> Box<dyn AnyGame> {
        (self.new_game)(Some(seed))
    }

    /// A game from a position text.
    ///
    /// # Errors
    /// A [`PositionError`] naming what is wrong with the text.
    pub fn game_from_fen(&self, fen: &str) -> Result<Box<dyn AnyGame>, PositionError> {
        (self.from_fen)(fen, None)
    }

    /// A game from a position text, continuing the random events of `seed`.
    ///
    /// # Errors
    /// A [`PositionError`] naming what is wrong with the text.
    pub fn seeded_game_from_fen(&self, fen: &str, seed: u64) -> Result<Box<dyn AnyGame>, PositionError> {
        (self.from_fen)(fen, Some(seed))
    }
}

fn new_game_of<V: Variant>(seed: Option<u64>) -> Box<dyn AnyGame> {
    Box::new(Game::<V>::from_position_seeded(Position::<V>::start(), seed))
}

fn from_fen_of<V: Variant>(fen: &str, seed: Option<u64>) -> Result<Box<dyn AnyGame>, PositionError> {
    Ok(Box::new(Game::<V>::from_position_seeded(Position::<V>::from_fen(fen)?, seed)))
}

const fn make_info<V: Variant>() -> VariantInfo {
    VariantInfo {
        id: V::ID,
        name: V::NAME,
        summary: V::SUMMARY,
        files: V::Geo::FILES,
        ranks: V::Geo::RANKS,
        economy: V::ECONOMY,
        seeded: V::SEEDED,
        pieces: V::PIECES,
        start_fen: V::START_FEN,
        new_game: new_game_of::<V>,
        from_fen: from_fen_of::<V>,
    }
}

/// The one list of variants, in the order the site lists them: `each_variant!(callback)` calls
/// the macro `callback!` with the path of every variant's type, comma-separated. The registry
/// below is built from it, and so is everything else that must know every variant (the bot's
/// dispatch, the property tests): a variant added here that lacks one of them fails to compile
/// or fails a test naming it. See "Adding a variant" in `docs/architecture.md`.
#[macro_export]
macro_rules! each_variant {
    ($callback:ident) => {
        $callback! {
            $crate::variants::gold::ChessGold,
            $crate::variants::lootbox::LootBox,
            $crate::variants::standard::Standard,
            $crate::variants::gold::ConquerorGold,
            $crate::variants::gold::Conqueror,
            $crate::variants::gold::Sandbox,
            $crate::variants::electrum::Electrum,
            $crate::variants::class_warfare::ClassWarfare,
            $crate::variants::grunt::Grunt,
            $crate::variants::chessception::Chessception,
        }
    };
}

/// The registry's table from the list of [`each_variant!`].
macro_rules! variant_table {
    ($($v:ty),+ $(,)?) => {
        static VARIANTS: &[VariantInfo] = &[$(make_info::<$v>()),+];
    };
}

each_variant!(variant_table);

fn info_of<V: Variant>() -> &'static VariantInfo {
    VARIANTS.iter().find(|v| v.id == V::ID).unwrap_or(&VARIANTS[0])
}

/// Every registered variant, in the order the site lists them.
pub fn variants() -> &'static [VariantInfo] {
    VARIANTS
}

/// The variant with this id.
pub fn variant(id: &str) -> Option<&'static VariantInfo> {
    VARIANTS.iter().find(|v| v.id == id)
}

/// The ids of every variant, for error messages.
pub fn variant_ids() -> Vec<&'static str> {
    VARIANTS.iter().map(|v| v.id).collect()
}
