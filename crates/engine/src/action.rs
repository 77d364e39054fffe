//! Actions (the engine's moves) and their text form.
//!
//! Every turn action of every variant is a [`Move`]: a piece move (with its kinds: promotion,
//! en passant, castling), a placement (`N@c3`), or a promotion in place (`e8=Q`). The text form
//! is described in `docs/notation.md` and the rule book.

use core::fmt;

use crate::pieces::Role;
use crate::square::Square;

/// What kind of action a [`Move`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum MoveKind {
    /// A piece moves from `from` to `to`, capturing what stands there. A pawn that ends on the
    /// last rank without promoting (where a variant allows it) is a normal move too.
    Normal = 0,
    /// A pawn moves to the last rank and becomes `role`.
    Promotion = 1,
    /// A pawn captures en passant; the captured pawn stands beside `from`, behind `to`.
    EnPassant = 2,
    /// The king moves from `from` to `to` and the rook from `aux` to its castled square.
    Castle = 3,
    /// A new piece of `role` is put on `to`.
    Place = 4,
    /// The piece on `to` becomes `role` where it stands.
    PromoteInPlace = 5,
    /// An item is equipped onto the piece on `to` (not a turn action): the item's code is in
    /// `aux`'s index, a crown's new role in `role`.
    Equip = 6,
}

/// One turn action. Compact and `Copy`; its text form needs the variant (piece letters, board).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// The kind of action.
    pub kind: MoveKind,
    /// Origin square (equal to `to` for placements and promotions in place).
    pub from: Square,
    /// Destination square.
    pub to: Square,
    /// Promotion, placement or new role; [`Role::NONE`] otherwise.
    pub role: Role,
    /// Castling: the rook's square; otherwise unused ([`Move::NO_SQUARE`]).
    pub aux: Square,
}

impl Role {
    /// No role (a move without promotion).
    pub const NONE: Role = Role(u8::MAX);
}

impl Move {
    /// Placeholder for an unused square field.
    pub const NO_SQUARE: Square = Square::new(u8::MAX);

    /// A plain move.
    #[inline(always)]
    pub const fn normal(from: Square, to: Square) -> Move {
        Move { kind: MoveKind::Normal, from, to, role: Role::NONE, aux: Move::NO_SQUARE }
    }

    /// A promotion to `role`.
    #[inline(always)]
    pub const fn promotion(from: Square, to: Square, role: Role) -> Move {
        Move { kind: MoveKind::Promotion, from, to, role, aux: Move::NO_SQUARE }
    }

    /// An en passant capture.
    #[inline(always)]
    pub const fn en_passant(from: Square, to: Square) -> Move {
        Move { kind: MoveKind::EnPassant, from, to, role: Role::NONE, aux: Move::NO_SQUARE }
    }

    /// Castling: the king from `from` to `to`, the rook from `rook`.
    #[inline(always)]
    pub const fn castle(from: Square, to: Square, rook: Square) -> Move {
        Move { kind: MoveKind::Castle, from, to, role: Role::NONE, aux: rook }
    }

    /// Placing a new `role` on `to`.
    #[inline(always)]
    pub const fn place(role: Role, to: Square) -> Move {
        Move { kind: MoveKind::Place, from: to, to, role, aux: Move::NO_SQUARE }
    }

    /// Promoting the piece on `sq` in place to `role`.
    #[inline(always)]
    pub const fn promote_in_place(sq: Square, role: Role) -> Move {
        Move { kind: MoveKind::PromoteInPlace, from: sq, to: sq, role, aux: Move::NO_SQUARE }
    }

    /// Equipping item `item` (a variant's item code) onto the piece on `sq`; `role` for a crown.
    #[inline(always)]
    pub const fn equip(item: u8, sq: Square, role: Role) -> Move {
        Move { kind: MoveKind::Equip, from: sq, to: sq, role, aux: Square::new(item) }
    }

    /// Whether a piece moves on the board (not a placement or promotion in place).
    #[inline(always)]
    pub const fn is_board_move(self) -> bool {
        matches!(self.kind, MoveKind::Normal | MoveKind::Promotion | MoveKind::EnPassant | MoveKind::Castle)
    }
}

/// A list of moves; reused between calls to avoid allocation in hot loops.
pub type MoveList = Vec<Move>;

/// An action as written, before it is matched against a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActionText {
    /// `e2e4`, `e7e8q`, `d1d5/c6`.
    Move {
        /// Origin square name.
        from: String,
        /// Destination square name.
        to: String,
        /// Lower-case promotion letter, if written.
        promotion: Option<char>,
        /// Landing square name (`/c6`), if written.
        landing: Option<String>,
    },
    /// `N@c3`.
    Place {
        /// Upper-case piece letter.
        letter: char,
        /// Square name.
        to: String,
    },
    /// `e8=Q`.
    Promote {
        /// Square name.
        square: String,
        /// Upper-case piece letter.
        letter: char,
    },
    /// `crossbow@d4`, `crown@d4=R`.
    Equip {
        /// Item name.
        item: String,
        /// Square name.
        square: String,
        /// Crown's new type, upper case.
        crown: Option<char>,
    },
}

/// Why an action was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActionError {
    /// The text is not an action of the notation.
    Malformed(String),
    /// Well formed, but not legal in this position.
    Illegal(String),
    /// The game is over; nothing more may be played.
    GameOver(String),
}

impl ActionError {
    /// The human-readable reason.
    pub fn message(&self) -> &str {
        match self {
            ActionError::Malformed(m) | ActionError::Illegal(m) | ActionError::GameOver(m) => m,
        }
    }

