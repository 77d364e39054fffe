//! Bot turns: the round plays for the bots seated in its game, asking [`Thinkers`](crate::bots::Thinkers) for an action
//! off the async threads and playing it through the same commit as a person's action; it answers
//! the opponent's offers for the bot.

use std::time::{Duration, Instant};

use chessgold_engine::Color;
use time::OffsetDateTime;
use tokio::sync::oneshot;

use super::{Applied, Round};
use crate::bots;

/// A bot search under way: the position it was asked about and where its answer comes.
pub(super) struct Thinking {
    plies: usize,
    fen: String,
    answer: oneshot::Receiver<Option<String>>,
}

/// The answer of the search under way (pending forever when there is none).
pub(super) async fn next_thought(thinking: &mut Option<Thinking>) -> Option<String> {
    match thinking {
        Some(t) => (&mut t.answer).await.ok().flatten(),
        None => std::future::pending().await,
    }
}

impl Round {
    /// Plays for the bots of the game: answers the opponent's offers, and starts a search when a
    /// bot is to move and none runs for this position.
    pub(super) async fn bot_turn(&mut self) {
        let bots: Vec<(Color, chessgold_bot::Level)> = self.live.bots().collect();
        if bots.is_empty() || self.bot_pause_until.is_some_and(|t| Instant::now() < t) {
            return;
        }
        let now = OffsetDateTime::now_utc();
        let cfg = self.ctx.cfg.clone();
        for (seat, _) in bots {
            let offers = self.live.offers;
            // The bot plays every game to its end: it declines draws. It grants takebacks (casual
            // games only, as every game against it is), as lichess's AI does.
            let result = if offers.draw == Some(!seat) {
                self.commit_op(None, |live| live.draw_no(seat)).await
            } else if offers.takeback == Some(!seat) {
                self.commit_op(None, |live| live.takeback_yes(seat, now, &cfg)).await
            } else if offers.rematch == Some(!seat) && self.live.rematch_id.is_none() {
                self.commit_op(None, |live| live.rematch_yes(seat)).await
            } else {
                continue;
            };
            if !matches!(result, Applied::Done) {
                tracing::warn!(game.id = %self.live.id, result = ?result, "a bot could not answer an offer");
                self.bot_pause_until = Some(Instant::now() + Duration::from_secs(1));
            }
        }
        let Some((_, level)) = self.live.bot_to_move() else {
            self.thinking = None;
            return;
        };
        let plies = self.live.actions.len();
        let fen = self.live.engine.fen();
        if self.thinking.as_ref().is_some_and(|t| t.plies == plies && t.fen == fen) {
            return;
        }
        let view = match bots::bot_view(self.live.engine.as_ref(), bots::move_seed()) {
            Ok(v) => v,
            Err(e) => {
                tracing::error!(game.id = %self.live.id, error = format!("{e:#}"), "no bot view");
                return self.bot_fallback().await;
            }
        };
        // No first move is due in a game with a bot, and the clocks start after both first
        // turns: the bot's first turn is planned on its whole clock, which does not run yet.
        let clock = match (self.live.clocks_at(now), self.live.clock) {
            (Some(c), Some(tc)) => {
                let side = self.live.engine.turn().index();
                Some((i64::from(c[side]) * 10, i64::from(tc.increment) * 10))
            }
            _ => None,
        };
        let limits = bots::limits(clock, &cfg);
        // A quarter of the time left on the running clock may go on waiting for a search slot;
        // where nothing runs (unlimited games, the first turns) the wait costs nothing.
        let max_wait = self.live.deadline(&cfg).map(|d| {
            let left = (d - now).whole_milliseconds().max(0);
            Duration::from_millis(u64::try_from(left / 4).unwrap_or(0))
        });
        let (tx, answer) = oneshot::channel();
        let thinkers = self.ctx.thinkers.clone();
        let seed = bots::move_seed();
        tokio::spawn(async move {
            let action = thinkers.think(view, level, limits, seed, max_wait).await;
            let _ = tx.send(action);
        });
        self.thinking = Some(Thinking { plies, fen, answer });
    }

    /// The bot's search answered: plays the action if the position is still the one it was asked
    /// about.
    pub(super) async fn on_thought(&mut self, answer: Option<String>) {
        let Some(asked) = self.thinking.take() else { return };
        // A clock that ran out meanwhile ends the game first.
        self.on_deadline().await;
        let Some((seat, _)) = self.live.bot_to_move() else { return };
        let plies = self.live.actions.len();
        if asked.plies != plies || asked.fen != self.live.engine.fen() {
            // The game moved on meanwhile (a reload): `bot_turn` asks again.
            return;
        }
        let Some(action) = answer else {
            tracing::warn!(game.id = %self.live.id, "the bot's search gave no action");
            return self.bot_fallback().await;
        };
        let now = OffsetDateTime::now_utc();
        let cfg = self.ctx.cfg.clone();
        match self.commit_op(None, |live| live.play(seat, &action, plies, None, now, &cfg)).await {
            Applied::Done | Applied::Conflict => {}
            Applied::Failed => self.bot_pause_until = Some(Instant::now() + Duration::from_secs(1)),
            Applied::Refused(code, message) => {
                tracing::error!(game.id = %self.live.id, code = %code, message, action, "the bot's action was refused");
                self.bot_fallback().await;
            }
        }
    }

    /// When the search fails: the bot plays a random legal action rather than stall (its clock
    /// would run out anyway).
    pub(super) async fn bot_fallback(&mut self) {
        let Some((seat, _)) = self.live.bot_to_move() else { return };
        let legal = self.live.engine.legal_actions();
        if legal.is_empty() {
            return;
        }
        let pick = legal[(bots::move_seed() % legal.len() as u64) as usize].clone();
        let plies = self.live.actions.len();
        let now = OffsetDateTime::now_utc();
        let cfg = self.ctx.cfg.clone();
        let result = self.commit_op(None, |live| live.play(seat, &pick, plies, None, now, &cfg)).await;
        if !matches!(result, Applied::Done) {
            tracing::error!(game.id = %self.live.id, result = ?result, "the bot's fallback action failed");
            self.bot_pause_until = Some(Instant::now() + Duration::from_secs(1));
        }
    }
}
