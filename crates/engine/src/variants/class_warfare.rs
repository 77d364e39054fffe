//! `class-warfare`: Class Warfare Chess (Will Stedden) on 8 files x 4 ranks: eight pawns of the
//! proletariat against the bourgeoisie's pieces, factories that keep a piece type running, no
//! check, and the king to be captured.

use crate::action::{Move, MoveKind, MoveList};
use crate::bitboard::BitBoard;
use crate::geometry::{Board8x4, Geometry};
use crate::movegen::reach;
use crate::outcome::{EndReason, Outcome};
use crate::pieces::{FIDE_PIECES, Piece, PieceDef, Role};
use crate::position::{Position, PositionError};
use crate::square::{Color, Square};
use crate::state::VariantState;
use crate::variant::{Effects, Variant};

use super::piece_tables;
use super::standard::role::{BISHOP, KNIGHT, PAWN, QUEEN, ROOK};

const KING: usize = 5;
/// The proletariat (Black) and the bourgeoisie (White).
const PROLETARIAT: Color = Color::Black;
/// The proletariat's moves that end the game (the fullmove number reaches 51).
pub const MOVE_LIMIT: u32 = 50;

/// The two factory files (on rank 4) of each piece type: rooks a and h, knights b and g,
/// bishops c and f, the queen d and e.
pub const FACTORIES: [(usize, [u8; 2]); 4] = [(ROOK, [0, 7]), (KNIGHT, [1, 6]), (BISHOP, [2, 5]), (QUEEN, [3, 4])];

fn factory_square(file: u8) -> Square {
    Square::new(3 * 8 + file)
}

/// Whether pieces of `role` move as in chess now (both factory squares occupied).
pub fn factory_running(pos: &Position<ClassWarfare>, role: usize) -> bool {
    let occupied = pos.board().occupied();
    FACTORIES
        .iter()
        .find(|(r, _)| *r == role)
        .is_none_or(|(_, files)| files.iter().all(|f| occupied.contains(factory_square(*f))))
}

/// Class Warfare Chess.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClassWarfare;

type Pos = Position<ClassWarfare>;

fn push_all(from: Square, targets: u32, out: &mut MoveList) {
    for to in targets.squares() {
        out.push(Move::normal(from, to));
    }
}

impl Variant for ClassWarfare {
    type Geo = Board8x4;
    type Ext = ();

    const ID: &'static str = "class-warfare";
    const NAME: &'static str = "Class Warfare Chess";
    const SUMMARY: &'static str = "Will Stedden's chess on 8 files and 4 ranks: the proletariat's eight pawns move first against the bourgeoisie's pieces. A piece type runs as in chess only while both its factory squares are occupied; capture the king, or survive fifty pawn moves.";
    const PIECES: &'static [PieceDef] = &FIDE_PIECES;
    const START_FEN: &'static str = "pppppppp/8/8/RNBQKBNR b - - 0 1";
    const CHECK: bool = false;
    const CUSTOM_MOVEGEN: bool = true;
    const REPETITION: bool = false;
    const NO_PROGRESS_PLIES: Option<u32> = None;

    piece_tables!(u32);

    /// Always: the variant has no draw. The bourgeoisie wins when its king outlives the
    /// proletariat's 50 moves; the proletariat has pawns while the game goes on (`no-pawns` ends
    /// it), and a pawn can capture the king wherever it walks.
    fn can_win(_pos: &Position<Self>, _color: Color) -> bool {
        true
    }

    fn gen_custom(pos: &Pos, out: &mut MoveList) {
        let t = Board8x4::tables();
        let board = pos.board();
        let occ = board.occupied();
        let empty = t.all & !occ;
        let us = pos.turn();
        let theirs = board.by_color(!us);
        let step = |sq: Square, df: i32, dr: i32| {
            Board8x4::square(Board8x4::file_of(sq) as i32 + df, Board8x4::rank_of(sq) as i32 + dr)
                .map_or(0u32, u32::from_square)
        };
        if us == PROLETARIAT {
            for from in board.pieces(us, PAWN).squares() {
                if Board8x4::rank_of(from) == 0 {
                    // On rank 1: one square sideways, moving or capturing, never leaving it.
                    let side = step(from, -1, 0) | step(from, 1, 0);
                    push_all(from, side & (empty | theirs), out);
                } else {
                    push_all(from, step(from, 0, -1) & empty, out);
                    push_all(from, (step(from, -1, -1) | step(from, 1, -1)) & theirs, out);
                }
            }
            return;
        }
        for role in [KNIGHT, BISHOP, ROOK, QUEEN, KING] {
            let running = role == KING || factory_running(pos, role);
            for from in board.pieces(us, role).squares() {
                if running {
                    let (quiet, caps) = reach::<ClassWarfare>(role, us, from, occ);
                    push_all(from, (quiet & empty) | (caps & theirs), out);
                } else {
                    // Like a white pawn: one step up onto an empty square, captures one step
                    // diagonally up; stuck on rank 4.
                    push_all(from, step(from, 0, 1) & empty, out);
                    push_all(from, (step(from, -1, 1) | step(from, 1, 1)) & theirs, out);
                }
            }
        }
    }

