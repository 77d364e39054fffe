//! Measures the search speed: level 8 with a fixed node budget from a few positions of each
//! variant, printing nodes per second and the depth reached. Speed is given per second of
//! wall time and per second of this thread's CPU time (Linux `/proc/thread-self/schedstat`),
//! which a machine shared with other work does not distort.
//!
//! ```text
//! cargo run --release -p chessgold-bot --example bot_nps -- [NODES]
//! ```

use std::time::Instant;

use chessgold_bot::{Level, Limits, analyse};
use chessgold_engine::registry::variant;

const POSITIONS: &[(&str, &str)] = &[
    ("standard", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("standard", "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R1BQKB1R w KQ - 0 8"),
    ("standard", "8/5pk1/6p1/3R4/5P2/6P1/r5K1/8 w - - 0 40"),
    ("gold", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3"),
    ("gold", "4k3/2pn1p2/5b2/8/8/2N1B3/3P1P2/4K3 w - - 0 8 gold=5/3.5"),
    ("conqueror", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("conqueror-gold", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3 placed=-"),
    ("sandbox", "4k3/8/8/8/8/8/8/4K3 w - - 0 1"),
    ("lootbox", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3 boxes=- inventory=-/- items=- countdown=0 words=0"),
    ("electrum", "wcbskgmnr/ppppppppp/9/9/9/9/9/PPPPPPPPP/RNMGKSBCW w Qk - 0 1"),
    ("class-warfare", "pppppppp/8/8/RNBQKBNR b - - 0 1"),
    ("grunt", "1nbgkbn1/pppppppp/8/8/8/8/PPPPPPPP/1NBGKBN1 w - - 0 1 xp=0/1"),
    (
        "chessception",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 hp=- shields=d1,f1,d2,e2,f2,d7,e7,f7,d8,f8",
    ),
];

/// CPU time of this thread so far, seconds (0 where the kernel does not tell).
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|n| n.parse::<f64>().ok()))
        .map_or(0.0, |ns| ns / 1e9)
}

fn main() {
    let nodes: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let mut total_nodes = 0u64;
    let mut total_secs = 0f64;
    let mut total_cpu = 0f64;
    for (id, fen) in POSITIONS {
        let Some(info) = variant(id) else { continue };
        let game = match info.game_from_fen(fen) {
            Ok(g) => g,
            Err(e) => {
                eprintln!("{id} {fen}: {e}");
                continue;
            }
        };
        let start = Instant::now();
        let cpu = cpu_seconds();
        let Some(a) = analyse(game.as_ref(), Level::MAX, Limits::nodes(nodes), 1) else { continue };
        let secs = start.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - cpu;
        total_nodes += a.nodes;
        total_secs += secs;
        total_cpu += cpu;
        println!(
            "{id:<15} depth {:>2} nodes {:>8} {:>6.2} s {:>9.0} nps (cpu {:>9.0})  best {:<7} score {:>6}  {}",
            a.depth,
            a.nodes,
            secs,
            a.nodes as f64 / secs.max(1e-9),
            a.nodes as f64 / cpu.max(1e-9),
            a.action,
            a.score,
            fen
        );
    }
    println!(
        "total: {total_nodes} nodes in {total_secs:.2} s = {:.0} nps; {total_cpu:.2} s of CPU = {:.0} nps",
        total_nodes as f64 / total_secs.max(1e-9),
        total_nodes as f64 / total_cpu.max(1e-9)
    );
}
