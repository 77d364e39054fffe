//! The chess evaluation, generic over board size and piece table: material by [`PieceKind`],
//! piece-square tables computed from the board's shape, mobility, king safety and pawn
//! structure, blended between middle game and endgame by the material left.

use core::fmt;
use core::marker::PhantomData;

use chessgold_engine::bitboard::BitBoard;
use chessgold_engine::geometry::Geometry;
use chessgold_engine::pieces::{MAX_ROLES, PieceKind};
use chessgold_engine::variant::Bb;
use chessgold_engine::{Color, Position, Square, Variant};

/// The full middle-game phase (all FIDE pieces but pawns on the board).
pub const MAX_PHASE: i32 = 24;

/// The index of the role of `kind` in the piece table of `V`, if it has one.
pub fn role_of_kind<V: Variant>(kind: PieceKind) -> Option<usize> {
    V::PIECES.iter().position(|d| d.kind == kind)
}

/// The squares a piece of `role` and `color` on `from` attacks (could capture on) with
/// `occ` as the blockers.
#[inline]
pub fn attacks<V: Variant>(role: usize, color: Color, from: Square, occ: Bb<V>) -> Bb<V> {
    let t = V::Geo::tables();
    let pt = V::piece_tables();
    let info = V::ROLE_INFO[role];
    let mut att = Bb::<V>::ZERO;
    if info.leap_captures {
        att |= pt.leap_capture(role, color, from);
    }
    if info.orth.captures != 0 {
        let r = t.rook(from, occ);
        att |= if info.orth.captures == 0xF { r } else { r & pt.orth_capture(role, color, from) };
    }
    if info.diag.captures != 0 {
        let b = t.bishop(from, occ);
        att |= if info.diag.captures == 0xF { b } else { b & pt.diag_capture(role, color, from) };
    }
    att
}

/// Material in centipawns (middle game, endgame) by the platform-wide piece identity.
pub const fn kind_value(kind: PieceKind) -> (i32, i32) {
    match kind {
        PieceKind::Pawn => (90, 120),
        PieceKind::Knight => (330, 320),
        PieceKind::Bishop => (345, 350),
        PieceKind::Rook => (480, 560),
        PieceKind::Queen => (1000, 1050),
        PieceKind::King => (0, 0),
        PieceKind::Grunt => (200, 220),
        PieceKind::Goldrook => (560, 620),
        PieceKind::Nitan => (360, 360),
        PieceKind::Goldmitre => (300, 320),
        PieceKind::Goldrider => (700, 760),
        PieceKind::Silverrider => (520, 560),
        PieceKind::Silverbishop => (380, 400),
        PieceKind::Caman => (300, 320),
        PieceKind::Silverwing => (320, 360),
    }
}

/// Contribution of a piece to the game phase.
const fn kind_phase(kind: PieceKind) -> i32 {
    match kind {
        PieceKind::Pawn | PieceKind::King => 0,
        PieceKind::Queen | PieceKind::Goldrider => 4,
        PieceKind::Rook | PieceKind::Goldrook | PieceKind::Silverrider => 2,
        _ => 1,
    }
}

/// Mobility: (squares expected, bonus per square middle game, endgame).
const fn kind_mobility(kind: PieceKind) -> (i32, i32, i32) {
    match kind {
        PieceKind::Pawn | PieceKind::King => (0, 0, 0),
        PieceKind::Knight => (4, 4, 4),
        PieceKind::Bishop => (6, 5, 5),
        PieceKind::Rook => (6, 2, 4),
        PieceKind::Queen => (12, 1, 2),
        // Electrum's fairy pieces: its evaluator counts their mobility itself (by piece, on
        // the squares enemy pawns do not guard).
        PieceKind::Goldrook
        | PieceKind::Nitan
        | PieceKind::Goldmitre
        | PieceKind::Goldrider
        | PieceKind::Silverrider
        | PieceKind::Silverbishop
        | PieceKind::Caman
        | PieceKind::Silverwing => (0, 0, 0),
        PieceKind::Grunt => (5, 3, 3),
    }
}

