//! Differential tests: the engine against an independent, naive reference implementation of the
//! rules (`tests/reference_gold_family`), written from the rule book only. At every step of many
//! seeded random playouts of `standard`, `gold`, `sandbox`, `conqueror` and `conqueror-gold` the
//! two must agree on the position text, the sorted legal actions, check and the game's end; perft
//! from the start positions, the rule book's worked examples and the `tests/perft` data files are
//! compared too.

mod common;
#[path = "common/differential.rs"]
mod harness;
mod reference_gold_family;

use chessgold_engine::AnyGame;
use chessgold_engine::registry::variant;
use common::Rng;
use harness::{
    assert_same_legal, check_perft_file, check_perft_file_up_to, covered, parallel_sum, play_both, scaled, seed_base,
};
use reference_gold_family::{Action, Kind, RefGame, Var, perft};

fn engine_new(var: Var) -> Box<dyn AnyGame> {
    variant(var.id()).unwrap_or_else(|| panic!("variant {} not registered", var.id())).new_game()
}

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
    assert_eq!(snap.fen, e.fen(), "{context}: snapshot and fen() differ");
    let fen = r.fen();
    assert_eq!(e.fen(), fen, "{context}: position text differs (left engine, right reference)");
    let legal_engine = e.legal_actions();
    assert_same_legal(&legal_engine, &r.legal_texts(), &fen, context);
    assert_eq!(snap.legal, legal_engine, "{context}: snapshot legal differs from legal_actions()");
    assert_eq!(snap.check, r.pos.in_check(), "{context}: check differs at {fen}");
    assert_eq!(snap.side, r.pos.side.name(), "{context}: side to move differs at {fen}");
    let outcome = r.outcome();
    assert_eq!(snap.status == "ongoing", outcome.is_none(), "{context}: end differs at {fen}: {snap:?} vs {outcome:?}");
    if let Some((winner, reason)) = outcome {
        assert_eq!(snap.winner, winner.map(|c| c.name()), "{context}: winner differs at {fen}");
        assert_eq!(snap.reason, Some(reason), "{context}: reason differs at {fen}");
    }
}

/// How a playout chooses among the legal actions.
#[derive(Clone, Copy, Debug)]
enum Bias {
    /// Every action equally likely.
    Uniform,
    /// Captures (conversions), checks and promotions strongly preferred.
    Captures,
    /// Pawn placements and pawn moves preferred: promotions, waiting pawns, en passant.
    Pawns,
    /// Placements preferred, then captures: crowded boards, checks by placement.
    Placements,
    /// Quiet piece moves preferred: repetitions and the no-progress rule.
    Shuffle,
}

/// What the playouts reached, so the suite can insist that every rule was exercised.
#[derive(Default, Debug)]
struct Seen {
    steps: u64,
    captures: u64,
    conversions: u64,
    en_passant: u64,
    en_passant_conversions: u64,
    placements: u64,
    placement_checks: u64,
    placement_mates: u64,
    check_blocks_by_placement: u64,
    promotions: u64,
    stays_unpromoted: u64,
    promotions_in_place: u64,
    converted_pawn_on_last_rank: u64,
    castlings: u64,
    conversion_wins: u64,
    checkmates: u64,
    stalemates: u64,
    repetitions: u64,
    no_progress: u64,
    insufficient: u64,
    sandbox_cap: u64,
    placement_bans: u64,
}

impl Seen {
    fn record(&mut self, r: &RefGame, action: Action) {
        let pos = &r.pos;
        let next = pos.after(action);
        let converts = matches!(pos.var, Var::Conqueror | Var::ConquerorGold);
        self.steps += 1;
        match action {
            Action::Move { from, to, promo } => {
                let mover = pos.board[from].map(|p| p.kind);
                if let Some((piece, _)) = pos.captured(action) {
                    self.captures += 1;
                    if converts {
                        self.conversions += 1;
                        let last = if pos.side == reference_gold_family::Color::White { 7 } else { 0 };
                        if piece.kind == Kind::Pawn && from / 8 == last {
                            self.converted_pawn_on_last_rank += 1;
                        }
                    }
                    if pos.board[to].is_none() {
                        self.en_passant += 1;
                        if converts {
                            self.en_passant_conversions += 1;
                        }
                    }
                }
                if promo.is_some() {
                    self.promotions += 1;
                } else if mover == Some(Kind::Pawn) && (to / 8 == 7 || to / 8 == 0) {
                    self.stays_unpromoted += 1;
                }
                if mover == Some(Kind::King) && from.abs_diff(to) == 2 {
                    self.castlings += 1;
                }
            }
            Action::Place { .. } => {
                self.placements += 1;
                if next.in_check() {
                    self.placement_checks += 1;
                    if next.legal().is_empty() {
                        self.placement_mates += 1;
                    }
                }
                if pos.in_check() {
                    self.check_blocks_by_placement += 1;
                }
            }
            Action::Promote { .. } => self.promotions_in_place += 1,
        }
        if next.ended {
            self.conversion_wins += 1;
        }
        if pos.var == Var::ConquerorGold && pos.placed[pos.side as usize] {
            self.placement_bans += 1;
        }
        let own = pos.board.iter().flatten().filter(|p| p.color == pos.side && p.kind != Kind::King).count();
        if pos.var == Var::Sandbox && own == 15 {
            self.sandbox_cap += 1;
        }
    }

