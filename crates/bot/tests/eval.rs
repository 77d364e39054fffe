//! The evaluations are colour-blind: a position and its mirror image (ranks reversed, colours
//! and gold or XP swapped, the other side to move) get the same score, and material counts.
//! Class Warfare is not symmetric: its terms are checked for their sign.

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
            Some(("xp", v)) => {
                let (w, b) = v.split_once('/').expect("white/black");
                format!("xp={b}/{w}")
            }
            Some((key @ ("hp" | "shields"), v)) => format!("{key}={}", mirror_squares(v)),
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

/// Mirrors the 8x8 squares of a list such as `e1:3,d2:1` or `d1,f1` (`-` stays).
fn mirror_squares(list: &str) -> String {
    if list == "-" {
        return list.to_string();
    }
    list.split(',')
        .map(|entry| {
            let b = entry.as_bytes();
            format!("{}{}{}", b[0] as char, (b'9' - b[1] + b'0') as char, &entry[2..])
        })
        .collect::<Vec<_>>()
        .join(",")
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
        // The new families (Electrum's own start is turned, not mirrored: positions without
        // castling rights).
        ("electrum", "wcbskgmnr/ppppppppp/9/9/9/9/9/PPPPPPPPP/RNMGKSBCW w - - 0 1"),
        ("electrum", "4k4/2pn1p3/5s3/3g5/9/2NCB4/3P1P3/9/4K4 w - - 0 12"),
        ("grunt", "1nbgkbn1/pppppppp/8/8/8/8/PPPPPPPP/1NBGKBN1 w - - 0 1 xp=0/1"),
        ("grunt", "2b1k3/pp1g1ppp/2n5/3pP3/8/2N2G2/PPP2PPP/2B1K3 b - - 0 9 xp=7/2"),
        (
            "chessception",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 hp=- shields=d1,f1,d2,e2,f2,d7,e7,f7,d8,f8",
        ),
        ("chessception", "r3k2r/ppp2ppp/2n5/3qp3/3P4/2N5/PPP2PPP/R2QK2R w KQkq - 0 9 hp=d5:2,e1:3,c3:1 shields=d1,f2"),
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

#[test]
fn grunt_xp_counts_for_its_owner() {
    // The same board; White's XP buys promotions and grunts.
    let board = "1nbgkbn1/pppppppp/8/8/8/8/PPPPPPPP/1NBGKBN1 w - - 0 1";
    let poor = score("grunt", &format!("{board} xp=0/0"));
    let rich = score("grunt", &format!("{board} xp=9/0"));
    assert!(rich - poor >= 100, "XP counts: {rich} vs {poor}");
    let rich_black = score("grunt", &format!("{board} xp=0/9"));
    assert!(rich_black < poor - 100, "the opponent's XP counts against: {rich_black} vs {poor}");
    // XP is worth less than the pieces it buys: a queen beats 9 XP.
    let queen = score("grunt", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1 xp=0/9");
    assert!(queen > 300, "{queen}");
    // A pawn waiting on the last rank with XP to become a grunt is worth more than a pawn.
    let waiting = score("grunt", "P3k3/8/8/8/8/8/8/4K3 w - - 0 1 xp=3/3");
    let pawn = score("grunt", "4k3/8/P7/8/8/8/8/4K3 w - - 0 1 xp=3/3");
    assert!(waiting > pawn, "{waiting} vs {pawn}");
}

#[test]
fn chessception_hp_and_king_damage_count() {
    let full = "4k3/3q4/8/8/8/8/3Q4/4K3 w - - 0 1 hp=- shields=d2,d7";
    let even = score("chessception", full);
    // Black's queen at 1 HP: good for White; White's at 1 HP: bad.
    let theirs_hurt = score("chessception", "4k3/3q4/8/8/8/8/3Q4/4K3 w - - 0 1 hp=d7:1 shields=d2,d7");
    let ours_hurt = score("chessception", "4k3/3q4/8/8/8/8/3Q4/4K3 w - - 0 1 hp=d2:1 shields=d2,d7");
    assert!(theirs_hurt > even + 150 && ours_hurt < even - 150, "{ours_hurt} < {even} < {theirs_hurt}");
    // A wounded king costs more than a wounded queen.
    let king_hurt = score("chessception", "4k3/3q4/8/8/8/8/3Q4/4K3 w - - 0 1 hp=e1:2 shields=d2,d7");
    let queen_hurt = score("chessception", "4k3/3q4/8/8/8/8/3Q4/4K3 w - - 0 1 hp=d2:2 shields=d2,d7");
    assert!(king_hurt < queen_hurt, "{king_hurt} vs {queen_hurt}");
    // Shields (the king's aura) count.
    let bare = score("chessception", "4k3/3q4/8/8/8/8/3Q4/4K3 w - - 0 1 hp=- shields=d7");
    assert!(bare < even, "{bare} vs {even}");
}

#[test]
fn class_warfare_goals_are_asymmetric() {
    // Black (the proletariat) to move: a pawn nearer rank 1 is better for it.
    let back = score("class-warfare", "pppppp1p/6p1/8/RNBQKBNR b - - 0 5");
    let ahead = score("class-warfare", "pppppp1p/8/6p1/RNBQKBNR b - - 0 5");
    assert!(ahead > back, "advance: {ahead} vs {back}");
    // More pawns are better for it, and its last pawns matter most.
    let many = score("class-warfare", "pppp1ppp/8/8/RNBQKBNR b - - 0 5");
    let few = score("class-warfare", "p6p/8/8/RNBQKBNR b - - 0 5");
    let last = score("class-warfare", "p7/8/8/RNBQKBNR b - - 0 5");
    assert!(many > few && few - last > 150, "{many} > {few} > {last}");
    // The same position scores the other way round for White.
    assert_eq!(score("class-warfare", "pppp1ppp/8/8/RNBQKBNR w - - 0 5"), -many);
    // Stopped factories (both queen squares needed) make White's pieces worth less.
    let running = score("class-warfare", "pppppppp/8/8/RNBQKBNR w - - 0 3");
    let stopped = score("class-warfare", "ppp2ppp/3pp3/8/RNBQKBNR w - - 0 3");
    assert!(stopped < running - 200, "{stopped} vs {running}");
    // Time works for White: the same position later in the game is better for it.
    let early = score("class-warfare", "pppp1ppp/8/8/RNBQKBNR w - - 0 5");
    let late = score("class-warfare", "pppp1ppp/8/8/RNBQKBNR w - - 0 48");
    assert!(late > early, "{late} vs {early}");
}

#[test]
fn electrum_fairy_pieces_are_worth_more_where_they_can_move() {
    // A Silverwing slides only forwards: on the last rank it has little left (pawns on the
    // board, so that the drawish scaling of pawnless endings does not hide the difference).
    let useful = score("electrum", "4k4/p8/9/9/9/3W5/9/P8/4K4 w - - 0 1");
    let stuck = score("electrum", "4k3W/p8/9/9/9/9/9/P8/4K4 w - - 0 1");
    assert!(useful > stuck + 20, "{useful} vs {stuck}");
    // A Goldrider is worth more than a Goldmitre.
    let rider = score("electrum", "4k4/p8/9/9/9/3G5/9/P8/4K4 w - - 0 1");
    let mitre = score("electrum", "4k4/p8/9/9/9/3M5/9/P8/4K4 w - - 0 1");
    assert!(rider > mitre + 200, "{rider} vs {mitre}");
}
