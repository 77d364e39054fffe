//! Movement, legality and the effect of actions.

use super::{Action, Color, Kind, Outcome, Piece, Pos, Var};

/// What a step or slide may do at its target.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Both,
    MoveOnly,
    CaptureOnly,
}

/// One direction of movement: file step, rank step towards the opponent, slide or single step.
type Leg = (i32, i32, bool, Mode);

const B: Mode = Mode::Both;

const KING: &[Leg] = &[
    (1, 0, false, B),
    (-1, 0, false, B),
    (0, 1, false, B),
    (0, -1, false, B),
    (1, 1, false, B),
    (1, -1, false, B),
    (-1, 1, false, B),
    (-1, -1, false, B),
];
const KNIGHT: &[Leg] = &[
    (1, 2, false, B),
    (2, 1, false, B),
    (2, -1, false, B),
    (1, -2, false, B),
    (-1, -2, false, B),
    (-2, -1, false, B),
    (-2, 1, false, B),
    (-1, 2, false, B),
];
const BISHOP: &[Leg] = &[(1, 1, true, B), (1, -1, true, B), (-1, 1, true, B), (-1, -1, true, B)];
const ROOK: &[Leg] = &[(1, 0, true, B), (-1, 0, true, B), (0, 1, true, B), (0, -1, true, B)];
const QUEEN: &[Leg] = &[
    (1, 0, true, B),
    (-1, 0, true, B),
    (0, 1, true, B),
    (0, -1, true, B),
    (1, 1, true, B),
    (1, -1, true, B),
    (-1, 1, true, B),
    (-1, -1, true, B),
];
/// Grunt: one step straight forward or back without capturing; captures one step diagonally.
const GRUNT: &[Leg] = &[
    (0, 1, false, Mode::MoveOnly),
    (0, -1, false, Mode::MoveOnly),
    (1, 1, false, Mode::CaptureOnly),
    (1, -1, false, Mode::CaptureOnly),
    (-1, 1, false, Mode::CaptureOnly),
    (-1, -1, false, Mode::CaptureOnly),
];
/// Pawn single step and captures (double step, en passant, promotion are added by hand).
const PAWN: &[Leg] =
    &[(0, 1, false, Mode::MoveOnly), (1, 1, false, Mode::CaptureOnly), (-1, 1, false, Mode::CaptureOnly)];
/// Class Warfare: a proletarian pawn on rank 1 moves or captures sideways.
const PAWN_ON_RANK_ONE: &[Leg] = &[(1, 0, false, B), (-1, 0, false, B)];
/// Goldrook RfF.
const GOLDROOK: &[Leg] =
    &[(1, 0, true, B), (-1, 0, true, B), (0, 1, true, B), (0, -1, true, B), (1, 1, false, B), (-1, 1, false, B)];
/// Nitan NffC.
const NITAN: &[Leg] = &[
    (1, 2, false, B),
    (2, 1, false, B),
    (2, -1, false, B),
    (1, -2, false, B),
    (-1, -2, false, B),
    (-2, -1, false, B),
    (-2, 1, false, B),
    (-1, 2, false, B),
    (1, 3, false, B),
    (-1, 3, false, B),
];
/// Goldmitre fBW.
const GOLDMITRE: &[Leg] =
    &[(1, 1, true, B), (-1, 1, true, B), (1, 0, false, B), (-1, 0, false, B), (0, 1, false, B), (0, -1, false, B)];
/// Goldrider RfB.
const GOLDRIDER: &[Leg] =
    &[(1, 0, true, B), (-1, 0, true, B), (0, 1, true, B), (0, -1, true, B), (1, 1, true, B), (-1, 1, true, B)];
/// Silverrider BfR.
const SILVERRIDER: &[Leg] = &[(1, 1, true, B), (1, -1, true, B), (-1, 1, true, B), (-1, -1, true, B), (0, 1, true, B)];
/// Silverbishop BfW.
const SILVERBISHOP: &[Leg] =
    &[(1, 1, true, B), (1, -1, true, B), (-1, 1, true, B), (-1, -1, true, B), (0, 1, false, B)];
