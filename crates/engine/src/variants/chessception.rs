//! `chessception`: Chessception. FIDE movement, but a capture is an attack: pieces have hit
//! points, attacks deal damage (with area damage for bishops, rooks and queens), pawns strike
//! back, knights stack an offensive aura and the king shields the pieces around it. There is no
//! check: a king at 0 HP loses.

use crate::action::{Move, MoveKind, MoveList};
use crate::bitboard::BitBoard;
use crate::geometry::{Board8x8, Geometry};
use crate::movegen::pseudo_legal_moves;
use crate::outcome::{EndReason, Outcome};
use crate::pieces::{FIDE_PIECES, Piece, PieceDef, Role};
use crate::position::{Position, PositionError, mix};
use crate::square::{Color, Square};
use crate::state::{DamageView, HpView, VariantState};
use crate::variant::{CastleDef, Effects, FIDE_CASTLES, Promotions, Variant, role_mask};

use super::piece_tables;
use super::standard::role::{BISHOP, KNIGHT, PAWN, QUEEN, ROOK};

const KING: usize = 5;
/// Hit points by role (P N B R Q K).
pub const MAX_HP: [u8; 6] = [2, 4, 4, 4, 4, 4];
/// Damage dealt by an attack, by role.
pub const DAMAGE: [u8; 6] = [2, 2, 2, 2, 4, 2];
/// Damage of a pawn's counter-attack.
pub const COUNTER_DAMAGE: u8 = 2;
/// Plies in all after which the game is drawn.
pub const PLY_LIMIT: u32 = 150;
/// Pieces of each role at the start (for promotion choices).
const START_COUNT: [u32; 6] = [8, 2, 2, 2, 1, 1];

/// The Chessception part of the position: hit points and shields, plus trackers of the
/// king-repeat rule (which, like repetition, start afresh from a loaded position text).
#[derive(Clone, Copy, Debug)]
pub struct Combat {
    /// Hit points by square (0 where no piece stands).
    pub hp: [u8; 64],
    /// Shielded pieces other than kings (kings are always shielded).
    pub shields: u64,
    /// Plies in a row, most recent last, in which no piece lost HP.
    pub quiet_plies: u32,
    /// For each colour, its last five moves: the destination of a king move, or 255.
    pub king_moves: [[u8; 5]; 2],
    /// Damage dealt by the last action, as (square, amount), for display.
    pub damage: [(u8, u8); 24],
    /// Entries used in `damage`.
    pub damage_len: u8,
}

impl Default for Combat {
    fn default() -> Combat {
        Combat {
            hp: [0; 64],
            shields: 0,
            quiet_plies: 0,
            king_moves: [[255; 5]; 2],
            damage: [(0, 0); 24],
            damage_len: 0,
        }
    }
}

impl PartialEq for Combat {
    fn eq(&self, o: &Combat) -> bool {
        self.hp == o.hp && self.shields == o.shields
    }
}

impl Eq for Combat {}

/// Chessception.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Chessception;

type Pos = Position<Chessception>;

/// What an attack does, computed before it is applied.
#[derive(Clone, Copy, Debug)]
struct Resolution {
    hp: [u8; 64],
    /// Enemy pieces killed.
    kills: u64,
    /// The attacker dies (counter-attacks).
    attacker_dead: bool,
    /// Whether any piece lost HP.
    any_damage: bool,
    damage: [(u8, u8); 24],
    damage_len: u8,
}

fn neighbours(sq: Square) -> u64 {
    Chessception::piece_tables().leap_capture(KING, Color::White, sq)
}

fn at(f: i32, r: i32) -> Option<Square> {
    Board8x8::square(f, r)
}

