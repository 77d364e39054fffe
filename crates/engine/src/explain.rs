//! Why an action is refused, in words: the rule that refuses it.
//!
//! [`Game::parse`](crate::game::Game::parse) calls `explain` for a well-formed action that is
//! not legal. The rules every variant shares are explained here (the board, how pieces move,
//! check, castling, promotion letters and landing squares); each variant adds its own through
//! the `explain_*` hooks of [`Variant`], citing the numbered rule of its rule book. An
//! explanation never guesses: when no rule is found, the answer says so ([`UNEXPLAINED`]), and
//! the refusal tests look for that answer as a defect.

use crate::action::{ActionError, ActionText, Move, MoveKind};
use crate::bitboard::BitBoard;
use crate::game::move_text;
use crate::geometry::Geometry;
use crate::movegen::{pseudo_legal_moves, reach};
use crate::pieces::{MAX_ROLES, Piece, Role};
use crate::position::{Position, castle_square, letters};
use crate::square::Square;
use crate::variant::{Bb, CastleDef, Variant};

/// The answer when no rule explains a refusal: a defect of the explanations, never a reason.
pub const UNEXPLAINED: &str = "no rule was found that refuses it (please report this)";

/// The name of a square of `V`'s board.
pub(crate) fn name<V: Variant>(sq: Square) -> String {
    V::Geo::name(sq).to_string()
}

/// The lower-case name of a role of `V` (`knight`, `goldrook`).
pub(crate) fn role_name<V: Variant>(r: Role) -> String {
    V::PIECES.get(r.idx()).map_or("piece", |d| d.kind.name()).to_lowercase()
}

/// The texts of some actions, sorted, comma separated.
pub(crate) fn texts<V: Variant>(moves: &[Move]) -> String {
    let mut all: Vec<String> = moves.iter().map(|m| move_text::<V>(*m)).collect();
    all.sort();
    all.join(", ")
}

fn square_of<V: Variant>(text: &str) -> Result<Square, ActionError> {
    V::Geo::parse_square(text).ok_or_else(|| {
        ActionError::Malformed(format!(
            "{text} is not a square of the {}x{} board of {}",
            V::Geo::FILES,
            V::Geo::RANKS,
            V::NAME
        ))
    })
}

/// Says why the well-formed action `text` (`syntax`) is not legal in `pos`, whose legal turn
/// actions are `legal`.
pub(crate) fn explain<V: Variant>(pos: &Position<V>, legal: &[Move], text: &str, syntax: &ActionText) -> ActionError {
    let why = match syntax {
        ActionText::Move { from, to, promotion, landing } => {
            explain_move(pos, legal, from, to, *promotion, landing.as_deref())
        }
        ActionText::Place { letter, to } => explain_place(pos, legal, *letter, to),
        ActionText::Promote { square, letter } => explain_in_place(pos, *letter, square),
        ActionText::Equip { item, square, crown } => {
            square_of::<V>(square).map(|sq| V::explain_equip(pos, item, sq, *crown))
        }
    };
    match why {
        Ok(why) => ActionError::Illegal(format!("{text} is not legal: {why}")),
        Err(e) => e,
    }
}

fn explain_move<V: Variant>(
    pos: &Position<V>,
    legal: &[Move],
    from: &str,
    to: &str,
    promotion: Option<char>,
    landing: Option<&str>,
) -> Result<String, ActionError> {
    let (from, to) = (square_of::<V>(from)?, square_of::<V>(to)?);
    let landing = landing.map(square_of::<V>).transpose()?;
    let turn = pos.turn();
    let Some(piece) = pos.board().piece_at(from) else {
        return Ok(format!("there is no piece on {}", name::<V>(from)));
    };
    if piece.color != turn {
        return Ok(format!(
            "the {} on {} is {}'s and it is {}'s turn",
            role_name::<V>(piece.role),
            name::<V>(from),
            piece.color.name(),
            turn.name()
        ));
    }
    let forms: Vec<Move> =
        legal.iter().copied().filter(|m| m.is_board_move() && m.from == from && m.to == to).collect();
    if !forms.is_empty() {
        return Ok(wrong_form(pos, &forms, promotion, landing));
    }
    if from == to {
        return Ok(format!("a move takes the {} to another square", role_name::<V>(piece.role)));
    }
    if V::CHECK {
        let mut pseudo = Vec::new();
        pseudo_legal_moves(pos, &mut pseudo);
        if pseudo.iter().any(|m| m.is_board_move() && m.from == from && m.to == to) {
            return Ok(if pos.is_check() {
                format!("{} is in check and this move does not end the check", turn.name())
            } else {
                format!("it would leave the {} king in check", turn.name())
            });
        }
    }
    if let Some(why) = V::explain_move(pos, from, to) {
        return Ok(why);
    }
    Ok(movement(pos, piece, from, to))
}

