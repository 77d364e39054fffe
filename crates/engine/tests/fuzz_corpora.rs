//! The committed fuzz corpora of the engine's parsers (`fuzz/corpus/action_notation`,
//! `fuzz/corpus/position_text`) replayed through the fuzz targets' own properties
//! (`fuzz/src/props.rs`), so the normal test run checks every input the fuzzers kept, and the
//! inputs of past crashes stay fixed.

#[path = "../../../fuzz/src/props.rs"]
mod props;

use std::path::Path;

fn replay(target: &str, check: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus").join(target);
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.map(|e| e.path()).unwrap_or_else(|e| panic!("{}: {e}", dir.display())))
        .collect();
    inputs.sort();
    for path in &inputs {
        let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        check(&data);
    }
    assert!(inputs.len() >= 20, "only {} inputs in {}", inputs.len(), dir.display());
}

#[test]
fn the_action_notation_corpus_replays() {
    replay("action_notation", props::action_notation);
}

#[test]
fn the_position_text_corpus_replays() {
    replay("position_text", props::position_text);
}