/// Weight of a piece attacking the squares around the enemy king.
const fn kind_king_attack(kind: PieceKind) -> i32 {
    match kind {
        PieceKind::Pawn | PieceKind::King => 0,
        PieceKind::Queen | PieceKind::Goldrider => 8,
        PieceKind::Rook | PieceKind::Goldrook => 5,
        _ => 3,
    }
}

/// The terms of one evaluation, before blending, so that a variant's evaluator can add its own.
#[derive(Clone, Debug)]
pub struct EvalInfo<B> {
    /// Middle-game score of each colour.
    pub mg: [i32; 2],
    /// Endgame score of each colour.
    pub eg: [i32; 2],
    /// Game phase, 0 (endgame) to `MAX_PHASE` and above.
    pub phase: i32,
    /// Squares each colour attacks.
    pub attacked: [B; 2],
    /// Squares each colour attacks with a pawn.
    pub pawn_attacked: [B; 2],
    /// Each colour's single king, if any.
    pub king: [Option<Square>; 2],
    /// Each colour's material on the board without pawns and kings (middle-game values).
    pub pieces_value: [i32; 2],
    /// Each colour's number of pawns.
    pub pawns: [u32; 2],
    /// Whether a side without pawns and little extra material should be judged drawish.
    pub scale_drawish: bool,
}

impl<B> EvalInfo<B> {
    /// The blended score for `side`.
    pub fn blend(&self, side: Color) -> i32 {
        let us = side.index();
        let them = 1 - us;
        let phase = self.phase.clamp(0, MAX_PHASE);
        let mg = self.mg[us] - self.mg[them];
        let eg = self.eg[us] - self.eg[them];
        let mut score = (mg * phase + eg * (MAX_PHASE - phase)) / MAX_PHASE;
        if self.scale_drawish {
            // Without pawns, a lead of less than a rook rarely wins.
            let stronger = if score > 0 { us } else { them };
            let weaker = 1 - stronger;
            if self.pawns[stronger] == 0 && self.pieces_value[stronger] - self.pieces_value[weaker] < 400 {
                score /= 4;
            }
        }
        score + 12
    }
}

/// The generic chess evaluator of variant `V`.
pub struct ChessEval<V: Variant> {
    kinds: [Option<PieceKind>; MAX_ROLES],
    value: [(i32, i32); MAX_ROLES],
    pst_mg: Vec<i16>,
    pst_eg: Vec<i16>,
    /// Squares ahead of a pawn on its own and the neighbouring files, by colour and square.
    front_span: Vec<Bb<V>>,
    /// Squares next to the king and the king's square, by square.
    king_zone: Vec<Bb<V>>,
    scale_drawish: bool,
    _v: PhantomData<V>,
}

impl<V: Variant> fmt::Debug for ChessEval<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChessEval").field("variant", &V::ID).finish_non_exhaustive()
    }
}

impl<V: Variant> Default for ChessEval<V> {
    fn default() -> Self {
        ChessEval::new()
    }
}

