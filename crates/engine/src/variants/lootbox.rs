//! `lootbox`: Chess Gold with loot boxes, inventories, three items and the second king.
//!
//! All of `gold`, plus: seeded boxes that spawn on ranks 4-5 and block like pieces, hits by
//! moves ending next to them, contents drawn from a ChaCha20 stream exactly as the rule book
//! specifies, inventories of looted pieces and items, equips (crossbow, turtle shell, crown) that
//! do not end the turn, and kings that can be captured while their owner has two or more.

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

use crate::action::{Move, MoveKind, MoveList};
use crate::bitboard::BitBoard;
use crate::geometry::{Board8x8, Geometry};
use crate::movegen::has_legal_move;
use crate::pieces::{FIDE_PIECES, Piece, PieceDef, Role};
use crate::position::{Position, PositionError, mix};
use crate::square::{Color, Square};
use crate::state::{BoxView, ByColor, Gold, InventoryView, ItemsView, OpenedView, ShopItem, VariantState};
use crate::variant::{CheckInfo, Effects, Promotions, Variant};

use super::gold::{
    CAPTURE_INCOME, COST, INCOME, PROMOTION_FEE, PROMOTION_ORDER, PROMOTION_ROLES, last_rank, placement_zone,
    ranks_text, role_noun,
};
use super::piece_tables;
use super::standard::role::{BISHOP, KNIGHT, PAWN, QUEEN, ROOK};

const KING: usize = 5;

/// Item codes (in `Move::aux` of an equip).
pub const CROSSBOW: u8 = 0;
/// The turtle shell.
pub const SHELL: u8 = 1;
/// The crown.
pub const CROWN: u8 = 2;
/// Item names by code.
pub const ITEM_NAMES: [&str; 3] = ["crossbow", "shell", "crown"];
/// Equip prices in half-gold units by item code: crossbow 2, shell 2, crown 3.5.
pub const ITEM_COST: [u32; 3] = [4, 4, 7];
/// Pieces a box can hold, in inventory order.
const LOOT_PIECES: [usize; 5] = [PAWN, KNIGHT, BISHOP, ROOK, KING];
/// Most boxes on the board at once.
const MAX_BOXES: u32 = 2;

/// What a box holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Contents {
    /// Gold coins (3 to 6).
    Gold(u8),
    /// A piece, by FIDE role index.
    Piece(usize),
    /// An item, by item code.
    Item(u8),
}

impl Contents {
    /// The rule book's name: `gold3`..`gold6`, `P`, `B`, `N`, `R`, `K`, `crossbow`, `shell`, `crown`.
    pub fn name(self) -> String {
        match self {
            Contents::Gold(n) => format!("gold{n}"),
            Contents::Piece(r) => FIDE_PIECES[r].letter.to_string(),
            Contents::Item(i) => ITEM_NAMES[i as usize].to_string(),
        }
    }
}

/// The contents table: `r = uniform(10000)` against these cumulative upper bounds.
pub const CONTENTS_TABLE: [(u32, Contents); 12] = [
    (1250, Contents::Gold(3)),
    (1875, Contents::Gold(4)),
    (2500, Contents::Gold(5)),
    (3125, Contents::Gold(6)),
    (5000, Contents::Piece(PAWN)),
    (6250, Contents::Piece(BISHOP)),
    (7500, Contents::Piece(KNIGHT)),
    (8125, Contents::Piece(ROOK)),
    (8750, Contents::Item(SHELL)),
    (9375, Contents::Item(CROSSBOW)),
    (9999, Contents::Item(CROWN)),
    (10000, Contents::Piece(KING)),
];

/// The contents for a draw `r` in `0..10000`.
pub fn contents_of(r: u32) -> Contents {
    CONTENTS_TABLE.iter().find(|(bound, _)| r < *bound).map_or(Contents::Piece(KING), |(_, c)| *c)
}

/// A game's random stream: ChaCha20 keyed by the seed, read as little-endian 32-bit words.
#[derive(Debug)]
pub struct Stream {
    rng: ChaCha20Rng,
    words: u32,
}

impl Stream {
    /// The stream of `seed`, positioned after `words` words.
    pub fn new(seed: u64, words: u32) -> Stream {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        let mut rng = ChaCha20Rng::from_seed(key);
        rng.set_word_pos(u128::from(words));
        Stream { rng, words }
    }

    /// Words read so far.
    pub fn words(&self) -> u32 {
        self.words
    }

    /// The next 32-bit word.
    pub fn next_word(&mut self) -> u32 {
        self.words += 1;
        self.rng.next_u32()
    }

    /// A uniform number in `0..n` by rejection (no modulo bias), as the rule book defines it.
    pub fn uniform(&mut self, n: u32) -> u32 {
        let n = n.max(1);
        let zone = (1u64 << 32) - (1u64 << 32) % u64::from(n);
        loop {
            let x = self.next_word();
            if u64::from(x) < zone {
                return x % n;
            }
        }
    }
}

/// One player's reserve: looted pieces and items.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Inventory {
    /// Count by FIDE role index (P N B R Q K; Q never comes from a box).
    pub pieces: [u8; 6],
    /// Count by item code.
    pub items: [u8; 3],
}

