//! One module per variant.

pub mod chessception;
pub mod class_warfare;
pub mod electrum;
pub mod gold;
pub mod grunt;
pub mod lootbox;
pub mod standard;

/// Declares the static piece tables of a variant (inside its `impl Variant`).
macro_rules! piece_tables {
    ($bb:ty) => {
        fn piece_tables() -> &'static $crate::pieces::PieceTables<$bb> {
            static TABLES: std::sync::OnceLock<$crate::pieces::PieceTables<$bb>> = std::sync::OnceLock::new();
            TABLES.get_or_init(|| {
                $crate::pieces::PieceTables::build::<<Self as $crate::variant::Variant>::Geo>(
                    <Self as $crate::variant::Variant>::PIECES,
                )
            })
        }
    };
}
pub(crate) use piece_tables;
