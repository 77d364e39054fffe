//! Legal action generation, shared by every variant.
//!
//! Pieces move by their table entries; FIDE pawns are generated set-wise; legality comes from
//! check and pin masks where the variant captures like FIDE chess, and from playing each move
//! where it does not (Conqueror). Variants add their own actions through [`Variant::gen_extra`].

use crate::action::{Move, MoveKind, MoveList};
use crate::bitboard::BitBoard;
use crate::geometry::{GeoTables, Geometry};
use crate::pieces::{MAX_ROLES, Role};
use crate::position::{Position, castle_square};
use crate::square::{Color, Square};
use crate::variant::{Bb, CheckInfo, Variant};

/// Pin rays of the side to move: each pinned piece with the squares it may still go to.
struct Pins<B> {
    pinned: B,
    rays: [(Square, B); 16],
    len: usize,
}

impl<B: BitBoard> Pins<B> {
    fn none() -> Pins<B> {
        Pins { pinned: B::ZERO, rays: [(Square::new(0), B::ZERO); 16], len: 0 }
    }

    #[inline(always)]
    fn ray(&self, sq: Square) -> B {
        let mut i = 0;
        while i < self.len {
            if self.rays[i].0 == sq {
                return self.rays[i].1;
            }
            i += 1;
        }
        B::ZERO
    }
}

/// The squares a piece of `role` and `color` on `from` may go to: `(quiet, captures)` before
/// intersecting with empty and enemy squares. Symmetric roles return the same set twice.
#[inline(always)]
pub(crate) fn reach<V: Variant>(role: usize, color: Color, from: Square, occ: Bb<V>) -> (Bb<V>, Bb<V>) {
    let t = V::Geo::tables();
    let pt = V::piece_tables();
    let info = V::ROLE_INFO[role];
    if info.symmetric {
        let mut att = Bb::<V>::ZERO;
        if info.leap_captures {
            att |= pt.leap_capture(role, color, from);
        }
        if info.orth.any() {
            let r = t.rook(from, occ);
            att |= if info.orth.full() { r } else { r & pt.orth_capture(role, color, from) };
        }
        if info.diag.any() {
            let b = t.bishop(from, occ);
            att |= if info.diag.full() { b } else { b & pt.diag_capture(role, color, from) };
        }
        (att, att)
    } else {
        let mut quiet = Bb::<V>::ZERO;
        let mut caps = Bb::<V>::ZERO;
        if info.leap_moves {
            quiet |= pt.leap_move(role, color, from);
        }
        if info.leap_captures {
            caps |= pt.leap_capture(role, color, from);
        }
        if info.orth.any() {
            let r = t.rook(from, occ);
            quiet |= r & pt.orth_move(role, color, from);
            caps |= r & pt.orth_capture(role, color, from);
        }
        if info.diag.any() {
            let b = t.bishop(from, occ);
            quiet |= b & pt.diag_move(role, color, from);
            caps |= b & pt.diag_capture(role, color, from);
        }
        (quiet, caps)
    }
}

/// Fills `out` with every legal turn action of `pos` (in generation order).
///
/// A position whose game a variant rule has ended (a conversion win, ...) has none.
pub fn legal_moves<V: Variant>(pos: &Position<V>, out: &mut MoveList) {
    out.clear();
    if V::variant_outcome(pos).is_some() {
        return;
    }
    if V::CUSTOM_MOVEGEN {
        V::gen_custom(pos, out);
    } else if !V::CHECK {
        generate::<V, false>(pos, out);
    } else if V::PIN_LEGALITY {
        generate::<V, true>(pos, out);
    } else {
        generate::<V, false>(pos, out);
        out.retain(|m| pos.is_legal_by_play(*m));
    }
}

/// Whether `pos` has at least one legal turn action (`scratch` is reused for the generation).
///
/// Where legality is judged by playing each move (Loot Boxes), this stops at the first legal
/// one instead of playing them all, which equips need for every candidate.
pub fn has_legal_move<V: Variant>(pos: &Position<V>, scratch: &mut MoveList) -> bool {
    scratch.clear();
    if V::variant_outcome(pos).is_some() {
        return false;
    }
    if V::CUSTOM_MOVEGEN || !V::CHECK || V::PIN_LEGALITY {
        legal_moves(pos, scratch);
        return !scratch.is_empty();
    }
    generate::<V, false>(pos, scratch);
    scratch.iter().any(|m| pos.is_legal_by_play(*m))
}

