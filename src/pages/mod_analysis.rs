//! The moderators' engine-analysis pages (issue 15): the request form's handler (on a user's mod
//! view), the page of the latest analysis of a user (its progress, the figures of each game and
//! the bot levels' reference figures) and its progress as JSON, which the page's script polls
//! while the job runs. The jobs themselves are `crate::moderation::analysis_jobs`'s.

use actix_session::Session;
use actix_web::http::header;
use actix_web::{HttpResponse, web};
use askama::Template;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::{PageCtx, render};
use crate::auth::roles::{ModForm, Moderator};
use crate::error::PageError;
use crate::moderation::analysis::PlayerFigures;
use crate::moderation::analysis_jobs::{self, Job, JobState};
use crate::moderation::lookup;
use crate::startup::AppState;

/// "2026-12-02 14:05 UTC".
fn time_text(at: OffsetDateTime) -> String {
    let at = at.to_offset(time::UtcOffset::UTC);
    format!("{} {:02}:{:02} UTC", at.date(), at.hour(), at.minute())
}

fn variant_name(id: &str) -> String {
    chessgold_engine::registry::variant(id).map_or_else(|| id.to_string(), |v| v.name.to_string())
}

/// "75%".
fn share_text(f: &PlayerFigures) -> String {
    format!("{:.0}%", f.top_share() * 100.0)
}

/// "12".
fn loss_text(f: &PlayerFigures) -> String {
    format!("{:.0}", f.avg_loss_cp)
}

/// Where a job is, in words: "3 of 10 games analysed".
fn progress_text(job: &Job) -> String {
    let games = format!("{} of {} games analysed", job.games_done, job.games_total);
    match job.state {
        JobState::Queued => "Queued: waiting for a search slot.".to_string(),
        JobState::Running if job.games_total == 0 && job.result.references.is_empty() => {
            "Started: finding the games.".to_string()
        }
        JobState::Running if job.games_done >= job.games_total => {
            format!("{games}; now the bot levels' reference figures.")
        }
        JobState::Running => format!("{games}."),
        JobState::Done => format!("Done: {games}."),
        JobState::Failed => format!("Failed after {games}."),
    }
}

/// The request form: only its CSRF token.
#[derive(Debug, Deserialize)]
pub struct RequestForm {
    #[serde(default)]
    csrf_token: String,
}

crate::csrf_field!(RequestForm);

/// A moderator asks for an analysis of `username`'s recent rated games: queued (or the one
/// queued or running already answered), then to its page.
#[tracing::instrument(skip_all)]
pub(crate) async fn request(
    state: web::Data<AppState>,
    path: web::Path<String>,
    posted: ModForm<RequestForm>,
) -> Result<HttpResponse, PageError> {
    let user = lookup::account(&state.pool, &path).await?.ok_or(PageError::NotFound)?;
    let (_, new) = analysis_jobs::request(&state.pool, posted.by.id, user.id).await?;
    if new {
        state.analysis.wake.notify_one();
    }
    Ok(HttpResponse::SeeOther().insert_header((header::LOCATION, format!("/mod/@/{}/analysis", user.name))).finish())
}

/// The progress of a job, as the page shows it.
#[derive(Debug, Clone)]
pub struct JobView {
    /// `queued`, `running`, `done` or `failed`.
    pub state: &'static str,
    /// Still queued or running (the page polls).
    pub pending: bool,
    /// Games analysed.
    pub done: i32,
    /// Games to analyse (0 until a worker has claimed the job).
    pub total: i32,
    /// The progress in words.
    pub text: String,
    /// Asked for (UTC).
    pub requested: String,
    /// Finished (UTC).
    pub finished: Option<String>,
    /// Why it failed.
    pub error: Option<String>,
}

/// A game's figures on the page.
#[derive(Debug, Clone)]
pub struct GameRow {
    /// The game id.
    pub game: String,
    /// The variant's name.
    pub variant: String,
    /// The user's colour.
    pub color: String,
    /// The user's actions analysed.
    pub moves: u32,
    /// The user's top-move share.
    pub share: String,
    /// The user's average loss.
    pub loss: String,
    /// The opponent's top-move share.
    pub opp_share: String,
    /// The opponent's average loss.
    pub opp_loss: String,
}

