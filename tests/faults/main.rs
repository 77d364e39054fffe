//! Fault drills: the real application, two instances, on a private Redis and a private
//! PostgreSQL that the tests cut, stop and start in the middle of games. Each drill asserts that
//! no acknowledged move is lost and what the clocks show. A binary of its own, so it runs beside
//! the other tests (`scripts/test`); the drills and what an operator sees are in
//! `docs/operations.md`.
#![expect(clippy::expect_used, reason = "test support code: a failed setup step should fail the test loudly")]

mod client;
mod database;
mod instances;
mod pubsub;
mod services;
