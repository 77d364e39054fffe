//! Electrum, Class Warfare, Grunt and Chessception by the rule book's numbered rules, with
//! exact outcomes: legal sets of the fairy pieces, promotion choices per square, factories,
//! XP after captures, HP after combats, shields, landings and every end rule.

#[path = "common/play.rs"]
mod play;

use chessgold_engine::AnyGame;
use chessgold_engine::registry::variant;
use play::{game, has, snap};

fn from(g: &dyn AnyGame, square: &str) -> Vec<String> {
    g.legal_actions().into_iter().filter(|a| a.starts_with(square)).collect()
}

fn end(g: &dyn AnyGame) -> (&'static str, Option<&'static str>, Option<&'static str>) {
    let s = snap(g);
    (s.status, s.winner, s.reason)
}

fn list(items: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = items.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

// ================================================================ electrum

#[test]
fn electrum_setup_is_turned_half_a_circle() {
    let g = game("electrum", None, "");
    assert_eq!(g.fen(), "wcbskgmnr/ppppppppp/9/9/9/9/9/PPPPPPPPP/RNMGKSBCW w Qk - 0 1");
    let s = snap(g.as_ref());
    assert_eq!((s.files, s.ranks), (9, 9));
    assert_eq!(g.legal_actions().len(), 26);
}

#[test]
fn electrum_pieces_move_by_their_betza_definitions() {
    // One white piece on e5 of an otherwise empty board (kings tucked away in the corners).
    let cases = [
        ("N", &["e5d7", "e5f7", "e5c6", "e5g6", "e5c4", "e5g4", "e5d3", "e5f3", "e5d8", "e5f8"][..]),
        ("C", &["e5d8", "e5f8", "e5b6", "e5h6", "e5b4", "e5h4", "e5d2", "e5f2", "e5d7", "e5f7"][..]),
        ("M", &["e5f6", "e5g7", "e5h8", "e5i9", "e5d6", "e5c7", "e5b8", "e5a9", "e5e6", "e5e4", "e5d5", "e5f5"][..]),
        ("W", &["e5e6", "e5e7", "e5e8", "e5e9", "e5d6", "e5f6", "e5d4", "e5f4"][..]),
        (
            "B",
            &[
                "e5e6", "e5d6", "e5c7", "e5b8", "e5a9", "e5f6", "e5g7", "e5h8", "e5i9", "e5d4", "e5c3", "e5b2", "e5f4",
                "e5g3", "e5h2", "e5i1",
            ][..],
        ),
    ];
    for (letter, expected) in cases {
        let fen = format!("9/9/8k/9/4{letter}4/9/9/9/K8 w - - 0 1");
        let g = game("electrum", Some(&fen), "");
        assert_eq!(from(g.as_ref(), "e5"), list(expected), "{letter}");
    }
    // Goldrook: rook lines and the two forward diagonal steps.
    let g = game("electrum", Some("9/9/8k/9/4R4/9/9/9/K8 w - - 0 1"), "");
    let moves = from(g.as_ref(), "e5");
    assert_eq!(moves.len(), 8 + 8 + 2);
    assert!(moves.contains(&"e5d6".into()) && moves.contains(&"e5f6".into()) && !moves.contains(&"e5d4".into()));
    // The same piece for Black moves the other way: a black Goldmitre slides down.
    let g = game("electrum", Some("K8/9/8k/9/4m4/9/9/9/9 b - - 0 1"), "");
    assert!(has(g.as_ref(), "e5a1") && has(g.as_ref(), "e5h2") && !has(g.as_ref(), "e5f6"));
    // Goldrider and Silverrider.
    let g = game("electrum", Some("9/9/8k/9/4G4/9/9/9/K8 w - - 0 1"), "");
    assert_eq!(from(g.as_ref(), "e5").len(), 8 + 8 + 4 + 4);
    let g = game("electrum", Some("9/9/8k/9/4S4/9/9/9/K8 w - - 0 1"), "");
    assert_eq!(from(g.as_ref(), "e5").len(), 4 + 4 + 4 + 3 + 4);
}

#[test]
fn electrum_rule_1_check_mate_double_step_and_en_passant() {
    let g = game("electrum", None, "e2e4 a8a7 e4e5 a7a6 e5e6 d8d6");
    assert!(g.fen().contains(" d7 "), "{}", g.fen());
    assert!(has(g.as_ref(), "e6d7"));
    let g = game("electrum", None, "e2e4 a8a7 e4e5 a7a6 e5e6 d8d6 e6d7");
    assert!(g.fen().starts_with("wcbskgmnr/1pp1ppppp/3P5/p8/9/"), "the pawn passed by was taken: {}", g.fen());
    // A Silverwing's forward slide gives check; the king must answer it.
    let g = game("electrum", Some("4k4/9/9/9/9/9/9/9/K2W5 w - - 0 1"), "d1e2");
    assert!(snap(g.as_ref()).check);
}

#[test]
fn electrum_rule_2_goldrook_castling_only() {
    let g = game("electrum", Some("4k3r/9/9/9/9/9/9/9/R3K4 w Qk - 0 1"), "");
    assert!(has(g.as_ref(), "e1c1"));
    let g = game("electrum", Some("4k3r/9/9/9/9/9/9/9/R3K4 w Qk - 0 1"), "e1c1");
    assert_eq!(g.fen(), "4k3r/9/9/9/9/9/9/9/2KR5 b k - 1 1");
    assert!(has(g.as_ref(), "e9g9"));
    let g = game("electrum", Some("4k3r/9/9/9/9/9/9/9/R3K4 w Qk - 0 1"), "e1c1 e9g9");
    assert_eq!(g.fen(), "5rk2/9/9/9/9/9/9/9/2KR5 w - - 2 2");
    let err =
        variant("electrum").expect("electrum").game_from_fen("4k3r/9/9/9/9/9/9/9/R3K4 w KQk - 0 1").expect_err("K");
    assert!(err.to_string().contains("castling letter 'K' is not used in Electrum Chess"), "{err}");
}

#[test]
fn electrum_rule_3_promotion_depends_on_the_square() {
    let g = game("electrum", Some("9/1P2P2P1/9/9/9/9/9/9/k7K w - - 0 1"), "");
    assert_eq!(from(g.as_ref(), "b8"), list(&["b8b9b", "b8b9c", "b8b9s", "b8b9w"]), "silver on a-d");
    assert_eq!(from(g.as_ref(), "h8"), list(&["h8h9g", "h8h9m", "h8h9n", "h8h9r"]), "gold on f-i");
    assert_eq!(from(g.as_ref(), "e8").len(), 8, "any of the eight on the king's file");
    let g = game("electrum", Some("k7K/9/9/9/9/9/9/1p5p1/9 b - - 0 1"), "");
    assert_eq!(from(g.as_ref(), "b2"), list(&["b2b1g", "b2b1m", "b2b1n", "b2b1r"]), "Black: gold on a-d");
    assert_eq!(from(g.as_ref(), "h2"), list(&["h2h1b", "h2h1c", "h2h1s", "h2h1w"]), "Black: silver on f-i");
}

#[test]
fn electrum_rule_4_draws_and_bare_kings() {
    let g = game("electrum", Some("k8/9/9/9/9/9/9/9/1r6K w - - 0 1"), "i1h2");
    assert_eq!(end(g.as_ref()).0, "ongoing");
    let g = game("electrum", Some("k8/9/9/9/9/9/9/7r1/8K w - - 0 1"), "i1h2");
    assert_eq!(end(g.as_ref()), ("draw", None, Some("insufficient-material")), "bare kings");
    let g = game("electrum", Some("k8/9/9/9/9/9/9/9/7NK w - - 0 1"), "");
    assert_eq!(end(g.as_ref()).0, "ongoing", "no other material rule");
    let g = game("electrum", Some("k8/9/9/9/9/9/9/9/7NK w - - 99 70"), "h1g3");
    assert_eq!(end(g.as_ref()), ("draw", None, Some("no-progress")));
}

// ================================================================ class-warfare

#[test]
fn class_warfare_setup_the_proletariat_moves_first() {
    let g = game("class-warfare", None, "");
    assert_eq!(g.fen(), "pppppppp/8/8/RNBQKBNR b - - 0 1");
    let s = snap(g.as_ref());
    assert_eq!((s.files, s.ranks, s.side), (8, 4, "black"));
    assert_eq!(g.legal_actions().len(), 8);
}

#[test]
fn class_warfare_rule_1_pawns_step_capture_and_slide_on_rank_1() {
    let g = game("class-warfare", Some("pppppppp/8/3p4/R1N1K3 b - - 0 1"), "");
    assert_eq!(from(g.as_ref(), "d2"), list(&["d2c1", "d2d1", "d2e1"]), "step, and capture diagonally");
    let g = game("class-warfare", Some("pppppppp/8/8/R2pK3 b - - 0 1"), "");
    assert_eq!(from(g.as_ref(), "d1"), list(&["d1c1", "d1e1"]), "on rank 1 only sideways, capturing too");
}

#[test]
fn class_warfare_rule_2_factories_decide_how_a_type_moves() {
    // All rook factories occupied: the rook moves as a rook.
    let g = game("class-warfare", None, "b4b3");
    assert_eq!(from(g.as_ref(), "a1"), list(&["a1a2", "a1a3", "a1a4"]), "up the file, taking the pawn on a4");
    // After a4 empties, both rooks move like white pawns: a1 can only step to a2.
    let g = game("class-warfare", None, "a4a3");
    let s = snap(g.as_ref());
    let factories = s.state.factories.expect("factories");
    assert!(!factories.iter().find(|f| f.piece == 'R').expect("rooks").running);
    assert!(factories.iter().find(|f| f.piece == 'N').expect("knights").running);
    assert_eq!(from(g.as_ref(), "h1"), list(&["h1h2"]));
    assert_eq!(from(g.as_ref(), "a1"), list(&["a1a2"]), "a1 cannot take a3 straight ahead");
    assert_eq!(from(g.as_ref(), "b1"), list(&["b1a3", "b1c3", "b1d2"]), "knights still run");
    // A piece moving as a pawn captures one step diagonally up and is stuck on rank 4.
    let g = game("class-warfare", Some("1ppppppp/8/1p6/RNBQKBNR w - - 0 2"), "");
    assert_eq!(from(g.as_ref(), "a1"), list(&["a1a2", "a1b2"]), "a step up, or a diagonal capture");
    let g = game("class-warfare", Some("N1pppppp/8/8/R1BQKBNR w - - 0 2"), "");
    assert!(from(g.as_ref(), "a4").is_empty(), "a knight moving as a pawn is stuck on rank 4");
    // The king always moves as a king.
    let g = game("class-warfare", None, "e4e3");
    assert_eq!(from(g.as_ref(), "e1"), list(&["e1d2", "e1e2", "e1f2"]));
}

#[test]
fn class_warfare_rule_3_a_taken_pawn_returns_to_an_empty_factory() {
    // The knight takes the pawn on c2; c4 is empty, so the pawn is put back on c4.
    let g = game("class-warfare", Some("pp1ppppp/8/2p5/RNBQKBNR w - - 0 2"), "");
    assert!(has(g.as_ref(), "d1c2"), "{:?}", g.legal_actions());
    let g = game("class-warfare", Some("pp1ppppp/8/2p5/RNBQKBNR w - - 0 2"), "d1c2");
    assert_eq!(g.fen(), "pppppppp/8/2Q5/RNB1KBNR b - - 0 2");
    // With the factory occupied the pawn is removed.
    let g = game("class-warfare", Some("pppppppp/8/2p5/RNBQKBNR w - - 0 2"), "d1c2");
    assert_eq!(g.fen(), "pppppppp/8/2Q5/RNB1KBNR b - - 0 2");
}

#[test]
fn class_warfare_rule_4_no_check_and_the_four_endings() {
    // No check: the king may step where a pawn attacks it ...
    let g = game("class-warfare", Some("pppppppp/3p4/8/RNBQKBNR w - - 0 2"), "e1e2");
    assert!(has(g.as_ref(), "d3e2"), "... and the proletariat may take it");
    let g = game("class-warfare", Some("pppppppp/3p4/8/RNBQKBNR w - - 0 2"), "e1e2 d3e2");
    assert_eq!(end(g.as_ref()), ("variant_end", Some("black"), Some("king-captured")));
    assert!(g.legal_actions().is_empty());
    let g = game("class-warfare", Some("8/8/1p6/RNBQKBNR w - - 0 9"), "");
    assert_eq!(end(g.as_ref()).0, "ongoing");
    let g = game("class-warfare", Some("8/8/8/RNBQKBNR b - - 0 9"), "");
    assert_eq!(end(g.as_ref()), ("variant_end", Some("white"), Some("no-pawns")));
    let g = game("class-warfare", Some("p7/8/8/4K3 b - - 0 50"), "a4a3");
    assert_eq!(end(g.as_ref()), ("variant_end", Some("white"), Some("move-limit")));
    assert_eq!(snap(g.as_ref()).state.moves_left, Some(0));
    let g = game("class-warfare", Some("p7/8/8/4K3 b - - 0 49"), "a4a3");
    assert_eq!(end(g.as_ref()).0, "ongoing");
    // A side with no legal move loses.
    let g = game("class-warfare", Some("p7/R7/8/7K b - - 0 10"), "");
    assert_eq!(end(g.as_ref()), ("variant_end", Some("white"), Some("no-move")));
    // There is no draw: repeating the position changes nothing.
    let g = game("class-warfare", Some("p7/8/8/4K3 w - - 0 5"), "e1d1 a4a3 d1e1");
    assert_eq!(end(g.as_ref()).0, "ongoing");
}

// ================================================================ grunt

#[test]
fn grunt_setup_and_komi() {
    let g = game("grunt", None, "");
    assert_eq!(g.fen(), "1nbgkbn1/pppppppp/8/8/8/8/PPPPPPPP/1NBGKBN1 w - - 0 1 xp=0/1");
    let xp = snap(g.as_ref()).state.xp.expect("xp");
    assert_eq!((xp.white, xp.black), (0, 1));
}

#[test]
fn grunt_rule_1_the_grunt_steps_straight_and_captures_diagonally() {
    let g = game("grunt", Some("4k3/8/2p1p3/3G4/2pP4/8/8/4K3 w - - 0 1 xp=0/1"), "");
    assert_eq!(from(g.as_ref(), "d5"), list(&["d5c4", "d5c6", "d5d6", "d5e6"]), "forward, and diagonal captures");
    let g = game("grunt", Some("4k3/8/8/3G4/8/8/8/4K3 w - - 0 1 xp=0/1"), "");
    assert_eq!(from(g.as_ref(), "d5"), list(&["d5d4", "d5d6"]), "no diagonal move without a capture");
}

#[test]
fn grunt_rule_2_charge_and_ambush() {
    let g = game("grunt", None, "e2e4 h7h6 e4e5 d7d5");
    assert!(has(g.as_ref(), "e5d6"));
}

#[test]
fn grunt_rule_4_xp_with_consolation_and_the_rule_book_example() {
    let g = game("grunt", None, "e2e4 d7d5 e4d5 e7e6 d5e6 f7e6");
    let xp = snap(g.as_ref()).state.xp.expect("xp");
    assert_eq!((xp.white, xp.black), (5, 5));
    assert!(has(g.as_ref(), "a2=G"));
    for (victim, gain) in [('p', 2), ('g', 2), ('b', 3), ('n', 3), ('r', 4), ('q', 6)] {
        let fen = format!("4k3/8/8/3{victim}4/8/8/8/3QK3 w - - 0 1 xp=0/1");
        let g = game("grunt", Some(&fen), "d1d5");
        assert!(g.fen().ends_with(&format!("xp={gain}/2")), "{victim}: {}", g.fen());
    }
}

#[test]
fn grunt_rule_5_promotion_in_place_one_rung_never_in_check() {
    let fen = "4k3/8/8/8/8/8/P2GBNR1/4K3 w - - 0 1 xp=9/1";
    let g = game("grunt", Some(fen), "");
    let promos: Vec<String> = g.legal_actions().into_iter().filter(|a| a.contains('=')).collect();
    assert_eq!(promos, list(&["a2=G", "d2=B", "d2=N", "e2=R", "f2=R", "g2=Q"]));
    let g = game("grunt", Some(fen), "g2=Q");
    assert!(g.fen().ends_with("xp=0/1"), "{}", g.fen());
    let g = game("grunt", Some("4k3/8/8/8/8/8/P2GBNR1/4K3 w - - 0 1 xp=5/1"), "");
    let promos: Vec<String> = g.legal_actions().into_iter().filter(|a| a.contains('=')).collect();
    assert_eq!(promos, list(&["a2=G"]), "only what the XP pays for");
    let mut g = game("grunt", Some("4r1k1/8/8/8/8/8/P7/4K3 w - - 0 1 xp=9/1"), "");
    assert!(!g.legal_actions().iter().any(|a| a.contains('=')));
    let err = g.play("a2=G").expect_err("in check");
    assert!(err.message().contains("no promotion is allowed in check"), "{err}");
    let err = game("grunt", Some(fen), "").play("a2=N").expect_err("skips a rung");
    assert!(err.message().contains("one rung at a time"), "{err}");
}

#[test]
fn grunt_rule_6_a_pawn_on_the_last_rank_waits_for_xp() {
    let g = game("grunt", Some("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1 xp=0/1"), "");
    assert_eq!(from(g.as_ref(), "b7"), list(&["b7b8"]));
    let g = game("grunt", Some("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1 xp=0/1"), "b7b8 e8e7");
    assert!(from(g.as_ref(), "b8").is_empty(), "immobile without XP");
    let g = game("grunt", Some("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1 xp=3/1"), "b7b8 e8e7");
    assert_eq!(from(g.as_ref(), "b8"), list(&["b8=G"]));
}

#[test]
fn grunt_rule_7_muster_next_to_the_king_under_ten_pieces() {
    let g = game("grunt", Some("4k3/8/8/8/8/8/8/4K3 w - - 0 1 xp=5/1"), "");
    let musters: Vec<String> = g.legal_actions().into_iter().filter(|a| a.contains('@')).collect();
    assert_eq!(musters, list(&["G@d1", "G@d2", "G@e2", "G@f1", "G@f2"]));
    let g = game("grunt", Some("4k3/8/8/8/8/8/8/4K3 w - - 0 1 xp=5/1"), "G@e2");
    assert!(g.fen().starts_with("4k3/8/8/8/8/8/4G3/4K3 b") && g.fen().ends_with("xp=0/1"), "{}", g.fen());
    let ten = "4k3/8/8/8/8/8/PPPPPPPP/1N2K3 w - - 0 1 xp=5/1";
    assert!(!game("grunt", Some(ten), "").legal_actions().iter().any(|a| a.contains('@')), "ten pieces: no muster");
    // In check, a muster must block.
    let g = game("grunt", Some("4r1k1/8/8/8/8/8/8/4K3 w - - 0 1 xp=5/1"), "");
    let musters: Vec<String> = g.legal_actions().into_iter().filter(|a| a.contains('@')).collect();
    assert_eq!(musters, list(&["G@e2"]));
}

#[test]
fn grunt_rule_8_draws_and_no_material_draw() {
    let g = game("grunt", Some("4k3/8/8/8/8/8/8/4K3 w - - 0 1 xp=0/1"), "");
    assert_eq!(end(g.as_ref()).0, "ongoing", "a bare king with XP to come is no draw");
    // Grunt moves do not reset the no-progress count; a muster does.
    let g = game("grunt", Some("4k3/8/8/8/8/3G4/8/4K3 w - - 99 60 xp=0/1"), "d3d4");
    assert_eq!(end(g.as_ref()), ("draw", None, Some("no-progress")));
    let g = game("grunt", Some("4k3/8/8/8/8/8/8/4K3 w - - 99 60 xp=5/1"), "G@e2");
    assert_eq!(end(g.as_ref()).0, "ongoing");
}

// ================================================================ chessception

const CC_START_SHIELDS: &str = "hp=- shields=d1,f1,d2,e2,f2,d7,e7,f7,d8,f8";

#[test]
fn chessception_setup_every_piece_at_full_hp_and_the_kings_neighbours_shielded() {
    let g = game("chessception", None, "");
    assert_eq!(g.fen(), format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 {CC_START_SHIELDS}"));
    let hp = snap(g.as_ref()).state.hp.expect("hp");
    assert_eq!(hp.len(), 32);
    assert!(hp.iter().all(|h| h.hp == h.max));
    assert_eq!(hp.iter().find(|h| h.square == "a2").map(|h| h.max), Some(2));
}

#[test]
fn chessception_rule_1_a_direct_kill_lands_on_the_target() {
    let g = game("chessception", Some("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1 hp=- shields=-"), "e4d5");
    assert_eq!(g.fen(), "4k3/8/8/3P4/8/8/8/4K3 b - - 0 1 hp=- shields=-");
}

#[test]
fn chessception_rule_1_no_kill_returns_to_the_origin() {
    let g = game("chessception", Some("4k3/8/8/3n4/8/8/8/3RK3 w - - 7 1 hp=- shields=d1"), "d1d5");
    assert_eq!(g.fen(), "4k3/8/8/3n4/8/8/8/3RK3 b - - 0 1 hp=d5:2 shields=d1");
    let damage = snap(g.as_ref()).state.damage.expect("damage");
    assert_eq!(damage.iter().map(|d| (d.square.as_str(), d.amount)).collect::<Vec<_>>(), vec![("d5", 2)]);
}

#[test]
fn chessception_rule_1_a_surviving_pawn_strikes_back() {
    // The pawn next to its king is shielded (1 damage); it survives and strikes the shielded rook for 1.
    let g = game("chessception", Some("8/8/3k4/3p4/8/8/8/3RK3 w - - 0 1 hp=- shields=d1,d5"), "d1d5");
    assert_eq!(g.fen(), "8/8/3k4/3p4/8/8/8/3RK3 b - - 0 1 hp=d1:3,d5:1 shields=d1,d5");
    // An attacker killed by counter-attacks does not land.
    let g = game("chessception", Some("8/8/3k4/3p4/8/8/8/3RK3 w - - 0 1 hp=d1:1 shields=d5"), "d1d5");
    assert_eq!(g.fen(), "8/8/3k4/3p4/8/8/8/4K3 b - - 0 1 hp=d5:1 shields=d5");
}

#[test]
fn chessception_rule_1_area_kills_decide_the_landing() {
    // One area kill only: the bishop lands on it.
    let g = game("chessception", Some("4k3/8/3p4/4n3/8/8/1B6/4K3 w - - 0 1 hp=d6:1 shields=-"), "b2e5");
    assert_eq!(g.fen(), "4k3/8/3B4/4n3/8/8/8/4K3 b - - 0 1 hp=e5:2 shields=-");
    // Two kill squares: the player chooses, and the action says where.
    let g = game("chessception", Some("4k3/8/3p1p2/4n3/8/8/1B6/4K3 w - - 0 1 hp=d6:1,f6:1 shields=-"), "");
    assert_eq!(from(g.as_ref(), "b2e5"), list(&["b2e5/d6", "b2e5/f6"]));
    let g = game("chessception", Some("4k3/8/3p1p2/4n3/8/8/1B6/4K3 w - - 0 1 hp=d6:1,f6:1 shields=-"), "b2e5/f6");
    assert_eq!(g.fen(), "4k3/8/5B2/4n3/8/8/8/4K3 b - - 0 1 hp=e5:2 shields=-");
    // Area damage spares the attacker's own pieces.
    let g = game("chessception", Some("4k3/8/3P4/4n3/8/8/1B6/4K3 w - - 0 1 hp=d6:1 shields=-"), "b2e5");
    assert!(g.fen().contains("3P4") && g.fen().contains("hp=e5:2,d6:1"), "{}", g.fen());
}

#[test]
fn chessception_rule_1_en_passant_damages_the_passed_pawn() {
    let g = game("chessception", Some("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1 hp=- shields=-"), "e5d6");
    assert_eq!(g.fen(), "4k3/8/3P4/8/8/8/8/4K3 b - - 0 1 hp=- shields=-");
}

#[test]
fn chessception_rule_1_a_king_at_zero_hp_loses_also_by_its_own_attack() {
    // White's king (1 HP) attacks a pawn that survives the halved blow and strikes back.
    let g = game("chessception", Some("8/8/8/3k4/3p4/3K4/8/8 w - - 0 1 hp=d3:1 shields=d4"), "d3d4");
    assert_eq!(end(g.as_ref()), ("variant_end", Some("black"), Some("king-killed")));
    let g = game("chessception", Some("R3k3/8/8/8/8/8/8/4K3 w - - 0 1 hp=e8:1 shields=-"), "a8e8");
    assert_eq!(end(g.as_ref()), ("variant_end", Some("white"), Some("king-killed")));
}

#[test]
fn chessception_rule_2_the_queens_cone() {
    // Straight: the square beyond the target and its two side neighbours. Four kills: the
    // queen's player chooses where it lands.
    let fen = "4k3/8/2ppp3/3n4/8/8/8/3QK3 w - - 0 1 hp=- shields=d1";
    let g = game("chessception", Some(fen), "");
    assert_eq!(from(g.as_ref(), "d1d5"), list(&["d1d5/c6", "d1d5/d5", "d1d5/d6", "d1d5/e6"]));
    let mut g = game("chessception", Some(fen), "");
    let err = g.play("d1d5").expect_err("a landing is needed");
    assert!(
        err.message().contains("says where the attacker lands: d1d5/c6, d1d5/d5, d1d5/d6, d1d5/e6 (rule 1)"),
        "{err}"
    );
    g.play("d1d5/d6").expect("lands on d6");
    let damage = snap(g.as_ref()).state.damage.expect("damage");
    let mut squares: Vec<(&str, u8)> = damage.iter().map(|d| (d.square.as_str(), d.amount)).collect();
    squares.sort();
    assert_eq!(squares, vec![("c6", 2), ("d5", 4), ("d6", 2), ("e6", 2)]);
    assert!(g.fen().starts_with("4k3/8/3Q4/8/"), "{}", g.fen());
    // Diagonal: the diagonal square beyond and the two orthogonal ones (e4 is empty).
    let g = game("chessception", Some("6k1/8/8/3pp3/3n4/8/1Q6/4K3 w - - 0 1 hp=- shields=-"), "b2d4/d4");
    let damage = snap(g.as_ref()).state.damage.expect("damage");
    let mut squares: Vec<&str> = damage.iter().map(|d| d.square.as_str()).collect();
    squares.sort();
    assert_eq!(squares, vec!["d4", "d5", "e5"]);
}

#[test]
fn chessception_rule_3_knight_stacks_and_shields() {
    // A rook next to a friendly knight attacks with one stack: 2 x 2 = 4 kills a knight.
    let g = game("chessception", Some("4k3/8/8/3n4/8/8/2N5/3R3K w - - 0 1 hp=- shields=-"), "d1d5");
    assert!(g.fen().starts_with("4k3/8/8/3R4/"), "{}", g.fen());
    // A knight counts itself: 4 damage, halved by the target's shield to 2.
    let g = game("chessception", Some("8/8/3k4/3p4/8/4N3/8/4K3 w - - 0 1 hp=- shields=d5"), "e3d5");
    assert!(
        g.fen().contains("hp=-") && g.fen().starts_with("8/8/3k4/3N4"),
        "a shielded pawn (2 HP) still dies to 2: {}",
        g.fen()
    );
    let g = game("chessception", Some("8/8/3k4/2rn4/8/4N3/8/4K3 w - - 0 1 hp=- shields=c5,d5"), "e3d5");
    assert!(g.fen().contains("d5:2"), "4 halved to 2 on the shielded knight: {}", g.fen());
}

#[test]
fn chessception_rule_4_shields_are_kept_one_ply_after_the_king_leaves() {
    let g = game("chessception", Some("4k3/8/8/8/8/8/3P4/4K3 w - - 0 1 hp=- shields=d2"), "e1f1");
    assert!(g.fen().ends_with("shields=d2"), "kept: it did not move and stood by its king: {}", g.fen());
    let g = game("chessception", Some("4k3/8/8/8/8/8/3P4/4K3 w - - 0 1 hp=- shields=d2"), "e1f1 e8e7");
    assert!(g.fen().ends_with("shields=-"), "lost after a second ply away: {}", g.fen());
    let g = game("chessception", Some("4k3/8/8/8/8/8/3P4/4K3 w - - 0 1 hp=- shields=-"), "e1e2");
    assert!(g.fen().ends_with("shields=d2"), "a piece next to its king is shielded: {}", g.fen());
    let g = game("chessception", Some("4k3/8/8/8/8/8/3P4/4K3 w - - 0 1 hp=- shields=d2"), "d2d3");
    assert!(g.fen().ends_with("shields=-"), "a shielded piece that moves away loses it: {}", g.fen());
}

#[test]
fn chessception_rule_5_promotion_to_what_is_missing() {
    let g = game("chessception", Some("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1 hp=- shields=-"), "");
    assert_eq!(from(g.as_ref(), "b7"), list(&["b7b8b", "b7b8n", "b7b8q", "b7b8r"]));
    let full = "4k3/1P6/8/8/8/8/8/RNBQKBNR w - - 0 1 hp=- shields=d1,f1";
    let g = game("chessception", Some(full), "");
    assert_eq!(from(g.as_ref(), "b7"), list(&["b7b8q"]), "nothing missing: a queen");
    let one_knight = "4k3/1P6/8/8/8/8/8/R1BQKBNR w - - 0 1 hp=- shields=d1,f1";
    let g = game("chessception", Some(one_knight), "");
    assert_eq!(from(g.as_ref(), "b7"), list(&["b7b8n"]));
    // A pawn attack that does not kill leaves the pawn where it is: no promotion, no letter.
    let g = game("chessception", Some("2r1k3/1P6/8/8/8/8/8/4K3 w - - 0 1 hp=- shields=-"), "");
    assert_eq!(from(g.as_ref(), "b7c8"), list(&["b7c8"]));
}

#[test]
fn chessception_rule_6_castling_after_no_move_or_attack_through_attacked_squares() {
    let g = game("chessception", Some("4k3/8/8/8/8/8/5r2/4K2R w K - 0 1 hp=- shields=-"), "");
    assert!(has(g.as_ref(), "e1g1"), "the crossed square may be attacked");
    let g = game("chessception", Some("4k3/8/8/8/8/8/4r3/4K2R w K - 0 1 hp=- shields=-"), "");
    assert!(!has(g.as_ref(), "e1g1"), "not while the king is attacked");
    // An attack from h1 that kills nothing counts as a move of the rook.
    let g = game("chessception", Some("4k2n/8/8/8/8/8/8/4K2R w K - 0 1 hp=- shields=-"), "h1h8");
    assert!(g.fen().contains(" - - "), "{}", g.fen());
}

#[test]
fn chessception_rule_7_draws() {
    let g = game("chessception", Some("4k3/8/8/8/8/8/8/4K3 w - - 0 1 hp=- shields=-"), "");
    assert_eq!(end(g.as_ref()), ("draw", None, Some("kings-only")));
    let g = game("chessception", Some("4k3/p7/8/8/8/8/8/4K3 w - - 0 76 hp=- shields=-"), "");
    assert_eq!(end(g.as_ref()), ("draw", None, Some("ply-limit")));
    let g = game("chessception", Some("4k3/p7/8/8/8/8/8/4K3 w - - 0 75 hp=- shields=-"), "e1d1");
    assert_eq!(end(g.as_ref()).0, "ongoing");
    let g = game("chessception", Some("4k3/p7/8/8/8/8/8/4K3 w - - 99 40 hp=- shields=-"), "e1d1");
    assert_eq!(end(g.as_ref()), ("draw", None, Some("no-progress")));
    let g = game(
        "chessception",
        Some("4k3/pppppppp/8/8/8/8/8/4K3 w - - 0 1 hp=- shields=d7,e7,f7"),
        "e1f1 a7a6 f1e1 b7b6 e1f1 c7c6 f1e1 g7g6",
    );
    assert_eq!(end(g.as_ref()).0, "ongoing");
    let g = game(
        "chessception",
        Some("4k3/pppppppp/8/8/8/8/8/4K3 w - - 0 1 hp=- shields=d7,e7,f7"),
        "e1f1 a7a6 f1e1 b7b6 e1f1 c7c6 f1e1 g7g6 e1f1",
    );
    assert_eq!(end(g.as_ref()), ("draw", None, Some("king-repeat")));
    let g = game(
        "chessception",
        Some("4k3/8/8/8/8/8/8/4K2R w - - 0 1 hp=- shields=-"),
        "h1h2 e8e7 h2h1 e7e8 h1h2 e8e7 h2h1 e7e8",
    );
    assert_eq!(end(g.as_ref()), ("draw", None, Some("repetition")));
}

#[test]
fn chessception_rule_1_a_fallen_enemy_king_still_lets_the_pawns_strike_back() {
    // The queen (1 HP) kills Black's king (2 HP, halved damage 2); its cone hits the shielded
    // pawn on e6 for 1. White has won, but the attack resolves whole: the pawn survives and
    // strikes back for 2, the queen falls and does not land.
    let g = game("chessception", Some("8/8/4p3/4k3/8/8/8/K3Q3 w - - 0 1 hp=e5:2,e1:1 shields=e6"), "e1e5");
    assert_eq!(end(g.as_ref()), ("variant_end", Some("white"), Some("king-killed")));
    assert_eq!(g.fen(), "8/8/4p3/8/8/8/8/K7 b - - 0 1 hp=e6:1 shields=e6");
    let damage = snap(g.as_ref()).state.damage.expect("damage");
    let dealt: Vec<(&str, u8)> = damage.iter().map(|d| (d.square.as_str(), d.amount)).collect();
    assert_eq!(dealt, vec![("e5", 2), ("e6", 1), ("e1", 1)]);
    // With 2 HP the queen survives the counter-attack and lands on the king's square.
    let g = game("chessception", Some("8/8/4p3/4k3/8/8/8/K3Q3 w - - 0 1 hp=e5:2,e1:3 shields=e6"), "e1e5");
    assert_eq!(end(g.as_ref()), ("variant_end", Some("white"), Some("king-killed")));
    assert_eq!(g.fen(), "8/8/4p3/4Q3/8/8/8/K7 b - - 0 1 hp=e5:1,e6:1 shields=e6");
}

#[test]
fn chessception_rule_1_an_attacker_the_pawns_kill_has_no_landing_choice() {
    // The queen on c8 (2 HP) attacks d7: the pawn there and the king on e7 (1 HP, in the cone)
    // fall, which would be two kill squares, but the shielded e6 pawn, also in the cone,
    // survives with 1 HP and strikes back for 2: the queen falls, does not land, and the
    // attack has one form only.
    let moves = "b2b3 g7g5 c2c4 c7c5 e2e4 a7a5 h2h4 g5h4 h1h4 h7h5 h4h5 h8h5 d1h5 b8a6 f2f3 a5a4 b3a4 e7e6 \
                 h5f7 e8f7 f7g8 e8e7 g8f8 a8a7 g8f8 d8b6 f8c8/c8 b6b1";
    let g = game("chessception", None, moves);
    assert_eq!(g.perft(1), 31);
    assert_eq!(from(g.as_ref(), "c8d7"), list(&["c8d7"]));
    let mut won = g.clone();
    assert_eq!(won.play("c8d7").as_deref(), Ok("c8d7"));
    assert_eq!(end(won.as_ref()), ("variant_end", Some("white"), Some("king-killed")));
    assert_eq!(won.fen(), "8/r7/n3p3/2p5/P1P1P3/5P2/P2P2P1/RqB1KBN1 b Q - 0 15 hp=e6:1 shields=f1,d2,e6");
    for landing in ["c8d7/d7", "c8d7/e7"] {
        let err = g.clone().play(landing).expect_err(landing);
        assert!(err.message().contains("landing square is written only when"), "{landing}: {err}");
    }
}

#[test]
fn decision_chessception_king_repeat_counts_from_a_loaded_position() {
    // The trackers start afresh from a loaded position text, like repetition.
    let fen = "4k3/pppppppp/8/8/8/8/8/4K3 w - - 0 1 hp=- shields=d7,e7,f7";
    let g = game("chessception", Some(fen), "e1f1 a7a6 f1e1 b7b6 e1f1 c7c6 f1e1 g7g6");
    let resumed = game("chessception", Some(&g.fen()), "e1f1");
    assert_eq!(end(resumed.as_ref()).0, "ongoing");
}
