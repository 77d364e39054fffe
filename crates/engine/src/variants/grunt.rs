//! `grunt`: Grunt Chess. An XP economy: captures earn experience, experience promotes pieces
//! in place one step at a time and musters new grunts beside the king.

use crate::action::{Move, MoveKind, MoveList};
use crate::bitboard::BitBoard;
use crate::geometry::{Board8x8, Geometry};
use crate::pieces::{BISHOP, GRUNT, KING, KNIGHT, PAWN, PieceDef, QUEEN, ROOK, Role};
use crate::position::{Position, PositionError, mix};
use crate::square::{Color, Square};
use crate::state::{ByColor, VariantState, XpPrice};
use crate::variant::{CheckInfo, Effects, Promotions, Variant};

use super::piece_tables;

/// Grunt Chess's pieces: P N B R Q K G.
pub const GRUNT_PIECES: [PieceDef; 7] = [PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING, GRUNT];

mod role {
    pub const PAWN: usize = 0;
    pub const KNIGHT: usize = 1;
    pub const BISHOP: usize = 2;
    pub const ROOK: usize = 3;
    pub const QUEEN: usize = 4;
    pub const KING: usize = 5;
    pub const GRUNT: usize = 6;
}
use role::{GRUNT as G, KING as K};

/// XP a capture earns, by the captured role (P N B R Q K G).
pub const CAPTURE_XP: [u32; 7] = [2, 3, 3, 4, 6, 0, 2];
/// XP the player who lost a piece gains.
pub const CONSOLATION_XP: u32 = 1;
/// XP to muster a grunt.
pub const MUSTER_XP: u32 = 5;
/// Most pieces (king included) a player may have to muster.
pub const MUSTER_LIMIT: u32 = 10;

/// The promotion ladder: from role, to role, XP.
pub const LADDER: [(usize, usize, u32); 6] = [
    (role::PAWN, role::GRUNT, 3),
    (role::GRUNT, role::BISHOP, 6),
    (role::GRUNT, role::KNIGHT, 6),
    (role::BISHOP, role::ROOK, 6),
    (role::KNIGHT, role::ROOK, 6),
    (role::ROOK, role::QUEEN, 9),
];

fn ladder_cost(from: usize, to: usize) -> Option<u32> {
    LADDER.iter().find(|(f, t, _)| *f == from && *t == to).map(|(_, _, xp)| *xp)
}

/// Experience points of White and Black.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Experience {
    /// XP of White and Black.
    pub xp: [u32; 2],
}

/// Grunt Chess.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Grunt;

type Pos = Position<Grunt>;

impl Variant for Grunt {
    type Geo = Board8x8;
    type Ext = Experience;

    const ID: &'static str = "grunt";
    const NAME: &'static str = "Grunt Chess";
    const SUMMARY: &'static str = "Grunts stand where the queen would, rooks are missing, and nothing is free: captures earn XP, XP promotes a piece one rung at a time (pawn, grunt, bishop or knight, rook, queen) and musters new grunts beside the king.";
    const PIECES: &'static [PieceDef] = &GRUNT_PIECES;
    const START_FEN: &'static str = "1nbgkbn1/pppppppp/8/8/8/8/PPPPPPPP/1NBGKBN1 w - - 0 1 xp=0/1";

    piece_tables!(u64);

    /// There is no insufficient-material draw: a bare king with 5 XP can muster, and a king can
    /// earn XP by capturing the opponent's pieces (or the opponent's muster). Only with nothing
    /// but the two kings on the board and fewer than 5 XP on both sides can nothing ever change,
    /// and then neither side can win.
    fn can_win(pos: &Position<Self>, _color: Color) -> bool {
        let b = pos.board();
        (b.occupied() & !b.by_role(K)).any() || pos.ext().xp.iter().any(|&xp| xp >= MUSTER_XP)
    }

    fn promotions(_pos: &Pos, _to: Square, _captured: Option<Role>) -> Promotions {
        // A pawn reaching the last rank waits there until promoted to a grunt with XP.
        Promotions { roles: 0, stay: true }
    }

