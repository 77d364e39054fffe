//! The bot plays legal actions in every registered variant, within its budgets, reproducibly,
//! and beats a random mover.

#![expect(clippy::expect_used, reason = "test fixtures fail loudly")]

use std::time::{Duration, Instant};

use chessgold_bot::matches::Score;
use chessgold_bot::{
    BotVariant, Level, Limits, MatchConfig, Player, SearchOptions, Searcher, WithVariant, analyse, choose_action,
    dispatch, game_history, play_match,
};
use chessgold_engine::registry::variants;
use chessgold_engine::{AnyGame, Game};

/// A tiny deterministic generator for the tests' random games.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

fn supported(id: &str) -> bool {
    struct Probe;
    impl WithVariant for Probe {
        type Output = ();
        fn run<V: BotVariant>(self) {}
    }
    dispatch(id, Probe).is_some()
}

/// The dispatch takes the engine's list of variants ([`chessgold_engine::each_variant!`]), so a
/// variant registered without a `BotVariant` impl (its evaluator) does not compile; this test
/// names any registered variant the dispatch still misses.
#[test]
fn every_registered_variant_has_a_bot() {
    let missing: Vec<&str> = variants().iter().map(|v| v.id).filter(|id| !supported(id)).collect();
    assert!(missing.is_empty(), "no bot for {missing:?}: implement BotVariant in crates/bot/src/eval");
}

#[test]
fn never_plays_an_illegal_action_in_random_positions() {
    let mut rng = Rng(7);
    for info in variants() {
        if !supported(info.id) {
            assert_eq!(choose_action(info.new_game().as_ref(), Level::MAX, Limits::nodes(100), 1), None);
            continue;
        }
        let mut checked = 0;
        for game_no in 0..4u64 {
            let mut g = info.new_seeded_game(game_no);
            for ply in 0..80u64 {
                let legal = g.legal_actions();
                if legal.is_empty() {
                    assert_eq!(choose_action(g.as_ref(), Level::MAX, Limits::nodes(500), ply), None);
                    break;
                }
                if ply % 3 == 0 {
                    let level = Level::new((ply % 8) as u8 + 1).expect("1 to 8");
                    let action = choose_action(g.as_ref(), level, Limits::nodes(1_500), ply + game_no)
                        .unwrap_or_else(|| panic!("{}: no action in {}", info.id, g.fen()));
                    assert!(legal.contains(&action), "{}: {action} is not legal in {}", info.id, g.fen());
                    checked += 1;
                }
                let pick = legal[rng.below(legal.len())].clone();
                g.play(&pick).expect("legal");
            }
        }
        assert!(checked >= 20, "{}: only {checked} positions checked", info.id);
    }
}

#[test]
fn respects_the_node_budget_and_a_passed_deadline() {
    for id in ["standard", "gold"] {
        let g = chessgold_engine::registry::variant(id).expect("registered").new_game();
        for budget in [1u64, 700, 5_000] {
            let a = analyse(g.as_ref(), Level::MAX, Limits::nodes(budget), 3).expect("a move");
            assert!(a.nodes <= budget, "{id}: {} nodes for a budget of {budget}", a.nodes);
            assert!(g.legal_actions().contains(&a.action));
        }
    }
    // A deadline already passed stops the search at the first time check (every 1024 nodes).
    struct Deadline;
    impl WithVariant for Deadline {
        type Output = (u64, bool);
        fn run<V: BotVariant>(self) -> (u64, bool) {
            let game = Game::<V>::new();
            let past = Instant::now().checked_sub(Duration::from_millis(1)).unwrap_or_else(Instant::now);
            let opts = SearchOptions { deadline: Some(past), soft_deadline: Some(past), ..SearchOptions::default() };
            let r = Searcher::<V>::new(1).search(game.position(), &game_history(&game), opts);
            (r.nodes, r.best.is_some_and(|m| game.legal().contains(&m)))
        }
    }
    for info in variants().iter().filter(|v| supported(v.id)) {
        let (nodes, legal) = dispatch(info.id, Deadline).expect("supported");
        assert!(nodes <= 256 && legal, "{}: {nodes} nodes after the deadline", info.id);
    }
}

/// The time budget of a move never exceeds what the clock allows: a fixed move time at most in
/// full, a game clock at most a fifth of what is left (so a bot on its clock never flags from
/// thinking), and the search stops at that hard limit (the deadline test above).
#[test]
fn every_level_plans_within_its_clock() {
    for level in Level::all() {
        let spec = level.spec();
        for ms in [1u64, 50, 200, 1_000, 10_000] {
            let b = chessgold_bot::levels::plan(Limits::movetime(ms), spec);
            let hard = b.hard.expect("a move time sets a hard limit");
            assert!(hard <= Duration::from_millis(ms.max(1)), "level {}: {hard:?} for {ms} ms", level.number());
            assert!(b.soft.is_some_and(|s| s <= hard));
        }
        for (remaining, increment) in [(100u64, 0u64), (3_000, 0), (3_000, 2_000), (60_000, 0), (600_000, 5_000)] {
            let b = chessgold_bot::levels::plan(Limits::clock(remaining, increment), spec);
            let hard = b.hard.expect("a clock sets a hard limit");
            assert!(
                hard <= Duration::from_millis((remaining.saturating_sub(50) / 5).max(1)),
                "level {}: {hard:?} with {remaining} ms left (+{increment})",
                level.number()
            );
        }
    }
}

