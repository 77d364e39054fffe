//! Players' reports and the moderators' queue. A signed-in player reports another with a
//! reason, a text and, when it came from one, the game. At most one report per reporter and
//! target is open: a new one adds its text (a note) to it. Submissions are rate-limited per
//! reporter, counted in the database so that every instance shares the count. An action on the
//! target closes its open reports ([`close_open`]), naming the mod-log row that did.

use std::fmt;

use anyhow::Context;
use serde_json::json;
use sqlx::{PgExecutor, PgPool};
use time::OffsetDateTime;
use uuid::Uuid;

use super::log::{self, Entry, LogId, ModAction, Reason};
use crate::game::GameId;

/// Most reports (new ones and additions) a reporter may send in [`RATE_WINDOW`].
pub const RATE_LIMIT: i64 = 10;
/// The window of [`RATE_LIMIT`].
pub const RATE_WINDOW: time::Duration = time::Duration::hours(1);
/// Most characters of a report's text.
pub const TEXT_MAX: usize = 2000;

/// Why a player reports another (lichess's report reasons, plus stalling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ReportReason {
    /// Cheating with an engine.
    Cheat,
    /// Sandbagging or boosting.
    Boost,
    /// Stalling or leaving games.
    Stall,
    /// Chat abuse.
    Comm,
    /// An offensive user name.
    Username,
    /// Anything else.
    Other,
}

impl ReportReason {
    /// Every reason, in the order of the queue.
    pub const ALL: [ReportReason; 6] = [
        ReportReason::Cheat,
        ReportReason::Boost,
        ReportReason::Stall,
        ReportReason::Comm,
        ReportReason::Username,
        ReportReason::Other,
    ];

    /// The stored and submitted key.
    pub const fn as_str(self) -> &'static str {
        match self {
            ReportReason::Cheat => "cheat",
            ReportReason::Boost => "boost",
            ReportReason::Stall => "stall",
            ReportReason::Comm => "comm",
            ReportReason::Username => "username",
            ReportReason::Other => "other",
        }
    }

    /// Words for the form and the queue.
    pub const fn label(self) -> &'static str {
        match self {
            ReportReason::Cheat => "Cheating with an engine",
            ReportReason::Boost => "Sandbagging or boosting",
            ReportReason::Stall => "Stalling or leaving games",
            ReportReason::Comm => "Chat abuse",
            ReportReason::Username => "Offensive user name",
            ReportReason::Other => "Other",
        }
    }

    /// Reads a key.
    ///
    /// # Errors
    /// A sentence naming the keys.
    pub fn parse(text: &str) -> Result<ReportReason, String> {
        ReportReason::ALL.into_iter().find(|r| r.as_str() == text).ok_or_else(|| {
            let keys: Vec<&str> = ReportReason::ALL.iter().map(|r| r.as_str()).collect();
            format!("the reason is one of {}", keys.join(", "))
        })
    }
}

impl fmt::Display for ReportReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a reporter wrote: 1 to [`TEXT_MAX`] characters, trimmed, without control characters
/// other than line breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportText(String);