    fn record_end(&mut self, r: &RefGame) {
        match r.outcome() {
            Some((Some(_), "checkmate")) => self.checkmates += 1,
            Some((None, "stalemate")) => self.stalemates += 1,
            Some((None, "repetition")) => self.repetitions += 1,
            Some((None, "no-progress")) => self.no_progress += 1,
            Some((None, "insufficient-material")) => self.insufficient += 1,
            _ => {}
        }
    }
}

fn weight(r: &RefGame, action: Action, bias: Bias) -> u64 {
    let pos = &r.pos;
    let capture = pos.captured(action).is_some();
    let mover = match action {
        Action::Move { from, .. } => pos.board[from].map(|p| p.kind),
        _ => None,
    };
    let (pawn_move, en_passant, double_step, stays, castles, quiet_piece) = match action {
        Action::Move { from, to, promo } => (
            mover == Some(Kind::Pawn),
            mover == Some(Kind::Pawn) && capture && pos.board[to].is_none(),
            mover == Some(Kind::Pawn) && from.abs_diff(to) == 16,
            mover == Some(Kind::Pawn) && promo.is_none() && (to / 8 == 0 || to / 8 == 7),
            mover == Some(Kind::King) && from.abs_diff(to) == 2,
            mover != Some(Kind::Pawn) && !capture,
        ),
        _ => (false, false, false, false, false, false),
    };
    let place = matches!(action, Action::Place { .. });
    let pawn_place = matches!(action, Action::Place { kind: Kind::Pawn, .. });
    let in_place = matches!(action, Action::Promote { .. });
    let promotes = matches!(action, Action::Move { promo: Some(_), .. });
    let checks = || pos.after(action).in_check();
    let w = match bias {
        Bias::Uniform => return 1,
        Bias::Captures => {
            1 + 60 * u64::from(capture) + 10 * u64::from(promotes) + 15 * u64::from(checks()) + 50 * u64::from(castles)
        }
        Bias::Pawns => {
            1 + 12 * u64::from(pawn_move || pawn_place)
                + 20 * u64::from(capture)
                + 40 * u64::from(double_step)
                + 30 * u64::from(stays || in_place)
                + 5 * u64::from(promotes)
        }
        Bias::Placements => 2 + 3 * u64::from(place) + 200 * u64::from(place && checks()) + 30 * u64::from(capture),
        Bias::Shuffle => 1 + 5000 * u64::from(quiet_piece),
    };
    w + 300 * u64::from(en_passant)
}

fn choose(r: &RefGame, legal: &[(String, Action)], bias: Bias, rng: &mut Rng) -> (String, Action) {
    let weights: Vec<u64> = legal.iter().map(|(_, a)| weight(r, *a, bias)).collect();
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
    for ply in 0..max_plies {
        let context = format!("{} from {start} seed {seed} {bias:?} after [{}]", var.id(), trail.join(" "));
        assert_same(e.as_ref(), &r, &context);
        if ply % 9 == 4 {
            // The same position read back from its text, without history, by both sides.
            let fen = r.fen();
            let e2 = engine_from_fen(var, &fen);
            let r2 = reference_from_fen(var, &fen);
            assert_same(e2.as_ref(), &r2, &format!("{context} (read from {fen})"));
            if ply == 40 && seed.is_multiple_of(3) && r2.outcome().is_none() {
                assert_eq!(e2.perft(2), perft(&r2.pos, 2), "{context}: perft 2 of {fen}");
            }
        }
        let legal = r.legal().to_vec();
        if legal.is_empty() {
            seen.record_end(&r);
            break;
        }
        let (text, action) = choose(&r, &legal, bias, &mut rng);
        seen.record(&r, action);
        let written = e.play(&text).unwrap_or_else(|err| panic!("{context}: engine refuses {text}: {err:?}"));
        assert_eq!(written, text, "{context}: engine writes {text} differently");
        r.play(&text).unwrap_or_else(|err| panic!("{context}: {err}"));
        trail.push(text);
    }
    let context = format!("{} from {start} seed {seed} {bias:?} after [{}]", var.id(), trail.join(" "));
    assert_same(e.as_ref(), &r, &context);
    trail
}

fn playouts(var: Var, games: u64, base: u64) -> Seen {
    assert_same(engine_new(var).as_ref(), &RefGame::new(var), &format!("{} start", var.id()));
    let games = scaled(games);
    let mut seen = Seen::default();
    let biases = [Bias::Uniform, Bias::Captures, Bias::Pawns, Bias::Placements, Bias::Shuffle];
    for game in 0..games {
        let seed = seed_base(base) + game * 7919;
        let bias = biases[(game % 5) as usize];
        let plies = if matches!(bias, Bias::Shuffle) { 150 } else { 80 + (seed % 71) as usize };
        playout(var, var.start_fen(), seed, bias, plies, &mut seen);
    }
    eprintln!("{}: {seen:?}", var.id());
    seen
}

