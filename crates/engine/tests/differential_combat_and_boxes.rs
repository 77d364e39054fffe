//! Differential tests of `chessception` and `lootbox`: the engine against an independent
//! reference (`tests/reference_combat_and_boxes`) written from the rule books only. Seeded random playouts, some
//! biased towards combat, boxes, items or draws, and playouts from random position texts compare
//! at every step the position text, the sorted legal actions, the equips, the last action's
//! damage or openings and the game's end; perft is compared from the start positions and from
//! constructed positions; coverage counters insist that the intricate rules were reached.
//!
//! The suite found four Chessception engine bugs, since fixed and kept as `regression_*` tests:
//! missing pawn attacks onto the last rank, en passant judged by check, the king-repeat window
//! and a fallen king's castling rights.
//! `DIFFERENTIAL_SCALE` and `DIFFERENTIAL_SEED` lengthen or shift the hunt.

#![expect(clippy::expect_used, reason = "test helpers fail loudly on broken fixtures")]

mod common;
#[path = "common/differential.rs"]
mod harness;
mod reference_combat_and_boxes;

use std::collections::BTreeSet;

use chessgold_engine::AnyGame;
use chessgold_engine::registry::variant;
use common::Rng;
use harness::{assert_same_legal, check_perft_file, covered, difference, parallel_sum, play_both, scaled, seed_base};
use reference_combat_and_boxes::chessception::{self as cc, CGame, CMove, CPos};
use reference_combat_and_boxes::lootbox::{self as lb, Bolt, LAction, LGame, LPos};
use reference_combat_and_boxes::{Color, Kind, Outcome, at, distance, rank_of, square_name};
use serde_json::Value;

/// Weighted coin flips for the biased playouts.
trait Chance {
    /// One chance in `one_in`.
    fn chance(&mut self, one_in: u64) -> bool;
}

impl Chance for Rng {
    fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }
}

/// The snapshot as JSON, for the variant state's fields.
fn snapshot_json(e: &dyn AnyGame) -> Value {
    serde_json::to_value(e.snapshot()).expect("snapshot encodes")
}

fn status_of(outcome: Option<Outcome>) -> &'static str {
    match outcome {
        None => "ongoing",
        Some((_, "checkmate")) => "checkmate",
        Some((_, "stalemate")) => "stalemate",
        Some((Some(_), _)) => "variant_end",
        Some((None, _)) => "draw",
    }
}

/// Compares what every variant shows: text, legal actions, end.
fn same_common(e: &dyn AnyGame, fen: &str, legal: &[String], outcome: Option<Outcome>, context: &str) -> Value {
    let json = snapshot_json(e);
    assert_eq!(e.fen(), fen, "{context}: position text differs (left engine, right reference)");
    assert_eq!(json["fen"], fen, "{context}: snapshot text differs");
    assert_same_legal(&e.legal_actions(), legal, fen, context);
    assert_eq!(json["status"], status_of(outcome), "{context}: status differs at {fen}");
    assert_eq!(json["winner"].as_str(), outcome.and_then(|o| o.0).map(Color::name), "{context}: winner at {fen}");
    assert_eq!(json["reason"].as_str(), outcome.map(|o| o.1), "{context}: reason differs at {fen}");
    json
}

// ------------------------------------------------------------------------------ chessception

fn c_engine(fen: &str) -> Box<dyn AnyGame> {
    variant("chessception")
        .expect("chessception registered")
        .game_from_fen(fen)
        .unwrap_or_else(|e| panic!("engine refuses {fen}: {e:?}"))
}

fn c_reference(fen: &str) -> CGame {
    CGame::from_fen(fen).unwrap_or_else(|e| panic!("reference refuses {fen}: {e}"))
}

fn damage_set(list: &[(usize, u8)]) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = list.iter().map(|&(sq, n)| (square_name(sq), u64::from(n))).collect();
    v.sort();
    v
}

/// Compares perft from `fen`.
fn c_perft_agree(fen: &str, depth: u32) -> bool {
    let (e, r) = (c_engine(fen), c_reference(fen));
    assert_eq!(e.perft(depth), cc::perft(&r.pos, depth), "perft {depth} of {fen}");
    true
}

fn c_same(e: &dyn AnyGame, r: &CGame, context: &str) {
    let fen = r.fen();
    let json = same_common(e, &fen, &r.legal_texts(), r.outcome(), context);
    assert_eq!(json["check"], false, "{context}: chessception has no check");
    let mut engine_damage: Vec<(String, u64)> = json["damage"]
        .as_array()
        .expect("damage list")
        .iter()
        .map(|d| (d["square"].as_str().unwrap_or("").to_string(), d["amount"].as_u64().unwrap_or(0)))
        .filter(|d| d.1 > 0)
        .collect();
    engine_damage.sort();
    assert_eq!(engine_damage, damage_set(&r.damage), "{context}: damage of the last action differs at {fen}");
}

#[derive(Clone, Copy, Debug)]
enum CBias {
    Uniform,
    /// Attacks, preferably with knight stacks and area damage; promotions.
    Combat,
    /// King moves: king attacks, king deaths, the king-repeat rule.
    Kings,
    /// Quiet piece moves: repetition, no-progress.
    Shuffle,
    /// Pawn moves: en passant, promotion.
    Pawns,
}

#[derive(Default, Debug)]
struct CSeen {
    plies: u64,
    attacks: u64,
    kills: u64,
    area_hits: u64,
    area_kills: u64,
    landing_choices: u64,
    land_on_area_kill: u64,
    counter_attacks: u64,
    attacker_killed: u64,
    double_stacks: u64,
    single_stacks: u64,
    shielded_hits: u64,
    shields_lost_moving: u64,
    shields_kept_one_ply: u64,
    shields_lost_after_grace: u64,
    en_passant: u64,
    en_passant_no_kill: u64,
    promotions: u64,
    limited_promotions: u64,
    pawn_attacks_last_rank_no_kill: u64,
    castlings: u64,
    king_attacks: u64,
    kings_killed: u64,
    king_killed_by_own_attack: u64,
    kings_only: u64,
    king_repeat: u64,
    ply_limit: u64,
    no_move: u64,
    repetition: u64,
    no_progress: u64,
}

impl CSeen {
    fn record(&mut self, before: &CPos, m: CMove, ply: &cc::Ply) {
        self.plies += 1;
        let Some(mover) = before.board[m.from] else { return };
        if m.land.is_some() {
            self.landing_choices += 1;
        }
        if let Some(k) = m.promo {
            self.promotions += 1;
            if k != Kind::Queen || before.actions().iter().filter(|(_, x)| x.from == m.from && x.to == m.to).count() < 4
            {
                self.limited_promotions += 1;
            }
        }
        if mover.kind == Kind::King && m.from.abs_diff(m.to) == 2 && ply.combat.is_none() {
            self.castlings += 1;
        }
        if let Some(c) = &ply.combat {
            self.attacks += 1;
            self.kills += c.kills.len() as u64;
            let target = if c.en_passant { at(m.to as i32 % 8, rank_of(m.from)).unwrap_or(m.to) } else { m.to };
            self.area_hits += c.damage.iter().filter(|d| d.0 != target && d.0 != m.from).count() as u64;
            self.area_kills += c.kills.iter().filter(|&&k| k != target).count() as u64;
            if c.kills.len() == 1 && c.kills[0] != target && c.attacker_alive {
                self.land_on_area_kill += 1;
            }
            self.counter_attacks += u64::from(c.counters);
            if !c.attacker_alive {
                self.attacker_killed += 1;
            }
            match c.stacks {
                0 => {}
                1 => self.single_stacks += 1,
                _ => self.double_stacks += 1,
            }
            if before.board[target].is_some_and(|u| u.shield && u.kind != Kind::King) {
                self.shielded_hits += 1;
            }
            if c.en_passant {
                self.en_passant += 1;
                if c.kills.is_empty() {
                    self.en_passant_no_kill += 1;
                }
            }
            if mover.kind == Kind::Pawn && rank_of(m.to) == before.side.last_rank() && m.promo.is_none() {
                self.pawn_attacks_last_rank_no_kill += 1;
            }
            if mover.kind == Kind::King {
                self.king_attacks += 1;
                if !c.attacker_alive {
                    self.king_killed_by_own_attack += 1;
                }
            }
        }
        let after = &ply.after;
        for sq in 0..64 {
            let (Some(b), Some(a)) = (before.board[sq], after.board[sq]) else { continue };
            if b.kind == Kind::King || !b.shield || b.color != a.color || sq == m.from {
                continue;
            }
            let king_now = after.king(a.color).is_some_and(|k| distance(k, sq) == 1);
            let king_before = before.king(b.color).is_some_and(|k| distance(k, sq) == 1);
            if !king_now && a.shield {
                self.shields_kept_one_ply += 1;
            }
            if !king_now && !a.shield && !king_before {
                self.shields_lost_after_grace += 1;
            }
        }
        if before.board[m.from].is_some_and(|u| u.shield && u.kind != Kind::King) {
            let lost = (0..64).any(|sq| {
                after.board[sq].is_some_and(|u| u.color == mover.color && u.kind != Kind::King && !u.shield)
                    && (sq == m.to || sq == m.from || m.land == Some(sq))
            });
            if lost {
                self.shields_lost_moving += 1;
            }
        }
    }

