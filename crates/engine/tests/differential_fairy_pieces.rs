//! Differential tests for `electrum`, `grunt` and `class-warfare`: the engine against a second
//! independent, naive reference implementation (`tests/reference_fairy_pieces`) written from the rule book only.
//! At every step of many seeded random playouts the two must agree on the position text, the sorted
//! legal actions, check and the game's end (status, winner, reason); perft from the start positions
//! and from the rule book's examples is compared too, and coverage counters insist that the playouts
//! reached the rules that matter.

#![expect(clippy::expect_used, reason = "test helpers fail loudly on broken fixtures")]

mod common;
#[path = "common/differential.rs"]
mod harness;
mod reference_fairy_pieces;

use chessgold_engine::AnyGame;
use chessgold_engine::registry::variant;
use common::Rng;
use harness::{assert_same_legal, check_perft_file, covered, parallel_sum, play_both, scaled, seed_base};
use reference_fairy_pieces::{Action, Color, Kind, RefGame, Var, perft, status_of};

fn engine_from_fen(var: Var, fen: &str) -> Box<dyn AnyGame> {
    variant(var.id())
        .unwrap_or_else(|| panic!("variant {} not registered", var.id()))
        .game_from_fen(fen)
        .unwrap_or_else(|e| panic!("engine refuses {fen} ({}): {e:?}", var.id()))
}

fn reference_from_fen(var: Var, fen: &str) -> RefGame {
    RefGame::from_fen(var, fen).unwrap_or_else(|e| panic!("reference refuses {fen}: {e}"))
}

/// Asserts that the engine's game and the reference's game agree on everything observable.
fn assert_same(e: &dyn AnyGame, r: &RefGame, context: &str) {
    let snap = e.snapshot();
    let fen = r.fen();
    assert_eq!(snap.fen, fen, "{context}: position text differs (left engine, right reference)");
    assert_same_legal(&snap.legal, &r.legal_texts(), &fen, context);
    assert_eq!(snap.check, r.pos.in_check(), "{context}: check differs at {fen}");
    assert_eq!(snap.side, r.pos.side.name(), "{context}: side to move differs at {fen}");
    match r.outcome() {
        None => assert_eq!(snap.status, "ongoing", "{context}: the engine ends the game at {fen}: {:?}", snap.reason),
        Some((winner, reason)) => {
            assert_eq!(
                (snap.status, snap.winner, snap.reason),
                (status_of(reason), winner.map(Color::name), Some(reason)),
                "{context}: end differs at {fen}"
            );
        }
    }
}

/// How a playout chooses among the legal actions.
#[derive(Clone, Copy, Debug)]
enum Bias {
    /// Every action equally likely.
    Uniform,
    /// Captures, checks and promotions strongly preferred.
    Captures,
    /// Pawn moves, promotions and musters preferred.
    Pawns,
    /// Quiet piece moves preferred: repetitions and the no-progress rule.
    Shuffle,
}

const BIASES: [Bias; 4] = [Bias::Uniform, Bias::Captures, Bias::Pawns, Bias::Shuffle];

/// What the playouts reached, so the suite can insist that every rule was exercised.
#[derive(Default, Debug)]
struct Seen {
    steps: u64,
    captures: u64,
    en_passant: u64,
    checks: u64,
    castlings: [u64; 2],
    promotions_silver: u64,
    promotions_gold: u64,
    promotions_e_file: u64,
    // Grunt.
    xp_captures: u64,
    ladder: [u64; 4],
    musters: u64,
    muster_blocks: u64,
    waiting_pawns: u64,
    waiting_pawn_promotions: u64,
    muster_cap: u64,
    // Class Warfare.
    pawn_returns: u64,
    pawns_removed: u64,
    pawn_mode_moves: u64,
    chess_mode_moves: u64,
    sideways: u64,
    king_moves_into_attack: u64,
    // Ends.
    checkmates: u64,
    stalemates: u64,
    repetitions: u64,
    no_progress: u64,
    insufficient: u64,
    king_captured: u64,
    no_pawns: u64,
    move_limit: u64,
    no_move: u64,
}

/// Class Warfare factory files of a type, as the rule book lists them.
fn factories(kind: Kind) -> Option<[usize; 2]> {
    match kind {
        Kind::Rook => Some([24, 31]),
        Kind::Knight => Some([25, 30]),
        Kind::Bishop => Some([26, 29]),
        Kind::Queen => Some([27, 28]),
        _ => None,
    }
}

