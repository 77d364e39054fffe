//! The Chess Gold family: `gold`, `sandbox` (Anything Goes), `conqueror` and `conqueror-gold`.
//!
//! The four modes share the FIDE piece set and one set of hooks, switched by the constants of
//! [`Family`]: gold income and prices, placement zones, waiting pawns promoted in place, the
//! sandbox piece cap, conversion of captured pieces and the placement ban of Conqueror Gold.

use crate::action::{Move, MoveKind, MoveList};
use crate::bitboard::BitBoard;
use crate::geometry::{Board8x8, Geometry};
use crate::outcome::{EndReason, Outcome};
use crate::pieces::{FIDE_PIECES, Piece, PieceDef, Role};
use crate::position::{Position, PositionError, mix};
use crate::square::{Color, Square};
use crate::state::{ByColor, Gold, ShopItem, VariantState};
use crate::variant::{CheckInfo, Effects, FIDE_CASTLES, Promotions, Variant, role_mask};

use super::piece_tables;
use super::standard::fide_can_mate;
use super::standard::role::{BISHOP, KNIGHT, PAWN, QUEEN, ROOK};

/// Prices in half-gold units by FIDE role (P N B R Q K).
pub const COST: [u32; 6] = [2, 6, 6, 10, 16, 0];
/// Gold earned for capturing each role, in half-gold units: half its price.
pub const CAPTURE_INCOME: [u32; 6] = [1, 3, 3, 5, 8, 0];
/// Income at the start of each turn, in half-gold units.
pub const INCOME: u32 = 2;
/// Fee for a promotion, in half-gold units.
pub const PROMOTION_FEE: u32 = 2;
/// Most non-king pieces a side may have on the board in `sandbox`.
pub const SANDBOX_CAP: u32 = 15;

const SHOP_ROLES: [usize; 5] = [PAWN, KNIGHT, BISHOP, ROOK, QUEEN];
pub(crate) const PROMOTION_ROLES: u16 = role_mask(&FIDE_PIECES, &['N', 'B', 'R', 'Q']);
pub(crate) const PROMOTION_ORDER: [usize; 4] = [KNIGHT, BISHOP, ROOK, QUEEN];

/// The family's part of the position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Economy {
    /// Gold of White and Black in half-gold units (the side to move's includes this turn's income).
    pub gold: [u32; 2],
    /// Whether each side's previous turn was a placement (Conqueror Gold's ban).
    pub placed_last: [bool; 2],
    /// The last action converted the opponent's last piece but the king (a conversion win).
    pub conversion_win: bool,
}

/// The switches of one mode of the family.
pub trait Family: Variant<Geo = Board8x8, Ext = Economy> {
    /// Gold: income, prices, capture income.
    const GOLD: bool;
    /// New pieces may be placed.
    const PLACEMENT: bool;
    /// Placement on any empty square (pawns on ranks 2-7), free, under a piece cap.
    const ANYWHERE: bool;
    /// A pawn on the last rank may wait and be promoted later for gold.
    const WAITING_PAWNS: bool;
    /// No placement right after one's own placement.
    const PLACEMENT_BAN: bool;
}

#[inline(always)]
fn relative_ranks(color: Color, ranks: &[usize]) -> u64 {
    let t = Board8x8::tables();
    ranks.iter().fold(0, |acc, &r| acc | t.rank[if color == Color::White { r } else { 7 - r }])
}

/// Squares where `color` may place a piece of `role` (before emptiness and check): the first
/// three ranks (pawns the second and third), or anywhere (pawns ranks 2-7) in Anything Goes.
#[inline(always)]
pub fn placement_zone(role: usize, color: Color, anywhere: bool) -> u64 {
    if anywhere {
        if role == PAWN { relative_ranks(color, &[1, 2, 3, 4, 5, 6]) } else { Board8x8::tables().all }
    } else if role == PAWN {
        relative_ranks(color, &[1, 2])
    } else {
        relative_ranks(color, &[0, 1, 2])
    }
}