impl<V: Variant> ChessEval<V> {
    /// Builds the tables for the board and pieces of `V`.
    pub fn new() -> ChessEval<V> {
        let n = V::Geo::SQUARES;
        let files = V::Geo::FILES as i32;
        let ranks = V::Geo::RANKS as i32;
        let t = V::Geo::tables();
        let mut kinds = [None; MAX_ROLES];
        let mut value = [(0, 0); MAX_ROLES];
        for (i, d) in V::PIECES.iter().enumerate().take(MAX_ROLES) {
            kinds[i] = Some(d.kind);
            value[i] = kind_value(d.kind);
        }
        let mut pst_mg = vec![0i16; 2 * MAX_ROLES * n];
        let mut pst_eg = vec![0i16; 2 * MAX_ROLES * n];
        let mut front_span = vec![Bb::<V>::ZERO; 2 * n];
        let mut king_zone = vec![Bb::<V>::ZERO; n];
        for color in Color::ALL {
            for sq in 0..n {
                let s = Square::new(sq as u8);
                let f = V::Geo::file_of(s) as i32;
                let rr = V::Geo::relative_rank(s, color == Color::White) as i32;
                // Distance ring from the centre: 0 in the middle, larger towards the edges.
                let df = (2 * f - (files - 1)).abs();
                let dr = (2 * (V::Geo::rank_of(s) as i32) - (ranks - 1)).abs();
                let ring = (df.max(dr) - 1).max(0) / 2;
                let centre = (df + dr) / 2;
                for (role, kind) in kinds.iter().enumerate() {
                    let Some(kind) = kind else { continue };
                    let (mg, eg) = square_bonus(*kind, f, rr, ring, centre, files, ranks);
                    let i = (color.index() * MAX_ROLES + role) * n + sq;
                    pst_mg[i] = mg as i16;
                    pst_eg[i] = eg as i16;
                }
                let mut span = Bb::<V>::ZERO;
                for r in 0..ranks {
                    let ahead = if color == Color::White {
                        r > V::Geo::rank_of(s) as i32
                    } else {
                        r < V::Geo::rank_of(s) as i32
                    };
                    if ahead {
                        for ff in (f - 1).max(0)..=(f + 1).min(files - 1) {
                            if let Some(x) = V::Geo::square(ff, r) {
                                span |= Bb::<V>::from_square(x);
                            }
                        }
                    }
                }
                front_span[color.index() * n + sq] = span;
                if color == Color::White {
                    let mut zone = Bb::<V>::from_square(s);
                    for dx in -1..=1 {
                        for dy in -1..=1 {
                            if let Some(x) = V::Geo::square(f + dx, V::Geo::rank_of(s) as i32 + dy) {
                                zone |= Bb::<V>::from_square(x);
                            }
                        }
                    }
                    king_zone[sq] = zone & t.all;
                }
            }
        }
        ChessEval {
            kinds,
            value,
            pst_mg,
            pst_eg,
            front_span,
            king_zone,
            scale_drawish: !V::ECONOMY && !V::has_placements() && !V::CONVERSION,
            _v: PhantomData,
        }
    }

    /// The middle-game value of a role.
    #[inline]
    pub fn value_mg(&self, role: usize) -> i32 {
        self.value.get(role).map_or(0, |v| v.0)
    }

    /// The piece identity of a role.
    #[inline]
    pub fn kind(&self, role: usize) -> Option<PieceKind> {
        self.kinds.get(role).copied().flatten()
    }

    /// The squares next to `sq` and `sq` itself.
    #[inline]
    pub fn king_zone(&self, sq: Square) -> Bb<V> {
        self.king_zone[sq.idx()]
    }