/// A box opened by the last action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opened {
    /// Where it stood.
    pub square: Square,
    /// Who opened it.
    pub by: Color,
    /// What it held.
    pub contents: Contents,
}

/// The Loot Boxes part of the position.
#[derive(Clone, Copy, Debug, Default)]
pub struct LootState {
    /// Gold in half-gold units, White and Black.
    pub gold: [u32; 2],
    /// Squares holding a box.
    pub boxes: u64,
    /// Boxes with exactly one hit.
    pub hit1: u64,
    /// Boxes with exactly two hits.
    pub hit2: u64,
    /// Inventories of White and Black.
    pub inventory: [Inventory; 2],
    /// Pieces carrying a crossbow.
    pub crossbows: u64,
    /// Pieces carrying a turtle shell.
    pub shells: u64,
    /// Rounds until the next spawn (0 before the first draw).
    pub countdown: u8,
    /// Random words used so far.
    pub words: u32,
    /// The game's seed (in memory only: never in the position text or the repetition key).
    pub seed: u64,
    /// What the last action opened.
    pub opened: [Option<Opened>; 2],
    /// The current action made progress beyond what its kind shows (a bolt, a shell break, an
    /// opening).
    progress: bool,
}

impl PartialEq for LootState {
    fn eq(&self, o: &LootState) -> bool {
        self.gold == o.gold
            && self.boxes == o.boxes
            && self.hit1 == o.hit1
            && self.hit2 == o.hit2
            && self.inventory == o.inventory
            && self.crossbows == o.crossbows
            && self.shells == o.shells
            && self.countdown == o.countdown
            && self.words == o.words
    }
}

impl Eq for LootState {}

impl LootState {
    /// Hits taken by the box on `sq`.
    pub fn hits(&self, sq: Square) -> u8 {
        if self.hit2.contains(sq) {
            2
        } else if self.hit1.contains(sq) {
            1
        } else {
            0
        }
    }

    fn draw(&mut self, n: u32) -> u32 {
        let mut stream = Stream::new(self.seed, self.words);
        let x = stream.uniform(n);
        self.words = stream.words();
        x
    }

    fn clear_items(&mut self, sq: Square) {
        self.crossbows = self.crossbows.without(sq);
        self.shells = self.shells.without(sq);
    }

    fn remove_box(&mut self, sq: Square) {
        self.boxes = self.boxes.without(sq);
        self.hit1 = self.hit1.without(sq);
        self.hit2 = self.hit2.without(sq);
    }
}

/// Chess Gold with loot boxes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LootBox;

type Pos = Position<LootBox>;

fn neighbours(sq: Square) -> u64 {
    LootBox::piece_tables().leap_capture(KING, Color::White, sq)
}

fn spawn_ranks() -> u64 {
    let t = Board8x8::tables();
    t.rank[3] | t.rank[4]
}

fn give(pos: &mut Pos, by: Color, contents: Contents) {
    let e = &mut pos.ext;
    match contents {
        Contents::Gold(n) => e.gold[by.index()] += u32::from(n) * 2,
        Contents::Piece(r) => e.inventory[by.index()].pieces[r] += 1,
        Contents::Item(i) => e.inventory[by.index()].items[i as usize] += 1,
    }
}

/// Draws and hands out the contents of the box on `sq`, and removes it.
fn open_box(pos: &mut Pos, sq: Square, by: Color) {
    let contents = contents_of(pos.ext.draw(10_000));
    give(pos, by, contents);
    pos.ext.remove_box(sq);
    pos.ext.progress = true;
    let slot = usize::from(pos.ext.opened[0].is_some());
    if slot < 2 {
        pos.ext.opened[slot] = Some(Opened { square: sq, by, contents });
    }
}

/// The bolt of a crossbow fired by a capture of a `role` from `from` to `to`.
fn fire_bolt(pos: &mut Pos, mover: Color, from: Square, to: Square, role: usize) {
    let df = Board8x8::file_of(to) as i32 - Board8x8::file_of(from) as i32;
    let dr = Board8x8::rank_of(to) as i32 - Board8x8::rank_of(from) as i32;
    let (step, once) = match role {
        PAWN | KNIGHT => ((df, dr), true),
        BISHOP | ROOK | QUEEN => ((df.signum(), dr.signum()), false),
        _ => return,
    };
    let (mut f, mut r) = (Board8x8::file_of(to) as i32, Board8x8::rank_of(to) as i32);
    loop {
        f += step.0;
        r += step.1;
        let Some(sq) = Board8x8::square(f, r) else { return };
        if pos.ext.boxes.contains(sq) {
            return;
        }
        if let Some(p) = pos.board.piece_at(sq) {
            if p.color == mover || p.role.idx() == KING {
                return;
            }
            if pos.ext.shells.contains(sq) {
                pos.ext.shells = pos.ext.shells.without(sq);
            } else {
                pos.take_piece(sq);
                pos.ext.clear_items(sq);
                pos.ext.gold[mover.index()] += CAPTURE_INCOME[p.role.idx()];
            }
            pos.ext.progress = true;
            return;
        }
        if once {
            return;
        }
    }
}

/// The square of the piece a board move attacks (the passed pawn for en passant).
fn victim_square(pos: &Pos, mv: Move) -> Square {
    if mv.kind == MoveKind::EnPassant { pos.ep_victim(mv.from, mv.to) } else { mv.to }
}