#[test]
fn standard_playouts_agree() {
    let seen = playouts(Var::Standard, 60, 1);
    covered(
        "seen.captures > 0 && seen.castlings > 0 && seen.promotions > 0 && seen.en_passant > 0",
        seen.captures > 0 && seen.castlings > 0 && seen.promotions > 0 && seen.en_passant > 0,
        &seen,
    );
    covered(
        "seen.checkmates > 0 && seen.stalemates > 0 && seen.repetitions > 0",
        seen.checkmates > 0 && seen.stalemates > 0 && seen.repetitions > 0,
        &seen,
    );
    covered("seen.no_progress > 0 && seen.insufficient > 0", seen.no_progress > 0 && seen.insufficient > 0, &seen);
}

#[test]
fn gold_playouts_agree() {
    let seen = playouts(Var::Gold, 100, 2);
    covered(
        "seen.placements > 0 && seen.placement_checks > 0 && seen.check_blocks_by_placement > 0",
        seen.placements > 0 && seen.placement_checks > 0 && seen.check_blocks_by_placement > 0,
        &seen,
    );
    covered(
        "seen.promotions > 0 && seen.stays_unpromoted > 0 && seen.promotions_in_place > 0",
        seen.promotions > 0 && seen.stays_unpromoted > 0 && seen.promotions_in_place > 0,
        &seen,
    );
    covered(
        "seen.en_passant > 0 && seen.captures > 0 && seen.placement_mates > 0 && seen.no_progress > 0",
        seen.en_passant > 0 && seen.captures > 0 && seen.placement_mates > 0 && seen.no_progress > 0,
        &seen,
    );
}

#[test]
fn sandbox_playouts_agree() {
    let seen = playouts(Var::Sandbox, 80, 3);
    covered(
        "seen.placements > 0 && seen.placement_checks > 0 && seen.promotions > 0",
        seen.placements > 0 && seen.placement_checks > 0 && seen.promotions > 0,
        &seen,
    );
    covered(
        "seen.en_passant > 0 && seen.checkmates > 0 && seen.placement_mates > 0",
        seen.en_passant > 0 && seen.checkmates > 0 && seen.placement_mates > 0,
        &seen,
    );
    covered(
        "seen.sandbox_cap > 0 && seen.repetitions > 0 && seen.no_progress > 0",
        seen.sandbox_cap > 0 && seen.repetitions > 0 && seen.no_progress > 0,
        &seen,
    );
}

#[test]
fn conqueror_playouts_agree() {
    let seen = playouts(Var::Conqueror, 100, 4);
    covered(
        "seen.conversions > 0 && seen.castlings > 0 && seen.promotions > 0",
        seen.conversions > 0 && seen.castlings > 0 && seen.promotions > 0,
        &seen,
    );
    covered(
        "seen.en_passant_conversions > 0 && seen.converted_pawn_on_last_rank > 0",
        seen.en_passant_conversions > 0 && seen.converted_pawn_on_last_rank > 0,
        &seen,
    );
    covered(
        "seen.checkmates > 0 && seen.repetitions > 0 && seen.no_progress > 0",
        seen.checkmates > 0 && seen.repetitions > 0 && seen.no_progress > 0,
        &seen,
    );
}

#[test]
fn conqueror_gold_playouts_agree() {
    let seen = playouts(Var::ConquerorGold, 120, 5);
    covered(
        "seen.conversions > 0 && seen.conversion_wins > 0 && seen.placement_bans > 0",
        seen.conversions > 0 && seen.conversion_wins > 0 && seen.placement_bans > 0,
        &seen,
    );
    covered(
        "seen.promotions_in_place > 0 && seen.stays_unpromoted > 0 && seen.en_passant_conversions > 0",
        seen.promotions_in_place > 0 && seen.stays_unpromoted > 0 && seen.en_passant_conversions > 0,
        &seen,
    );
    covered(
        "seen.converted_pawn_on_last_rank > 0 && seen.placement_mates > 0 && seen.no_progress > 0",
        seen.converted_pawn_on_last_rank > 0 && seen.placement_mates > 0 && seen.no_progress > 0,
        &seen,
    );
}

#[test]
fn perft_from_the_start_positions() {
    for (var, expected) in
        [(Var::Gold, None), (Var::Sandbox, None), (Var::Conqueror, Some(8902)), (Var::ConquerorGold, None)]
    {
        let e = engine_new(var);
        let r = RefGame::new(var);
        for depth in 1..=3 {
            let ours = perft(&r.pos, depth);
            assert_eq!(e.perft(depth), ours, "{} perft {depth}", var.id());
            if depth == 3
                && let Some(n) = expected
            {
                assert_eq!(ours, n, "{} perft 3", var.id());
            }
        }
    }
}

