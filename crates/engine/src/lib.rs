//! The rules of Chess Gold and its sibling variants.
//!
//! Pure: no I/O, no clock, no global randomness. Boards of 8x8, 9x9 and 8x4 squares, pieces as
//! data, one module per variant behind the [`Variant`] trait, legal action generation, position
//! text, action notation and perft. The service and the CLI use the variant-independent
//! [`AnyGame`] interface obtained from the [`registry`].
//!
//! # Examples
//!
//! ```
//! use chessgold_engine::registry::variant;
//!
//! let mut game = variant("standard").expect("registered").new_game();
//! assert_eq!(game.legal_actions().len(), 20);
//! game.play("e2e4").expect("legal");
//! assert!(game.play("e2e4").is_err()); // no piece there any more
//! ```

pub mod action;
pub mod bitboard;
pub mod explain;
pub mod game;
pub mod geometry;
mod magics;
pub mod movegen;
pub mod outcome;
pub mod pieces;
pub mod position;
pub mod registry;
pub mod square;
pub mod state;
pub mod variant;
pub mod variants;

pub use action::{ActionError, Move, MoveKind};
pub use game::Game;
pub use outcome::{EndReason, Outcome, Status};
pub use position::{Position, PositionError};
pub use registry::{AnyGame, Snapshot, VariantInfo, variant, variants};
pub use square::{Color, Square};
pub use variant::Variant;