impl ReportText {
    /// Checks a text as typed.
    ///
    /// # Errors
    /// A sentence for the form.
    pub fn parse(text: &str) -> Result<ReportText, String> {
        let clean: String = text.chars().filter(|c| *c == '\n' || !c.is_control()).collect();
        let clean = clean.trim();
        if clean.is_empty() {
            return Err("Say what happened.".into());
        }
        let n = clean.chars().count();
        if n > TEXT_MAX {
            return Err(format!("A report has at most {TEXT_MAX} characters (this one has {n})."));
        }
        Ok(ReportText(clean.to_string()))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A report's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReportId(pub Uuid);

/// A report as submitted.
#[derive(Debug, Clone)]
pub struct NewReport {
    /// The signed-in reporter.
    pub reporter: Uuid,
    /// The account reported.
    pub target: Uuid,
    /// Why.
    pub reason: ReportReason,
    /// What happened.
    pub text: ReportText,
    /// The game it came from.
    pub game: Option<GameId>,
}

/// What became of a submission (the reporter is only told that it was received).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Received {
    /// A new open report.
    New(ReportId),
    /// Added to the reporter's open report on the same account.
    AddedTo(ReportId),
}

impl Received {
    /// The open report that holds the submission.
    pub fn report(self) -> ReportId {
        match self {
            Received::New(id) | Received::AddedTo(id) => id,
        }
    }
}

/// Why a report was refused.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A player reporting themself.
    #[error("you cannot report yourself")]
    Yourself,
    /// No such account (reporter or target).
    #[error("no such account")]
    NoSuchUser,
    /// No such game.
    #[error("no such game")]
    NoSuchGame,
    /// Too many reports lately.
    #[error("you have sent {RATE_LIMIT} reports in the last hour: wait {retry_after_secs} s")]
    RateLimited {
        /// Seconds until one more is allowed.
        retry_after_secs: i64,
    },
    /// Infrastructure failure.
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

/// Stores a report, or adds it to the reporter's open report on the same account.
///
/// # Errors
/// [`ReportError`]: oneself, unknown accounts or game, the rate limit; database failures.
#[tracing::instrument(skip(pool, report), fields(reporter = %report.reporter, target = %report.target, reason = %report.reason))]
pub async fn submit(pool: &PgPool, report: &NewReport) -> Result<Received, ReportError> {
    if report.reporter == report.target {
        return Err(ReportError::Yourself);
    }
    let mut tx = pool.begin().await.context("starting a report")?;
    // Both accounts exist (and stay while this runs).
    let found = sqlx::query_scalar!(
        "SELECT id FROM users WHERE id = ANY($1) ORDER BY id FOR SHARE",
        &[report.reporter, report.target][..]
    )
    .fetch_all(&mut *tx)
    .await
    .context("looking up the accounts")?;
    if found.len() < 2 {
        return Err(ReportError::NoSuchUser);
    }
    // One submission at a time per reporter, so the count holds.
    sqlx::query!("SELECT pg_advisory_xact_lock(hashtextextended($1::uuid::text, 15))", report.reporter)
        .execute(&mut *tx)
        .await
        .context("serialising a reporter's submissions")?;
    let since = OffsetDateTime::now_utc() - RATE_WINDOW;
    let recent = sqlx::query_scalar!(
        r#"SELECT n.at FROM report_notes n JOIN reports r ON r.id = n.report_id
           WHERE r.reporter_id = $1 AND n.at > $2 ORDER BY n.at"#,
        report.reporter,
        since
    )
    .fetch_all(&mut *tx)
    .await
    .context("counting a reporter's recent reports")?;
    if recent.len() as i64 >= RATE_LIMIT {
        let frees = recent[recent.len() - RATE_LIMIT as usize] + RATE_WINDOW;
        let wait = (frees - OffsetDateTime::now_utc()).whole_seconds().max(1);
        return Err(ReportError::RateLimited { retry_after_secs: wait });
    }
    let row = sqlx::query!(
        r#"INSERT INTO reports (id, reporter_id, target_id, reason) VALUES ($1, $2, $3, $4)
           ON CONFLICT (reporter_id, target_id) WHERE closed_at IS NULL DO UPDATE SET updated_at = now()
           RETURNING id, (xmax = 0) AS "inserted!""#,
        Uuid::now_v7(),
        report.reporter,
        report.target,
        report.reason.as_str()
    )
    .fetch_one(&mut *tx)
    .await
    .context("storing a report")?;
    let note = sqlx::query!(
        "INSERT INTO report_notes (report_id, reason, text, game_id) VALUES ($1, $2, $3, $4)",
        row.id,
        report.reason.as_str(),
        report.text.as_str(),
        report.game.as_ref().map(GameId::as_str)
    )
    .execute(&mut *tx)
    .await;
    match note {
        Ok(_) => {}
        Err(sqlx::Error::Database(e)) if e.is_foreign_key_violation() => return Err(ReportError::NoSuchGame),
        Err(e) => return Err(anyhow::Error::new(e).context("storing a report's text").into()),
    }
    tx.commit().await.context("committing a report")?;
    let id = ReportId(row.id);
    Ok(if row.inserted { Received::New(id) } else { Received::AddedTo(id) })
}

/// An open report in the queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenReport {
    /// Its id.
    pub id: ReportId,
    /// The reporter.
    pub reporter: (Uuid, String),
    /// The account reported.
    pub target: (Uuid, String),
    /// Why (of the first submission).
    pub reason: ReportReason,
    /// When it was opened.
    pub created_at: OffsetDateTime,
    /// When it was last added to.
    pub updated_at: OffsetDateTime,
    /// Submissions it holds (1 and the additions).
    pub notes: i64,
}

