//! The flag rule, per variant: a player whose clock runs out loses when the opponent could still
//! win by the variant's rules ([`AnyGame::can_win`]), and draws otherwise. Every variant has a
//! position where a side can still win and, where its rule book allows one, a position where it
//! cannot; a variant whose rule book leaves no such position shows it on its barest position.

use chessgold_engine::registry::{variant, variants};
use chessgold_engine::{AnyGame, Color};

fn game(variant_id: &str, fen: &str) -> Box<dyn AnyGame> {
    variant(variant_id)
        .unwrap_or_else(|| panic!("{variant_id} is registered"))
        .game_from_fen(fen)
        .unwrap_or_else(|e| panic!("{variant_id} {fen}: {e}"))
}

/// Asserts whether White and Black could still win in `fen`, and that the game goes on there.
fn wins(variant_id: &str, fen: &str, white: bool, black: bool) {
    let g = game(variant_id, fen);
    assert_eq!(g.outcome(), None, "{variant_id} {fen} is over");
    assert_eq!(
        (g.can_win(Color::White), g.can_win(Color::Black)),
        (white, black),
        "{variant_id} {fen}: (White can win, Black can win)"
    );
}

#[test]
fn standard_follows_lichess_insufficient_winning_material() {
    // A lone king cannot win; a queen can.
    wins("standard", "4k3/8/8/8/8/8/8/4K2Q w - - 0 1", true, false);
    // A lone knight mates only with a blocker: not against a queen, but against a rook.
    wins("standard", "4k3/8/8/8/8/8/8/n3K2Q w - - 0 1", true, false);
    wins("standard", "4k3/8/8/8/8/8/8/n3K2R w - - 0 1", true, true);
    // Bishops all on one square colour need a knight, a pawn or a bishop of the other colour.
    wins("standard", "4k3/8/8/8/8/8/8/b1b1K2R w - - 0 1", true, false);
    wins("standard", "4k3/8/8/8/8/8/P7/b1b1K3 w - - 0 1", true, true);
    wins("standard", "4k3/8/8/8/8/8/8/b1b1KB2 w - - 0 1", true, true);
    // Bishops on both square colours can mate; so can a pawn, which becomes anything.
    wins("standard", "4k3/8/8/8/8/8/8/1bb1K2Q w - - 0 1", true, true);
    wins("standard", "4k3/p7/8/8/8/8/8/4K2Q w - - 0 1", true, true);
}

#[test]
fn electrum_lone_king_cannot_win() {
    // Rule book: bare kings are the only insufficient material; any other piece may win.
    wins("electrum", "4k4/9/9/9/9/9/9/9/4K3R w - - 0 1", true, false);
    wins("electrum", "4k4/9/9/9/9/9/9/n8/4K4 w - - 0 1", false, true);
    wins("electrum", "4k4/p8/9/9/9/9/9/9/4K3B w - - 0 1", true, true);
}

#[test]
fn conqueror_wins_by_conversion_or_by_mate() {
    // Only the kings: nothing to convert, nothing to mate with.
    wins("conqueror", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", false, false);
    // A lone knight cannot mate a bare king, but the bare king can convert it: that wins.
    wins("conqueror", "4k3/8/8/8/8/8/8/4KN2 w - - 0 1", false, true);
    // Bishops of one square colour against a bare king: the same.
    wins("conqueror", "4k3/8/8/8/8/8/8/2B1K1B1 w - - 0 1", false, true);
    // A rook mates a bare king, and the bare king wins by converting it.
    wins("conqueror", "4k3/8/8/8/8/8/8/4KR2 w - - 0 1", true, true);
}

#[test]
fn grunt_bare_kings_need_xp_to_muster() {
    // Nothing but the kings and fewer than 5 XP on each side: no capture, no muster, ever.
    wins("grunt", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 xp=0/1", false, false);
    wins("grunt", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 xp=4/4", false, false);
    // 5 XP musters a grunt (and the other king can earn XP by taking it).
    wins("grunt", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 xp=5/1", true, true);
    // Any piece besides the kings: XP can be earned; there is no insufficient-material draw.
    wins("grunt", "4k3/8/8/8/8/8/P7/4K3 w - - 0 1 xp=0/0", true, true);
}

#[test]
fn chessception_kings_can_always_be_killed() {
    // Only two kings end the game (`kings-only`); while a piece stands, even a lone king can
    // attack the other king down to 0 HP. The rule book leaves no position where a side cannot win.
    wins("chessception", "4k3/8/8/8/8/8/8/4K2Q w - - 0 1 hp=- shields=-", true, true);
    wins("chessception", "4k3/8/8/8/8/8/7P/4K3 w - - 0 1 hp=h2:1 shields=-", true, true);
    assert_eq!(
        game("chessception", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 hp=- shields=-").outcome().map(|o| o.reason.as_str()),
        Some("kings-only"),
        "bare kings are no flag question: the game is already drawn"
    );
}

#[test]
fn class_warfare_has_no_draw() {
    // The bourgeoisie wins when its king outlives the proletariat's 50 moves, the proletariat
    // by capturing the king with any pawn: both can win, even with a single pawn against a lone king.
    wins("class-warfare", "pppppppp/8/8/RNBQKBNR b - - 0 1", true, true);
    wins("class-warfare", "8/8/p7/4K3 b - - 0 1", true, true);
}

#[test]
fn gold_modes_can_always_buy_a_win() {
    // There is no insufficient-material draw: a bare king earns income and buys pieces, even from
    // no gold at all; Anything Goes places pieces for free.
    wins("gold", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=0/0", true, true);
    wins("gold", "4k3/8/8/8/8/8/8/4K2Q w - - 0 1 gold=4/3", true, true);
    wins(
        "lootbox",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=0/0 boxes=- inventory=-/- items=- countdown=3 words=1",
        true,
        true,
    );
    wins("sandbox", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", true, true);
    wins("conqueror-gold", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=0/0 placed=-", true, true);
}

#[test]
fn every_variant_is_covered_here() {
    let covered = [
        "standard",
        "electrum",
        "conqueror",
        "grunt",
        "chessception",
        "class-warfare",
        "gold",
        "lootbox",
        "sandbox",
        "conqueror-gold",
    ];
    for v in variants() {
        assert!(covered.contains(&v.id), "the flag rule of {} has no test in tests/flag.rs", v.id);
    }
}

#[test]
fn the_start_position_can_be_won_by_both_sides() {
    for v in variants() {
        let g = v.new_game();
        assert!(g.can_win(Color::White) && g.can_win(Color::Black), "{}", v.id);
    }
}
