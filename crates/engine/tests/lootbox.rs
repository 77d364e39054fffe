//! Loot Boxes (`lootbox`) by the rule book's numbered rules, plus the listed scenarios: golden
//! vector, weights of the contents table over a million draws, crossbow, shell, crown, equips,
//! boxes blocking and opening, and the second king.

#![expect(clippy::expect_used, reason = "test helpers fail loudly on broken fixtures")]

use chessgold_engine::registry::variant;
use chessgold_engine::variants::lootbox::{CONTENTS_TABLE, Contents, Stream, contents_of};
use chessgold_engine::{AnyGame, Snapshot};

fn game(seed: u64, fen: Option<&str>, moves: &str) -> Box<dyn AnyGame> {
    let info = variant("lootbox").expect("registered");
    let mut g = match fen {
        Some(f) => info.seeded_game_from_fen(f, seed).unwrap_or_else(|e| panic!("{f}: {e}")),
        None => info.new_seeded_game(seed),
    };
    for m in moves.split_whitespace() {
        g.play(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    g
}

fn snap(g: &dyn AnyGame) -> Snapshot {
    g.snapshot()
}

fn has(g: &dyn AnyGame, action: &str) -> bool {
    g.legal_actions().iter().any(|a| a == action)
}

fn equips(g: &dyn AnyGame) -> Vec<String> {
    snap(g).state.equips.expect("lootbox lists equips")
}

fn boxes(g: &dyn AnyGame) -> Vec<(String, u8)> {
    snap(g).state.boxes.expect("boxes").into_iter().map(|b| (b.square, b.hits)).collect()
}

fn end(g: &dyn AnyGame) -> (&'static str, Option<&'static str>, Option<&'static str>) {
    let s = snap(g);
    (s.status, s.winner, s.reason)
}

fn opened(g: &dyn AnyGame) -> Vec<(String, &'static str, String)> {
    snap(g).state.opened.expect("opened").into_iter().map(|o| (o.square, o.by, o.contents)).collect()
}

/// The contents the stream of `seed` gives for the draw after `words` words.
fn contents_after(seed: u64, words: u32) -> Contents {
    let mut s = Stream::new(seed, words);
    contents_of(s.uniform(10_000))
}

// ---------------------------------------------------------------- rule 1: randomness

#[test]
fn rule_1_golden_vector_through_play() {
    // Kings stay on ranks 1-2 and 7-8 so the first spawn finds all 16 squares empty.
    let shuffle = ["e1e2", "e8e7", "e2e1", "e7e8"];
    for (seed, countdown, square, next, contents) in
        [(0u64, 3, "a4", 3, "crossbow"), (1, 5, "b4", 3, "shell"), (42, 5, "b4", 4, "gold5")]
    {
        let mut g = game(seed, None, "");
        assert_eq!(snap(g.as_ref()).state.countdown, Some(countdown), "seed {seed}");
        let mut plies = 0;
        while boxes(g.as_ref()).is_empty() {
            g.play(shuffle[plies % 4]).expect("shuffle");
            plies += 1;
        }
        assert_eq!(plies, 2 * countdown as usize, "seed {seed}: the box spawns when the countdown ends");
        assert_eq!(boxes(g.as_ref()), vec![(square.to_string(), 0)], "seed {seed}");
        assert_eq!(snap(g.as_ref()).state.countdown, Some(next), "seed {seed}");
        // The next draw is the first box's contents.
        let words: u32 = g.fen().rsplit("words=").next().and_then(|w| w.parse().ok()).expect("words field");
        assert_eq!(contents_after(seed, words).name(), contents, "seed {seed}");
    }
}

#[test]
fn rule_1_seed_and_actions_replay_exactly_and_the_text_continues_the_stream() {
    let mut rng = 0x9e37_79b9_u64;
    let mut g = game(7, None, "");
    let mut fens = vec![g.fen()];
    for _ in 0..120 {
        let legal = g.legal_actions();
        if legal.is_empty() {
            break;
        }
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let m = legal[(rng % legal.len() as u64) as usize].clone();
        g.play(&m).expect("legal");
        fens.push(g.fen());
    }
    let actions = g.actions();
    let mut replay = game(7, None, "");
    for (i, m) in actions.iter().enumerate() {
        replay.play(m).expect("replays");
        assert_eq!(replay.fen(), fens[i + 1], "ply {}", i + 1);
        // The position text plus the seed continues exactly.
        let mut resumed = game(7, Some(&fens[i + 1]), "");
        if let Some(next) = actions.get(i + 1) {
            let mut copy = replay.clone();
            copy.play(next).expect("legal");
            resumed.play(next).expect("legal in the resumed game");
            assert_eq!(resumed.fen(), copy.fen());
        }
    }
    assert!(!g.fen().contains("seed"), "the seed never appears in the position text");
}

#[test]
fn rule_6_contents_weights_over_a_million_draws() {
    let mut counts = [0u64; 12];
    let mut stream = Stream::new(2026, 0);
    let n = 1_000_000u64;
    for _ in 0..n {
        let r = stream.uniform(10_000);
        let slot = CONTENTS_TABLE.iter().position(|(bound, _)| r < *bound).expect("r < 10000");
        counts[slot] += 1;
    }
    let mut lower = 0u32;
    for (i, (bound, contents)) in CONTENTS_TABLE.iter().enumerate() {
        let p = f64::from(bound - lower) / 10_000.0;
        let expected = p * n as f64;
        let sigma = (n as f64 * p * (1.0 - p)).sqrt();
        let deviation = (counts[i] as f64 - expected).abs();
        assert!(
            deviation < 5.0 * sigma + 1.0,
            "{contents:?}: {} draws, expected {expected:.0} ± {sigma:.0}",
            counts[i]
        );
        lower = *bound;
    }
    // The king's slot is exactly one value in 10000.
    assert_eq!(contents_of(9999), Contents::Piece(5));
    assert_eq!(contents_of(9998), Contents::Item(2));
}

// ---------------------------------------------------------------- rule 3: spawning

#[test]
fn rule_3_at_most_two_boxes_and_the_countdown_is_redrawn() {
    let fen = "4k3/8/8/8/8/8/8/4K3 b - - 0 1 gold=4/3 boxes=a4:0,h5:1 inventory=-/- items=- countdown=1 words=3";
    let g = game(5, Some(fen), "e8e7");
    assert_eq!(boxes(g.as_ref()), vec![("a4".into(), 0), ("h5".into(), 1)], "no third box");
    let countdown = snap(g.as_ref()).state.countdown.expect("countdown");
    assert!((3..=5).contains(&countdown));
    assert!(g.fen().ends_with(&format!("countdown={countdown} words=4")), "{}", g.fen());
}

#[test]
fn rule_3_a_spawned_box_may_block_a_check() {
    // Ranks 4-5 are full but for d4 and d5; Black's rook checks along the d-file and the box
    // that spawns must land on d4 or d5, between rook and king.
    let fen = "4k3/8/r7/ppp1pppp/PPP1PPPP/3K4/8/8 b - - 0 1 gold=4/3 boxes=- inventory=-/- items=- countdown=1 words=1";
    let g = game(3, Some(fen), "a6d6");
    let b = boxes(g.as_ref());
    assert_eq!(b.len(), 1);
    assert!(b[0].0 == "d4" || b[0].0 == "d5", "{b:?}");
    assert!(!snap(g.as_ref()).check, "the box blocks the check");
}

#[test]
fn rule_3_no_spawn_after_mate() {
    // Black mates White along the first rank (no placement can block there with 1 gold) with
    // the action that ends a round whose countdown runs out.
    let fen = "7r/8/8/8/8/1k6/8/K7 b - - 0 1 gold=0/3 boxes=- inventory=-/- items=- countdown=1 words=1";
    let g = game(3, Some(fen), "h8h1");
    assert_eq!(end(g.as_ref()), ("checkmate", Some("black"), Some("checkmate")));
    assert!(boxes(g.as_ref()).is_empty(), "no box spawns after mate");
    assert!(g.fen().ends_with("countdown=1 words=1"), "{}", g.fen());
}

// ---------------------------------------------------------------- rule 4: a box occupies its square

#[test]
fn rule_4_boxes_block_moves_lines_and_checks_but_not_knights() {
    let fen = "4k3/8/8/4r3/8/8/8/4K3 w - - 0 1 gold=4/3 boxes=e4:0 inventory=-/- items=- countdown=3 words=1";
    let g = game(1, Some(fen), "");
    assert!(!snap(g.as_ref()).check, "the box on e4 blocks the rook");
    let g = game(1, Some(fen), "e1d1");
    assert!(!has(g.as_ref(), "e5e1") && !has(g.as_ref(), "e5e4"), "the rook cannot slide onto or through the box");
    assert!(has(g.as_ref(), "e5e6"));
}

#[test]
fn rule_4_no_move_onto_or_through_a_box_knights_leap() {
    let fen = "4k3/8/8/8/R7/1P6/8/1N2K3 w - - 0 1 gold=4/3 boxes=b4:0,a5:0 inventory=-/- items=- countdown=3 words=1";
    let g = game(1, Some(fen), "");
    let legal = g.legal_actions();
    for blocked in ["a4b4", "a4a5", "a4a6", "a4c4", "b3b4"] {
        assert!(!legal.contains(&blocked.to_string()), "{blocked} {legal:?}");
    }
    assert!(has(g.as_ref(), "a4a3"));
    // A knight leaps next to and over boxes but never onto one.
    let fen = "4k3/8/8/8/1N6/8/8/4K3 w - - 0 1 gold=4/3 boxes=a4:0,c4:0 inventory=-/- items=- countdown=3 words=1";
    let g = game(1, Some(fen), "");
    assert!(has(g.as_ref(), "b4a6") && has(g.as_ref(), "b4c6") && has(g.as_ref(), "b4d5"));
}

// ---------------------------------------------------------------- rule 5: hits

#[test]
fn rule_5_a_capture_onto_a_full_neighbourhood_hits_every_box_and_opens_in_square_order() {
    // Both boxes have two hits; the rook's capture on d5 is next to d4 and e5: both open, d4 first.
    let fen = "4k3/8/3n4/3p4/8/8/8/3RK3 w - - 0 1 gold=0/3 boxes=c4:2,e5:2 inventory=-/- items=- countdown=3 words=1";
    let g = game(11, Some(fen), "d1d5");
    let first = contents_after(11, 1);
    let mut s = Stream::new(11, 1);
    let _ = s.uniform(10_000);
    let second = contents_of(s.uniform(10_000));
    assert_eq!(opened(g.as_ref()), vec![("c4".into(), "white", first.name()), ("e5".into(), "white", second.name())]);
    assert!(boxes(g.as_ref()).is_empty());
    // Hits without opening: one hit each.
    let fen = "4k3/8/3n4/3p4/8/8/8/3RK3 w - - 0 1 gold=0/3 boxes=c4:0,e5:1 inventory=-/- items=- countdown=3 words=1";
    let g = game(11, Some(fen), "d1d5");
    assert_eq!(boxes(g.as_ref()), vec![("c4".into(), 1), ("e5".into(), 2)]);
    assert!(opened(g.as_ref()).is_empty());
}

#[test]
fn rule_5_a_queen_opens_at_once_and_the_third_hit_by_either_player_opens() {
    let fen = "4k3/8/8/8/8/2Q5/8/4K3 w - - 0 1 gold=0/3 boxes=a4:0 inventory=-/- items=- countdown=3 words=1";
    let g = game(0, Some(fen), "c3b3");
    assert_eq!(opened(g.as_ref()), vec![("a4".into(), "white", contents_after(0, 1).name())]);
    // Two hits by Black, the third by White: White gets the contents.
    let fen = "4k3/8/8/8/8/2N5/8/4K3 w - - 0 1 gold=0/3 boxes=a4:2 inventory=-/- items=- countdown=3 words=1";
    let g = game(0, Some(fen), "c3b5");
    assert_eq!(opened(g.as_ref()).len(), 1);
    assert_eq!(opened(g.as_ref())[0].1, "white");
}

#[test]
fn rule_5_placements_promotions_in_place_and_shell_bounces_hit_nothing() {
    let fen = "4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3 boxes=b4:0 inventory=-/- items=- countdown=3 words=1";
    let g = game(0, Some(fen), "N@b3");
    assert_eq!(boxes(g.as_ref()), vec![("b4".into(), 0)]);
    // The bishop's capture on c4 (next to the box on d4) bounces off the shell: no hit.
    let fen = "4k3/8/8/8/2n5/1B6/8/4K3 w - - 0 1 gold=4/3 boxes=d4:0 inventory=-/- items=c4:shell countdown=3 words=1";
    let g = game(0, Some(fen), "b3c4");
    assert!(g.fen().starts_with("4k3/8/8/8/2n5/1B6/"), "the bishop bounces: {}", g.fen());
    assert_eq!(boxes(g.as_ref()), vec![("d4".into(), 0)], "a bounce hits nothing");
    // A pawn's step that ends next to a box hits it.
    let fen = "4k3/8/8/8/8/3P4/8/4K3 w - - 0 1 gold=4/3 boxes=c5:0 inventory=-/- items=- countdown=3 words=1";
    let g = game(0, Some(fen), "d3d4");
    assert_eq!(boxes(g.as_ref()), vec![("c5".into(), 1)]);
}

// ---------------------------------------------------------------- rule 7: inventory

#[test]
fn rule_7_looted_pieces_are_placed_free_and_used_before_gold() {
    let fen = "4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3 boxes=- inventory=N/- items=- countdown=3 words=1".to_string();
    let g = game(0, Some(&fen), "N@c3");
    assert!(g.fen().contains("gold=4/4 boxes=- inventory=-/-"), "{}", g.fen());
    let mut g = game(0, Some(&fen), "");
    let err = g.play("N@c5").expect_err("zone");
    assert!(err.message().contains("ranks 1-3"), "{err}");
    // A looted rook is placed although 4 gold would not buy it.
    let fen = "4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3 boxes=- inventory=R/- items=- countdown=3 words=1";
    let g = game(0, Some(fen), "R@a1");
    assert!(g.fen().contains("gold=4/4"), "{}", g.fen());
}

// ---------------------------------------------------------------- rule 8: the second king

#[test]
fn rule_8_a_looted_king_answers_check_and_kings_can_then_be_captured() {
    let fen = "4k3/8/8/8/8/8/8/r3K3 w - - 0 1 gold=0/3 boxes=- inventory=K/- items=- countdown=3 words=1";
    let g = game(0, Some(fen), "");
    assert!(has(g.as_ref(), "K@h3"), "placing a looted king is a legal answer to check");
    let g = game(0, Some(fen), "K@h3");
    assert!(has(g.as_ref(), "a1e1"), "with two kings, a king can be captured");
    let g = game(0, Some(fen), "K@h3 a1e1");
    assert!(g.fen().starts_with("4k3/8/8/8/8/7K/8/4r3 w"), "{}", g.fen());
    assert!(g.fen().contains("gold=1/4"), "no income for a king: {}", g.fen());
}

#[test]
fn rule_8_checkmated_after_the_second_king_was_captured() {
    let fen = "1r2k2q/8/4b3/8/8/8/8/K6K b - - 0 1 gold=0/3 boxes=- inventory=-/- items=- countdown=3 words=1";
    let g = game(0, Some(fen), "h8h1");
    assert_eq!(end(g.as_ref()), ("checkmate", Some("black"), Some("checkmate")));
}

#[test]
fn rule_8_a_lone_king_is_never_captured_even_when_a_crown_attacks_it() {
    let fen = "4k3/8/4B3/8/8/8/8/4K3 w - - 0 1 gold=5/3 boxes=- inventory=crown/- items=- countdown=3 words=1";
    let mut g = game(0, Some(fen), "crown@e6=R");
    assert!(!has(g.as_ref(), "e6e8"), "the lone king is not capturable");
    g.play("e1d1").expect("another action");
    assert!(snap(g.as_ref()).check, "Black starts its turn in check");
}

#[test]
fn rule_8_the_text_written_after_a_crown_attacks_the_lone_king_reads_back() {
    // Found by the position-text fuzzer: after crown@a8=Q the black king is attacked with White
    // still to move, and the text of that moment was refused ("the side not to move is in
    // check"), so it did not round-trip (rule 12).
    let fen = "Nk2r3/8/4b3/8/8/8/8/K6r w - - 0 1 gold=3.5/1 boxes=- inventory=crown/- items=- countdown=3 words=1";
    let g = game(0, Some(fen), "crown@a8=Q");
    let text = g.fen();
    assert_eq!(text, "Qk2r3/8/4b3/8/8/8/8/K6r w - - 0 1 gold=0/1 boxes=- inventory=-/- items=- countdown=3 words=1");
    let resumed = game(0, Some(&text), "");
    assert_eq!(resumed.legal_actions(), g.legal_actions());
    assert!(!has(g.as_ref(), "a8b8"), "the lone king is not captured");
}

#[test]
fn rule_8_a_player_with_two_kings_is_never_in_check() {
    // Black's queen attacks one of White's two kings (a1): no check flag, no check square, and
    // White need not answer it (a quiet move of the other king is legal).
    let fen = "4k3/8/8/8/3q4/8/8/K6K w - - 0 9 gold=4/9 boxes=- inventory=-/- items=- countdown=3 words=7";
    let g = game(0, Some(fen), "");
    let s = snap(g.as_ref());
    assert!(!s.check && s.check_square.is_none(), "{s:?}");
    assert!(has(g.as_ref(), "h1g1") && has(g.as_ref(), "a1a2"));
    // Both kings attacked (a1 and h8 on the queen's diagonal): still no check.
    let fen = "4k2K/8/8/8/3q4/8/8/K7 w - - 0 9 gold=4/9 boxes=- inventory=-/- items=- countdown=3 words=7";
    let s = snap(game(0, Some(fen), "").as_ref());
    assert!(!s.check && s.check_square.is_none(), "{s:?}");
    // Once a king is taken the last one is under ordinary check rules again.
    let fen = "4k3/8/8/8/3q4/8/8/K6K b - - 0 9 gold=4/9 boxes=- inventory=-/- items=- countdown=3 words=7";
    let g = game(0, Some(fen), "d4h4 a1b1 h4h1");
    let s = snap(g.as_ref());
    assert!(s.check && s.check_square.as_deref() == Some("b1"), "{s:?}");
}

#[test]
fn rule_11_the_terminal_check_counts_the_income_about_to_be_received() {
    // Black's rook checks along the first rank, where only a bought knight or bishop can block.
    // White has 2 gold and receives 1 at the start of its turn: with 3 it can buy the blocker,
    // so it is not mated, the round ends and the box spawns.
    let fen = "7r/8/8/8/8/1k6/8/K7 b - - 0 1 gold=2/3 boxes=- inventory=-/- items=- countdown=1 words=1";
    let g = game(3, Some(fen), "h8h1");
    assert_eq!(end(g.as_ref()).0, "ongoing");
    let s = snap(g.as_ref());
    assert!(s.check && s.state.gold.is_some_and(|gold| gold.white.0 == 6), "{s:?}");
    let mut answers = g.legal_actions();
    answers.sort();
    let expected: Vec<String> =
        ["B", "N"].iter().flat_map(|p| ["b1", "c1", "d1", "e1", "f1", "g1"].map(|sq| format!("{p}@{sq}"))).collect();
    assert_eq!(answers, expected);
    assert_eq!(boxes(g.as_ref()).len(), 1, "the round ended: a box spawned");
    assert!(!g.fen().contains("countdown=1 words=1"), "the next countdown was drawn: {}", g.fen());
    // One half-gold less and the income buys nothing that blocks: mate, and no spawn.
    let g = game(3, Some(&fen.replace("gold=2/3", "gold=1.5/3")), "h8h1");
    assert_eq!(end(g.as_ref()), ("checkmate", Some("black"), Some("checkmate")));
    assert!(boxes(g.as_ref()).is_empty() && g.fen().ends_with("countdown=1 words=1"), "{}", g.fen());
}

// ---------------------------------------------------------------- rule 9: equips

#[test]
fn rule_9_crossbow_flies_across_empty_squares_and_a_king_stops_it() {
    let fen = "n3k3/8/8/8/p7/8/8/R3K3 w - - 0 1 gold=4/3 boxes=- inventory=-/- items=a1:crossbow countdown=3 words=1";
    let g = game(0, Some(fen), "a1a4");
    assert_eq!(g.fen(), "4k3/8/8/8/R7/8/8/4K3 b - - 0 1 gold=6/4 boxes=- inventory=-/- items=- countdown=3 words=1");
    let fen = "k7/8/8/8/p7/8/8/R3K3 w - - 0 1 gold=4/3 boxes=- inventory=-/- items=a1:crossbow countdown=3 words=1";
    let g = game(0, Some(fen), "a1a4");
    assert!(g.fen().starts_with("k7/8/8/8/R7/"), "{}", g.fen());
    assert!(g.fen().contains("items=-"), "used up on the capture: {}", g.fen());
    // A pawn's bolt flies exactly one step, en passant too.
    let fen =
        "4k3/8/1n6/2p5/3P4/8/8/4K3 w - - 0 1 gold=4/3 boxes=- inventory=-/- items=d4:crossbow countdown=3 words=1";
    let g = game(0, Some(fen), "d4c5");
    assert!(g.fen().starts_with("4k3/8/8/2P5/8/"), "bolt takes b6: {}", g.fen());
}

#[test]
fn rule_9_the_shell_absorbs_a_capture_and_a_bolt() {
    let fen = "4k3/8/2n5/8/4B3/8/8/4K3 w - - 0 1 gold=4/3 boxes=- inventory=-/- items=c6:shell,e4:crossbow countdown=3 words=1";
    let g = game(0, Some(fen), "e4c6");
    assert_eq!(
        g.fen(),
        "4k3/8/2n5/8/4B3/8/8/4K3 b - - 0 1 gold=4/4 boxes=- inventory=-/- items=e4:crossbow countdown=3 words=1",
        "the bishop stays, no income, the shell is gone, the crossbow kept"
    );
    let fen = "4k3/8/2n5/8/p7/8/8/R3K3 w - - 0 1 gold=4/3 boxes=- inventory=-/- items=a1:crossbow,c6:shell countdown=3 words=1";
    let _ = fen;
    let fen = "n3k3/8/8/8/p7/8/8/R3K3 w - - 0 1 gold=4/3 boxes=- inventory=-/- items=a1:crossbow,a8:shell countdown=3 words=1";
    let g = game(0, Some(fen), "a1a4");
    assert_eq!(g.fen(), "n3k3/8/8/8/R7/8/8/4K3 b - - 0 1 gold=4.5/4 boxes=- inventory=-/- items=- countdown=3 words=1");
}

#[test]
fn rule_9_equip_then_move_in_one_turn_and_the_crown() {
    let fen = "n3k3/8/8/8/p7/8/8/R3K3 w - - 0 1 gold=4/3 boxes=- inventory=crossbow/- items=- countdown=3 words=1";
    let mut g = game(0, Some(fen), "crossbow@a1");
    assert_eq!(snap(g.as_ref()).side, "white", "an equip does not end the turn");
    assert!(g.fen().contains("gold=2/3") && g.fen().contains("items=a1:crossbow"), "{}", g.fen());
    g.play("a1a4").expect("then the move");
    assert!(g.fen().starts_with("4k3/8/8/8/R7/"), "{}", g.fen());
    let fen = "4k3/8/8/8/8/8/3P4/4K3 w - - 0 1 gold=4/3 boxes=- inventory=crown/- items=d2:shell countdown=3 words=1";
    let g = game(0, Some(fen), "");
    assert_eq!(equips(g.as_ref()), vec!["crown@d2=B", "crown@d2=N", "crown@d2=Q", "crown@d2=R"]);
    let g = game(0, Some(fen), "crown@d2=Q");
    assert!(g.fen().starts_with("4k3/8/8/8/8/8/3Q4/") && g.fen().contains("items=d2:shell"), "{}", g.fen());
    assert!(g.fen().contains("gold=0.5/3"), "{}", g.fen());
}

#[test]
fn rule_9_an_equip_that_would_leave_no_legal_action_is_refused() {
    let fen = "1r2k3/8/4b3/8/8/8/7P/K6r w - - 0 1 gold=3.5/3 boxes=- inventory=crossbow/- items=- countdown=3 words=1";
    // For every item the refusal says that rule 9 refuses it: only a bought knight or bishop
    // answers the rook's check, and after paying for the item the gold left buys none.
    let rule_9 = "white would have no legal turn action, and an equip must leave one (rule 9)";
    for (fen, equip) in [
        (fen.to_string(), "crossbow@h2"),
        (fen.replace("inventory=crossbow/-", "inventory=shell/-"), "shell@h2"),
        // The crown: a rook on a8 does not answer the check (a bishop or queen would take h1).
        (
            fen.replace("inventory=crossbow/-", "inventory=crown/-").replace("1r2k3", "Nr2k3").replace("7P", "8"),
            "crown@a8=R",
        ),
    ] {
        let mut g = game(0, Some(&fen), "");
        assert!(!equips(g.as_ref()).iter().any(|e| e == equip), "{fen}");
        assert!(!g.legal_actions().is_empty(), "{fen}");
        let err = g.play(equip).expect_err("refused");
        assert_eq!(err.message(), format!("{equip} is not legal: after this equip {rule_9}"));
    }
}

#[test]
fn rule_9_a_crown_rescues_a_position_that_looks_like_mate() {
    let fen = "rr2k3/8/8/2P5/K7/8/8/8 w - - 0 1 gold=3.5/3 boxes=- inventory=crown/- items=- countdown=3 words=1";
    let g = game(0, Some(fen), "");
    assert!(g.legal_actions().is_empty());
    assert_eq!(end(g.as_ref()), ("ongoing", None, None));
    assert_eq!(equips(g.as_ref()), vec!["crown@c5=B", "crown@c5=N", "crown@c5=Q", "crown@c5=R"]);
    let g = game(0, Some(fen), "crown@c5=N");
    assert_eq!(g.legal_actions(), vec!["c5a6"]);
    let without = fen.replace("inventory=crown/-", "inventory=-/-");
    let g = game(0, Some(&without), "");
    assert_eq!(end(g.as_ref()), ("checkmate", Some("black"), Some("checkmate")));
}

// ---------------------------------------------------------------- rule 10: legality after all effects

#[test]
fn rule_10_an_opening_may_give_check_and_may_not_expose_the_own_king() {
    let fen = "4k3/8/8/8/8/3P4/4R3/4K3 w - - 0 1 gold=4/3 boxes=e4:2 inventory=-/- items=- countdown=3 words=1";
    let g = game(0, Some(fen), "d3d4");
    assert!(snap(g.as_ref()).check, "the opened box no longer shields Black's king");
    let fen = "4r2k/8/8/8/8/3P4/8/4K3 w - - 0 1 gold=4/3 boxes=e4:2 inventory=-/- items=- countdown=3 words=1";
    let mut g = game(0, Some(fen), "");
    assert!(!has(g.as_ref(), "d3d4"), "opening the box would expose the white king");
    let err = g.play("d3d4").expect_err("illegal");
    assert!(err.message().contains("king in check"), "{err}");
}

#[test]
fn rule_10_a_king_may_capture_a_defended_shelled_piece() {
    let fen = "4r2k/8/8/8/8/8/4n3/4K3 w - - 0 1 gold=4/3 boxes=- inventory=-/- items=e2:shell countdown=3 words=1";
    let g = game(0, Some(fen), "e1e2");
    assert!(g.fen().starts_with("4r2k/8/8/8/8/8/4n3/4K3 b"), "{}", g.fen());
    assert!(g.fen().contains("items=-"), "{}", g.fen());
}

// ---------------------------------------------------------------- rule 12: no-progress counter

#[test]
fn rule_12_equips_openings_and_shell_breaks_reset_the_counter() {
    // An equip resets the counter at once; the quiet move after it is the first ply without
    // progress again.
    let fen = "n3k3/8/8/8/8/8/8/R3K3 w - - 40 30 gold=4/3 boxes=- inventory=crossbow/- items=- countdown=3 words=1";
    let g = game(0, Some(fen), "crossbow@a1");
    assert!(g.fen().contains(" - - 0 30 "), "{}", g.fen());
    let g = game(0, Some(fen), "crossbow@a1 e1d1");
    assert!(g.fen().contains(" - - 1 30 "), "{}", g.fen());
    let fen = "4k3/8/8/8/8/2Q5/8/4K3 w - - 40 30 gold=0/3 boxes=a4:0 inventory=-/- items=- countdown=3 words=1";
    let g = game(0, Some(fen), "c3b3");
    assert!(g.fen().contains(" - - 0 30 "), "{}", g.fen());
    let fen = "4k3/8/8/8/8/2N5/8/4K3 w - - 40 30 gold=0/3 boxes=a4:0 inventory=-/- items=- countdown=3 words=1";
    let g = game(0, Some(fen), "c3b5");
    assert!(g.fen().contains(" - - 41 30 "), "a hit that opens nothing: {}", g.fen());
    let fen = "4k3/8/2n5/8/4B3/8/8/4K3 w - - 40 30 gold=4/3 boxes=- inventory=-/- items=c6:shell countdown=3 words=1";
    let g = game(0, Some(fen), "e4c6");
    assert!(g.fen().contains(" - - 0 30 "), "{}", g.fen());
}

#[test]
fn rule_12_the_text_between_an_equip_and_the_action_shows_0_and_round_trips() {
    // The game: the crossbow looted from the a4 box is equipped on the knight.
    let moves = "N@b1 e8e7 e1e2 e7e8 e2e1 e8e7 b1a3 e7e8 a3b5 e8e7 b5a3 e7e8 crossbow@a3";
    let g = game(0, None, moves);
    let fen = g.fen();
    assert!(fen.contains(" w - - 0 7 "), "{fen}");
    // Loaded with the seed, the text goes on exactly as the game does, counters included.
    let mut resumed = game(0, Some(&fen), "");
    let mut played = g.clone();
    for action in ["a3b5", "e8e7", "b5a3", "e7e8"] {
        played.play(action).expect("legal in the game");
        resumed.play(action).expect("legal in the resumed game");
        assert_eq!(resumed.fen(), played.fen(), "after {action}");
    }
    assert!(played.fen().contains(" w - - 4 9 "), "{}", played.fen());
}

#[test]
fn rule_12_every_text_of_games_with_equips_round_trips() {
    // Random games from a position full of items: every position text, between equips and
    // actions as well, loaded with the seed and played on for four steps, gives the game's own
    // texts.
    let start = "r3k2r/pppn1ppp/8/8/8/8/PPPN1PPP/R3K2R w - - 0 1 gold=12/12 boxes=d4:2,e5:1 \
                 inventory=crossbow2,shell,crown/crossbow,shell2,crown items=- countdown=2 words=1";
    let mut rng = 0x2545_f491_u64;
    let mut next = |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    let mut equips_seen = 0;
    for seed in 0..8u64 {
        let mut g = game(seed, Some(start), "");
        let mut fens = vec![g.fen()];
        for _ in 0..40 {
            let equip_now = equips(g.as_ref());
            let legal = g.legal_actions();
            let action = if !equip_now.is_empty() && next(3) == 0 {
                equips_seen += 1;
                equip_now[next(equip_now.len())].clone()
            } else if !legal.is_empty() {
                legal[next(legal.len())].clone()
            } else {
                break;
            };
            g.play(&action).expect("listed");
            fens.push(g.fen());
        }
        let actions = g.actions();
        for (i, fen) in fens.iter().enumerate() {
            let mut resumed = game(seed, Some(fen), "");
            for (j, action) in actions.iter().enumerate().skip(i).take(4) {
                resumed.play(action).unwrap_or_else(|e| panic!("seed {seed}, from {fen}: {action}: {e}"));
                assert_eq!(resumed.fen(), fens[j + 1], "seed {seed}: loaded at ply {i}, after {action}");
            }
        }
    }
    assert!(equips_seen >= 12, "only {equips_seen} equips played");
}

#[test]
fn position_text_is_validated() {
    let info = variant("lootbox").expect("registered");
    for (fen, fragment) in [
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3", "need the boxes field"),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3 boxes=d3:0 inventory=-/- items=- countdown=3 words=1", "rank 4 or 5"),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3 boxes=d4:3 inventory=-/- items=- countdown=3 words=1", "hits"),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3 boxes=- inventory=Q/- items=- countdown=3 words=1", "inventory"),
        (
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3 boxes=- inventory=-/- items=e1:shell countdown=3 words=1",
            "other than a king",
        ),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3 boxes=- inventory=-/- items=- countdown=9 words=1", "countdown"),
    ] {
        let err = info.game_from_fen(fen).expect_err(fen);
        assert!(err.to_string().contains(fragment), "{fen}: {err}");
    }
}

#[test]
fn rule_5_a_hit_is_by_the_piece_as_it_stands_a_crowned_queen_opens_at_once() {
    let fen = "4k3/8/8/8/1P6/8/8/4K3 w - - 0 1 gold=4/3 boxes=c5:0 inventory=-/- items=- countdown=3 words=1";
    let g = game(0, Some(fen), "b4b5");
    assert_eq!(boxes(g.as_ref()), vec![("c5".into(), 1)], "a pawn's hit");
    let fen = "4k3/8/8/8/8/1N6/8/4K3 w - - 0 1 gold=4/3 boxes=c5:0 inventory=crown/- items=- countdown=3 words=1";
    let g = game(0, Some(fen), "crown@b3=Q b3b4");
    assert!(boxes(g.as_ref()).is_empty(), "the knight crowned a queen opens the box at once");
}