    /// A stable snake_case code for protocols.
    pub fn code(&self) -> &'static str {
        match self {
            ActionError::Malformed(_) => "malformed_action",
            ActionError::Illegal(_) => "illegal_action",
            ActionError::GameOver(_) => "game_over",
        }
    }
}

impl fmt::Display for ActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for ActionError {}

fn is_square_text(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 2 && b[0].is_ascii_lowercase() && b[1].is_ascii_digit()
}

impl ActionText {
    /// Parses the notation's syntax (not yet legality, nor whether squares exist on a board).
    ///
    /// # Errors
    /// [`ActionError::Malformed`] naming what is wrong with the text.
    pub fn parse(text: &str) -> Result<ActionText, ActionError> {
        let bad = |why: &str| Err(ActionError::Malformed(format!("'{text}' is not an action: {why}")));
        if text.is_empty() {
            return bad("it is empty");
        }
        if !text.is_ascii() || text.chars().any(|c| c.is_ascii_whitespace() || c.is_ascii_control()) {
            return bad("actions are plain letters and digits without spaces, such as e2e4, N@c3 or e8=Q");
        }
        if let Some((left, right)) = text.split_once('@') {
            // Placement `N@c3` or equip `crossbow@d4[=R]`.
            let (square, crown) = match right.split_once('=') {
                Some((sq, letter)) => (sq, Some(letter)),
                None => (right, None),
            };
            if !is_square_text(square) {
                return bad("after '@' comes a square such as c3");
            }
            let mut chars = left.chars();
            if let (Some(letter), None) = (chars.next(), chars.next()) {
                if crown.is_some() {
                    return bad("a placement has no '=' part");
                }
                if !letter.is_ascii_uppercase() {
                    return bad("the piece letter of a placement is upper case, as in N@c3");
                }
                return Ok(ActionText::Place { letter, to: square.to_string() });
            }
            if !left.chars().all(|c| c.is_ascii_lowercase()) || left.is_empty() {
                return bad("before '@' comes a piece letter (N@c3) or an item (crossbow@d4)");
            }
            let crown = match crown {
                None => None,
                Some(l) => {
                    let mut cs = l.chars();
                    match (cs.next(), cs.next()) {
                        (Some(c), None) if c.is_ascii_uppercase() => Some(c),
                        _ => return bad("the crown's new type is one upper-case letter, as in crown@d4=R"),
                    }
                }
            };
            return Ok(ActionText::Equip { item: left.to_string(), square: square.to_string(), crown });
        }
        if let Some((square, letter)) = text.split_once('=') {
            if !is_square_text(square) {
                return bad("a promotion in place is a square, '=' and a letter, as in e8=Q");
            }
            let mut cs = letter.chars();
            return match (cs.next(), cs.next()) {
                (Some(c), None) if c.is_ascii_uppercase() => {
                    Ok(ActionText::Promote { square: square.to_string(), letter: c })
                }
                (Some(c), None) if c.is_ascii_lowercase() => bad("the letter after '=' is upper case, as in e8=Q"),
                _ => bad("a promotion in place is a square, '=' and a letter, as in e8=Q"),
            };
        }
        let (main, landing) = match text.split_once('/') {
            Some((m, l)) => {
                if !is_square_text(l) {
                    return bad("after '/' comes the landing square, as in d1d5/c6");
                }
                (m, Some(l.to_string()))
            }
            None => (text, None),
        };
        if main.len() != 4 && main.len() != 5 {
            return bad("a move is two squares and an optional promotion letter, as in e2e4 or e7e8q");
        }
        let (from, rest) = main.split_at(2);
        let (to, promo) = rest.split_at(2);
        if !is_square_text(from) || !is_square_text(to) {
            return bad("a move is two squares and an optional promotion letter, as in e2e4 or e7e8q");
        }
        let promotion = match promo.chars().next() {
            None => None,
            Some(c) if c.is_ascii_lowercase() => Some(c),
            Some(c) if c.is_ascii_uppercase() => {
                return bad("the promotion letter is lower case, as in e7e8q");
            }
            Some(_) => return bad("the promotion letter is one lower-case letter, as in e7e8q"),
        };
        Ok(ActionText::Move { from: from.to_string(), to: to.to_string(), promotion, landing })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form() {
        assert!(matches!(ActionText::parse("e2e4"), Ok(ActionText::Move { promotion: None, .. })));
        assert!(matches!(ActionText::parse("e7e8q"), Ok(ActionText::Move { promotion: Some('q'), .. })));
        assert_eq!(ActionText::parse("N@c3"), Ok(ActionText::Place { letter: 'N', to: "c3".into() }));
        assert_eq!(ActionText::parse("e8=Q"), Ok(ActionText::Promote { square: "e8".into(), letter: 'Q' }));
        assert_eq!(
            ActionText::parse("crown@d4=R"),
            Ok(ActionText::Equip { item: "crown".into(), square: "d4".into(), crown: Some('R') })
        );
        assert!(matches!(ActionText::parse("d1d5/c6"), Ok(ActionText::Move { landing: Some(_), .. })));
    }

    #[test]
    fn rejects_wrong_case_and_junk() {
        for bad in ["", "e7e8Q", "n@c3", "e8=q", "e2", "e2e4e4", "e2-e4", "e2e4 ", "é2e4", "N@c", "@c3"] {
            assert!(matches!(ActionText::parse(bad), Err(ActionError::Malformed(_))), "{bad}");
        }
    }
}
