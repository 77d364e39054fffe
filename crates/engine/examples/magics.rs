//! Prints `src/magics.rs`: the magic multipliers the sliding-attack tables use.
//!
//! `cargo run -p chessgold-engine --example magics > crates/engine/src/magics.rs`
//! The tables search for any multiplier missing from that file at start-up, so this only
//! saves start-up time; a unit test checks that the file matches what is in use.

use chessgold_engine::geometry::{Board8x4, Board8x8, Board9x9, Geometry};

fn emit<G: Geometry>(name: &str) {
    let (rook, bishop) = G::tables().magic_numbers();
    for (kind, list) in [("ROOK", rook), ("BISHOP", bishop)] {
        println!("pub(crate) const {kind}_{name}: [u128; {}] = [", list.len());
        for m in list {
            println!("    {m:#x},");
        }
        println!("];");
    }
}

fn main() {
    println!("//! Magic multipliers for the sliding-attack tables (generated; see `examples/magics.rs`).");
    println!("//! A missing or wrong entry is searched for at start-up, so these only save time.");
    println!();
    emit::<Board8x8>("8X8");
    emit::<Board9x9>("9X9");
    emit::<Board8x4>("8X4");
}