    fn end(&mut self, outcome: Option<Outcome>) {
        match outcome.map(|o| o.1) {
            Some("king-killed") => self.kings_killed += 1,
            Some("kings-only") => self.kings_only += 1,
            Some("king-repeat") => self.king_repeat += 1,
            Some("ply-limit") => self.ply_limit += 1,
            Some("no-move") => self.no_move += 1,
            Some("repetition") => self.repetition += 1,
            Some("no-progress") => self.no_progress += 1,
            _ => {}
        }
    }
}

fn c_weight(pos: &CPos, m: CMove, bias: CBias) -> u64 {
    let Some(mover) = pos.board[m.from] else { return 1 };
    let attack = pos.board[m.to].is_some() || (mover.kind == Kind::Pawn && m.from % 8 != m.to % 8);
    let knights = (0..64)
        .filter(|&s| {
            distance(s, m.from) <= 1 && pos.board[s].is_some_and(|u| u.color == mover.color && u.kind == Kind::Knight)
        })
        .count() as u64;
    let king = mover.kind == Kind::King;
    let pawn = mover.kind == Kind::Pawn;
    match bias {
        CBias::Uniform => 1,
        CBias::Combat => {
            1 + u64::from(attack) * (40 + 40 * knights + 30 * u64::from(m.land.is_some()))
                + 30 * u64::from(m.promo.is_some())
                + 10 * u64::from(mover.kind == Kind::Knight && !attack)
        }
        CBias::Kings => 1 + 60 * u64::from(king) + 30 * u64::from(king && attack) + 5 * u64::from(attack),
        CBias::Shuffle => 1 + 200 * u64::from(!attack && !pawn) + 4000 * u64::from(!attack && !pawn && !king),
        CBias::Pawns => 1 + 20 * u64::from(pawn) + 200 * u64::from(pawn && attack && pos.board[m.to].is_none()),
    }
}

fn c_choose(r: &CGame, engine_legal: &[String], bias: CBias, rng: &mut Rng) -> String {
    let legal = r.legal();
    // Both list the same actions (checked before the choice).
    let weights: Vec<u64> =
        legal.iter().map(|(t, m)| if engine_legal.contains(t) { c_weight(&r.pos, *m, bias) } else { 0 }).collect();
    let total: u64 = weights.iter().sum();
    if total == 0 {
        return legal[0].0.clone();
    }
    let mut pick = rng.below(total);
    for (w, (text, _)) in weights.iter().zip(legal) {
        if pick < *w {
            return text.clone();
        }
        pick -= w;
    }
    legal[legal.len() - 1].0.clone()
}

/// One seeded playout from `start`, compared at every step; returns the actions played.
fn c_playout(start: &str, seed: u64, bias: CBias, max_plies: usize, seen: &mut CSeen) -> Vec<String> {
    let mut rng = Rng::new(seed);
    let mut e = c_engine(start);
    let mut r = c_reference(start);
    let mut trail: Vec<String> = Vec::new();
    for ply in 0..max_plies {
        let context = format!("chessception from {start} seed {seed} {bias:?} after [{}]", trail.join(" "));
        c_same(e.as_ref(), &r, &context);
        if ply % 11 == 5 {
            let fen = r.fen();
            let (e2, r2) = (c_engine(&fen), c_reference(&fen));
            c_same(e2.as_ref(), &r2, &format!("{context} (read back from {fen})"));
            if ply == 27 && seed.is_multiple_of(4) && r2.outcome().is_none() {
                c_perft_agree(&fen, 2);
            }
        }
        if r.outcome().is_some() {
            break;
        }
        let text = c_choose(&r, &e.legal_actions(), bias, &mut rng);
        let m = r.legal().iter().find(|(t, _)| *t == text).map(|x| x.1).expect("chosen from the list");
        let before = r.pos.clone();
        let written = e.play(&text).unwrap_or_else(|err| panic!("{context}: engine refuses {text}: {err:?}"));
        assert_eq!(written, text, "{context}: the engine writes {text} differently");
        r.play(&text).unwrap_or_else(|err| panic!("{context}: {err}"));
        if let Some(p) = &r.last {
            seen.record(&before, m, p);
        }
        trail.push(text);
    }
    let context = format!("chessception from {start} seed {seed} {bias:?} after [{}]", trail.join(" "));
    c_same(e.as_ref(), &r, &context);
    seen.end(r.outcome());
    trail
}

/// Plays `actions` from `fen` in both, comparing at every step.
fn c_agree(fen: &str, actions: &str) -> (Box<dyn AnyGame>, CGame) {
    play_both(c_engine(fen), c_reference(fen), actions, &format!("chessception from {fen}"), CGame::play, c_same)
}

#[test]
fn chessception_start_and_perft() {
    let (e, r) = c_agree(cc::START, "");
    assert_eq!(e.fen(), cc::START);
    assert_eq!(variant("chessception").expect("registered").start_fen, cc::START);
    for depth in 1..=3 {
        let ours = cc::perft(&r.pos, depth);
        assert_eq!(e.perft(depth), ours, "chessception perft {depth}");
    }
    // The FIDE count 8902 plus eight landing choices: after d3/d4 and ...h6 or ...Nh6, or after
    // e3/e4 and ...a6 or ...Na6, the bishop beside its knight (one stack) kills the target and
    // the piece diagonally next to it (Bxh6/g7, Bxa6/b7).
    assert_eq!(cc::perft(&r.pos, 3), 8910);
}

/// The reference's perft, its first moves shared among the cores.
fn c_reference_perft(pos: &CPos, depth: u32) -> u64 {
    if depth < 3 || cc::perft(pos, 1) == 0 {
        return cc::perft(pos, depth);
    }
    parallel_sum(&pos.actions(), |(_, m)| cc::perft(&pos.play(*m).after, depth - 1))
}

/// `tests/perft/chessception.perft` against the reference (`tests/perft.rs` checks the engine
/// against the same lines): the lines within the harness's budget, every line in the release run
/// of `.ci/run`, depth 6 of the start included.
#[test]
fn chessception_perft_data_file_agrees_with_the_reference() {
    let checked = check_perft_file("chessception", |line| {
        c_reference_perft(&c_reference(line.fen.as_deref().unwrap_or(cc::START)).pos, line.depth)
    });
    assert!(checked >= 12, "only {checked} perft lines within the budget");
}

#[test]
fn chessception_playouts_agree() {
    let mut seen = CSeen::default();
    let biases = [CBias::Uniform, CBias::Combat, CBias::Kings, CBias::Shuffle, CBias::Pawns, CBias::Combat];
    for game in 0..scaled(42) {
        let seed = seed_base(11) + game * 7919;
        let bias = biases[(game % biases.len() as u64) as usize];
        c_playout(cc::START, seed, bias, 160, &mut seen);
    }
    eprintln!("chessception playouts: {seen:?}");
    covered("attacks and area damage", seen.attacks > 0 && seen.area_hits > 0 && seen.area_kills > 0, &seen);
    covered("landing choices", seen.landing_choices > 0 && seen.land_on_area_kill > 0, &seen);
    covered("counter-attacks", seen.counter_attacks > 0 && seen.attacker_killed > 0, &seen);
    covered("knight stacks", seen.single_stacks > 0 && seen.double_stacks > 0, &seen);
    covered("shields", seen.shielded_hits > 0 && seen.shields_lost_moving > 0 && seen.shields_kept_one_ply > 0, &seen);
    covered("shield grace ends", seen.shields_lost_after_grace > 0, &seen);
    covered("en passant", seen.en_passant > 0, &seen);
    covered("promotions", seen.promotions > 0 && seen.castlings > 0, &seen);
    covered("king deaths", seen.kings_killed > 0 && seen.king_attacks > 0, &seen);
    covered("draws", seen.repetition + seen.no_progress + seen.king_repeat + seen.ply_limit > 0, &seen);
}

