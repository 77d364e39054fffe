//! Moderation (issue 15), the domain and its storage: roles and their changes, the append-only
//! mod log, players' reports and the moderators' queue, players' blocks, sanctions (chat timeouts
//! and shadow-mutes, engine and booster marks with the rating refund, account closures, play
//! bans) and the moderators' engine analysis. No HTTP here: the `/mod` pages and the API call
//! these functions.
//! `docs/moderation.md` describes what exists.
//!
//! Every moderation action goes through [`log::append`] in the transaction that makes it, and
//! closes the open reports it answers ([`reports::close_open`]) in the same transaction.

pub mod analysis;
pub mod analysis_jobs;
pub mod blocks;
pub mod closure;
pub mod log;
pub mod lookup;
pub mod marks;
pub mod playban;
pub mod reports;
pub mod roles;
pub mod sanctions;

pub use self::log::{LogId, ModAction, Reason};
