//! Action generation, the effect of an action, and attacks, straight from the rule book.

use super::{Color, Kind, Piece, Pos, Var};

/// One turn action.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Action {
    /// A piece moves; `promo` is the type a pawn promotes to on the last rank (none: it stays a
    /// pawn, which only the gold modes allow there). Castling is the king's two-square move.
    Move { from: usize, to: usize, promo: Option<Kind> },
    /// A new piece is put on an empty square.
    Place { kind: Kind, sq: usize },
    /// A waiting pawn promotes where it stands.
    Promote { sq: usize, kind: Kind },
}

const KNIGHT_STEPS: [(i32, i32); 8] = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
const KING_STEPS: [(i32, i32); 8] = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)];
const ROOK_DIRS: [(i32, i32); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];
const BISHOP_DIRS: [(i32, i32); 4] = [(1, 1), (-1, 1), (-1, -1), (1, -1)];
const PROMOTIONS: [Kind; 4] = [Kind::Knight, Kind::Bishop, Kind::Rook, Kind::Queen];
const SHOP: [Kind; 5] = [Kind::Pawn, Kind::Knight, Kind::Bishop, Kind::Rook, Kind::Queen];

pub fn file_of(sq: usize) -> i32 {
    (sq % 8) as i32
}

pub fn rank_of(sq: usize) -> i32 {
    (sq / 8) as i32
}

/// The square `df` files and `dr` ranks away, if on the board.
fn offset(sq: usize, df: i32, dr: i32) -> Option<usize> {
    let (f, r) = (file_of(sq) + df, rank_of(sq) + dr);
    if (0..8).contains(&f) && (0..8).contains(&r) { Some((r * 8 + f) as usize) } else { None }
}

impl Pos {
    fn at(&self, sq: usize) -> Option<Piece> {
        self.board[sq]
    }

    fn is(&self, sq: usize, color: Color, kind: Kind) -> bool {
        self.board[sq] == Some(Piece { color, kind })
    }

    pub fn king(&self, color: Color) -> Option<usize> {
        (0..64).find(|&s| self.is(s, color, Kind::King))
    }

    /// Whether `by` attacks `sq`, by walking outwards from `sq`.
    pub fn attacked(&self, sq: usize, by: Color) -> bool {
        // A pawn of `by` attacks `sq` from one rank behind it (from `by`'s point of view).
        for df in [-1, 1] {
            if let Some(s) = offset(sq, df, -by.forward())
                && self.is(s, by, Kind::Pawn)
            {
                return true;
            }
        }
        for (df, dr) in KNIGHT_STEPS {
            if let Some(s) = offset(sq, df, dr)
                && self.is(s, by, Kind::Knight)
            {
                return true;
            }
        }
        for (df, dr) in KING_STEPS {
            if let Some(s) = offset(sq, df, dr)
                && self.is(s, by, Kind::King)
            {
                return true;
            }
        }
        for (dirs, kind) in [(ROOK_DIRS, Kind::Rook), (BISHOP_DIRS, Kind::Bishop)] {
            for (df, dr) in dirs {
                let mut cur = sq;
                while let Some(s) = offset(cur, df, dr) {
                    if let Some(p) = self.at(s) {
                        if p.color == by && (p.kind == kind || p.kind == Kind::Queen) {
                            return true;
                        }
                        break;
                    }
                    cur = s;
                }
            }
        }
        false
    }

    pub fn in_check(&self) -> bool {
        self.king(self.side).is_some_and(|k| self.attacked(k, self.side.other()))
    }

    /// The piece an action captures and the square it stood on.
    pub fn captured(&self, action: Action) -> Option<(Piece, usize)> {
        let Action::Move { from, to, .. } = action else { return None };
        if let Some(p) = self.at(to) {
            return Some((p, to));
        }
        let mover = self.at(from)?;
        if mover.kind == Kind::Pawn && file_of(from) != file_of(to) {
            // En passant: the passed pawn stands beside the capturing pawn's origin.
            let sq = (rank_of(from) * 8 + file_of(to)) as usize;
            return self.at(sq).map(|p| (p, sq));
        }
        None
    }