/// The squares that take area damage from an attack by `role` moving `from` -> `target`.
fn area_squares(role: usize, from: Square, target: Square) -> u64 {
    let (tf, tr) = (Board8x8::file_of(target) as i32, Board8x8::rank_of(target) as i32);
    let dx = (tf - Board8x8::file_of(from) as i32).signum();
    let dy = (tr - Board8x8::rank_of(from) as i32).signum();
    let squares: Vec<Option<Square>> = match role {
        BISHOP => vec![at(tf + 1, tr + 1), at(tf - 1, tr + 1), at(tf + 1, tr - 1), at(tf - 1, tr - 1)],
        ROOK => {
            if dx == 0 {
                vec![at(tf + 1, tr), at(tf - 1, tr)]
            } else {
                vec![at(tf, tr + 1), at(tf, tr - 1)]
            }
        }
        QUEEN => {
            if dx == 0 || dy == 0 {
                let (bf, br) = (tf + dx, tr + dy);
                let (px, py) = (dy.abs(), dx.abs());
                vec![at(bf, br), at(bf + px, br + py), at(bf - px, br - py)]
            } else {
                vec![at(tf + dx, tr + dy), at(tf + dx, tr), at(tf, tr + dy)]
            }
        }
        _ => Vec::new(),
    };
    squares.into_iter().flatten().fold(0, |acc, s| acc | u64::from_square(s))
}

fn is_shielded(pos: &Pos, sq: Square) -> bool {
    pos.board().role_at(sq).is_some_and(|r| r.idx() == KING) || pos.ext().shields.contains(sq)
}

/// The square of the piece an attack hits (the passed pawn for en passant).
fn target_of(pos: &Pos, mv: Move) -> Square {
    if mv.kind == MoveKind::EnPassant { pos.ep_victim(mv.from, mv.to) } else { mv.to }
}

fn is_attack(pos: &Pos, mv: Move) -> bool {
    match mv.kind {
        MoveKind::EnPassant => true,
        MoveKind::Normal | MoveKind::Promotion => pos.board().piece_at(mv.to).is_some_and(|p| p.color != pos.turn()),
        _ => false,
    }
}

fn resolve(pos: &Pos, mv: Move) -> Resolution {
    let us = pos.turn();
    let board = pos.board();
    let mut res = Resolution {
        hp: pos.ext().hp,
        kills: 0,
        attacker_dead: false,
        any_damage: false,
        damage: [(0, 0); 24],
        damage_len: 0,
    };
    let Some(attacker) = board.piece_at(mv.from) else { return res };
    let role = attacker.role.idx();
    let target = target_of(pos, mv);
    // Offensive aura: one stack per friendly knight within one square of the origin.
    let around = neighbours(mv.from) | u64::from_square(mv.from);
    let stacks = (around & board.pieces(us, KNIGHT)).count();
    let mult = 1u32 << stacks.min(8);
    let mut damaged_pawns = 0u64;
    let mut hit = |res: &mut Resolution, sq: Square, base: u32| {
        let mut amount = base * mult;
        if is_shielded(pos, sq) {
            amount /= 2;
        }
        let before = res.hp[sq.idx()];
        let after = before.saturating_sub(amount.min(255) as u8);
        res.hp[sq.idx()] = after;
        if before > after {
            res.any_damage = true;
            if (res.damage_len as usize) < res.damage.len() {
                res.damage[res.damage_len as usize] = (sq.index(), before - after);
                res.damage_len += 1;
            }
            if board.role_at(sq).is_some_and(|r| r.idx() == PAWN) {
                damaged_pawns |= u64::from_square(sq);
            }
        }
    };
    hit(&mut res, target, u32::from(DAMAGE[role]));
    let area_amount = match role {
        BISHOP | ROOK => 1,
        QUEEN => 2,
        _ => 0,
    };
    if area_amount > 0 {
        let enemies = area_squares(role, mv.from, target) & board.by_color(!us);
        for sq in enemies.squares() {
            hit(&mut res, sq, area_amount);
        }
    }
    for sq in board.by_color(!us).squares() {
        if res.hp[sq.idx()] == 0 {
            res.kills |= u64::from_square(sq);
        }
    }
    // Counter-attacks by every surviving pawn that lost HP, one after another. They strike
    // also when the enemy king has fallen: the game is won, but the action still resolves
    // whole, so the final board (and whether the attacker lands) follows the usual order.
    let counter = if is_shielded(pos, mv.from) { COUNTER_DAMAGE / 2 } else { COUNTER_DAMAGE };
    for _pawn in (damaged_pawns & !res.kills).squares() {
        let before = res.hp[mv.from.idx()];
        if before == 0 {
            break;
        }
        let after = before.saturating_sub(counter);
        res.hp[mv.from.idx()] = after;
        res.any_damage = true;
        if (res.damage_len as usize) < res.damage.len() {
            res.damage[res.damage_len as usize] = (mv.from.index(), before - after);
            res.damage_len += 1;
        }
    }
    res.attacker_dead = res.hp[mv.from.idx()] == 0;
    res
}