/// An action's own effects (everything but ending the turn and the round).
fn act(pos: &mut Pos, mv: Move) -> (Effects, Option<Square>) {
    let us = pos.turn;
    pos.ext.opened = [None, None];
    let board_move = matches!(mv.kind, MoveKind::Normal | MoveKind::Promotion | MoveKind::EnPassant);
    if board_move {
        let victim = victim_square(pos, mv);
        let shelled_enemy =
            pos.ext.shells.contains(victim) && pos.board.piece_at(victim).is_some_and(|p| p.color != us);
        if shelled_enemy {
            // The shell breaks; the attacker stays where it is and keeps its crossbow.
            pos.set_ep(None);
            pos.ext.shells = pos.ext.shells.without(victim);
            pos.ext.progress = true;
            let role = pos.board.role_at(mv.from).unwrap_or(Role::NONE);
            return (Effects { mv: Move::normal(mv.from, mv.from), mover: us, role, captured: None }, None);
        }
    }
    let had_crossbow = board_move && pos.ext.crossbows.contains(mv.from);
    let had_shell = board_move && pos.ext.shells.contains(mv.from);
    if board_move {
        pos.ext.clear_items(mv.from);
    }
    let (fx, double_push) = pos.apply_action(mv);
    if let Some((_, sq)) = fx.captured {
        pos.ext.clear_items(sq);
    }
    if board_move {
        if had_shell {
            pos.ext.shells |= u64::from_square(mv.to);
        }
        if had_crossbow {
            if fx.captured.is_some() {
                fire_bolt(pos, us, mv.from, mv.to, fx.role.idx());
            } else {
                pos.ext.crossbows |= u64::from_square(mv.to);
            }
        }
        // Hits on every box next to where the piece ended; a queen's hit opens at once.
        let queen = pos.board.role_at(mv.to).is_some_and(|r| r.idx() == QUEEN);
        let mut opening = 0u64;
        for b in (neighbours(mv.to) & pos.ext.boxes).squares() {
            let e = &mut pos.ext;
            if queen || e.hit2.contains(b) {
                opening |= u64::from_square(b);
            } else if e.hit1.contains(b) {
                e.hit1 = e.hit1.without(b);
                e.hit2 |= u64::from_square(b);
            } else {
                e.hit1 |= u64::from_square(b);
            }
        }
        for b in opening.squares() {
            open_box(pos, b, us);
        }
    }
    (fx, double_push)
}

fn finish_turn(pos: &mut Pos, fx: &Effects, double_push: Option<Square>) {
    let progress = pos.ext.progress;
    pos.end_turn(fx, double_push);
    if progress {
        pos.halfmoves = 0;
    }
    pos.ext.progress = false;
}

/// The round end after Black's action: unless White is mated or stalemated, the countdown
/// falls and at zero a box may spawn and the next countdown is drawn.
fn round_end(pos: &mut Pos) {
    let mut list = Vec::new();
    if !has_legal_move(pos, &mut list) {
        list.clear();
        LootBox::gen_equips(pos, &mut list);
        if list.is_empty() {
            return;
        }
    }
    let e = &mut pos.ext;
    e.countdown = e.countdown.saturating_sub(1);
    if e.countdown > 0 {
        return;
    }
    let free = spawn_ranks() & !pos.board.occupied() & !pos.ext.boxes;
    if pos.ext.boxes.count() < MAX_BOXES && free.any() {
        let i = pos.ext.draw(free.count()) as usize;
        if let Some(sq) = free.squares().nth(i) {
            pos.ext.boxes |= u64::from_square(sq);
        }
    }
    pos.ext.countdown = 3 + pos.ext.draw(3) as u8;
}

fn can_buy(pos: &Pos, us: Color, role: usize) -> bool {
    let e = &pos.ext;
    e.inventory[us.index()].pieces[role] > 0 || (role != KING && e.gold[us.index()] >= COST[role])
}

fn item_of(name: &str) -> Option<u8> {
    ITEM_NAMES.iter().position(|n| *n == name).map(|i| i as u8)
}

fn inventory_text(inv: &Inventory) -> String {
    let mut parts = Vec::new();
    for r in LOOT_PIECES {
        match inv.pieces[r] {
            0 => {}
            1 => parts.push(FIDE_PIECES[r].letter.to_string()),
            n => parts.push(format!("{}{n}", FIDE_PIECES[r].letter)),
        }
    }
    for (i, name) in ITEM_NAMES.iter().enumerate() {
        match inv.items[i] {
            0 => {}
            1 => parts.push((*name).to_string()),
            n => parts.push(format!("{name}{n}")),
        }
    }
    if parts.is_empty() { "-".to_string() } else { parts.join(",") }
}

fn parse_inventory(text: &str) -> Option<Inventory> {
    let mut inv = Inventory::default();
    if text == "-" {
        return Some(inv);
    }
    for part in text.split(',') {
        let name_len = part.find(|c: char| c.is_ascii_digit()).unwrap_or(part.len());
        let (name, count) = part.split_at(name_len);
        let n: u8 = if count.is_empty() { 1 } else { count.parse().ok().filter(|n| *n > 1)? };
        if let Some(i) = item_of(name) {
            inv.items[i as usize] = inv.items[i as usize].checked_add(n)?;
        } else {
            let mut chars = name.chars();
            let (Some(letter), None) = (chars.next(), chars.next()) else { return None };
            let r = LOOT_PIECES.iter().copied().find(|r| FIDE_PIECES[*r].letter == letter)?;
            inv.pieces[r] = inv.pieces[r].checked_add(n)?;
        }
    }
    Some(inv)
}

