//! Positions: the board, the side to move, castling rights, en passant, counters, the variant's
//! own state, incremental hashing, position text (FEN and its extensions) and making moves.

use core::fmt;

use crate::action::{Move, MoveKind};
use crate::bitboard::BitBoard;
use crate::geometry::Geometry;
use crate::pieces::{MAX_ROLES, Piece, Role};
use crate::square::{Color, Square};
use crate::variant::{Bb, CastleDef, Effects, Variant};

/// A position text that cannot be read, with what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionError(String);

impl PositionError {
    /// An error with the given explanation.
    pub fn new(message: impl Into<String>) -> PositionError {
        PositionError(message.into())
    }

    /// The explanation.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid position: {}", self.0)
    }
}

impl std::error::Error for PositionError {}

const MAX_SQUARES: usize = 81;
const EMPTY: u8 = 0xFF;

const fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A well-mixed 64-bit value of `x`, for hashing a variant's own state.
pub const fn mix(x: u64) -> u64 {
    splitmix(x ^ 0x5851_F42D_4C95_7F2D)
}

const PIECE_KEYS: [u64; 2 * MAX_ROLES * MAX_SQUARES] = {
    let mut keys = [0u64; 2 * MAX_ROLES * MAX_SQUARES];
    let mut i = 0;
    while i < keys.len() {
        keys[i] = splitmix(i as u64 + 1);
        i += 1;
    }
    keys
};

const CASTLE_KEYS: [u64; MAX_SQUARES] = {
    let mut keys = [0u64; MAX_SQUARES];
    let mut i = 0;
    while i < MAX_SQUARES {
        keys[i] = splitmix(0x10_0000 + i as u64);
        i += 1;
    }
    keys
};

const EP_KEYS: [u64; 9] = {
    let mut keys = [0u64; 9];
    let mut i = 0;
    while i < 9 {
        keys[i] = splitmix(0x20_0000 + i as u64);
        i += 1;
    }
    keys
};

const BLACK_KEY: u64 = splitmix(0x30_0000);

#[inline(always)]
fn piece_key(piece: Piece, sq: Square) -> u64 {
    PIECE_KEYS[(piece.color.index() * MAX_ROLES + piece.role.idx()) * MAX_SQUARES + sq.idx()]
}

/// Pieces on a board: bitboards by colour and role, and a square-indexed table.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board<G: Geometry> {
    by_color: [G::Bb; 2],
    by_role: [G::Bb; MAX_ROLES],
    cells: [u8; MAX_SQUARES],
}

impl<G: Geometry> Default for Board<G> {
    fn default() -> Self {
        Board { by_color: [G::Bb::ZERO; 2], by_role: [G::Bb::ZERO; MAX_ROLES], cells: [EMPTY; MAX_SQUARES] }
    }
}

impl<G: Geometry> fmt::Debug for Board<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..G::RANKS as i32).rev() {
            for file in 0..G::FILES as i32 {
                let c = match G::square(file, rank).and_then(|s| self.piece_at(s)) {
                    None => '.',
                    Some(p) => {
                        let ch = char::from(b'A' + p.role.0);
                        if p.color == Color::White { ch } else { ch.to_ascii_lowercase() }
                    }
                };
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

impl<G: Geometry> Board<G> {
    /// The piece on `sq`, if any.
    #[inline(always)]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let c = self.cells[sq.idx()];
        if c == EMPTY {
            None
        } else {
            Some(Piece { color: if c >> 4 == 0 { Color::White } else { Color::Black }, role: Role(c & 0xF) })
        }
    }

    /// The role on `sq`, if any.
    #[inline(always)]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        let c = self.cells[sq.idx()];
        if c == EMPTY { None } else { Some(Role(c & 0xF)) }
    }

    /// Every occupied square.
    #[inline(always)]
    pub fn occupied(&self) -> G::Bb {
        self.by_color[0] | self.by_color[1]
    }

    /// The squares of one colour.
    #[inline(always)]
    pub fn by_color(&self, color: Color) -> G::Bb {
        self.by_color[color.index()]
    }

    /// The squares of one role, both colours.
    #[inline(always)]
    pub fn by_role(&self, role: usize) -> G::Bb {
        self.by_role[role]
    }

