//! The evaluations are colour-blind: a position and its mirror image (ranks reversed, colours
//! and gold swapped, the other side to move) get the same score, and material counts.

#![expect(clippy::expect_used, reason = "test fixtures fail loudly")]

use chessgold_bot::{BotVariant, Evaluator, WithVariant, dispatch};
use chessgold_engine::Position;

/// The mirror image of a position text of the 8x8 family.
fn mirror(fen: &str) -> String {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let swap = |s: &str| -> String {
        s.chars()
            .map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() })
            .collect()
    };
    let board: Vec<String> = fields[0].split('/').rev().map(swap).collect();
    let side = if fields[1] == "w" { "b" } else { "w" };
    let castling = if fields[2] == "-" {
        "-".to_string()
    } else {
        let s = swap(fields[2]);
        let mut upper: Vec<char> = s.chars().filter(char::is_ascii_uppercase).collect();
        let mut lower: Vec<char> = s.chars().filter(char::is_ascii_lowercase).collect();
        upper.sort_by_key(|c| if *c == 'K' { 0 } else { 1 });
        lower.sort_by_key(|c| if *c == 'k' { 0 } else { 1 });
        upper.into_iter().chain(lower).collect()
    };
    let ep = if fields[3] == "-" {
        "-".to_string()
    } else {
        let b = fields[3].as_bytes();
        format!("{}{}", b[0] as char, (b'9' - b[1] + b'0') as char)
    };
    let mut out = format!("{} {side} {castling} {ep} {} {}", board.join("/"), fields[4], fields[5]);
    for f in &fields[6..] {
        let f = match f.split_once('=') {
            Some(("gold", v)) => {
                let (w, b) = v.split_once('/').expect("white/black");
                format!("gold={b}/{w}")
            }
            Some(("placed", v)) => format!(
                "placed={}",
                match v {
                    "w" => "b",
                    "b" => "w",
                    other => other,
                }
            ),
            _ => f.to_string(),
        };
        out.push(' ');
        out.push_str(&f);
    }
    out
}

struct Score<'a>(&'a str);

impl WithVariant for Score<'_> {
    type Output = i32;
    fn run<V: BotVariant>(self) -> i32 {
        let pos = Position::<V>::from_fen(self.0).unwrap_or_else(|e| panic!("{}: {e}", self.0));
        V::evaluator().evaluate(&pos)
    }
}

fn score(id: &str, fen: &str) -> i32 {
    dispatch(id, Score(fen)).expect("a bot variant")
}

#[test]
fn mirrored_positions_score_alike_in_every_family() {
    let cases = [
        ("standard", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        ("standard", "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R1BQKB1R w KQ - 0 8"),
        ("standard", "8/5pk1/6p1/3R4/5P2/6P1/r5K1/8 w - - 0 40"),
        ("conqueror", "r3k2r/ppp2ppp/2n5/3qp3/3P4/2N5/PPP2PPP/R2QK2R w KQkq - 0 9"),
        ("gold", "4k3/2pn1p2/5b2/8/8/2N1B3/3P1P2/4K3 w - - 0 8 gold=5/3.5"),
        ("gold", "4k3/8/8/8/8/8/8/4K3 b - - 0 1 gold=1/4"),
        ("conqueror-gold", "4k3/3r4/8/8/8/8/2N5/4K3 w - - 0 5 gold=6/2 placed=b"),
        ("sandbox", "4k3/3q4/8/8/3N4/8/8/4K3 w - - 0 3"),
    ];
    for (id, fen) in cases {
        let m = mirror(fen);
        assert_eq!(score(id, fen), score(id, &m), "{id}: {fen} vs {m}");
    }
}

#[test]
fn material_and_gold_count_for_their_owner() {
    // An extra queen is a lot; the side to move's view flips with the side to move.
    let up = score("standard", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1");
    assert!(up > 700, "{up}");
    assert!(score("standard", "4k3/8/8/8/8/8/8/3QK3 b - - 0 1") < -700);
    // Gold is worth something, but less than the piece it buys.
    let rich = score("gold", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=10/2");
    let poor = score("gold", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=2/2");
    let queen = score("gold", "4k3/8/8/8/8/8/8/3QK3 b - - 0 1 gold=2/2");
    assert!(rich - poor > 200, "gold counts: {rich} vs {poor}");
    assert!(-queen > rich - poor, "a queen on the board beats its price in gold: {queen}");
    // A pawn waiting on the last rank is nearly a queen.
    let waiting = score("gold", "P3k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=2/2");
    assert!(waiting > 500, "{waiting}");
}

#[test]
fn enemy_gold_aimed_at_an_open_king_is_a_danger() {
    // The same kings and gold; Black's king stands on an open file in front of White's zone.
    let exposed = score("gold", "8/8/8/8/8/4k3/8/4K3 b - - 0 10 gold=8/8");
    let sheltered = score("gold", "4k3/8/8/8/8/8/8/4K3 b - - 0 10 gold=8/8");
    assert!(exposed < sheltered - 50, "{exposed} vs {sheltered}");
}
