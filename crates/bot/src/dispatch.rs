//! From a variant id to the typed code: the one place that lists the variants the bot plays.

use chessgold_engine::Variant;
use chessgold_engine::variants::chessception::Chessception;
use chessgold_engine::variants::class_warfare::ClassWarfare;
use chessgold_engine::variants::electrum::Electrum;
use chessgold_engine::variants::gold::{ChessGold, Conqueror, ConquerorGold, Sandbox};
use chessgold_engine::variants::grunt::Grunt;
use chessgold_engine::variants::lootbox::LootBox;
use chessgold_engine::variants::standard::Standard;

use crate::eval::BotVariant;

/// Code generic over the variant, run by [`dispatch`] for a variant id.
pub trait WithVariant {
    /// What the code returns.
    type Output;
    /// Runs the code for variant `V`.
    fn run<V: BotVariant>(self) -> Self::Output;
}

/// Runs `f` for the variant `id`; `None` if the bot does not know the variant.
pub fn dispatch<F: WithVariant>(id: &str, f: F) -> Option<F::Output> {
    match id {
        _ if id == Standard::ID => Some(f.run::<Standard>()),
        _ if id == ChessGold::ID => Some(f.run::<ChessGold>()),
        _ if id == Sandbox::ID => Some(f.run::<Sandbox>()),
        _ if id == Conqueror::ID => Some(f.run::<Conqueror>()),
        _ if id == ConquerorGold::ID => Some(f.run::<ConquerorGold>()),
        _ if id == LootBox::ID => Some(f.run::<LootBox>()),
        _ if id == Electrum::ID => Some(f.run::<Electrum>()),
        _ if id == ClassWarfare::ID => Some(f.run::<ClassWarfare>()),
        _ if id == Grunt::ID => Some(f.run::<Grunt>()),
        _ if id == Chessception::ID => Some(f.run::<Chessception>()),
        _ => None,
    }
}