    /// The squares of one colour's pieces of one role.
    #[inline(always)]
    pub fn pieces(&self, color: Color, role: usize) -> G::Bb {
        self.by_color[color.index()] & self.by_role[role]
    }

    /// Puts `piece` on the empty square `sq`.
    #[inline(always)]
    pub(crate) fn put(&mut self, sq: Square, piece: Piece) {
        let bit = G::Bb::from_square(sq);
        self.by_color[piece.color.index()] |= bit;
        self.by_role[piece.role.idx()] |= bit;
        self.cells[sq.idx()] = ((piece.color as u8) << 4) | piece.role.0;
    }

    /// Removes and returns what stands on `sq`.
    #[inline(always)]
    pub(crate) fn take(&mut self, sq: Square) -> Option<Piece> {
        let piece = self.piece_at(sq)?;
        let bit = G::Bb::from_square(sq);
        self.by_color[piece.color.index()] ^= bit;
        self.by_role[piece.role.idx()] ^= bit;
        self.cells[sq.idx()] = EMPTY;
        Some(piece)
    }

    /// Every piece with its square, lowest square first.
    pub fn iter(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.occupied().squares().filter_map(|sq| self.piece_at(sq).map(|p| (sq, p)))
    }
}

/// A position of variant `V`.
#[derive(Clone, PartialEq, Eq)]
pub struct Position<V: Variant> {
    pub(crate) board: Board<V::Geo>,
    pub(crate) turn: Color,
    pub(crate) castling: Bb<V>,
    pub(crate) ep: Option<Square>,
    pub(crate) halfmoves: u32,
    pub(crate) fullmoves: u32,
    pub(crate) hash: u64,
    pub(crate) ext: V::Ext,
}

impl<V: Variant> fmt::Debug for Position<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.fen())
    }
}

/// The square of a castling definition's coordinates on board `G`.
#[inline(always)]
pub(crate) fn castle_square<G: Geometry>(coords: (u8, u8)) -> Square {
    Square::new(coords.1 * G::FILES as u8 + coords.0)
}

impl<V: Variant> Position<V> {
    /// The start position of the variant.
    pub fn start() -> Position<V> {
        match Position::from_fen(V::START_FEN) {
            Ok(p) => p,
            // The start texts are constants checked by the test suite.
            Err(e) => unreachable_start(V::ID, &e),
        }
    }

    /// The board.
    #[inline(always)]
    pub fn board(&self) -> &Board<V::Geo> {
        &self.board
    }

    /// The side to move.
    #[inline(always)]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// Rook squares that still carry a castling right.
    #[inline(always)]
    pub fn castling(&self) -> Bb<V> {
        self.castling
    }