#[inline(always)]
fn zone<V: Family>(role: usize, color: Color) -> u64 {
    placement_zone(role, color, V::ANYWHERE)
}

fn non_king_count<V: Family>(pos: &Position<V>, color: Color) -> u32 {
    (pos.board().by_color(color) & !pos.board().by_role(V::KING)).count()
}

pub(crate) fn last_rank(color: Color) -> u64 {
    relative_ranks(color, &[7])
}

fn gen_extra<V: Family>(pos: &Position<V>, info: &CheckInfo<u64>, out: &mut MoveList) {
    let us = pos.turn();
    let e = pos.ext();
    let gold = e.gold[us.index()];
    let empty = !pos.board().occupied() & Board8x8::tables().all;
    let banned = V::PLACEMENT_BAN && e.placed_last[us.index()];
    let capped = V::ANYWHERE && non_king_count(pos, us) >= SANDBOX_CAP;
    if V::PLACEMENT && !banned && !capped {
        let open = info.block & empty;
        if open.any() {
            for role in SHOP_ROLES {
                if V::GOLD && gold < COST[role] {
                    continue;
                }
                for sq in (zone::<V>(role, us) & open).squares() {
                    out.push(Move::place(Role(role as u8), sq));
                }
            }
        }
    }
    if V::WAITING_PAWNS && info.checkers.is_zero() && gold >= PROMOTION_FEE {
        for sq in (pos.board().pieces(us, PAWN) & last_rank(us)).squares() {
            for role in PROMOTION_ORDER {
                out.push(Move::promote_in_place(sq, Role(role as u8)));
            }
        }
    }
}

fn promotions<V: Family>(pos: &Position<V>, captured: Option<Role>) -> Promotions {
    if !V::WAITING_PAWNS {
        return Promotions { roles: PROMOTION_ROLES, stay: false };
    }
    let gold = pos.ext().gold[pos.turn().index()] + captured.map_or(0, |r| CAPTURE_INCOME[r.idx()]);
    Promotions { roles: if gold >= PROMOTION_FEE { PROMOTION_ROLES } else { 0 }, stay: true }
}

fn after_action<V: Family>(pos: &mut Position<V>, fx: &Effects) {
    let us = fx.mover.index();
    let opponent_bare = V::CONVERSION
        && fx.captured.is_some()
        && (pos.board().by_color(!fx.mover) & !pos.board().by_role(V::KING)).is_zero();
    let e = pos.ext_mut();
    if V::GOLD {
        if let Some((victim, _)) = fx.captured {
            e.gold[us] += CAPTURE_INCOME[victim.role.idx()];
        }
        match fx.mv.kind {
            MoveKind::Place => e.gold[us] = e.gold[us].saturating_sub(COST[fx.mv.role.idx()]),
            MoveKind::Promotion | MoveKind::PromoteInPlace => e.gold[us] = e.gold[us].saturating_sub(PROMOTION_FEE),
            _ => {}
        }
    }
    if V::PLACEMENT_BAN {
        e.placed_last[us] = fx.mv.kind == MoveKind::Place;
    }
    e.conversion_win = opponent_bare;
}

fn start_turn<V: Family>(pos: &mut Position<V>) {
    if V::GOLD {
        let turn = pos.turn().index();
        pos.ext_mut().gold[turn] += INCOME;
    }
}

fn resets_progress(fx: &Effects) -> bool {
    fx.captured.is_some()
        || (fx.mv.is_board_move() && fx.role.idx() == PAWN)
        || matches!(fx.mv.kind, MoveKind::Place | MoveKind::PromoteInPlace | MoveKind::Promotion)
}

fn variant_outcome<V: Family>(pos: &Position<V>) -> Option<Outcome> {
    pos.ext().conversion_win.then(|| Outcome::variant_win(!pos.turn(), EndReason::Conversion))
}