/// The move itself is legal (as `forms`), but not as written: its landing square or promotion
/// letter is wrong or missing.
fn wrong_form<V: Variant>(
    pos: &Position<V>,
    forms: &[Move],
    promotion: Option<char>,
    landing: Option<Square>,
) -> String {
    let chooses = |m: &Move| m.kind != MoveKind::Castle && m.aux != Move::NO_SQUARE;
    let choices: Vec<Move> = forms.iter().copied().filter(chooses).collect();
    match landing {
        None if !choices.is_empty() => {
            return format!(
                "this attack kills on more than one square, so it says where the attacker lands: {} (rule 1)",
                texts::<V>(&choices)
            );
        }
        Some(_) if choices.is_empty() => {
            return if V::LANDINGS {
                format!(
                    "a landing square is written only when the attacker has a choice, and here it has none: {} (rule 1)",
                    texts::<V>(forms)
                )
            } else {
                format!("{} has no landing squares: {}", V::NAME, texts::<V>(forms))
            };
        }
        Some(l) if !choices.iter().any(|m| m.aux == l) => {
            return format!(
                "the attacker lands only on a square where its attack killed, and {} is not one: {} (rule 1)",
                name::<V>(l),
                texts::<V>(&choices)
            );
        }
        _ => {}
    }
    let matching: Vec<Move> = forms.iter().copied().filter(|m| landing.is_none_or(|l| m.aux == l)).collect();
    let Some(first) = matching.first() else { return UNEXPLAINED.to_string() };
    let (from, to) = (first.from, first.to);
    let promoting: Vec<Move> = matching.iter().copied().filter(|m| m.kind == MoveKind::Promotion).collect();
    if promotion.is_none() && promoting.len() < matching.len() {
        // The plain form is legal, so the text should have been found.
        return UNEXPLAINED.to_string();
    }
    if let Some(why) = V::explain_promotion_letter(pos, from, to, promotion, &matching) {
        return why;
    }
    match promotion {
        None => format!("this move promotes, and the promotion letter says to what: {}", texts::<V>(&promoting)),
        Some(_) if promoting.is_empty() => {
            format!("this move does not promote, so it has no promotion letter: {}", texts::<V>(&matching))
        }
        Some(p) if !V::PIECES.iter().any(|d| d.letter.to_ascii_lowercase() == p) => format!(
            "'{p}' is not a piece of {} (pieces: {}); this move is written {}",
            V::NAME,
            letters::<V>(),
            texts::<V>(&promoting)
        ),
        Some(p) => format!("'{p}' is not a promotion choice for this move: {}", texts::<V>(&promoting)),
    }
}

/// Why `piece` cannot go from `from` to `to` by the way it moves: the square holds one of its
/// own side, the move is not one of the piece's, a piece or box stands in the way, or castling
/// is not allowed now.
pub(crate) fn movement<V: Variant>(pos: &Position<V>, piece: Piece, from: Square, to: Square) -> String {
    let board = pos.board();
    let role = piece.role.idx();
    let rname = role_name::<V>(piece.role);
    if role == V::KING
        && let Some(def) = castle_def::<V>(piece, from, to)
    {
        return castling(pos, def);
    }
    if let Some(own) = board.piece_at(to).filter(|p| p.color == piece.color) {
        return format!(
            "{} holds {}'s own {}, and a piece never moves onto its own side",
            name::<V>(to),
            own.color.name(),
            role_name::<V>(own.role)
        );
    }
    if V::blockers(pos).contains(to) {
        return format!("a loot box stands on {}, and no piece moves onto it (rule 4)", name::<V>(to));
    }
    if role == V::PAWN && V::PAWN < MAX_ROLES {
        return pawn_move(pos, piece, from, to);
    }
    let capture = board.piece_at(to).is_some();
    let (quiet, caps) = reach::<V>(role, piece.color, from, Bb::<V>::ZERO);
    let pattern = if capture { caps } else { quiet };
    if !pattern.contains(to) {
        return if (quiet | caps).contains(to) {
            if capture {
                format!(
                    "the {rname} captures in other directions than it moves, and cannot capture on {}",
                    name::<V>(to)
                )
            } else {
                format!("the {rname} goes that way only to capture, and {} is empty", name::<V>(to))
            }
        } else {
            format!("the {rname} on {} cannot reach {}: that is not a {rname}'s move", name::<V>(from), name::<V>(to))
        };
    }
    let occ = pos.occupied();
    let between = V::Geo::tables().between(from, to) & occ;
    let nearest = between.squares().find(|b| (V::Geo::tables().between(from, *b) & occ).is_zero());
    if let Some(b) = nearest {
        return match board.piece_at(b) {
            Some(p) => format!(
                "the {} on {} blocks the way from {} to {}",
                role_name::<V>(p.role),
                name::<V>(b),
                name::<V>(from),
                name::<V>(to)
            ),
            None => format!(
                "a loot box on {} blocks the way from {} to {} (rule 4)",
                name::<V>(b),
                name::<V>(from),
                name::<V>(to)
            ),
        };
    }
    UNEXPLAINED.to_string()
}

fn castle_def<V: Variant>(king: Piece, from: Square, to: Square) -> Option<&'static CastleDef> {
    V::CASTLES.iter().find(|c| {
        c.color == king.color
            && castle_square::<V::Geo>(c.king_from) == from
            && castle_square::<V::Geo>(c.king_to) == to
    })
}