    /// Pseudo-legal actions: everything the rules allow except that the mover's king may be left
    /// attacked.
    fn pseudo(&self) -> Vec<Action> {
        let us = self.side;
        let them = us.other();
        let mut out = Vec::new();
        for from in 0..64 {
            let Some(p) = self.at(from) else { continue };
            if p.color != us {
                continue;
            }
            let target = |out: &mut Vec<Action>, to: usize| match self.at(to) {
                None => out.push(Action::Move { from, to, promo: None }),
                Some(q) if q.color == them && q.kind != Kind::King => out.push(Action::Move { from, to, promo: None }),
                Some(_) => {}
            };
            match p.kind {
                Kind::Pawn => self.pawn_moves(from, &mut out),
                Kind::Knight | Kind::King => {
                    let steps = if p.kind == Kind::Knight { KNIGHT_STEPS } else { KING_STEPS };
                    for (df, dr) in steps {
                        if let Some(to) = offset(from, df, dr) {
                            target(&mut out, to);
                        }
                    }
                }
                Kind::Bishop | Kind::Rook | Kind::Queen => {
                    let dirs: Vec<(i32, i32)> = match p.kind {
                        Kind::Bishop => BISHOP_DIRS.to_vec(),
                        Kind::Rook => ROOK_DIRS.to_vec(),
                        _ => ROOK_DIRS.iter().chain(BISHOP_DIRS.iter()).copied().collect(),
                    };
                    for (df, dr) in dirs {
                        let mut cur = from;
                        while let Some(to) = offset(cur, df, dr) {
                            target(&mut out, to);
                            if self.at(to).is_some() {
                                break;
                            }
                            cur = to;
                        }
                    }
                }
            }
        }
        if self.var.castling() {
            self.castlings(&mut out);
        }
        if self.var.places() {
            self.placements(&mut out);
        }
        if self.var.economy() && self.gold[us.idx()] >= 2 {
            for sq in 0..64 {
                if self.is(sq, us, Kind::Pawn) && rank_of(sq) == us.last_rank() {
                    for kind in PROMOTIONS {
                        out.push(Action::Promote { sq, kind });
                    }
                }
            }
        }
        out
    }

    fn pawn_moves(&self, from: usize, out: &mut Vec<Action>) {
        let us = self.side;
        let dir = us.forward();
        if let Some(one) = offset(from, 0, dir)
            && self.at(one).is_none()
        {
            self.pawn_arrival(from, one, 0, out);
            if rank_of(from) == us.second_rank()
                && let Some(two) = offset(from, 0, 2 * dir)
                && self.at(two).is_none()
            {
                out.push(Action::Move { from, to: two, promo: None });
            }
        }
        for df in [-1, 1] {
            let Some(to) = offset(from, df, dir) else { continue };
            match self.at(to) {
                Some(q) if q.color != us && q.kind != Kind::King => {
                    self.pawn_arrival(from, to, q.kind.price_halves() / 2, out);
                }
                None if self.ep == Some(to) => {
                    let passed = (rank_of(from) * 8 + file_of(to)) as usize;
                    if self.is(passed, us.other(), Kind::Pawn) {
                        out.push(Action::Move { from, to, promo: None });
                    }
                }
                _ => {}
            }
        }
    }

    /// A pawn move to `to`, with the promotion choices when `to` is on the last rank; `income` is
    /// what a capture by this move earns (it counts before the fee).
    fn pawn_arrival(&self, from: usize, to: usize, income: u32, out: &mut Vec<Action>) {
        if rank_of(to) != self.side.last_rank() {
            out.push(Action::Move { from, to, promo: None });
            return;
        }
        if self.var.economy() {
            out.push(Action::Move { from, to, promo: None });
            if self.gold[self.side.idx()] + income < 2 {
                return;
            }
        }
        for kind in PROMOTIONS {
            out.push(Action::Move { from, to, promo: Some(kind) });
        }
    }