impl Seen {
    fn record(&mut self, r: &RefGame, action: Action) {
        let pos = &r.pos;
        let next = pos.after(action);
        let files = pos.var.files() as usize;
        self.steps += 1;
        if next.in_check() {
            self.checks += 1;
        }
        match action {
            Action::Move { from, to, promo } => {
                let mover = pos.board[from].expect("mover");
                if let Some((piece, sq)) = pos.captured(action) {
                    self.captures += 1;
                    if sq != to {
                        self.en_passant += 1;
                    }
                    if pos.var == Var::Grunt {
                        self.xp_captures += 1;
                    }
                    if pos.var == Var::ClassWarfare && piece.kind == Kind::Pawn {
                        if next.board[24 + to % files].is_some_and(|p| p.kind == Kind::Pawn) && to / files != 3 {
                            self.pawn_returns += 1;
                        } else {
                            self.pawns_removed += 1;
                        }
                    }
                }
                if let Some(k) = promo {
                    if to % files == 4 {
                        self.promotions_e_file += 1;
                    } else if Kind::GOLD.contains(&k) {
                        self.promotions_gold += 1;
                    } else {
                        self.promotions_silver += 1;
                    }
                }
                if pos.var == Var::Electrum && mover.kind == Kind::King && from.abs_diff(to) == 2 {
                    self.castlings[mover.color.idx()] += 1;
                }
                if pos.var == Var::Grunt && mover.kind == Kind::Pawn && (to / 8 == 0 || to / 8 == 7) {
                    self.waiting_pawns += 1;
                }
                if pos.var == Var::ClassWarfare {
                    if let Some([a, b]) = factories(mover.kind) {
                        if pos.board[a].is_some() && pos.board[b].is_some() {
                            self.chess_mode_moves += 1;
                        } else {
                            self.pawn_mode_moves += 1;
                        }
                    }
                    if mover.kind == Kind::Pawn && from / 8 == 0 {
                        self.sideways += 1;
                    }
                    if mover.kind == Kind::King && next.attacked(to, Color::Black) {
                        self.king_moves_into_attack += 1;
                    }
                }
            }
            Action::Promote { sq, kind } => {
                let from = pos.board[sq].expect("promoted piece").kind;
                let step = match (from, kind) {
                    (Kind::Pawn, _) => 0,
                    (Kind::Grunt, _) => 1,
                    (_, Kind::Rook) => 2,
                    _ => 3,
                };
                self.ladder[step] += 1;
                if from == Kind::Pawn && (sq / 8 == 0 || sq / 8 == 7) {
                    self.waiting_pawn_promotions += 1;
                }
            }
            Action::Muster { .. } => {
                self.musters += 1;
                if pos.in_check() {
                    self.muster_blocks += 1;
                }
                if pos.board.iter().flatten().filter(|p| p.color == pos.side).count() == 9 {
                    self.muster_cap += 1;
                }
            }
        }
    }

    fn record_end(&mut self, r: &RefGame) {
        match r.outcome().map(|(_, reason)| reason) {
            Some("checkmate") => self.checkmates += 1,
            Some("stalemate") => self.stalemates += 1,
            Some("repetition") => self.repetitions += 1,
            Some("no-progress") => self.no_progress += 1,
            Some("insufficient-material") => self.insufficient += 1,
            Some("king-captured") => self.king_captured += 1,
            Some("no-pawns") => self.no_pawns += 1,
            Some("move-limit") => self.move_limit += 1,
            Some("no-move") => self.no_move += 1,
            _ => {}
        }
    }
}

/// Preference of a playout for an action; `undo` is the mover's own previous move, whose reversal
/// the shuffling playouts prefer (repetitions).
fn weight(r: &RefGame, action: Action, bias: Bias, undo: Option<Action>) -> u64 {
    let pos = &r.pos;
    let captured = pos.captured(action);
    let capture = captured.is_some();
    let (mover, from, to) = match action {
        Action::Move { from, to, .. } => (pos.board[from].map(|p| p.kind), from, to),
        _ => (None, 0, 0),
    };
    let pawn_move = mover == Some(Kind::Pawn);
    let files = pos.var.files() as usize;
    let en_passant = captured.is_some_and(|(_, sq)| sq != to);
    let double_step = pawn_move && from.abs_diff(to) == 2 * files;
    let castles = mover == Some(Kind::King) && from.abs_diff(to) == 2;
    let promotes = matches!(action, Action::Move { promo: Some(_), .. });
    let special = matches!(action, Action::Promote { .. } | Action::Muster { .. });
    let quiet_piece = mover.is_some() && !pawn_move && !capture;
    let reverses = matches!(undo, Some(Action::Move { from: f, to: t, .. }) if f == to && t == from) && mover.is_some();
    let checks = || pos.after(action).in_check();
    let w = match bias {
        Bias::Uniform => 1 + 20 * u64::from(special),
        Bias::Captures => {
            1 + 60 * u64::from(capture) + 10 * u64::from(promotes) + 25 * u64::from(checks()) + 20 * u64::from(special)
        }
        Bias::Pawns => {
            1 + 12 * u64::from(pawn_move)
                + 40 * u64::from(double_step)
                + 20 * u64::from(capture)
                + 30 * u64::from(promotes)
                + 30 * u64::from(special)
        }
        Bias::Shuffle => 1 + 300 * u64::from(quiet_piece) + 3000 * u64::from(reverses),
    };
    w + 300 * u64::from(en_passant) + 300 * u64::from(castles && !matches!(bias, Bias::Shuffle))
}