/// A random Chessception position text: one king each, pawns on ranks 2-7, random HP, shields,
/// castling rights, en passant square and clocks.
fn c_random_fen(rng: &mut Rng) -> Option<String> {
    let mut board = [' '; 64];
    let castle = rng.chance(3);
    let (wk, bk) = if castle { (4, 60) } else { (rng.below(64) as usize, rng.below(64) as usize) };
    if wk == bk {
        return None;
    }
    board[wk] = 'K';
    board[bk] = 'k';
    if castle {
        for (sq, c) in [(0, 'R'), (7, 'R'), (56, 'r'), (63, 'r')] {
            if !rng.chance(4) {
                board[sq] = c;
            }
        }
    }
    let n = 3 + rng.below(18);
    for _ in 0..n {
        let sq = rng.below(64) as usize;
        if board[sq] != ' ' {
            continue;
        }
        let letter = b"PPPPPNNNBBRRQ"[rng.below(13) as usize] as char;
        if letter == 'P' && !(8..56).contains(&sq) {
            continue;
        }
        // Knight clusters for stacks.
        board[sq] = if rng.chance(2) { letter } else { letter.to_ascii_lowercase() };
    }
    let white = rng.chance(2);
    let mut castling = String::new();
    for (c, k, r, ksq, rsq) in
        [('K', 'K', 'R', 4, 7), ('Q', 'K', 'R', 4, 0), ('k', 'k', 'r', 60, 63), ('q', 'k', 'r', 60, 56)]
    {
        if board[ksq] == k && board[rsq] == r && !rng.chance(3) {
            castling.push(c);
        }
    }
    if castling.is_empty() {
        castling.push('-');
    }
    let mut ep = "-".to_string();
    let (pawn, rank, dir) = if white { ('p', 4usize, 1i32) } else { ('P', 3, -1) };
    let candidates: Vec<usize> = (0..8)
        .map(|f| rank * 8 + f)
        .filter(|&sq| {
            let behind = (sq as i32 + 8 * dir) as usize;
            let start = (sq as i32 + 16 * dir) as usize;
            board[sq] == pawn && board[behind] == ' ' && board[start] == ' '
        })
        .collect();
    if !candidates.is_empty() && !rng.chance(3) {
        let sq = (candidates[rng.below(candidates.len() as u64) as usize] as i32 + 8 * dir) as usize;
        ep = square_name(sq);
    }
    let rows = reference_combat_and_boxes::board_text(|sq| {
        let c = board[sq];
        Kind::from_letter(c).map(|k| (if c.is_ascii_uppercase() { Color::White } else { Color::Black }, k))
    });
    let mut hp = Vec::new();
    let mut shields = Vec::new();
    for (sq, &c) in board.iter().enumerate() {
        let Some(kind) = Kind::from_letter(c) else { continue };
        let full = cc::max_hp(kind);
        if rng.chance(3) {
            hp.push(format!("{}:{}", square_name(sq), 1 + rng.below(u64::from(full) - 1)));
        }
        if kind != Kind::King && rng.chance(4) {
            shields.push(square_name(sq));
        }
    }
    let list = |v: Vec<String>| if v.is_empty() { "-".to_string() } else { v.join(",") };
    let side = if white { "w" } else { "b" };
    let halfmove = if ep != "-" {
        0
    } else if rng.chance(5) {
        85 + rng.below(14)
    } else {
        rng.below(30)
    };
    let fullmove = if rng.chance(5) { 68 + rng.below(7) } else { 1 + rng.below(40) };
    Some(format!("{rows} {side} {castling} {ep} {halfmove} {fullmove} hp={} shields={}", list(hp), list(shields)))
}

#[test]
fn chessception_random_positions_agree() {
    let mut rng = Rng::new(seed_base(31));
    let mut seen = CSeen::default();
    let biases = [CBias::Combat, CBias::Uniform, CBias::Kings, CBias::Pawns, CBias::Shuffle];
    let mut played = 0;
    while played < scaled(160) {
        let Some(fen) = c_random_fen(&mut rng) else { continue };
        // The text is normalised by a round trip through the reference (order of hp entries).
        let fen = c_reference(&fen).fen();
        let seed = rng.next();
        c_playout(&fen, seed, biases[(played % 5) as usize], 30, &mut seen);
        if played % 10 == 0 {
            c_perft_agree(&fen, 2);
        }
        played += 1;
    }
    eprintln!("chessception random positions: {seen:?}");
    covered("combat", seen.double_stacks > 0 && seen.landing_choices > 0 && seen.attacker_killed > 0, &seen);
    covered("king deaths", seen.kings_killed > 0, &seen);
    covered("promotion limits", seen.limited_promotions > 0 && seen.pawn_attacks_last_rank_no_kill > 0, &seen);
    covered("en passant", seen.en_passant > 0 && seen.castlings > 0, &seen);
    covered("draws", seen.ply_limit > 0 && seen.no_progress > 0 && seen.kings_only > 0, &seen);
}

#[test]
fn chessception_decided_points() {
    // A fallen enemy king does not stop the resolution: the e6 pawn, alive with 1 HP, strikes
    // back and the queen (1 HP) falls without landing; White has won all the same.
    let (e, r) = c_agree("8/8/4p3/4k3/8/8/8/K3Q3 w - - 0 1 hp=e5:2,e1:1 shields=e6", "e1e5");
    assert_eq!(r.outcome(), Some((Some(Color::White), "king-killed")));
    assert_eq!(e.fen(), "8/8/4p3/8/8/8/8/K7 b - - 0 1 hp=e6:1 shields=e6");
    // So an attacker the pawns kill has no landing choice even with two kill squares (the d7
    // pawn and the king on e7): one form of the attack, 31 actions in all.
    let moves = "b2b3 g7g5 c2c4 c7c5 e2e4 a7a5 h2h4 g5h4 h1h4 h7h5 h4h5 h8h5 d1h5 b8a6 f2f3 a5a4 b3a4 e7e6 \
                 h5f7 e8f7 f7g8 e8e7 g8f8 a8a7 g8f8 d8b6 f8c8/c8 b6b1";
    let (e, r) = c_agree(cc::START, moves);
    assert_eq!((e.perft(1), cc::perft(&r.pos, 1)), (31, 31));
    let attacks: Vec<String> = r.legal_texts().into_iter().filter(|t| t.starts_with("c8d7")).collect();
    assert_eq!(attacks, ["c8d7"]);
    // A king that attacks a pawn and dies to its counter-attack loses.
    let (_, r) = c_agree("8/8/8/8/8/4k3/3p4/4K3 w - - 0 1 hp=e1:1 shields=d2", "e1d2");
    assert_eq!(r.outcome(), Some((Some(Color::Black), "king-killed")));
    // Kings only, after the last other piece falls.
    let (_, r) = c_agree("4k3/8/8/8/8/8/3n4/4K3 w - - 0 1 hp=d2:1 shields=d2", "e1d2");
    assert_eq!(r.outcome(), Some((None, "kings-only")));
    // The ply limit: 150 plies counted from the fullmove number.
    let (_, r) = c_agree("4k3/8/8/8/8/8/8/R3K3 w - - 0 75 hp=- shields=-", "a1a2");
    assert_eq!(r.outcome(), None);
    let (_, r) = c_agree("4k3/8/8/8/8/8/8/R3K3 w - - 0 75 hp=- shields=-", "a1a2 e8d8");
    assert_eq!(r.outcome(), Some((None, "ply-limit")));
    // The ply limit is judged before no-move and the other draws.
    let (_, r) = c_agree("4k3/8/8/8/8/8/8/R3K3 w - - 120 76 hp=- shields=-", "");
    assert_eq!(r.outcome(), Some((None, "ply-limit")));
    // No legal move: every white piece is walled in by its own pieces.
    let (_, r) = c_agree("RBQKBRBR/PPPPPPPP/8/8/8/8/p7/k7 w - - 0 1 hp=- shields=-", "");
    assert_eq!(r.outcome(), Some((None, "no-move")));
    // No-progress after 100 plies without a pawn move or lost HP.
    let (_, r) = c_agree("4k3/8/8/8/8/8/8/R3K3 w - - 99 30 hp=- shields=-", "a1a2");
    assert_eq!(r.outcome(), Some((None, "no-progress")));
    // Threefold repetition counts HP and shields: the same squares with different HP differ.
    let (_, r) = c_agree("4k3/8/8/8/8/8/8/R3K3 w - - 0 1 hp=- shields=-", "a1a2 e8d8 a2a1 d8e8 a1a2 e8d8 a2a1 d8e8");
    assert_eq!(r.outcome(), Some((None, "repetition")));
    // King-repeat: five king moves, the 1st, 3rd and 5th ending on the same square (d1), with
    // no repetition of the whole position.
    let fen = "4k3/r7/8/8/8/8/8/4K2R w - - 0 1 hp=- shields=-";
    let (_, r) = c_agree(fen, "e1d1 a7a6 d1d2 a6a5 d2d1 a5a4 d1c1 a4a3");
    assert_eq!(r.outcome(), None);
    let (_, r) = c_agree(fen, "e1d1 a7a6 d1d2 a6a5 d2d1 a5a4 d1c1 a4a3 c1d1");
    assert_eq!(r.outcome(), Some((None, "king-repeat")));
    // HP lost during the first of the five (a king attack that stays on e1) counts: "no HP lost
    // since the first of them" is read as including the first.
    let fen = "4k3/r7/8/8/8/8/3n4/4K2R w - - 0 1 hp=- shields=-";
    let (_, r) = c_agree(fen, "e1d2 a7a6 e1f1 a6a5 f1e1 a5a4 e1f2 a4a3 f2e1");
    assert_eq!(r.outcome(), None);
    // A loaded text starts the count afresh.
    let fen = "4k3/r7/8/8/8/8/8/4K2R w - - 0 1 hp=- shields=-";
    let (_, r) = c_agree(fen, "e1d1 a7a6 d1d2 a6a5");
    let (_, r) = c_agree(&r.fen(), "d2d1 a5a4 d1c1 a4a3 c1d1");
    assert_eq!(r.outcome(), None);
    // Castling: not out of an attack, but through one; a rook that attacked and stayed has lost
    // its right, the rook it hurt has not.
    let (_, r) = c_agree("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 hp=- shields=-", "");
    assert!(r.legal_texts().contains(&"e1g1".to_string()) && r.legal_texts().contains(&"e1c1".to_string()));
    let (e, _) = c_agree("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 hp=- shields=-", "h1h8");
    assert!(e.fen().starts_with("r3k2r/8/8/8/8/8/8/R3K2R b Qkq - 0 1"), "{}", e.fen());
    let (_, r) = c_agree("4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1 hp=- shields=-", "");
    assert!(!r.legal_texts().iter().any(|t| t == "e1g1" || t == "e1c1"));
    let (_, r) = c_agree("5rk1/8/8/8/8/8/8/R3K2R w KQ - 0 1 hp=- shields=-", "");
    assert!(r.legal_texts().contains(&"e1g1".to_string()));
    // Promotion: only to missing types, or a queen when nothing is missing; a pawn attack on the
    // last rank that does not kill has no letter.
    let (_, r) = c_agree("rn2k3/2P5/8/8/8/8/8/RNBQKBNR w - - 0 1 hp=- shields=d1,f1", "");
    let texts = r.legal_texts();
    assert!(texts.contains(&"c7c8q".to_string()) && !texts.contains(&"c7c8r".to_string()), "{texts:?}");
    assert!(texts.contains(&"c7b8".to_string()) && !texts.contains(&"c7b8q".to_string()), "{texts:?}");
    let (_, r) = c_agree("rn2k3/2P5/8/8/8/8/8/RN1QKBN1 w - - 0 1 hp=b8:1 shields=d1,f1", "");
    let texts = r.legal_texts();
    assert!(texts.contains(&"c7b8b".to_string()) && texts.contains(&"c7b8r".to_string()), "{texts:?}");
    assert!(!texts.contains(&"c7b8q".to_string()) && !texts.contains(&"c7b8n".to_string()), "{texts:?}");
}

