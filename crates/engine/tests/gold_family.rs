//! The Chess Gold family by the rule book's numbered rules: one or more tests per rule of
//! `gold`, `sandbox`, `conqueror` and `conqueror-gold`, each asserting exact gold, exact
//! legal actions or counts, and the exact end status. Test names carry the mode and rule number.

#![expect(clippy::expect_used, reason = "test helpers fail loudly on broken fixtures")]

#[path = "common/play.rs"]
mod play;

use chessgold_engine::AnyGame;
use chessgold_engine::registry::variant;
use play::{game, has, snap};

const GOLD_START: &str = "4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3";
/// Black's king on a1 is boxed in by White's king and bishop; N@b3 mates (a knight's check
/// cannot be blocked by a placement).
const KNIGHT_MATE: &str = "8/8/8/8/8/8/2K5/kB6 w - - 0 1 gold=3/3";

/// Gold of (white, black) as the rule book writes it.
fn gold(g: &dyn AnyGame) -> (String, String) {
    let s = snap(g);
    let gold = s.state.gold.expect("gold variant");
    (gold.white.to_text(), gold.black.to_text())
}

fn end(g: &dyn AnyGame) -> (&'static str, Option<&'static str>, Option<&'static str>) {
    let s = snap(g);
    (s.status, s.winner, s.reason)
}

fn refused(g: &mut Box<dyn AnyGame>, action: &str, fragment: &str) {
    let before = g.fen();
    let err = g.play(action).expect_err(action);
    assert!(err.message().contains(fragment), "{action}: {err}");
    assert_eq!(g.fen(), before, "a refused action changes nothing");
}

fn gold_text(g: &dyn AnyGame) -> String {
    serde_json::to_string(&snap(g).state.gold).expect("json")
}

// ---------------------------------------------------------------- gold

