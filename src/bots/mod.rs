//! Bot players: the computer in a seat of a live game. The round of a game asks [`Thinkers`]
//! for the bot's action when the bot is to move; the search (`chessgold-bot`) runs on the
//! blocking threads behind a semaphore sized to the CPU count, so that many bot games at once
//! leave the async threads to the site. The action then goes through the same validation and
//! commit path as a human's.

pub mod http;

use std::sync::Arc;
use std::time::{Duration, Instant};

use chessgold_bot::{Level, Limits, WithVariant, dispatch};
use chessgold_engine::registry::AnyGame;
use tokio::sync::Semaphore;

use crate::settings::GameSettings;

/// The name a bot plays under: `Chess Gold bot · level 3 (Casual)`.
pub fn display_name(level: Level) -> String {
    format!("Chess Gold bot · level {} ({})", level.number(), level.spec().name)
}

/// Whether the bot plays the variant `id` (the bot crate's `dispatch` knows it).
/// Whether the computer plays the variant `id`.
pub fn plays(id: &str) -> bool {
    struct Known;
    impl WithVariant for Known {
        type Output = ();
        fn run<V: chessgold_bot::BotVariant>(self) {}
    }
    dispatch(id, Known).is_some()
}

/// The game as the bot may see it: for a variant with random events (Loot Boxes) the current
/// position rebuilt from its text with a made-up seed, so the search never learns what the next
/// boxes hold (the repetition history is lost there; the search hides the seed too). Other
/// variants keep the game with its history.
///
/// # Errors
/// The position text does not read back (an engine bug).
pub fn bot_view(game: &dyn AnyGame, stand_in: u64) -> anyhow::Result<Box<dyn AnyGame>> {
    let info = game.info();
    if !info.seeded {
        return Ok(game.boxed_clone());
    }
    info.seeded_game_from_fen(&game.fen(), stand_in)
        .map_err(|e| anyhow::anyhow!("the position of a seeded game does not read back: {e}"))
}

/// The budget of one bot move: the bot's own clock (remaining and increment, milliseconds) in a
/// clocked game, a fixed time per move in an unlimited one.
pub fn limits(clock: Option<(i64, i64)>, cfg: &GameSettings) -> Limits {
    match clock {
        Some((remaining_ms, increment_ms)) => {
            Limits::clock(u64::try_from(remaining_ms).unwrap_or(0), u64::try_from(increment_ms).unwrap_or(0))
        }
        None => Limits::movetime(cfg.bot_movetime_ms),
    }
}

/// Nodes of the quick answer a bot gives when the search queue would make it lose on time (a
/// few milliseconds of work).
pub const QUICK_NODES: u64 = 2_000;

/// The bots' share of the machine: at most `permits` searches at once, on blocking threads.
#[derive(Debug, Clone)]
pub struct Thinkers {
    permits: Arc<Semaphore>,
    size: usize,
}

/// How many searches may run at once: the setting, or the CPU count when it is 0.
pub fn concurrency(cfg: &GameSettings) -> usize {
    match cfg.bot_max_searches {
        0 => std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
        n => n,
    }
}

impl Thinkers {
    /// Room for `size` searches at once (at least one).
    pub fn new(size: usize) -> Thinkers {
        let size = size.max(1);
        Thinkers { permits: Arc::new(Semaphore::new(size)), size }
    }

