//! Chess Gold with loot boxes (`rules-chess-gold.md`, sections "General rules", `gold` and
//! `lootbox`): gold, shop, waiting pawns, boxes, the ChaCha20 draws, inventories, items, equips
//! and the second king.

use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};

use super::{
    ALL_DIRECTIONS, Color, KNIGHT, Kind, Outcome, at, board_text, file_of, named, parse_board, parse_side,
    parse_square, rank_of, side_text, square_name, step,
};

pub const START: &str = "4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3 boxes=- inventory=-/- items=- countdown=0 words=0";

/// The `index`-th 32-bit word of the seed's ChaCha20 keystream.
pub fn word(seed: u64, index: u64) -> u32 {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    let mut rng = ChaCha20Rng::from_seed(key);
    rng.set_word_pos(u128::from(index));
    rng.next_u32()
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Item {
    Crossbow,
    Shell,
    Crown,
}

impl Item {
    pub const ALL: [Item; 3] = [Item::Crossbow, Item::Shell, Item::Crown];

    pub fn name(self) -> &'static str {
        match self {
            Item::Crossbow => "crossbow",
            Item::Shell => "shell",
            Item::Crown => "crown",
        }
    }

    /// Price of equipping, in half-gold units.
    fn cost(self) -> u32 {
        match self {
            Item::Crossbow | Item::Shell => 4,
            Item::Crown => 7,
        }
    }
}

/// What a box holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Contents {
    Gold(u32),
    Piece(Kind),
    Item(Item),
}

impl Contents {
    pub fn name(self) -> String {
        match self {
            Contents::Gold(n) => format!("gold{n}"),
            Contents::Piece(k) => k.letter().to_string(),
            Contents::Item(i) => i.name().to_string(),
        }
    }

    fn of(r: u32) -> Contents {
        let table = [
            (1250, Contents::Gold(3)),
            (1875, Contents::Gold(4)),
            (2500, Contents::Gold(5)),
            (3125, Contents::Gold(6)),
            (5000, Contents::Piece(Kind::Pawn)),
            (6250, Contents::Piece(Kind::Bishop)),
            (7500, Contents::Piece(Kind::Knight)),
            (8125, Contents::Piece(Kind::Rook)),
            (8750, Contents::Item(Item::Shell)),
            (9375, Contents::Item(Item::Crossbow)),
            (9999, Contents::Item(Item::Crown)),
        ];
        table.iter().find(|(bound, _)| r < *bound).map_or(Contents::Piece(Kind::King), |(_, c)| *c)
    }
}

/// Piece types an inventory holds, in text order.
const INVENTORY_KINDS: [Kind; 5] = [Kind::Pawn, Kind::Knight, Kind::Bishop, Kind::Rook, Kind::King];