fn ext_hash<V: Family>(e: &Economy) -> u64 {
    let mut h = 0;
    if V::GOLD {
        h ^= mix(u64::from(e.gold[0]) | 1 << 40) ^ mix(u64::from(e.gold[1]) | 2 << 40);
    }
    if V::PLACEMENT_BAN {
        h ^= mix(u64::from(e.placed_last[0]) | u64::from(e.placed_last[1]) << 1 | 3 << 40);
    }
    h
}

fn parse_ext<V: Family>(pos: &mut Position<V>, fields: &[&str]) -> Result<(), PositionError> {
    let mut gold = None;
    let mut placed = None;
    let mut ended = false;
    for field in fields {
        let Some((key, value)) = field.split_once('=') else {
            return Err(PositionError::new(format!("unexpected field '{field}' (fields are key=value)")));
        };
        match key {
            "gold" if V::GOLD && gold.is_none() => {
                let parsed = value.split_once('/').and_then(|(w, b)| Some((Gold::parse(w)?, Gold::parse(b)?)));
                let Some((w, b)) = parsed else {
                    return Err(PositionError::new(format!(
                        "gold must be written white/black in steps of 0.5, as in gold=4/3.5, not '{value}'"
                    )));
                };
                gold = Some([w.0, b.0]);
            }
            "placed" if V::PLACEMENT_BAN && placed.is_none() => {
                placed = Some(match value {
                    "-" => [false, false],
                    "w" => [true, false],
                    "b" => [false, true],
                    "wb" => [true, true],
                    _ => {
                        return Err(PositionError::new(format!(
                            "placed must be -, w, b or wb (who placed on their previous turn), not '{value}'"
                        )));
                    }
                });
            }
            "ended" if V::CONVERSION && !ended && value == "conversion" => ended = true,
            _ => {
                return Err(PositionError::new(format!(
                    "unexpected or repeated field '{field}' in a {} position",
                    V::NAME
                )));
            }
        }
    }
    if V::GOLD {
        let Some(g) = gold else {
            return Err(PositionError::new(format!("{} positions need the gold field, as in gold=4/3", V::NAME)));
        };
        pos.ext_mut().gold = g;
    }
    if V::PLACEMENT_BAN {
        let Some(p) = placed else {
            return Err(PositionError::new(format!(
                "{} positions need the placed field (placed=-, w, b or wb)",
                V::NAME
            )));
        };
        pos.ext_mut().placed_last = p;
    }
    if ended {
        if non_king_count(pos, pos.turn()) != 0 {
            return Err(PositionError::new("ended=conversion needs the side to move to have only its king"));
        }
        pos.ext_mut().conversion_win = true;
    }
    Ok(())
}

fn write_ext<V: Family>(pos: &Position<V>, out: &mut String) {
    let e = pos.ext();
    if V::GOLD {
        out.push_str(&format!(" gold={}/{}", Gold(e.gold[0]).to_text(), Gold(e.gold[1]).to_text()));
    }
    if V::PLACEMENT_BAN {
        out.push_str(match e.placed_last {
            [false, false] => " placed=-",
            [true, false] => " placed=w",
            [false, true] => " placed=b",
            [true, true] => " placed=wb",
        });
    }
    if e.conversion_win {
        out.push_str(" ended=conversion");
    }
}

fn validate<V: Family>(pos: &Position<V>) -> Result<(), PositionError> {
    if V::ANYWHERE {
        for color in Color::ALL {
            let n = non_king_count(pos, color);
            if n > SANDBOX_CAP {
                return Err(PositionError::new(format!(
                    "{} has {n} pieces besides the king; at most {SANDBOX_CAP} are allowed",
                    color.name()
                )));
            }
        }
    }
    Ok(())
}

fn letter_role(letter: char) -> Option<usize> {
    FIDE_PIECES.iter().position(|d| d.letter == letter)
}