/// The reference's perft, its first actions shared among the cores.
fn reference_perft(pos: &reference_gold_family::Pos, depth: u32) -> u64 {
    if depth < 3 {
        return perft(pos, depth);
    }
    parallel_sum(pos.legal().as_slice(), |a| perft(&pos.after(*a), depth - 1))
}

/// The `tests/perft` data files of Chess Gold, Anything Goes and Conqueror Gold against the
/// reference (`tests/perft.rs` checks the engine against the same lines), and Conqueror's lines of
/// at most [`CONQUEROR_CAP`] nodes: the lines within the harness's budget, every line of at most
/// 200 million nodes in the release run of `.ci/run`.
#[test]
fn perft_data_files_agree_with_the_reference() {
    let count = |var: Var| {
        move |line: &harness::PerftLine| {
            assert_eq!(line.seed, None, "{} {}: a seed for a variant without chance", var.id(), line.id);
            let r = line.fen.as_deref().map_or_else(|| RefGame::new(var), |fen| reference_from_fen(var, fen));
            reference_perft(&r.pos, line.depth)
        }
    };
    let mut checked = check_perft_file_up_to(Var::Conqueror.id(), CONQUEROR_CAP, count(Var::Conqueror));
    for var in [Var::Gold, Var::Sandbox, Var::ConquerorGold] {
        checked += check_perft_file(var.id(), count(var));
    }
    assert!(checked >= 20, "only {checked} perft lines within the budget");
}

/// Conqueror's deepest lines (119 and 187 million nodes) would double the release run's time; the
/// reference confirms the lines up to this many nodes.
const CONQUEROR_CAP: u64 = 5_000_000;

/// Plays `actions` from `fen` in both implementations, comparing at every step.
fn agree(var: Var, fen: &str, actions: &str) -> (Box<dyn AnyGame>, RefGame) {
    let label = format!("{} from {fen}", var.id());
    play_both(engine_from_fen(var, fen), reference_from_fen(var, fen), actions, &label, RefGame::play, assert_same)
}

fn legal_has(r: &RefGame, action: &str) -> bool {
    r.legal().iter().any(|(t, _)| t == action)
}

#[test]
fn conqueror_legality_examples_from_the_rule_book() {
    for (var, extra) in [(Var::Conqueror, ""), (Var::ConquerorGold, " gold=4/3 placed=-")] {
        // The converted pawn lands on e4 and keeps blocking the e-file.
        let fen = format!("4r1k1/8/3p4/8/4N3/8/8/4K3 w - - 0 1{extra}");
        let (_, r) = agree(var, &fen, "");
        assert!(legal_has(&r, "e4d6"), "{}", var.id());
        let (e, _) = agree(var, &fen, "e4d6");
        assert!(e.fen().starts_with("4r1k1/8/3N4/8/4P3/8/8/4K3 b - - 0 1"), "{}", e.fen());

        // The converted bishop lands on e1 and shields f1 from the rook.
        let fen = format!("4k3/8/8/8/8/8/8/r3Kb2 w - - 0 1{extra}");
        let (e, _) = agree(var, &fen, "e1f1");
        assert!(e.fen().starts_with("4k3/8/8/8/8/8/8/r3BK2 b - - 0 1"), "{}", e.fen());

        // En passant: the passed pawn converts onto b5 and shields the king on a5.
        let fen = format!("7k/2p5/8/KP5r/8/8/8/8 b - - 0 1{extra}");
        let (e, r) = agree(var, &fen, "c7c5");
        assert!(e.fen().starts_with("7k/8/8/KPp4r/8/8/8/8 w - c6 0 2"), "{}", e.fen());
        assert!(legal_has(&r, "b5c6"));
        let (e, _) = agree(var, &fen, "c7c5 b5c6");
        assert!(e.fen().starts_with("7k/8/2P5/KP5r/8/8/8/8 b - - 0 2"), "{}", e.fen());
    }
}

#[test]
fn conqueror_repetition_example_from_the_rule_book() {
    let fen = "4k3/8/2n5/4n3/8/5N2/8/4K3 w - - 0 1";
    let (e, _) = agree(Var::Conqueror, fen, "f3e5 c6e5");
    assert!(e.fen().starts_with("4k3/8/2n5/4n3/8/5N2/8/4K3 w - - 0 2"), "{}", e.fen());
    let (e, r) = agree(Var::Conqueror, fen, "f3e5 c6e5 f3e5 c6e5");
    assert_eq!(r.outcome(), Some((None, "repetition")));
    assert_eq!(e.snapshot().reason, Some("repetition"));
    assert!(e.legal_actions().is_empty());
}