fn inv_index(kind: Kind) -> Option<usize> {
    INVENTORY_KINDS.iter().position(|&k| k == kind)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Inventory {
    pub pieces: [u8; 5],
    pub items: [u8; 3],
}

impl Inventory {
    fn text(&self) -> String {
        let mut parts = Vec::new();
        let count = |n: u8| if n > 1 { n.to_string() } else { String::new() };
        for (k, &n) in INVENTORY_KINDS.iter().zip(&self.pieces) {
            if n > 0 {
                parts.push(format!("{}{}", k.letter(), count(n)));
            }
        }
        for (i, &n) in Item::ALL.iter().zip(&self.items) {
            if n > 0 {
                parts.push(format!("{}{}", i.name(), count(n)));
            }
        }
        if parts.is_empty() { "-".to_string() } else { parts.join(",") }
    }

    fn parse(s: &str) -> Result<Inventory, String> {
        let mut inv = Inventory::default();
        if s == "-" {
            return Ok(inv);
        }
        for entry in s.split(',') {
            let split = entry.find(|c: char| c.is_ascii_digit()).unwrap_or(entry.len());
            let (name, n) = entry.split_at(split);
            let n: u8 = if n.is_empty() { 1 } else { n.parse().map_err(|_| format!("bad count {entry}"))? };
            if let Some(i) = Item::ALL.iter().position(|i| i.name() == name) {
                inv.items[i] += n;
            } else {
                let kind = name.chars().next().and_then(Kind::from_letter).ok_or(format!("bad entry {entry}"))?;
                let i = inv_index(kind).ok_or(format!("bad inventory piece {entry}"))?;
                inv.pieces[i] += n;
            }
        }
        Ok(inv)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct LPiece {
    pub color: Color,
    pub kind: Kind,
    pub crossbow: bool,
    pub shell: bool,
}

/// Shop price in half-gold units (kings are not sold).
fn cost(kind: Kind) -> Option<u32> {
    match kind {
        Kind::Pawn => Some(2),
        Kind::Knight | Kind::Bishop => Some(6),
        Kind::Rook => Some(10),
        Kind::Queen => Some(16),
        Kind::King => None,
    }
}

/// Capture income in half-gold units: half the price; nothing for a king.
fn income(kind: Kind) -> u32 {
    cost(kind).map_or(0, |c| c / 2)
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LPos {
    pub board: [Option<LPiece>; 64],
    /// Hits taken by the box on each square.
    pub boxes: [Option<u8>; 64],
    pub side: Color,
    /// The square passed over by the last double step, as stored.
    pub ep: Option<usize>,
    pub halfmove: u32,
    pub fullmove: u32,
    /// Half-gold units.
    pub gold: [u32; 2],
    pub inv: [Inventory; 2],
    pub countdown: u32,
    pub words: u64,
    pub seed: u64,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LAction {
    Move { from: usize, to: usize, promo: Option<Kind> },
    Place { kind: Kind, sq: usize },
    Promote { sq: usize, kind: Kind },
}

impl LAction {
    pub fn text(self) -> String {
        match self {
            LAction::Move { from, to, promo } => format!(
                "{}{}{}",
                square_name(from),
                square_name(to),
                promo.map(|k| k.letter().to_ascii_lowercase().to_string()).unwrap_or_default()
            ),
            LAction::Place { kind, sq } => format!("{}@{}", kind.letter(), square_name(sq)),
            LAction::Promote { sq, kind } => format!("{}={}", square_name(sq), kind.letter()),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Equip {
    Crossbow(usize),
    Shell(usize),
    Crown(usize, Kind),
}

impl Equip {
    pub fn text(self) -> String {
        match self {
            Equip::Crossbow(sq) => format!("crossbow@{}", square_name(sq)),
            Equip::Shell(sq) => format!("shell@{}", square_name(sq)),
            Equip::Crown(sq, k) => format!("crown@{}={}", square_name(sq), k.letter()),
        }
    }

    fn item(self) -> Item {
        match self {
            Equip::Crossbow(_) => Item::Crossbow,
            Equip::Shell(_) => Item::Shell,
            Equip::Crown(..) => Item::Crown,
        }
    }
}

/// What a bolt did.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bolt {
    Captured(Kind),
    BrokeShell,
    Stopped,
}

/// The effects of one turn action, for coverage statistics.
#[derive(Clone, Debug, Default)]
pub struct Effects {
    pub captured: Option<Kind>,
    pub shell_break: bool,
    pub bolt: Option<Bolt>,
    pub hits: u32,
    pub queen_hit: bool,
    pub opened: Vec<(usize, Contents)>,
    pub from_inventory: Option<Kind>,
    pub reset: bool,
    pub spawned: Option<usize>,
    pub en_passant: bool,
}

impl LPos {
    pub fn from_fen(fen: &str, seed: u64) -> Result<LPos, String> {
        let f: Vec<&str> = fen.split_whitespace().collect();
        if f.len() != 12 {
            return Err(format!("lootbox text needs 12 fields: {fen}"));
        }
        let plain = parse_board(f[0])?;
        let mut board = [None; 64];
        for (sq, p) in plain.iter().enumerate() {
            if let Some((color, kind)) = *p {
                board[sq] = Some(LPiece { color, kind, crossbow: false, shell: false });
            }
        }
        let side = parse_side(f[1])?;
        let ep = if f[3] == "-" { None } else { Some(parse_square(f[3]).ok_or("bad en passant")?) };
        let gold_text = named(f.get(6), "gold")?;
        let (w, b) = gold_text.split_once('/').ok_or("bad gold")?;
        let gold = [parse_gold(w).ok_or("bad gold")?, parse_gold(b).ok_or("bad gold")?];
        let mut boxes = [None; 64];
        let box_text = named(f.get(7), "boxes")?;
        if box_text != "-" {
            for entry in box_text.split(',') {
                let (sq, hits) = entry.split_once(':').ok_or("bad box")?;
                boxes[parse_square(sq).ok_or("bad box square")?] = Some(hits.parse().map_err(|_| "bad hits")?);
            }
        }
        let inv_text = named(f.get(8), "inventory")?;
        let (wi, bi) = inv_text.split_once('/').ok_or("bad inventory")?;
        let inv = [Inventory::parse(wi)?, Inventory::parse(bi)?];
        let items = named(f.get(9), "items")?;
        if items != "-" {
            for entry in items.split(',') {
                let (sq, list) = entry.split_once(':').ok_or("bad items")?;
                let sq = parse_square(sq).ok_or("bad item square")?;
                let piece = board[sq].as_mut().ok_or("items on an empty square")?;
                for name in list.split('+') {
                    match name {
                        "crossbow" => piece.crossbow = true,
                        "shell" => piece.shell = true,
                        _ => return Err(format!("bad item {name}")),
                    }
                }
            }
        }
        let countdown = named(f.get(10), "countdown")?.parse().map_err(|_| "bad countdown")?;
        let words = named(f.get(11), "words")?.parse().map_err(|_| "bad words")?;
        let mut pos = LPos {
            board,
            boxes,
            side,
            ep,
            halfmove: f[4].parse().map_err(|_| "bad halfmove")?,
            fullmove: f[5].parse().map_err(|_| "bad fullmove")?,
            gold,
            inv,
            countdown,
            words,
            seed,
        };
        if pos.countdown == 0 && pos.words == 0 {
            pos.countdown = 3 + pos.uniform(3);
        }
        Ok(pos)
    }

    fn uniform(&mut self, n: u32) -> u32 {
        let zone = (1u64 << 32) - (1u64 << 32) % u64::from(n);
        loop {
            let x = word(self.seed, self.words);
            self.words += 1;
            if u64::from(x) < zone {
                return x % n;
            }
        }
    }

    pub fn fen(&self) -> String {
        let board = board_text(|sq| self.board[sq].map(|p| (p.color, p.kind)));
        let ep = self.ep_usable().map_or("-".to_string(), square_name);
        let boxes: Vec<String> =
            (0..64).filter_map(|sq| self.boxes[sq].map(|h| format!("{}:{h}", square_name(sq)))).collect();
        let items: Vec<String> = (0..64)
            .filter_map(|sq| {
                let p = self.board[sq]?;
                let names: Vec<&str> =
                    [(p.crossbow, "crossbow"), (p.shell, "shell")].iter().filter(|x| x.0).map(|x| x.1).collect();
                (!names.is_empty()).then(|| format!("{}:{}", square_name(sq), names.join("+")))
            })
            .collect();
        let list = |v: Vec<String>| if v.is_empty() { "-".to_string() } else { v.join(",") };
        format!(
            "{board} {} - {ep} {} {} gold={}/{} boxes={} inventory={}/{} items={} countdown={} words={}",
            side_text(self.side),
            self.halfmove,
            self.fullmove,
            gold_text(self.gold[0]),
            gold_text(self.gold[1]),
            list(boxes),
            self.inv[0].text(),
            self.inv[1].text(),
            list(items),
            self.countdown,
            self.words
        )
    }

    /// The text without the clocks and the word count: what repetition compares.
    pub fn key(&self) -> String {
        let fen = self.fen();
        let f: Vec<&str> = fen.split_whitespace().collect();
        let mut key: Vec<&str> = f[..4].to_vec();
        key.extend(&f[6..11]);
        key.join(" ")
    }

    fn free(&self, sq: usize) -> bool {
        self.board[sq].is_none() && self.boxes[sq].is_none()
    }

    pub fn kings(&self, color: Color) -> Vec<usize> {
        (0..64).filter(|&s| self.board[s].is_some_and(|p| p.color == color && p.kind == Kind::King)).collect()
    }

    /// Whether `by` attacks `sq` by ordinary attacks; boxes block lines.
    pub fn attacked(&self, sq: usize, by: Color) -> bool {
        let has = |s: Option<usize>, kinds: &[Kind]| {
            s.is_some_and(|s| matches!(self.board[s], Some(p) if p.color == by && kinds.contains(&p.kind)))
        };
        if [-1, 1].into_iter().any(|df| has(step(sq, df, -by.forward()), &[Kind::Pawn]))
            || KNIGHT.iter().any(|&(df, dr)| has(step(sq, df, dr), &[Kind::Knight]))
            || ALL_DIRECTIONS.iter().any(|&(df, dr)| has(step(sq, df, dr), &[Kind::King]))
        {
            return true;
        }
        for &(df, dr) in &ALL_DIRECTIONS {
            let slider = if df == 0 || dr == 0 { Kind::Rook } else { Kind::Bishop };
            let mut cur = sq;
            while let Some(next) = step(cur, df, dr) {
                if self.boxes[next].is_some() {
                    break;
                }
                if let Some(p) = self.board[next] {
                    if p.color == by && (p.kind == slider || p.kind == Kind::Queen) {
                        return true;
                    }
                    break;
                }
                cur = next;
            }
        }
        false
    }

    /// The side to move has exactly one king and it is attacked.
    pub fn in_check(&self) -> bool {
        let kings = self.kings(self.side);
        kings.len() == 1 && self.attacked(kings[0], self.side.other())
    }

    /// Actions by the piece rules and the shop, before the king-safety test.
    fn pseudo(&self) -> Vec<LAction> {
        let me = self.side;
        let mut out = Vec::new();
        let enemy_kings = self.kings(me.other()).len();
        let capturable = |sq: usize| matches!(self.board[sq], Some(p) if p.color != me && (p.kind != Kind::King || enemy_kings >= 2));
        let gold = self.gold[me.idx()];
        let promos = [Kind::Knight, Kind::Bishop, Kind::Rook, Kind::Queen];
        for from in 0..64 {
            let Some(piece) = self.board[from] else { continue };
            if piece.color != me {
                continue;
            }
            if piece.kind == Kind::Pawn {
                let dir = me.forward();
                let last = me.last_rank();
                if rank_of(from) == last {
                    if gold >= 2 {
                        for kind in promos {
                            out.push(LAction::Promote { sq: from, kind });
                        }
                    }
                    continue;
                }
                if let Some(one) = step(from, 0, dir)
                    && self.free(one)
                {
                    out.push(LAction::Move { from, to: one, promo: None });
                    if rank_of(one) == last && gold >= 2 {
                        out.extend(promos.map(|k| LAction::Move { from, to: one, promo: Some(k) }));
                    }
                    if rank_of(from) == me.second_rank()
                        && let Some(two) = step(from, 0, 2 * dir)
                        && self.free(two)
                    {
                        out.push(LAction::Move { from, to: two, promo: None });
                    }
                }
                for df in [-1, 1] {
                    let Some(t) = step(from, df, dir) else { continue };
                    if capturable(t) {
                        out.push(LAction::Move { from, to: t, promo: None });
                        let Some(victim) = self.board[t] else { continue };
                        if rank_of(t) == last && !victim.shell && gold + income(victim.kind) >= 2 {
                            out.extend(promos.map(|k| LAction::Move { from, to: t, promo: Some(k) }));
                        }
                    } else if self.ep == Some(t)
                        && self.free(t)
                        && at(file_of(t), rank_of(from))
                            .is_some_and(|v| matches!(self.board[v], Some(p) if p.color != me && p.kind == Kind::Pawn))
                    {
                        out.push(LAction::Move { from, to: t, promo: None });
                    }
                }
                continue;
            }
            let (dirs, slides) = piece.kind.steps();
            for &(df, dr) in dirs {
                let mut cur = from;
                while let Some(next) = step(cur, df, dr) {
                    if self.free(next) {
                        out.push(LAction::Move { from, to: next, promo: None });
                    } else {
                        if capturable(next) {
                            out.push(LAction::Move { from, to: next, promo: None });
                        }
                        break;
                    }
                    if !slides {
                        break;
                    }
                    cur = next;
                }
            }
        }
        let inv = &self.inv[me.idx()];
        for kind in [Kind::Pawn, Kind::Knight, Kind::Bishop, Kind::Rook, Kind::Queen, Kind::King] {
            let owned = inv_index(kind).is_some_and(|i| inv.pieces[i] > 0);
            if !owned && cost(kind).is_none_or(|c| gold < c) {
                continue;
            }
            let ranks = match (me, kind) {
                (Color::White, Kind::Pawn) => 1..=2,
                (Color::White, _) => 0..=2,
                (Color::Black, Kind::Pawn) => 5..=6,
                (Color::Black, _) => 5..=7,
            };
            for sq in 0..64 {
                if ranks.contains(&rank_of(sq)) && self.free(sq) {
                    out.push(LAction::Place { kind, sq });
                }
            }
        }
        out
    }

    /// The mover's king is safe after an action (always, while it has two kings or more).
    fn safe_for(&self, mover: Color) -> bool {
        let kings = self.kings(mover);
        kings.len() != 1 || !self.attacked(kings[0], mover.other())
    }

    /// Every legal turn action with its text, sorted by text.
    pub fn actions(&self) -> Vec<(String, LAction)> {
        let mut out: Vec<(String, LAction)> = self
            .pseudo()
            .into_iter()
            .filter(|&a| self.act(a, false).0.safe_for(self.side))
            .map(|a| (a.text(), a))
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    pub fn has_action(&self) -> bool {
        self.pseudo().into_iter().any(|a| self.act(a, false).0.safe_for(self.side))
    }

    /// The en passant square, when an en passant capture is legal.
    fn ep_usable(&self) -> Option<usize> {
        let ep = self.ep?;
        let me = self.side;
        let legal = [-1, 1].into_iter().any(|df| {
            let Some(from) = step(ep, df, -me.forward()) else { return false };
            matches!(self.board[from], Some(p) if p.color == me && p.kind == Kind::Pawn)
                && self.pseudo().contains(&LAction::Move { from, to: ep, promo: None })
                && self.act(LAction::Move { from, to: ep, promo: None }, false).0.safe_for(me)
        });
        legal.then_some(ep)
    }

    /// The position after equip `e` (one of the side to move's items onto its piece).
    pub fn apply_equip(&self, e: Equip) -> LPos {
        let mut p = self.clone();
        let me = self.side.idx();
        let item = e.item();
        p.gold[me] -= item.cost();
        // Rule 12 (decided): an equip resets the no-progress counter at once.
        p.halfmove = 0;
        p.inv[me].items[Item::ALL.iter().position(|&i| i == item).unwrap_or(0)] -= 1;
        match e {
            Equip::Crossbow(sq) => {
                if let Some(x) = p.board[sq].as_mut() {
                    x.crossbow = true;
                }
            }
            Equip::Shell(sq) => {
                if let Some(x) = p.board[sq].as_mut() {
                    x.shell = true;
                }
            }
            Equip::Crown(sq, kind) => {
                if let Some(x) = p.board[sq].as_mut() {
                    x.kind = kind;
                }
            }
        }
        p
    }

    /// Every legal equip with its text, sorted by text, and the position it leads to.
    pub fn equips(&self) -> Vec<(String, Equip, LPos)> {
        let me = self.side;
        let gold = self.gold[me.idx()];
        let inv = &self.inv[me.idx()];
        let mut out = Vec::new();
        for sq in 0..64 {
            let Some(p) = self.board[sq] else { continue };
            if p.color != me || p.kind == Kind::King {
                continue;
            }
            let mut candidates = Vec::new();
            if inv.items[0] > 0 && !p.crossbow {
                candidates.push(Equip::Crossbow(sq));
            }
            if inv.items[1] > 0 && !p.shell {
                candidates.push(Equip::Shell(sq));
            }
            if inv.items[2] > 0 {
                for kind in [Kind::Knight, Kind::Bishop, Kind::Rook, Kind::Queen] {
                    if kind != p.kind {
                        candidates.push(Equip::Crown(sq, kind));
                    }
                }
            }
            for e in candidates {
                if gold < e.item().cost() {
                    continue;
                }
                let after = self.apply_equip(e);
                if after.has_action() {
                    out.push((e.text(), e, after));
                }
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// Draws a box's contents and gives them to `who`.
    fn open_box(&mut self, who: Color) -> Contents {
        let c = Contents::of(self.uniform(10_000));
        let me = who.idx();
        match c {
            Contents::Gold(n) => self.gold[me] += 2 * n,
            Contents::Piece(k) => self.inv[me].pieces[inv_index(k).unwrap_or(0)] += 1,
            Contents::Item(i) => self.inv[me].items[Item::ALL.iter().position(|&x| x == i).unwrap_or(0)] += 1,
        }
        c
    }

    /// The action's own effects (not the end of the turn). With `draw` false opened boxes are
    /// removed without drawing their contents (enough to judge legality).
    pub fn act(&self, a: LAction, draw: bool) -> (LPos, Effects) {
        let me = self.side;
        let mut p = self.clone();
        let mut fx = Effects::default();
        p.ep = None;
        match a {
            LAction::Place { kind, sq } => {
                let inv = &mut p.inv[me.idx()];
                match inv_index(kind).filter(|&i| inv.pieces[i] > 0) {
                    Some(i) => {
                        inv.pieces[i] -= 1;
                        fx.from_inventory = Some(kind);
                    }
                    None => p.gold[me.idx()] -= cost(kind).unwrap_or(0),
                }
                p.board[sq] = Some(LPiece { color: me, kind, crossbow: false, shell: false });
                fx.reset = true;
            }
            LAction::Promote { sq, kind } => {
                p.gold[me.idx()] -= 2;
                if let Some(x) = p.board[sq].as_mut() {
                    x.kind = kind;
                }
                fx.reset = true;
            }
            LAction::Move { from, to, promo } => {
                let Some(mut piece) = p.board[from] else { unreachable!("no piece on {from}") };
                let en_passant = piece.kind == Kind::Pawn && file_of(from) != file_of(to) && p.board[to].is_none();
                let victim_sq = if en_passant { at(file_of(to), rank_of(from)).unwrap_or(to) } else { to };
                fx.en_passant = en_passant;
                fx.reset = piece.kind == Kind::Pawn;
                let mut end = to;
                if let Some(victim) = p.board[victim_sq] {
                    fx.reset = true;
                    if victim.shell {
                        if let Some(v) = p.board[victim_sq].as_mut() {
                            v.shell = false;
                        }
                        fx.shell_break = true;
                        end = from;
                    } else {
                        p.board[victim_sq] = None;
                        p.gold[me.idx()] += income(victim.kind);
                        fx.captured = Some(victim.kind);
                        p.board[from] = None;
                        if piece.crossbow {
                            piece.crossbow = false;
                            p.board[to] = Some(piece);
                            fx.bolt = Some(p.bolt(piece.kind, from, to));
                        }
                        p.board[to] = Some(piece);
                    }
                } else {
                    p.board[from] = None;
                    p.board[to] = Some(piece);
                }
                if end != from {
                    if let Some(k) = promo {
                        p.gold[me.idx()] -= 2;
                        if let Some(x) = p.board[to].as_mut() {
                            x.kind = k;
                        }
                    }
                    if piece.kind == Kind::Pawn && (rank_of(to) - rank_of(from)).abs() == 2 {
                        p.ep = step(from, 0, me.forward());
                    }
                    let queen = p.board[end].is_some_and(|x| x.kind == Kind::Queen);
                    let mut opening = Vec::new();
                    for &(df, dr) in &ALL_DIRECTIONS {
                        let Some(nb) = step(end, df, dr) else { continue };
                        if let Some(h) = p.boxes[nb] {
                            let h = h + 1;
                            p.boxes[nb] = Some(h);
                            fx.hits += 1;
                            fx.queen_hit |= queen;
                            if queen || h >= 3 {
                                opening.push(nb);
                            }
                        }
                    }
                    opening.sort_unstable();
                    for b in opening {
                        p.boxes[b] = None;
                        fx.reset = true;
                        if draw {
                            let c = p.open_box(me);
                            fx.opened.push((b, c));
                        }
                    }
                }
            }
        }
        (p, fx)
    }

    /// The bolt of a crossbow after a capture from `from` onto `to`.
    fn bolt(&mut self, kind: Kind, from: usize, to: usize) -> Bolt {
        let me = self.side;
        let (vf, vr) = (file_of(to) - file_of(from), rank_of(to) - rank_of(from));
        let (df, dr, slides) = match kind {
            Kind::Knight => (vf, vr, false),
            Kind::Pawn => (vf.signum(), vr.signum(), false),
            Kind::Bishop | Kind::Rook | Kind::Queen => (vf.signum(), vr.signum(), true),
            Kind::King => return Bolt::Stopped,
        };
        let mut cur = to;
        while let Some(next) = step(cur, df, dr) {
            if self.boxes[next].is_some() {
                return Bolt::Stopped;
            }
            match self.board[next] {
                None if slides => cur = next,
                None => return Bolt::Stopped,
                Some(o) if o.color != me && o.kind != Kind::King => {
                    if o.shell {
                        if let Some(x) = self.board[next].as_mut() {
                            x.shell = false;
                        }
                        return Bolt::BrokeShell;
                    }
                    self.board[next] = None;
                    self.gold[me.idx()] += income(o.kind);
                    return Bolt::Captured(o.kind);
                }
                Some(_) => return Bolt::Stopped,
            }
        }
        Bolt::Stopped
    }

    /// A whole turn: the action, the clocks, the opponent's income, and (unless the opponent
    /// has no turn action even after equips) the end of the round with its spawn.
    pub fn after(&self, a: LAction) -> (LPos, Effects) {
        let mover = self.side;
        let (mut p, mut fx) = self.act(a, true);
        p.halfmove = if fx.reset { 0 } else { self.halfmove + 1 };
        p.side = mover.other();
        if mover == Color::Black {
            p.fullmove += 1;
        }
        p.gold[p.side.idx()] += 2;
        let terminal = !p.has_action() && p.equips().is_empty();
        if !terminal && mover == Color::Black {
            p.countdown = p.countdown.saturating_sub(1);
            if p.countdown == 0 {
                let count = p.boxes.iter().flatten().count();
                let candidates: Vec<usize> = (24..40).filter(|&s| p.free(s)).collect();
                if count < 2 && !candidates.is_empty() {
                    let sq = candidates[p.uniform(candidates.len() as u32) as usize];
                    p.boxes[sq] = Some(0);
                    fx.spawned = Some(sq);
                }
                p.countdown = 3 + p.uniform(3);
            }
        }
        (p, fx)
    }
}

fn gold_text(halves: u32) -> String {
    if halves.is_multiple_of(2) { format!("{}", halves / 2) } else { format!("{}.5", halves / 2) }
}

fn parse_gold(s: &str) -> Option<u32> {
    match s.split_once('.') {
        Some((w, "5")) => w.parse::<u32>().ok().map(|w| 2 * w + 1),
        Some(_) => None,
        None => s.parse::<u32>().ok().map(|w| 2 * w),
    }
}

/// A game: position, repetition history, the last action's openings.
#[derive(Clone, Debug)]
pub struct LGame {
    pub pos: LPos,
    keys: Vec<String>,
    actions: Vec<(String, LAction)>,
    equips: Vec<(String, Equip, LPos)>,
    outcome: Option<Outcome>,
    /// Boxes opened by the last turn action: square, opener, contents.
    pub opened: Vec<(usize, Color, Contents)>,
    /// Effects of the last action, for coverage statistics.
    pub last: Option<Effects>,
}

impl LGame {
    pub fn from_fen(fen: &str, seed: u64) -> Result<LGame, String> {
        let pos = LPos::from_fen(fen, seed)?;
        let mut g = LGame {
            keys: vec![pos.key()],
            pos,
            actions: Vec::new(),
            equips: Vec::new(),
            outcome: None,
            opened: Vec::new(),
            last: None,
        };
        g.judge();
        Ok(g)
    }

    pub fn new(seed: u64) -> LGame {
        LGame::from_fen(START, seed).unwrap_or_else(|e| unreachable!("{e}"))
    }

    fn judge(&mut self) {
        self.actions = self.pos.actions();
        self.equips = self.pos.equips();
        let repeats = self.keys.iter().filter(|k| Some(*k) == self.keys.last()).count();
        self.outcome = if self.actions.is_empty() && self.equips.is_empty() {
            Some(if self.pos.in_check() { (Some(self.pos.side.other()), "checkmate") } else { (None, "stalemate") })
        } else if repeats >= 3 {
            Some((None, "repetition"))
        } else if self.pos.halfmove >= 100 {
            Some((None, "no-progress"))
        } else {
            None
        };
    }

    pub fn fen(&self) -> String {
        self.pos.fen()
    }

    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    pub fn legal(&self) -> &[(String, LAction)] {
        if self.outcome.is_some() { &[] } else { &self.actions }
    }

    pub fn legal_texts(&self) -> Vec<String> {
        self.legal().iter().map(|(t, _)| t.clone()).collect()
    }

    pub fn equip_texts(&self) -> Vec<String> {
        if self.outcome.is_some() { Vec::new() } else { self.equips.iter().map(|(t, ..)| t.clone()).collect() }
    }

    /// Plays a turn action or an equip.
    pub fn play(&mut self, text: &str) -> Result<(), String> {
        if self.outcome.is_some() {
            return Err(format!("{text}: the game is over"));
        }
        if let Some((_, _, after)) = self.equips.iter().find(|(t, ..)| t == text) {
            self.pos = after.clone();
            self.actions = self.pos.actions();
            self.equips = self.pos.equips();
            return Ok(());
        }
        let a = self
            .actions
            .iter()
            .find(|(t, _)| t == text)
            .map(|(_, a)| *a)
            .ok_or_else(|| format!("{text} is not legal in {}", self.fen()))?;
        let mover = self.pos.side;
        let (pos, fx) = self.pos.after(a);
        self.opened = fx.opened.iter().map(|&(sq, c)| (sq, mover, c)).collect();
        self.last = Some(fx);
        self.pos = pos;
        self.keys.push(self.pos.key());
        self.judge();
        Ok(())
    }
}

/// Leaf count of the tree of turn actions (equips are not counted).
pub fn perft(pos: &LPos, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let actions = pos.actions();
    if depth == 1 {
        return actions.len() as u64;
    }
    actions.iter().map(|(_, a)| perft(&pos.after(*a).0, depth - 1)).sum()
}