    /// Computes every term of the evaluation; `extra_phase` adds to the material phase (the
    /// gold modes count the gold that can still become pieces).
    pub fn breakdown(&self, pos: &Position<V>, extra_phase: i32) -> EvalInfo<Bb<V>> {
        let board = pos.board();
        let n = V::Geo::SQUARES;
        let occ = pos.occupied();
        let pawn_role = V::PAWN;
        let king_role = V::KING;
        let mut info = EvalInfo {
            mg: [0; 2],
            eg: [0; 2],
            phase: extra_phase,
            attacked: [Bb::<V>::ZERO; 2],
            pawn_attacked: [Bb::<V>::ZERO; 2],
            king: [pos.king(Color::White), pos.king(Color::Black)],
            pieces_value: [0; 2],
            pawns: [0; 2],
            scale_drawish: self.scale_drawish,
        };
        let zones = info.king.map(|k| k.map_or(Bb::<V>::ZERO, |k| self.king_zone[k.idx()]));
        let mut king_attackers = [0i32; 2];
        let mut king_attack_weight = [0i32; 2];
        let mut bishops = [0u32; 2];
        let t = V::Geo::tables();
        for color in Color::ALL {
            let c = color.index();
            let own = board.by_color(color);
            let enemy_zone = zones[1 - c];
            for (role, kind) in self.kinds.iter().enumerate() {
                let Some(kind) = *kind else { continue };
                let pieces = board.pieces(color, role);
                if pieces.is_zero() {
                    continue;
                }
                let (vm, ve) = self.value[role];
                let (mob_base, mob_mg, mob_eg) = kind_mobility(kind);
                let ka = kind_king_attack(kind);
                for sq in pieces.squares() {
                    let i = (c * MAX_ROLES + role) * n + sq.idx();
                    info.mg[c] += vm + i32::from(self.pst_mg[i]);
                    info.eg[c] += ve + i32::from(self.pst_eg[i]);
                    info.phase += kind_phase(kind);
                    let att = attacks::<V>(role, color, sq, occ);
                    info.attacked[c] |= att;
                    if role == pawn_role {
                        info.pawn_attacked[c] |= att;
                        info.pawns[c] += 1;
                        continue;
                    }
                    if role == king_role {
                        continue;
                    }
                    info.pieces_value[c] += vm;
                    if kind == PieceKind::Bishop {
                        bishops[c] += 1;
                    }
                    if mob_mg != 0 || mob_eg != 0 {
                        let mob = (att & !own).count() as i32 - mob_base;
                        info.mg[c] += mob * mob_mg;
                        info.eg[c] += mob * mob_eg;
                    }
                    let near = (att & enemy_zone).count() as i32;
                    if near > 0 && ka > 0 {
                        king_attackers[c] += 1;
                        king_attack_weight[c] += ka * near;
                    }
                    if kind == PieceKind::Rook && pawn_role < MAX_ROLES {
                        let file = t.file[V::Geo::file_of(sq) as usize];
                        let pawns = board.by_role(pawn_role) & file;
                        if pawns.is_zero() {
                            info.mg[c] += 20;
                            info.eg[c] += 8;
                        } else if (pawns & own).is_zero() {
                            info.mg[c] += 10;
                        }
                    }
                }
            }
            if bishops[c] >= 2 {
                info.mg[c] += 25;
                info.eg[c] += 45;
            }
        }
        // King safety: many pieces aiming at the squares around the king.
        const SCALE: [i32; 8] = [0, 0, 50, 75, 88, 94, 97, 99];
        for c in 0..2 {
            let attackers = king_attackers[c].min(7) as usize;
            let danger = king_attack_weight[c] * king_attack_weight[c] / 4 * SCALE[attackers] / 100;
            info.mg[c] += danger.min(500);
        }
        if pawn_role < MAX_ROLES {
            self.pawn_structure(pos, &mut info);
        }
        info
    }