/// Fills `out` with the legal captures and promotions only (for a search's quiescence): the
/// subset of [`legal_moves`] whose destination holds an enemy piece, captures en passant, or
/// promotes (a pawn's step to the last rank without promoting is not included).
pub fn legal_noisy_moves<V: Variant>(pos: &Position<V>, out: &mut MoveList) {
    out.clear();
    if V::variant_outcome(pos).is_some() {
        return;
    }
    if V::CUSTOM_MOVEGEN {
        V::gen_custom(pos, out);
        let theirs = pos.board.by_color(!pos.turn);
        out.retain(|m| matches!(m.kind, MoveKind::EnPassant | MoveKind::Promotion) || theirs.contains(m.to));
    } else if !V::CHECK {
        generate_kinds::<V, false, true>(pos, out);
    } else if V::PIN_LEGALITY {
        generate_kinds::<V, true, true>(pos, out);
    } else {
        generate_kinds::<V, false, true>(pos, out);
        out.retain(|m| pos.is_legal_by_play(*m));
    }
}

/// Fills `out` with the pseudo-legal turn actions: legal but for the safety of the mover's king.
pub fn pseudo_legal_moves<V: Variant>(pos: &Position<V>, out: &mut MoveList) {
    out.clear();
    if V::variant_outcome(pos).is_some() {
        return;
    }
    generate::<V, false>(pos, out);
}

#[inline(always)]
fn compute_pins<V: Variant>(pos: &Position<V>, t: &GeoTables<Bb<V>>, king: Square) -> Pins<Bb<V>> {
    let pt = V::piece_tables();
    let us = pos.turn;
    let them = !us;
    let occ = pos.occupied();
    let ours = pos.board.by_color(us);
    let mut snipers = Bb::<V>::ZERO;
    let mut r = 0;
    while r < V::PIECES.len() {
        let info = V::ROLE_INFO[r];
        let p = pos.board.pieces(them, r);
        if info.orth.captures != 0 {
            snipers |= p & pt.rev_orth_capture(r, them, king);
        }
        if info.diag.captures != 0 {
            snipers |= p & pt.rev_diag_capture(r, them, king);
        }
        r += 1;
    }
    let mut pins = Pins::none();
    for sniper in snipers.squares() {
        let between = t.between(king, sniper);
        let blockers = between & occ;
        if blockers.any()
            && !blockers.more_than_one()
            && (blockers & ours).any()
            && pins.len < 16
            && let Some(sq) = blockers.first()
        {
            pins.pinned |= blockers;
            pins.rays[pins.len] = (sq, between | Bb::<V>::from_square(sniper));
            pins.len += 1;
        }
    }
    pins
}

#[inline(always)]
fn generate<V: Variant, const PINS: bool>(pos: &Position<V>, out: &mut MoveList) {
    generate_kinds::<V, PINS, false>(pos, out);
}

