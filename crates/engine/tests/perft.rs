//! Runs every `tests/perft/*.perft` data file through the variant registry.
//!
//! Each `perft DEPTH NODES` line whose node count is within the budget is checked. The budget
//! is `CHESSGOLD_PERFT_BUDGET` (nodes per line), 2,000,000 by default so the normal test run
//! stays fast; `.ci/run` runs this test again in release mode with a budget of 5 billion.

#![expect(clippy::expect_used, reason = "test helpers fail loudly on broken fixtures")]

use std::fs;
use std::path::Path;

use chessgold_engine::registry::variant;

#[derive(Debug)]
struct Case {
    file: String,
    variant: String,
    id: String,
    fen: Option<String>,
    seed: Option<u64>,
    moves: Vec<String>,
    perft: Vec<(u32, u64)>,
}

fn parse(file: &Path) -> Vec<Case> {
    let text = fs::read_to_string(file).expect("readable perft file");
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut cases = Vec::new();
    let mut variant_id = String::from("standard");
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        let case = cases.last_mut();
        match (key, case) {
            ("variant", _) => variant_id = rest.to_string(),
            ("id", _) => cases.push(Case {
                file: name.clone(),
                variant: variant_id.clone(),
                id: rest.to_string(),
                fen: None,
                seed: None,
                moves: Vec::new(),
                perft: Vec::new(),
            }),
            ("fen", Some(c)) => c.fen = Some(rest.to_string()),
            ("seed", Some(c)) => c.seed = Some(rest.parse().expect("seed")),
            ("moves", Some(c)) => c.moves = rest.split_whitespace().map(String::from).collect(),
            ("perft", Some(c)) => {
                let (d, nodes) = rest.split_once(' ').expect("perft DEPTH NODES");
                c.perft.push((d.parse().expect("depth"), nodes.parse().expect("node count")));
            }
            _ => panic!("{name}:{}: cannot read '{line}'", n + 1),
        }
    }
    cases
}

#[test]
fn perft_data_files() {
    let budget: u64 = std::env::var("CHESSGOLD_PERFT_BUDGET").ok().and_then(|v| v.parse().ok()).unwrap_or(2_000_000);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/perft");
    let mut files: Vec<_> = fs::read_dir(&dir).expect("perft dir").map(|e| e.expect("entry").path()).collect();
    files.sort();
    let mut total = 0u64;
    let mut checked = 0;
    for file in files.iter().filter(|f| f.extension().is_some_and(|e| e == "perft")) {
        for case in parse(file) {
            let info =
                variant(&case.variant).unwrap_or_else(|| panic!("{}: unknown variant {}", case.file, case.variant));
            let mut game = match (&case.fen, case.seed) {
                (Some(fen), Some(seed)) => {
                    info.seeded_game_from_fen(fen, seed).unwrap_or_else(|e| panic!("{} {}: {e}", case.file, case.id))
                }
                (Some(fen), None) => {
                    info.game_from_fen(fen).unwrap_or_else(|e| panic!("{} {}: {e}", case.file, case.id))
                }
                (None, Some(seed)) => info.new_seeded_game(seed),
                (None, None) => info.new_game(),
            };
            for m in &case.moves {
                game.play(m).unwrap_or_else(|e| panic!("{} {}: {m}: {e}", case.file, case.id));
            }
            assert!(!case.perft.is_empty(), "{} {} has no perft line", case.file, case.id);
            for &(depth, expected) in case.perft.iter().filter(|(_, n)| *n <= budget) {
                let got = game.perft(depth);
                assert_eq!(got, expected, "{} {}: perft {depth}", case.file, case.id);
                total += got;
                checked += 1;
            }
        }
    }
    assert!(checked > 0, "no perft line within the budget");
    eprintln!("perft: {checked} lines, {total} nodes checked (budget {budget} per line)");
}

#[test]
fn every_registered_variant_has_a_perft_file() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/perft");
    for info in chessgold_engine::registry::variants() {
        let file = dir.join(format!("{}.perft", info.id));
        assert!(file.exists(), "variant {} has no perft data file {}", info.id, file.display());
        let cases = parse(&file);
        assert!(!cases.is_empty(), "{} has no position", file.display());
        assert!(cases.iter().all(|c| c.variant == info.id), "{} counts another variant", file.display());
        let head = fs::read_to_string(&file).expect("readable perft file");
        assert!(head.starts_with('#'), "{} does not say where its counts come from", file.display());
    }
}