fn choose(
    r: &RefGame,
    legal: &[(String, Action)],
    bias: Bias,
    undo: Option<Action>,
    rng: &mut Rng,
) -> (String, Action) {
    let weights: Vec<u64> = legal.iter().map(|(_, a)| weight(r, *a, bias, undo)).collect();
    let mut pick = rng.below(weights.iter().sum());
    for (w, entry) in weights.iter().zip(legal) {
        if pick < *w {
            return entry.clone();
        }
        pick -= w;
    }
    legal[legal.len() - 1].clone()
}

/// One seeded playout, compared at every step; returns the actions played.
fn playout(var: Var, start: &str, seed: u64, bias: Bias, max_plies: usize, seen: &mut Seen) -> Vec<String> {
    let mut rng = Rng::new(seed);
    let mut e = engine_from_fen(var, start);
    let mut r = reference_from_fen(var, start);
    let mut trail: Vec<String> = Vec::new();
    let mut played: Vec<Action> = Vec::new();
    for ply in 0..max_plies {
        let context = format!("{} from {start} seed {seed} {bias:?} after [{}]", var.id(), trail.join(" "));
        assert_same(e.as_ref(), &r, &context);
        if ply % 11 == 5 {
            // The same position read back from its text, without history, by both sides.
            let fen = r.fen();
            let e2 = engine_from_fen(var, &fen);
            let r2 = reference_from_fen(var, &fen);
            assert_same(e2.as_ref(), &r2, &format!("{context} (read from {fen})"));
            if ply % 4 == 1 && seed.is_multiple_of(3) && r2.outcome().is_none() {
                assert_eq!(e2.perft(2), perft(&r2.pos, 2), "{context}: perft 2 of {fen}");
            }
        }
        let legal = r.legal().to_vec();
        if legal.is_empty() {
            break;
        }
        let undo = played.len().checked_sub(2).map(|i| played[i]);
        let (text, action) = choose(&r, &legal, bias, undo, &mut rng);
        played.push(action);
        seen.record(&r, action);
        let written = e.play(&text).unwrap_or_else(|err| panic!("{context}: engine refuses {text}: {err:?}"));
        assert_eq!(written, text, "{context}: engine writes {text} differently");
        r.play(&text).unwrap_or_else(|err| panic!("{context}: {err}"));
        trail.push(text);
    }
    let context = format!("{} from {start} seed {seed} {bias:?} after [{}]", var.id(), trail.join(" "));
    assert_same(e.as_ref(), &r, &context);
    seen.record_end(&r);
    trail
}

/// Playouts from each start position, cycling through the biases.
fn playouts(var: Var, starts: &[&str], games: u64, base: u64, plies: usize) -> Seen {
    let mut seen = Seen::default();
    for game in 0..scaled(games) {
        let seed = seed_base(base) + game * 7919;
        let bias = BIASES[(game % 4) as usize];
        let start = starts[(game / 4) as usize % starts.len()];
        let plies = if matches!(bias, Bias::Shuffle) { plies + 60 } else { plies / 2 + (seed % plies as u64) as usize };
        playout(var, start, seed, bias, plies, &mut seen);
    }
    eprintln!("{}: {seen:?}", var.id());
    seen
}

/// Plays `actions` from `fen` in both implementations, comparing at every step.
fn agree(var: Var, fen: &str, actions: &str) -> (Box<dyn AnyGame>, RefGame) {
    let label = format!("{} from {fen}", var.id());
    play_both(engine_from_fen(var, fen), reference_from_fen(var, fen), actions, &label, RefGame::play, assert_same)
}

fn legal_has(r: &RefGame, action: &str) -> bool {
    r.legal().iter().any(|(t, _)| t == action)
}

/// Electrum positions with more going on than the start: promotions near, castling open, endgames.
const ELECTRUM_STARTS: &[&str] = &[
    "wcbskgmnr/ppppppppp/9/9/9/9/9/PPPPPPPPP/RNMGKSBCW w Qk - 0 1",
    "w3k3r/ppp1p1ppp/3p1p3/9/9/9/3P1P3/PPP1P1PPP/R3K3W w Qk - 0 1",
    "4k4/1P5P1/9/3p5/9/9/5P3/1p5p1/4K4 w - - 0 1",
    "r3k4/2P1P1P2/9/9/2s3G2/9/9/2p1p1p2/4K3R b - - 0 1",
    "wc2k1mnr/pp1pp1ppp/2p3g2/5p3/9/3PP4/2N3B2/PPP2PPPP/RNMGKS2W w Qk - 0 1",
];

const GRUNT_STARTS: &[&str] = &[
    "1nbgkbn1/pppppppp/8/8/8/8/PPPPPPPP/1NBGKBN1 w - - 0 1 xp=0/1",
    "4k3/pp3ppp/8/8/8/8/PPP2PPP/4K3 w - - 0 1 xp=6/7",
    "3gk3/1P6/8/2p5/5P2/8/6p1/3GK3 w - - 0 1 xp=12/12",
    "r3k2r/pppbqppp/2n2n2/3pp3/3PP3/2N2N2/PPPBQPPP/R3K2R w - - 0 1 xp=9/9",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1 xp=0/1",
    "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1 xp=0/0",
];

