//! Invariants checked over random playouts of every registered variant (the engine's one list,
//! `each_variant!`): every listed action is accepted, every other well-formed action is refused,
//! position text round-trips, the incremental hash equals a fresh one; and for `standard`, the legal moves equal those of the independent
//! `shakmaty` crate (a dev-dependency used only for this cross-check).

#![expect(clippy::expect_used, reason = "test helpers fail loudly on broken fixtures")]

use chessgold_engine::MoveKind;
use chessgold_engine::bitboard::BitBoard;
use chessgold_engine::game::move_text;
use chessgold_engine::geometry::Geometry;
use chessgold_engine::movegen::legal_noisy_moves;
use chessgold_engine::registry::variants;
use chessgold_engine::variants::standard::Standard;
use chessgold_engine::{Game, Position, Variant};
use proptest::prelude::*;

/// A small deterministic generator so a failing case reproduces from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Random well-formed action texts for the variant's board and letters.
fn random_text<V: Variant>(rng: &mut Rng) -> String {
    let sq = |rng: &mut Rng| {
        let s = rng.below(V::Geo::SQUARES);
        V::Geo::name(chessgold_engine::Square::new(s as u8)).to_string()
    };
    let letter = |rng: &mut Rng| V::PIECES[rng.below(V::PIECES.len())].letter;
    match rng.below(5) {
        0 | 1 => format!("{}{}", sq(rng), sq(rng)),
        2 => format!("{}{}{}", sq(rng), sq(rng), letter(rng).to_ascii_lowercase()),
        3 => format!("{}@{}", letter(rng), sq(rng)),
        _ => format!("{}={}", sq(rng), letter(rng)),
    }
}

fn check_position<V: Variant>(game: &Game<V>, rng: &mut Rng) {
    let pos = game.position();
    assert_eq!(pos.hash(), pos.compute_hash(), "incremental hash of {}", pos.fen());
    let fen = pos.fen();
    let reparsed = Position::<V>::from_fen(&fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    assert_eq!(reparsed.fen(), fen);
    assert_eq!(&reparsed, pos, "position text {fen} does not round-trip");
    // The noisy subset: exactly the legal captures, en passant captures and promotions.
    let mut noisy = Vec::new();
    legal_noisy_moves(pos, &mut noisy);
    let theirs = pos.board().by_color(!pos.turn());
    let mut expected: Vec<String> = game
        .legal()
        .iter()
        .filter(|m| {
            matches!(m.kind, MoveKind::EnPassant | MoveKind::Promotion) || (m.is_board_move() && theirs.contains(m.to))
        })
        .map(|m| move_text::<V>(*m))
        .collect();
    let mut got: Vec<String> = noisy.iter().map(|m| move_text::<V>(*m)).collect();
    expected.sort();
    got.sort();
    if game.outcome().is_none() {
        assert_eq!(got, expected, "noisy moves of {fen}");
    }
    let legal = game.legal_texts();
    let mut sorted = legal.clone();
    sorted.dedup();
    assert_eq!(sorted.len(), legal.len(), "one string per outcome: {legal:?}");
    for text in &legal {
        let m = game.parse(text).unwrap_or_else(|e| panic!("{fen}: listed {text} refused: {e}"));
        assert_eq!(&move_text::<V>(m), text);
    }
    for _ in 0..40 {
        let text = random_text::<V>(rng);
        let accepted = game.parse(&text).is_ok();
        assert_eq!(accepted, legal.contains(&text), "{fen}: {text} accepted={accepted}");
    }
}

/// Plays a random game of up to `plies` actions, checking every position on the way.
fn playout<V: Variant>(seed: u64, plies: usize) -> Game<V> {
    let mut rng = Rng(seed | 1);
    let mut game = Game::<V>::from_position_seeded(Position::start(), Some(seed));
    for _ in 0..plies {
        check_position(&game, &mut rng);
        if game.outcome().is_some() {
            assert!(game.legal().is_empty(), "a finished game has no legal actions");
            break;
        }
        let legal = game.legal().to_vec();
        if legal.is_empty() {
            // Only equips are left (Loot Boxes: a crown that makes a turn action possible): the
            // game goes on, so one of them must be listed.
            let equips = game.equips().to_vec();
            assert!(!equips.is_empty(), "{}: not over, but no action and no equip", game.position().fen());
            game.play(equips[rng.below(equips.len())]).expect("listed equip is playable");
            continue;
        }
        let m = legal[rng.below(legal.len())];
        let before = game.position().clone();
        // A refused action leaves the game unchanged.
        let bogus = random_text::<V>(&mut rng);
        if game.play_text(&bogus).is_err() {
            assert_eq!(game.position(), &before);
        } else {
            continue;
        }
        game.play(m).expect("listed action is playable");
    }
    game
}

/// Plies of a playout of each variant: fewer where playouts are slow or end late.
fn plies(id: &str) -> usize {
    match id {
        "standard" | "sandbox" | "class-warfare" => 120,
        "lootbox" => 100,
        "chessception" => 160,
        _ => 150,
    }
}

/// [`playout`] by variant id, over the engine's one list of variants.
macro_rules! playout_by_id {
    ($($v:ty),+ $(,)?) => {
        /// A playout of the registered variant `id`.
        fn playout_of(id: &str, seed: u64) {
            $(
                if id == <$v as Variant>::ID {
                    playout::<$v>(seed, plies(id));
                    return;
                }
            )+
            panic!("{id} is registered but not in each_variant!");
        }
    };
}

chessgold_engine::each_variant!(playout_by_id);

fn shakmaty_legal(fen: &str) -> Vec<String> {
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess, Position as _};
    let pos: Chess = fen.parse::<Fen>().expect("fen").into_position(CastlingMode::Standard).expect("legal position");
    let mut out: Vec<String> = pos.legal_moves().iter().map(|m| m.to_uci(CastlingMode::Standard).to_string()).collect();
    out.sort();
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Every registered variant, each in its own thread (named by the variant, so a failure
    /// names it).
    #[test]
    fn every_variant_keeps_invariants(seed in any::<u64>()) {
        std::thread::scope(|scope| {
            let runs: Vec<_> = variants()
                .iter()
                .map(|v| {
                    let thread = std::thread::Builder::new().name(v.id.to_string());
                    (v.id, thread.spawn_scoped(scope, move || playout_of(v.id, seed)).expect("a thread"))
                })
                .collect();
            for (id, run) in runs {
                assert!(run.join().is_ok(), "the playout of {id} from seed {seed} broke an invariant (see its panic)");
            }
        });
    }

    #[test]
    fn standard_matches_shakmaty(seed in any::<u64>()) {
        let mut rng = Rng(seed | 1);
        let mut game = Game::<Standard>::new();
        for _ in 0..150 {
            if game.outcome().is_some() {
                break;
            }
            let fen = game.position().fen();
            prop_assert_eq!(game.legal_texts(), shakmaty_legal(&fen), "{}", fen);
            let legal = game.legal().to_vec();
            game.play(legal[rng.below(legal.len())]).expect("legal");
        }
    }
}