/// The generator. `NOISY`: only captures and promotions (no quiet moves, castling or the
/// variant's extra actions).
#[inline(always)]
fn generate_kinds<V: Variant, const PINS: bool, const NOISY: bool>(pos: &Position<V>, out: &mut MoveList) {
    let t = V::Geo::tables();
    let us = pos.turn;
    let them = !us;
    let theirs = pos.board.by_color(them) & !V::uncapturable(pos);
    let occ = pos.occupied();
    let king = pos.king(us);
    let checkers = match king {
        Some(k) => pos.attackers(k, them, occ),
        None => Bb::<V>::ZERO,
    };
    let pins = match king {
        Some(k) if PINS => compute_pins(pos, t, k),
        _ => Pins::none(),
    };
    let double_check = checkers.more_than_one();
    let free = t.all & (!occ | theirs);
    let target = if !PINS || checkers.is_zero() {
        free
    } else if double_check {
        Bb::<V>::ZERO
    } else {
        match (king, checkers.first()) {
            (Some(k), Some(c)) => t.between(k, c) | checkers,
            _ => free,
        }
    };

    // In conversion variants a capture puts the converted piece on the capturer's origin,
    // which can keep blocking a line: captures are judged by playing them.
    let verify = PINS && V::CONVERSION;
    if !(PINS && double_check) || verify {
        // Pieces other than pawns and the single king.
        let mut r = 0;
        while r < V::PIECES.len() {
            let info = V::ROLE_INFO[r];
            if info.pawn || (info.royal && king.is_some()) {
                r += 1;
                continue;
            }
            for from in pos.board.pieces(us, r).squares() {
                let (quiet, caps) = reach::<V>(r, us, from, occ);
                let ray = if PINS && pins.pinned.contains(from) { pins.ray(from) } else { t.all };
                if verify {
                    if !NOISY {
                        for to in (quiet & !occ & target & ray).squares() {
                            out.push(Move::normal(from, to));
                        }
                    }
                    for to in (caps & theirs).squares() {
                        push_verified(pos, Move::normal(from, to), out);
                    }
                } else {
                    let dests = if NOISY {
                        caps & theirs
                    } else if info.symmetric {
                        quiet & (!occ | theirs)
                    } else {
                        (quiet & !occ) | (caps & theirs)
                    } & target
                        & ray;
                    for to in dests.squares() {
                        out.push(Move::normal(from, to));
                    }
                }
            }
            r += 1;
        }
        if V::PAWN < MAX_ROLES {
            let pawns = pos.board.pieces(us, V::PAWN);
            if PINS {
                let capture_target = if verify { t.all } else { target };
                gen_pawns(pos, t, pawns & !pins.pinned, (target, capture_target), verify, NOISY, out);
                for p in (pawns & pins.pinned).squares() {
                    let ray = pins.ray(p);
                    let capture_target = if verify { t.all } else { target & ray };
                    gen_pawns(pos, t, Bb::<V>::from_square(p), (target & ray, capture_target), verify, NOISY, out);
                }
            } else {
                gen_pawns(pos, t, pawns, (target, target), false, NOISY, out);
            }
            if let Some(ep) = pos.ep {
                gen_en_passant(pos, ep, if PINS && V::CHECK { king } else { None }, out);
            }
        }
    }

    if let Some(k) = king {
        let (att, _) = reach::<V>(V::KING, us, k, occ);
        let kbit = Bb::<V>::from_square(k);
        let king_dests = if NOISY { att & theirs } else { att & (!occ | theirs) };
        for to in king_dests.squares() {
            if verify && theirs.contains(to) {
                push_verified(pos, Move::normal(k, to), out);
            } else if !PINS || pos.attackers(to, them, occ ^ kbit).is_zero() {
                out.push(Move::normal(k, to));
            }
        }
        if checkers.is_zero() && !NOISY {
            gen_castling(pos, t, k, occ, out);
        }
    }
    if NOISY {
        return;
    }

    let block = if checkers.is_zero() {
        t.all
    } else if double_check {
        Bb::<V>::ZERO
    } else {
        match (king, checkers.first()) {
            (Some(k), Some(c)) => t.between(k, c),
            _ => Bb::<V>::ZERO,
        }
    };
    V::gen_extra(pos, &CheckInfo { king, checkers, block }, out);
}

/// Pushes `m` if playing it leaves the mover's king safe.
#[inline(always)]
fn push_verified<V: Variant>(pos: &Position<V>, m: Move, out: &mut MoveList) {
    if pos.is_legal_by_play(m) {
        out.push(m);
    }
}

#[inline(always)]
fn push_promotions<V: Variant>(
    pos: &Position<V>,
    from: Square,
    to: Square,
    verify: bool,
    with_stay: bool,
    out: &mut MoveList,
) {
    let captured = pos.board.role_at(to);
    let p = V::promotions(pos, to, captured);
    let mut roles = p.roles;
    while roles != 0 {
        let r = roles.trailing_zeros();
        roles &= roles - 1;
        let m = Move::promotion(from, to, Role(r as u8));
        if verify { push_verified(pos, m, out) } else { out.push(m) }
    }
    if p.stay && with_stay {
        let m = Move::normal(from, to);
        if verify { push_verified(pos, m, out) } else { out.push(m) }
    }
}