/// Where the attacker ends: `None` if it dies, otherwise its square (the origin when it kills
/// nothing), or `Err` with the squares to choose among.
fn landing(pos: &Pos, mv: Move, res: &Resolution) -> Result<Option<Square>, u64> {
    if res.attacker_dead {
        return Ok(None);
    }
    if mv.kind == MoveKind::EnPassant {
        return Ok(Some(mv.to));
    }
    match res.kills.count() {
        0 => Ok(Some(mv.from)),
        1 => Ok(res.kills.first()),
        _ => {
            let _ = pos;
            Err(res.kills)
        }
    }
}

fn promotion_roles(pos: &Pos, us: Color) -> u16 {
    let mut roles = 0u16;
    for r in [KNIGHT, BISHOP, ROOK, QUEEN] {
        if pos.board().pieces(us, r).count() < START_COUNT[r] {
            roles |= 1 << r;
        }
    }
    if roles == 0 { 1 << QUEEN } else { roles }
}

fn update_shields(pos: &mut Pos, before: &Pos, moved: u64) {
    // Fixed at the end of each ply: next to the own king - shielded; otherwise a shield is kept
    // only by a piece that did not move and stood next to its king at the end of the last ply.
    let mut shields = 0u64;
    for color in Color::ALL {
        let kings = pos.board().pieces(color, KING);
        let near_now = kings.squares().fold(0u64, |acc, k| acc | neighbours(k));
        let kings_before = before.board().pieces(color, KING);
        let near_before = kings_before.squares().fold(0u64, |acc, k| acc | neighbours(k));
        let pieces = pos.board().by_color(color) & !kings;
        let kept = before.ext().shields & near_before & !moved;
        shields |= pieces & (near_now | kept);
    }
    pos.ext_mut().shields = shields;
}

fn plies_played(pos: &Pos) -> u32 {
    2 * pos.fullmoves().saturating_sub(1) + u32::from(pos.turn() == Color::Black)
}

fn king_repeat(e: &Combat, color: Color) -> bool {
    let m = e.king_moves[color.index()];
    m.iter().all(|s| *s != 255) && m[0] == m[2] && m[2] == m[4] && e.quiet_plies >= 9
}

impl Variant for Chessception {
    type Geo = Board8x8;
    type Ext = Combat;

    const ID: &'static str = "chessception";
    const NAME: &'static str = "Chessception";
    const SUMMARY: &'static str = "Chess with hit points: a capture is an attack that deals damage, bishops, rooks and queens splash the squares around their target, pawns strike back, knights power each other up and the king shields its neighbours. No check: bring the enemy king to 0 HP.";
    const PIECES: &'static [PieceDef] = &FIDE_PIECES;
    const START_FEN: &'static str =
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 hp=- shields=d1,f1,d2,e2,f2,d7,e7,f7,d8,f8";
    const CASTLES: &'static [CastleDef] = &FIDE_CASTLES;
    const PROMOTION_ROLES: u16 = role_mask(&FIDE_PIECES, &['N', 'B', 'R', 'Q']);
    const CHECK: bool = false;
    const CASTLE_SAFE_PATH: bool = false;
    const CUSTOM_MOVEGEN: bool = true;
    const LANDINGS: bool = true;

    piece_tables!(u64);

    /// Always: the game is over once only the two kings are left (`kings-only`), and while any
    /// other piece stands a king can still be brought to 0 HP, even by a lone king's attacks
    /// (2 damage, halved by the king's shield, against 4 HP).
    fn can_win(_pos: &Position<Self>, _color: Color) -> bool {
        true
    }