/// Caman CffN.
const CAMAN: &[Leg] = &[
    (1, 3, false, B),
    (3, 1, false, B),
    (3, -1, false, B),
    (1, -3, false, B),
    (-1, -3, false, B),
    (-3, -1, false, B),
    (-3, 1, false, B),
    (-1, 3, false, B),
    (1, 2, false, B),
    (-1, 2, false, B),
];
/// Silverwing fRF.
const SILVERWING: &[Leg] =
    &[(0, 1, true, B), (1, 1, false, B), (1, -1, false, B), (-1, 1, false, B), (-1, -1, false, B)];

/// Class Warfare factory files (rank 4) of each bourgeois type.
fn factory_files(kind: Kind) -> Option<[i32; 2]> {
    match kind {
        Kind::Rook => Some([0, 7]),
        Kind::Knight => Some([1, 6]),
        Kind::Bishop => Some([2, 5]),
        Kind::Queen => Some([3, 4]),
        _ => None,
    }
}

/// Grunt: XP earned for capturing a piece of this type.
fn capture_xp(kind: Kind) -> u32 {
    match kind {
        Kind::Pawn | Kind::Grunt => 2,
        Kind::Bishop | Kind::Knight => 3,
        Kind::Rook => 4,
        Kind::Queen => 6,
        _ => 0,
    }
}

/// Grunt: the ladder, with its XP cost.
fn ladder(kind: Kind) -> &'static [(Kind, u32)] {
    match kind {
        Kind::Pawn => &[(Kind::Grunt, 3)],
        Kind::Grunt => &[(Kind::Bishop, 6), (Kind::Knight, 6)],
        Kind::Bishop | Kind::Knight => &[(Kind::Rook, 6)],
        Kind::Rook => &[(Kind::Queen, 9)],
        _ => &[],
    }
}

const MUSTER_COST: u32 = 5;
const MUSTER_LIMIT: usize = 10;

impl Pos {
    fn coords(&self, sq: usize) -> (i32, i32) {
        let files = self.var.files();
        (sq as i32 % files, sq as i32 / files)
    }

    fn at(&self, file: i32, rank: i32) -> Option<usize> {
        let var = self.var;
        if file < 0 || rank < 0 || file >= var.files() || rank >= var.ranks() {
            None
        } else {
            Some((rank * var.files() + file) as usize)
        }
    }

    fn last_rank(&self, color: Color) -> i32 {
        if color == Color::White { self.var.ranks() - 1 } else { 0 }
    }

    pub fn king(&self, color: Color) -> Option<usize> {
        self.board.iter().position(|p| *p == Some(Piece { color, kind: Kind::King }))
    }

    /// Class Warfare: whether a bourgeois type moves as in chess (both factories occupied).
    fn factories_full(&self, kind: Kind) -> bool {
        match factory_files(kind) {
            Some(files) => files.iter().all(|&f| self.at(f, 3).is_some_and(|sq| self.board[sq].is_some())),
            None => true,
        }
    }