const CLASS_WARFARE_STARTS: &[&str] = &[
    "pppppppp/8/8/RNBQKBNR b - - 0 1",
    "p1pp1ppp/1p2p3/8/RNBQKBNR b - - 0 3",
    "pp4pp/8/2p2p2/R1BQKB1R b - - 0 10",
    "8/2pp4/p6p/1NB1K1QR b - - 0 40",
    "p6R/8/8/1NBQKBN1 w - - 0 20",
    "pp5R/8/2p5/1NBQKBN1 b - - 0 20",
];

#[test]
fn electrum_playouts_agree() {
    let seen = playouts(Var::Electrum, ELECTRUM_STARTS, 150, 11, 120);
    covered("captures, en passant, checks", seen.captures > 0 && seen.en_passant > 0 && seen.checks > 0, &seen);
    covered("castling by both sides", seen.castlings[0] > 0 && seen.castlings[1] > 0, &seen);
    covered("promotions", seen.promotions_silver > 0 && seen.promotions_gold > 0 && seen.promotions_e_file > 0, &seen);
    covered("mate and a draw by the position", seen.checkmates > 0 && seen.stalemates + seen.insufficient > 0, &seen);
    covered("repetition", seen.repetitions > 0, &seen);
}

#[test]
fn grunt_playouts_agree() {
    let seen = playouts(Var::Grunt, GRUNT_STARTS, 150, 12, 120);
    covered("captures, en passant, checks", seen.captures > 0 && seen.en_passant > 0 && seen.checks > 0, &seen);
    covered("every step of the ladder", seen.ladder.iter().all(|&n| n > 0), &seen);
    covered("musters", seen.musters > 0 && seen.muster_blocks > 0 && seen.muster_cap > 0, &seen);
    covered("waiting pawns", seen.waiting_pawns > 0 && seen.waiting_pawn_promotions > 0, &seen);
    covered("mate and repetition", seen.checkmates > 0 && seen.repetitions > 0, &seen);
}

#[test]
fn class_warfare_playouts_agree() {
    let seen = playouts(Var::ClassWarfare, CLASS_WARFARE_STARTS, 200, 13, 110);
    covered("pawns returning and removed", seen.pawn_returns > 0 && seen.pawns_removed > 0, &seen);
    covered("both modes, rank 1", seen.pawn_mode_moves > 0 && seen.chess_mode_moves > 0 && seen.sideways > 0, &seen);
    covered("no check", seen.king_moves_into_attack > 0, &seen);
    covered("the three ends", seen.king_captured > 0 && seen.no_pawns > 0 && seen.move_limit > 0, &seen);
}

#[test]
fn perft_from_the_start_positions() {
    for (var, depth) in [(Var::Electrum, 3), (Var::Grunt, 3), (Var::ClassWarfare, 4)] {
        let e = variant(var.id()).expect("registered").new_game();
        let r = RefGame::new(var);
        assert_same(e.as_ref(), &r, &format!("{} start", var.id()));
        for d in 1..=depth {
            assert_eq!(e.perft(d), perft(&r.pos, d), "{} perft {d}", var.id());
        }
    }
}