fn square_list(bits: u64, f: impl Fn(Square) -> String) -> String {
    if bits.is_zero() { "-".to_string() } else { bits.squares().map(f).collect::<Vec<_>>().join(",") }
}

impl Variant for LootBox {
    type Geo = Board8x8;
    type Ext = LootState;

    const ID: &'static str = "lootbox";
    const NAME: &'static str = "Chess Gold: Loot Boxes";
    const SUMMARY: &'static str = "Chess Gold with loot boxes: boxes appear on ranks 4 and 5; hit one three times (or once with a queen) to open it for gold, a piece, a crossbow, a turtle shell, a crown, or even a second king.";
    const PIECES: &'static [PieceDef] = &FIDE_PIECES;
    const START_FEN: &'static str =
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3 boxes=- inventory=-/- items=- countdown=0 words=0";
    const PROMOTION_ROLES: u16 = PROMOTION_ROLES;
    const ECONOMY: bool = true;
    const SEEDED: bool = true;
    const HAS_EQUIPS: bool = true;
    const PIN_LEGALITY: bool = false;
    const MAX_KINGS: u32 = 16;
    const SIDE_NOT_TO_MOVE_MAY_BE_IN_CHECK: bool = true;

    piece_tables!(u64);

    /// Always, as in `gold`: income comes every turn, so a bare king can still buy pieces.
    fn can_win(_pos: &Position<Self>, _color: Color) -> bool {
        true
    }

    #[inline(always)]
    fn blockers(pos: &Pos) -> u64 {
        pos.ext.boxes
    }

    #[inline(always)]
    fn uncapturable(pos: &Pos) -> u64 {
        let kings = pos.board.pieces(!pos.turn, KING);
        if kings.more_than_one() { 0 } else { kings }
    }

    fn promotions(pos: &Pos, to: Square, captured: Option<Role>) -> Promotions {
        if captured.is_some() && pos.ext.shells.contains(to) {
            // The shell breaks and the pawn stays: written without a letter, no fee.
            return Promotions { roles: 0, stay: true };
        }
        let gold = pos.ext.gold[pos.turn.index()] + captured.map_or(0, |r| CAPTURE_INCOME[r.idx()]);
        Promotions { roles: if gold >= PROMOTION_FEE { PROMOTION_ROLES } else { 0 }, stay: true }
    }

    fn gen_extra(pos: &Pos, _info: &CheckInfo<u64>, out: &mut MoveList) {
        let us = pos.turn;
        // Every candidate is judged by playing it, so a looted king may answer a check.
        let empty = !pos.occupied() & Board8x8::tables().all;
        for role in [PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING] {
            if can_buy(pos, us, role) {
                for sq in (placement_zone(role, us, false) & empty).squares() {
                    out.push(Move::place(Role(role as u8), sq));
                }
            }
        }
        if pos.ext.gold[us.index()] >= PROMOTION_FEE {
            for sq in (pos.board.pieces(us, PAWN) & last_rank(us)).squares() {
                for role in PROMOTION_ORDER {
                    out.push(Move::promote_in_place(sq, Role(role as u8)));
                }
            }
        }
    }

    fn after_action(pos: &mut Pos, fx: &Effects) {
        let us = fx.mover.index();
        let e = &mut pos.ext;
        if let Some((victim, _)) = fx.captured {
            e.gold[us] += CAPTURE_INCOME[victim.role.idx()];
        }
        match fx.mv.kind {
            MoveKind::Place => {
                let r = fx.mv.role.idx();
                if e.inventory[us].pieces[r] > 0 {
                    e.inventory[us].pieces[r] -= 1;
                } else {
                    e.gold[us] = e.gold[us].saturating_sub(COST[r]);
                }
            }
            MoveKind::Promotion | MoveKind::PromoteInPlace => e.gold[us] = e.gold[us].saturating_sub(PROMOTION_FEE),
            _ => {}
        }
    }

    fn start_turn(pos: &mut Pos) {
        let turn = pos.turn.index();
        pos.ext.gold[turn] += INCOME;
    }

    fn resets_progress(fx: &Effects) -> bool {
        fx.captured.is_some()
            || (fx.mv.is_board_move() && fx.role.idx() == PAWN && fx.mv.from != fx.mv.to)
            || matches!(fx.mv.kind, MoveKind::Place | MoveKind::PromoteInPlace | MoveKind::Promotion)
    }

    fn play(pos: &mut Pos, mv: Move) {
        let mover = pos.turn;
        let (fx, double_push) = act(pos, mv);
        finish_turn(pos, &fx, double_push);
        if mover == Color::Black {
            round_end(pos);
        }
    }

    fn play_for_legality(pos: &mut Pos, mv: Move) {
        let (fx, double_push) = act(pos, mv);
        finish_turn(pos, &fx, double_push);
    }

