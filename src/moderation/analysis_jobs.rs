//! The moderators' engine analysis as background jobs (issue 15): a moderator asks for a user's
//! recent rated games to be analysed ([`request`], at most one job queued or running per user);
//! a worker of any instance ([`keep_analysing`]) claims the job, analyses the games one after the
//! other on the bot's search slots ([`super::analysis`]), writing the progress and the figures
//! after each game, then adds the reference figures of the bot levels (computed once per set-up
//! and kept in `analysis_references`). A claim is a lease the worker renews: when its server
//! dies, the job is claimed again once the lease runs out, by any instance.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use chessgold_bot::Level;
use chessgold_engine::Color;
use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use time::OffsetDateTime;
use tokio::sync::Notify;
use uuid::Uuid;

use super::analysis::{self, PlayerFigures, ReferenceSetup};
use super::log::{self, ModAction, Reason};
use crate::bots::Thinkers;
use crate::settings::AnalysisSettings;

/// The reason written in the mod log for a request (the form asks for none: an analysis
/// sanctions nobody).
const REQUEST_REASON: &str = "Engine analysis of the recent rated games";

/// The id of a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct JobId(pub i64);

/// Where a job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobState {
    /// Waiting for a worker.
    Queued,
    /// A worker is on it.
    Running,
    /// Finished: the figures are in.
    Done,
    /// Stopped by an error (named).
    Failed,
}

impl JobState {
    /// The stored text.
    pub const fn as_str(self) -> &'static str {
        match self {
            JobState::Queued => "queued",
            JobState::Running => "running",
            JobState::Done => "done",
            JobState::Failed => "failed",
        }
    }

    /// Reads the stored text.
    ///
    /// # Errors
    /// An unknown state, named.
    pub fn parse(text: &str) -> Result<JobState, String> {
        [JobState::Queued, JobState::Running, JobState::Done, JobState::Failed]
            .into_iter()
            .find(|s| s.as_str() == text)
            .ok_or_else(|| format!("unknown analysis job state '{}'", text.chars().take(40).collect::<String>()))
    }

    /// Still to finish (queued or running).
    pub const fn pending(self) -> bool {
        matches!(self, JobState::Queued | JobState::Running)
    }
}

/// One of the user's games in a job's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameResult {
    /// The game.
    pub game: String,
    /// Its variant id.
    pub variant: String,
    /// The user's colour, `white` or `black`.
    pub color: String,
    /// The user's figures.
    pub user: PlayerFigures,
    /// Their opponent's.
    pub opponent: PlayerFigures,
}

/// A bot level's figures in a variant, the reference to read the user's against.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceResult {
    /// The variant id.
    pub variant: String,
    /// The level, 1 to 8.
    pub level: u8,
    /// Its figures over its reference games, both sides added up.
    pub figures: PlayerFigures,
}

/// What a job found (stored as JSON), filled in as it runs.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct JobResult {
    /// The user's games, newest first.
    pub games: Vec<GameResult>,
    /// The bot levels' figures for each variant among the games.
    pub references: Vec<ReferenceResult>,
}

/// A job as the pages show it.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// Its id.
    pub id: JobId,
    /// Whose games.
    pub target: Uuid,
    /// The moderator who asked.
    pub requested_by: Uuid,
    /// When.
    pub created_at: OffsetDateTime,
    /// Where it is.
    pub state: JobState,
    /// The user's games it analyses (known once a worker has claimed it).
    pub games_total: i32,
    /// Those analysed so far.
    pub games_done: i32,
    /// The figures so far.
    pub result: JobResult,
    /// Why it failed.
    pub error: Option<String>,
    /// When it finished.
    pub finished_at: Option<OffsetDateTime>,
}