/// Regression (an engine bug this suite found): every pawn attack
/// onto the last rank is a legal action (rule 1: an attack that does not kill leaves the attacker
/// on its square; rule 5: so it does not promote; the notation writes it without a letter). When
/// two or more of them exist, the engine lists only some and refuses the others with "it would
/// leave the ... king in check", although Chessception has no check.
#[test]
fn regression_pawn_attacks_on_the_last_rank_that_do_not_kill() {
    for (fen, action, after) in [
        (
            "1n1nk3/2P5/8/8/8/8/8/4K3 w - - 0 1 hp=- shields=-",
            "c7d8",
            "1n1nk3/2P5/8/8/8/8/8/4K3 b - - 0 1 hp=d8:2 shields=d8",
        ),
        (
            "4k3/8/8/8/8/8/4p3/3RKR2 b - - 0 1 hp=- shields=-",
            "e2f1",
            "4k3/8/8/8/8/8/4p3/3RKR2 w - - 0 2 hp=f1:2 shields=d1,f1",
        ),
        (
            "4k3/8/8/8/8/8/4pp2/3NKR2 b - - 0 1 hp=- shields=f1",
            "f2e1",
            "4k3/8/8/8/8/8/4pp2/3NKR2 w - - 0 2 hp=e1:3 shields=d1,f1",
        ),
    ] {
        let mut r = c_reference(fen);
        let mut e = c_engine(fen);
        assert_eq!(e.legal_actions(), r.legal_texts(), "{fen}");
        e.play(action).unwrap_or_else(|err| panic!("{fen}: the engine refuses {action}: {err}"));
        r.play(action).expect("legal in the reference");
        assert_eq!(r.fen(), after);
        assert_eq!(e.fen(), after);
    }
}

/// Regression (an engine bug this suite found): Chessception has no check (rule text: "there is no
/// check"), so en passant is an attack like any other; the engine refuses it (and drops the
/// square from the position text) when the capturing side's king stands attacked by chess rules.
#[test]
fn regression_en_passant_is_judged_by_check() {
    let fen = "4k3/2p5/8/1P6/8/8/8/4K1r1 b - - 0 1 hp=- shields=-";
    let mut r = c_reference(fen);
    r.play("c7c5").expect("legal");
    assert_eq!(r.fen(), "4k3/8/8/1Pp5/8/8/8/4K1r1 w - c6 0 2 hp=- shields=-");
    assert!(r.legal_texts().contains(&"b5c6".to_string()));
    let mut e = c_engine(fen);
    e.play("c7c5").expect("legal");
    assert_eq!(e.fen(), r.fen());
    assert_eq!(e.legal_actions(), r.legal_texts());
}

/// Regression (an engine bug this suite found): the king-repeat rule looks at "a player whose last five
/// moves were all king moves ... with no HP lost by any piece since the first of them". Here
/// White's five king moves are e1d2 (an attack on the knight, which loses HP; the king stays on
/// e1), e1f1, f1e1, e1f2, f2e1. Both the engine and the reference say "no draw" right after
/// f2e1 (HP was lost in the first of them). After Black's a3a2, which loses no HP, White's last
/// five moves are the same five, so the answer cannot change; the engine now declares
/// `king-repeat`. (Its window seems to be the last nine plies, not the five moves.)
#[test]
fn regression_king_repeat_window() {
    let fen = "4k3/r7/8/8/8/8/3n4/4K2R w - - 0 1 hp=- shields=-";
    let (e, r) = c_agree(fen, "e1d2 a7a6 e1f1 a6a5 f1e1 a5a4 e1f2 a4a3 f2e1");
    assert_eq!((e.snapshot().reason, r.outcome()), (None, None));
    let mut e = e;
    let mut r = r;
    e.play("a3a2").expect("legal");
    r.play("a3a2").expect("legal");
    assert_eq!(r.outcome(), None);
    assert_eq!(e.snapshot().reason, None, "the engine ends the game by king-repeat");
}

/// Regression (an engine bug this suite found): when a king falls on its castling square, the engine
/// keeps that side's castling rights in the finished game's position text, and then refuses to
/// read that text ("castling right 'K' needs the white king on e1 and its rook on h1").
#[test]
fn regression_a_fallen_king_keeps_its_castling_rights() {
    let fen = "4k3/8/8/8/8/8/4q3/R3K2R b KQ - 0 1 hp=e1:1 shields=-";
    let (mut e, mut r) = (c_engine(fen), c_reference(fen));
    e.play("e2e1").expect("legal");
    r.play("e2e1").expect("legal");
    assert_eq!(r.fen(), "4k3/8/8/8/8/8/8/R3q2R w - - 0 2 hp=- shields=-");
    assert_eq!(e.fen(), r.fen());
    assert!(variant("chessception").expect("registered").game_from_fen(&e.fen()).is_ok());
}