    fn promotions(pos: &Pos, _to: Square, _captured: Option<Role>) -> Promotions {
        Promotions { roles: promotion_roles(pos, pos.turn()), stay: false }
    }

    fn gen_custom(pos: &Pos, out: &mut MoveList) {
        let mut pseudo = Vec::new();
        pseudo_legal_moves(pos, &mut pseudo);
        for m in pseudo {
            if !is_attack(pos, m) {
                out.push(m);
                continue;
            }
            let res = resolve(pos, m);
            match landing(pos, m, &res) {
                Err(choices) => {
                    for sq in choices.squares() {
                        let mut with = m;
                        with.aux = sq;
                        out.push(with);
                    }
                }
                Ok(to) => {
                    if m.kind == MoveKind::Promotion && to != Some(m.to) {
                        // The pawn does not reach the last rank: one action, without a letter.
                        if !out.iter().any(|o| o.kind == MoveKind::Normal && o.from == m.from && o.to == m.to) {
                            out.push(Move::normal(m.from, m.to));
                        }
                    } else {
                        out.push(m);
                    }
                }
            }
        }
    }

    fn play(pos: &mut Pos, mv: Move) {
        let before = pos.clone();
        let us = pos.turn();
        let moving_role = pos.board().role_at(mv.from).map_or(usize::MAX, |r| r.idx());
        let mut moved = u64::from_square(mv.from);
        let mut hp_lost = false;
        let mut double_push = None;
        pos.ext_mut().damage_len = 0;
        let fx = if is_attack(pos, mv) {
            let res = resolve(pos, mv);
            hp_lost = res.any_damage;
            pos.set_ep(None);
            let dest = match landing(pos, mv, &res) {
                Ok(d) => d,
                Err(_) => Some(mv.aux),
            };
            {
                let e = pos.ext_mut();
                e.hp = res.hp;
                e.damage = res.damage;
                e.damage_len = res.damage_len;
            }
            let mut dead = res.kills;
            if res.attacker_dead {
                dead |= u64::from_square(mv.from);
            }
            let mut rights = pos.castling() & !u64::from_square(mv.from) & !dead;
            if moving_role == KING {
                rights &= !(pos.castling() & Board8x8::tables().rank[if us == Color::White { 0 } else { 7 }]);
            }
            for sq in dead.squares() {
                if let Some(p) = pos.board().piece_at(sq)
                    && p.role.idx() == KING
                {
                    rights &= !Board8x8::tables().rank[if p.color == Color::White { 0 } else { 7 }];
                }
                pos.take_piece(sq);
                pos.ext_mut().hp[sq.idx()] = 0;
                pos.ext_mut().shields = pos.ext().shields.without(sq);
            }
            if let Some(to) = dest
                && to != mv.from
                && let Some(p) = pos.take_piece(mv.from)
            {
                let promote = mv.kind == MoveKind::Promotion && to == mv.to;
                let role = if promote { mv.role } else { p.role };
                pos.put_piece(to, Piece { color: us, role });
                let e = pos.ext_mut();
                e.hp[to.idx()] = if promote { MAX_HP[role.idx()] } else { e.hp[mv.from.idx()] };
                e.hp[mv.from.idx()] = 0;
                if e.shields.contains(mv.from) {
                    e.shields = e.shields.without(mv.from) | u64::from_square(to);
                }
                moved |= u64::from_square(to);
            }
            pos.set_castling_rights(rights);
            Effects { mv, mover: us, role: Role(moving_role as u8), captured: None }
        } else {
            let from_hp = pos.ext().hp[mv.from.idx()];
            let rook = if mv.kind == MoveKind::Castle {
                FIDE_CASTLES.iter().find(|c| {
                    c.color == us
                        && Board8x8::square(i32::from(c.rook_from.0), i32::from(c.rook_from.1)) == Some(mv.aux)
                })
            } else {
                None
            };
            let (fx, dp) = pos.apply_action(mv);
            double_push = dp;
            let e = pos.ext_mut();
            e.hp[mv.from.idx()] = 0;
            e.hp[mv.to.idx()] = if mv.kind == MoveKind::Promotion { MAX_HP[mv.role.idx()] } else { from_hp };
            moved |= u64::from_square(mv.to);
            if let Some(c) = rook
                && let Some(rf) = Board8x8::square(i32::from(c.rook_from.0), i32::from(c.rook_from.1))
                && let Some(rt) = Board8x8::square(i32::from(c.rook_to.0), i32::from(c.rook_to.1))
            {
                e.hp[rt.idx()] = e.hp[rf.idx()];
                e.hp[rf.idx()] = 0;
                moved |= u64::from_square(rf) | u64::from_square(rt);
            }
            fx
        };
        update_shields(pos, &before, moved);
        let king_dest =
            if moving_role == KING { pos.board().pieces(us, KING).first().map_or(255, |k| k.index()) } else { 255 };
        let e = pos.ext_mut();
        e.quiet_plies = if hp_lost { 0 } else { e.quiet_plies.saturating_add(1) };
        let slot = &mut e.king_moves[us.index()];
        slot.rotate_left(1);
        slot[4] = king_dest;
        pos.end_turn(&fx, double_push);
        if moving_role == PAWN || hp_lost {
            pos.halfmoves = 0;
        }
    }

