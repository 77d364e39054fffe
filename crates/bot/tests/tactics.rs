//! The bot finds forced wins in one and two moves in every variant (a mate by placement
//! in the gold modes, a conversion win in Conqueror, a promotion in place in Grunt, a king
//! captured or killed where there is no check), checked by playing out every defence.

#![expect(clippy::expect_used, reason = "test fixtures fail loudly")]

use chessgold_bot::{Level, Limits, analyse};
use chessgold_engine::AnyGame;
use chessgold_engine::registry::variant;

fn game(id: &str, fen: &str) -> Box<dyn AnyGame> {
    variant(id).expect("registered").game_from_fen(fen).unwrap_or_else(|e| panic!("{id} {fen}: {e}"))
}

/// The side to move wins by force in at most `n` of its moves: the bot announces it, and
/// every defence against the bot's moves loses within the announced number.
fn assert_forced_win(g: &dyn AnyGame, n: i32, trail: &str) {
    let attacker = g.turn();
    let a = analyse(g, Level::MAX, Limits::nodes(300_000), 1).expect("a move");
    let mate = a.mate.unwrap_or_else(|| panic!("{trail}: no mate announced, {a:?}"));
    assert!((1..=n).contains(&mate), "{trail}: mate in {mate}, expected at most {n}: {a:?}");
    let mut after = g.boxed_clone();
    after.play(&a.action).expect("the bot's move is legal");
    let snap = after.snapshot();
    if mate == 1 {
        assert_eq!(snap.winner, Some(attacker.name()), "{trail} {}: {} {:?}", a.action, snap.status, snap.reason);
        return;
    }
    assert_eq!(snap.status, "ongoing", "{trail} {}", a.action);
    for reply in after.legal_actions() {
        let mut next = after.boxed_clone();
        next.play(&reply).expect("legal");
        assert_forced_win(next.as_ref(), mate - 1, &format!("{trail} {} {reply}", a.action));
    }
}