/// Hand-made positions that reach the rarer rules quickly.
const C_POSITIONS: [&str; 11] = [
    // Kiwipete with hurt and shielded pieces.
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1 hp=c3:1,e5:2,f6:3 shields=d2,e2,f2,d7,e7,f7",
    // Three knights: two stacks; area damage onto pawns that strike back.
    "4k3/2NNN3/3p4/2ppp3/8/8/3QB3/4K3 w - - 0 1 hp=- shields=d2,e2",
    // En passant onto a shielded pawn, kill or no kill.
    "8/8/8/8/1kpP4/4K3/8/8 b - d3 0 1 hp=- shields=c4,d4",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3 hp=d5:1 shields=d1,f1,d2,f2,e7,d8,f8",
    // Promotions with missing types, attacks on the last rank.
    "3qk3/1P4P1/8/8/8/8/1p4p1/3QK3 w - - 0 1 hp=d8:1 shields=d1,d8",
    // A weak king beside shielded pawns: its own attack kills it.
    "8/8/8/8/8/4k3/3p1p2/4K3 w - - 0 1 hp=e1:1 shields=d2,f2",
    // The last piece falls: kings only.
    "4k3/8/8/8/8/8/3n4/4K3 w - - 0 1 hp=d2:1 shields=d2",
    // Nothing can move.
    "RBQKBRBR/PPPPPPPP/8/8/8/8/p7/k7 w - - 0 1 hp=- shields=-",
    // Knights and kings shuffling: repetitions.
    "n3k3/8/8/8/8/8/8/N3K3 w - - 0 1 hp=- shields=-",
    "4k3/7r/8/8/8/8/R7/4K3 w - - 0 1 hp=- shields=-",
    // A queen's cone with several kill squares.
    "3k4/2ppp3/2bnr3/8/8/8/8/3QK3 w - - 0 1 hp=c6:1,d6:1,e6:2 shields=c7,d7,e7",
];

#[test]
fn chessception_constructed_positions_agree() {
    let mut seen = CSeen::default();
    let biases = [CBias::Combat, CBias::Kings, CBias::Pawns, CBias::Uniform, CBias::Shuffle];
    for (i, fen) in C_POSITIONS.iter().enumerate() {
        let depth = if i == 0 { 2 } else { 3 };
        c_perft_agree(fen, depth);
        for game in 0..scaled(8) {
            // Pawnless positions shuffle more, for repetitions.
            let pawnless = !fen.split(' ').next().is_some_and(|b| b.contains(['p', 'P']));
            let bias = if pawnless && game % 2 == 1 { CBias::Shuffle } else { biases[(game % 5) as usize] };
            c_playout(fen, seed_base(500 + i as u64) * 17 + game, bias, 40, &mut seen);
        }
    }
    eprintln!("chessception constructed positions: {seen:?}");
    covered("double stacks and landing choices", seen.double_stacks > 0 && seen.landing_choices > 0, &seen);
    covered("en passant without a kill", seen.en_passant_no_kill > 0, &seen);
    covered("a king killed by its own attack", seen.king_killed_by_own_attack > 0, &seen);
    covered("kings only and no move", seen.kings_only > 0 && seen.no_move > 0, &seen);
    covered("limited promotions", seen.limited_promotions > 0, &seen);
    covered("repetition", seen.repetition > 0, &seen);
}

// ------------------------------------------------------------------------------ lootbox

fn l_engine(fen: Option<&str>, seed: u64) -> Box<dyn AnyGame> {
    let info = variant("lootbox").expect("lootbox registered");
    match fen {
        None => info.new_seeded_game(seed),
        Some(f) => info.seeded_game_from_fen(f, seed).unwrap_or_else(|e| panic!("engine refuses {f}: {e:?}")),
    }
}

fn l_reference(fen: Option<&str>, seed: u64) -> LGame {
    match fen {
        None => LGame::new(seed),
        Some(f) => LGame::from_fen(f, seed).unwrap_or_else(|e| panic!("reference refuses {f}: {e}")),
    }
}

fn l_same(e: &dyn AnyGame, r: &LGame, context: &str) {
    let json = same_common(e, &r.fen(), &r.legal_texts(), r.outcome(), context);
    let fen = r.fen();
    let engine_equips: Vec<String> =
        json["equips"].as_array().expect("equips list").iter().map(|v| v.as_str().unwrap_or("").to_string()).collect();
    let equips = r.equip_texts();
    assert!(engine_equips == equips, "{context}: equips differ at {fen}: {}", difference(&engine_equips, &equips));
    let engine_opened: Vec<(String, String, String)> = json["opened"]
        .as_array()
        .expect("opened list")
        .iter()
        .map(|o| {
            let s = |k: &str| o[k].as_str().unwrap_or("").to_string();
            (s("square"), s("by"), s("contents"))
        })
        .collect();
    let opened: Vec<(String, String, String)> =
        r.opened.iter().map(|&(sq, by, c)| (square_name(sq), by.name().to_string(), c.name())).collect();
    assert_eq!(engine_opened, opened, "{context}: openings of the last action differ at {fen}");
    if r.pos.kings(r.pos.side).len() == 1 {
        assert_eq!(json["check"], r.pos.in_check(), "{context}: check differs at {fen}");
    }
}

#[derive(Clone, Copy, Debug)]
enum LBias {
    Uniform,
    /// Moves that hit boxes, queens bought and moved next to them.
    Boxes,
    /// Captures, shell breaks, bolts, placements near the enemy.
    Combat,
    /// Equips and placements from the inventory.
    Items,
    /// Quiet moves: the no-progress rule.
    Shuffle,
}

#[derive(Default, Debug)]
struct LSeen {
    plies: u64,
    spawns: u64,
    hits: u64,
    queen_hits: u64,
    openings: BTreeSet<String>,
    multi_openings: u64,
    captures: u64,
    shell_breaks: u64,
    bolt_captures: u64,
    bolt_shell_breaks: u64,
    bolt_stopped: u64,
    bolt_by: BTreeSet<char>,
    en_passant: u64,
    equips: BTreeSet<&'static str>,
    crowns: u64,
    inventory_placements: BTreeSet<char>,
    second_kings: u64,
    king_captures: u64,
    promotions: u64,
    waiting_pawns: u64,
    in_place_promotions: u64,
    checks: u64,
    checkmates: u64,
    stalemates: u64,
    no_progress: u64,
    repetition: u64,
}

impl LSeen {
    fn record(&mut self, before: &LPos, a: LAction, r: &LGame) {
        self.plies += 1;
        let Some(fx) = &r.last else { return };
        self.spawns += u64::from(fx.spawned.is_some());
        self.hits += u64::from(fx.hits);
        self.queen_hits += u64::from(fx.queen_hit);
        for (_, c) in &fx.opened {
            self.openings.insert(c.name());
        }
        self.multi_openings += u64::from(fx.opened.len() > 1);
        self.captures += u64::from(fx.captured.is_some());
        self.king_captures += u64::from(fx.captured == Some(Kind::King));
        self.shell_breaks += u64::from(fx.shell_break);
        if fx.bolt.is_some()
            && let LAction::Move { from, .. } = a
            && let Some(p) = before.board[from]
        {
            self.bolt_by.insert(p.kind.letter());
        }
        match fx.bolt {
            Some(Bolt::Captured(_)) => self.bolt_captures += 1,
            Some(Bolt::BrokeShell) => self.bolt_shell_breaks += 1,
            Some(Bolt::Stopped) => self.bolt_stopped += 1,
            None => {}
        }
        self.en_passant += u64::from(fx.en_passant && (fx.captured.is_some() || fx.shell_break));
        if let Some(k) = fx.from_inventory {
            self.inventory_placements.insert(k.letter());
        }
        if matches!(a, LAction::Place { kind: Kind::King, .. }) {
            self.second_kings += 1;
        }
        match a {
            LAction::Move { promo: Some(_), .. } => self.promotions += 1,
            LAction::Move { from, to, promo: None }
                if before.board[from].is_some_and(|p| p.kind == Kind::Pawn)
                    && rank_of(to) == before.side.last_rank()
                    && !fx.shell_break =>
            {
                self.waiting_pawns += 1;
            }
            LAction::Promote { .. } => self.in_place_promotions += 1,
            _ => {}
        }
        self.checks += u64::from(r.pos.in_check());
    }

    fn equip(&mut self, text: &str) {
        let name = if text.starts_with("crossbow") {
            "crossbow"
        } else if text.starts_with("shell") {
            "shell"
        } else {
            self.crowns += 1;
            "crown"
        };
        self.equips.insert(name);
    }

    fn end(&mut self, outcome: Option<Outcome>) {
        match outcome.map(|o| o.1) {
            Some("checkmate") => self.checkmates += 1,
            Some("stalemate") => self.stalemates += 1,
            Some("no-progress") => self.no_progress += 1,
            Some("repetition") => self.repetition += 1,
            _ => {}
        }
    }
}