/// A random position text for the variant: one king each, pieces of every type anywhere their
/// rules allow, random castling rights, en passant square, XP, counters; the side not to move not
/// in check.
fn random_fen(var: Var, rng: &mut Rng) -> Option<String> {
    let (files, ranks) = (var.files() as usize, var.ranks() as usize);
    let mut board = vec![' '; files * ranks];
    let castling = var == Var::Electrum && rng.below(2) == 0;
    let squares = (files * ranks) as u64;
    let (white_king, black_king) =
        if castling { (4, 76) } else { (rng.below(squares) as usize, rng.below(squares) as usize) };
    if white_king == black_king {
        return None;
    }
    board[white_king] = 'K';
    if var != Var::ClassWarfare {
        board[black_king] = 'k';
    }
    if castling {
        for (sq, rook) in [(0, 'R'), (80, 'r')] {
            if rng.below(4) != 0 {
                board[sq] = rook;
            }
        }
    }
    let letters: &[u8] = match var {
        Var::Electrum => b"PPPPPRNMGSBCW",
        Var::Grunt => b"PPPPPGGGNBRQ",
        Var::ClassWarfare => b"PPPPPPPPPPNBRQ",
    };
    let pieces = 2 + rng.below(if var == Var::ClassWarfare { 14 } else { 18 });
    for _ in 0..pieces {
        let sq = rng.below(squares) as usize;
        if board[sq] != ' ' {
            continue;
        }
        let letter = letters[rng.below(letters.len() as u64) as usize] as char;
        let rank = sq / files;
        let white = match var {
            // The proletariat is all pawns, the bourgeoisie has none.
            Var::ClassWarfare => letter != 'P',
            _ => rng.below(2) == 0,
        };
        if letter == 'P' && var != Var::ClassWarfare {
            // Electrum: never on the first or last rank; Grunt: waiting pawns on the last rank.
            let top = if var == Var::Grunt { ranks - 1 } else { ranks - 2 };
            let ok = if white { (1..=top).contains(&rank) } else { (ranks - 1 - top..=ranks - 2).contains(&rank) };
            if !ok {
                continue;
            }
        }
        board[sq] = if white { letter } else { letter.to_ascii_lowercase() };
    }
    if var == Var::Grunt {
        for upper in [true, false] {
            if board.iter().filter(|c| **c != ' ' && c.is_ascii_uppercase() == upper).count() > 12 {
                return None;
            }
        }
    }
    let white_to_move = rng.below(2) == 0;
    let mut castle = String::new();
    if castling {
        if board[4] == 'K' && board[0] == 'R' && rng.below(3) != 0 {
            castle.push('Q');
        }
        if board[76] == 'k' && board[80] == 'r' && rng.below(3) != 0 {
            castle.push('k');
        }
    }
    if castle.is_empty() {
        castle.push('-');
    }
    // En passant: a pawn of the side not to move that may just have double-stepped.
    let mut ep = "-".to_string();
    if var != Var::ClassWarfare {
        let (pawn, rank, dir): (char, usize, i64) = if white_to_move { ('p', ranks - 4, 1) } else { ('P', 3, -1) };
        let candidates: Vec<usize> = (0..files)
            .map(|f| rank * files + f)
            .filter(|&sq| {
                let behind = (sq as i64 + files as i64 * dir) as usize;
                let start = (sq as i64 + 2 * files as i64 * dir) as usize;
                board[sq] == pawn && board[behind] == ' ' && board[start] == ' '
            })
            .collect();
        if !candidates.is_empty() && rng.below(2) == 0 {
            let sq = (candidates[rng.below(candidates.len() as u64) as usize] as i64 + files as i64 * dir) as usize;
            ep = format!("{}{}", (b'a' + (sq % files) as u8) as char, sq / files + 1);
        }
    }
    let mut rows = Vec::new();
    for rank in (0..ranks).rev() {
        let mut row = String::new();
        let mut empty = 0;
        for file in 0..files {
            let c = board[rank * files + file];
            if c == ' ' {
                empty += 1;
            } else {
                if empty > 0 {
                    row.push_str(&empty.to_string());
                }
                empty = 0;
                row.push(c);
            }
        }
        if empty > 0 {
            row.push_str(&empty.to_string());
        }
        rows.push(row);
    }
    let side = if white_to_move { "w" } else { "b" };
    let fullmove = 1 + rng.below(if var == Var::ClassWarfare { 50 } else { 80 });
    let mut fen = format!("{} {side} {castle} {ep} {} {fullmove}", rows.join("/"), rng.below(40));
    if var == Var::Grunt {
        fen.push_str(&format!(" xp={}/{}", rng.below(16), rng.below(16)));
    }
    let r = RefGame::from_fen(var, &fen).ok()?;
    if var.has_check() {
        let mut flipped = r.pos.clone();
        flipped.side = flipped.side.other();
        if flipped.in_check() {
            return None;
        }
    }
    Some(fen)
}

#[test]
fn random_positions_agree() {
    for (i, var) in [Var::Electrum, Var::Grunt, Var::ClassWarfare].into_iter().enumerate() {
        let mut rng = Rng::new(seed_base(2000 + i as u64));
        let mut seen = Seen::default();
        let mut rejected = Vec::new();
        let mut played = 0;
        while played < scaled(150) {
            let Some(fen) = random_fen(var, &mut rng) else { continue };
            if let Err(e) = variant(var.id()).expect("registered").game_from_fen(&fen) {
                rejected.push(format!("{fen}: {e:?}"));
                continue;
            }
            let seed = rng.next();
            playout(var, &fen, seed, BIASES[(played % 4) as usize], 40, &mut seen);
            played += 1;
        }
        eprintln!("{} random positions: {seen:?}", var.id());
        assert!(rejected.is_empty(), "{}: the engine refuses {rejected:#?}", var.id());
        covered("captures", seen.captures > 0, &seen);
    }
}

/// The actions of the piece on `square`.
fn from_square(r: &RefGame, square: &str) -> Vec<String> {
    r.legal_texts().into_iter().filter(|t| t.starts_with(square) && !t.contains(['=', '@'])).collect()
}

#[test]
fn electrum_pieces_move_as_their_betza_says() {
    // Each piece alone on e5 (kings on a2 and a8, out of its way), for both colours; "forward" is
    // down the board for Black.
    for (letter, count) in [('R', 18), ('N', 10), ('M', 12), ('G', 24), ('S', 20), ('B', 17), ('C', 10), ('W', 8)] {
        for white in [true, false] {
            let piece = if white { letter } else { letter.to_ascii_lowercase() };
            let side = if white { 'w' } else { 'b' };
            let fen = format!("9/k8/9/9/4{piece}4/9/9/K8/9 {side} - - 0 1");
            let (_, r) = agree(Var::Electrum, &fen, "");
            assert_eq!(from_square(&r, "e5").len(), count, "{piece}: {:?}", from_square(&r, "e5"));
        }
    }
    // The narrow forward leaps: the Nitan's (1,3), the Caman's (1,2).
    let (_, r) = agree(Var::Electrum, "9/k8/9/9/4N4/9/9/K8/9 w - - 0 1", "");
    assert!(legal_has(&r, "e5d8") && legal_has(&r, "e5f8") && !legal_has(&r, "e5d2"));
    let (_, r) = agree(Var::Electrum, "9/k8/9/9/4c4/9/9/K8/9 b - - 0 1", "");
    assert!(legal_has(&r, "e5d3") && legal_has(&r, "e5f3") && !legal_has(&r, "e5d7"));
}