    fn gen_extra(pos: &Pos, info: &CheckInfo<u64>, out: &mut MoveList) {
        let us = pos.turn();
        let xp = pos.ext().xp[us.index()];
        if info.checkers.is_zero() {
            for (from, to, cost) in LADDER {
                if xp >= cost {
                    for sq in pos.board().pieces(us, from).squares() {
                        out.push(Move::promote_in_place(sq, Role(to as u8)));
                    }
                }
            }
        }
        let count = pos.board().by_color(us).count();
        if xp >= MUSTER_XP
            && count < MUSTER_LIMIT
            && let Some(king) = info.king
        {
            let around = Grunt::piece_tables().leap_capture(K, us, king);
            let empty = !pos.occupied() & Board8x8::tables().all;
            for sq in (around & empty & info.block).squares() {
                out.push(Move::place(Role(G as u8), sq));
            }
        }
    }

    fn after_action(pos: &mut Pos, fx: &Effects) {
        let us = fx.mover.index();
        let e = pos.ext_mut();
        if let Some((victim, _)) = fx.captured {
            e.xp[us] += CAPTURE_XP[victim.role.idx()];
            e.xp[1 - us] += CONSOLATION_XP;
        }
        match fx.mv.kind {
            MoveKind::PromoteInPlace => {
                e.xp[us] = e.xp[us].saturating_sub(ladder_cost(fx.role.idx(), fx.mv.role.idx()).unwrap_or(0));
            }
            MoveKind::Place => e.xp[us] = e.xp[us].saturating_sub(MUSTER_XP),
            _ => {}
        }
    }

    fn resets_progress(fx: &Effects) -> bool {
        fx.captured.is_some()
            || (fx.mv.is_board_move() && fx.role.idx() == role::PAWN)
            || matches!(fx.mv.kind, MoveKind::Place | MoveKind::PromoteInPlace)
    }

    fn ext_hash(e: &Experience) -> u64 {
        mix(u64::from(e.xp[0]) | 5 << 40) ^ mix(u64::from(e.xp[1]) | 6 << 40)
    }

    fn parse_ext(pos: &mut Pos, fields: &[&str]) -> Result<(), PositionError> {
        let [field] = fields else {
            return Err(PositionError::new("Grunt Chess positions end with the XP field, as in xp=0/1"));
        };
        let parsed = field.strip_prefix("xp=").and_then(|v| v.split_once('/')).and_then(|(w, b)| {
            let ok = |t: &str| !t.is_empty() && t.len() <= 6 && t.bytes().all(|c| c.is_ascii_digit());
            if ok(w) && ok(b) { Some((w.parse().ok()?, b.parse().ok()?)) } else { None }
        });
        let Some((w, b)) = parsed else {
            return Err(PositionError::new(format!("XP must be written xp=WHITE/BLACK, as in xp=0/1, not '{field}'")));
        };
        pos.ext_mut().xp = [w, b];
        Ok(())
    }

    fn write_ext(pos: &Pos, out: &mut String) {
        let e = pos.ext();
        out.push_str(&format!(" xp={}/{}", e.xp[0], e.xp[1]));
    }

    fn pawn_square_ok(color: Color, sq: Square) -> bool {
        Board8x8::relative_rank(sq, color == Color::White) != 0
    }

    fn has_placements() -> bool {
        true
    }

    fn explain_placement(pos: &Pos, letter: char, to: Square) -> String {
        let us = pos.turn();
        if letter != 'G' {
            return "only grunts are mustered (G@square, next to the king) (rule 7)".to_string();
        }
        let xp = pos.ext().xp[us.index()];
        if xp < MUSTER_XP {
            return format!("mustering costs {MUSTER_XP} XP and {} has {xp} (rule 7)", us.name());
        }
        let count = pos.board().by_color(us).count();
        if count >= MUSTER_LIMIT {
            return format!("{} has {count} pieces; grunts are mustered only below {MUSTER_LIMIT} (rule 7)", us.name());
        }
        let next_to_king = pos.king(us).is_some_and(|k| Grunt::piece_tables().leap_capture(K, us, k).contains(to));
        if !next_to_king {
            return format!("a grunt is mustered next to the {} king (rule 7)", us.name());
        }
        if pos.is_check() {
            return format!("{} is in check and a grunt on {} does not end it (rule 7)", us.name(), Board8x8::name(to));
        }
        crate::explain::UNEXPLAINED.to_string()
    }

