//! Chessception (`rules-seed-variants.md`, section `chessception`): chess moves without check,
//! hit points, area damage, pawn counter-attacks, knight stacks, king-aura shields, landing
//! choices, compulsory limited promotion and its own draws.

use super::{
    ALL_DIRECTIONS, Color, Kind, Outcome, at, board_text, distance, file_of, named, parse_board, parse_side,
    parse_square, rank_of, side_text, square_name, step,
};

/// A piece on the board with its hit points and shield.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Unit {
    pub color: Color,
    pub kind: Kind,
    pub hp: u8,
    pub shield: bool,
}

pub fn max_hp(kind: Kind) -> u8 {
    if kind == Kind::Pawn { 2 } else { 4 }
}

fn base_damage(kind: Kind) -> u8 {
    if kind == Kind::Queen { 4 } else { 2 }
}

fn area_damage(kind: Kind) -> u8 {
    match kind {
        Kind::Bishop | Kind::Rook => 1,
        Kind::Queen => 2,
        _ => 0,
    }
}

/// How many of each type a side has at the start (the promotion limit).
fn start_count(kind: Kind) -> usize {
    match kind {
        Kind::Queen => 1,
        Kind::Rook | Kind::Bishop | Kind::Knight => 2,
        _ => 0,
    }
}

