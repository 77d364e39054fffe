//! FIDE chess (`standard`): end rules, position text and action errors.

#![expect(clippy::expect_used, reason = "test helpers fail loudly on broken fixtures")]

use chessgold_engine::registry::variant;
use chessgold_engine::variants::standard::Standard;
use chessgold_engine::{ActionError, AnyGame, EndReason, Game, Position, Status};

fn game(fen: Option<&str>, moves: &str) -> Box<dyn AnyGame> {
    let info = variant("standard").expect("registered");
    let mut g = match fen {
        Some(f) => info.game_from_fen(f).expect("valid fen"),
        None => info.new_game(),
    };
    for m in moves.split_whitespace() {
        g.play(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    g
}

fn end(g: &dyn AnyGame) -> (&'static str, Option<&'static str>, Option<&'static str>) {
    let s = g.snapshot();
    (s.status, s.winner, s.reason)
}

#[test]
fn fools_mate_is_checkmate_for_black() {
    let g = game(None, "f2f3 e7e5 g2g4 d8h4");
    assert_eq!(end(g.as_ref()), ("checkmate", Some("black"), Some("checkmate")));
    assert!(g.legal_actions().is_empty());
    assert!(g.snapshot().check);
}

#[test]
fn stalemate_is_a_draw() {
    let g = game(Some("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), "");
    assert_eq!(end(g.as_ref()), ("stalemate", None, Some("stalemate")));
}

#[test]
fn threefold_repetition_over_the_whole_game() {
    let mut g = game(None, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1");
    assert_eq!(end(g.as_ref()).0, "ongoing");
    g.play("f6g8").expect("legal");
    assert_eq!(end(g.as_ref()), ("draw", None, Some("repetition")));
    let err = g.play("e2e4").expect_err("game over");
    assert!(matches!(err, ActionError::GameOver(_)), "{err:?}");
}

#[test]
fn fifty_move_rule_but_mate_on_the_hundredth_ply_wins() {
    // 99 plies without progress; a quiet move makes 100.
    let g = game(Some("7k/8/8/8/8/8/8/R3K3 w - - 99 80"), "e1e2");
    assert_eq!(end(g.as_ref()), ("draw", None, Some("no-progress")));
    let g = game(Some("7k/8/6K1/8/8/8/8/R7 w - - 99 80"), "a1a8");
    assert_eq!(end(g.as_ref()), ("checkmate", Some("white"), Some("checkmate")));
}

#[test]
fn insufficient_material_as_lichess_judges_it() {
    for (fen, drawn) in [
        ("8/8/4k3/8/8/4K3/8/8 w - - 0 1", true),
        ("8/8/4k3/8/8/4KB2/8/8 w - - 0 1", true),
        ("8/8/4k3/8/8/4KN2/8/8 w - - 0 1", true),
        ("8/8/4kb2/8/8/4KB2/8/8 w - - 0 1", false),
        ("8/8/4k1b1/8/8/4KB2/8/8 w - - 0 1", true),
        ("8/8/4kn2/8/8/4KN2/8/8 w - - 0 1", false),
        ("8/8/4k3/8/8/4KP2/8/8 w - - 0 1", false),
    ] {
        let g = game(Some(fen), "");
        let expected = if drawn { ("draw", None, Some("insufficient-material")) } else { ("ongoing", None, None) };
        assert_eq!(end(g.as_ref()), expected, "{fen}");
    }
    // Reached by a capture.
    let g = game(Some("8/8/4k3/8/8/4K3/4r3/8 w - - 0 1"), "e3e2");
    assert_eq!(end(g.as_ref()), ("draw", None, Some("insufficient-material")));
}

#[test]
fn en_passant_square_only_when_a_capture_is_legal() {
    assert_eq!(game(None, "e2e4").fen(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    let g = game(None, "e2e4 a7a6 e4e5 d7d5");
    assert_eq!(g.fen(), "rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3");
    assert!(g.legal_actions().contains(&"e5d6".to_string()));
    // The capturing pawn is pinned against its king along the rank: no en passant square.
    let g = game(Some("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1"), "");
    assert!(!g.fen().contains("d6"), "{}", g.fen());
    assert!(!g.legal_actions().contains(&"e5d6".to_string()));
}

#[test]
fn castling_rights_follow_king_and_rooks() {
    let g = game(Some("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"), "a1a8");
    assert!(g.fen().contains(" Kk "), "{}", g.fen());
    let g = game(Some("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"), "e1g1");
    assert_eq!(g.fen(), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    // Through an attacked square: not allowed.
    let g = game(Some("r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1"), "");
    assert!(!g.legal_actions().contains(&"e1g1".to_string()));
    assert!(g.legal_actions().contains(&"e1c1".to_string()));
}

#[test]
fn malformed_positions_are_refused_with_the_reason() {
    for (fen, fragment) in [
        ("", "at least 4 fields"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "8 ranks"),
        ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "more than 8 squares"),
        ("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 7 has 7 squares"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "'X' is not a piece"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkz - 0 1", "castling letter 'z'"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1", "castling right 'K'"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1", "en passant square e3"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq z9 0 1", "en passant field"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "halfmove clock"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "fullmove number"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1", "white must have exactly one king"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNP w kq - 0 1", "pawn cannot stand on h1"),
        ("4k3/8/8/8/8/8/8/4K2R b - - 0 1", "ongoing"),
        ("4k2R/8/8/8/8/8/8/4K3 w - - 0 1", "side not to move (black) is in check"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra", "unexpected field"),
        ("rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "two digits in a row"),
    ] {
        match Position::<Standard>::from_fen(fen) {
            Err(e) => assert!(e.to_string().contains(fragment), "{fen}: {e}"),
            Ok(p) => assert_eq!(fragment, "ongoing", "{fen} was accepted as {}", p.fen()),
        }
    }
}

#[test]
fn refused_actions_say_why_and_change_nothing() {
    let mut g = Game::<Standard>::new();
    let before = g.position().clone();
    for (text, fragment) in [
        ("e2e5", "a pawn moves one square straight forward (two from its second rank)"),
        ("e3e4", "there is no piece on e3"),
        ("e7e5", "is black's and it is white's turn"),
        ("e2e4q", "this move does not promote, so it has no promotion letter: e2e4"),
        ("N@c3", "Standard has no placements"),
        ("e2=Q", "no promotion in place"),
        ("e7e8Q", "lower case"),
        ("n@c3", "upper case"),
        ("j2j4", "not a square"),
        ("", "empty"),
    ] {
        let err = g.play_text(text).expect_err(text);
        assert!(err.message().contains(fragment), "{text}: {err}");
        assert_eq!(g.position(), &before);
    }
    let mut g = Game::<Standard>::from_position(Position::from_fen("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1").expect("fen"));
    let err = g.play_text("e1f2").expect_err("into check");
    assert!(err.message().contains("does not end the check"), "{err}");
    let mut g = Game::<Standard>::from_position(Position::from_fen("4k3/4p3/8/8/8/8/4R3/4K2r w - - 0 1").expect("fen"));
    let err = g.play_text("e2d2").expect_err("pinned");
    assert!(err.message().contains("does not end the check") || err.message().contains("king in check"), "{err}");
    let mut g = Game::<Standard>::from_position(Position::from_fen("4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1").expect("fen"));
    let err = g.play_text("e2d2").expect_err("pinned");
    assert!(err.message().contains("leave the white king in check"), "{err}");
    let mut g = Game::<Standard>::from_position(Position::from_fen("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1").expect("fen"));
    let err = g.play_text("b7b8").expect_err("needs a letter");
    assert!(err.message().contains("the promotion letter says to what: b7b8b, b7b8n, b7b8q, b7b8r"), "{err}");
}

#[test]
fn status_names() {
    assert_eq!(Status::VariantEnd.as_str(), "variant_end");
    assert_eq!(EndReason::NoProgress.as_str(), "no-progress");
}

#[test]
fn decision_draw_reasons_in_a_fixed_order_stalemate_first() {
    // Stalemate and the 100-ply rule hold together: the reason given is stalemate.
    let g = game(Some("7k/5Q2/6K1/8/8/8/8/8 b - - 100 80"), "");
    assert_eq!(end(g.as_ref()), ("stalemate", None, Some("stalemate")));
    // Insufficient material and the 100-ply rule: insufficient material.
    let g = game(Some("8/8/4k3/8/8/4K3/8/8 w - - 120 90"), "");
    assert_eq!(end(g.as_ref()), ("draw", None, Some("insufficient-material")));
}

#[test]
fn decision_a_loaded_position_starts_the_repetition_history_and_may_already_be_drawn() {
    let g = game(Some("4k3/8/8/8/8/8/8/R3K3 w - - 100 80"), "");
    assert_eq!(end(g.as_ref()), ("draw", None, Some("no-progress")));
    let g = game(Some("4k3/8/8/8/8/8/8/R3K3 w - - 0 1"), "a1a2 e8e7 a2a1 e7e8 a1a2 e8e7 a2a1");
    assert_eq!(end(g.as_ref()).0, "ongoing");
    let g = game(Some("4k3/8/8/8/8/8/8/R3K3 w - - 0 1"), "a1a2 e8e7 a2a1 e7e8 a1a2 e8e7 a2a1 e7e8");
    assert_eq!(end(g.as_ref()), ("draw", None, Some("repetition")));
}