    fn resets_progress(_fx: &Effects) -> bool {
        false
    }

    fn explain_move(pos: &Pos, from: Square, to: Square) -> Option<String> {
        let piece = pos.board().piece_at(from)?;
        let def = FIDE_CASTLES.iter().find(|c| {
            c.color == piece.color
                && Board8x8::square(i32::from(c.king_from.0), i32::from(c.king_from.1)) == Some(from)
                && Board8x8::square(i32::from(c.king_to.0), i32::from(c.king_to.1)) == Some(to)
        });
        match def {
            Some(def) if piece.role.idx() == KING => Some(format!("{} (rule 6)", crate::explain::castling(pos, def))),
            _ => None,
        }
    }

    fn explain_promotion_letter(
        pos: &Pos,
        from: Square,
        _to: Square,
        letter: Option<char>,
        forms: &[Move],
    ) -> Option<String> {
        if pos.board().role_at(from).is_none_or(|r| r.idx() != PAWN) {
            return None;
        }
        let promoting: Vec<Move> = forms.iter().copied().filter(|m| m.kind == MoveKind::Promotion).collect();
        let list = crate::explain::texts::<Self>(forms);
        Some(match letter {
            Some(_) if promoting.is_empty() => format!(
                "the attack does not kill, so the pawn stays on {} and does not promote: {list} (rule 5)",
                Board8x8::name(from)
            ),
            Some(_) => format!(
                "a pawn promotes to a type of which {} has fewer than at the start, or to a queen when none is \
                 missing: {list} (rule 5)",
                pos.turn().name()
            ),
            None => format!("promotion is compulsory: {list} (rule 5)"),
        })
    }

    fn variant_outcome(pos: &Pos) -> Option<Outcome> {
        let board = pos.board();
        for color in Color::ALL {
            if board.pieces(color, KING).is_zero() {
                return Some(Outcome::variant_win(!color, EndReason::KingKilled));
            }
        }
        if board.occupied().count() == 2 {
            return Some(Outcome::draw(EndReason::KingsOnly));
        }
        if king_repeat(pos.ext(), !pos.turn()) {
            return Some(Outcome::draw(EndReason::KingRepeat));
        }
        if plies_played(pos) >= PLY_LIMIT {
            return Some(Outcome::draw(EndReason::PlyLimit));
        }
        None
    }

    fn no_moves_outcome(_pos: &Pos) -> Outcome {
        Outcome::draw(EndReason::NoMove)
    }

    fn king_range(_color: Color) -> (u32, u32) {
        (0, 1)
    }

