//! From a variant id to the typed code. The variants come from the engine's one list
//! ([`chessgold_engine::each_variant!`]): a registered variant without a [`BotVariant`]
//! implementation (its evaluation) does not compile.

use chessgold_engine::Variant;

use crate::eval::BotVariant;

/// Code generic over the variant, run by [`dispatch`] for a variant id.
pub trait WithVariant {
    /// What the code returns.
    type Output;
    /// Runs the code for variant `V`.
    fn run<V: BotVariant>(self) -> Self::Output;
}

/// [`dispatch`] over the engine's list of variants.
macro_rules! dispatch_over {
    ($($v:ty),+ $(,)?) => {
        /// Runs `f` for the variant `id`; `None` if no variant has that id.
        pub fn dispatch<F: WithVariant>(id: &str, f: F) -> Option<F::Output> {
            $(
                if id == <$v as Variant>::ID {
                    return Some(f.run::<$v>());
                }
            )+
            None
        }
    };
}

chessgold_engine::each_variant!(dispatch_over);
