//! Chess Gold: a lichess-style platform for chess variants with an economy.
//!
//! This crate is the service and the `chessgold` command; the rules live in
//! `chessgold-engine`.

pub mod api;
pub mod assets;
pub mod auth;
pub mod bots;
pub mod broker;
pub mod cli;
pub mod compress;
pub mod db;
pub mod domain;
pub mod error;
pub mod game;
#[cfg(test)]
mod layering;
pub mod load;
pub mod lobby;
pub mod metrics;
pub mod middleware;
pub mod moderation;
pub mod notify;
pub mod operator;
pub mod pages;
pub mod rating;
pub mod routes;
pub mod session_store;
pub mod settings;
pub mod startup;
pub mod telemetry;