/// Queues an analysis of `target`'s games asked by `moderator`, with its mod-log row; when one
/// is already queued or running for them, that one is answered instead (and nothing logged).
/// Returns the job and whether it is new.
///
/// # Errors
/// Database failures.
pub async fn request(pool: &PgPool, moderator: Uuid, target: Uuid) -> anyhow::Result<(JobId, bool)> {
    let reason = Reason::parse(REQUEST_REASON).map_err(|e| anyhow::anyhow!(e))?;
    // A pending job may finish between the refused insert and the read: then try again.
    for _ in 0..3 {
        let mut tx = pool.begin().await.context("starting an analysis request")?;
        let created = sqlx::query_scalar!(
            "INSERT INTO analysis_jobs (target_id, requested_by) VALUES ($1, $2)
             ON CONFLICT (target_id) WHERE state IN ('queued', 'running') DO NOTHING RETURNING id",
            target,
            moderator
        )
        .fetch_optional(&mut *tx)
        .await
        .context("queueing an analysis")?;
        if let Some(id) = created {
            let entry = log::Entry {
                moderator: Some(moderator),
                target: Some(target),
                action: ModAction::AnalysisRequested,
                reason: &reason,
                details: serde_json::json!({ "job": id }),
            };
            log::append(&mut *tx, &entry).await?;
            tx.commit().await.context("committing an analysis request")?;
            return Ok((JobId(id), true));
        }
        tx.rollback().await.context("ending an analysis request")?;
        let pending = sqlx::query_scalar!(
            "SELECT id FROM analysis_jobs WHERE target_id = $1 AND state IN ('queued', 'running')",
            target
        )
        .fetch_optional(pool)
        .await
        .context("reading the pending analysis")?;
        if let Some(id) = pending {
            return Ok((JobId(id), false));
        }
    }
    anyhow::bail!("an analysis request kept meeting another one")
}

/// The latest job about `target`, if any.
///
/// # Errors
/// Database failures; a result this build cannot read.
pub async fn latest(pool: &PgPool, target: Uuid) -> anyhow::Result<Option<Job>> {
    let row = sqlx::query!(
        "SELECT id, target_id, requested_by, created_at, state, games_total, games_done, result, error, finished_at
         FROM analysis_jobs WHERE target_id = $1 ORDER BY id DESC LIMIT 1",
        target
    )
    .fetch_optional(pool)
    .await
    .context("reading the latest analysis")?;
    let Some(r) = row else { return Ok(None) };
    let result = match r.result {
        Some(v) => serde_json::from_value(v).context("reading an analysis result")?,
        None => JobResult::default(),
    };
    Ok(Some(Job {
        id: JobId(r.id),
        target: r.target_id,
        requested_by: r.requested_by,
        created_at: r.created_at,
        state: JobState::parse(&r.state).map_err(|e| anyhow::anyhow!(e))?,
        games_total: r.games_total,
        games_done: r.games_done,
        result,
        error: r.error,
        finished_at: r.finished_at,
    }))
}

/// A job a worker holds.
#[derive(Debug, Clone, Copy)]
struct Claimed {
    id: JobId,
    target: Uuid,
    /// This claim's token: every write checks it, so a worker that lost its lease writes nothing.
    claim: Uuid,
}

fn lease_secs(cfg: &AnalysisSettings) -> f64 {
    // Small integers: exact.
    cfg.lease_secs.max(1) as f64
}