/// Why castling `def` is not legal now: the right is gone, a square between is taken, the king
/// is attacked, or (where the variant asks for it) it would cross or land on an attacked square.
pub(crate) fn castling<V: Variant>(pos: &Position<V>, def: &CastleDef) -> String {
    let t = V::Geo::tables();
    let us = def.color;
    let (king, king_to) = (castle_square::<V::Geo>(def.king_from), castle_square::<V::Geo>(def.king_to));
    let (rook, rook_to) = (castle_square::<V::Geo>(def.rook_from), castle_square::<V::Geo>(def.rook_to));
    if !pos.castling().contains(rook) {
        return format!(
            "castling with the rook on {} needs that rook and the king unmoved, and the right is gone",
            name::<V>(rook)
        );
    }
    let occ = pos.occupied();
    let (kbit, rbit) = (Bb::<V>::from_square(king), Bb::<V>::from_square(rook));
    let king_path = t.between(king, king_to) | Bb::<V>::from_square(king_to);
    let path = (king_path | t.between(rook, rook_to) | Bb::<V>::from_square(rook_to)) & !kbit & !rbit;
    if let Some(s) = (path & occ).first() {
        return format!("castling needs the squares between the king and the rook empty, and {} is not", name::<V>(s));
    }
    if pos.attackers(king, !us, occ).any() {
        return "the king is attacked, and a king may not castle while it is".to_string();
    }
    if V::CASTLE_SAFE_PATH {
        let without = occ ^ kbit ^ rbit;
        if let Some(s) = king_path.squares().find(|s| pos.attackers(*s, !us, without).any()) {
            return format!(
                "the king may not cross or land on an attacked square in castling, and {} is attacked",
                name::<V>(s)
            );
        }
    }
    UNEXPLAINED.to_string()
}

/// Why a FIDE pawn cannot go from `from` to `to`.
fn pawn_move<V: Variant>(pos: &Position<V>, piece: Piece, from: Square, to: Square) -> String {
    let white = piece.color == crate::square::Color::White;
    let forward: i32 = if white { 1 } else { -1 };
    let (ff, fr) = (V::Geo::file_of(from) as i32, V::Geo::rank_of(from) as i32);
    let (tf, tr) = (V::Geo::file_of(to) as i32, V::Geo::rank_of(to) as i32);
    let occ = pos.occupied();
    let holder = |s: Square| match pos.board().piece_at(s) {
        Some(p) => format!("the {} on {}", role_name::<V>(p.role), name::<V>(s)),
        None => format!("a loot box on {}", name::<V>(s)),
    };
    match ((tf - ff).abs(), (tr - fr) * forward) {
        (0, 1) if occ.contains(to) => {
            format!("a pawn moves straight only onto an empty square, and {} stands there", holder(to))
        }
        (0, 2) => {
            let middle = V::Geo::square(ff, fr + forward);
            if V::Geo::relative_rank(from, white) != 1 {
                "a pawn moves two squares only from its second rank".to_string()
            } else if let Some(m) = middle.filter(|m| occ.contains(*m)) {
                format!("{} blocks the pawn's way", holder(m))
            } else if occ.contains(to) {
                format!("a pawn moves straight only onto an empty square, and {} stands there", holder(to))
            } else {
                UNEXPLAINED.to_string()
            }
        }
        (1, 1) if pos.board().piece_at(to).is_none() => format!(
            "a pawn moves diagonally only to capture, and {} is empty (no en passant capture is possible there)",
            name::<V>(to)
        ),
        (0, 1) | (1, 1) => UNEXPLAINED.to_string(),
        _ => "a pawn moves one square straight forward (two from its second rank) and captures one square diagonally forward"
            .to_string(),
    }
}

fn explain_place<V: Variant>(pos: &Position<V>, legal: &[Move], letter: char, to: &str) -> Result<String, ActionError> {
    let to = square_of::<V>(to)?;
    if !V::PIECES.iter().any(|d| d.letter == letter) {
        return Ok(format!("'{letter}' is not a piece of {} (pieces: {})", V::NAME, letters::<V>()));
    }
    if !legal.iter().any(|m| m.kind == MoveKind::Place) && !V::has_placements() {
        return Ok(format!("{} has no placements", V::NAME));
    }
    if let Some(p) = pos.board().piece_at(to) {
        return Ok(format!("{} is occupied by the {}", name::<V>(to), role_name::<V>(p.role)));
    }
    Ok(V::explain_placement(pos, letter, to))
}

fn explain_in_place<V: Variant>(pos: &Position<V>, letter: char, square: &str) -> Result<String, ActionError> {
    let sq = square_of::<V>(square)?;
    if !V::PIECES.iter().any(|d| d.letter == letter) {
        return Ok(format!("'{letter}' is not a piece of {} (pieces: {})", V::NAME, letters::<V>()));
    }
    Ok(match pos.board().piece_at(sq) {
        None => format!("there is no piece on {}", name::<V>(sq)),
        Some(p) if p.color != pos.turn() => format!("the piece on {} is {}'s", name::<V>(sq), p.color.name()),
        Some(p) => V::explain_promotion(pos, p.role, letter, sq),
    })
}