/// One reason's open reports, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Room {
    /// The reason.
    pub reason: ReportReason,
    /// How many are open.
    pub count: usize,
    /// When the oldest was opened.
    pub oldest: Option<OffsetDateTime>,
    /// The reports, oldest first.
    pub reports: Vec<OpenReport>,
}

/// The moderators' queue: every reason in [`ReportReason::ALL`]'s order, with its open reports
/// oldest first, their count and the oldest one's age.
///
/// # Errors
/// Database failures.
pub async fn queue(db: impl PgExecutor<'_>) -> anyhow::Result<Vec<Room>> {
    let rows = sqlx::query!(
        r#"SELECT r.id, r.reporter_id, ru.username AS reporter_name, r.target_id, tu.username AS target_name,
                  r.reason, r.created_at, r.updated_at,
                  (SELECT count(*) FROM report_notes n WHERE n.report_id = r.id) AS "notes!"
           FROM reports r JOIN users ru ON ru.id = r.reporter_id JOIN users tu ON tu.id = r.target_id
           WHERE r.closed_at IS NULL ORDER BY r.created_at, r.id"#
    )
    .fetch_all(db)
    .await
    .context("reading the report queue")?;
    let mut rooms: Vec<Room> =
        ReportReason::ALL.iter().map(|&reason| Room { reason, count: 0, oldest: None, reports: Vec::new() }).collect();
    for r in rows {
        let reason = ReportReason::parse(&r.reason).map_err(|e| anyhow::anyhow!(e))?;
        let room = rooms.iter_mut().find(|room| room.reason == reason).context("a reason without a room")?;
        room.count += 1;
        room.oldest.get_or_insert(r.created_at);
        room.reports.push(OpenReport {
            id: ReportId(r.id),
            reporter: (r.reporter_id, r.reporter_name),
            target: (r.target_id, r.target_name),
            reason,
            created_at: r.created_at,
            updated_at: r.updated_at,
            notes: r.notes,
        });
    }
    Ok(rooms)
}

/// One submission of a report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// The reason given that time.
    pub reason: ReportReason,
    /// The text.
    pub text: String,
    /// The game it came from.
    pub game: Option<String>,
    /// When.
    pub at: OffsetDateTime,
}

/// A report's submissions, first first.
///
/// # Errors
/// Database failures.
pub async fn notes(db: impl PgExecutor<'_>, report: ReportId) -> anyhow::Result<Vec<Note>> {
    let rows =
        sqlx::query!("SELECT reason, text, game_id, at FROM report_notes WHERE report_id = $1 ORDER BY id", report.0)
            .fetch_all(db)
            .await
            .context("reading a report's notes")?;
    rows.into_iter()
        .map(|r| {
            Ok(Note {
                reason: ReportReason::parse(&r.reason).map_err(|e| anyhow::anyhow!(e))?,
                text: r.text,
                game: r.game_id,
                at: r.at,
            })
        })
        .collect()
}

/// A report against or by an account, for the mod view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportSummary {
    /// Its id.
    pub id: ReportId,
    /// The reporter's id.
    pub reporter: Uuid,
    /// The target's id.
    pub target: Uuid,
    /// Why.
    pub reason: ReportReason,
    /// When it was opened.
    pub created_at: OffsetDateTime,
    /// The mod-log row that closed it, if closed.
    pub closed_by_log: Option<LogId>,
}