    fn gen_equips(pos: &Pos, out: &mut MoveList) {
        let us = pos.turn;
        let e = &pos.ext;
        let inv = e.inventory[us.index()];
        let gold = e.gold[us.index()];
        let mut candidates = Vec::new();
        for item in [CROSSBOW, SHELL, CROWN] {
            if inv.items[item as usize] == 0 || gold < ITEM_COST[item as usize] {
                continue;
            }
            let carriers = pos.board.by_color(us) & !pos.board.by_role(KING);
            for sq in carriers.squares() {
                match item {
                    CROSSBOW if !e.crossbows.contains(sq) => candidates.push(Move::equip(item, sq, Role::NONE)),
                    SHELL if !e.shells.contains(sq) => candidates.push(Move::equip(item, sq, Role::NONE)),
                    CROWN => {
                        let own = pos.board.role_at(sq).map_or(usize::MAX, |r| r.idx());
                        for r in PROMOTION_ORDER.into_iter().filter(|r| *r != own) {
                            candidates.push(Move::equip(item, sq, Role(r as u8)));
                        }
                    }
                    _ => {}
                }
            }
        }
        let mut after_list = Vec::new();
        for m in candidates {
            let mut after = pos.clone();
            Self::apply_equip(&mut after, m);
            if has_legal_move(&after, &mut after_list) {
                out.push(m);
            }
        }
    }

    fn apply_equip(pos: &mut Pos, m: Move) {
        let us = pos.turn;
        let item = m.aux.index();
        let e = &mut pos.ext;
        e.gold[us.index()] = e.gold[us.index()].saturating_sub(ITEM_COST[item as usize]);
        e.inventory[us.index()].items[item as usize] = e.inventory[us.index()].items[item as usize].saturating_sub(1);
        // Rule 12: the equip resets the no-progress counter at once, so the position text
        // between it and the turn action shows 0 and a game loaded from that text goes on
        // with the same counters.
        pos.halfmoves = 0;
        match item {
            CROSSBOW => e.crossbows |= u64::from_square(m.to),
            SHELL => e.shells |= u64::from_square(m.to),
            _ => {
                if pos.take_piece(m.to).is_some() {
                    pos.put_piece(m.to, Piece { color: us, role: m.role });
                }
            }
        }
    }

    fn equip_text(m: Move) -> String {
        let item = ITEM_NAMES.get(m.aux.idx()).copied().unwrap_or("item");
        let sq = Board8x8::name(m.to);
        if m.aux.index() == CROWN {
            let letter = FIDE_PIECES.get(m.role.idx()).map_or('?', |d| d.letter);
            format!("{item}@{sq}={letter}")
        } else {
            format!("{item}@{sq}")
        }
    }

    fn explain_equip(pos: &Pos, item: &str, sq: Square, crown: Option<char>) -> String {
        let us = pos.turn;
        let square = Board8x8::name(sq);
        let Some(code) = item_of(item) else {
            return format!("'{item}' is not an item (items: crossbow, shell, crown) (rule 9)");
        };
        match (code, crown) {
            (CROWN, None) => {
                return "a crown is written with the piece's new type, as in crown@d4=R (rule 9)".to_string();
            }
            (CROSSBOW | SHELL, Some(_)) => {
                return format!(
                    "only a crown is written with a new type; a {item} is written {item}@{square} (rule 9)"
                );
            }
            _ => {}
        }
        let e = &pos.ext;
        if e.inventory[us.index()].items[code as usize] == 0 {
            return format!("{} has no {item} in the inventory (rule 9)", us.name());
        }
        let cost = ITEM_COST[code as usize];
        if e.gold[us.index()] < cost {
            return format!(
                "equipping a {item} costs {} and {} has {} (rule 9)",
                Gold(cost).to_text(),
                us.name(),
                Gold(e.gold[us.index()]).to_text()
            );
        }
        let own = match pos.board.piece_at(sq) {
            None => return format!("there is no piece on {square} (rule 9)"),
            Some(p) if p.color != us => return format!("the piece on {square} is {}'s (rule 9)", p.color.name()),
            Some(p) if p.role.idx() == KING => return "items are never put on a king (rule 9)".to_string(),
            Some(p) => p.role.idx(),
        };
        let mut new_role = Role::NONE;
        match code {
            CROSSBOW if e.crossbows.contains(sq) => {
                return format!(
                    "the piece on {square} already carries a crossbow, and a piece holds one at most (rule 9)"
                );
            }
            SHELL if e.shells.contains(sq) => {
                return format!(
                    "the piece on {square} already carries a shell, and a piece holds one at most (rule 9)"
                );
            }
            CROWN => {
                let role = crown.and_then(|l| FIDE_PIECES.iter().position(|d| d.letter == l));
                match role {
                    Some(r) if r == own => {
                        return format!(
                            "a crown changes the piece's type, and the piece on {square} is already {} (rule 9)",
                            role_noun(r)
                        );
                    }
                    Some(r) if PROMOTION_ORDER.contains(&r) => new_role = Role(r as u8),
                    _ => return "a crown turns a piece into a knight, bishop, rook or queen (rule 9)".to_string(),
                }
            }
            _ => {}
        }
        // Every other condition holds: the last one of rule 9 refuses it.
        let mut after = pos.clone();
        Self::apply_equip(&mut after, Move::equip(code, sq, new_role));
        if has_legal_move(&after, &mut Vec::new()) {
            return crate::explain::UNEXPLAINED.to_string();
        }
        format!("after this equip {} would have no legal turn action, and an equip must leave one (rule 9)", us.name())
    }

