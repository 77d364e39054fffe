//! Perft speed of the engine next to the `shakmaty` crate (a dev-dependency used only here and
//! in tests), and sliding-attack lookups on every board shape.
//!
//! `cargo bench -p chessgold-engine --bench perft`

#![expect(clippy::expect_used, reason = "benchmark fixtures are constants")]

use std::hint::black_box;

use chessgold_engine::Position;
use chessgold_engine::bitboard::BitBoard;
use chessgold_engine::geometry::{Board8x4, Board8x8, Board9x9, Geometry};
use chessgold_engine::movegen::perft;
use chessgold_engine::square::Square;
use chessgold_engine::variants::standard::Standard;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

const POSITIONS: [(&str, &str, u32); 2] = [
    ("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 5),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4),
];

fn perft_bench(c: &mut Criterion) {
    for (name, fen, depth) in POSITIONS {
        let ours = Position::<Standard>::from_fen(fen).expect("valid");
        let theirs: Chess = fen.parse::<Fen>().expect("valid").into_position(CastlingMode::Standard).expect("legal");
        let nodes = perft(&ours, depth);
        assert_eq!(nodes, shakmaty::perft(&theirs, depth));
        let mut group = c.benchmark_group(format!("perft/{name}/{depth}"));
        group.sample_size(10);
        group.throughput(Throughput::Elements(nodes));
        group.bench_function("chessgold", |b| b.iter(|| perft(black_box(&ours), depth)));
        group.bench_function("shakmaty", |b| b.iter(|| shakmaty::perft(black_box(&theirs), depth)));
        group.finish();
    }
}

fn attacks_on<G: Geometry>(c: &mut Criterion, name: &str) {
    let t = G::tables();
    let mut x = 0x1234_5678_9abc_def1u64;
    let occupancies: Vec<G::Bb> = (0..64)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let y = x.rotate_left(29) & x;
            G::Bb::from_u128((u128::from(y) << 64 | u128::from(x & y.rotate_left(7))) & t.all.to_u128())
        })
        .collect();
    let mut group = c.benchmark_group("queen-attacks");
    group.throughput(Throughput::Elements((G::SQUARES * occupancies.len()) as u64));
    group.bench_function(name, |b| {
        b.iter(|| {
            let mut acc = G::Bb::ZERO;
            for &occ in &occupancies {
                for sq in 0..G::SQUARES {
                    acc ^= t.queen(Square::new(sq as u8), black_box(occ));
                }
            }
            acc
        })
    });
    group.finish();
}

fn attacks_bench(c: &mut Criterion) {
    attacks_on::<Board8x8>(c, "8x8");
    attacks_on::<Board9x9>(c, "9x9");
    attacks_on::<Board8x4>(c, "8x4");
}

criterion_group!(benches, perft_bench, attacks_bench);
criterion_main!(benches);