#[test]
fn conversion_wins() {
    // The king takes the last black piece: White wins at once.
    let (e, r) = agree(Var::Conqueror, "4k3/8/8/8/8/8/3n4/4K3 w - - 0 1", "e1d2");
    assert_eq!(e.fen(), "4k3/8/8/8/8/8/3K4/4N3 b - - 0 1 ended=conversion");
    assert_eq!(r.outcome(), Some((Some(reference_gold_family::Color::White), "conversion")));
    assert!(e.legal_actions().is_empty());
    // Judged before the stalemate the same capture creates.
    let (e, r) = agree(Var::Conqueror, "k7/8/1Q6/8/8/8/6K1/7n w - - 0 1", "g2h1");
    assert_eq!(e.fen(), "k7/8/1Q6/8/8/8/6N1/7K b - - 0 1 ended=conversion");
    assert_eq!(r.outcome(), Some((Some(reference_gold_family::Color::White), "conversion")));
    // Whatever gold the loser holds; income is already in the finished position.
    let (e, _) = agree(Var::ConquerorGold, "4k3/8/8/8/8/8/3n4/4K3 w - - 0 1 gold=4/20 placed=-", "e1d2");
    assert_eq!(e.fen(), "4k3/8/8/8/8/8/3K4/4N3 b - - 0 1 gold=5.5/21 placed=- ended=conversion");
    // At the start both sides have only kings, and nobody has won.
    let (e, _) = agree(Var::ConquerorGold, Var::ConquerorGold.start_fen(), "e1e2 e8e7");
    assert_eq!(e.snapshot().status, "ongoing");
}

#[test]
fn converted_pawns_on_the_last_rank() {
    // Conqueror: a pawn converted onto its new owner's last rank becomes a queen.
    let (e, _) = agree(Var::Conqueror, "2N1k3/8/3p4/7r/8/8/8/4K3 w - - 0 1", "c8d6");
    assert_eq!(e.fen(), "2Q1k3/8/3N4/7r/8/8/8/4K3 b - - 0 1");
    // Conqueror Gold: it waits there, and capture income is paid for the converted pawn.
    let (e, r) = agree(Var::ConquerorGold, "2N1k3/8/3p4/7r/8/8/8/4K3 w - - 0 1 gold=4/3 placed=-", "c8d6 e8e7");
    assert_eq!(e.fen(), "2P5/4k3/3N4/7r/8/8/8/4K3 w - - 1 2 gold=5.5/4 placed=-");
    assert!(legal_has(&r, "c8=Q") && legal_has(&r, "c8=N") && !legal_has(&r, "c8c7"));
}

#[test]
fn conqueror_gold_placement_ban() {
    // White placed last turn: no placement now, but a waiting pawn may promote in place.
    let fen = "P3k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3 placed=w";
    let (_, r) = agree(Var::ConquerorGold, fen, "");
    assert!(!r.legal().iter().any(|(t, _)| t.contains('@')));
    assert!(legal_has(&r, "a8=Q"));
    let (e, _) = agree(Var::ConquerorGold, fen, "a8=R");
    assert_eq!(e.fen(), "R3k3/8/8/8/8/8/8/4K3 b - - 0 1 gold=3/4 placed=-");
    // Placing sets the flag, any other action clears it.
    let (e, _) = agree(Var::ConquerorGold, Var::ConquerorGold.start_fen(), "P@e2 P@e7");
    assert!(e.fen().ends_with("gold=4/3 placed=wb"), "{}", e.fen());
    let (e, _) = agree(Var::ConquerorGold, Var::ConquerorGold.start_fen(), "P@e2 P@e7 e1d1");
    assert!(e.fen().ends_with("gold=4/4 placed=b"), "{}", e.fen());
}

#[test]
fn gold_economy() {
    let start = Var::Gold.start_fen();
    assert_eq!(start, "4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3");
    let (e, _) = agree(Var::Gold, start, "N@c3");
    assert_eq!(e.fen(), "4k3/8/8/8/8/2N5/8/4K3 b - - 0 1 gold=1/4");
    let (e, _) = agree(Var::Gold, start, "N@c3 B@f6 c3d5 f6d4 d5c7");
    assert_eq!(e.fen(), "4k3/2N5/8/8/3b4/8/8/4K3 b - - 3 3 gold=3/3");
    let (e, _) = agree(Var::Gold, start, "N@c3 B@f6 c3d5 f6d4 e1e2 d4b2");
    assert_eq!(e.fen(), "4k3/8/8/3N4/8/8/1b2K3/8 w - - 4 4 gold=4/3");
    let (e, _) = agree(Var::Gold, start, "N@c3 B@c6 c3d5 c6d5");
    assert_eq!(e.fen(), "4k3/8/8/3b4/8/8/8/4K3 w - - 0 3 gold=3/3.5");
    // Promotion: at once for 1 gold, or later in place; the pawn may also stay unpromoted.
    let fen = "n3k3/1P6/8/8/8/8/8/4K3 w - - 0 1 gold=1/3";
    let (_, r) = agree(Var::Gold, fen, "");
    for a in ["b7a8", "b7a8q", "b7a8n", "b7b8", "b7b8r"] {
        assert!(legal_has(&r, a), "{a}");
    }
    let (e, _) = agree(Var::Gold, fen, "b7a8q");
    assert_eq!(e.fen(), "Q3k3/8/8/8/8/8/8/4K3 b - - 0 1 gold=1.5/4");
    let (e, r) = agree(Var::Gold, fen, "b7b8 e8e7");
    assert_eq!(e.fen(), "nP6/4k3/8/8/8/8/8/4K3 w - - 1 2 gold=2/4");
    assert!(legal_has(&r, "b8=Q") && !legal_has(&r, "b8a8") && !legal_has(&r, "b8b7"));
    let (e, _) = agree(Var::Gold, fen, "b7b8 e8e7 b8=N");
    assert_eq!(e.fen(), "nN6/4k3/8/8/8/8/8/4K3 b - - 0 2 gold=1/5");
}