    fn explain_promotion(pos: &Pos, role: Role, letter: char, _sq: Square) -> String {
        let us = pos.turn();
        let Some(to) = GRUNT_PIECES.iter().position(|d| d.letter == letter) else {
            return format!("'{letter}' is not a piece of Grunt Chess");
        };
        let Some(cost) = ladder_cost(role.idx(), to) else {
            return "promotion goes one rung at a time: P to G, G to B or N, B or N to R, R to Q (rule 5)".to_string();
        };
        let xp = pos.ext().xp[us.index()];
        if xp < cost {
            return format!("this promotion costs {cost} XP and {} has {xp} (rule 5)", us.name());
        }
        if pos.is_check() {
            return format!("{} is in check, and no promotion is allowed in check (rule 5)", us.name());
        }
        crate::explain::UNEXPLAINED.to_string()
    }

    fn explain_move(pos: &Pos, from: Square, to: Square) -> Option<String> {
        let piece = pos.board().piece_at(from)?;
        let role = piece.role.idx();
        let last = Board8x8::relative_rank(from, piece.color == Color::White) == 7;
        if role == role::PAWN && last {
            return Some(
                "a pawn on the last rank waits there until it is promoted to a grunt with XP (rule 6)".to_string(),
            );
        }
        let same_rank = Board8x8::rank_of(from) == Board8x8::rank_of(to);
        if role == K && same_rank && Board8x8::file_of(from).abs_diff(Board8x8::file_of(to)) == 2 {
            return Some("Grunt Chess has no castling (setup)".to_string());
        }
        if role == G {
            return Some(format!("{} (rule 1)", crate::explain::movement(pos, piece, from, to)));
        }
        None
    }

    fn explain_promotion_letter(
        pos: &Pos,
        from: Square,
        to: Square,
        letter: Option<char>,
        forms: &[Move],
    ) -> Option<String> {
        let white = pos.turn() == Color::White;
        let pawn = pos.board().role_at(from).is_some_and(|r| r.idx() == role::PAWN);
        (pawn && letter.is_some() && Board8x8::relative_rank(to, white) == 7).then(|| {
            format!(
                "a pawn reaching the last rank does not promote; it waits there until it is promoted to a grunt \
                 with XP: {} (rule 6)",
                crate::explain::texts::<Self>(forms)
            )
        })
    }

    fn state(pos: &Pos) -> VariantState {
        let board = pos.board();
        let last = |c: Color| Board8x8::tables().rank[if c == Color::White { 7 } else { 0 }];
        let waiting = Color::ALL
            .iter()
            .flat_map(|c| (board.pieces(*c, role::PAWN) & last(*c)).squares())
            .map(|sq| Board8x8::name(sq).to_string())
            .collect();
        VariantState {
            xp: Some(ByColor::from_array(pos.ext().xp)),
            xp_prices: Some(
                LADDER
                    .iter()
                    .map(|(from, to, xp)| XpPrice {
                        from: GRUNT_PIECES[*from].letter,
                        to: GRUNT_PIECES[*to].letter,
                        xp: *xp,
                    })
                    .collect(),
            ),
            muster_xp: Some(MUSTER_XP),
            pieces_on_board: Some(ByColor {
                white: board.by_color(Color::White).count(),
                black: board.by_color(Color::Black).count(),
            }),
            muster_limit: Some(MUSTER_LIMIT),
            waiting_pawns: Some(waiting),
            ..VariantState::default()
        }
    }
}