#[test]
fn standard_mate_in_one_and_two() {
    assert_forced_win(game("standard", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1").as_ref(), 1, "back rank");
    assert_forced_win(game("standard", "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1").as_ref(), 2, "ladder");
    // Black to move mates too (scores are for the side to move).
    assert_forced_win(game("standard", "r5k1/8/8/8/8/8/5PPP/6K1 b - - 0 1").as_ref(), 1, "black back rank");
}

#[test]
fn gold_mate_by_placement_in_one_and_two() {
    // N@b3 mates: a knight's check cannot be blocked by a placement.
    assert_forced_win(game("gold", "8/8/8/8/8/8/2K5/kB6 w - - 0 1 gold=3/3").as_ref(), 1, "knight drop");
    // Q@a1+ then the queen mates on the eighth rank; Black's pawn blocks do not help.
    assert_forced_win(game("gold", "k7/8/1K6/8/8/8/8/8 w - - 0 1 gold=8/0").as_ref(), 2, "queen drop");
}

#[test]
fn conqueror_gold_mate_in_one_and_two() {
    assert_forced_win(game("conqueror-gold", "8/8/8/8/8/8/2K5/kB6 w - - 0 1 gold=3/3 placed=-").as_ref(), 1, "drop");
    assert_forced_win(game("conqueror-gold", "k7/8/1K6/8/8/8/8/8 w - - 0 1 gold=8/0 placed=-").as_ref(), 2, "queen");
}

#[test]
fn conqueror_mate_and_conversion_win() {
    assert_forced_win(game("conqueror", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1").as_ref(), 1, "back rank");
    assert_forced_win(game("conqueror", "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1").as_ref(), 2, "ladder");
    // Taking Black's last piece converts it: an immediate win.
    let g = game("conqueror", "4k3/8/8/8/8/8/3n4/4K3 w - - 0 1");
    assert_forced_win(g.as_ref(), 1, "conversion");
    let mut after = g.boxed_clone();
    after.play("e1d2").expect("legal");
    assert_eq!(after.snapshot().reason, Some("conversion"));
}

#[test]
fn sandbox_mate_by_free_placement_in_one_and_two() {
    assert_forced_win(game("sandbox", "k7/8/1K6/8/8/8/8/8 w - - 0 1").as_ref(), 1, "protected queen");
    assert_forced_win(game("sandbox", "k7/8/8/1K6/8/8/8/8 w - - 0 1").as_ref(), 2, "two drops");
}

#[test]
fn the_bot_uses_the_game_history_for_repetition() {
    // Black, a queen down, repeats the start position a third time: a draw.
    let mut g = variant("standard").expect("registered").game_from_fen("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1").expect("fen");
    for m in ["e1d1", "e8d8", "d1e1", "d8e8", "e1d1", "e8d8", "d1e1"] {
        g.play(m).expect("legal");
    }
    let a = analyse(g.as_ref(), Level::MAX, Limits::nodes(50_000), 1).expect("a move");
    assert_eq!((a.action.as_str(), a.score), ("d8e8", 0), "{a:?}");
    g.play(&a.action).expect("legal");
    assert_eq!(g.snapshot().reason, Some("repetition"));
    // Without that history the same position is simply lost.
    let fresh = variant("standard").expect("registered").game_from_fen("3k4/8/8/8/8/8/8/Q3K3 b - - 0 1").expect("fen");
    let a = analyse(fresh.as_ref(), Level::MAX, Limits::nodes(50_000), 1).expect("a move");
    assert!(a.score < -500, "{a:?}");
}

#[test]
fn electrum_mates_with_fairy_pieces() {
    // The Goldrook runs up the i-file to the back rank: Black's own pawns box its king in.
    assert_forced_win(game("electrum", "k8/pp7/9/9/9/9/9/9/4K3R w - - 0 1").as_ref(), 1, "goldrook");
    // The Nitan jumps g4-h6 and checks with its narrow forward leap (1,3), which nothing can
    // block, a king its own pieces box in (a knight on h6 would not reach i9).
    let g = game("electrum", "7rk/7pp/9/9/9/6N2/9/9/4K4 w - - 0 1");
    assert_forced_win(g.as_ref(), 1, "nitan");
    let mut after = g.boxed_clone();
    after.play("g4h6").expect("legal");
    assert_eq!(after.snapshot().status, "checkmate");
    // Two Goldrooks climb the ladder on the 9x9 board: mate in two.
    assert_forced_win(game("electrum", "8k/9/9/9/9/9/9/R8/1R3K3 w - - 0 1").as_ref(), 2, "ladder");
}

#[test]
fn loot_box_mate_in_one_and_two() {
    // No box nearby: the back rank (Black has no gold for a blocker), then a queen bought and
    // placed with check, as in Chess Gold (Black's one gold of income buys no defence).
    let lb = |board: &str, gold: &str| {
        format!("{board} w - - 0 1 gold={gold} boxes=- inventory=-/- items=- countdown=3 words=1")
    };
    assert_forced_win(game("lootbox", &lb("6k1/5ppp/8/8/8/8/8/R5K1", "0/0")).as_ref(), 1, "back rank");
    assert_forced_win(game("lootbox", &lb("k7/8/1K6/8/8/8/8/8", "8/0")).as_ref(), 2, "queen drop");
}

#[test]
fn grunt_mates_by_promotion_in_place() {
    // The bishop on e8 becomes a rook for 6 XP: check along the back rank, and mate.
    let g = game("grunt", "k3B3/pp6/8/8/8/8/8/4K3 w - - 0 1 xp=6/0");
    assert_forced_win(g.as_ref(), 1, "e8=R");
    let mut after = g.boxed_clone();
    after.play("e8=R").expect("legal");
    assert_eq!(after.snapshot().status, "checkmate");
    // Without the XP there is no such mate.
    let poor = game("grunt", "k3B3/pp6/8/8/8/8/8/4K3 w - - 0 1 xp=5/0");
    let a = analyse(poor.as_ref(), Level::MAX, Limits::nodes(50_000), 1).expect("a move");
    assert_eq!(a.mate, None, "{a:?}");
    // Without XP to muster a blocker, the rooks' ladder mates in two.
    assert_forced_win(game("grunt", "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1 xp=0/0").as_ref(), 2, "ladder");
}

#[test]
fn class_warfare_wins_by_each_of_its_rules() {
    // The proletariat takes the king on e1 (no check warned it); pushing on does not win.
    let g = game("class-warfare", "pp4pp/8/3p4/R3K2R b - - 0 12");
    assert_forced_win(g.as_ref(), 1, "d2e1");
    let mut after = g.boxed_clone();
    after.play("d2e1").expect("legal");
    assert_eq!(after.snapshot().reason, Some("king-captured"));
    // The bourgeoisie takes the last pawn (its factory square is occupied, so it does not
    // come back) and wins at once; the king must not walk into its capture meanwhile.
    let g = game("class-warfare", "R6p/7R/8/4K3 w - - 0 30");
    assert_forced_win(g.as_ref(), 1, "h3h4");
    let mut after = g.boxed_clone();
    after.play("h3h4").expect("legal");
    assert_eq!(after.snapshot().reason, Some("no-pawns"));
    // A side without a move loses here (no stalemate): the king blocks the last pawn, which
    // taking would only send back to its empty factory square; b1b2 would lose the king.
    let g = game("class-warfare", "8/p7/8/1K6 w - - 0 20");
    assert_forced_win(g.as_ref(), 1, "b1a2");
    let mut after = g.boxed_clone();
    after.play("b1a2").expect("legal");
    assert_eq!(after.snapshot().reason, Some("no-move"));
    // In two: the king steps up and the last pawn, which must advance, walks into it.
    assert_forced_win(game("class-warfare", "7p/8/R7/6K1 w - - 0 20").as_ref(), 2, "the last pawn");
}

#[test]
fn chessception_kills_a_wounded_king() {
    // The king on e8 has 2 HP and is shielded (half damage): the rook's hit (1) does not kill,
    // the queen's (2) does.
    let g = game("chessception", "4k3/8/8/7Q/8/8/8/4RK2 w - - 0 1 hp=e8:2 shields=-");
    assert_forced_win(g.as_ref(), 1, "h5e8");
    let mut after = g.boxed_clone();
    after.play("h5e8").expect("legal");
    assert_eq!(after.snapshot().reason, Some("king-killed"));
    // Black to move kills too (scores are for the side to move): a knight strikes with its
    // own aura (double damage, halved by the shield: 2).
    let g = game("chessception", "4k3/8/8/8/8/3n4/8/4K3 b - - 0 1 hp=e1:2 shields=-");
    assert_forced_win(g.as_ref(), 1, "d3e1");
    // In two: the queen closes in on the cornered king, which cannot get out of reach.
    assert_forced_win(game("chessception", "7k/8/8/8/8/8/8/1Q2K3 w - - 0 1 hp=h8:2 shields=-").as_ref(), 2, "queen");
}
