//! The search: iterative deepening, principal variation search with a transposition table,
//! move ordering (table move, most valuable victim first, killers, history), check extension,
//! late-move reductions and pruning, and a quiescence search on captures and promotions.
//!
//! The search is pure: it reads no clock but the caller's deadlines, and with a node budget
//! and no deadline it returns the same result for the same position, history and seed.

use std::time::Instant;

use chessgold_engine::action::MoveList;
use chessgold_engine::bitboard::BitBoard;
use chessgold_engine::movegen::legal_moves;
use chessgold_engine::pieces::MAX_ROLES;
use chessgold_engine::{Color, Move, MoveKind, Position};

use crate::eval::{BotVariant, Evaluator, MATE, MATE_BOUND};
use crate::tt::{Bound, Tt};

const INF: i32 = 32_500;
/// Deepest ply the search reaches (including extensions and quiescence).
pub const MAX_PLY: usize = 96;
const MAX_SQUARES: usize = 81;

/// What bounds one search.
#[derive(Clone, Copy, Debug)]
pub struct SearchOptions {
    /// Deepest iteration (plies); at most [`MAX_PLY`] / 2.
    pub max_depth: u32,
    /// Nodes after which the search stops.
    pub nodes: Option<u64>,
    /// The search stops as soon as it notices this instant has passed.
    pub deadline: Option<Instant>,
    /// No new iteration starts after this instant.
    pub soft_deadline: Option<Instant>,
    /// Amplitude of the seeded evaluation noise (weaker levels), centipawns.
    pub noise_cp: i32,
    /// Seed of the evaluation noise.
    pub seed: u64,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions { max_depth: 40, nodes: None, deadline: None, soft_deadline: None, noise_cp: 0, seed: 0 }
    }
}

/// The result of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The best action found; `None` when there is no legal action.
    pub best: Option<Move>,
    /// Its score for the side to move, centipawns (mates near ±32000, see [`mate_in`]).
    pub score: i32,
    /// The last completed iteration's depth.
    pub depth: u32,
    /// Nodes visited (including quiescence).
    pub nodes: u64,
    /// The principal variation, starting with `best`.
    pub pv: Vec<Move>,
}

/// Moves to mate (positive: the side to move mates; negative: it is mated), if `score` is a
/// mate score.
pub fn mate_in(score: i32) -> Option<i32> {
    if score >= MATE_BOUND {
        Some((MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        Some(-(MATE + score) / 2)
    } else {
        None
    }
}

/// A well-mixed 64-bit value (splitmix64 finaliser).
pub(crate) fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn lmr_reduction(depth: i32, index: usize) -> i32 {
    if depth < 3 || index < 2 {
        return 0;
    }
    let r = (f64::from(depth).ln() * (index as f64).ln() / 2.0 + 0.3) as i32;
    r.max(1)
}

/// A searcher for variant `V`, keeping its transposition table and move-ordering statistics
/// from one search to the next (reuse it through a game).
pub struct Searcher<V: BotVariant> {
    eval: V::Eval,
    tt: Tt,
    killers: Vec<[Option<Move>; 2]>,
    history: Vec<i32>,
    lists: Vec<MoveList>,
    scored: Vec<Vec<(Move, i32)>>,
    pv: Vec<Vec<Move>>,
    path: Vec<u64>,
    filter: [u64; 16],
    game_len: usize,
    nodes: u64,
    stop: bool,
    opts: SearchOptions,
    root_depth: i32,
    root_best: Option<Move>,
    root_best_iter: Option<(Move, i32)>,
}

impl<V: BotVariant> core::fmt::Debug for Searcher<V> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Searcher").field("variant", &V::ID).field("nodes", &self.nodes).finish_non_exhaustive()
    }
}