pub(crate) fn role_noun(role: usize) -> &'static str {
    match role {
        PAWN => "a pawn",
        KNIGHT => "a knight",
        BISHOP => "a bishop",
        ROOK => "a rook",
        QUEEN => "a queen",
        _ => "a king",
    }
}

pub(crate) fn ranks_text(color: Color, ranks: &[usize]) -> String {
    let names: Vec<String> =
        ranks.iter().map(|&r| (if color == Color::White { r + 1 } else { 8 - r }).to_string()).collect();
    match names.as_slice() {
        [a, .., b] => format!("ranks {a}-{b}"),
        [a] => format!("rank {a}"),
        [] => String::new(),
    }
}

/// The rule book reference of a rule: `gold`'s number (which Conqueror Gold applies as Chess
/// Gold's), Anything Goes's or Conqueror's own.
fn cite<V: Family>(gold: u8, sandbox: u8, conqueror: u8) -> String {
    if V::ANYWHERE {
        format!("(rule {sandbox})")
    } else if !V::GOLD {
        format!("(rule {conqueror})")
    } else if V::CONVERSION {
        format!("(Chess Gold rule {gold})")
    } else {
        format!("(rule {gold})")
    }
}

fn explain_placement<V: Family>(pos: &Position<V>, letter: char, to: Square) -> String {
    let us = pos.turn();
    let name = us.name();
    let Some(role) = letter_role(letter).filter(|r| SHOP_ROLES.contains(r)) else {
        return format!("a king cannot be placed ({} places P, N, B, R or Q) {}", V::NAME, cite::<V>(3, 2, 1));
    };
    if V::PLACEMENT_BAN && pos.ext().placed_last[us.index()] {
        return format!("{name} placed a piece on the previous turn, and {} allows no two in a row (rule 3)", V::NAME);
    }
    if V::ANYWHERE && non_king_count(pos, us) >= SANDBOX_CAP {
        return format!("{name} already has {SANDBOX_CAP} pieces besides the king, the most allowed (rule 3)");
    }
    if !zone::<V>(role, us).contains(to) {
        return if V::ANYWHERE {
            "pawns are placed on ranks 2-7 only (rule 2)".to_string()
        } else if role == PAWN {
            format!("{name} places pawns on {} {}", ranks_text(us, &[1, 2]), cite::<V>(3, 2, 1))
        } else {
            format!("{name} places pieces on {} {}", ranks_text(us, &[0, 1, 2]), cite::<V>(3, 2, 1))
        };
    }
    let gold = pos.ext().gold[us.index()];
    if V::GOLD && gold < COST[role] {
        return format!(
            "not enough gold: {} costs {} and {name} has {} {}",
            role_noun(role),
            Gold(COST[role]).to_text(),
            Gold(gold).to_text(),
            cite::<V>(3, 2, 1)
        );
    }
    let checkers = pos.checkers();
    if checkers.more_than_one() {
        return format!("{name} is in double check; only a king move can answer it {}", cite::<V>(4, 2, 1));
    }
    if checkers.any() {
        return format!(
            "{name} is in check and a piece on {} does not block it {}",
            Board8x8::name(to),
            cite::<V>(4, 2, 1)
        );
    }
    crate::explain::UNEXPLAINED.to_string()
}

fn explain_promotion<V: Family>(pos: &Position<V>, role: Role, letter: char, sq: Square) -> String {
    let us = pos.turn();
    if !V::WAITING_PAWNS {
        return format!("{} has no promotion in place", V::NAME);
    }
    if role.idx() != PAWN || !last_rank(us).contains(sq) {
        return format!("only a pawn waiting on the last rank can be promoted in place {}", cite::<V>(6, 3, 1));
    }
    if !letter_role(letter).is_some_and(|r| PROMOTION_ORDER.contains(&r)) {
        return format!("a pawn is promoted to N, B, R or Q {}", cite::<V>(6, 3, 1));
    }
    let gold = pos.ext().gold[us.index()];
    if gold < PROMOTION_FEE {
        return format!("promotion costs 1 gold and {} has {} {}", us.name(), Gold(gold).to_text(), cite::<V>(6, 3, 1));
    }
    if pos.is_check() {
        return format!("{} is in check, and promoting in place does not end it {}", us.name(), cite::<V>(4, 2, 1));
    }
    crate::explain::UNEXPLAINED.to_string()
}