#[test]
fn promotion_fee_after_capture_income() {
    // Gold below 1 cannot happen in play here, but the position text can say so: then only a
    // capture's income makes the fee affordable.
    let fen = "n3k3/1P6/8/8/8/8/8/4K3 w - - 0 1 gold=0.5/3";
    let (_, r) = agree(Var::Gold, fen, "");
    assert!(legal_has(&r, "b7a8q") && legal_has(&r, "b7a8") && legal_has(&r, "b7b8") && !legal_has(&r, "b7b8q"));
}

#[test]
fn sandbox_rules() {
    let start = Var::Sandbox.start_fen();
    let (_, r) = agree(Var::Sandbox, start, "");
    assert!(legal_has(&r, "Q@h8") && legal_has(&r, "P@a7") && legal_has(&r, "P@a2") && !legal_has(&r, "P@a8"));
    let (_, r) = agree(Var::Sandbox, start, "P@a7 P@b2 a7a8n b2b1n");
    assert!(legal_has(&r, "P@c7") && !legal_has(&r, "P@c1"));
    // Fifteen pieces are the cap; a capture frees a place.
    let fen = "4k3/8/8/8/8/1PPPPPPP/PPPPPPPP/4K3 w - - 0 1";
    let (_, r) = agree(Var::Sandbox, fen, "");
    assert!(!r.legal().iter().any(|(t, _)| t.contains('@')));
    let (_, r) = agree(Var::Sandbox, "4k3/8/8/8/8/1PPPPPPP/PPPPPPPP/4K3 b - - 0 1", "Q@b4 a2a3 b4b3");
    assert!(legal_has(&r, "R@a1"));
}