    /// How the piece on `sq` moves and captures (without pawn specials).
    fn legs(&self, sq: usize, piece: Piece) -> &'static [Leg] {
        match (self.var, piece.kind) {
            (Var::ClassWarfare, Kind::Pawn) => {
                if piece.color == Color::Black && self.coords(sq).1 == 0 {
                    PAWN_ON_RANK_ONE
                } else {
                    PAWN
                }
            }
            (Var::ClassWarfare, Kind::King) => KING,
            (Var::ClassWarfare, kind) if !self.factories_full(kind) => PAWN,
            (_, Kind::Pawn) => PAWN,
            (_, Kind::King) => KING,
            (_, Kind::Knight) => KNIGHT,
            (_, Kind::Bishop) => BISHOP,
            (_, Kind::Rook) => ROOK,
            (_, Kind::Queen) => QUEEN,
            (_, Kind::Grunt) => GRUNT,
            (_, Kind::Goldrook) => GOLDROOK,
            (_, Kind::Nitan) => NITAN,
            (_, Kind::Goldmitre) => GOLDMITRE,
            (_, Kind::Goldrider) => GOLDRIDER,
            (_, Kind::Silverrider) => SILVERRIDER,
            (_, Kind::Silverbishop) => SILVERBISHOP,
            (_, Kind::Caman) => CAMAN,
            (_, Kind::Silverwing) => SILVERWING,
        }
    }

    /// Walks every leg of the piece on `sq`: calls `visit(target, occupant, mode)` for each square
    /// reached, stopping slides at the first occupied square.
    fn walk(&self, sq: usize, piece: Piece, mut visit: impl FnMut(usize, Option<Piece>, Mode)) {
        let (f, r) = self.coords(sq);
        let fwd = piece.color.forward();
        for &(dx, dy, slide, mode) in self.legs(sq, piece) {
            let (mut tf, mut tr) = (f + dx, r + dy * fwd);
            while let Some(t) = self.at(tf, tr) {
                let occupant = self.board[t];
                visit(t, occupant, mode);
                if occupant.is_some() || !slide {
                    break;
                }
                tf += dx;
                tr += dy * fwd;
            }
        }
    }

    /// Whether a piece of `by` attacks `sq` (could capture there if an enemy stood on it).
    pub fn attacked(&self, sq: usize, by: Color) -> bool {
        for (from, p) in self.board.iter().enumerate() {
            let Some(p) = *p else { continue };
            if p.color != by {
                continue;
            }
            let mut hit = false;
            self.walk(from, p, |t, _, mode| {
                if t == sq && mode != Mode::MoveOnly {
                    hit = true;
                }
            });
            if hit {
                return true;
            }
        }
        false
    }

    pub fn in_check(&self) -> bool {
        self.var.has_check() && self.king(self.side).is_some_and(|k| self.attacked(k, self.side.other()))
    }

    /// Both sides have nothing but their king.
    pub fn bare_kings(&self) -> bool {
        self.board.iter().flatten().all(|p| p.kind == Kind::King)
    }

    /// A game end decided by the position alone (Class Warfare).
    pub fn variant_end(&self) -> Option<Outcome> {
        if self.var != Var::ClassWarfare {
            return None;
        }
        if self.king(Color::White).is_none() {
            return Some((Some(Color::Black), "king-captured"));
        }
        if !self.board.iter().flatten().any(|p| p.color == Color::Black && p.kind == Kind::Pawn) {
            return Some((Some(Color::White), "no-pawns"));
        }
        if self.fullmove >= 51 {
            return Some((Some(Color::White), "move-limit"));
        }
        None
    }

    fn pawn_start_rank(&self, color: Color) -> i32 {
        if color == Color::White { 1 } else { self.var.ranks() - 2 }
    }

    /// Electrum's promotion choices on a last-rank square of file `file`.
    fn electrum_promotions(color: Color, file: i32) -> Vec<Kind> {
        let (left, right) = if color == Color::White { (Kind::SILVER, Kind::GOLD) } else { (Kind::GOLD, Kind::SILVER) };
        match file {
            0..=3 => left.to_vec(),
            4 => Kind::GOLD.iter().chain(Kind::SILVER.iter()).copied().collect(),
            _ => right.to_vec(),
        }
    }

    /// Actions that follow the movement rules, before the own-king test.
    fn pseudo(&self) -> Vec<Action> {
        let mut out = Vec::new();
        let us = self.side;
        for (from, p) in self.board.iter().enumerate() {
            let Some(p) = *p else { continue };
            if p.color != us {
                continue;
            }
            let pawn_specials = p.kind == Kind::Pawn && self.var != Var::ClassWarfare;
            let mut targets = Vec::new();
            self.walk(from, p, |t, occupant, mode| match occupant {
                None if mode != Mode::CaptureOnly => targets.push(t),
                Some(o) if o.color != us && mode != Mode::MoveOnly => targets.push(t),
                None if pawn_specials && Some(t) == self.ep && mode == Mode::CaptureOnly => targets.push(t),
                _ => {}
            });
            if pawn_specials {
                let (f, r) = self.coords(from);
                let fwd = us.forward();
                if r == self.pawn_start_rank(us)
                    && let (Some(one), Some(two)) = (self.at(f, r + fwd), self.at(f, r + 2 * fwd))
                    && self.board[one].is_none()
                    && self.board[two].is_none()
                {
                    targets.push(two);
                }
            }
            for to in targets {
                let (tf, tr) = self.coords(to);
                if self.var == Var::Electrum && p.kind == Kind::Pawn && tr == self.last_rank(us) {
                    for k in Pos::electrum_promotions(us, tf) {
                        out.push(Action::Move { from, to, promo: Some(k) });
                    }
                } else {
                    out.push(Action::Move { from, to, promo: None });
                }
            }
        }
        if self.var == Var::Electrum {
            self.castlings(&mut out);
        }
        if self.var == Var::Grunt {
            self.grunt_specials(&mut out);
        }
        out
    }

    /// Electrum: Ke1-c1 with Ra1-d1, Ke9-g9 with Ri9-f9.
    fn castlings(&self, out: &mut Vec<Action>) {
        let them = self.side.other();
        let (right, king, between, safe): (bool, usize, [usize; 3], [usize; 3]) = match self.side {
            Color::White => (self.castle[0], 4, [1, 2, 3], [4, 3, 2]),
            Color::Black => (self.castle[1], 76, [77, 78, 79], [76, 77, 78]),
        };
        if !right || between.iter().any(|&s| self.board[s].is_some()) {
            return;
        }
        if safe.iter().any(|&s| self.attacked(s, them)) {
            return;
        }
        let to = if self.side == Color::White { 2 } else { 78 };
        out.push(Action::Move { from: king, to, promo: None });
    }

    /// Grunt: promotions in place and musters.
    fn grunt_specials(&self, out: &mut Vec<Action>) {
        let us = self.side;
        let xp = self.xp[us.idx()];
        if !self.in_check() {
            for (sq, p) in self.board.iter().enumerate() {
                let Some(p) = *p else { continue };
                if p.color != us {
                    continue;
                }
                for &(kind, cost) in ladder(p.kind) {
                    if xp >= cost {
                        out.push(Action::Promote { sq, kind });
                    }
                }
            }
        }
        let count = self.board.iter().flatten().filter(|p| p.color == us).count();
        if xp >= MUSTER_COST
            && count < MUSTER_LIMIT
            && let Some(k) = self.king(us)
        {
            let (kf, kr) = self.coords(k);
            for dx in -1..=1 {
                for dy in -1..=1 {
                    if let Some(sq) = self.at(kf + dx, kr + dy)
                        && (dx, dy) != (0, 0)
                        && self.board[sq].is_none()
                    {
                        out.push(Action::Muster { sq });
                    }
                }
            }
        }
    }

    /// The legal actions, unsorted.
    pub fn legal(&self) -> Vec<Action> {
        let moves = self.pseudo();
        if !self.var.has_check() {
            return moves;
        }
        moves
            .into_iter()
            .filter(|&a| {
                let next = self.after(a);
                match next.king(self.side) {
                    Some(k) => !next.attacked(k, self.side.other()),
                    None => true,
                }
            })
            .collect()
    }

    /// Whether an en passant capture onto the recorded square is legal.
    pub fn en_passant_legal(&self) -> bool {
        let Some(ep) = self.ep else { return false };
        self.legal().into_iter().any(|a| match a {
            Action::Move { from, to, .. } => {
                to == ep
                    && self.board[to].is_none()
                    && self.board[from].is_some_and(|p| p.kind == Kind::Pawn)
                    && self.coords(from).0 != self.coords(to).0
            }
            _ => false,
        })
    }

    /// The piece an action captures and the square it stood on.
    pub fn captured(&self, action: Action) -> Option<(Piece, usize)> {
        let Action::Move { from, to, .. } = action else { return None };
        if let Some(p) = self.board[to] {
            return Some((p, to));
        }
        let mover = self.board[from]?;
        if mover.kind == Kind::Pawn && self.var != Var::ClassWarfare && Some(to) == self.ep {
            let (tf, tr) = self.coords(to);
            if tf != self.coords(from).0 {
                let sq = self.at(tf, tr - mover.color.forward())?;
                return self.board[sq].map(|p| (p, sq));
            }
        }
        None
    }

    /// The position after an action (assumed pseudo-legal).
    pub fn after(&self, action: Action) -> Pos {
        let mut next = self.clone();
        let us = self.side;
        let them = us.other();
        next.ep = None;
        next.halfmove += 1;
        match action {
            Action::Move { from, to, promo } => {
                let mover = self.board[from].unwrap_or_else(|| panic!("no piece on {from}"));
                let captured = self.captured(action);
                next.board[from] = None;
                if let Some((_, sq)) = captured {
                    next.board[sq] = None;
                }
                next.board[to] = Some(Piece { color: us, kind: promo.unwrap_or(mover.kind) });
                // Class Warfare has no draw and so no progress rule of its own; the engine counts
                // plies since the last capture there (pawn moves do not reset it). Mirrored, and
                // reported as an open point.
                let pawn_resets = mover.kind == Kind::Pawn && self.var != Var::ClassWarfare;
                if pawn_resets || captured.is_some() {
                    next.halfmove = 0;
                }
                let (ff, fr) = self.coords(from);
                let (tf, tr) = self.coords(to);
                if mover.kind == Kind::Pawn && self.var != Var::ClassWarfare && (tr - fr).abs() == 2 {
                    next.ep = self.at(ff, fr + us.forward());
                }
                if self.var == Var::Electrum {
                    if mover.kind == Kind::King && (tf - ff).abs() == 2 {
                        let rook_from = if tf < ff { self.at(0, fr) } else { self.at(self.var.files() - 1, fr) };
                        let rook_from = rook_from.unwrap_or_else(|| panic!("castling rook"));
                        next.board[rook_from] = None;
                        next.board[(from + to) / 2] = Some(Piece { color: us, kind: Kind::Goldrook });
                    }
                    for sq in [from, to] {
                        if sq == 0 || sq == 4 {
                            next.castle[0] = false;
                        }
                        if sq == 76 || sq == 80 {
                            next.castle[1] = false;
                        }
                    }
                }
                if let Some((piece, _)) = captured {
                    if self.var == Var::Grunt {
                        next.xp[us.idx()] += capture_xp(piece.kind);
                        next.xp[them.idx()] += 1;
                    }
                    if self.var == Var::ClassWarfare && piece.kind == Kind::Pawn {
                        let factory = self.at(tf, 3).unwrap_or_else(|| panic!("factory"));
                        if next.board[factory].is_none() {
                            next.board[factory] = Some(piece);
                        }
                    }
                }
            }
            Action::Promote { sq, kind } => {
                let p = self.board[sq].unwrap_or_else(|| panic!("no piece to promote"));
                let cost = ladder(p.kind).iter().find(|(k, _)| *k == kind).map_or(0, |(_, c)| *c);
                next.xp[us.idx()] -= cost;
                next.board[sq] = Some(Piece { color: us, kind });
                next.halfmove = 0;
            }
            Action::Muster { sq } => {
                next.xp[us.idx()] -= MUSTER_COST;
                next.board[sq] = Some(Piece { color: us, kind: Kind::Grunt });
                next.halfmove = 0;
            }
        }
        if us == Color::Black {
            next.fullmove += 1;
        }
        next.side = them;
        next
    }
}