    fn explain_move(pos: &Pos, from: Square, to: Square) -> Option<String> {
        let piece = pos.board.piece_at(from)?;
        let role = piece.role.idx();
        if role == PAWN && last_rank(piece.color).contains(from) {
            return Some(format!(
                "a pawn waiting on the last rank cannot move; it is promoted in place, as in {}=Q (Chess Gold rule 6)",
                Board8x8::name(from)
            ));
        }
        if Self::uncapturable(pos).contains(to) {
            return Some(format!(
                "the king on {} is {}'s only king, and a lone king is never captured (rule 8)",
                Board8x8::name(to),
                (!pos.turn).name()
            ));
        }
        let same_rank = Board8x8::rank_of(from) == Board8x8::rank_of(to);
        if role == KING && same_rank && Board8x8::file_of(from).abs_diff(Board8x8::file_of(to)) == 2 {
            return Some(format!("{} has no castling (Chess Gold rule 8)", Self::NAME));
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
        let us = pos.turn;
        let pawn = pos.board.role_at(from).is_some_and(|r| r.idx() == PAWN);
        if !pawn || !last_rank(us).contains(to) || letter.is_none() {
            return None;
        }
        if forms.iter().any(|m| m.kind == MoveKind::Promotion) {
            return Some(format!(
                "a pawn is promoted to N, B, R or Q: {} (Chess Gold rule 6)",
                crate::explain::texts::<Self>(forms)
            ));
        }
        let shelled = pos.ext.shells.contains(to) && pos.board.piece_at(to).is_some_and(|p| p.color != us);
        Some(if shelled {
            format!(
                "the shell on {} breaks and the pawn stays on {}, so it does not promote: {} (rule 9)",
                Board8x8::name(to),
                Board8x8::name(from),
                crate::explain::texts::<Self>(forms)
            )
        } else {
            format!(
                "promotion costs 1 gold and {} has {}, so the pawn can only move there and wait: {} (Chess Gold rule 6)",
                us.name(),
                Gold(pos.ext.gold[us.index()]).to_text(),
                crate::explain::texts::<Self>(forms)
            )
        })
    }

    fn ext_hash(e: &LootState) -> u64 {
        let inv = |i: &Inventory| {
            let mut x = 0u64;
            for n in i.pieces.iter().chain(i.items.iter()) {
                x = (x << 6) | u64::from(*n & 0x3F);
            }
            x
        };
        mix(u64::from(e.gold[0]) | 1 << 40)
            ^ mix(u64::from(e.gold[1]) | 2 << 40)
            ^ mix(e.boxes ^ 0x1111)
            ^ mix(e.hit1 ^ 0x2222)
            ^ mix(e.hit2 ^ 0x3333)
            ^ mix(inv(&e.inventory[0]) ^ 0x4444)
            ^ mix(inv(&e.inventory[1]) ^ 0x5555 << 20)
            ^ mix(e.crossbows ^ 0x6666)
            ^ mix(e.shells ^ 0x7777)
            ^ mix(u64::from(e.countdown) | 4 << 40)
    }

    fn set_seed(pos: &mut Pos, seed: u64) {
        pos.ext.seed = seed;
        if pos.ext.words == 0 && pos.ext.countdown == 0 {
            pos.ext.countdown = 3 + pos.ext.draw(3) as u8;
        }
    }

    fn parse_ext(pos: &mut Pos, fields: &[&str]) -> Result<(), PositionError> {
        let keys = ["gold", "boxes", "inventory", "items", "countdown", "words"];
        let mut values: [Option<&str>; 6] = [None; 6];
        for field in fields {
            let Some((key, value)) = field.split_once('=') else {
                return Err(PositionError::new(format!("unexpected field '{field}' (fields are key=value)")));
            };
            match keys.iter().position(|k| *k == key) {
                Some(i) if values[i].is_none() => values[i] = Some(value),
                _ => return Err(PositionError::new(format!("unexpected or repeated field '{field}'"))),
            }
        }
        let need = |i: usize| {
            values[i].ok_or_else(|| PositionError::new(format!("Loot Boxes positions need the {} field", keys[i])))
        };
        let bad = |what: &str, v: &str| PositionError::new(format!("{what}: cannot read '{v}'"));
        let gold = need(0)?;
        let (w, b) = gold
            .split_once('/')
            .and_then(|(w, b)| Some((Gold::parse(w)?, Gold::parse(b)?)))
            .ok_or_else(|| bad("gold must be white/black, as in gold=4/3.5", gold))?;
        pos.ext.gold = [w.0, b.0];
        let boxes = need(1)?;
        if boxes != "-" {
            for entry in boxes.split(',') {
                let (sq, hits) =
                    entry.split_once(':').ok_or_else(|| bad("boxes are square:hits, as in d4:1", entry))?;
                let sq = Board8x8::parse_square(sq).ok_or_else(|| bad("box square", entry))?;
                let hits: u8 = hits.parse().ok().filter(|h| *h <= 2).ok_or_else(|| bad("box hits (0 to 2)", entry))?;
                if !spawn_ranks().contains(sq) || pos.board.piece_at(sq).is_some() || pos.ext.boxes.contains(sq) {
                    return Err(PositionError::new(format!(
                        "a box on {} must stand alone on rank 4 or 5",
                        Board8x8::name(sq)
                    )));
                }
                pos.ext.boxes |= u64::from_square(sq);
                match hits {
                    1 => pos.ext.hit1 |= u64::from_square(sq),
                    2 => pos.ext.hit2 |= u64::from_square(sq),
                    _ => {}
                }
            }
            if pos.ext.boxes.count() > MAX_BOXES {
                return Err(PositionError::new("at most 2 boxes stand on the board"));
            }
        }
        let inventory = need(2)?;
        let (w, b) = inventory
            .split_once('/')
            .and_then(|(w, b)| Some((parse_inventory(w)?, parse_inventory(b)?)))
            .ok_or_else(|| bad("inventory must be white/black, as in inventory=N,crossbow/-", inventory))?;
        pos.ext.inventory = [w, b];
        let items = need(3)?;
        if items != "-" {
            for entry in items.split(',') {
                let (sq, list) = entry.split_once(':').ok_or_else(|| bad("items are square:item+item", entry))?;
                let sq = Board8x8::parse_square(sq).ok_or_else(|| bad("item square", entry))?;
                let carrier = pos.board.piece_at(sq);
                if carrier.is_none_or(|p| p.role.idx() == KING) {
                    return Err(PositionError::new(format!(
                        "items on {} need a piece other than a king",
                        Board8x8::name(sq)
                    )));
                }
                for name in list.split('+') {
                    match item_of(name) {
                        Some(CROSSBOW) if !pos.ext.crossbows.contains(sq) => pos.ext.crossbows |= u64::from_square(sq),
                        Some(SHELL) if !pos.ext.shells.contains(sq) => pos.ext.shells |= u64::from_square(sq),
                        _ => return Err(bad("a piece carries at most one crossbow and one shell", entry)),
                    }
                }
            }
        }
        let countdown = need(4)?;
        pos.ext.countdown =
            countdown.parse().ok().filter(|c| *c <= 5).ok_or_else(|| bad("countdown (0 to 5)", countdown))?;
        let words = need(5)?;
        pos.ext.words = words
            .parse()
            .ok()
            .filter(|_| !words.starts_with('+'))
            .ok_or_else(|| bad("words (random words used)", words))?;
        Ok(())
    }

    fn write_ext(pos: &Pos, out: &mut String) {
        let e = &pos.ext;
        out.push_str(&format!(" gold={}/{}", Gold(e.gold[0]).to_text(), Gold(e.gold[1]).to_text()));
        out.push_str(&format!(
            " boxes={}",
            square_list(e.boxes, |sq| format!("{}:{}", Board8x8::name(sq), e.hits(sq)))
        ));
        out.push_str(&format!(" inventory={}/{}", inventory_text(&e.inventory[0]), inventory_text(&e.inventory[1])));
        out.push_str(&format!(
            " items={}",
            square_list(e.crossbows | e.shells, |sq| {
                let mut names = Vec::new();
                if e.crossbows.contains(sq) {
                    names.push("crossbow");
                }
                if e.shells.contains(sq) {
                    names.push("shell");
                }
                format!("{}:{}", Board8x8::name(sq), names.join("+"))
            })
        ));
        out.push_str(&format!(" countdown={} words={}", e.countdown, e.words));
    }

    fn pawn_square_ok(color: Color, sq: Square) -> bool {
        Board8x8::relative_rank(sq, color == Color::White) != 0
    }

    fn has_placements() -> bool {
        true
    }

    fn explain_placement(pos: &Pos, letter: char, to: Square) -> String {
        let us = pos.turn;
        let Some(role) = FIDE_PIECES.iter().position(|d| d.letter == letter) else {
            return format!("'{letter}' is not a piece");
        };
        if pos.ext.boxes.contains(to) {
            return format!("a box stands on {}, and nothing is placed on it (rule 4)", Board8x8::name(to));
        }
        if !placement_zone(role, us, false).contains(to) {
            let ranks: &[usize] = if role == PAWN { &[1, 2] } else { &[0, 1, 2] };
            return format!(
                "{} places {} on {} (Chess Gold rule 3, for looted pieces too: rule 7)",
                us.name(),
                if role == PAWN { "pawns" } else { "pieces" },
                ranks_text(us, ranks)
            );
        }
        if role == KING && pos.ext.inventory[us.index()].pieces[KING] == 0 {
            return "a king is never bought; it can only be placed from the inventory (rule 7)".to_string();
        }
        if !can_buy(pos, us, role) {
            return format!(
                "not enough gold: {} costs {} and {} has {} (Chess Gold rule 3)",
                role_noun(role),
                Gold(COST[role]).to_text(),
                us.name(),
                Gold(pos.ext.gold[us.index()]).to_text()
            );
        }
        if pos.is_check() {
            return format!(
                "{} is in check and {} on {} does not end it (Chess Gold rule 4)",
                us.name(),
                role_noun(role),
                Board8x8::name(to)
            );
        }
        crate::explain::UNEXPLAINED.to_string()
    }

    fn explain_promotion(pos: &Pos, role: Role, letter: char, sq: Square) -> String {
        let us = pos.turn;
        if role.idx() != PAWN || !last_rank(us).contains(sq) {
            return "only a pawn waiting on the last rank can be promoted in place (Chess Gold rule 6)".to_string();
        }
        if !FIDE_PIECES.iter().position(|d| d.letter == letter).is_some_and(|r| PROMOTION_ORDER.contains(&r)) {
            return "a pawn is promoted to N, B, R or Q (Chess Gold rule 6)".to_string();
        }
        let gold = pos.ext.gold[us.index()];
        if gold < PROMOTION_FEE {
            return format!(
                "promotion costs 1 gold and {} has {} (Chess Gold rule 6)",
                us.name(),
                Gold(gold).to_text()
            );
        }
        if pos.is_check() {
            return format!("{} is in check, and promoting in place does not end it (Chess Gold rule 4)", us.name());
        }
        crate::explain::UNEXPLAINED.to_string()
    }

    fn state(pos: &Pos) -> VariantState {
        let e = &pos.ext;
        let us = pos.turn;
        let name = |sq: Square| Board8x8::name(sq).to_string();
        let inventory_view = |inv: &Inventory| InventoryView {
            pieces: LOOT_PIECES
                .iter()
                .filter(|r| inv.pieces[**r] > 0)
                .map(|r| (FIDE_PIECES[*r].letter, inv.pieces[*r]))
                .collect(),
            items: (0..3).filter(|i| inv.items[*i] > 0).map(|i| (ITEM_NAMES[i], inv.items[i])).collect(),
        };
        let mut waiting = Vec::new();
        for color in Color::ALL {
            for sq in (pos.board.pieces(color, PAWN) & last_rank(color)).squares() {
                waiting.push(name(sq));
            }
        }
        VariantState {
            gold: Some(ByColor { white: Gold(e.gold[0]), black: Gold(e.gold[1]) }),
            income: Some(Gold(INCOME)),
            shop: Some(
                [PAWN, KNIGHT, BISHOP, ROOK, QUEEN]
                    .iter()
                    .map(|&r| ShopItem {
                        piece: FIDE_PIECES[r].letter,
                        cost: Gold(COST[r]),
                        affordable: e.gold[us.index()] >= COST[r],
                    })
                    .collect(),
            ),
            waiting_pawns: Some(waiting),
            boxes: Some(e.boxes.squares().map(|sq| BoxView { square: name(sq), hits: e.hits(sq) }).collect()),
            countdown: Some(e.countdown),
            inventory: Some(ByColor { white: inventory_view(&e.inventory[0]), black: inventory_view(&e.inventory[1]) }),
            items: Some(
                (e.crossbows | e.shells)
                    .squares()
                    .map(|sq| ItemsView {
                        square: name(sq),
                        items: [(e.crossbows, "crossbow"), (e.shells, "shell")]
                            .iter()
                            .filter(|(bits, _)| bits.contains(sq))
                            .map(|(_, n)| *n)
                            .collect(),
                    })
                    .collect(),
            ),
            opened: Some(
                e.opened
                    .iter()
                    .flatten()
                    .map(|o| OpenedView { square: name(o.square), by: o.by.name(), contents: o.contents.name() })
                    .collect(),
            ),
            ..VariantState::default()
        }
    }
}

impl Inventory {
    /// Whether the player holds a piece of `role` (FIDE role index).
    pub fn has_piece(&self, role: usize) -> bool {
        self.pieces.get(role).is_some_and(|n| *n > 0)
    }
}

/// Replaces the seed a position draws from (a bot searching must not see the real one).
pub fn hide_seed(pos: &mut Pos, stand_in: u64) {
    pos.ext.seed = stand_in;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_vector_of_the_rule_book() {
        // (seed, first countdown, first square index among 16 empty, next countdown, contents)
        for (seed, countdown, square, next, contents) in [
            (0u64, 3, 0, 3, Contents::Item(CROSSBOW)),
            (1, 5, 1, 3, Contents::Item(SHELL)),
            (42, 5, 1, 4, Contents::Gold(5)),
        ] {
            let mut s = Stream::new(seed, 0);
            assert_eq!(3 + s.uniform(3), countdown, "seed {seed}");
            assert_eq!(s.uniform(16), square, "seed {seed}");
            assert_eq!(3 + s.uniform(3), next, "seed {seed}");
            assert_eq!(contents_of(s.uniform(10_000)), contents, "seed {seed}");
            let words = s.words();
            let mut again = Stream::new(seed, words - 1);
            let mut fresh = Stream::new(seed, 0);
            for _ in 0..words - 1 {
                fresh.next_word();
            }
            assert_eq!(again.next_word(), fresh.next_word(), "seeking matches reading");
        }
    }

    #[test]
    fn inventory_text_round_trips() {
        for text in ["-", "N", "P2,K,crossbow", "B,R,shell3,crown"] {
            let inv = parse_inventory(text).expect(text);
            assert_eq!(inventory_text(&inv), text);
        }
        for bad in ["", "Q", "N0", "N1", "x", "crossbow,,", "Z2"] {
            assert!(parse_inventory(bad).is_none(), "{bad}");
        }
        assert!(!Inventory::default().has_piece(KNIGHT));
    }
}