fn explain_move<V: Family>(pos: &Position<V>, from: Square, to: Square) -> Option<String> {
    let piece = pos.board().piece_at(from)?;
    let role = piece.role.idx();
    if V::WAITING_PAWNS && role == PAWN && last_rank(piece.color).contains(from) {
        return Some(format!(
            "a pawn waiting on the last rank cannot move; it is promoted in place, as in {}=Q {}",
            Board8x8::name(from),
            cite::<V>(6, 3, 1)
        ));
    }
    let same_rank = Board8x8::rank_of(from) == Board8x8::rank_of(to);
    let two_files = Board8x8::file_of(from).abs_diff(Board8x8::file_of(to)) == 2;
    if V::CASTLES.is_empty() && role == V::KING && same_rank && two_files {
        return Some(format!("{} has no castling {}", V::NAME, cite::<V>(8, 2, 1)));
    }
    None
}

fn explain_promotion_letter<V: Family>(
    pos: &Position<V>,
    from: Square,
    to: Square,
    letter: Option<char>,
    forms: &[Move],
) -> Option<String> {
    let us = pos.turn();
    let pawn = pos.board().role_at(from).is_some_and(|r| r.idx() == PAWN);
    if !pawn || !last_rank(us).contains(to) {
        return None;
    }
    let promotes = forms.iter().any(|m| m.kind == MoveKind::Promotion);
    match letter {
        Some(_) if !promotes && V::WAITING_PAWNS => {
            let gold = pos.ext().gold[us.index()];
            Some(format!(
                "promotion costs 1 gold and {} has {}, so the pawn can only move there and wait: {} {}",
                us.name(),
                Gold(gold).to_text(),
                crate::explain::texts::<V>(forms),
                cite::<V>(6, 3, 1)
            ))
        }
        Some(_) if promotes => Some(format!(
            "a pawn is promoted to N, B, R or Q: {} {}",
            crate::explain::texts::<V>(forms),
            cite::<V>(6, 3, 1)
        )),
        Some(_) => None,
        None => Some(format!(
            "a pawn reaching the last rank promotes, and the letter says to what: {} {}",
            crate::explain::texts::<V>(forms),
            cite::<V>(6, 3, 1)
        )),
    }
}

fn state<V: Family>(pos: &Position<V>) -> VariantState {
    let e = pos.ext();
    let us = pos.turn();
    let gold = e.gold[us.index()];
    let capped = V::ANYWHERE && non_king_count(pos, us) >= SANDBOX_CAP;
    let mut s = VariantState::default();
    if V::GOLD {
        s.gold = Some(ByColor { white: Gold(e.gold[0]), black: Gold(e.gold[1]) });
        s.income = Some(Gold(INCOME));
    }
    if V::PLACEMENT {
        s.shop = Some(
            SHOP_ROLES
                .iter()
                .map(|&r| ShopItem {
                    piece: FIDE_PIECES[r].letter,
                    cost: Gold(if V::GOLD { COST[r] } else { 0 }),
                    affordable: if V::GOLD { gold >= COST[r] } else { !capped },
                })
                .collect(),
        );
    }
    if V::WAITING_PAWNS {
        let mut waiting = Vec::new();
        for color in Color::ALL {
            for sq in (pos.board().pieces(color, PAWN) & last_rank(color)).squares() {
                waiting.push(Board8x8::name(sq).to_string());
            }
        }
        s.waiting_pawns = Some(waiting);
    }
    if V::PLACEMENT_BAN {
        s.placed_last_turn = Some(ByColor::from_array(e.placed_last));
    }
    if V::ANYWHERE {
        s.piece_count =
            Some(ByColor { white: non_king_count(pos, Color::White), black: non_king_count(pos, Color::Black) });
        s.piece_cap = Some(SANDBOX_CAP);
    }
    s
}