/// A bot level's reference figures on the page.
#[derive(Debug, Clone)]
pub struct ReferenceRow {
    /// The variant's name.
    pub variant: String,
    /// The level.
    pub level: u8,
    /// The level's name.
    pub name: &'static str,
    /// Actions analysed.
    pub moves: u32,
    /// Top-move share.
    pub share: String,
    /// Average loss.
    pub loss: String,
}

/// `/mod/@/{username}/analysis`.
#[derive(Debug, Template)]
#[template(path = "moderation/analysis.html")]
pub struct AnalysisPage {
    /// Layout.
    pub ctx: PageCtx,
    /// The account's name.
    pub username: String,
    /// The latest job.
    pub job: Option<JobView>,
    /// Its games.
    pub games: Vec<GameRow>,
    /// The bot levels' figures.
    pub references: Vec<ReferenceRow>,
}

fn job_view(job: &Job) -> JobView {
    JobView {
        state: job.state.as_str(),
        pending: job.state.pending(),
        done: job.games_done,
        total: job.games_total,
        text: progress_text(job),
        requested: time_text(job.created_at),
        finished: job.finished_at.map(time_text),
        error: job.error.clone(),
    }
}

/// The latest analysis of `username`, or "no analysis yet".
#[tracing::instrument(skip_all)]
pub(crate) async fn page(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
    _me: Moderator,
) -> Result<HttpResponse, PageError> {
    let user = lookup::account(&state.pool, &path).await?.ok_or(PageError::NotFound)?;
    let job = analysis_jobs::latest(&state.pool, user.id).await?;
    let (games, references) = job.as_ref().map_or_else(Default::default, |j| {
        let games = j
            .result
            .games
            .iter()
            .map(|g| GameRow {
                game: g.game.clone(),
                variant: variant_name(&g.variant),
                color: g.color.clone(),
                moves: g.user.moves,
                share: share_text(&g.user),
                loss: loss_text(&g.user),
                opp_share: share_text(&g.opponent),
                opp_loss: loss_text(&g.opponent),
            })
            .collect();
        let references = j
            .result
            .references
            .iter()
            .map(|r| ReferenceRow {
                variant: variant_name(&r.variant),
                level: r.level,
                name: chessgold_bot::Level::new(r.level).map_or("", |l| l.spec().name),
                moves: r.figures.moves,
                share: share_text(&r.figures),
                loss: loss_text(&r.figures),
            })
            .collect();
        (games, references)
    });
    render(&AnalysisPage {
        ctx: PageCtx::new(&session)?,
        username: user.name,
        job: job.as_ref().map(job_view),
        games,
        references,
    })
}

/// The progress as JSON (`GET /mod/@/{username}/analysis.json`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Progress {
    /// `none` (no analysis yet), `queued`, `running`, `done` or `failed`.
    state: &'static str,
    games_done: i32,
    games_total: i32,
    /// The progress in words.
    text: String,
    error: Option<String>,
}

/// The latest analysis's progress, for the page's script.
#[tracing::instrument(skip_all)]
pub(crate) async fn progress(
    state: web::Data<AppState>,
    path: web::Path<String>,
    _me: Moderator,
) -> Result<HttpResponse, PageError> {
    let user = lookup::account(&state.pool, &path).await?.ok_or(PageError::NotFound)?;
    let body = match analysis_jobs::latest(&state.pool, user.id).await? {
        None => Progress { state: "none", games_done: 0, games_total: 0, text: "No analysis yet.".into(), error: None },
        Some(job) => Progress {
            state: job.state.as_str(),
            games_done: job.games_done,
            games_total: job.games_total,
            text: progress_text(&job),
            error: job.error.clone(),
        },
    };
    Ok(HttpResponse::Ok().insert_header((header::CACHE_CONTROL, "no-store")).json(body))
}