fn l_weight(pos: &LPos, a: LAction, bias: LBias) -> u64 {
    if matches!(bias, LBias::Uniform) {
        return 1;
    }
    let (after, fx) = pos.act(a, false);
    let boxes_near = |sq: usize| (0..64).filter(|&b| pos.boxes[b].is_some() && distance(b, sq) <= 2).count() as u64;
    let capture = fx.captured.is_some() || fx.shell_break;
    let place = matches!(a, LAction::Place { .. });
    match bias {
        LBias::Uniform => 1,
        LBias::Boxes => {
            let approach = match a {
                LAction::Move { to, .. } => boxes_near(to),
                LAction::Place { kind: Kind::Queen, .. } => 3,
                LAction::Place { kind: Kind::Pawn, .. } => 2,
                _ => 0,
            };
            1 + 200 * u64::from(fx.hits) + 20 * approach + 20 * u64::from(capture)
        }
        LBias::Combat => {
            let gives_check =
                after.kings(pos.side.other()).len() == 1 && after.attacked(after.kings(pos.side.other())[0], pos.side);
            1 + 100 * u64::from(capture)
                + 20 * u64::from(gives_check)
                + 3 * u64::from(place)
                + 40 * u64::from(fx.bolt.is_some())
                + 30 * u64::from(matches!(a, LAction::Move { promo: Some(_), .. } | LAction::Promote { .. }))
        }
        LBias::Items => {
            1 + 60 * u64::from(fx.from_inventory.is_some())
                + 20 * u64::from(capture)
                + 30 * u64::from(fx.hits)
                + 2 * u64::from(place)
        }
        LBias::Shuffle => 1 + 3000 * u64::from(!capture && !place && fx.hits == 0 && !fx.reset),
    }
}

fn l_choose(r: &LGame, bias: LBias, rng: &mut Rng) -> (String, LAction) {
    let legal = r.legal();
    let weights: Vec<u64> = legal.iter().map(|(_, a)| l_weight(&r.pos, *a, bias)).collect();
    let mut pick = rng.below(weights.iter().sum());
    for (w, entry) in weights.iter().zip(legal) {
        if pick < *w {
            return entry.clone();
        }
        pick -= w;
    }
    legal[legal.len() - 1].clone()
}

fn l_playout(start: Option<&str>, seed: u64, bias: LBias, max_plies: usize, seen: &mut LSeen) -> Vec<String> {
    let mut rng = Rng::new(seed ^ 0x5EED);
    let mut e = l_engine(start, seed);
    let mut r = l_reference(start, seed);
    let mut trail: Vec<String> = Vec::new();
    let equip_odds = match bias {
        LBias::Items => 2,
        LBias::Combat | LBias::Boxes => 4,
        _ => 12,
    };
    for ply in 0..max_plies {
        let context = format!("lootbox seed {seed} from {start:?} {bias:?} after [{}]", trail.join(" "));
        l_same(e.as_ref(), &r, &context);
        if ply % 9 == 4 {
            let fen = r.fen();
            let (e2, r2) = (l_engine(Some(&fen), seed), l_reference(Some(&fen), seed));
            l_same(e2.as_ref(), &r2, &format!("{context} (read back from {fen})"));
            if ply == 13 && seed.is_multiple_of(3) && r2.outcome().is_none() {
                assert_eq!(e2.perft(2), lb::perft(&r2.pos, 2), "{context}: perft 2 of {fen}");
            }
        }
        if r.outcome().is_some() {
            break;
        }
        // Equips before the action, sometimes several.
        // With no turn action left, only equips can help (they must leave one).
        while rng.chance(equip_odds) || r.legal().is_empty() {
            let equips = r.equip_texts();
            if equips.is_empty() {
                break;
            }
            let text = equips[rng.below(equips.len() as u64) as usize].clone();
            let written = e.play(&text).unwrap_or_else(|err| panic!("{context}: engine refuses {text}: {err:?}"));
            assert_eq!(written, text, "{context}: the engine writes {text} differently");
            r.play(&text).unwrap_or_else(|err| panic!("{context}: {err}"));
            seen.equip(&text);
            trail.push(text);
            let context = format!("lootbox seed {seed} from {start:?} {bias:?} after [{}]", trail.join(" "));
            l_same(e.as_ref(), &r, &context);
        }
        let (text, action) = l_choose(&r, bias, &mut rng);
        let before = r.pos.clone();
        let written = e.play(&text).unwrap_or_else(|err| panic!("{context}: engine refuses {text}: {err:?}"));
        assert_eq!(written, text, "{context}: the engine writes {text} differently");
        r.play(&text).unwrap_or_else(|err| panic!("{context}: {err}"));
        seen.record(&before, action, &r);
        trail.push(text);
    }
    let context = format!("lootbox seed {seed} from {start:?} {bias:?} after [{}]", trail.join(" "));
    l_same(e.as_ref(), &r, &context);
    seen.end(r.outcome());
    trail
}

fn l_agree(fen: Option<&str>, seed: u64, actions: &str) -> (Box<dyn AnyGame>, LGame) {
    let label = format!("lootbox seed {seed} from {fen:?}");
    play_both(l_engine(fen, seed), l_reference(fen, seed), actions, &label, LGame::play, l_same)
}

/// The reference's Loot Boxes perft, its first actions shared among the cores.
fn l_reference_perft(pos: &LPos, depth: u32) -> u64 {
    if depth < 3 {
        return lb::perft(pos, depth);
    }
    parallel_sum(&pos.actions(), |(_, a)| lb::perft(&pos.after(*a).0, depth - 1))
}

/// `tests/perft/lootbox.perft`, seeds included, against the reference (`tests/perft.rs` checks
/// the engine against the same lines): the lines within the harness's budget, every line in the
/// release run of `.ci/run`.
#[test]
fn lootbox_perft_data_file_agrees_with_the_reference() {
    let checked = check_perft_file("lootbox", |line| {
        let seed = line.seed.unwrap_or_else(|| panic!("lootbox {}: every line has a seed", line.id));
        l_reference_perft(&l_reference(line.fen.as_deref(), seed).pos, line.depth)
    });
    assert!(checked >= 4, "only {checked} perft lines within the budget");
}

#[test]
fn lootbox_golden_vector_and_start() {
    assert_eq!(variant("lootbox").expect("registered").start_fen, lb::START);
    // The rule book's golden vector, through the reference's own ChaCha20 draws.
    for (seed, countdown, square, next, contents) in
        [(0u64, 3, "a4", 3, "crossbow"), (1, 5, "b4", 3, "shell"), (42, 5, "b4", 4, "gold5")]
    {
        let (_, r) = l_agree(None, seed, "");
        assert_eq!(r.pos.countdown, countdown, "seed {seed}");
        let shuffle = ["e1e2", "e8e7", "e2e1", "e7e8"];
        let moves: Vec<&str> = (0..2 * countdown as usize).map(|i| shuffle[i % 4]).collect();
        let (_, r) = l_agree(None, seed, &moves.join(" "));
        let boxes: Vec<String> = (0..64).filter(|&s| r.pos.boxes[s].is_some()).map(square_name).collect();
        assert_eq!(boxes, vec![square.to_string()], "seed {seed}");
        assert_eq!(r.pos.countdown, next, "seed {seed}");
        let mut p = r.pos.clone();
        p.boxes = [None; 64];
        // The next draw would be the first box's contents.
        let word = lb::word(seed, p.words);
        assert!(u64::from(word) < (1u64 << 32) - (1u64 << 32) % 10_000, "seed {seed}: no rejection expected");
        let c = word % 10_000;
        let name = match c {
            0..1250 => "gold3",
            1250..1875 => "gold4",
            1875..2500 => "gold5",
            2500..3125 => "gold6",
            3125..5000 => "P",
            5000..6250 => "B",
            6250..7500 => "N",
            7500..8125 => "R",
            8125..8750 => "shell",
            8750..9375 => "crossbow",
            9375..9999 => "crown",
            _ => "K",
        };
        assert_eq!(name, contents, "seed {seed}");
    }
    for depth in 1..=3 {
        let e = l_engine(None, 9);
        let r = l_reference(None, 9);
        assert_eq!(e.perft(depth), lb::perft(&r.pos, depth), "lootbox perft {depth}");
    }
}