#[test]
fn electrum_castling() {
    let fen = "w3k3r/ppppppppp/9/9/9/9/9/PPPPPPPPP/R3K3W w Qk - 0 1";
    let (e, r) = agree(Var::Electrum, fen, "e1c1");
    assert_eq!(e.fen(), "w3k3r/ppppppppp/9/9/9/9/9/PPPPPPPPP/2KR4W b k - 1 1");
    assert!(legal_has(&r, "e9g9"));
    let (e, _) = agree(Var::Electrum, fen, "e1c1 e9g9");
    assert_eq!(e.fen(), "w4rk2/ppppppppp/9/9/9/9/9/PPPPPPPPP/2KR4W w - - 2 2");
    // Not through an attacked d1, but the Goldrook may pass an attacked b1.
    let (_, r) = agree(Var::Electrum, "w3k3r/ppppppppp/9/3g5/9/9/9/PPP1PPPPP/R3K3W w Qk - 0 1", "");
    assert!(!legal_has(&r, "e1c1"));
    let (_, r) = agree(Var::Electrum, "w3k3r/ppppppppp/9/9/1s7/9/9/P1PPPPPPP/R3K3W w Qk - 0 1", "");
    assert!(legal_has(&r, "e1c1"));
    // The right goes with the Goldrook or the king, also when the Goldrook is taken.
    let (e, _) = agree(Var::Electrum, fen, "a1b1 e9f9");
    assert!(e.fen().contains(" w - "), "{}", e.fen());
    let (e, _) = agree(Var::Electrum, "w3k3r/ppppppppp/9/9/9/9/9/PPPPPPPPP/R3K3W w Qk - 0 1", "e1f1");
    assert!(e.fen().contains(" b k "), "{}", e.fen());
    // Only `Q` and `k` exist.
    for bad in ["K", "q", "Qkq", "KQ"] {
        let text = format!("w3k3r/ppppppppp/9/9/9/9/9/PPPPPPPPP/R3K3W w {bad} - 0 1");
        assert!(variant("electrum").expect("registered").game_from_fen(&text).is_err(), "{text}");
        assert!(RefGame::from_fen(Var::Electrum, &text).is_err(), "{text}");
    }
}

#[test]
fn electrum_promotion_depends_on_the_square() {
    let (_, r) = agree(Var::Electrum, "9/P3P3P/4k4/9/9/9/9/9/4K4 w - - 0 1", "");
    let promotions = |file: &str| r.legal_texts().into_iter().filter(|t| t.starts_with(file)).collect::<Vec<_>>();
    assert_eq!(promotions("a8"), ["a8a9b", "a8a9c", "a8a9s", "a8a9w"]);
    assert_eq!(promotions("i8"), ["i8i9g", "i8i9m", "i8i9n", "i8i9r"]);
    assert_eq!(promotions("e8").len(), 8);
    let (_, r) = agree(Var::Electrum, "4k4/9/9/9/9/9/4K4/p3p3p/9 b - - 0 1", "");
    let promotions = |file: &str| r.legal_texts().into_iter().filter(|t| t.starts_with(file)).collect::<Vec<_>>();
    assert_eq!(promotions("a2"), ["a2a1g", "a2a1m", "a2a1n", "a2a1r"]);
    assert_eq!(promotions("i2"), ["i2i1b", "i2i1c", "i2i1s", "i2i1w"]);
    assert_eq!(promotions("e2").len(), 8);
    // A capture onto the king's file also offers all eight.
    let (e, _) = agree(Var::Electrum, "3kr4/3P5/9/9/9/9/9/9/4K4 w - - 0 1", "d8e9c");
    assert_eq!(e.fen(), "3kC4/9/9/9/9/9/9/9/4K4 b - - 0 1");
}

#[test]
fn electrum_en_passant_and_bare_kings() {
    let (e, r) = agree(Var::Electrum, "4k4/9/9/9/9/3p5/9/4P4/4K4 w - - 0 1", "e2e4");
    assert_eq!(e.fen(), "4k4/9/9/9/9/3pP4/9/9/4K4 b - e3 0 1");
    assert!(legal_has(&r, "d4e3"));
    let (e, r) = agree(Var::Electrum, "4k4/9/9/9/9/9/9/4s4/4K4 w - - 0 1", "e1e2");
    assert_eq!(r.outcome(), Some((None, "insufficient-material")));
    assert_eq!(e.snapshot().status, "draw");
}