/// The flag rule of the family. A mode with placements (the gold modes' income, Anything Goes's
/// free pieces) can always bring new pieces, so either side can still win. Conqueror, without
/// them: a side can win by converting the opponent's last piece, even with a lone king, so while
/// the opponent has a piece besides the king it can; against a bare king it must mate with its own
/// men, by lichess's rule (`fide_can_mate` with no blocker).
fn can_win<V: Family>(pos: &Position<V>, color: Color) -> bool {
    let b = pos.board();
    V::PLACEMENT || (b.by_color(!color) & !b.by_role(V::KING)).any() || fide_can_mate(pos, color)
}

/// Implements [`Variant`] for a mode of the family by delegating to the shared hooks.
macro_rules! family_variant {
    ($ty:ident, $id:literal, $name:literal, $summary:literal, $fen:literal, castles: $castles:expr,
     conversion: $conv:literal, pawn_ok: |$c:ident, $rank:ident| $pawn_ok:expr) => {
        impl Variant for $ty {
            type Geo = Board8x8;
            type Ext = Economy;

            const ID: &'static str = $id;
            const NAME: &'static str = $name;
            const SUMMARY: &'static str = $summary;
            const PIECES: &'static [PieceDef] = &FIDE_PIECES;
            const START_FEN: &'static str = $fen;
            const CASTLES: &'static [crate::variant::CastleDef] = $castles;
            const PROMOTION_ROLES: u16 = PROMOTION_ROLES;
            const ECONOMY: bool = <$ty as Family>::GOLD;
            const CONVERSION: bool = $conv;

            piece_tables!(u64);

            fn can_win(pos: &Position<Self>, color: Color) -> bool {
                can_win(pos, color)
            }

            #[inline(always)]
            fn promotions(pos: &Position<Self>, _to: Square, captured: Option<Role>) -> Promotions {
                promotions(pos, captured)
            }
            #[inline(always)]
            fn gen_extra(pos: &Position<Self>, info: &CheckInfo<u64>, out: &mut MoveList) {
                gen_extra(pos, info, out)
            }
            #[inline(always)]
            fn converted_role(piece: Piece, sq: Square) -> Role {
                let last = Board8x8::relative_rank(sq, piece.color == Color::White) == 7;
                if piece.role.idx() == PAWN && last && !<$ty as Family>::WAITING_PAWNS {
                    Role(QUEEN as u8)
                } else {
                    piece.role
                }
            }
            #[inline(always)]
            fn after_action(pos: &mut Position<Self>, fx: &Effects) {
                after_action(pos, fx)
            }
            #[inline(always)]
            fn start_turn(pos: &mut Position<Self>) {
                start_turn(pos)
            }
            #[inline(always)]
            fn resets_progress(fx: &Effects) -> bool {
                resets_progress(fx)
            }
            #[inline(always)]
            fn variant_outcome(pos: &Position<Self>) -> Option<Outcome> {
                variant_outcome(pos)
            }
            #[inline(always)]
            fn ext_hash(ext: &Economy) -> u64 {
                ext_hash::<Self>(ext)
            }
            fn parse_ext(pos: &mut Position<Self>, fields: &[&str]) -> Result<(), PositionError> {
                parse_ext(pos, fields)
            }
            fn write_ext(pos: &Position<Self>, out: &mut String) {
                write_ext(pos, out)
            }
            fn pawn_square_ok($c: Color, sq: Square) -> bool {
                let $rank = Board8x8::relative_rank(sq, $c == Color::White);
                $pawn_ok
            }
            fn validate(pos: &Position<Self>) -> Result<(), PositionError> {
                validate(pos)
            }
            fn has_placements() -> bool {
                <$ty as Family>::PLACEMENT
            }
            fn explain_placement(pos: &Position<Self>, letter: char, to: Square) -> String {
                explain_placement(pos, letter, to)
            }
            fn explain_promotion(pos: &Position<Self>, role: Role, letter: char, sq: Square) -> String {
                explain_promotion(pos, role, letter, sq)
            }
            fn explain_move(pos: &Position<Self>, from: Square, to: Square) -> Option<String> {
                explain_move(pos, from, to)
            }
            fn explain_promotion_letter(
                pos: &Position<Self>,
                from: Square,
                to: Square,
                letter: Option<char>,
                forms: &[Move],
            ) -> Option<String> {
                explain_promotion_letter(pos, from, to, letter, forms)
            }
            fn state(pos: &Position<Self>) -> VariantState {
                state(pos)
            }
        }
    };
}