    /// The en passant square, present only when an en passant capture is legal.
    #[inline(always)]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep
    }

    /// Plies since the last capture, pawn move or other progress (variant-defined).
    #[inline(always)]
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// The move number, starting at 1 and rising after Black's turn.
    #[inline(always)]
    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    /// The variant's own state.
    #[inline(always)]
    pub fn ext(&self) -> &V::Ext {
        &self.ext
    }

    /// Mutable access to the variant's own state, for variant hooks.
    #[inline(always)]
    pub fn ext_mut(&mut self) -> &mut V::Ext {
        &mut self.ext
    }

    /// The repetition key: board, side to move, castling rights, legal en passant and the
    /// variant's own state.
    #[inline(always)]
    pub fn hash(&self) -> u64 {
        self.hash ^ V::ext_hash(&self.ext)
    }

    /// The same key computed from scratch (for tests of the incremental update).
    pub fn compute_hash(&self) -> u64 {
        let mut h = 0u64;
        for (sq, piece) in self.board.iter() {
            h ^= piece_key(piece, sq);
        }
        for sq in self.castling.squares() {
            h ^= CASTLE_KEYS[sq.idx()];
        }
        if let Some(ep) = self.ep {
            h ^= EP_KEYS[V::Geo::file_of(ep) as usize];
        }
        if self.turn == Color::Black {
            h ^= BLACK_KEY;
        }
        h ^ V::ext_hash(&self.ext)
    }

    /// Puts a piece on an empty square, keeping the hash.
    #[inline(always)]
    pub fn put_piece(&mut self, sq: Square, piece: Piece) {
        self.board.put(sq, piece);
        self.hash ^= piece_key(piece, sq);
    }

    /// Removes the piece on a square, keeping the hash.
    #[inline(always)]
    pub fn take_piece(&mut self, sq: Square) -> Option<Piece> {
        let piece = self.board.take(sq)?;
        self.hash ^= piece_key(piece, sq);
        Some(piece)
    }

    /// The single king of `color`, if it has exactly one.
    #[inline(always)]
    pub fn king(&self, color: Color) -> Option<Square> {
        if V::KING >= MAX_ROLES {
            return None;
        }
        let kings = self.board.pieces(color, V::KING);
        if kings.more_than_one() { None } else { kings.first() }
    }

    /// Every occupied square, neutral blockers (loot boxes) included.
    #[inline(always)]
    pub fn occupied(&self) -> Bb<V> {
        self.board.occupied() | V::blockers(self)
    }

    /// Pieces of `by` that attack `sq`, with `occupied` as the blockers.
    #[inline(always)]
    pub fn attackers(&self, sq: Square, by: Color, occupied: Bb<V>) -> Bb<V> {
        let t = V::Geo::tables();
        let pt = V::piece_tables();
        let mut out = Bb::<V>::ZERO;
        let mut rook = None;
        let mut bishop = None;
        let mut r = 0;
        while r < V::PIECES.len() {
            let info = V::ROLE_INFO[r];
            let p = self.board.pieces(by, r);
            if info.leap_captures {
                out |= pt.rev_leap_capture(r, by, sq) & p;
            }
            if info.orth.captures != 0 {
                let ra = *rook.get_or_insert_with(|| t.rook(sq, occupied));
                out |= if info.orth.captures == 0xF { ra & p } else { ra & p & pt.rev_orth_capture(r, by, sq) };
            }
            if info.diag.captures != 0 {
                let ba = *bishop.get_or_insert_with(|| t.bishop(sq, occupied));
                out |= if info.diag.captures == 0xF { ba & p } else { ba & p & pt.rev_diag_capture(r, by, sq) };
            }
            r += 1;
        }
        out
    }

    /// Enemy pieces attacking the side to move's king.
    #[inline(always)]
    pub fn checkers(&self) -> Bb<V> {
        if !V::CHECK {
            return Bb::<V>::ZERO;
        }
        match self.king(self.turn) {
            Some(k) => self.attackers(k, !self.turn, self.occupied()),
            None => Bb::<V>::ZERO,
        }
    }

    /// Whether the side to move is in check.
    #[inline(always)]
    pub fn is_check(&self) -> bool {
        self.checkers().any()
    }

    /// Replaces the castling rights, keeping the hash (for variants that move pieces themselves).
    pub fn set_castling_rights(&mut self, rights: Bb<V>) {
        self.set_castling(rights);
    }

    #[inline(always)]
    fn set_castling(&mut self, rights: Bb<V>) {
        for sq in (rights ^ self.castling).squares() {
            self.hash ^= CASTLE_KEYS[sq.idx()];
        }
        self.castling = rights;
    }

    #[inline(always)]
    pub(crate) fn set_ep(&mut self, ep: Option<Square>) {
        if let Some(old) = self.ep {
            self.hash ^= EP_KEYS[V::Geo::file_of(old) as usize];
        }
        if let Some(new) = ep {
            self.hash ^= EP_KEYS[V::Geo::file_of(new) as usize];
        }
        self.ep = ep;
    }

    fn castle_rights_of(color: Color) -> Bb<V> {
        let mut out = Bb::<V>::ZERO;
        for c in V::CASTLES.iter().filter(|c| c.color == color) {
            out |= Bb::<V>::from_square(castle_square::<V::Geo>(c.rook_from));
        }
        out
    }

    fn castle_def(rook_from: Square) -> Option<&'static CastleDef> {
        V::CASTLES.iter().find(|c| castle_square::<V::Geo>(c.rook_from) == rook_from)
    }

    /// Whether the side to move may capture en passant on `ep` (legally).
    fn ep_capture_legal(&self, ep: Square) -> bool {
        if V::PAWN >= MAX_ROLES {
            return false;
        }
        let us = self.turn;
        let pt = V::piece_tables();
        let candidates = pt.rev_leap_capture(V::PAWN, us, ep) & self.board.pieces(us, V::PAWN);
        if !V::CHECK {
            return candidates.any();
        }
        for from in candidates.squares() {
            let mv = Move::en_passant(from, ep);
            if V::PIN_LEGALITY && !V::CONVERSION {
                let Some(king) = self.king(us) else { return true };
                let captured = self.ep_victim(from, ep);
                let occ = (self.occupied() ^ Bb::<V>::from_square(from) ^ Bb::<V>::from_square(captured))
                    | Bb::<V>::from_square(ep);
                if (self.attackers(king, !us, occ) & !Bb::<V>::from_square(captured)).is_zero() {
                    return true;
                }
            } else if self.is_legal_by_play(mv) {
                return true;
            }
        }
        false
    }

    /// The square of the pawn captured by an en passant move from `from` to `to`.
    #[inline(always)]
    pub(crate) fn ep_victim(&self, from: Square, to: Square) -> Square {
        Square::new((V::Geo::rank_of(from) * V::Geo::FILES + V::Geo::file_of(to)) as u8)
    }

    /// Plays `mv` and tells whether the mover's king is then safe (for variants whose legality
    /// is judged by playing).
    pub fn is_legal_by_play(&self, mv: Move) -> bool {
        let mover = self.turn;
        let mut after = self.clone();
        V::play_for_legality(&mut after, mv);
        match after.king(mover) {
            Some(k) => after.attackers(k, !mover, after.occupied()).is_zero(),
            None => true,
        }
    }

    /// Plays a move known to be legal (from the generator). Playing anything else leaves an
    /// inconsistent position.
    #[inline(always)]
    pub fn play_unchecked(&mut self, mv: Move) {
        V::play(self, mv);
    }

    /// The board part of an action and the variant's effects ([`Variant::after_action`]),
    /// without ending the turn. Returns the effects and, after a pawn's double step, the square
    /// it passed.
    pub fn apply_action(&mut self, mv: Move) -> (Effects, Option<Square>) {
        let us = self.turn;
        self.set_ep(None);
        let mut fx = Effects { mv, mover: us, role: mv.role, captured: None };
        let mut double_push = None;
        match mv.kind {
            MoveKind::Normal | MoveKind::Promotion => {
                let Some(piece) = self.take_piece(mv.from) else { return (fx, None) };
                fx.role = piece.role;
                let captured = self.take_piece(mv.to);
                let role = if mv.kind == MoveKind::Promotion { mv.role } else { piece.role };
                self.put_piece(mv.to, Piece { color: us, role });
                if let Some(victim) = captured {
                    fx.captured = Some((victim, mv.to));
                    if V::CONVERSION {
                        let convert = Piece { color: us, role: victim.role };
                        let role = V::converted_role(convert, mv.from);
                        self.put_piece(mv.from, Piece { color: us, role });
                    }
                }
                if piece.role.idx() == V::PAWN && V::Geo::rank_of(mv.from).abs_diff(V::Geo::rank_of(mv.to)) == 2 {
                    double_push = Some(Square::new(((mv.from.index() as u32 + mv.to.index() as u32) / 2) as u8));
                }
                let mut rights = self.castling & !Bb::<V>::from_square(mv.from) & !Bb::<V>::from_square(mv.to);
                if piece.role.idx() == V::KING {
                    rights &= !Self::castle_rights_of(us);
                }
                if rights != self.castling {
                    self.set_castling(rights);
                }
            }
            MoveKind::EnPassant => {
                let Some(piece) = self.take_piece(mv.from) else { return (fx, None) };
                fx.role = piece.role;
                let victim_sq = self.ep_victim(mv.from, mv.to);
                let victim = self.take_piece(victim_sq);
                self.put_piece(mv.to, piece);
                if let Some(victim) = victim {
                    fx.captured = Some((victim, victim_sq));
                    if V::CONVERSION {
                        let convert = Piece { color: us, role: victim.role };
                        let role = V::converted_role(convert, mv.from);
                        self.put_piece(mv.from, Piece { color: us, role });
                    }
                }
            }
            MoveKind::Castle => {
                let king = self.take_piece(mv.from);
                let rook = self.take_piece(mv.aux);
                let rook_to = Self::castle_def(mv.aux).map_or(mv.aux, |c| castle_square::<V::Geo>(c.rook_to));
                if let Some(k) = king {
                    fx.role = k.role;
                    self.put_piece(mv.to, k);
                }
                if let Some(r) = rook {
                    self.put_piece(rook_to, r);
                }
                let rights = self.castling & !Self::castle_rights_of(us);
                self.set_castling(rights);
            }
            MoveKind::Place => {
                self.put_piece(mv.to, Piece { color: us, role: mv.role });
            }
            MoveKind::PromoteInPlace => {
                if let Some(p) = self.take_piece(mv.to) {
                    fx.role = p.role;
                }
                self.put_piece(mv.to, Piece { color: us, role: mv.role });
            }
            MoveKind::Equip => {}
        }
        V::after_action(self, &fx);
        (fx, double_push)
    }

    /// Ends the turn after an action: the no-progress counter, the move number, the side to
    /// move, the next turn's start ([`Variant::start_turn`]) and a legal en passant square.
    pub fn end_turn(&mut self, fx: &Effects, double_push: Option<Square>) {
        if V::resets_progress(fx) {
            self.halfmoves = 0;
        } else {
            self.halfmoves = self.halfmoves.saturating_add(1);
        }
        if fx.mover == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = !fx.mover;
        self.hash ^= BLACK_KEY;
        V::start_turn(self);
        if let Some(ep) = double_push
            && self.ep_capture_legal(ep)
        {
            self.set_ep(Some(ep));
        }
    }

    /// Reads a position text: FEN with the variant's board size and letters, followed by the
    /// variant's own fields.
    ///
    /// # Errors
    /// A [`PositionError`] naming the field and what is wrong with it.
    pub fn from_fen(text: &str) -> Result<Position<V>, PositionError> {
        let fields: Vec<&str> = text.split_ascii_whitespace().collect();
        if fields.len() < 4 {
            return Err(PositionError::new(format!(
                "expected at least 4 fields (board, side to move, castling, en passant), found {}",
                fields.len()
            )));
        }
        let mut pos = Position {
            board: parse_board::<V>(fields[0])?,
            turn: match fields[1] {
                "w" => Color::White,
                "b" => Color::Black,
                other => {
                    return Err(PositionError::new(format!("side to move must be 'w' or 'b', not '{other}'")));
                }
            },
            castling: Bb::<V>::ZERO,
            ep: None,
            halfmoves: 0,
            fullmoves: 1,
            hash: 0,
            ext: V::Ext::default(),
        };
        pos.castling = parse_castling(&pos, fields[2])?;
        let ep = parse_ep(&pos, fields[3])?;
        if let Some(h) = fields.get(4) {
            pos.halfmoves = parse_counter(h, "halfmove clock")?;
        }
        if let Some(f) = fields.get(5) {
            pos.fullmoves = parse_counter(f, "fullmove number")?;
            if pos.fullmoves == 0 {
                return Err(PositionError::new("fullmove number starts at 1, found 0"));
            }
        }
        let ext_fields = if fields.len() > 6 { &fields[6..] } else { &[][..] };
        V::parse_ext(&mut pos, ext_fields)?;
        pos.validate_board()?;
        if let Some(ep) = ep
            && pos.ep_capture_legal(ep)
        {
            pos.ep = Some(ep);
        }
        pos.hash = 0;
        pos.hash = pos.compute_hash() ^ V::ext_hash(&pos.ext);
        V::validate(&pos)?;
        Ok(pos)
    }

    fn validate_board(&self) -> Result<(), PositionError> {
        if V::KING < MAX_ROLES {
            for color in Color::ALL {
                let n = self.board.pieces(color, V::KING).count();
                let (min, max) = V::king_range(color);
                if n < min || n > max {
                    return Err(PositionError::new(match (min, max) {
                        (0, 0) => format!("{} has no king in {}, found {n}", color.name(), V::NAME),
                        (a, b) if a == b => {
                            format!(
                                "{} must have exactly {} king{}, found {n}",
                                color.name(),
                                if a == 1 { "one".to_string() } else { a.to_string() },
                                if a == 1 { "" } else { "s" }
                            )
                        }
                        (a, b) => format!("{} must have {a} to {b} kings, found {n}", color.name()),
                    }));
                }
            }
        }
        if V::PAWN < MAX_ROLES {
            for color in Color::ALL {
                for sq in self.board.pieces(color, V::PAWN).squares() {
                    if !V::pawn_square_ok(color, sq) {
                        return Err(PositionError::new(format!(
                            "a {} pawn cannot stand on {}",
                            color.name(),
                            V::Geo::name(sq)
                        )));
                    }
                }
            }
        }
        if V::CHECK
            && !V::SIDE_NOT_TO_MOVE_MAY_BE_IN_CHECK
            && let Some(k) = self.king(!self.turn)
            && self.attackers(k, self.turn, self.occupied()).any()
        {
            return Err(PositionError::new(format!("the side not to move ({}) is in check", (!self.turn).name())));
        }
        Ok(())
    }

    /// The position text.
    pub fn fen(&self) -> String {
        let mut out = String::with_capacity(96);
        for rank in (0..V::Geo::RANKS as i32).rev() {
            let mut empty = 0;
            for file in 0..V::Geo::FILES as i32 {
                match V::Geo::square(file, rank).and_then(|s| self.board.piece_at(s)) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            out.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        let letter = V::PIECES[p.role.idx()].letter;
                        out.push(if p.color == Color::White { letter } else { letter.to_ascii_lowercase() });
                    }
                }
            }
            if empty > 0 {
                out.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                out.push('/');
            }
        }
        out.push(' ');
        out.push(self.turn.char());
        out.push(' ');
        let mut any = false;
        for c in V::CASTLES {
            if self.castling.contains(castle_square::<V::Geo>(c.rook_from)) {
                out.push(c.letter);
                any = true;
            }
        }
        if !any {
            out.push('-');
        }
        out.push(' ');
        match self.ep {
            Some(ep) => out.push_str(&V::Geo::name(ep).to_string()),
            None => out.push('-'),
        }
        out.push_str(&format!(" {} {}", self.halfmoves, self.fullmoves));
        V::write_ext(self, &mut out);
        out
    }
}

