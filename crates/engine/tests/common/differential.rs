//! The harness the differential suites share (`differential_gold_family.rs`,
//! `differential_fairy_pieces.rs`, `differential_combat_and_boxes.rs`): the knobs that lengthen
//! or shift a hunt, the comparison of what every variant shows (position text, sorted legal
//! actions, the game's end), the step-by-step comparison of an action list, and the perft data
//! files of `tests/perft/` checked against a reference implementation.
//!
//! Each suite brings its reference and says how to compare what is particular to its variants.

use std::sync::atomic::{AtomicUsize, Ordering};

use chessgold_engine::AnyGame;

/// A number from the environment, if set and readable.
pub fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|s| s.parse().ok())
}

/// Scales the number of games by `DIFFERENTIAL_SCALE` (default 1) for longer hunts.
pub fn scaled(games: u64) -> u64 {
    games * env_number("DIFFERENTIAL_SCALE").unwrap_or(1)
}

/// Shifts every seed by `DIFFERENTIAL_SEED` (default 0) to hunt in fresh games. The coverage
/// assertions hold for the default seeds.
pub fn seed_base(base: u64) -> u64 {
    base + env_number("DIFFERENTIAL_SEED").unwrap_or(0).wrapping_mul(1_000_003)
}

/// Asserts that the playouts exercised a rule (`what`); only for the default seeds, where it is
/// known to hold.
pub fn covered(what: &str, reached: bool, seen: &impl std::fmt::Debug) {
    if env_number("DIFFERENTIAL_SEED").is_none() {
        assert!(reached, "not exercised: {what}: {seen:?}");
    }
}

/// Lists what one side has and the other lacks, for failure messages.
pub fn difference(engine: &[String], reference: &[String]) -> String {
    let only_engine: Vec<&String> = engine.iter().filter(|a| !reference.contains(a)).collect();
    let only_reference: Vec<&String> = reference.iter().filter(|a| !engine.contains(a)).collect();
    format!("only the engine: {only_engine:?}; only the reference: {only_reference:?}")
}

/// Asserts that the engine's legal actions are sorted and equal the reference's.
pub fn assert_same_legal(engine: &[String], reference: &[String], fen: &str, context: &str) {
    let mut sorted = engine.to_vec();
    sorted.sort();
    assert_eq!(engine, sorted, "{context}: the engine's legal actions are not sorted");
    assert!(engine == reference, "{context}: legal actions differ at {fen}: {}", difference(engine, reference));
}

/// Plays `actions` (space-separated) in the engine's game and the reference's, comparing them with
/// `same` before every action and after the last; `play` plays one action in the reference.
pub fn play_both<R>(
    mut e: Box<dyn AnyGame>,
    mut r: R,
    actions: &str,
    label: &str,
    play: impl Fn(&mut R, &str) -> Result<(), String>,
    same: impl Fn(&dyn AnyGame, &R, &str),
) -> (Box<dyn AnyGame>, R) {
    let mut done = Vec::new();
    for action in actions.split_whitespace() {
        let context = format!("{label} after [{}]", done.join(" "));
        same(e.as_ref(), &r, &context);
        e.play(action).unwrap_or_else(|err| panic!("{context}: engine refuses {action}: {err:?}"));
        play(&mut r, action).unwrap_or_else(|err| panic!("{context}: {err}"));
        done.push(action);
    }
    same(e.as_ref(), &r, &format!("{label} after [{actions}]"));
    (e, r)
}

/// The sum of `count` over `items`, computed by as many threads as the machine has cores: the
/// reference's deep perft, its first actions shared among the cores.
pub fn parallel_sum<T: Sync>(items: &[T], count: impl Fn(&T) -> u64 + Sync) -> u64 {
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, items.len().max(1));
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut sum = 0;
                    while let Some(item) = items.get(next.fetch_add(1, Ordering::Relaxed)) {
                        sum += count(item);
                    }
                    sum
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).sum()
    })
}

/// One `perft DEPTH NODES` line of a data file, with the position it counts from.
#[derive(Debug)]
pub struct PerftLine {
    /// The position's `id`.
    pub id: String,
    /// Its position text; `None` for the variant's start.
    pub fen: Option<String>,
    /// Its seed (Loot Boxes); `None` when the file gives none.
    pub seed: Option<u64>,
    /// The depth.
    pub depth: u32,
    /// The node count the file claims.
    pub nodes: u64,
}

/// The perft lines of `tests/perft/{variant}.perft`.
pub fn perft_lines(variant: &str) -> Vec<PerftLine> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/perft/{variant}.perft"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (mut id, mut fen, mut seed) = (String::new(), None, None);
    let mut lines = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let (key, rest) = line.split_once(' ').unwrap_or_else(|| panic!("{variant}.perft: no value in '{line}'"));
        match key {
            "variant" => assert_eq!(rest, variant, "{variant}.perft names another variant"),
            "id" => (id, fen, seed) = (rest.to_string(), None, None),
            "fen" => fen = Some(rest.to_string()),
            "seed" => seed = Some(rest.parse().unwrap_or_else(|e| panic!("{variant}.perft: seed {rest}: {e}"))),
            "perft" => {
                let parsed = rest.split_once(' ').and_then(|(d, n)| Some((d.parse().ok()?, n.parse().ok()?)));
                let (depth, nodes) =
                    parsed.unwrap_or_else(|| panic!("{variant}.perft: not 'perft DEPTH NODES': {line}"));
                lines.push(PerftLine { id: id.clone(), fen: fen.clone(), seed, depth, nodes });
            }
            other => panic!("{variant}.perft: unknown key {other}"),
        }
    }
    lines
}

/// The node budget per line of the reference's perft: `DIFFERENTIAL_PERFT_BUDGET`, 60,000 by
/// default (a debug build); `.ci/run` checks every line in a release build.
pub fn perft_budget() -> u64 {
    env_number("DIFFERENTIAL_PERFT_BUDGET").unwrap_or(60_000)
}

/// Asserts that the reference's `count` equals every line of `tests/perft/{variant}.perft`
/// within the budget (`tests/perft.rs` checks the engine against the same lines); returns how many
/// lines were checked.
pub fn check_perft_file(variant: &str, count: impl Fn(&PerftLine) -> u64) -> usize {
    check_perft_file_up_to(variant, u64::MAX, count)
}

/// [`check_perft_file`] for the lines of at most `cap` nodes too: for a file whose deepest lines
/// would take the reference too long even in the release run.
pub fn check_perft_file_up_to(variant: &str, cap: u64, count: impl Fn(&PerftLine) -> u64) -> usize {
    let budget = perft_budget().min(cap);
    let mut checked = 0;
    for line in perft_lines(variant).iter().filter(|l| l.nodes <= budget) {
        assert_eq!(count(line), line.nodes, "{variant} {} ({:?}) perft {}", line.id, line.fen, line.depth);
        checked += 1;
    }
    eprintln!("{variant}: {checked} perft lines confirmed by the reference (up to {budget} nodes per line)");
    checked
}