    fn after_action(pos: &mut Pos, fx: &Effects) {
        // A pawn taken by the bourgeoisie returns to its file's factory square if that is empty.
        if fx.mover != PROLETARIAT
            && let Some((victim, sq)) = fx.captured
            && victim.role.idx() == PAWN
        {
            let home = factory_square(Board8x4::file_of(sq) as u8);
            if pos.board().piece_at(home).is_none() {
                pos.put_piece(home, Piece { color: PROLETARIAT, role: Role(PAWN as u8) });
            }
        }
    }

    fn explain_move(pos: &Pos, from: Square, to: Square) -> Option<String> {
        let board = pos.board();
        let piece = board.piece_at(from)?;
        if board.piece_at(to).is_some_and(|p| p.color == piece.color) {
            return None;
        }
        let role = piece.role.idx();
        let (df, dr) = (
            Board8x4::file_of(to) as i32 - Board8x4::file_of(from) as i32,
            Board8x4::rank_of(to) as i32 - Board8x4::rank_of(from) as i32,
        );
        let occupied = board.piece_at(to).is_some();
        if piece.color == PROLETARIAT {
            return Some(if Board8x4::rank_of(from) == 0 {
                "a pawn on rank 1 moves or captures one square sideways along rank 1, and never leaves it (rule 1)"
                    .to_string()
            } else if (df, dr) == (0, -1) && occupied {
                format!(
                    "a pawn steps straight ahead only onto an empty square, and {} is not (rule 1)",
                    Board8x4::name(to)
                )
            } else if df.abs() == 1 && dr == -1 && !occupied {
                format!("a pawn moves diagonally only to capture, and {} is empty (rule 1)", Board8x4::name(to))
            } else if (df, dr) == (0, -2) {
                "a pawn has no double step in Class Warfare (rule 1)".to_string()
            } else {
                "a pawn steps one square straight ahead, towards rank 1, and captures one square diagonally ahead (rule 1)"
                    .to_string()
            });
        }
        if role == KING && dr == 0 && df.abs() == 2 {
            return Some("Class Warfare has no castling (rule 2)".to_string());
        }
        if role != KING && !factory_running(pos, role) {
            let files = FACTORIES.iter().find(|(r, _)| *r == role).map_or([0, 0], |(_, f)| *f);
            let squares: Vec<String> = files.iter().map(|f| Board8x4::name(factory_square(*f)).to_string()).collect();
            let noun = match role {
                KNIGHT => "knights",
                BISHOP => "bishops",
                ROOK => "rooks",
                _ => "queens",
            };
            return Some(format!(
                "{noun} move like a white pawn while one of their factory squares ({}) is empty: one step towards \
                 rank 4 onto an empty square, or a capture one step diagonally towards rank 4 (rule 2)",
                squares.join(", ")
            ));
        }
        None
    }

    fn explain_promotion_letter(
        _pos: &Pos,
        _from: Square,
        _to: Square,
        letter: Option<char>,
        forms: &[Move],
    ) -> Option<String> {
        letter.map(|_| {
            format!("there is no promotion in Class Warfare: {} (rule 1)", crate::explain::texts::<Self>(forms))
        })
    }

    fn resets_progress(fx: &Effects) -> bool {
        fx.captured.is_some() || fx.mv.kind != MoveKind::Normal
    }

    fn variant_outcome(pos: &Pos) -> Option<Outcome> {
        let board = pos.board();
        if board.pieces(!PROLETARIAT, KING).is_zero() {
            return Some(Outcome::variant_win(PROLETARIAT, EndReason::KingCaptured));
        }
        if board.pieces(PROLETARIAT, PAWN).is_zero() {
            return Some(Outcome::variant_win(!PROLETARIAT, EndReason::NoPawns));
        }
        if pos.fullmoves() > MOVE_LIMIT {
            return Some(Outcome::variant_win(!PROLETARIAT, EndReason::MoveLimit));
        }
        None
    }

    fn no_moves_outcome(pos: &Pos) -> Outcome {
        Outcome::variant_win(!pos.turn(), EndReason::NoMove)
    }

    fn king_range(color: Color) -> (u32, u32) {
        if color == PROLETARIAT { (0, 0) } else { (0, 1) }
    }

    fn pawn_square_ok(color: Color, _sq: Square) -> bool {
        color == PROLETARIAT
    }

    fn validate(pos: &Pos) -> Result<(), PositionError> {
        let board = pos.board();
        if (board.by_color(PROLETARIAT) & !board.by_role(PAWN)).any() {
            return Err(PositionError::new("the proletariat (Black) has only pawns"));
        }
        Ok(())
    }

    fn state(pos: &Pos) -> VariantState {
        VariantState {
            factories: Some(
                FACTORIES
                    .iter()
                    .map(|(role, files)| crate::state::FactoryView {
                        piece: FIDE_PIECES[*role].letter,
                        squares: files.iter().map(|f| Board8x4::name(factory_square(*f)).to_string()).collect(),
                        running: factory_running(pos, *role),
                    })
                    .collect(),
            ),
            moves_left: Some(MOVE_LIMIT.saturating_sub(pos.fullmoves().saturating_sub(1))),
            ..VariantState::default()
        }
    }
}