/// `gold`: Chess Gold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChessGold;

impl Family for ChessGold {
    const GOLD: bool = true;
    const PLACEMENT: bool = true;
    const ANYWHERE: bool = false;
    const WAITING_PAWNS: bool = true;
    const PLACEMENT_BAN: bool = false;
}

family_variant!(
    ChessGold,
    "gold",
    "Chess Gold",
    "Both sides start with a lone king and 3 gold. Earn 1 gold a turn and half a piece's price for each capture, and buy pawns, knights, bishops, rooks and queens onto your first three ranks. Promotion costs 1 gold.",
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3",
    castles: &[],
    conversion: false,
    pawn_ok: |c, rank| rank != 0
);

/// `sandbox`: Anything Goes (provisional rules).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sandbox;

impl Family for Sandbox {
    const GOLD: bool = false;
    const PLACEMENT: bool = true;
    const ANYWHERE: bool = true;
    const WAITING_PAWNS: bool = false;
    const PLACEMENT_BAN: bool = false;
}

family_variant!(
    Sandbox,
    "sandbox",
    "Anything Goes",
    "Provisional rules. Kings alone on e1 and e8; each turn either move a piece or place a new pawn, knight, bishop, rook or queen for free on any empty square (pawns on ranks 2-7), up to 15 pieces besides the king.",
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
    castles: &[],
    conversion: false,
    pawn_ok: |c, rank| rank != 0 && rank != 7
);

/// `conqueror`: FIDE chess in which captured pieces change sides.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Conqueror;

impl Family for Conqueror {
    const GOLD: bool = false;
    const PLACEMENT: bool = false;
    const ANYWHERE: bool = false;
    const WAITING_PAWNS: bool = false;
    const PLACEMENT_BAN: bool = false;
}

family_variant!(
    Conqueror,
    "conqueror",
    "Conqueror",
    "FIDE chess in which a capture converts: the captured piece joins the capturer's side on the square the capturer came from. Leave your opponent with nothing but the king, or checkmate.",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    castles: &FIDE_CASTLES,
    conversion: true,
    pawn_ok: |c, rank| rank != 7
);

/// `conqueror-gold`: Chess Gold with Conqueror's conversions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConquerorGold;

impl Family for ConquerorGold {
    const GOLD: bool = true;
    const PLACEMENT: bool = true;
    const ANYWHERE: bool = false;
    const WAITING_PAWNS: bool = true;
    const PLACEMENT_BAN: bool = true;
}

family_variant!(
    ConquerorGold,
    "conqueror-gold",
    "Conqueror Gold",
    "Chess Gold's economy with Conqueror's conversions: buy your army with gold, convert what you capture, and never place two turns in a row. A player left with only the king after a conversion loses.",
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3 placed=-",
    castles: &[],
    conversion: true,
    pawn_ok: |c, rank| { let _ = rank; true }
);