/// The latest reports against (`against = true`) or by an account, newest first.
///
/// # Errors
/// Database failures.
pub async fn of_user(
    db: impl PgExecutor<'_>,
    user: Uuid,
    against: bool,
    limit: i64,
) -> anyhow::Result<Vec<ReportSummary>> {
    let rows = sqlx::query!(
        "SELECT id, reporter_id, target_id, reason, created_at, closed_log_id FROM reports \
         WHERE (CASE WHEN $2 THEN target_id ELSE reporter_id END) = $1 ORDER BY created_at DESC LIMIT $3",
        user,
        against,
        limit
    )
    .fetch_all(db)
    .await
    .context("reading an account's reports")?;
    rows.into_iter()
        .map(|r| {
            Ok(ReportSummary {
                id: ReportId(r.id),
                reporter: r.reporter_id,
                target: r.target_id,
                reason: ReportReason::parse(&r.reason).map_err(|e| anyhow::anyhow!(e))?,
                created_at: r.created_at,
                closed_by_log: r.closed_log_id.map(LogId),
            })
        })
        .collect()
}

/// Closes the open reports against `target` (all of them, or those of `reasons`) as answered by
/// the mod-log row `log` of `moderator`, in the caller's transaction. Returns the reports closed.
///
/// # Errors
/// Database failures.
pub async fn close_open(
    db: impl PgExecutor<'_>,
    target: Uuid,
    reasons: Option<&[ReportReason]>,
    moderator: Option<Uuid>,
    log: LogId,
) -> anyhow::Result<Vec<ReportId>> {
    let keys: Option<Vec<String>> = reasons.map(|rs| rs.iter().map(|r| r.as_str().to_string()).collect());
    let ids = sqlx::query_scalar!(
        "UPDATE reports SET closed_at = now(), closed_by = $2, closed_log_id = $3 \
         WHERE target_id = $1 AND closed_at IS NULL AND ($4::text[] IS NULL OR reason = ANY($4)) RETURNING id",
        target,
        moderator,
        log.0,
        keys.as_deref()
    )
    .fetch_all(db)
    .await
    .context("closing reports")?;
    Ok(ids.into_iter().map(ReportId).collect())
}

/// A moderator closes the open reports against `target` without a sanction (nothing to do),
/// logged with `reason`. Returns the mod-log row and the reports closed.
///
/// # Errors
/// Database failures.
pub async fn dismiss(
    pool: &PgPool,
    moderator: Uuid,
    target: Uuid,
    reasons: Option<&[ReportReason]>,
    reason: &Reason,
) -> anyhow::Result<(LogId, Vec<ReportId>)> {
    let mut tx = pool.begin().await.context("starting to close reports")?;
    let open = sqlx::query_scalar!(
        "SELECT id FROM reports WHERE target_id = $1 AND closed_at IS NULL ORDER BY id FOR UPDATE",
        target
    )
    .fetch_all(&mut *tx)
    .await
    .context("locking the open reports")?;
    let log = log::append(
        &mut *tx,
        &Entry {
            moderator: Some(moderator),
            target: Some(target),
            action: ModAction::CloseReports,
            reason,
            details: json!({"open": open.len(), "reasons": reasons.map(|rs| rs.iter().map(|r| r.as_str()).collect::<Vec<_>>())}),
        },
    )
    .await?;
    let closed = close_open(&mut *tx, target, reasons, Some(moderator), log).await?;
    tx.commit().await.context("committing closed reports")?;
    Ok((log, closed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_round_trip_and_a_bad_one_lists_the_keys() {
        for r in ReportReason::ALL {
            assert_eq!(ReportReason::parse(r.as_str()), Ok(r));
        }
        let e = ReportReason::parse("spam").unwrap_err();
        assert!(e.contains("cheat, boost, stall, comm, username, other"), "{e}");
    }

    #[test]
    fn a_text_is_required_trimmed_and_bounded() {
        assert!(ReportText::parse(" \u{7} ").is_err());
        assert_eq!(ReportText::parse("  played 40 perfect moves\n").unwrap().as_str(), "played 40 perfect moves");
        assert!(ReportText::parse(&"é".repeat(TEXT_MAX)).is_ok());
        assert!(ReportText::parse(&"é".repeat(TEXT_MAX + 1)).unwrap_err().contains("at most"));
    }
}