#[cold]
fn unreachable_start(id: &str, e: &PositionError) -> ! {
    panic!("start position of {id} does not parse: {e}")
}

fn role_of_letter<V: Variant>(letter: char) -> Option<Role> {
    V::PIECES.iter().position(|d| d.letter == letter).map(|i| Role(i as u8))
}

/// The piece letters of a variant, for error messages.
pub(crate) fn letters<V: Variant>() -> String {
    V::PIECES.iter().map(|d| d.letter.to_string()).collect::<Vec<_>>().join(" ")
}

fn parse_board<V: Variant>(text: &str) -> Result<Board<V::Geo>, PositionError> {
    let files = V::Geo::FILES;
    let ranks = V::Geo::RANKS;
    let rows: Vec<&str> = text.split('/').collect();
    if rows.len() != ranks as usize {
        return Err(PositionError::new(format!("the board has {ranks} ranks separated by '/', found {}", rows.len())));
    }
    let mut board = Board::<V::Geo>::default();
    for (i, row) in rows.iter().enumerate() {
        let rank = ranks - 1 - i as u32;
        let mut file = 0u32;
        let mut last_digit = false;
        for ch in row.chars() {
            if let Some(d) = ch.to_digit(10) {
                if d == 0 {
                    return Err(PositionError::new(format!("rank {}: '0' is not a count of empty squares", rank + 1)));
                }
                if last_digit {
                    return Err(PositionError::new(format!(
                        "rank {}: two digits in a row; write the empty squares as one digit",
                        rank + 1
                    )));
                }
                file += d;
                last_digit = true;
            } else {
                last_digit = false;
                let color = if ch.is_ascii_uppercase() { Color::White } else { Color::Black };
                let role = role_of_letter::<V>(ch.to_ascii_uppercase()).filter(|_| ch.is_ascii_alphabetic());
                let Some(role) = role else {
                    return Err(PositionError::new(format!(
                        "rank {}: '{ch}' is not a piece of {} (pieces: {})",
                        rank + 1,
                        V::NAME,
                        letters::<V>()
                    )));
                };
                if file >= files {
                    return Err(PositionError::new(format!("rank {} has more than {files} squares", rank + 1)));
                }
                let Some(sq) = V::Geo::square(file as i32, rank as i32) else {
                    return Err(PositionError::new(format!("rank {} has more than {files} squares", rank + 1)));
                };
                board.put(sq, Piece { color, role });
                file += 1;
            }
            if file > files {
                return Err(PositionError::new(format!("rank {} has more than {files} squares", rank + 1)));
            }
        }
        if file != files {
            return Err(PositionError::new(format!("rank {} has {file} squares, expected {files}", rank + 1)));
        }
    }
    Ok(board)
}

