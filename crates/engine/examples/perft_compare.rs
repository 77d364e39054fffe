//! Perft speed side by side: this engine against the `shakmaty` crate (a dev-dependency used
//! only for measuring and cross-checking), and the Chess Gold modes against FIDE chess.
//!
//! `cargo run --release -p chessgold-engine --example perft_compare` (see `scripts/bench-perft`).

use std::time::Instant;

use chessgold_engine::movegen::perft;
use chessgold_engine::variants::chessception::Chessception;
use chessgold_engine::variants::class_warfare::ClassWarfare;
use chessgold_engine::variants::electrum::Electrum;
use chessgold_engine::variants::gold::{ChessGold, Conqueror, ConquerorGold, Sandbox};
use chessgold_engine::variants::grunt::Grunt;
use chessgold_engine::variants::lootbox::LootBox;
use chessgold_engine::variants::standard::Standard;
use chessgold_engine::{Position, Variant};
use shakmaty::{CastlingMode, Chess, fen::Fen};

/// This thread's CPU time so far in seconds (Linux's schedstat; 0 where the kernel does not
/// tell): unlike wall time, not inflated by other work on a shared machine.
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|n| n.parse::<f64>().ok()))
        .map_or(0.0, |ns| ns / 1e9)
}

/// Best of `runs` timings of `f` (wall, CPU), with its result.
fn best_of(runs: usize, mut f: impl FnMut() -> u64) -> (u64, f64, f64) {
    let (mut wall, mut cpu) = (f64::MAX, f64::MAX);
    let mut nodes = 0;
    for _ in 0..runs {
        let (t, c) = (Instant::now(), cpu_seconds());
        nodes = f();
        wall = wall.min(t.elapsed().as_secs_f64());
        cpu = cpu.min(cpu_seconds() - c);
    }
    (nodes, wall, cpu)
}

fn row(name: &str, depth: u32, (nodes, wall, cpu): (u64, f64, f64)) {
    let m = |secs: f64| nodes as f64 / secs.max(1e-9) / 1e6;
    println!("| {name} | {depth} | {nodes} | {wall:.3} | {:.1} | {cpu:.3} | {:.1} |", m(wall), m(cpu));
}

fn ours<V: Variant>(depth: u32, runs: usize) -> (u64, f64, f64) {
    let pos = Position::<V>::start();
    best_of(runs, || perft(&pos, depth))
}

fn main() {
    let runs = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(3);
    println!("| engine / variant | depth | nodes | best wall s | M nodes/s (wall) | best CPU s | M nodes/s (CPU) |");
    println!("|---|---|---|---|---|---|---|");
    row("chessgold standard", 6, ours::<Standard>(6, runs));
    let start: Chess = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        .parse::<Fen>()
        .ok()
        .and_then(|f| f.into_position(CastlingMode::Standard).ok())
        .unwrap_or_default();
    row("shakmaty 0.27 standard", 6, best_of(runs, || shakmaty::perft(&start, 6)));
    row("chessgold standard", 5, ours::<Standard>(5, runs));
    row("chessgold gold", 4, ours::<ChessGold>(4, runs));
    row("chessgold conqueror-gold", 4, ours::<ConquerorGold>(4, runs));
    row("chessgold conqueror", 5, ours::<Conqueror>(5, runs));
    row("chessgold sandbox", 3, ours::<Sandbox>(3, runs));
    row("chessgold gold", 5, ours::<ChessGold>(5, runs));
    row("chessgold conqueror-gold", 5, ours::<ConquerorGold>(5, runs));
    row("chessgold lootbox", 4, ours::<LootBox>(4, runs));
    row("chessgold electrum (9x9)", 5, ours::<Electrum>(5, runs));
    row("chessgold class-warfare (8x4)", 7, ours::<ClassWarfare>(7, runs));
    row("chessgold grunt", 5, ours::<Grunt>(5, runs));
    row("chessgold chessception", 5, ours::<Chessception>(5, runs));
}
