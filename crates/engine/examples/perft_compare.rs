//! Perft speed side by side: this engine against the `shakmaty` crate (a dev-dependency used
//! only for measuring and cross-checking), and the Chess Gold modes against FIDE chess.
//!
//! `cargo run --release -p chessgold-engine --example perft_compare` (see `scripts/bench-perft`).

use std::time::Instant;

use chessgold_engine::movegen::perft;
use chessgold_engine::variants::gold::{ChessGold, Conqueror, ConquerorGold, Sandbox};
use chessgold_engine::variants::standard::Standard;
use chessgold_engine::{Position, Variant};
use shakmaty::{CastlingMode, Chess, fen::Fen};

/// Best of `runs` timings of `f`, with its result.
fn best_of(runs: usize, mut f: impl FnMut() -> u64) -> (u64, f64) {
    let mut best = f64::MAX;
    let mut nodes = 0;
    for _ in 0..runs {
        let t = Instant::now();
        nodes = f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    (nodes, best)
}

fn row(name: &str, depth: u32, (nodes, secs): (u64, f64)) {
    println!("| {name} | {depth} | {nodes} | {secs:.3} | {:.1} |", nodes as f64 / secs / 1e6);
}

fn ours<V: Variant>(depth: u32, runs: usize) -> (u64, f64) {
    let pos = Position::<V>::start();
    best_of(runs, || perft(&pos, depth))
}

fn main() {
    let runs = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(3);
    println!("| engine / variant | depth | nodes | best seconds | million nodes/s |");
    println!("|---|---|---|---|---|");
    row("chessgold standard", 6, ours::<Standard>(6, runs));
    let start: Chess = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        .parse::<Fen>()
        .ok()
        .and_then(|f| f.into_position(CastlingMode::Standard).ok())
        .unwrap_or_default();
    row("shakmaty 0.27 standard", 6, best_of(runs, || shakmaty::perft(&start, 6)));
    row("chessgold standard", 4, ours::<Standard>(4, runs));
    row("chessgold gold", 4, ours::<ChessGold>(4, runs));
    row("chessgold conqueror-gold", 4, ours::<ConquerorGold>(4, runs));
    row("chessgold conqueror", 4, ours::<Conqueror>(4, runs));
    row("chessgold sandbox", 3, ours::<Sandbox>(3, runs));
    row("chessgold gold", 5, ours::<ChessGold>(5, runs));
    row("chessgold conqueror-gold", 5, ours::<ConquerorGold>(5, runs));
}