#[test]
fn lootbox_playouts_agree() {
    let mut seen = LSeen::default();
    let biases = [LBias::Boxes, LBias::Combat, LBias::Items, LBias::Uniform, LBias::Boxes, LBias::Shuffle];
    for game in 0..scaled(24) {
        let seed = seed_base(21) + game * 104_729;
        let bias = biases[(game % biases.len() as u64) as usize];
        let plies = if matches!(bias, LBias::Shuffle) { 130 } else { 90 };
        l_playout(None, seed, bias, plies, &mut seen);
    }
    eprintln!("lootbox playouts: {seen:?}");
    covered("spawns and hits", seen.spawns > 0 && seen.hits > 0 && !seen.openings.is_empty(), &seen);
    covered("captures", seen.captures > 0 && seen.checks > 0, &seen);
}

/// Hand-made positions that reach the rarer rules quickly.
const L_POSITIONS: [&str; 9] = [
    // Boxes about to open next to both armies; items and pieces in both inventories.
    "r3k3/pp3ppp/8/2n1b3/1Q2R3/2N5/PP3PPP/4K3 w - - 0 10 gold=9/9 boxes=d5:2,f5:2 inventory=K,crossbow,shell,crown/K,crossbow,shell,crown items=b4:crossbow,e5:shell countdown=1 words=12",
    // Crossbows on sliders, pawns and knights lined up with targets behind targets.
    "4k3/1p1r2b1/8/3p4/8/1N1R2B1/P7/4K3 w - - 0 5 gold=6/6 boxes=- inventory=crossbow2,shell/crossbow,shell2 items=a2:crossbow,b3:crossbow,d3:crossbow,g3:crossbow,b7:shell,d7:shell countdown=2 words=4",
    // Two kings for White: they may be captured and check need not be answered.
    "4k3/8/8/8/3q4/2K5/8/4K3 w - - 0 8 gold=3/9 boxes=- inventory=-/crossbow items=d4:crossbow countdown=3 words=7",
    // A crown may put a lone king in check, but the king is not taken.
    "4k3/p7/8/8/8/8/4P3/4K3 w - - 0 4 gold=8/3 boxes=a5:1 inventory=K,crown2/- items=- countdown=2 words=3",
    // Waiting pawns, promotions with and without gold, shelled targets on the last rank.
    "1n2k1r1/P1P4P/8/8/8/8/p6p/R3K3 w - - 0 20 gold=1/1 boxes=d4:2,e5:2 inventory=-/crown items=h2:shell,b8:shell countdown=1 words=20",
    // En passant onto a shelled pawn.
    "4k3/8/8/2pP4/8/8/8/4K3 w - c6 0 12 gold=5/5 boxes=e5:0 inventory=shell/- items=c5:shell,d5:crossbow countdown=2 words=9",
    // En passant with a crossbow: the bolt flies on to b7.
    "4k3/1n6/8/2pP4/8/8/8/4K3 w - c6 0 12 gold=5/5 boxes=e5:0 inventory=shell/- items=d5:crossbow countdown=2 words=9",
    // Queens next to fresh boxes: a queen's hit opens at once, several boxes at a time.
    "4k3/8/8/2q5/1Q6/8/8/4K3 w - - 0 6 gold=9/9 boxes=a5:0,c4:1 inventory=P,N,B,R/P2,K items=- countdown=4 words=30",
    // Nearly no progress: the 100-ply rule with boxes around.
    "4k3/8/8/8/8/8/8/R3K3 w - - 96 60 gold=2/2 boxes=h5:0 inventory=-/- items=- countdown=3 words=5",
];

#[test]
fn lootbox_constructed_positions_agree() {
    let mut seen = LSeen::default();
    let biases = [LBias::Combat, LBias::Items, LBias::Boxes, LBias::Uniform, LBias::Shuffle];
    for (i, fen) in L_POSITIONS.iter().enumerate() {
        for game in 0..scaled(14) {
            let seed = seed_base(100 + i as u64) * 31 + game;
            l_playout(Some(fen), seed, biases[(game % 5) as usize], 40, &mut seen);
        }
        let e = l_engine(Some(fen), 3);
        let r = l_reference(Some(fen), 3);
        assert_eq!(e.perft(2), lb::perft(&r.pos, 2), "perft 2 of {fen}");
    }
    eprintln!("lootbox constructed positions: {seen:?}");
    for name in ["gold3", "gold4", "gold5", "gold6", "P", "B", "N", "R", "shell", "crossbow", "crown"] {
        covered(&format!("a box holding {name}"), seen.openings.contains(name), &seen);
    }
    covered("queen hits and several openings", seen.queen_hits > 0 && seen.multi_openings > 0, &seen);
    covered("bolts", seen.bolt_captures > 0 && seen.bolt_shell_breaks > 0 && seen.bolt_stopped > 0, &seen);
    covered("bolts of pawns, knights and sliders", seen.bolt_by.len() >= 4, &seen);
    covered("shells", seen.shell_breaks > 0 && seen.en_passant > 0, &seen);
    covered("equips", seen.equips.len() == 3 && seen.crowns > 0, &seen);
    covered("inventory placements", seen.inventory_placements.len() >= 4 && seen.second_kings > 0, &seen);
    covered("king captures", seen.king_captures > 0, &seen);
    covered("promotions", seen.promotions > 0 && seen.waiting_pawns > 0 && seen.in_place_promotions > 0, &seen);
    covered("ends", seen.checkmates > 0 && seen.no_progress > 0, &seen);
}

fn l_has(r: &LGame, action: &str) -> bool {
    r.legal_texts().iter().any(|t| t == action)
}