    fn ext_hash(e: &Combat) -> u64 {
        let mut h = mix(e.shields ^ 0xC0C0);
        for (i, hp) in e.hp.iter().enumerate() {
            if *hp != 0 {
                h ^= mix((i as u64) << 8 | u64::from(*hp) | 7 << 40);
            }
        }
        h
    }

    fn parse_ext(pos: &mut Pos, fields: &[&str]) -> Result<(), PositionError> {
        let mut hp_field = None;
        let mut shields_field = None;
        for field in fields {
            match field.split_once('=') {
                Some(("hp", v)) if hp_field.is_none() => hp_field = Some(v),
                Some(("shields", v)) if shields_field.is_none() => shields_field = Some(v),
                _ => return Err(PositionError::new(format!("unexpected or repeated field '{field}'"))),
            }
        }
        let (Some(hp), Some(shields)) = (hp_field, shields_field) else {
            return Err(PositionError::new("Chessception positions need the hp and shields fields"));
        };
        let board = *pos.board();
        for (sq, piece) in board.iter() {
            pos.ext_mut().hp[sq.idx()] = MAX_HP[piece.role.idx()];
        }
        if hp != "-" {
            for entry in hp.split(',') {
                let parsed =
                    entry.split_once(':').and_then(|(s, v)| Some((Board8x8::parse_square(s)?, v.parse::<u8>().ok()?)));
                let Some((sq, v)) = parsed else {
                    return Err(PositionError::new(format!("hp entries are square:points, as in e1:3, not '{entry}'")));
                };
                let Some(piece) = board.piece_at(sq) else {
                    return Err(PositionError::new(format!("hp for {} but no piece stands there", Board8x8::name(sq))));
                };
                if v == 0 || v >= MAX_HP[piece.role.idx()] {
                    return Err(PositionError::new(format!(
                        "hp of the piece on {} must be from 1 to {} (full HP is not written)",
                        Board8x8::name(sq),
                        MAX_HP[piece.role.idx()] - 1
                    )));
                }
                pos.ext_mut().hp[sq.idx()] = v;
            }
        }
        if shields != "-" {
            for name in shields.split(',') {
                let Some(sq) = Board8x8::parse_square(name) else {
                    return Err(PositionError::new(format!("'{name}' is not a square")));
                };
                if board.piece_at(sq).is_none_or(|p| p.role.idx() == KING) {
                    return Err(PositionError::new(format!(
                        "a shield on {} needs a piece other than a king (kings are always shielded)",
                        Board8x8::name(sq)
                    )));
                }
                pos.ext_mut().shields |= u64::from_square(sq);
            }
        }
        Ok(())
    }

    fn write_ext(pos: &Pos, out: &mut String) {
        let e = pos.ext();
        let damaged: Vec<String> = pos
            .board()
            .iter()
            .filter(|(sq, p)| e.hp[sq.idx()] < MAX_HP[p.role.idx()])
            .map(|(sq, _)| format!("{}:{}", Board8x8::name(sq), e.hp[sq.idx()]))
            .collect();
        out.push_str(" hp=");
        out.push_str(&if damaged.is_empty() { "-".to_string() } else { damaged.join(",") });
        out.push_str(" shields=");
        let names: Vec<String> = e.shields.squares().map(|s| Board8x8::name(s).to_string()).collect();
        out.push_str(&if names.is_empty() { "-".to_string() } else { names.join(",") });
    }

    fn state(pos: &Pos) -> VariantState {
        let e = pos.ext();
        VariantState {
            hp: Some(
                pos.board()
                    .iter()
                    .map(|(sq, p)| HpView {
                        square: Board8x8::name(sq).to_string(),
                        hp: e.hp[sq.idx()],
                        max: MAX_HP[p.role.idx()],
                        shielded: p.role.idx() == KING || e.shields.contains(sq),
                    })
                    .collect(),
            ),
            damage: Some(
                e.damage[..e.damage_len as usize]
                    .iter()
                    .map(|(sq, amount)| DamageView {
                        square: Board8x8::name(Square::new(*sq)).to_string(),
                        amount: *amount,
                    })
                    .collect(),
            ),
            ..VariantState::default()
        }
    }
}