#[test]
fn conqueror_castling_rights_and_conversions() {
    // The rook leaves h1 by a capture: the converted rook on h1 carries no right.
    let (e, r) = agree(Var::Conqueror, "r3k2r/8/8/7r/8/8/8/R3K2R w KQkq - 0 1", "h1h5 a8a7");
    assert_eq!(e.fen(), "4k2r/r7/8/7R/8/8/8/R3K2R w Qk - 1 2");
    assert!(!legal_has(&r, "e1g1") && legal_has(&r, "e1c1"));
    // A rook taken on its corner converts onto the capturer's corner, without a right.
    let (e, _) = agree(Var::Conqueror, "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "h8h1");
    assert_eq!(e.fen(), "r3k2r/8/8/8/8/8/8/R3K2r w Qq - 0 2");
    // Castling stays FIDE castling: not out of, through or into check.
    agree(Var::Conqueror, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1 e8c8");
    agree(Var::Conqueror, "r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1", "");
    agree(Var::Conqueror, "r3k2r/8/8/8/8/8/4r3/R3K2R w KQkq - 0 1", "");
}

#[test]
fn pawns_on_their_own_first_rank() {
    for (var, extra) in [(Var::Conqueror, ""), (Var::ConquerorGold, " gold=4/3 placed=-")] {
        // The king takes a pawn: the pawn, now White's, stands on e1 and steps one square at a
        // time, then double-steps from its second rank.
        let fen = format!("r3k3/8/8/8/8/8/3p4/4K3 w - - 0 1{extra}");
        let (_, r) = agree(var, &fen, "e1d2 a8a7");
        assert!(legal_has(&r, "e1e2") && !legal_has(&r, "e1e3"), "{}", var.id());
        let (_, r) = agree(var, &fen, "e1d2 a8a7 e1e2 a7a6");
        assert!(legal_has(&r, "e2e4"), "{}", var.id());
        // A pawn on its owner's first rank attacks forward like any pawn: the king may not step
        // next to it diagonally in front.
        agree(var, &format!("3p4/8/3K4/8/8/8/8/7k w - - 0 1{extra}"), "");
        agree(var, &format!("7K/8/8/8/8/3k4/8/3P4 b - - 0 1{extra}"), "");
    }
    // A waiting pawn taken by a piece from the back rank converts onto that rank.
    agree(Var::ConquerorGold, "2Prk3/8/8/8/8/8/8/N3K3 b - - 0 1 gold=4/3 placed=-", "d8c8 e1e2 d8d7 e2e3 d7d5");
}

#[test]
fn mate_beats_the_no_progress_rule() {
    let (e, r) = agree(Var::Standard, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 60", "a1a8");
    assert_eq!(r.outcome(), Some((Some(reference_gold_family::Color::White), "checkmate")));
    assert_eq!(e.snapshot().reason, Some("checkmate"));
    let (e, _) = agree(Var::Gold, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 60 gold=1/1", "a1a8");
    assert_eq!(e.snapshot().reason, Some("checkmate"));
    // Without the mate the rule ends the game.
    let (e, _) = agree(Var::Gold, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 60 gold=1/1", "a1a2");
    assert_eq!(e.snapshot().reason, Some("no-progress"));
}

#[test]
fn finished_positions_read_back() {
    for (var, fen) in [
        (Var::Conqueror, "4k3/8/8/8/8/8/3K4/4N3 b - - 0 1 ended=conversion"),
        (Var::ConquerorGold, "4k3/8/8/8/8/8/3K4/4N3 b - - 0 1 gold=5.5/21 placed=- ended=conversion"),
    ] {
        let (e, _) = agree(var, fen, "");
        assert_eq!(e.fen(), fen);
        assert_eq!(e.snapshot().reason, Some("conversion"));
        assert_eq!(e.perft(1), 0);
    }
}

#[test]
fn perft_of_worked_positions() {
    for (var, fen) in [
        (Var::Conqueror, "4r1k1/8/3p4/8/4N3/8/8/4K3 w - - 0 1"),
        (Var::Conqueror, "4k3/8/8/8/8/8/8/r3Kb2 w - - 0 1"),
        (Var::Conqueror, "7k/2p5/8/KP5r/8/8/8/8 b - - 0 1"),
        (Var::Conqueror, "4k3/8/8/8/8/8/3n4/4K3 w - - 0 1"),
        (Var::Conqueror, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
        (Var::ConquerorGold, "4k3/8/8/8/8/8/3n4/4K3 w - - 0 1 gold=4/3 placed=-"),
        (Var::ConquerorGold, "2N1k3/8/3p4/7r/8/8/8/4K3 w - - 0 1 gold=4/3 placed=b"),
        (Var::Gold, "n3k3/1P6/8/8/8/8/8/4K3 w - - 0 1 gold=0.5/3"),
        (Var::Standard, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    ] {
        let e = engine_from_fen(var, fen);
        let r = reference_from_fen(var, fen);
        let depth = if fen.starts_with("r3k2r/p1") { 2 } else { 3 };
        assert_eq!(e.perft(depth), perft(&r.pos, depth), "{} {fen}", var.id());
    }
    // The reference itself against the published FIDE counts.
    let kiwipete =
        reference_from_fen(Var::Standard, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    assert_eq!(perft(&kiwipete.pos, 2), 2039);
    assert_eq!(perft(&RefGame::new(Var::Standard).pos, 3), 8902);
}

/// A random position text for the variant: kings not in contact, the side not to move not in
/// check, pawns only on ranks the variant can have them on, random rights, en passant, gold and
/// placement flags.
fn random_fen(var: Var, rng: &mut Rng) -> Option<String> {
    let mut board = [' '; 64];
    let castling = matches!(var, Var::Standard | Var::Conqueror) && rng.below(2) == 0;
    let (white_king, black_king) = if castling { (4, 60) } else { (rng.below(64) as usize, rng.below(64) as usize) };
    if white_king == black_king {
        return None;
    }
    board[white_king] = 'K';
    board[black_king] = 'k';
    if castling {
        for (sq, rook) in [(0, 'R'), (7, 'R'), (56, 'r'), (63, 'r')] {
            if rng.below(4) != 0 {
                board[sq] = rook;
            }
        }
    }
    // Pawn ranks (0-7) each colour may stand on in this variant.
    let (white_pawns, black_pawns) = match var {
        Var::Standard | Var::Sandbox => (1..=6, 1..=6),
        Var::Gold => (1..=7, 0..=6),
        Var::Conqueror => (0..=6, 1..=7),
        Var::ConquerorGold => (0..=7, 0..=7),
    };
    let pieces = 2 + rng.below(if var == Var::Sandbox { 26 } else { 16 });
    for _ in 0..pieces {
        let sq = rng.below(64) as usize;
        if board[sq] != ' ' {
            continue;
        }
        let white = rng.below(2) == 0;
        let letter = b"PPPPNNBBRRQ"[rng.below(11) as usize] as char;
        let rank = (sq / 8) as i32;
        if letter == 'P' && !(if white { white_pawns.contains(&rank) } else { black_pawns.contains(&rank) }) {
            continue;
        }
        board[sq] = if white { letter } else { letter.to_ascii_lowercase() };
    }
    if var == Var::Sandbox {
        for upper in [true, false] {
            let count =
                board.iter().filter(|c| c.is_ascii_uppercase() == upper && !matches!(c, 'K' | 'k' | ' ')).count();
            if count > 15 {
                return None;
            }
        }
    }
    let white_to_move = rng.below(2) == 0;
    let mut castle = String::new();
    if matches!(var, Var::Standard | Var::Conqueror) {
        for (right, king, rook, king_sq, rook_sq) in
            [('K', 'K', 'R', 4, 7), ('Q', 'K', 'R', 4, 0), ('k', 'k', 'r', 60, 63), ('q', 'k', 'r', 60, 56)]
        {
            if board[king_sq] == king && board[rook_sq] == rook && rng.below(2) == 0 {
                castle.push(right);
            }
        }
    }
    if castle.is_empty() {
        castle.push('-');
    }
    // En passant: a pawn of the side not to move that may just have double-stepped.
    let mut ep = "-".to_string();
    let (pawn, rank, dir) = if white_to_move { ('p', 4, 1) } else { ('P', 3, -1) };
    let candidates: Vec<usize> = (0..8)
        .map(|f| rank * 8 + f)
        .filter(|&sq| {
            let behind = (sq as i32 + 8 * dir) as usize;
            let start = (sq as i32 + 16 * dir) as usize;
            board[sq] == pawn && board[behind] == ' ' && board[start] == ' '
        })
        .collect();
    if !candidates.is_empty() && rng.below(2) == 0 {
        let sq = (candidates[rng.below(candidates.len() as u64) as usize] as i32 + 8 * dir) as usize;
        ep = format!("{}{}", (b'a' + (sq % 8) as u8) as char, sq / 8 + 1);
    }
    let mut rows = Vec::new();
    for rank in (0..8).rev() {
        let mut row = String::new();
        let mut empty = 0;
        for file in 0..8 {
            let c = board[rank * 8 + file];
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
    let mut fen = format!("{} {side} {castle} {ep} {} {}", rows.join("/"), rng.below(30), 1 + rng.below(60));
    if matches!(var, Var::Gold | Var::ConquerorGold) {
        let gold = |halves: u64| {
            if halves.is_multiple_of(2) { format!("{}", halves / 2) } else { format!("{}.5", halves / 2) }
        };
        let (mover, other) = (2 + rng.below(30), rng.below(30));
        let (w, b) = if white_to_move { (mover, other) } else { (other, mover) };
        fen.push_str(&format!(" gold={}/{}", gold(w), gold(b)));
    }
    if var == Var::ConquerorGold {
        fen.push_str([" placed=-", " placed=w", " placed=b", " placed=wb"][rng.below(4) as usize]);
    }
    // The side not to move must not be in check.
    let r = RefGame::from_fen(var, &fen).ok()?;
    let (them, their_king) = match r.pos.side {
        reference_gold_family::Color::White => (reference_gold_family::Color::White, black_king),
        reference_gold_family::Color::Black => (reference_gold_family::Color::Black, white_king),
    };
    if r.pos.attacked(their_king, them) {
        return None;
    }
    Some(fen)
}

#[test]
fn random_positions_agree() {
    let biases = [Bias::Uniform, Bias::Captures, Bias::Pawns, Bias::Placements, Bias::Shuffle];
    for (i, var) in [Var::Standard, Var::Gold, Var::Sandbox, Var::Conqueror, Var::ConquerorGold].into_iter().enumerate()
    {
        let mut rng = Rng::new(seed_base(1000 + i as u64));
        let mut seen = Seen::default();
        let mut rejected = Vec::new();
        let mut played = 0;
        while played < scaled(80) {
            let Some(fen) = random_fen(var, &mut rng) else { continue };
            match variant(var.id()).and_then(|v| v.game_from_fen(&fen).ok()) {
                Some(_) => {}
                None => {
                    rejected.push(fen);
                    continue;
                }
            }
            let seed = rng.next();
            playout(var, &fen, seed, biases[(played % 5) as usize], 40, &mut seen);
            played += 1;
        }
        eprintln!("{} random positions: {seen:?}", var.id());
        assert!(rejected.is_empty(), "{}: the engine refuses {rejected:?}", var.id());
        covered("seen.captures > 0 && seen.checkmates > 0", seen.captures > 0 && seen.checkmates > 0, &seen);
        match var {
            Var::Standard => covered("seen.castlings > 0", seen.castlings > 0, &seen),
            Var::Conqueror => covered(
                "seen.castlings > 0 && seen.conversion_wins > 0",
                seen.castlings > 0 && seen.conversion_wins > 0,
                &seen,
            ),
            Var::ConquerorGold => covered(
                "seen.conversion_wins > 0 && seen.promotions_in_place > 0",
                seen.conversion_wins > 0 && seen.promotions_in_place > 0,
                &seen,
            ),
            Var::Gold | Var::Sandbox => covered("seen.placement_mates > 0", seen.placement_mates > 0, &seen),
        }
    }
}

#[test]
fn conversion_win_is_judged_before_mate() {
    // Rxh8 takes Black's last piece and mates: the conversion decides.
    let (e, r) = agree(Var::Conqueror, "k6n/8/1K6/8/8/8/8/7R w - - 0 1", "h1h8");
    assert_eq!(e.fen(), "k6R/8/1K6/8/8/8/8/7N b - - 0 1 ended=conversion");
    assert_eq!(r.outcome(), Some((Some(reference_gold_family::Color::White), "conversion")));
    assert_eq!(e.snapshot().reason, Some("conversion"));
}