#[inline(always)]
fn gen_pawns<V: Variant>(
    pos: &Position<V>,
    t: &GeoTables<Bb<V>>,
    pawns: Bb<V>,
    (target, capture_target): (Bb<V>, Bb<V>),
    verify: bool,
    noisy: bool,
    out: &mut MoveList,
) {
    if pawns.is_zero() {
        return;
    }
    let files = V::Geo::FILES;
    let ranks = V::Geo::RANKS as usize;
    let us = pos.turn;
    let white = us == Color::White;
    let occ = pos.occupied();
    let empty = t.all & !occ;
    let theirs = pos.board.by_color(!us) & !V::uncapturable(pos);
    let (last, third) = if white { (t.rank[ranks - 1], t.rank[2]) } else { (t.rank[0], t.rank[ranks - 3]) };
    let not_a = !t.file[0];
    let not_last = !t.file[files as usize - 1];
    let fwd = |b: Bb<V>| if white { (b << files) & t.all } else { b >> files };

    let single = fwd(pawns) & empty;
    let double = fwd(single & third) & empty & target;
    let single = single & target;
    let back = |to: Square, steps: u32| {
        if white {
            Square::new((u32::from(to.index()) - steps) as u8)
        } else {
            Square::new((u32::from(to.index()) + steps) as u8)
        }
    };
    if !noisy {
        for to in (single & !last).squares() {
            out.push(Move::normal(back(to, files), to));
        }
        for to in double.squares() {
            out.push(Move::normal(back(to, 2 * files), to));
        }
    }
    for to in (single & last).squares() {
        push_promotions(pos, back(to, files), to, false, !noisy, out);
    }
    // Captures towards the a-file and towards the last file.
    let (left, right, left_step, right_step) = if white {
        ((pawns & not_a) << (files - 1), (pawns & not_last) << (files + 1), files - 1, files + 1)
    } else {
        ((pawns & not_a) >> (files + 1), (pawns & not_last) >> (files - 1), files + 1, files - 1)
    };
    for (set, step) in [(left, left_step), (right, right_step)] {
        let caps = set & t.all & theirs & capture_target;
        for to in (caps & !last).squares() {
            let m = Move::normal(back(to, step), to);
            if verify { push_verified(pos, m, out) } else { out.push(m) }
        }
        for to in (caps & last).squares() {
            push_promotions(pos, back(to, step), to, verify, true, out);
        }
    }
}

#[inline(always)]
fn gen_en_passant<V: Variant>(pos: &Position<V>, ep: Square, king: Option<Square>, out: &mut MoveList) {
    let us = pos.turn;
    let pt = V::piece_tables();
    let candidates = pt.rev_leap_capture(V::PAWN, us, ep) & pos.board.pieces(us, V::PAWN);
    for from in candidates.squares() {
        let legal = match king {
            Some(_) if V::CONVERSION => pos.is_legal_by_play(Move::en_passant(from, ep)),
            Some(k) if V::PIN_LEGALITY => {
                let victim = pos.ep_victim(from, ep);
                let vbit = Bb::<V>::from_square(victim);
                let occ = (pos.occupied() ^ Bb::<V>::from_square(from) ^ vbit) | Bb::<V>::from_square(ep);
                (pos.attackers(k, !us, occ) & !vbit).is_zero()
            }
            _ => true,
        };
        if legal {
            out.push(Move::en_passant(from, ep));
        }
    }
}

#[inline(always)]
fn gen_castling<V: Variant>(pos: &Position<V>, t: &GeoTables<Bb<V>>, king: Square, occ: Bb<V>, out: &mut MoveList) {
    if pos.castling.is_zero() {
        return;
    }
    let us = pos.turn;
    for def in V::CASTLES.iter().filter(|c| c.color == us) {
        let rook = castle_square::<V::Geo>(def.rook_from);
        if !pos.castling.contains(rook) || castle_square::<V::Geo>(def.king_from) != king {
            continue;
        }
        let king_to = castle_square::<V::Geo>(def.king_to);
        let rook_to = castle_square::<V::Geo>(def.rook_to);
        let kbit = Bb::<V>::from_square(king);
        let rbit = Bb::<V>::from_square(rook);
        let king_path = t.between(king, king_to) | Bb::<V>::from_square(king_to);
        let path = (king_path | t.between(rook, rook_to) | Bb::<V>::from_square(rook_to)) & !kbit & !rbit;
        if (path & occ).any() {
            continue;
        }
        if V::CASTLE_SAFE_PATH {
            let without = occ ^ kbit ^ rbit;
            if king_path.squares().any(|s| pos.attackers(s, !us, without).any()) {
                continue;
            }
        }
        out.push(Move::castle(king, king_to, rook));
    }
}

/// Counts the leaves of the legal-action tree to `depth` (bulk-counted at the last ply).
///
/// Draw rules that need the game's history or clocks (repetition, no progress, material)
/// do not stop the count, as in conventional perft; a variant's own wins do.
pub fn perft<V: Variant>(pos: &Position<V>, depth: u32) -> u64 {
    let mut lists: Vec<MoveList> = (0..=depth).map(|_| Vec::with_capacity(256)).collect();
    perft_inner(pos, depth, &mut lists)
}

fn perft_inner<V: Variant>(pos: &Position<V>, depth: u32, lists: &mut [MoveList]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let Some((list, rest)) = lists.split_first_mut() else { return 0 };
    legal_moves(pos, list);
    if depth == 1 {
        return list.len() as u64;
    }
    let mut nodes = 0;
    for &m in list.iter() {
        let mut next = pos.clone();
        next.play_unchecked(m);
        nodes += perft_inner(&next, depth - 1, rest);
    }
    nodes
}