    fn pawn_structure(&self, pos: &Position<V>, info: &mut EvalInfo<Bb<V>>) {
        let board = pos.board();
        let t = V::Geo::tables();
        let n = V::Geo::SQUARES;
        let files = V::Geo::FILES as usize;
        let last = V::Geo::RANKS as i32 - 1;
        for color in Color::ALL {
            let c = color.index();
            let ours = board.pieces(color, V::PAWN);
            let theirs = board.pieces(!color, V::PAWN);
            for sq in ours.squares() {
                let f = V::Geo::file_of(sq) as usize;
                let rr = V::Geo::relative_rank(sq, color == Color::White) as i32;
                let file = t.file[f];
                let neighbours = if f > 0 { t.file[f - 1] } else { Bb::<V>::ZERO }
                    | if f + 1 < files { t.file[f + 1] } else { Bb::<V>::ZERO };
                if (ours & neighbours).is_zero() {
                    info.mg[c] -= 10;
                    info.eg[c] -= 15;
                }
                if (ours & file).more_than_one() {
                    info.mg[c] -= 6;
                    info.eg[c] -= 12;
                }
                if rr < last && (theirs & self.front_span[c * n + sq.idx()]).is_zero() {
                    // Passed: a bonus growing with the square of its advance.
                    let adv = (rr - 1).max(0);
                    let span = (last - 1).max(1);
                    info.mg[c] += 5 + 60 * adv * adv / (span * span);
                    info.eg[c] += 10 + 150 * adv * adv / (span * span);
                    // A passed pawn whose path is blocked is worth less.
                    let ahead = if color == Color::White {
                        V::Geo::square(f as i32, V::Geo::rank_of(sq) as i32 + 1)
                    } else {
                        V::Geo::square(f as i32, V::Geo::rank_of(sq) as i32 - 1)
                    };
                    if ahead.is_some_and(|a| board.piece_at(a).is_some_and(|p| p.color != color)) {
                        info.eg[c] -= 20 * adv / span.max(1);
                    }
                }
            }
            // Pawn shield in front of a king still near its first ranks.
            if let Some(k) = info.king[c] {
                let rr = V::Geo::relative_rank(k, color == Color::White);
                if rr <= 1 {
                    let count = (ours & self.king_zone_ahead(k, color)).count().min(3) as i32;
                    info.mg[c] += 12 * count;
                }
            }
        }
    }

    /// Squares up to two ranks ahead of the king.
    fn king_zone_ahead(&self, k: Square, color: Color) -> Bb<V> {
        let f = V::Geo::file_of(k) as i32;
        let r = V::Geo::rank_of(k) as i32;
        let dir = if color == Color::White { 1 } else { -1 };
        let mut out = Bb::<V>::ZERO;
        for dy in 1..=2 {
            for dx in -1..=1 {
                if let Some(s) = V::Geo::square(f + dx, r + dy * dir) {
                    out |= Bb::<V>::from_square(s);
                }
            }
        }
        out
    }

    /// The score of `pos` for the side to move.
    pub fn evaluate(&self, pos: &Position<V>) -> i32 {
        self.breakdown(pos, 0).blend(pos.turn())
    }
}

/// Piece-square bonus (middle game, endgame) of `kind` on file `f`, relative rank `rr`.
fn square_bonus(kind: PieceKind, f: i32, rr: i32, ring: i32, centre: i32, files: i32, ranks: i32) -> (i32, i32) {
    let edge_ring = ((files.max(ranks) - 1) / 2).max(1);
    // 1 in the centre ring falling to 0 at the edge, scaled by 16.
    let central = 16 * (edge_ring - ring) / edge_ring;
    match kind {
        PieceKind::Pawn => {
            let centre_file = f == files / 2 || f == (files - 1) / 2;
            let mg = 4 * (rr - 1).max(0) + if centre_file && (2..=4).contains(&rr) { 12 } else { 0 };
            let eg = 8 * (rr - 1).max(0);
            (mg, eg)
        }
        PieceKind::Knight => (2 * central - 18 + if rr == 0 { -8 } else { 0 }, 2 * central - 16),
        PieceKind::Bishop => (central - 8 + if rr == 0 { -6 } else { 0 }, central - 8),
        PieceKind::Rook => (if rr == ranks - 2 { 18 } else { 0 } + if centre <= 2 { 2 } else { 0 }, 0),
        PieceKind::Queen => (central / 2 - 4, central - 8),
        PieceKind::King => {
            let wing = f <= 2 || f >= files - 3;
            let mg = match rr {
                0 => {
                    if wing {
                        20
                    } else {
                        0
                    }
                }
                1 => -10,
                _ => -20 - 15 * rr,
            };
            (mg, 2 * central - 16)
        }
        _ => (central - 8, central - 8),
    }
}