#[test]
fn gold_rule_1_lone_kings_and_three_gold_in_half_units() {
    let g = game("gold", None, "");
    assert_eq!(g.fen(), GOLD_START);
    let s = snap(g.as_ref());
    assert_eq!(s.pieces.len(), 2);
    assert_eq!(gold(g.as_ref()), ("4".into(), "3".into()));
    // Half units print with one .5 and serialise as numbers.
    let g = game("gold", None, "e1e2 e8e7 e2e1 e7d6 e1e2 d6c5 P@d3 c5d4 e2e1 d4d3");
    assert_eq!(gold(g.as_ref()), ("8".into(), "8.5".into()));
    assert_eq!(gold_text(g.as_ref()), r#"{"white":8,"black":8.5}"#);
}

#[test]
fn gold_rule_2_income_at_the_start_of_every_turn_including_the_first() {
    let g = game("gold", None, "");
    assert_eq!(gold(g.as_ref()), ("4".into(), "3".into()), "White has 4 gold to spend on move 1");
    let g = game("gold", None, "N@c3");
    assert_eq!(gold(g.as_ref()), ("1".into(), "4".into()), "Black has 4 on its first turn");
    let g = game("gold", None, "N@c3 N@f6 e1e2");
    assert_eq!(gold(g.as_ref()), ("2".into(), "2".into()));
    // A finished game still shows the loser's income for the turn it cannot play.
    let g = game("gold", Some(KNIGHT_MATE), "N@b3");
    assert_eq!(end(g.as_ref()), ("checkmate", Some("white"), Some("checkmate")));
    assert_eq!(gold(g.as_ref()), ("0".into(), "4".into()));
}

#[test]
fn gold_rule_3_the_shop_prices_and_zones() {
    let g = game("gold", None, "");
    let legal = g.legal_actions();
    assert_eq!(legal.len(), 67, "16 pawn squares + 23 knight + 23 bishop + 5 king moves");
    assert_eq!(legal.iter().filter(|a| a.starts_with("P@")).count(), 16);
    assert!(!has(g.as_ref(), "P@a1") && !has(g.as_ref(), "N@a4") && !has(g.as_ref(), "R@a1"));
    let s = snap(g.as_ref());
    let shop: Vec<(char, String, bool)> =
        s.state.shop.expect("shop").iter().map(|i| (i.piece, i.cost.to_text(), i.affordable)).collect();
    assert_eq!(
        shop,
        vec![
            ('P', "1".into(), true),
            ('N', "3".into(), true),
            ('B', "3".into(), true),
            ('R', "5".into(), false),
            ('Q', "8".into(), false)
        ]
    );
    // Black's zone: ranks 8-6, pawns 7-6.
    let g = game("gold", None, "e1e2");
    let legal = g.legal_actions();
    assert!(has(g.as_ref(), "N@a8") && has(g.as_ref(), "P@h6") && !has(g.as_ref(), "P@a8"));
    assert!(!legal.iter().any(|a| a.ends_with('5') && a.contains('@')));
    let mut g = game("gold", None, "");
    refused(&mut g, "N@c4", "white places pieces on ranks 1-3");
    refused(&mut g, "P@c1", "white places pawns on ranks 2-3");
    refused(&mut g, "R@c1", "not enough gold: a rook costs 5 and white has 4");
    refused(&mut g, "K@c1", "a king cannot be placed");
    refused(&mut g, "N@e1", "e1 is occupied");
}

#[test]
fn gold_rule_3_buying_a_queen_after_saving_up() {
    let mut g = game("gold", None, "e1e2 e8e7 e2e1 e7e8 e1e2 e8e7 e2e1 e7e8");
    assert_eq!(gold(g.as_ref()), ("8".into(), "7".into()));
    assert!(has(g.as_ref(), "Q@d1"));
    g.play("Q@d1").expect("affordable");
    assert_eq!(gold(g.as_ref()), ("0".into(), "8".into()));
    let g = game("gold", None, "e1e2 e8e7 e2e1 e7e8 e1e2 e8e7");
    assert_eq!(gold(g.as_ref()), ("7".into(), "6".into()));
    assert!(!has(g.as_ref(), "Q@d1"));
}

#[test]
fn gold_rule_4_placement_blocks_check_and_may_not_leave_the_king_in_check() {
    // The black rook on e5 checks the king on e1: placements must block on e2 or e3.
    let mut g = game("gold", Some("4k3/8/8/4r3/8/8/8/4K3 w - - 0 1 gold=4/3"), "");
    let placements: Vec<String> = g.legal_actions().into_iter().filter(|a| a.contains('@')).collect();
    assert_eq!(placements, vec!["B@e2", "B@e3", "N@e2", "N@e3", "P@e2", "P@e3"]);
    refused(&mut g, "N@c3", "white is in check and a piece on c3 does not block it");
    // A knight's check cannot be blocked: no placement at all.
    let g = game("gold", Some("4k3/8/8/8/8/3n4/8/4K3 w - - 0 1 gold=4/3"), "");
    assert!(g.legal_actions().iter().all(|a| !a.contains('@')), "{:?}", g.legal_actions());
    // Double check: only the king moves.
    let g = game("gold", Some("4k3/8/8/4r3/8/3n4/8/4K3 w - - 0 1 gold=8/3"), "");
    assert!(g.legal_actions().iter().all(|a| a.starts_with("e1")), "{:?}", g.legal_actions());
}

#[test]
fn gold_rule_4_placement_gives_check_and_mate() {
    let g = game("gold", Some("4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=8/3"), "R@e3");
    assert!(snap(g.as_ref()).check);
    assert_eq!(end(g.as_ref()).0, "ongoing");
    // A check along the a-file can be blocked by a placement in Black's zone: not mate.
    let g = game("gold", Some("k7/2K5/8/8/8/8/8/8 w - - 0 1 gold=5/3"), "R@a1");
    assert_eq!(end(g.as_ref()), ("ongoing", None, None));
    assert!(has(g.as_ref(), "P@a7") && has(g.as_ref(), "N@a6"));
    let g = game("gold", Some(KNIGHT_MATE), "N@b3");
    assert_eq!(end(g.as_ref()), ("checkmate", Some("white"), Some("checkmate")));
    assert!(g.legal_actions().is_empty());
}

#[test]
fn gold_rule_5_every_pawn_on_its_second_rank_double_steps_and_can_be_taken_en_passant() {
    let g = game("gold", None, "P@d2");
    assert_eq!(gold(g.as_ref()), ("3".into(), "4".into()));
    let mut g = game("gold", Some("4k3/8/8/8/4p3/8/8/4K3 w - - 0 1 gold=4/3"), "P@d2 e8d8");
    assert!(has(g.as_ref(), "d2d4") && has(g.as_ref(), "d2d3"));
    g.play("d2d4").expect("double step");
    assert!(g.fen().contains(" d3 "), "en passant square recorded: {}", g.fen());
    g.play("e4d3").expect("en passant capture of the placed pawn");
    assert_eq!(g.fen(), "3k4/8/8/8/8/3p4/8/4K3 w - - 0 3 gold=5/5.5");
    // A placed pawn on the third rank steps once.
    let g = game("gold", None, "P@d3 e8d8");
    assert!(has(g.as_ref(), "d3d4") && !has(g.as_ref(), "d3d5"));
}

#[test]
fn gold_rule_6_promotion_with_gold_at_once_or_waiting() {
    let mut g = game("gold", Some("7k/3P4/8/8/8/8/8/4K3 w - - 0 1 gold=3/3"), "");
    let promos: Vec<String> = g.legal_actions().into_iter().filter(|a| a.starts_with("d7d8")).collect();
    assert_eq!(promos, vec!["d7d8", "d7d8b", "d7d8n", "d7d8q", "d7d8r"]);
    g.play("d7d8q").expect("promote for 1 gold");
    assert_eq!(gold(g.as_ref()), ("2".into(), "4".into()));
    assert!(snap(g.as_ref()).check);
}

#[test]
fn gold_rule_6_pawn_reaching_the_last_rank_without_gold_must_wait() {
    // Half a gold: not enough for the fee.
    let g = game("gold", Some("7k/3P4/8/8/8/8/8/4K3 w - - 0 1 gold=0.5/3"), "");
    let promos: Vec<String> = g.legal_actions().into_iter().filter(|a| a.starts_with("d7")).collect();
    assert_eq!(promos, vec!["d7d8"]);
    // Capture income of the same move is credited before the fee: 0.5 + 1.5 for a bishop.
    let mut g = game("gold", Some("2b4k/3P4/8/8/8/8/8/4K3 w - - 0 1 gold=0.5/3"), "");
    assert!(has(g.as_ref(), "d7c8q"));
    assert!(!has(g.as_ref(), "d7d8q"));
    g.play("d7c8n").expect("capture-promotion paid by the capture");
    assert_eq!(gold(g.as_ref()), ("1".into(), "4".into()));
}

#[test]
fn gold_rule_6_the_waiting_pawn_is_promoted_on_a_later_turn() {
    let mut g = game("gold", Some("7k/3P4/8/8/8/8/8/4K3 w - - 0 1 gold=3/3"), "d7d8 h8h7");
    let s = snap(g.as_ref());
    assert_eq!(s.state.waiting_pawns, Some(vec!["d8".to_string()]));
    // The waiting pawn cannot move; it can be promoted in place for 1 gold.
    assert!(!g.legal_actions().iter().any(|a| a.starts_with("d8") && !a.contains('=')));
    let in_place: Vec<String> = g.legal_actions().into_iter().filter(|a| a.contains('=')).collect();
    assert_eq!(in_place, vec!["d8=B", "d8=N", "d8=Q", "d8=R"]);
    assert_eq!(gold(g.as_ref()), ("4".into(), "4".into()));
    refused(&mut g, "d8=K", "a pawn is promoted to N, B, R or Q");
    refused(&mut g, "e1=Q", "only a pawn waiting on the last rank");
    g.play("d8=Q").expect("promotion in place");
    assert_eq!(gold(g.as_ref()), ("3".into(), "5".into()));
    assert_eq!(g.fen(), "3Q4/7k/8/8/8/8/8/4K3 b - - 0 2 gold=3/5");
    // A waiting pawn can be captured.
    let g = game("gold", Some("7k/3P4/8/8/8/8/8/4K3 w - - 0 1 gold=3/10"), "d7d8 R@d7 e1e2");
    assert!(has(g.as_ref(), "d7d8"));
    // In check, promoting in place does not answer the check.
    let mut g = game("gold", Some("3P3k/8/8/8/8/8/8/r3K3 w - - 0 1 gold=3/3"), "");
    assert!(!g.legal_actions().iter().any(|a| a.contains('=')));
    refused(&mut g, "d8=Q", "white is in check, and promoting in place does not end it");
}

#[test]
fn gold_rule_7_capture_income_by_the_captured_type() {
    for (victim, income) in [('p', "0.5"), ('n', "1.5"), ('b', "1.5"), ('r', "2.5"), ('q', "4")] {
        let fen = format!("7k/8/8/3{victim}4/8/8/8/3RK3 w - - 0 1 gold=0/3");
        let g = game("gold", Some(&fen), "d1d5");
        assert_eq!(gold(g.as_ref()).0, income, "capturing {victim}");
    }
    // A promoted piece is captured at its new type.
    let g = game("gold", Some("3P3k/8/8/8/8/8/3r4/4K3 w - - 0 1 gold=3/3"), "d8=Q d2d8");
    assert_eq!(gold(g.as_ref()), ("3".into(), "8".into()));
}

#[test]
fn gold_rule_8_no_castling() {
    let g = game("gold", Some("4k3/8/8/8/8/8/8/R3K2R w - - 0 1 gold=4/3"), "");
    assert!(!has(g.as_ref(), "e1g1") && !has(g.as_ref(), "e1c1"));
    let err = variant("gold")
        .expect("gold")
        .game_from_fen("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1 gold=4/3")
        .expect_err("no rights");
    assert!(err.to_string().contains("Chess Gold has no castling"), "{err}");
}

#[test]
fn gold_rule_9_checkmate_stalemate_and_no_insufficient_material() {
    let g = game("gold", Some(KNIGHT_MATE), "N@b3");
    assert_eq!(end(g.as_ref()), ("checkmate", Some("white"), Some("checkmate")));
    // Stalemate: Black's king has no square and Black has no gold to place anything (a
    // position text can say so, though in play the side to move always has its income).
    let g = game("gold", Some("k7/8/1Q6/8/8/8/8/K7 b - - 0 1 gold=0/0"), "");
    assert_eq!(end(g.as_ref()), ("stalemate", None, Some("stalemate")));
    // With one gold Black can place a pawn instead: not stalemate.
    let g = game("gold", Some("k7/8/1Q6/8/8/8/8/K7 b - - 0 1 gold=0/1"), "");
    assert_eq!(end(g.as_ref()), ("ongoing", None, None));
    assert_eq!(g.legal_actions().len(), 15, "a pawn on any of ranks 7-6 but b6");
    // A bare king is not a draw: it can buy pieces.
    let g = game("gold", None, "");
    assert_eq!(end(g.as_ref()), ("ongoing", None, None));
}

#[test]
fn gold_rule_9_shuffling_kings_ends_by_the_100_ply_rule_not_repetition() {
    let mut g = game("gold", None, "");
    let cycle = ["e1e2", "e8e7", "e2e1", "e7e8"];
    for ply in 0..100 {
        assert_eq!(end(g.as_ref()).0, "ongoing", "ply {ply}: gold rises, so no repetition");
        g.play(cycle[ply % 4]).expect("shuffle");
    }
    assert_eq!(end(g.as_ref()), ("draw", None, Some("no-progress")));
    assert_eq!(gold(g.as_ref()), ("54".into(), "53".into()));
    // A placement resets the count.
    let g = game("gold", Some("4k3/8/8/8/8/8/8/4K3 w - - 99 60 gold=4/3"), "P@a2");
    assert_eq!(end(g.as_ref()).0, "ongoing");
    assert!(g.fen().contains(" 0 60 "), "{}", g.fen());
}

// ---------------------------------------------------------------- sandbox

#[test]
fn sandbox_rule_1_kings_alone_and_no_economy() {
    let g = game("sandbox", None, "");
    assert_eq!(g.fen(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    let s = snap(g.as_ref());
    assert!(s.state.gold.is_none() && !s.economy);
}

#[test]
fn sandbox_rule_2_free_placement_anywhere_pawns_on_ranks_2_to_7() {
    let g = game("sandbox", None, "");
    let legal = g.legal_actions();
    assert_eq!(legal.len(), 4 * 62 + 48 + 5);
    assert!(has(g.as_ref(), "Q@d8") && has(g.as_ref(), "P@d7") && !has(g.as_ref(), "P@d8") && !has(g.as_ref(), "P@d1"));
    // Check and mate by placement; a placement must not leave one's own king in check.
    let g = game("sandbox", Some("k7/8/1K6/8/8/8/8/8 w - - 0 1"), "Q@a7");
    assert_eq!(end(g.as_ref()), ("checkmate", Some("white"), Some("checkmate")), "b6 protects a7");
    let g = game("sandbox", Some("k7/8/1K6/8/8/8/8/8 w - - 0 1"), "Q@b7");
    assert_eq!(end(g.as_ref()), ("checkmate", Some("white"), Some("checkmate")));
    let g = game("sandbox", Some("4k3/8/8/8/8/8/8/r3K3 w - - 0 1"), "");
    let placements: Vec<String> = g.legal_actions().into_iter().filter(|a| a.contains('@')).collect();
    assert_eq!(placements.len(), 3 * 4, "b1 c1 d1 for N B R Q, pawns never on rank 1: {placements:?}");
}

#[test]
fn sandbox_rule_3_at_most_fifteen_pieces_besides_the_king() {
    let full = "4k3/8/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1";
    let mut g = game("sandbox", Some(full), "");
    assert!(!g.legal_actions().iter().any(|a| a.contains('@')));
    refused(&mut g, "Q@d4", "already has 15 pieces besides the king");
    let s = snap(g.as_ref());
    assert_eq!(s.state.piece_cap, Some(15));
    assert_eq!(s.state.piece_count.map(|c| (c.white, c.black)), Some((15, 0)));
    // A captured piece frees a place.
    let g = game("sandbox", Some("4k3/8/8/8/8/8/PPPPPPPP/RNBQKBNR b - - 0 1"), "Q@h3 g2h3 e8d8");
    assert!(!has(g.as_ref(), "N@d4"), "after its own capture White is still at 15");
    let g = game("sandbox", Some("4k3/8/8/8/8/q7/PPPPPPPP/RNBQKBNR b - - 0 1"), "a3a2");
    assert!(has(g.as_ref(), "N@d4"), "losing a piece frees a place");
    let over = variant("sandbox").expect("sandbox").game_from_fen("4k3/8/8/8/7P/8/PPPPPPPP/RNBQKBNR w - - 0 1");
    assert!(over.expect_err("16 pieces").to_string().contains("at most 15"));
}

#[test]
fn sandbox_rule_3_free_fide_promotion_and_double_step_from_the_own_second_rank() {
    let g = game("sandbox", Some("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"), "");
    let promos: Vec<String> = g.legal_actions().into_iter().filter(|a| a.starts_with("b7")).collect();
    assert_eq!(promos, vec!["b7b8b", "b7b8n", "b7b8q", "b7b8r"]);
    // White pawn placed on d2 double-steps; a black pawn placed on d2 steps to d1 and promotes.
    let g = game("sandbox", None, "P@d2 e8e7");
    assert!(has(g.as_ref(), "d2d4"));
    let g = game("sandbox", None, "e1f1 P@d2 f1g1");
    let black: Vec<String> = g.legal_actions().into_iter().filter(|a| a.starts_with("d2")).collect();
    assert_eq!(black, vec!["d2d1b", "d2d1n", "d2d1q", "d2d1r"]);
}

#[test]
fn sandbox_rule_4_mate_wins_and_kings_alone_are_no_draw() {
    let g = game("sandbox", None, "");
    assert_eq!(end(g.as_ref()), ("ongoing", None, None));
    let g = game("sandbox", None, "e1e2 e8e7 e2e1 e7e8 e1e2 e8e7 e2e1 e7e8");
    assert_eq!(end(g.as_ref()), ("draw", None, Some("repetition")));
    let g = game("sandbox", Some("4k3/8/8/8/8/8/8/4K3 w - - 99 70"), "e1e2");
    assert_eq!(end(g.as_ref()), ("draw", None, Some("no-progress")));
    let g = game("sandbox", Some("4k3/8/8/8/8/8/8/4K3 w - - 99 70"), "N@a1");
    assert_eq!(end(g.as_ref()), ("ongoing", None, None));
    let g = game("sandbox", Some("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), "");
    assert_eq!(end(g.as_ref()).0, "ongoing", "Black can place a piece: not stalemate");
}

// ---------------------------------------------------------------- conqueror

#[test]
fn conqueror_rule_1_captures_convert_every_piece_type() {
    for (victim, converted) in [('p', 'P'), ('n', 'N'), ('b', 'B'), ('r', 'R'), ('q', 'Q')] {
        let fen = format!("4k3/7p/8/3{victim}4/8/8/8/3RK3 w - - 0 1");
        let g = game("conqueror", Some(&fen), "d1d5");
        assert_eq!(g.fen(), format!("4k3/7p/8/3R4/8/8/8/3{converted}K3 b - - 0 1"));
    }
    let g = game("conqueror", None, "e2e4 d7d5 e4d5");
    assert_eq!(g.fen(), "rnbqkbnr/ppp1pppp/8/3P4/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2");
}

#[test]
fn conqueror_rule_1_en_passant_converts_onto_the_capturers_origin() {
    let g = game("conqueror", None, "e2e4 a7a6 e4e5 d7d5 e5d6");
    assert_eq!(g.fen(), "rnbqkbnr/1pp1pppp/p2P4/4P3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3");
}

#[test]
fn conqueror_rule_2_legality_after_the_conversion() {
    let g = game("conqueror", Some("4r1k1/8/3p4/8/4N3/8/8/4K3 w - - 0 1"), "");
    assert!(has(g.as_ref(), "e4d6"), "the converted pawn lands on e4 and blocks the e-file");
    let g = game("conqueror", Some("4k3/8/8/8/8/8/8/r3Kb2 w - - 0 1"), "");
    assert!(has(g.as_ref(), "e1f1"), "the converted bishop on e1 shields f1");
    let g = game("conqueror", Some("7k/2p5/8/KP5r/8/8/8/8 b - - 0 1"), "c7c5");
    assert!(has(g.as_ref(), "b5c6"), "the converted pawn on b5 keeps blocking the rank");
    assert!(g.fen().contains(" c6 "), "the en passant square is kept: {}", g.fen());
}

#[test]
fn conqueror_rule_3_kings_are_never_captured() {
    let g = game("conqueror", Some("4k3/7p/8/8/8/8/4q3/4K3 w - - 0 1"), "e1e2");
    assert_eq!(g.fen(), "4k3/7p/8/8/8/8/4K3/4Q3 b - - 0 1");
    assert!(g.legal_actions().iter().all(|a| !a.ends_with("e2")), "nothing takes a king");
}

#[test]
fn conqueror_rule_4_converted_pawns_belong_to_their_new_owner() {
    // A white rook on d1 takes a black pawn: the pawn becomes White's, on d1, its first rank,
    // and moves one square at a time.
    let g = game("conqueror", Some("4k3/7p/8/3p4/8/8/8/3RK3 w - - 0 1"), "d1d5 e8e7");
    assert!(has(g.as_ref(), "d1d2") && !has(g.as_ref(), "d1d3"));
    // From its second rank it may double-step.
    let g = game("conqueror", Some("4k3/7p/8/3p4/8/8/8/3RK3 w - - 0 1"), "d1d5 e8e7 d1d2 e7e8");
    assert!(has(g.as_ref(), "d2d4"));
    // The same for Black: a pawn converted onto rank 8, Black's first rank, steps down.
    let g = game("conqueror", Some("3rk3/8/8/8/8/8/3P3P/4K3 b - - 0 1"), "d8d2");
    assert_eq!(g.fen(), "3pk3/8/8/8/8/8/3r3P/4K3 w - - 0 2");
    // Landing on the new owner's last rank: a queen at once.
    let g = game("conqueror", Some("3R4/7p/7k/3p4/8/8/8/4K3 w - - 0 1"), "d8d5");
    assert_eq!(g.fen(), "3Q4/7p/7k/3R4/8/8/8/4K3 b - - 0 1");
    // Converted pieces carry no castling right: the rook converted onto a1 has none.
    let g = game("conqueror", Some("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"), "a1a8");
    assert_eq!(g.fen(), "R3k2r/8/8/8/8/8/8/R3K2R b Kk - 0 1");
}

#[test]
fn conqueror_rule_5_conversion_win_judged_first() {
    let g = game("conqueror", Some("4k3/8/8/3n4/8/8/8/3RK3 w - - 0 1"), "d1d5");
    assert_eq!(end(g.as_ref()), ("variant_end", Some("white"), Some("conversion")));
    assert!(g.legal_actions().is_empty());
    assert!(g.fen().ends_with(" ended=conversion"), "{}", g.fen());
    // Even where the opponent would be stalemated.
    let g = game("conqueror", Some("k7/8/1Q6/8/8/8/8/1r2K3 w - - 0 1"), "b6b1");
    assert_eq!(end(g.as_ref()), ("variant_end", Some("white"), Some("conversion")));
    // Not at the start of a position text without a conversion.
    let g = game("conqueror", Some("4k3/8/8/8/8/8/8/3RK3 b - - 0 1"), "");
    assert_eq!(end(g.as_ref()), ("ongoing", None, None));
}

#[test]
fn conqueror_rule_5_draws_repetition_and_no_progress_without_material_draw() {
    let g = game("conqueror", Some("4k3/8/2n5/4n3/8/5N2/8/4K3 w - - 0 1"), "f3e5 c6e5 f3e5 c6e5");
    assert_eq!(end(g.as_ref()), ("draw", None, Some("repetition")));
    let g = game("conqueror", Some("4k3/8/8/8/8/8/8/3NK3 w - - 99 80"), "d1c3");
    assert_eq!(end(g.as_ref()), ("draw", None, Some("no-progress")));
    let g = game("conqueror", Some("4k3/8/8/8/8/8/8/3NK3 w - - 0 80"), "");
    assert_eq!(end(g.as_ref()), ("ongoing", None, None), "no insufficient-material draw");
    let g = game("conqueror", Some("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), "");
    assert_eq!(end(g.as_ref()), ("stalemate", None, Some("stalemate")));
}

// ---------------------------------------------------------------- conqueror-gold

#[test]
fn conqueror_gold_rule_1_gold_economy_with_conversions() {
    let g = game("conqueror-gold", None, "");
    assert_eq!(g.fen(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3 placed=-");
    assert_eq!(g.legal_actions().len(), 67);
    // A conversion pays capture income.
    let g = game("conqueror-gold", Some("4k3/7p/8/3n4/8/8/8/3RK1Q1 w - - 0 1 gold=0/3 placed=-"), "d1d5");
    assert_eq!(g.fen(), "4k3/7p/8/3R4/8/8/8/3NK1Q1 b - - 0 1 gold=1.5/4 placed=-");
}

#[test]
fn conqueror_gold_rule_1_converted_pawn_on_the_last_rank_waits() {
    let fen = "3R4/7p/7k/3p4/8/8/8/4K3 w - - 0 1 gold=4/3 placed=-";
    let g = game("conqueror-gold", Some(fen), "d8d5");
    assert_eq!(g.fen(), "3P4/7p/7k/3R4/8/8/8/4K3 b - - 0 1 gold=4.5/4 placed=-");
    assert_eq!(snap(g.as_ref()).state.waiting_pawns, Some(vec!["d8".to_string()]));
    let g = game("conqueror-gold", Some(fen), "d8d5 h6g6");
    let in_place: Vec<String> = g.legal_actions().into_iter().filter(|a| a.contains('=')).collect();
    assert_eq!(in_place, vec!["d8=B", "d8=N", "d8=Q", "d8=R"]);
}

#[test]
fn conqueror_gold_rule_2_kings_never_converted() {
    let g = game("conqueror-gold", Some("4k3/8/8/8/8/8/3q4/4K3 w - - 0 1 gold=4/3 placed=-"), "e1d2");
    assert_eq!(g.fen(), "4k3/8/8/8/8/8/3K4/4Q3 b - - 0 1 gold=8/4 placed=- ended=conversion");
    assert_eq!(end(g.as_ref()), ("variant_end", Some("white"), Some("conversion")));
}

#[test]
fn conqueror_gold_rule_3_no_placement_two_turns_in_a_row() {
    let mut g = game("conqueror-gold", None, "N@c3 e8e7");
    assert_eq!(g.fen(), "8/4k3/8/8/8/2N5/8/4K3 w - - 1 2 gold=2/4 placed=w");
    assert!(!g.legal_actions().iter().any(|a| a.contains('@')));
    refused(&mut g, "P@a2", "placed a piece on the previous turn");
    let g = game("conqueror-gold", None, "N@c3 e8e7 e1e2 e7e8");
    assert!(has(g.as_ref(), "P@a2"), "a move in between lifts the ban");
    // Promoting a waiting pawn is not a placement.
    let g = game("conqueror-gold", Some("3P3k/8/8/8/8/8/8/4K3 w - - 0 1 gold=6/3 placed=-"), "N@c3 h8h7 d8=Q h7g7");
    assert!(has(g.as_ref(), "B@a1"), "after a promotion in place, placing is allowed again");
}

#[test]
fn conqueror_gold_rule_4_conversion_win_whatever_the_gold_and_none_at_the_start() {
    let g = game("conqueror-gold", Some("4k3/8/8/3n4/8/8/8/3RK3 w - - 0 1 gold=4/30 placed=-"), "d1d5");
    assert_eq!(end(g.as_ref()), ("variant_end", Some("white"), Some("conversion")));
    let g = game("conqueror-gold", None, "");
    assert_eq!(end(g.as_ref()), ("ongoing", None, None), "both sides bare at the start: no win");
}

#[test]
fn conqueror_gold_rule_4_repetition_key_includes_gold_and_bans() {
    let mut g = game("conqueror-gold", None, "");
    let cycle = ["e1e2", "e8e7", "e2e1", "e7e8"];
    for ply in 0..12 {
        g.play(cycle[ply % 4]).expect("shuffle");
    }
    assert_eq!(end(g.as_ref()), ("ongoing", None, None), "gold rises: no repetition");
    let g = game("conqueror-gold", Some("4k3/8/8/8/8/8/8/4K3 w - - 99 60 gold=4/3 placed=-"), "e1e2");
    assert_eq!(end(g.as_ref()), ("draw", None, Some("no-progress")));
}

#[test]
fn decision_sandbox_promotion_at_the_cap_keeps_the_count() {
    let g = game("sandbox", Some("4k3/P7/8/8/8/8/1PPPPPPP/RNBQKBNR w - - 0 1"), "");
    assert!(has(g.as_ref(), "a7a8q"), "a side at the cap may still promote");
    let g = game("sandbox", Some("4k3/P7/8/8/8/8/1PPPPPPP/RNBQKBNR w - - 0 1"), "a7a8q");
    assert_eq!(snap(g.as_ref()).state.piece_count.map(|c| c.white), Some(15));
}

#[test]
fn decision_no_placement_can_answer_a_check_it_does_not_block() {
    // Stalemate and mate in the gold modes count placements as answers: a bare king in check
    // by a rook on the a-file is not mated while a placement in its zone blocks the file.
    let g = game("gold", Some("k7/2K5/8/8/8/8/8/R7 b - - 0 1 gold=5/3"), "");
    let answers = g.legal_actions();
    assert!(answers.iter().all(|a| a.ends_with("a7") || a.ends_with("a6")), "{answers:?}");
    assert_eq!(answers.len(), 6, "P, N, B on a7 or a6");
}