    fn castlings(&self, out: &mut Vec<Action>) {
        let us = self.side;
        let them = us.other();
        let base = if us == Color::White { 0 } else { 56 };
        let (king_side, queen_side) = if us == Color::White { (0, 1) } else { (2, 3) };
        let e = base + 4;
        if !self.is(e, us, Kind::King) || self.attacked(e, them) {
            return;
        }
        if self.castle[king_side]
            && self.is(base + 7, us, Kind::Rook)
            && self.at(base + 5).is_none()
            && self.at(base + 6).is_none()
            && !self.attacked(base + 5, them)
        {
            out.push(Action::Move { from: e, to: base + 6, promo: None });
        }
        if self.castle[queen_side]
            && self.is(base, us, Kind::Rook)
            && (1..4).all(|f| self.at(base + f).is_none())
            && !self.attacked(base + 3, them)
        {
            out.push(Action::Move { from: e, to: base + 2, promo: None });
        }
    }

    fn placements(&self, out: &mut Vec<Action>) {
        let us = self.side;
        let ranks = |kind: Kind| -> (i32, i32) {
            match (self.var, us, kind) {
                (Var::Sandbox, _, Kind::Pawn) => (1, 6),
                (Var::Sandbox, _, _) => (0, 7),
                (_, Color::White, Kind::Pawn) => (1, 2),
                (_, Color::White, _) => (0, 2),
                (_, Color::Black, Kind::Pawn) => (5, 6),
                (_, Color::Black, _) => (5, 7),
            }
        };
        if self.var == Var::Sandbox {
            let count = self.board.iter().flatten().filter(|p| p.color == us && p.kind != Kind::King).count();
            if count >= 15 {
                return;
            }
        }
        if self.var == Var::ConquerorGold && self.placed[us.idx()] {
            return;
        }
        for kind in SHOP {
            if self.var.economy() && self.gold[us.idx()] < kind.price_halves() {
                continue;
            }
            let (lo, hi) = ranks(kind);
            for sq in 0..64 {
                if self.at(sq).is_none() && (lo..=hi).contains(&rank_of(sq)) {
                    out.push(Action::Place { kind, sq });
                }
            }
        }
    }