#[test]
fn grunt_rule_book_examples() {
    let start = Var::Grunt.start_fen();
    let (e, r) = agree(Var::Grunt, start, "e2e4 d7d5 e4d5 e7e6 d5e6 f7e6");
    assert!(e.fen().ends_with("xp=5/5"), "{}", e.fen());
    assert!(legal_has(&r, "a2=G"));
    let (e, _) = agree(Var::Grunt, start, "e2e4 d7d5 e4d5 e7e6 d5e6 f7e6 a2=G");
    assert_eq!(e.fen(), "1nbgkbn1/ppp3pp/4p3/8/8/8/GPPP1PPP/1NBGKBN1 b - - 0 4 xp=2/5");
    // The ladder and its prices.
    let (_, r) = agree(Var::Grunt, "4k3/8/8/8/8/8/PG1N1B2/R3K3 w - - 0 1 xp=9/0", "");
    for a in ["a2=G", "b2=B", "b2=N", "d2=R", "f2=R", "a1=Q"] {
        assert!(legal_has(&r, a), "{a}");
    }
    assert!(!legal_has(&r, "a1=Q") || !legal_has(&r, "e1=Q"));
    let (_, r) = agree(Var::Grunt, "4k3/8/8/8/8/8/PG1N1B2/R3K3 w - - 0 1 xp=5/0", "");
    assert!(legal_has(&r, "a2=G") && !legal_has(&r, "b2=B") && !legal_has(&r, "a1=Q") && legal_has(&r, "G@e2"));
}

#[test]
fn grunt_moves_checks_and_musters() {
    // The Grunt steps straight and captures diagonally, backwards too.
    let (_, r) = agree(Var::Grunt, "4k3/8/8/3p4/4G3/5g2/8/4K3 w - - 0 1 xp=0/0", "");
    assert_eq!(from_square(&r, "e4"), ["e4d5", "e4e3", "e4e5", "e4f3"]);
    // In check: no promotion in place; a muster that blocks is allowed.
    let (_, r) = agree(Var::Grunt, "4k3/8/8/8/8/8/P7/r3K3 w - - 0 1 xp=9/0", "");
    assert_eq!(r.legal_texts(), ["G@d1", "e1d2", "e1e2", "e1f2"]);
    // Fewer than ten pieces, king included.
    let (_, r) = agree(Var::Grunt, "4k3/8/8/8/8/8/PPPPPPPP/4K3 w - - 0 1 xp=20/0", "");
    assert!(legal_has(&r, "G@d1"));
    let (_, r) = agree(Var::Grunt, "4k3/8/8/8/8/8/PPPPPPPP/3GK3 w - - 0 1 xp=20/0", "");
    assert!(!legal_has(&r, "G@f1"));
    // Bare kings play on: XP can still muster.
    let (e, _) = agree(Var::Grunt, "4k3/8/8/8/8/8/8/4K3 w - - 0 1 xp=0/0", "e1e2 e8e7");
    assert_eq!(e.snapshot().status, "ongoing");
    // A pawn on the last rank waits for 3 XP.
    let (e, r) = agree(Var::Grunt, "4k3/P7/8/8/8/8/8/4K3 w - - 0 1 xp=2/0", "a7a8 e8e7");
    assert_eq!(e.fen(), "P7/4k3/8/8/8/8/8/4K3 w - - 1 2 xp=2/0");
    assert!(from_square(&r, "a8").is_empty() && !legal_has(&r, "a8=G"));
    let (_, r) = agree(Var::Grunt, "P7/4k3/8/8/8/8/8/4K3 w - - 1 2 xp=3/0", "");
    assert!(legal_has(&r, "a8=G"));
    // XP: the capturer by the captured type, the loser one.
    let (e, _) = agree(Var::Grunt, "4k3/8/8/3q4/4G3/8/8/4K3 w - - 0 1 xp=0/1", "e4d5");
    assert!(e.fen().ends_with("xp=6/2"), "{}", e.fen());
    // Grunt moves do not reset the no-progress counter; a muster does.
    let (e, r) = agree(Var::Grunt, "4k3/8/8/8/8/8/4G3/4K3 w - - 98 60 xp=0/0", "e2e3 e8e7");
    assert_eq!(r.outcome(), Some((None, "no-progress")));
    assert_eq!(e.snapshot().status, "draw");
    let (e, _) = agree(Var::Grunt, "4k3/8/8/8/8/8/4G3/4K3 w - - 98 60 xp=5/0", "G@d1 e8e7");
    assert!(e.fen().contains(" 1 61 "), "{}", e.fen());
}