/// Castling: right index, side, king from/to, rook from/to, squares that must be empty.
type Castling = (usize, Color, usize, usize, usize, usize, &'static [usize]);

const CASTLINGS: [Castling; 4] = [
    (0, Color::White, 4, 6, 7, 5, &[5, 6]),
    (1, Color::White, 4, 2, 0, 3, &[1, 2, 3]),
    (2, Color::Black, 60, 62, 63, 61, &[61, 62]),
    (3, Color::Black, 60, 58, 56, 59, &[57, 58, 59]),
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CPos {
    pub board: [Option<Unit>; 64],
    pub side: Color,
    /// K, Q, k, q.
    pub castling: [bool; 4],
    /// The square a pawn passed over on the last ply, as stored (the text shows it only when a
    /// capture there is possible).
    pub ep: Option<usize>,
    pub halfmove: u32,
    pub fullmove: u32,
}

/// A turn action. `land` is set only when the attacker has a choice of kill squares.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CMove {
    pub from: usize,
    pub to: usize,
    pub promo: Option<Kind>,
    pub land: Option<usize>,
}

impl CMove {
    pub fn text(self) -> String {
        let mut s = format!("{}{}", square_name(self.from), square_name(self.to));
        if let Some(k) = self.promo {
            s.push(k.letter().to_ascii_lowercase());
        }
        if let Some(l) = self.land {
            s.push('/');
            s.push_str(&square_name(l));
        }
        s
    }
}

/// What an attack did before its attacker lands: the board after damage and removals (the
/// attacker, if alive, still on its origin), the damage dealt, the enemy squares emptied.
#[derive(Clone, Debug)]
pub struct Combat {
    pub board: [Option<Unit>; 64],
    pub damage: Vec<(usize, u8)>,
    pub kills: Vec<usize>,
    pub attacker_alive: bool,
    pub en_passant: bool,
    /// Counter-attacks that struck the attacker.
    pub counters: u32,
    /// Stacks of the knight aura.
    pub stacks: u32,
}

/// The result of one ply.
#[derive(Clone, Debug)]
pub struct Ply {
    pub after: CPos,
    pub damage: Vec<(usize, u8)>,
    /// Where the king ended, when the ply was a king move.
    pub king_end: Option<usize>,
    pub combat: Option<Combat>,
}

impl CPos {
    pub fn from_fen(fen: &str) -> Result<CPos, String> {
        let f: Vec<&str> = fen.split_whitespace().collect();
        if f.len() != 8 {
            return Err(format!("chessception text needs 8 fields: {fen}"));
        }
        let plain = parse_board(f[0])?;
        let mut board = [None; 64];
        for (sq, p) in plain.iter().enumerate() {
            if let Some((color, kind)) = *p {
                board[sq] = Some(Unit { color, kind, hp: max_hp(kind), shield: kind == Kind::King });
            }
        }
        let side = parse_side(f[1])?;
        let mut castling = [false; 4];
        if f[2] != "-" {
            for c in f[2].chars() {
                let i = "KQkq".find(c).ok_or_else(|| format!("bad castling {c}"))?;
                castling[i] = true;
            }
        }
        let ep = if f[3] == "-" { None } else { Some(parse_square(f[3]).ok_or("bad en passant")?) };
        let halfmove = f[4].parse().map_err(|_| "bad halfmove")?;
        let fullmove = f[5].parse().map_err(|_| "bad fullmove")?;
        let hp = named(f.get(6), "hp")?;
        if hp != "-" {
            for entry in hp.split(',') {
                let (sq, n) = entry.split_once(':').ok_or("bad hp entry")?;
                let sq = parse_square(sq).ok_or("bad hp square")?;
                let n: u8 = n.parse().map_err(|_| "bad hp")?;
                let unit = board[sq].as_mut().ok_or("hp of an empty square")?;
                unit.hp = n;
            }
        }
        let shields = named(f.get(7), "shields")?;
        if shields != "-" {
            for name in shields.split(',') {
                let sq = parse_square(name).ok_or("bad shield square")?;
                board[sq].as_mut().ok_or("shield on an empty square")?.shield = true;
            }
        }
        Ok(CPos { board, side, castling, ep, halfmove, fullmove })
    }

    /// The en passant square, when a pawn of the side to move can attack there.
    fn ep_usable(&self) -> Option<usize> {
        let ep = self.ep?;
        let dir = self.side.forward();
        let passed = step(ep, 0, -dir)?;
        let passed_ok = self.board[ep].is_none()
            && matches!(self.board[passed], Some(u) if u.color != self.side && u.kind == Kind::Pawn);
        let capturer = [-1, 1].into_iter().any(|df| {
            step(ep, df, -dir)
                .is_some_and(|s| matches!(self.board[s], Some(u) if u.color == self.side && u.kind == Kind::Pawn))
        });
        (passed_ok && capturer).then_some(ep)
    }

    pub fn fen(&self) -> String {
        let board = board_text(|sq| self.board[sq].map(|u| (u.color, u.kind)));
        let mut castling: String = "KQkq".chars().zip(self.castling).filter(|(_, on)| *on).map(|(c, _)| c).collect();
        if castling.is_empty() {
            castling.push('-');
        }
        let ep = self.ep_usable().map_or("-".to_string(), square_name);
        let hurt: Vec<String> = (0..64)
            .filter_map(|sq| {
                self.board[sq].filter(|u| u.hp < max_hp(u.kind)).map(|u| format!("{}:{}", square_name(sq), u.hp))
            })
            .collect();
        let shields: Vec<String> = (0..64)
            .filter(|&sq| self.board[sq].is_some_and(|u| u.shield && u.kind != Kind::King))
            .map(square_name)
            .collect();
        let list = |v: Vec<String>| if v.is_empty() { "-".to_string() } else { v.join(",") };
        format!(
            "{board} {} {castling} {ep} {} {} hp={} shields={}",
            side_text(self.side),
            self.halfmove,
            self.fullmove,
            list(hurt),
            list(shields)
        )
    }

    /// The text without the clocks: what threefold repetition compares.
    pub fn key(&self) -> String {
        let fen = self.fen();
        let f: Vec<&str> = fen.split_whitespace().collect();
        format!("{} {} {} {} {} {}", f[0], f[1], f[2], f[3], f[6], f[7])
    }

    pub fn king(&self, color: Color) -> Option<usize> {
        (0..64).find(|&sq| self.board[sq].is_some_and(|u| u.color == color && u.kind == Kind::King))
    }

    /// Whether a piece of `by` could attack `sq` (for castling).
    pub fn attacked(&self, sq: usize, by: Color) -> bool {
        let has = |s: Option<usize>, kinds: &[Kind]| {
            s.is_some_and(|s| matches!(self.board[s], Some(u) if u.color == by && kinds.contains(&u.kind)))
        };
        if [-1, 1].into_iter().any(|df| has(step(sq, df, -by.forward()), &[Kind::Pawn])) {
            return true;
        }
        if super::KNIGHT.iter().any(|&(df, dr)| has(step(sq, df, dr), &[Kind::Knight])) {
            return true;
        }
        if ALL_DIRECTIONS.iter().any(|&(df, dr)| has(step(sq, df, dr), &[Kind::King])) {
            return true;
        }
        for &(df, dr) in &ALL_DIRECTIONS {
            let slider = if df == 0 || dr == 0 { Kind::Rook } else { Kind::Bishop };
            let mut cur = sq;
            while let Some(next) = step(cur, df, dr) {
                if let Some(u) = self.board[next] {
                    if u.color == by && (u.kind == slider || u.kind == Kind::Queen) {
                        return true;
                    }
                    break;
                }
                cur = next;
            }
        }
        false
    }

    /// The squares an attack from `from` onto `to` hurts besides the target.
    fn area(kind: Kind, from: usize, to: usize) -> Vec<usize> {
        let df = (file_of(to) - file_of(from)).signum();
        let dr = (rank_of(to) - rank_of(from)).signum();
        let offsets: Vec<(i32, i32)> = match kind {
            Kind::Bishop => vec![(1, 1), (1, -1), (-1, 1), (-1, -1)],
            Kind::Rook if dr == 0 => vec![(0, 1), (0, -1)],
            Kind::Rook => vec![(1, 0), (-1, 0)],
            Kind::Queen if df == 0 => vec![(0, dr), (1, dr), (-1, dr)],
            Kind::Queen if dr == 0 => vec![(df, 0), (df, 1), (df, -1)],
            Kind::Queen => vec![(df, dr), (df, 0), (0, dr)],
            _ => vec![],
        };
        offsets.into_iter().filter_map(|(f, r)| step(to, f, r)).collect()
    }

    /// Whether the move from `from` to `to` is an attack.
    fn is_attack(&self, from: usize, to: usize) -> bool {
        let Some(a) = self.board[from] else { return false };
        match self.board[to] {
            Some(t) => t.color != a.color,
            None => a.kind == Kind::Pawn && file_of(from) != file_of(to) && self.ep_usable() == Some(to),
        }
    }

    /// Primary damage, area damage, counter-attacks and removals.
    pub fn combat(&self, from: usize, to: usize) -> Combat {
        let mut board = self.board;
        let Some(attacker) = board[from] else { unreachable!("no attacker on {from}") };
        let en_passant = board[to].is_none();
        let target = if en_passant { at(file_of(to), rank_of(from)).unwrap_or(to) } else { to };
        let stacks = (0..64)
            .filter(|&s| {
                distance(s, from) <= 1
                    && matches!(board[s], Some(u) if u.color == attacker.color && u.kind == Kind::Knight)
            })
            .count() as u32;
        let mult = 1u32 << stacks;
        let mut damage = Vec::new();
        let mut hit = |board: &mut [Option<Unit>; 64], sq: usize, base: u8| {
            let Some(u) = board[sq].as_mut() else { return };
            let mut d = u32::from(base) * mult;
            if u.shield || u.kind == Kind::King {
                d /= 2;
            }
            let applied = d.min(u32::from(u.hp)) as u8;
            u.hp -= applied;
            if applied > 0 {
                damage.push((sq, applied));
            }
        };
        hit(&mut board, target, base_damage(attacker.kind));
        for sq in CPos::area(attacker.kind, from, to) {
            if board[sq].is_some_and(|u| u.color != attacker.color) {
                hit(&mut board, sq, area_damage(attacker.kind));
            }
        }
        // Rule 1 (decided): the whole sequence resolves even when the enemy king has fallen;
        // every damaged pawn still standing strikes back.
        let strikers: Vec<usize> = damage
            .iter()
            .map(|&(sq, _)| sq)
            .filter(|&sq| matches!(board[sq], Some(u) if u.kind == Kind::Pawn && u.hp > 0 && u.color != attacker.color))
            .collect();
        let mut counters = 0;
        for _ in strikers {
            counters += 1;
            let Some(a) = board[from].as_mut() else { unreachable!() };
            let d = if a.shield || a.kind == Kind::King { 1 } else { 2 };
            let applied = d.min(a.hp);
            a.hp -= applied;
            if applied > 0 {
                damage.push((from, applied));
            }
        }
        let mut kills = Vec::new();
        for (sq, cell) in board.iter_mut().enumerate() {
            if let Some(u) = *cell
                && u.hp == 0
            {
                *cell = None;
                if u.color != attacker.color {
                    kills.push(sq);
                }
            }
        }
        let attacker_alive = board[from].is_some();
        Combat { board, damage, kills, attacker_alive, en_passant, counters, stacks }
    }

    /// The types a pawn of the side to move may promote to.
    fn promotions(&self) -> Vec<Kind> {
        let missing: Vec<Kind> = [Kind::Knight, Kind::Bishop, Kind::Rook, Kind::Queen]
            .into_iter()
            .filter(|&k| {
                let have = self.board.iter().flatten().filter(|u| u.color == self.side && u.kind == k).count();
                have < start_count(k)
            })
            .collect();
        if missing.is_empty() { vec![Kind::Queen] } else { missing }
    }

    /// Every legal turn action with its text, sorted by text. None once a king has fallen.
    pub fn actions(&self) -> Vec<(String, CMove)> {
        let mut out: Vec<CMove> = Vec::new();
        if self.king(Color::White).is_none() || self.king(Color::Black).is_none() {
            return Vec::new();
        }
        let promos = self.promotions();
        let last = self.side.last_rank();
        let push =
            |out: &mut Vec<CMove>, from: usize, to: usize, land: Option<usize>, ends: Option<usize>, pawn: bool| {
                if pawn && ends.is_some_and(|e| rank_of(e) == last && e != from) {
                    for &k in &promos {
                        out.push(CMove { from, to, promo: Some(k), land });
                    }
                } else {
                    out.push(CMove { from, to, promo: None, land });
                }
            };
        for from in 0..64 {
            let Some(u) = self.board[from] else { continue };
            if u.color != self.side {
                continue;
            }
            let pawn = u.kind == Kind::Pawn;
            let mut targets = Vec::new();
            if pawn {
                let dir = self.side.forward();
                if let Some(one) = step(from, 0, dir)
                    && self.board[one].is_none()
                {
                    targets.push(one);
                    if rank_of(from) == self.side.second_rank()
                        && let Some(two) = step(from, 0, 2 * dir)
                        && self.board[two].is_none()
                    {
                        targets.push(two);
                    }
                }
                for df in [-1, 1] {
                    if let Some(t) = step(from, df, dir)
                        && self.is_attack(from, t)
                    {
                        targets.push(t);
                    }
                }
            } else {
                let (dirs, slides) = u.kind.steps();
                for &(df, dr) in dirs {
                    let mut cur = from;
                    while let Some(next) = step(cur, df, dr) {
                        match self.board[next] {
                            None => targets.push(next),
                            Some(o) => {
                                if o.color != u.color {
                                    targets.push(next);
                                }
                                break;
                            }
                        }
                        if !slides {
                            break;
                        }
                        cur = next;
                    }
                }
            }
            for to in targets {
                if !self.is_attack(from, to) {
                    push(&mut out, from, to, None, Some(to), pawn);
                    continue;
                }
                let c = self.combat(from, to);
                if !c.attacker_alive {
                    push(&mut out, from, to, None, None, pawn);
                } else if c.en_passant {
                    push(&mut out, from, to, None, Some(to), pawn);
                } else if c.kills.len() >= 2 {
                    for &k in &c.kills {
                        push(&mut out, from, to, Some(k), Some(k), pawn);
                    }
                } else {
                    push(&mut out, from, to, None, Some(c.kills.first().copied().unwrap_or(from)), pawn);
                }
            }
            if u.kind == Kind::King {
                for (i, color, kf, kt, rf, _, empty) in CASTLINGS {
                    if self.castling[i]
                        && color == self.side
                        && from == kf
                        && matches!(self.board[rf], Some(r) if r.color == color && r.kind == Kind::Rook)
                        && empty.iter().all(|&s| self.board[s].is_none())
                        && !self.attacked(kf, color.other())
                    {
                        out.push(CMove { from: kf, to: kt, promo: None, land: None });
                    }
                }
            }
        }
        let mut texts: Vec<(String, CMove)> = out.into_iter().map(|m| (m.text(), m)).collect();
        texts.sort_by(|a, b| a.0.cmp(&b.0));
        texts
    }

    /// Plays a turn action (one of `actions()`).
    pub fn play(&self, m: CMove) -> Ply {
        let Some(mover) = self.board[m.from] else { unreachable!("no piece on {}", m.from) };
        let mut board = self.board;
        let mut damage = Vec::new();
        let mut moved: Vec<usize> = Vec::new();
        let mut combat = None;
        let castle = CASTLINGS.iter().find(|c| mover.kind == Kind::King && c.2 == m.from && c.3 == m.to);
        let mut king_end = None;
        if let Some(&(_, _, kf, kt, rf, rt, _)) = castle {
            board[kt] = board[kf].take();
            board[rt] = board[rf].take();
            moved.extend([kt, rt]);
            king_end = Some(kt);
        } else if self.is_attack(m.from, m.to) {
            let c = self.combat(m.from, m.to);
            board = c.board;
            damage.clone_from(&c.damage);
            if c.attacker_alive {
                let land = if c.en_passant {
                    m.to
                } else if let Some(l) = m.land {
                    l
                } else {
                    c.kills.first().copied().unwrap_or(m.from)
                };
                if land != m.from {
                    board[land] = board[m.from].take();
                }
                moved.push(land);
                if mover.kind == Kind::King {
                    king_end = Some(land);
                }
            }
            combat = Some(c);
        } else {
            board[m.to] = board[m.from].take();
            moved.push(m.to);
            if mover.kind == Kind::King {
                king_end = Some(m.to);
            }
        }
        if let Some(k) = m.promo {
            let Some(&sq) = moved.first() else { unreachable!() };
            board[sq] = Some(Unit { color: mover.color, kind: k, hp: max_hp(k), shield: false });
        }
        // Castling rights: lost when the king or rook moves (an attack counts) or leaves its
        // square otherwise (killed).
        let mut castling = self.castling;
        for (i, color, kf, _, rf, _, _) in CASTLINGS {
            let king_ok = matches!(board[kf], Some(u) if u.color == color && u.kind == Kind::King);
            let rook_ok = matches!(board[rf], Some(u) if u.color == color && u.kind == Kind::Rook);
            if m.from == kf || m.from == rf || !king_ok || !rook_ok {
                castling[i] = false;
            }
        }
        // Shields, fixed at the end of the ply.
        let king_after = |board: &[Option<Unit>; 64], color: Color| {
            (0..64).find(|&s| board[s].is_some_and(|u| u.color == color && u.kind == Kind::King))
        };
        let kings_after = [king_after(&board, Color::White), king_after(&board, Color::Black)];
        let kings_before = [self.king(Color::White), self.king(Color::Black)];
        for (sq, cell) in board.iter_mut().enumerate() {
            let Some(u) = cell.as_mut() else { continue };
            if u.kind == Kind::King {
                u.shield = true;
                continue;
            }
            let next_to = |k: Option<usize>| k.is_some_and(|k| distance(k, sq) == 1);
            u.shield = if next_to(kings_after[u.color.idx()]) {
                true
            } else if moved.contains(&sq) {
                false
            } else {
                u.shield && next_to(kings_before[u.color.idx()])
            };
        }
        let pawn_move = mover.kind == Kind::Pawn;
        let double = pawn_move && (rank_of(m.to) - rank_of(m.from)).abs() == 2;
        let after = CPos {
            board,
            side: self.side.other(),
            castling,
            ep: if double { step(m.from, 0, self.side.forward()) } else { None },
            halfmove: if pawn_move || !damage.is_empty() { 0 } else { self.halfmove + 1 },
            fullmove: self.fullmove + u32::from(self.side == Color::Black),
        };
        Ply { after, damage, king_end, combat }
    }
}

pub const START: &str =
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 hp=- shields=d1,f1,d2,e2,f2,d7,e7,f7,d8,f8";

/// One ply of the game's history since its start or loaded text: mover, where its king ended
/// (for a king move), whether any HP was lost.
type Record = (Color, Option<usize>, bool);

/// A game: a position plus the history its draws need.
#[derive(Clone, Debug)]
pub struct CGame {
    pub pos: CPos,
    keys: Vec<String>,
    history: Vec<Record>,
    /// Damage dealt by the last action.
    pub damage: Vec<(usize, u8)>,
    /// The last ply, for coverage statistics.
    pub last: Option<Ply>,
    actions: Vec<(String, CMove)>,
    outcome: Option<Outcome>,
}

impl CGame {
    pub fn from_fen(fen: &str) -> Result<CGame, String> {
        let pos = CPos::from_fen(fen)?;
        let mut g = CGame {
            keys: vec![pos.key()],
            pos,
            history: Vec::new(),
            damage: Vec::new(),
            last: None,
            actions: Vec::new(),
            outcome: None,
        };
        g.judge();
        Ok(g)
    }

    /// The king-repeat rule for the player who just moved.
    fn king_repeat(&self) -> bool {
        let n = self.history.len();
        if n < 9 {
            return false;
        }
        let window = &self.history[n - 9..];
        let ends: Vec<Option<usize>> = window.iter().step_by(2).map(|r| r.1).collect();
        ends.iter().all(Option::is_some) && ends[0] == ends[2] && ends[2] == ends[4] && !window.iter().any(|r| r.2)
    }

    fn judge(&mut self) {
        let pos = &self.pos;
        self.actions = pos.actions();
        let pieces = pos.board.iter().flatten().count();
        let plies = 2 * (pos.fullmove.saturating_sub(1)) + u32::from(pos.side == Color::Black);
        let repeats = self.keys.iter().filter(|k| Some(*k) == self.keys.last()).count();
        self.outcome = if pos.king(Color::White).is_none() {
            Some((Some(Color::Black), "king-killed"))
        } else if pos.king(Color::Black).is_none() {
            Some((Some(Color::White), "king-killed"))
        } else if pieces == 2 {
            Some((None, "kings-only"))
        } else if self.king_repeat() {
            Some((None, "king-repeat"))
        } else if plies >= 150 {
            Some((None, "ply-limit"))
        } else if self.actions.is_empty() {
            Some((None, "no-move"))
        } else if repeats >= 3 {
            Some((None, "repetition"))
        } else if pos.halfmove >= 100 {
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

    pub fn legal(&self) -> &[(String, CMove)] {
        if self.outcome.is_some() { &[] } else { &self.actions }
    }

    pub fn legal_texts(&self) -> Vec<String> {
        self.legal().iter().map(|(t, _)| t.clone()).collect()
    }

    pub fn play(&mut self, text: &str) -> Result<(), String> {
        let m = self
            .legal()
            .iter()
            .find(|(t, _)| t == text)
            .map(|(_, m)| *m)
            .ok_or_else(|| format!("{text} is not legal in {}", self.fen()))?;
        let ply = self.pos.play(m);
        self.history.push((self.pos.side, ply.king_end, !ply.damage.is_empty()));
        self.damage.clone_from(&ply.damage);
        self.pos = ply.after.clone();
        self.last = Some(ply);
        self.keys.push(self.pos.key());
        self.judge();
        Ok(())
    }
}

/// Leaf count of the legal-action tree. As the engine counts it: a fallen king, kings only and
/// the ply limit (rules of the position) end the tree; the history draws (repetition,
/// no-progress, king-repeat) do not.
pub fn perft(pos: &CPos, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let plies = 2 * pos.fullmove.saturating_sub(1) + u32::from(pos.side == Color::Black);
    if pos.board.iter().flatten().count() == 2 || plies >= 150 {
        return 0;
    }
    let actions = pos.actions();
    if depth == 1 {
        return actions.len() as u64;
    }
    actions.iter().map(|(_, m)| perft(&pos.play(*m).after, depth - 1)).sum()
}