#[test]
fn same_seed_same_move_and_seeds_vary_the_weak_levels() {
    let g = chessgold_engine::registry::variant("standard").expect("registered").new_game();
    for level in Level::all() {
        let a = choose_action(g.as_ref(), level, Limits::nodes(3_000), 42);
        let b = choose_action(g.as_ref(), level, Limits::nodes(3_000), 42);
        assert_eq!(a, b, "level {level}");
    }
    // Every variant the bot plays, from its start and after a few random plies.
    let mut rng = Rng(3);
    for info in variants().iter().filter(|v| supported(v.id)) {
        let mut g = info.new_seeded_game(5);
        for _ in 0..6 {
            let legal = g.legal_actions();
            g.play(&legal[rng.below(legal.len())]).expect("legal");
        }
        for level in [Level::MIN, Level::new(4).expect("1 to 8"), Level::MAX] {
            let a = analyse(g.as_ref(), level, Limits::nodes(3_000), 9);
            let b = analyse(g.as_ref(), level, Limits::nodes(3_000), 9);
            assert!(a.is_some(), "{}: no move in {}", info.id, g.fen());
            assert_eq!(a, b, "{} level {level}", info.id);
        }
    }
    let gold = chessgold_engine::registry::variant("gold").expect("registered").new_game();
    let a = analyse(gold.as_ref(), Level::MAX, Limits::nodes(20_000), 5);
    let b = analyse(gold.as_ref(), Level::MAX, Limits::nodes(20_000), 5);
    assert_eq!(a, b, "the whole analysis repeats");
    let level1 = Level::MIN;
    let moves: std::collections::BTreeSet<String> =
        (0..12).filter_map(|s| choose_action(g.as_ref(), level1, Limits::default(), s)).collect();
    assert!(moves.len() >= 3, "level 1 should vary with the seed: {moves:?}");
}

/// Plays level 8 (on a small node budget) against a uniformly random mover.
fn bot_vs_random(g: &mut Box<dyn AnyGame>, bot_white: bool, seed: u64) -> Option<&'static str> {
    let mut rng = Rng(seed);
    for ply in 0..300u64 {
        let legal = g.legal_actions();
        if legal.is_empty() {
            break;
        }
        let white_to_move = g.turn() == chessgold_engine::Color::White;
        let action = if white_to_move == bot_white {
            choose_action(g.as_ref(), Level::MAX, Limits::nodes(4_000), seed + ply).expect("a move")
        } else {
            legal[rng.below(legal.len())].clone()
        };
        g.play(&action).expect("legal");
    }
    g.snapshot().winner
}

#[test]
fn level_8_beats_a_random_mover_in_every_variant() {
    for info in variants().iter().filter(|v| supported(v.id)) {
        for (i, bot_white) in [true, false].into_iter().enumerate() {
            let mut g = info.new_seeded_game(i as u64);
            let winner = bot_vs_random(&mut g, bot_white, 11 + i as u64);
            let expected = if bot_white { "white" } else { "black" };
            assert_eq!(
                winner,
                Some(expected),
                "{}: {:?} after {}",
                info.id,
                g.snapshot().reason,
                g.actions().join(" ")
            );
        }
    }
}

#[test]
fn a_short_match_counts_every_game_and_alternates_colours() {
    let mut cfg = MatchConfig::new("gold", Player::Bot(Level::new(2).expect("level")), Player::Bot(Level::MIN), 2);
    cfg.max_plies = 60;
    let mut seen = Vec::new();
    let r = play_match(cfg, |p| seen.push((p.played, p.last.first_is_white))).expect("match");
    assert_eq!(r.wins + r.draws + r.losses, 2);
    assert_eq!(seen, vec![(1, true), (2, false)]);
    assert!(r.elo.is_some());
    for game in &r.games {
        assert!(game.actions.len() <= 60);
        if game.actions.len() == 60 {
            assert_eq!((game.score, game.reason.as_str()), (Score::Draw, "ply-limit"));
        }
    }
    // UCI engines play standard chess only; refused before any engine is started.
    let uci = Player::Uci { program: "/nonexistent/engine".into(), elo: None };
    let err = play_match(MatchConfig::new("gold", uci, Player::Bot(Level::MIN), 2), |_| {});
    assert!(err.is_err_and(|e| e.to_string().contains("standard")));
    assert!(
        play_match(MatchConfig::new("no-such", Player::Bot(Level::MIN), Player::Bot(Level::MIN), 1), |_| {}).is_err()
    );
}

#[test]
fn players_parse_from_the_command_line_forms() {
    assert_eq!("8".parse::<Player>(), Ok(Player::Bot(Level::MAX)));
    assert!(matches!("stockfish:1500".parse::<Player>(), Ok(Player::Uci { elo: Some(1500), .. })));
    assert_eq!(
        "uci:/opt/engine:1800".parse::<Player>(),
        Ok(Player::Uci { program: "/opt/engine".into(), elo: Some(1800) })
    );
    assert!("9".parse::<Player>().is_err() && "stockfish:strong".parse::<Player>().is_err());
}

#[test]
fn a_level_plays_against_stockfish() {
    // `scripts/test` installs Debian's stockfish; without it this test fails rather than skips.
    let sf = chessgold_bot::matches::STOCKFISH;
    assert!(std::path::Path::new(sf).exists(), "{sf} is missing: install Debian's stockfish (scripts/test does)");
    let mut cfg =
        MatchConfig::new("standard", Player::Bot(Level::MIN), Player::Uci { program: sf.into(), elo: Some(1320) }, 1);
    cfg.movetime_ms = Some(10);
    cfg.max_plies = 40;
    let r = play_match(cfg, |_| {}).expect("match");
    let game = &r.games[0];
    assert_ne!(game.reason, "illegal-action");
    assert_ne!(game.reason, "no-answer");
    assert!(game.actions.len() >= 5, "{game:?}");
}