fn parse_castling<V: Variant>(pos: &Position<V>, text: &str) -> Result<Bb<V>, PositionError> {
    let mut rights = Bb::<V>::ZERO;
    if text == "-" {
        return Ok(rights);
    }
    let allowed: String = V::CASTLES.iter().map(|c| c.letter).collect();
    for ch in text.chars() {
        let Some(def) = V::CASTLES.iter().find(|c| c.letter == ch) else {
            return Err(PositionError::new(if allowed.is_empty() {
                format!("castling field must be '-': {} has no castling", V::NAME)
            } else {
                format!("castling letter '{ch}' is not used in {} (allowed: {allowed} or -)", V::NAME)
            }));
        };
        let rook_sq = castle_square::<V::Geo>(def.rook_from);
        let king_sq = castle_square::<V::Geo>(def.king_from);
        if rights.contains(rook_sq) {
            return Err(PositionError::new(format!("castling letter '{ch}' appears twice")));
        }
        let king_ok = pos.board.piece_at(king_sq) == Some(Piece { color: def.color, role: Role(V::KING as u8) });
        let rook_ok =
            pos.board.piece_at(rook_sq).is_some_and(|p| p.color == def.color && V::PIECES[p.role.idx()].letter == 'R');
        if !king_ok || !rook_ok {
            return Err(PositionError::new(format!(
                "castling right '{ch}' needs the {} king on {} and its rook on {}",
                def.color.name(),
                V::Geo::name(king_sq),
                V::Geo::name(rook_sq)
            )));
        }
        rights |= Bb::<V>::from_square(rook_sq);
    }
    Ok(rights)
}