#[test]
fn lootbox_rule_book_points() {
    let tail = "boxes=- inventory=-/- items=- countdown=3 words=1";
    // An equip must leave a turn action: the crossbow would leave 1.5 gold and no answer.
    let fen = "1r2k3/8/4b3/8/8/8/7P/K6r w - - 0 1 gold=3.5/3 boxes=- inventory=crossbow/- items=- countdown=3 words=1";
    let (_, r) = l_agree(Some(fen), 4, "");
    assert!(r.equip_texts().is_empty() && !r.legal_texts().is_empty());
    // A crown may attack a lone king; the king is never taken, and Black starts in check.
    let fen = "4k3/p7/8/8/8/8/4P3/4K3 w - - 0 4 gold=8/3 boxes=a5:1 inventory=K,crown2/- items=- countdown=2 words=3";
    let (_, r) = l_agree(Some(fen), 4, "crown@e2=Q");
    assert!(!l_has(&r, "e2e8") && l_has(&r, "e2e7"));
    let (_, r) = l_agree(Some(fen), 4, "crown@e2=Q e1d1");
    assert!(r.pos.in_check() && l_has(&r, "e8d7") && !l_has(&r, "a7a6"));
    // A pawn attacking a shelled piece on the last rank stays, without a letter or a fee.
    let fen = "1n2k3/2P5/8/8/8/8/8/4K3 w - - 0 1 gold=3/3 boxes=- inventory=-/- items=b8:shell countdown=3 words=1";
    let (_, r) = l_agree(Some(fen), 4, "");
    assert!(l_has(&r, "c7b8") && !l_has(&r, "c7b8q") && l_has(&r, "c7c8q") && l_has(&r, "c7c8"));
    let (e, _) = l_agree(Some(fen), 4, "c7b8");
    assert!(e.fen().starts_with("1n2k3/2P5/8/8/8/8/8/4K3 b - - 0 1 gold=3/4"), "{}", e.fen());
    // The fee may be paid from the same capture's income.
    let fen = format!("2b4k/3P4/8/8/8/8/8/4K3 w - - 0 1 gold=0.5/3 {tail}");
    let (_, r) = l_agree(Some(&fen), 4, "");
    assert!(l_has(&r, "d7c8q") && l_has(&r, "d7d8") && !l_has(&r, "d7d8q"));
    // A box blocks a line; opening it may not expose the own king (a queen's hit opens it).
    let fen = "4k3/8/4r3/8/8/8/1Q6/4K3 w - - 0 1 gold=4/3 boxes=e5:0 inventory=-/- items=- countdown=3 words=1";
    let (_, r) = l_agree(Some(fen), 4, "");
    assert!(!r.pos.in_check() && !l_has(&r, "b2d4") && l_has(&r, "b2b4") && !l_has(&r, "b2e5"));
    // ... and opening a box may give check.
    let fen = "4k3/8/8/8/8/8/1Q6/4R1K1 w - - 0 1 gold=4/3 boxes=e4:1 inventory=-/- items=- countdown=3 words=1";
    let (_, r) = l_agree(Some(fen), 4, "b2d4");
    assert!(r.pos.boxes.iter().all(Option::is_none) && r.pos.in_check() && r.opened.len() == 1);
    // Two kings: check need not be answered, and a king may be taken (no income).
    let fen = "4k3/8/8/8/3q4/2K5/8/4K3 b - - 0 8 gold=3/9 boxes=- inventory=-/- items=- countdown=3 words=7";
    let (e, r) = l_agree(Some(fen), 4, "d4c3");
    assert!(e.fen().starts_with("4k3/8/8/8/8/2q5/8/4K3 w - - 0 9 gold=4/9"), "{}", e.fen());
    assert!(r.pos.in_check());
    // Rule 8: a player with two kings is never in check, even with both attacked.
    let fen = "4k2K/8/8/8/3q4/8/8/K7 w - - 0 9 gold=4/9 boxes=- inventory=-/- items=- countdown=3 words=7";
    let (e, r) = l_agree(Some(fen), 4, "");
    assert!(!r.pos.in_check() && !e.snapshot().check);
    // Rule 11: the terminal check counts the income about to be received: with 2 + 1 gold White
    // buys a blocker on the first rank, so it is not mated and the round ends with a spawn.
    let fen = "7r/8/8/8/8/1k6/8/K7 b - - 0 1 gold=2/3 boxes=- inventory=-/- items=- countdown=1 words=1";
    let (_, r) = l_agree(Some(fen), 3, "h8h1");
    assert!(r.outcome().is_none() && r.pos.in_check() && l_has(&r, "N@b1"));
    assert_eq!(r.pos.boxes.iter().flatten().count(), 1);
    // A player is mated only if no equip helps: no turn action answers the rook's check (no
    // placement reaches rank 5), but a crown turns the a4 pawn into a piece that does.
    let fen =
        "2k5/8/6PP/r6K/P7/8/8/8 w - - 0 1 gold=3.5/3 boxes=g4:0,h4:0 inventory=crown/- items=- countdown=3 words=1";
    let (_, r) = l_agree(Some(fen), 4, "");
    assert!(r.outcome().is_none() && r.legal_texts().is_empty() && r.pos.in_check());
    assert!(r.equip_texts().contains(&"crown@a4=N".to_string()));
    let (_, r) = l_agree(Some(fen), 4, "crown@a4=N");
    assert_eq!(r.legal_texts(), vec!["a4c5".to_string()]);
    // Without the gold for it, it is mate.
    let (_, r) = l_agree(Some(&fen.replace("gold=3.5/3", "gold=3/3")), 4, "");
    assert_eq!(r.outcome(), Some((Some(Color::Black), "checkmate")));
    // A stalemating action ends the game at once: no round end, no spawn (countdown stays 1).
    let fen = "k7/8/8/8/5n2/pppppppp/pppppp1p/7K b - - 0 30 gold=0/5 boxes=- inventory=-/- items=- countdown=1 words=9";
    let (e, r) = l_agree(Some(fen), 4, "f4g2");
    assert_eq!(r.outcome(), Some((None, "stalemate")));
    assert!(e.fen().ends_with("countdown=1 words=9"), "{}", e.fen());
    // Otherwise the round ends first: a box that spawns on the king's last flight square mates.
    let fen = "k5r1/8/3n4/8/7K/r7/8/8 b - - 0 20 gold=0/5 boxes=- inventory=-/- items=- countdown=1 words=9";
    let mut mates = 0;
    for seed in 0..40 {
        let (_, r) = l_agree(Some(fen), seed, "d6f5");
        if r.outcome().is_some() {
            assert_eq!(r.outcome(), Some((Some(Color::Black), "checkmate")), "seed {seed}");
            assert!(r.pos.boxes[at(7, 4).expect("h5")].is_some(), "seed {seed}");
            mates += 1;
        } else {
            assert_eq!(r.legal_texts(), vec!["h4h5".to_string()], "seed {seed}");
        }
    }
    assert!(mates > 0, "some seed spawns the box on h5");
}

/// A random Loot Boxes position text: one or two kings a side, pieces with items, boxes on
/// ranks 4-5, inventories, gold, countdown and word count.
fn l_random_fen(rng: &mut Rng) -> Option<String> {
    let mut board = [' '; 64];
    let kings = [1 + u64::from(rng.chance(5)), 1 + u64::from(rng.chance(5))];
    for (i, &n) in kings.iter().enumerate() {
        for _ in 0..n {
            let sq = rng.below(64) as usize;
            if board[sq] != ' ' {
                return None;
            }
            board[sq] = if i == 0 { 'K' } else { 'k' };
        }
    }
    for _ in 0..2 + rng.below(12) {
        let sq = rng.below(64) as usize;
        if board[sq] != ' ' {
            continue;
        }
        let white = rng.chance(2);
        let letter = b"PPPPNNBBRRQ"[rng.below(11) as usize] as char;
        let rank = sq / 8;
        if letter == 'P' && (if white { rank == 0 } else { rank == 7 }) {
            continue;
        }
        board[sq] = if white { letter } else { letter.to_ascii_lowercase() };
    }
    let mut boxes = Vec::new();
    for _ in 0..rng.below(3) {
        let sq = 24 + rng.below(16) as usize;
        if board[sq] == ' ' && !boxes.iter().any(|(s, _)| *s == sq) {
            boxes.push((sq, rng.below(3)));
        }
    }
    boxes.sort_unstable();
    let mut items = Vec::new();
    for (sq, &c) in board.iter().enumerate() {
        if c == ' ' || c.eq_ignore_ascii_case(&'k') {
            continue;
        }
        let list: Vec<&str> =
            [(rng.chance(3), "crossbow"), (rng.chance(4), "shell")].iter().filter(|x| x.0).map(|x| x.1).collect();
        if !list.is_empty() {
            items.push(format!("{}:{}", square_name(sq), list.join("+")));
        }
    }
    let inventory = |rng: &mut Rng| {
        let mut parts = Vec::new();
        for name in ["P", "N", "B", "R", "K", "crossbow", "shell", "crown"] {
            match rng.below(6) {
                0 => parts.push(name.to_string()),
                1 if name != "K" => parts.push(format!("{name}2")),
                _ => {}
            }
        }
        if parts.is_empty() { "-".to_string() } else { parts.join(",") }
    };
    let white = rng.chance(2);
    let rows = reference_combat_and_boxes::board_text(|sq| {
        let c = board[sq];
        Kind::from_letter(c).map(|k| (if c.is_ascii_uppercase() { Color::White } else { Color::Black }, k))
    });
    let gold = |h: u64| if h.is_multiple_of(2) { format!("{}", h / 2) } else { format!("{}.5", h / 2) };
    let (g1, g2) = (2 + rng.below(24), rng.below(24));
    let (gw, gb) = if white { (g1, g2) } else { (g2, g1) };
    let list = |v: Vec<String>| if v.is_empty() { "-".to_string() } else { v.join(",") };
    let boxes: Vec<String> = boxes.iter().map(|(s, h)| format!("{}:{h}", square_name(*s))).collect();
    let fen = format!(
        "{rows} {} - - {} {} gold={}/{} boxes={} inventory={}/{} items={} countdown={} words={}",
        if white { "w" } else { "b" },
        if rng.chance(6) { 90 + rng.below(9) } else { rng.below(20) },
        1 + rng.below(40),
        gold(gw),
        gold(gb),
        list(boxes),
        inventory(rng),
        inventory(rng),
        list(items),
        1 + rng.below(5),
        1 + rng.below(40)
    );
    // The side not to move, with one king, must not stand in check.
    let r = LPos::from_fen(&fen, 0).ok()?;
    let them = r.side.other();
    let their = r.kings(them);
    if their.len() == 1 && r.attacked(their[0], r.side) {
        return None;
    }
    Some(fen)
}

#[test]
fn lootbox_random_positions_agree() {
    let mut rng = Rng::new(seed_base(41));
    let mut seen = LSeen::default();
    let biases = [LBias::Combat, LBias::Items, LBias::Boxes, LBias::Uniform, LBias::Shuffle];
    let mut played = 0;
    while played < scaled(120) {
        let Some(fen) = l_random_fen(&mut rng) else { continue };
        let seed = rng.next();
        l_playout(Some(&fen), seed, biases[(played % 5) as usize], 24, &mut seen);
        played += 1;
    }
    eprintln!("lootbox random positions: {seen:?}");
    covered("bolts and shells", seen.bolt_captures > 0 && seen.shell_breaks > 0, &seen);
    covered("second kings", seen.king_captures > 0 && seen.second_kings > 0, &seen);
    covered("equips", seen.equips.len() == 3, &seen);
    covered("mates", seen.checkmates + seen.stalemates > 0, &seen);
}