/// Claims the oldest queued job, or a running one whose lease ran out (its worker died), and
/// starts it afresh. Two workers never claim the same job (`FOR UPDATE SKIP LOCKED`).
async fn claim(pool: &PgPool, cfg: &AnalysisSettings) -> anyhow::Result<Option<Claimed>> {
    let claim = Uuid::new_v4();
    let row = sqlx::query!(
        "UPDATE analysis_jobs SET state = 'running', claim = $1, claimed_until = now() + make_interval(secs => $2),
                games_done = 0, games_total = 0, result = NULL, error = NULL
         WHERE id = (SELECT id FROM analysis_jobs
                     WHERE state = 'queued' OR (state = 'running' AND claimed_until < now())
                     ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING id, target_id",
        claim,
        lease_secs(cfg)
    )
    .fetch_optional(pool)
    .await
    .context("claiming an analysis job")?;
    Ok(row.map(|r| Claimed { id: JobId(r.id), target: r.target_id, claim }))
}

/// Writes a running job's progress and figures so far and renews its lease; `false` when the
/// claim is no longer this worker's.
async fn progress(
    pool: &PgPool,
    job: &Claimed,
    cfg: &AnalysisSettings,
    total: i32,
    done: i32,
    result: &JobResult,
) -> anyhow::Result<bool> {
    let result = serde_json::to_value(result).context("writing an analysis result")?;
    let n = sqlx::query!(
        "UPDATE analysis_jobs SET games_total = $3, games_done = $4, result = $5,
                claimed_until = now() + make_interval(secs => $6)
         WHERE id = $1 AND claim = $2 AND state = 'running'",
        job.id.0,
        job.claim,
        total,
        done,
        result,
        lease_secs(cfg)
    )
    .execute(pool)
    .await
    .context("writing an analysis's progress")?
    .rows_affected();
    Ok(n == 1)
}

/// Renews a running job's lease; `false` when the claim is no longer this worker's.
async fn renew(pool: &PgPool, job: &Claimed, cfg: &AnalysisSettings) -> anyhow::Result<bool> {
    let n = sqlx::query!(
        "UPDATE analysis_jobs SET claimed_until = now() + make_interval(secs => $3)
         WHERE id = $1 AND claim = $2 AND state = 'running'",
        job.id.0,
        job.claim,
        lease_secs(cfg)
    )
    .execute(pool)
    .await
    .context("renewing an analysis's lease")?
    .rows_affected();
    Ok(n == 1)
}

/// Ends a job: done with its result, or failed with the error.
async fn finish(pool: &PgPool, job: &Claimed, outcome: &anyhow::Result<JobResult>) -> anyhow::Result<()> {
    let (state, result, error) = match outcome {
        Ok(r) => (JobState::Done, Some(serde_json::to_value(r).context("writing an analysis result")?), None),
        Err(e) => (JobState::Failed, None, Some(format!("{e:#}"))),
    };
    sqlx::query!(
        "UPDATE analysis_jobs SET state = $3, result = COALESCE($4, result), error = $5, finished_at = now(),
                claim = NULL, claimed_until = NULL
         WHERE id = $1 AND claim = $2 AND state = 'running'",
        job.id.0,
        job.claim,
        state.as_str(),
        result,
        error
    )
    .execute(pool)
    .await
    .context("ending an analysis job")?;
    Ok(())
}

/// What the worker needs.
#[derive(Debug, Clone)]
pub struct AnalysisCtx {
    /// PostgreSQL.
    pub pool: PgPool,
    /// The bot's search slots, shared with the live games.
    pub thinkers: Thinkers,
    /// The settings.
    pub cfg: Arc<AnalysisSettings>,
    /// Woken when a job is queued on this instance.
    pub wake: Arc<Notify>,
}

/// The key of a level's reference figures: (nodes, play nodes, games, plies) in the stored types.
fn reference_key(setup: &ReferenceSetup) -> anyhow::Result<(i64, i64, i32, i32)> {
    Ok((
        i64::try_from(setup.nodes).context("nodes")?,
        i64::try_from(setup.play_nodes).context("play nodes")?,
        i32::try_from(setup.games).context("games")?,
        i32::try_from(setup.plies).context("plies")?,
    ))
}

/// The cached figures of a level, or `None`.
async fn cached_reference(
    pool: &PgPool,
    variant: &str,
    level: Level,
    setup: &ReferenceSetup,
) -> anyhow::Result<Option<PlayerFigures>> {
    let (nodes, play_nodes, games, plies) = reference_key(setup)?;
    let row = sqlx::query!(
        "SELECT moves, top_matches, losses, avg_loss_cp FROM analysis_references
         WHERE variant = $1 AND level = $2 AND nodes = $3 AND play_nodes = $4 AND games = $5 AND plies = $6",
        variant,
        i16::from(level.number()),
        nodes,
        play_nodes,
        games,
        plies
    )
    .fetch_optional(pool)
    .await
    .context("reading reference figures")?;
    row.map(|r| {
        Ok(PlayerFigures {
            moves: u32::try_from(r.moves).context("moves")?,
            top_matches: u32::try_from(r.top_matches).context("matches")?,
            avg_loss_cp: r.avg_loss_cp,
            losses: u32::try_from(r.losses).context("losses")?,
        })
    })
    .transpose()
}

/// The figures of `level` in `variant`: from the cache, else played, analysed and kept.
async fn reference(ctx: &AnalysisCtx, variant: &'static str, level: Level) -> anyhow::Result<PlayerFigures> {
    let setup = ReferenceSetup::from_settings(&ctx.cfg);
    if setup.games == 0 || setup.plies == 0 {
        return Ok(PlayerFigures::default());
    }
    if let Some(f) = cached_reference(&ctx.pool, variant, level, &setup).await? {
        return Ok(f);
    }
    let info = chessgold_engine::registry::variant(variant).context("a registered variant")?;
    let f = analysis::reference_figures(&ctx.thinkers, info, level, &setup).await?;
    let (nodes, play_nodes, games, plies) = reference_key(&setup)?;
    sqlx::query!(
        "INSERT INTO analysis_references
                (variant, level, nodes, play_nodes, games, plies, moves, top_matches, losses, avg_loss_cp)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING",
        variant,
        i16::from(level.number()),
        nodes,
        play_nodes,
        games,
        plies,
        i32::try_from(f.moves).context("moves")?,
        i32::try_from(f.top_matches).context("matches")?,
        i32::try_from(f.losses).context("losses")?,
        f.avg_loss_cp
    )
    .execute(&ctx.pool)
    .await
    .context("keeping reference figures")?;
    Ok(f)
}

/// Runs a claimed job; `Ok(None)` when the claim was lost on the way (another worker has it).
async fn analyse_job(ctx: &AnalysisCtx, job: &Claimed) -> anyhow::Result<Option<JobResult>> {
    let (pool, cfg) = (&ctx.pool, &ctx.cfg);
    let games = analysis::rated_games(pool, job.target, i64::from(cfg.games)).await?;
    let total = i32::try_from(games.len()).context("games")?;
    let mut result = JobResult::default();
    if !progress(pool, job, cfg, total, 0, &result).await? {
        return Ok(None);
    }
    for (done, g) in (1..).zip(&games) {
        let u = analysis::analyse_rated_game(pool, &ctx.thinkers, g, cfg.nodes).await?;
        result.games.push(GameResult {
            game: u.game,
            variant: u.variant,
            color: match u.color {
                Color::White => "white".into(),
                Color::Black => "black".into(),
            },
            user: u.figures,
            opponent: u.opponent,
        });
        if !progress(pool, job, cfg, total, done, &result).await? {
            return Ok(None);
        }
    }
    let mut variants: Vec<&'static str> = Vec::new();
    for g in &games {
        if !variants.contains(&g.variant) {
            variants.push(g.variant);
        }
    }
    for variant in variants {
        for level in cfg.levels.iter().filter_map(|n| Level::new(*n)) {
            let figures = reference(ctx, variant, level).await?;
            result.references.push(ReferenceResult { variant: variant.to_string(), level: level.number(), figures });
            if !progress(pool, job, cfg, total, total, &result).await? {
                return Ok(None);
            }
        }
    }
    Ok(Some(result))
}

/// Runs a claimed job to its end, renewing its lease meanwhile.
async fn run(ctx: &AnalysisCtx, job: Claimed) {
    let work = analyse_job(ctx, &job);
    tokio::pin!(work);
    let mut tick = tokio::time::interval(Duration::from_secs((ctx.cfg.lease_secs / 3).max(1)));
    tick.tick().await;
    let outcome = loop {
        tokio::select! {
            r = &mut work => break r,
            _ = tick.tick() => match renew(&ctx.pool, &job, &ctx.cfg).await {
                Ok(true) => {}
                Ok(false) => break Ok(None),
                Err(e) => tracing::warn!(error = format!("{e:#}"), job = job.id.0, "could not renew an analysis's lease"),
            },
        }
    };
    let outcome = match outcome {
        Ok(None) => {
            tracing::info!(job = job.id.0, "an analysis job was taken over by another worker");
            return;
        }
        Ok(Some(r)) => Ok(r),
        Err(e) => Err(e),
    };
    if let Err(e) = &outcome {
        tracing::warn!(error = format!("{e:#}"), job = job.id.0, "an analysis job failed");
    }
    if let Err(e) = finish(&ctx.pool, &job, &outcome).await {
        tracing::warn!(error = format!("{e:#}"), job = job.id.0, "could not end an analysis job");
    }
}

/// The worker: runs the claimable jobs one after the other, then waits to be woken (a job
/// queued on this instance) or for the next poll (one queued elsewhere, or a lease run out).
/// Never returns.
pub async fn keep_analysing(ctx: AnalysisCtx) {
    let mut poll = tokio::time::interval(Duration::from_secs(ctx.cfg.poll_secs.max(1)));
    loop {
        loop {
            match claim(&ctx.pool, &ctx.cfg).await {
                Ok(Some(job)) => run(&ctx, job).await,
                Ok(None) => break,
                Err(e) => {
                    tracing::warn!(error = format!("{e:#}"), "could not look for analysis jobs");
                    break;
                }
            }
        }
        tokio::select! {
            _ = poll.tick() => {}
            () = ctx.wake.notified() => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_round_trip() {
        for s in [JobState::Queued, JobState::Running, JobState::Done, JobState::Failed] {
            assert_eq!(JobState::parse(s.as_str()), Ok(s));
        }
        assert!(JobState::parse("lost").unwrap_err().contains("'lost'"));
        assert!(JobState::Running.pending() && !JobState::Done.pending());
    }
}