fn parse_ep<V: Variant>(pos: &Position<V>, text: &str) -> Result<Option<Square>, PositionError> {
    if text == "-" {
        return Ok(None);
    }
    let Some(ep) = V::Geo::parse_square(text) else {
        return Err(PositionError::new(format!("en passant field must be '-' or a square, not '{text}'")));
    };
    if V::PAWN >= MAX_ROLES {
        return Err(PositionError::new(format!("{} has no en passant", V::NAME)));
    }
    let mover = !pos.turn;
    let forward: i32 = if mover == Color::White { 1 } else { -1 };
    let (f, r) = (V::Geo::file_of(ep) as i32, V::Geo::rank_of(ep) as i32);
    let expected_rank = if mover == Color::White { 2 } else { V::Geo::RANKS as i32 - 3 };
    let pawn_sq = V::Geo::square(f, r + forward);
    let origin = V::Geo::square(f, r - forward);
    let valid = r == expected_rank
        && pos.board.piece_at(ep).is_none()
        && origin.is_some_and(|o| pos.board.piece_at(o).is_none())
        && pawn_sq.and_then(|s| pos.board.piece_at(s)) == Some(Piece { color: mover, role: Role(V::PAWN as u8) });
    if !valid {
        return Err(PositionError::new(format!(
            "en passant square {text} does not follow a {} pawn's double step",
            mover.name()
        )));
    }
    Ok(Some(ep))
}

fn parse_counter(text: &str, what: &str) -> Result<u32, PositionError> {
    if text.is_empty() || text.len() > 6 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(PositionError::new(format!("{what} must be a whole number, not '{text}'")));
    }
    text.parse().map_err(|_| PositionError::new(format!("{what} must be a whole number, not '{text}'")))
}
