//! Chess Gold: a lichess-style platform for chess variants with an economy.
//!
//! This crate is the service and the `chessgold` command; the rules live in
//! `chessgold-engine`.

pub mod cli;