    /// How many searches may run at once.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Runs a blocking search `f` in a search slot, waiting for a free one (first come, first
    /// served, with the live games' bots): the moderators' engine analysis runs its positions
    /// this way, one at a time. `None` if the search panicked.
    pub async fn run<T: Send + 'static>(&self, f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        let permit = self.permits.clone().acquire_owned().await.ok()?;
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            f()
        })
        .await
        .ok()
    }

    /// The action `level` plays in `game` (already the bot's view of it), within `limits`;
    /// `None` when the search has nothing to say (game over, no bot for the variant). The time
    /// spent waiting for a free search slot is taken off a clocked budget. When no slot frees up
    /// within `max_wait` (the machine is overloaded and the bot's clock or first-move allowance
    /// would run out in the queue), the bot answers at once from a tiny search
    /// ([`QUICK_NODES`]) outside the queue rather than lose on time.
    pub async fn think(
        &self,
        game: Box<dyn AnyGame>,
        level: Level,
        limits: Limits,
        seed: u64,
        max_wait: Option<Duration>,
    ) -> Option<String> {
        let asked = Instant::now();
        let acquire = self.permits.clone().acquire_owned();
        let permit = match max_wait {
            Some(wait) => tokio::time::timeout(wait, acquire).await.ok(),
            None => Some(acquire.await),
        };
        let Some(Ok(permit)) = permit else {
            tracing::info!(bot.level = level.number(), "bot searches are queued too long: a quick answer");
            let quick = tokio::task::spawn_blocking(move || {
                chessgold_bot::choose_action(game.as_ref(), level, Limits::nodes(QUICK_NODES), seed)
            });
            return quick.await.ok().flatten().filter(|a| !a.is_empty());
        };
        let mut limits = limits;
        if let Some(rem) = limits.remaining_ms {
            let waited = u64::try_from(asked.elapsed().as_millis()).unwrap_or(u64::MAX);
            limits.remaining_ms = Some(rem.saturating_sub(waited));
        }
        let started = Instant::now();
        let answer = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            chessgold_bot::choose_action(game.as_ref(), level, limits, seed)
        })
        .await;
        let spent = started.elapsed();
        if spent > Duration::from_secs(5) {
            tracing::info!(bot.level = level.number(), ms = spent.as_millis() as u64, "long bot search");
        }
        match answer {
            Ok(a) => a.filter(|a| !a.is_empty()),
            Err(e) => {
                tracing::error!(error = %e, "a bot search failed");
                None
            }
        }
    }
}

/// A seed for one bot move (the bot's own randomness, never the game's).
pub fn move_seed() -> u64 {
    let mut b = [0u8; 8];
    if getrandom::fill(&mut b).is_err() {
        return 0x5EED;
    }
    u64::from_le_bytes(b)
}

#[cfg(test)]
mod tests {
    use chessgold_engine::registry::variant;

    use super::*;

    #[test]
    fn names_and_known_variants() {
        let l3 = Level::new(3).unwrap();
        assert_eq!(display_name(l3), "Chess Gold bot · level 3 (Casual)");
        assert!(plays("standard") && plays("gold") && plays("lootbox"));
        assert!(!plays("nonsense"));
    }

    #[test]
    fn the_bot_view_of_a_loot_box_game_has_another_seed_and_the_same_position() {
        let info = variant("lootbox").unwrap();
        let mut game = info.new_seeded_game(12345);
        for a in ["e1d2", "e8d7"] {
            game.play(a).unwrap();
        }
        let view = bot_view(game.as_ref(), 99).unwrap();
        assert_eq!(view.fen(), game.fen());
        assert_eq!(view.seed(), Some(99));
        assert_eq!(view.legal_actions(), game.legal_actions());
        let std = variant("standard").unwrap().new_game();
        assert_eq!(bot_view(std.as_ref(), 1).unwrap().seed(), None);
    }

    #[tokio::test]
    async fn thinkers_answer_a_legal_action() {
        let t = Thinkers::new(1);
        let game = variant("standard").unwrap().new_game();
        let legal = game.legal_actions();
        let a = t.think(game.boxed_clone(), Level::new(2).unwrap(), Limits::nodes(500), 1, None).await.unwrap();
        assert!(legal.contains(&a));
        // With the only slot taken, a bot in a hurry answers quickly all the same.
        let held = t.permits.clone().acquire_owned().await.unwrap();
        let wait = Some(Duration::from_millis(20));
        let a = t.think(game, Level::MAX, Limits::movetime(60_000), 1, wait).await.unwrap();
        assert!(legal.contains(&a));
        drop(held);
    }
}
