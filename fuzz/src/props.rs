//! The properties of the engine's parsers that the fuzz targets check, on any input.
//!
//! Shared by the fuzz targets (`fuzz/fuzz_targets/`) and by the engine's test suite, which
//! replays the committed corpora through the same functions (`crates/engine/tests/fuzz_corpora.rs`).
//! The first byte of an input chooses the variant; the rest is the text.

use chessgold_engine::action::ActionText;
use chessgold_engine::explain::UNEXPLAINED;
use chessgold_engine::registry::{VariantInfo, variants};
use chessgold_engine::{AnyGame, variant};

/// The variant chosen by an input's first byte, and the rest of the input.
fn split(data: &[u8]) -> Option<(&'static VariantInfo, &[u8])> {
    let (&first, rest) = data.split_first()?;
    let all = variants();
    Some((&all[usize::from(first) % all.len()], rest))
}

/// The action notation. Input: variant byte, a byte that picks the position (that many plies of
/// a fixed walk from the start, up to 31), then the action text.
///
/// Parsing never panics. An accepted text is a listed action or equip, its written form is
/// accepted as itself, and playing either gives the same game. A refused text gets a reason (never
/// the engine's "no rule was found") and leaves the game exactly as it was: nothing is applied half.
pub fn action_notation(data: &[u8]) {
    let Some((info, rest)) = split(data) else { return };
    let Some((&walk, text)) = rest.split_first() else { return };
    let Ok(text) = std::str::from_utf8(text) else { return };
    let mut game = info.new_seeded_game(u64::from(walk));
    let mut pick = u32::from(walk);
    for _ in 0..walk % 32 {
        let legal = game.legal_actions();
        if legal.is_empty() {
            break;
        }
        pick = pick.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let action = &legal[(pick >> 8) as usize % legal.len()];
        if let Err(e) = game.play(action) {
            panic!("{}: the listed {action} is refused: {e}", info.id);
        }
    }
    check_action(game.as_mut(), text);
}

/// Checks one action text in one game (see [`action_notation`]).
pub fn check_action(game: &mut dyn AnyGame, text: &str) {
    let id = game.info().id;
    let _ = ActionText::parse(text);
    let before = (game.fen(), game.legal_actions(), game.actions(), game.snapshot());
    match game.check_action(text) {
        Ok(written) => {
            let listed =
                before.1.contains(&written) || before.3.state.equips.as_ref().is_some_and(|e| e.contains(&written));
            assert!(listed, "{id} {}: {text:?} is accepted as {written}, which is not listed", before.0);
            assert_eq!(game.check_action(&written).as_deref(), Ok(written.as_str()), "{id} {}: {written}", before.0);
            let mut other = game.boxed_clone();
            assert_eq!(game.play(text).as_deref(), Ok(written.as_str()), "{id} {}: {text:?}", before.0);
            assert_eq!(other.play(&written).as_deref(), Ok(written.as_str()), "{id} {}: {written}", before.0);
            assert_eq!(game.fen(), other.fen(), "{id} {}: {text:?} and {written} differ", before.0);
        }
        Err(refused) => {
            let why = refused.message();
            assert!(!why.is_empty(), "{id} {}: {text:?} refused without a reason", before.0);
            assert!(!why.contains(UNEXPLAINED), "{id} {}: {text:?}: {why}", before.0);
            assert_eq!(game.play(text), Err(refused.clone()), "{id} {}: {text:?}", before.0);
            let after = (game.fen(), game.legal_actions(), game.actions(), game.snapshot());
            assert!(after == before, "{id} {}: the refused {text:?} changed the game", before.0);
        }
    }
}

/// The position text. Input: variant byte, then the text.
///
/// Reading never panics, and a refusal says why. A text that is read is written back as a text
/// that reads to the same game (text, legal actions, equips, result), and every legal action and
/// equip of it can be played, giving a position whose text reads back to itself.
pub fn position_text(data: &[u8]) {
    let Some((info, rest)) = split(data) else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let game = match info.game_from_fen(text) {
        Ok(game) => game,
        Err(e) => {
            assert!(!e.message().is_empty(), "{}: {text:?} refused without a reason", info.id);
            return;
        }
    };
    let id = info.id;
    let fen = game.fen();
    let again = reread(info, &fen);
    let (first, second) = (game.snapshot(), again.snapshot());
    assert_eq!(second.fen, fen, "{id}: {text:?}");
    assert_eq!(second.legal, first.legal, "{id}: {text:?} read back from {fen}");
    assert_eq!(second.state.equips, first.state.equips, "{id}: {text:?} read back from {fen}");
    assert_eq!((second.status, second.reason), (first.status, first.reason), "{id}: {text:?} read back from {fen}");
    let actions = first.legal.iter().chain(first.state.equips.iter().flatten());
    for action in actions.take(48) {
        let mut next = game.boxed_clone();
        if let Err(e) = next.play(action) {
            panic!("{id} {fen}: the listed {action} is refused: {e}");
        }
        let written = next.fen();
        assert_eq!(reread(info, &written).fen(), written, "{id} {fen}: after {action}");
    }
}

/// A game read from a text the engine wrote, which must be readable.
fn reread(info: &VariantInfo, fen: &str) -> Box<dyn AnyGame> {
    match variant(info.id).map(|v| v.game_from_fen(fen)) {
        Some(Ok(game)) => game,
        Some(Err(e)) => panic!("{}: the engine's own text {fen} is refused: {e}", info.id),
        None => panic!("{} is not registered", info.id),
    }
}