#[test]
fn class_warfare_rules() {
    let start = Var::ClassWarfare.start_fen();
    // The pawn taken on a3 goes back to its empty factory a4.
    let (e, _) = agree(Var::ClassWarfare, start, "a4a3 b1a3");
    assert_eq!(e.fen(), "pppppppp/N7/8/R1BQKBNR b - - 0 2");
    // An empty b4 puts the knights into pawn mode.
    let (_, r) = agree(Var::ClassWarfare, start, "b4b3 e1e2");
    let (_, r2) = agree(Var::ClassWarfare, start, "b4b3 e1e2 b3b2");
    assert!(!r.legal().is_empty() && from_square(&r2, "g1") == ["g1g2"], "{:?}", r2.legal_texts());
    // The king may stand attacked; a pawn on rank 1 moves sideways and takes the king.
    let (e, r) = agree(Var::ClassWarfare, "8/8/8/3pK3 b - - 0 10", "d1e1");
    assert_eq!(r.outcome(), Some((Some(Color::Black), "king-captured")));
    assert_eq!((e.snapshot().status, e.snapshot().winner), ("variant_end", Some("black")));
    // A pawn taken on its own factory square is removed: the last one ends the game.
    let (_, r) = agree(Var::ClassWarfare, "p6R/8/8/1NBQKBN1 w - - 0 20", "h4a4");
    assert_eq!(r.outcome(), Some((Some(Color::White), "no-pawns")));
    // The proletariat's 50th move ends it.
    let (e, r) = agree(Var::ClassWarfare, "p7/8/8/RNBQKBNR b - - 7 50", "a4a3");
    assert_eq!(r.outcome(), Some((Some(Color::White), "move-limit")));
    assert_eq!(e.perft(1), 0);
    // No legal move loses, for either side.
    let (_, r) = agree(Var::ClassWarfare, "8/8/p7/R3K3 b - - 0 5", "");
    assert_eq!(r.outcome(), Some((Some(Color::White), "no-move")));
    let (_, r) = agree(Var::ClassWarfare, "KN6/RB6/8/7p w - - 0 10", "");
    assert_eq!(r.outcome(), Some((Some(Color::Black), "no-move")));
    // The move limit comes before White's lack of a move, a king capture before the move limit.
    let (_, r) = agree(Var::ClassWarfare, "KN6/RB6/8/p7 b - - 0 49", "a1b1");
    assert_eq!(r.outcome(), Some((Some(Color::Black), "no-move")));
    let (_, r) = agree(Var::ClassWarfare, "KN6/RB6/8/p7 b - - 0 50", "a1b1");
    assert_eq!(r.outcome(), Some((Some(Color::White), "move-limit")));
    let (_, r) = agree(Var::ClassWarfare, "8/8/8/3pK3 b - - 0 50", "d1e1");
    assert_eq!(r.outcome(), Some((Some(Color::Black), "king-captured")));
}

/// The reference's perft, its first moves shared among the cores.
fn reference_perft(pos: &reference_fairy_pieces::Pos, depth: u32) -> u64 {
    if depth < 3 || pos.variant_end().is_some() {
        return perft(pos, depth);
    }
    parallel_sum(&pos.legal(), |a| perft(&pos.after(*a), depth - 1))
}

/// The `tests/perft` data files of the three variants against the reference (`tests/perft.rs`
/// checks the engine against the same lines): the lines within the harness's budget, every line
/// in the release run of `.ci/run`, Grunt's depth 6 from the start included.
#[test]
fn perft_data_files_agree_with_the_reference() {
    let mut checked = 0;
    for var in [Var::Electrum, Var::Grunt, Var::ClassWarfare] {
        checked += check_perft_file(var.id(), |line| {
            assert_eq!(line.seed, None, "{} {}: a seed for a variant without chance", var.id(), line.id);
            let fen = line.fen.as_deref().unwrap_or_else(|| panic!("{} {}: every line has a fen", var.id(), line.id));
            reference_perft(&reference_from_fen(var, fen).pos, line.depth)
        });
    }
    assert!(checked >= 30, "only {checked} perft lines within the budget");
}

#[test]
fn position_texts_both_refuse() {
    for (var, fen) in [
        (Var::Electrum, "wcbskgmn1/ppppppppp/9/9/9/9/9/PPPPPPPPP/RNMGKSBCW w Qk - 0 1"),
        (Var::Electrum, "wcbskgmnr/ppppppppp/9/9/9/9/9/PPPPPPPPP/RNMGKSBCW w Qk - 0 1 xp=0/1"),
        (Var::Electrum, "wcbskgmnr/ppppppppp/9/9/9/9/9/PPPPPPPPP/RNMGKSBCQ w Qk - 0 1"),
        (Var::Electrum, "wcbskgmnr/ppppppppp/9/9/9/9/9/PPPPPPPP/RNMGKSBCW w Qk - 0 1"),
        (Var::Grunt, "1nbgkbn1/pppppppp/8/8/8/8/PPPPPPPP/1NBGKBN1 w - - 0 1"),
        (Var::Grunt, "1nbgkbn1/pppppppp/8/8/8/8/PPPPPPPP/1NBGKBN1 w KQ - 0 1 xp=0/1"),
        (Var::ClassWarfare, "pppppppp/8/8/RNBQKBNR b KQ - 0 1"),
        (Var::ClassWarfare, "pppppppp/8/8/RNBQKBNR b - - 0 1 xp=0/0"),
        (Var::ClassWarfare, "pppppppp/8/8/8/RNBQKBNR b - - 0 1"),
    ] {
        assert!(variant(var.id()).expect("registered").game_from_fen(fen).is_err(), "engine reads {fen}");
        assert!(RefGame::from_fen(var, fen).is_err(), "reference reads {fen}");
    }
}