impl<V: BotVariant> Searcher<V> {
    /// A searcher with a transposition table of about `tt_megabytes` MB.
    pub fn new(tt_megabytes: usize) -> Searcher<V> {
        Searcher {
            eval: V::evaluator(),
            tt: Tt::new(tt_megabytes),
            killers: vec![[None; 2]; MAX_PLY + 1],
            history: vec![0; 2 * MAX_ROLES * MAX_SQUARES],
            lists: (0..=MAX_PLY).map(|_| Vec::with_capacity(128)).collect(),
            scored: (0..=MAX_PLY).map(|_| Vec::with_capacity(128)).collect(),
            pv: (0..=MAX_PLY).map(|_| Vec::with_capacity(MAX_PLY)).collect(),
            path: Vec::new(),
            filter: [0; 16],
            game_len: 0,
            nodes: 0,
            stop: false,
            opts: SearchOptions::default(),
            root_depth: 0,
            root_best: None,
            root_best_iter: None,
        }
    }

    /// Forgets the transposition table and the ordering statistics (a new game).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.history.fill(0);
        for k in &mut self.killers {
            *k = [None; 2];
        }
    }

    /// The evaluator.
    pub fn evaluator(&self) -> &V::Eval {
        &self.eval
    }

    /// Searches `pos`, whose game went through the positions `history` (repetition keys,
    /// oldest first, the current one excluded).
    pub fn search(&mut self, pos: &Position<V>, history: &[u64], opts: SearchOptions) -> SearchResult {
        self.opts = opts;
        self.nodes = 0;
        self.stop = false;
        self.path.clear();
        self.path.extend_from_slice(history);
        self.game_len = history.len();
        self.filter = [0; 16];
        for h in history {
            self.filter[(h >> 6) as usize & 15] |= 1 << (h & 63);
        }
        for k in &mut self.killers {
            *k = [None; 2];
        }
        for h in &mut self.history {
            *h /= 8;
        }
        self.root_best = None;
        let mut hidden = pos.clone();
        V::hide_secrets(&mut hidden, mix64(opts.seed ^ 0x5EED));
        let pos = &hidden;

        let mut root = Vec::new();
        legal_moves(pos, &mut root);
        let static_eval = self.eval(pos);
        let Some(&first) = root.first() else {
            return SearchResult { best: None, score: static_eval, depth: 0, nodes: 0, pv: Vec::new() };
        };
        let mut result = SearchResult { best: Some(first), score: static_eval, depth: 0, nodes: 0, pv: vec![first] };
        if root.len() == 1 && opts.noise_cp == 0 {
            result.nodes = 1;
            return result;
        }
        let max_depth = opts.max_depth.clamp(1, (MAX_PLY / 2) as u32) as i32;
        let mut prev = static_eval;
        for depth in 1..=max_depth {
            self.root_depth = depth;
            self.root_best_iter = None;
            let mut delta = 30;
            let (mut alpha, mut beta) = if depth >= 4 { (prev - delta, prev + delta) } else { (-INF, INF) };
            let score = loop {
                let s = self.negamax(pos, depth, 0, alpha, beta);
                if self.stop {
                    break s;
                }
                if s <= alpha {
                    alpha = (alpha - delta).max(-INF);
                    beta = (alpha + beta) / 2;
                } else if s >= beta {
                    beta = (beta + delta).min(INF);
                } else {
                    break s;
                }
                delta *= 2;
                if delta > 1000 {
                    alpha = -INF;
                    beta = INF;
                }
            };
            if self.stop {
                // A move that beat the previous best in the unfinished iteration is better.
                if let Some((m, s)) = self.root_best_iter
                    && result.depth > 0
                    && Some(m) != result.best
                {
                    result.best = Some(m);
                    result.score = s;
                    result.pv = vec![m];
                }
                break;
            }
            prev = score;
            result.depth = depth as u32;
            result.score = score;
            result.pv = self.pv[0].clone();
            result.best = result.pv.first().copied().or(self.root_best).or(result.best);
            self.root_best = result.best;
            if score.abs() >= MATE_BOUND && depth as u32 >= 2 * mate_in(score).map_or(0, |m| m.unsigned_abs()) + 2 {
                break;
            }
            if opts.soft_deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
        }
        result.nodes = self.nodes;
        result
    }

    #[inline]
    fn eval(&self, pos: &Position<V>) -> i32 {
        let e = self.eval.evaluate(pos);
        if self.opts.noise_cp > 0 {
            let span = 2 * self.opts.noise_cp as u64 + 1;
            let n = (mix64(pos.hash() ^ self.opts.seed) % span) as i32 - self.opts.noise_cp;
            e + n
        } else {
            e
        }
    }

    /// Counts a node and tells whether the search must stop.
    #[inline]
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if let Some(limit) = self.opts.nodes
            && self.nodes >= limit
        {
            self.stop = true;
        }
        if self.nodes & 255 == 0
            && let Some(d) = self.opts.deadline
            && Instant::now() >= d
        {
            self.stop = true;
        }
        self.stop
    }

    fn is_repetition(&self, key: u64) -> bool {
        // Ancestors in the search, then the game (through a filter that is rarely hit).
        let n = self.path.len();
        let mut i = n;
        while i > self.game_len {
            i -= 1;
            if self.path[i] == key {
                return true;
            }
        }
        if self.filter[(key >> 6) as usize & 15] & (1 << (key & 63)) != 0 {
            return self.path[..self.game_len].contains(&key);
        }
        false
    }

    fn outcome_score(winner: Option<Color>, turn: Color, ply: usize) -> i32 {
        match winner {
            None => 0,
            Some(w) if w == turn => MATE - ply as i32,
            Some(_) => -MATE + ply as i32,
        }
    }

    fn no_move_score(pos: &Position<V>, ply: usize) -> i32 {
        let s = V::no_move_score(pos);
        if s <= -MATE_BOUND {
            -MATE + ply as i32
        } else if s >= MATE_BOUND {
            MATE - ply as i32
        } else {
            s
        }
    }

    #[inline]
    fn history_index(pos: &Position<V>, mv: Move) -> usize {
        let role = match mv.kind {
            MoveKind::Place | MoveKind::PromoteInPlace => mv.role.idx(),
            _ => pos.board().role_at(mv.from).map_or(0, |r| r.idx()),
        };
        let role = role.min(MAX_ROLES - 1);
        (pos.turn().index() * MAX_ROLES + role) * MAX_SQUARES + mv.to.idx().min(MAX_SQUARES - 1)
    }

    fn attacker_value(&self, pos: &Position<V>, mv: Move) -> i32 {
        match mv.kind {
            MoveKind::Place | MoveKind::PromoteInPlace => 0,
            _ => pos.board().role_at(mv.from).map_or(0, |r| self.eval.role_value(r)),
        }
    }

    /// Orders the moves of `list` into `scored` (highest first when picked).
    fn score_moves(
        &self,
        pos: &Position<V>,
        list: &[Move],
        tt_move: Option<Move>,
        ply: usize,
        out: &mut Vec<(Move, i32)>,
    ) {
        out.clear();
        let killers = self.killers[ply];
        for &m in list {
            let s = if Some(m) == tt_move {
                4_000_000
            } else if self.eval.is_noisy(pos, m) {
                2_000_000 + 16 * self.eval.material_gain(pos, m) - self.attacker_value(pos, m) / 16
            } else if Some(m) == killers[0] {
                1_500_000
            } else if Some(m) == killers[1] {
                1_400_000
            } else {
                self.history[Self::history_index(pos, m)].min(1_000_000)
            };
            out.push((m, s));
        }
    }

    #[inline]
    fn pick(scored: &mut [(Move, i32)], i: usize) -> Move {
        let mut best = i;
        for j in i + 1..scored.len() {
            if scored[j].1 > scored[best].1 {
                best = j;
            }
        }
        scored.swap(i, best);
        scored[i].0
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(m);
        if let Some(child) = tail.first() {
            line.extend_from_slice(child);
        }
    }

    fn negamax(&mut self, pos: &Position<V>, depth: i32, ply: usize, mut alpha: i32, mut beta: i32) -> i32 {
        self.pv[ply].clear();
        if self.tick() {
            return 0;
        }
        let pv_node = beta - alpha > 1;
        let turn = pos.turn();
        if ply > 0 {
            if let Some(o) = V::variant_outcome(pos) {
                return Self::outcome_score(o.winner, turn, ply);
            }
            // Only the draws the variant has: Class Warfare knows neither repetition nor the
            // no-progress rule.
            if (V::REPETITION && self.is_repetition(pos.hash())) || V::insufficient_material(pos) {
                return 0;
            }
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        if ply >= MAX_PLY - 2 {
            return self.eval(pos);
        }
        if depth <= 0 {
            return self.qsearch(pos, ply, alpha, beta, 0);
        }
        let key = pos.hash();
        let tt_key = V::table_key(pos);
        let entry = self.tt.probe(tt_key);
        let mut tt_move = entry.and_then(|e| e.mv);
        if ply == 0 && self.root_best.is_some() {
            tt_move = self.root_best;
        }
        if let Some(e) = entry
            && ply > 0
            && !pv_node
            && i32::from(e.depth) >= depth
        {
            let s = score_from_tt(e.score, ply);
            let cut = match e.bound {
                Bound::Exact => true,
                Bound::Lower => s >= beta,
                Bound::Upper => s <= alpha,
                Bound::None => false,
            };
            if cut && pos.halfmoves() < 90 {
                return s;
            }
        }

        let mut list = core::mem::take(&mut self.lists[ply]);
        legal_moves(pos, &mut list);
        if list.is_empty() {
            self.lists[ply] = list;
            return Self::no_move_score(pos, ply);
        }
        if ply > 0 && V::NO_PROGRESS_PLIES.is_some_and(|n| pos.halfmoves() >= n) {
            self.lists[ply] = list;
            return 0;
        }
        let in_check = pos.is_check();
        let static_eval = if in_check { -INF } else { self.eval(pos) };
        // Reverse futility: far above beta near the leaves.
        if !pv_node && !in_check && depth <= 4 && beta.abs() < MATE_BOUND && static_eval - 100 * depth >= beta {
            self.lists[ply] = list;
            return static_eval;
        }

        let mut scored = core::mem::take(&mut self.scored[ply]);
        self.score_moves(pos, &list, tt_move, ply, &mut scored);
        self.lists[ply] = list;

        let futile = !pv_node && !in_check && depth <= 2 && static_eval + 120 + 100 * depth <= alpha;
        let lmp_limit = if depth <= 3 { 4 + 3 * (depth * depth) as usize } else { usize::MAX };

        let mut best = -INF;
        let mut best_move = None;
        let mut bound = Bound::Upper;
        let mut searched = 0usize;
        let mut quiets = 0usize;
        self.path.push(key);
        for i in 0..scored.len() {
            let m = Self::pick(&mut scored, i);
            let noisy = self.eval.is_noisy(pos, m);
            let killer = !noisy && self.killers[ply].contains(&Some(m));
            if !noisy {
                quiets += 1;
            }
            let prunable = !pv_node && !in_check && !noisy && searched > 0 && best > -MATE_BOUND;
            if prunable && quiets > lmp_limit {
                continue;
            }
            let mut child = pos.clone();
            child.play_unchecked(m);
            let gives_check = child.is_check();
            if prunable && futile && !gives_check {
                continue;
            }
            let ext = i32::from(gives_check && (ply as i32) < 2 * self.root_depth);
            let new_depth = depth - 1 + ext;
            let score = if searched == 0 {
                -self.negamax(&child, new_depth, ply + 1, -beta, -alpha)
            } else {
                let mut r = 0;
                if depth >= 3 && !noisy && !in_check && !gives_check {
                    r = lmr_reduction(depth, searched) - i32::from(pv_node) - i32::from(killer);
                    r = r.clamp(0, (new_depth - 1).max(0));
                }
                let mut s = -self.negamax(&child, new_depth - r, ply + 1, -alpha - 1, -alpha);
                if s > alpha && r > 0 && !self.stop {
                    s = -self.negamax(&child, new_depth, ply + 1, -alpha - 1, -alpha);
                }
                if s > alpha && s < beta && !self.stop {
                    s = -self.negamax(&child, new_depth, ply + 1, -beta, -alpha);
                }
                s
            };
            searched += 1;
            if self.stop {
                break;
            }
            if score > best {
                best = score;
                best_move = Some(m);
                if score > alpha {
                    alpha = score;
                    bound = Bound::Exact;
                    self.update_pv(ply, m);
                    if ply == 0 {
                        self.root_best_iter = Some((m, score));
                    }
                    if score >= beta {
                        bound = Bound::Lower;
                        if !noisy {
                            let k = &mut self.killers[ply];
                            if k[0] != Some(m) {
                                k[1] = k[0];
                                k[0] = Some(m);
                            }
                            let h = &mut self.history[Self::history_index(pos, m)];
                            *h = (*h + depth * depth).min(900_000);
                        }
                        break;
                    }
                }
            }
        }
        self.path.pop();
        self.scored[ply] = scored;
        if self.stop {
            return 0;
        }
        if best == -INF {
            // Every move was pruned (cannot happen with searched > 0 first); be safe.
            best = static_eval.max(-MATE_BOUND);
        }
        self.tt.store(tt_key, best_move, score_to_tt(best, ply), depth, bound);
        best
    }

    fn qsearch(&mut self, pos: &Position<V>, ply: usize, mut alpha: i32, beta: i32, qply: u32) -> i32 {
        self.pv[ply].clear();
        if self.tick() {
            return 0;
        }
        let turn = pos.turn();
        if let Some(o) = V::variant_outcome(pos) {
            return Self::outcome_score(o.winner, turn, ply);
        }
        let mut list = core::mem::take(&mut self.lists[ply]);
        legal_moves(pos, &mut list);
        if list.is_empty() {
            self.lists[ply] = list;
            return Self::no_move_score(pos, ply);
        }
        let in_check = pos.is_check();
        if ply >= MAX_PLY - 2 || (in_check && qply >= 6) {
            self.lists[ply] = list;
            return self.eval(pos);
        }
        let mut best;
        let stand = if in_check { -INF } else { self.eval(pos) };
        if in_check {
            best = -MATE + ply as i32;
        } else {
            if stand >= beta {
                self.lists[ply] = list;
                return stand;
            }
            alpha = alpha.max(stand);
            best = stand;
        }
        let mut scored = core::mem::take(&mut self.scored[ply]);
        scored.clear();
        for &m in &list {
            if in_check {
                let s = if self.eval.is_noisy(pos, m) { 1_000_000 + self.eval.material_gain(pos, m) } else { 0 };
                scored.push((m, s));
            } else if self.eval.is_noisy(pos, m) {
                let gain = self.eval.material_gain(pos, m);
                if stand + gain + 180 < alpha {
                    continue;
                }
                let attacker = self.attacker_value(pos, m);
                let victim_base = gain / if V::CONVERSION { 2 } else { 1 };
                // A capture of a lesser, defended piece rarely pays.
                if attacker > victim_base + 50
                    && m.kind == MoveKind::Normal
                    && pos.attackers(m.to, !turn, pos.board().occupied()).any()
                {
                    continue;
                }
                scored.push((m, 16 * gain - attacker / 16));
            }
        }
        self.lists[ply] = list;
        for i in 0..scored.len() {
            let m = Self::pick(&mut scored, i);
            let mut child = pos.clone();
            child.play_unchecked(m);
            let score = -self.qsearch(&child, ply + 1, -beta, -alpha, qply + 1);
            if self.stop {
                break;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        self.scored[ply] = scored;
        if self.stop {
            return 0;
        }
        best
    }
}

fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}