    /// The position after an action (which must be pseudo-legal), with the next player's income.
    pub fn after(&self, action: Action) -> Pos {
        let mut next = self.clone();
        let us = self.side;
        let them = us.other();
        let mut progress = false;
        let mut captured = None;
        next.ep = None;
        match action {
            Action::Move { from, to, promo } => {
                let Some(mover) = self.at(from) else { panic!("no piece on {from} in {}", self.fen()) };
                captured = self.captured(action);
                if let Some((_, sq)) = captured {
                    next.board[sq] = None;
                    progress = true;
                }
                next.board[from] = None;
                let kind = promo.unwrap_or(mover.kind);
                next.board[to] = Some(Piece { color: us, kind });
                if mover.kind == Kind::Pawn {
                    progress = true;
                    if (rank_of(to) - rank_of(from)).abs() == 2 {
                        next.ep = offset(from, 0, us.forward());
                    }
                }
                if mover.kind == Kind::King && (file_of(to) - file_of(from)).abs() == 2 {
                    // Castling: the rook jumps over the king.
                    let (rook_from, rook_to) = if file_of(to) == 6 { (to + 1, to - 1) } else { (to - 2, to + 1) };
                    next.board[rook_from] = None;
                    next.board[rook_to] = Some(Piece { color: us, kind: Kind::Rook });
                }
                if let Some((piece, _)) = captured {
                    if self.var.economy() {
                        // Capture income: half the captured type's price.
                        next.gold[us.idx()] += piece.kind.price_halves() / 2;
                    }
                    if self.var.converts() {
                        let mut kind = piece.kind;
                        if kind == Kind::Pawn && rank_of(from) == us.last_rank() && self.var == Var::Conqueror {
                            kind = Kind::Queen;
                        }
                        next.board[from] = Some(Piece { color: us, kind });
                    }
                }
                if promo.is_some() && self.var.economy() {
                    // The fee, after the income (the generator only offers what can be paid).
                    next.gold[us.idx()] -= 2;
                }
                // Castling rights: any move from or to a corner or the king's square.
                for (i, sq) in [(0, 7), (1, 0), (2, 63), (3, 56)] {
                    if from == sq || to == sq {
                        next.castle[i] = false;
                    }
                }
                if mover.kind == Kind::King {
                    next.castle[2 * us.idx()] = false;
                    next.castle[2 * us.idx() + 1] = false;
                }
            }
            Action::Place { kind, sq } => {
                next.board[sq] = Some(Piece { color: us, kind });
                if self.var.economy() {
                    next.gold[us.idx()] -= kind.price_halves();
                }
                progress = true;
            }
            Action::Promote { sq, kind } => {
                next.board[sq] = Some(Piece { color: us, kind });
                next.gold[us.idx()] -= 2;
                progress = true;
            }
        }
        if !self.var.castling() {
            next.castle = [false; 4];
        }
        next.halfmove = if progress { 0 } else { self.halfmove + 1 };
        if us == Color::Black {
            next.fullmove += 1;
        }
        if self.var == Var::ConquerorGold {
            next.placed[us.idx()] = matches!(action, Action::Place { .. });
        }
        next.ended = self.var.converts()
            && captured.is_some()
            && !next.board.iter().flatten().any(|p| p.color == them && p.kind != Kind::King);
        next.side = them;
        if self.var.economy() {
            next.gold[them.idx()] += 2;
        }
        next
    }

    /// Whether an action leaves the mover's king safe.
    fn is_legal(&self, action: Action) -> bool {
        let next = self.after(action);
        next.king(self.side).is_none_or(|k| !next.attacked(k, self.side.other()))
    }

    /// The legal actions of the position (none in a position ended by conversion).
    pub fn legal(&self) -> Vec<Action> {
        if self.ended {
            return Vec::new();
        }
        self.pseudo().into_iter().filter(|a| self.is_legal(*a)).collect()
    }

    /// Whether an en-passant capture is legal now (what the position text's field shows).
    pub fn ep_capture_legal(&self) -> bool {
        let Some(ep) = self.ep else { return false };
        if self.ended {
            return false;
        }
        [-1, 1].into_iter().any(|df| {
            offset(ep, df, -self.side.forward()).is_some_and(|from| {
                self.is(from, self.side, Kind::Pawn) && {
                    let a = Action::Move { from, to: ep, promo: None };
                    self.captured(a).is_some_and(|(p, _)| p.color != self.side && p.kind == Kind::Pawn)
                        && self.is_legal(a)
                }
            })
        })
    }

    /// FIDE dead positions as lichess judges them (standard only).
    pub fn insufficient_material(&self) -> bool {
        let pieces: Vec<(usize, Piece)> =
            (0..64).filter_map(|s| self.at(s).map(|p| (s, p))).filter(|(_, p)| p.kind != Kind::King).collect();
        if pieces.iter().any(|(_, p)| matches!(p.kind, Kind::Pawn | Kind::Rook | Kind::Queen)) {
            return false;
        }
        let knights = pieces.iter().filter(|(_, p)| p.kind == Kind::Knight).count();
        let bishop_colors: Vec<i32> = pieces
            .iter()
            .filter(|(_, p)| p.kind == Kind::Bishop)
            .map(|(s, _)| (file_of(*s) + rank_of(*s)) % 2)
            .collect();
        if bishop_colors.is_empty() {
            return knights <= 1;
        }
        knights == 0 && bishop_colors.iter().all(|c| *c == bishop_colors[0])
    }
}
