//! Sanctions of the chat: a timeout (10 minutes to 24 hours: the player's lines are refused,
//! saying until when) and a shadow-mute, lichess's "troll" (the player's lines reach only
//! themself and other shadow-muted players, and they are not told). Each is given and lifted by
//! a moderator with a reason, one mod-log row each, closing the open reports it answers.
//!
//! They take effect at once on every instance because the chat path reads a player's standing
//! from the database for each line ([`chat_standing`], [`shadow_muted_among`]): there is no
//! cached copy for the broker to refresh.

use std::collections::HashSet;

use anyhow::Context;
use serde_json::json;
use sqlx::{PgExecutor, PgPool};
use time::OffsetDateTime;
use uuid::Uuid;

use super::log::{self, Entry, LogId, ModAction, Reason};
use super::reports::{self, ReportReason};
use super::roles::role_of;

/// The shortest chat timeout, in minutes.
pub const TIMEOUT_MIN_MINUTES: i64 = 10;
/// The longest chat timeout, in minutes (24 hours).
pub const TIMEOUT_MAX_MINUTES: i64 = 24 * 60;

/// A kind of sanction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SanctionKind {
    /// The player's chat lines are refused until a time.
    ChatTimeout,
    /// The player's chat lines reach only themself and other shadow-muted players.
    ShadowMute,
    /// Engine mark: off the leaderboards, paired only with marked players ([`super::marks`]).
    EngineMark,
    /// Booster (or sandbagger) mark: the same effects as the engine mark, without the refund.
    BoosterMark,
    /// A closed account ([`super::closure`]); lifting it reopens the account.
    AccountClosed,
}

impl SanctionKind {
    /// The stored text.
    pub const fn as_str(self) -> &'static str {
        match self {
            SanctionKind::ChatTimeout => "chat_timeout",
            SanctionKind::ShadowMute => "shadow_mute",
            SanctionKind::EngineMark => "engine_mark",
            SanctionKind::BoosterMark => "booster_mark",
            SanctionKind::AccountClosed => "account_closed",
        }
    }

    /// Every kind, in the order the mod view lists them.
    pub const ALL: [SanctionKind; 5] = [
        SanctionKind::ChatTimeout,
        SanctionKind::ShadowMute,
        SanctionKind::EngineMark,
        SanctionKind::BoosterMark,
        SanctionKind::AccountClosed,
    ];

    /// The kind of a stored text ([`SanctionKind::as_str`]).
    ///
    /// # Errors
    /// A sentence naming the kinds, for any other text.
    pub fn parse(text: &str) -> Result<SanctionKind, String> {
        Self::ALL.into_iter().find(|k| k.as_str() == text.trim()).ok_or_else(|| {
            let names: Vec<_> = Self::ALL.iter().map(|k| k.as_str()).collect();
            format!("choose the sanction: {}", names.join(", "))
        })
    }

    /// How the pages name it.
    pub const fn label(self) -> &'static str {
        match self {
            SanctionKind::ChatTimeout => "Chat timeout",
            SanctionKind::ShadowMute => "Shadow-mute",
            SanctionKind::EngineMark => "Engine mark",
            SanctionKind::BoosterMark => "Booster mark",
            SanctionKind::AccountClosed => "Account closed",
        }
    }

    pub(super) const fn given(self) -> ModAction {
        match self {
            SanctionKind::ChatTimeout => ModAction::ChatTimeout,
            SanctionKind::ShadowMute => ModAction::ShadowMute,
            SanctionKind::EngineMark => ModAction::EngineMark,
            SanctionKind::BoosterMark => ModAction::BoosterMark,
            SanctionKind::AccountClosed => ModAction::CloseAccount,
        }
    }

    const fn lifted(self) -> ModAction {
        match self {
            SanctionKind::ChatTimeout => ModAction::LiftChatTimeout,
            SanctionKind::ShadowMute => ModAction::LiftShadowMute,
            SanctionKind::EngineMark => ModAction::LiftEngineMark,
            SanctionKind::BoosterMark => ModAction::LiftBoosterMark,
            SanctionKind::AccountClosed => ModAction::ReopenAccount,
        }
    }
}

/// Why a sanction was refused.
#[derive(Debug, thiserror::Error)]
pub enum SanctionError {
    /// The one acting is not a moderator.
    #[error("only moderators sanction players")]
    NotModerator,
    /// No such account.
    #[error("no such account")]
    NoSuchUser,
    /// A timeout outside 10 minutes to 24 hours.
    #[error("a chat timeout lasts {TIMEOUT_MIN_MINUTES} to {TIMEOUT_MAX_MINUTES} minutes")]
    BadDuration,
    /// Nothing of that kind is in force (lifting), or it is already (a second shadow-mute).
    #[error("{0}")]
    Conflict(&'static str),
    /// Infrastructure failure.
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

/// A sanction given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Given {
    /// The mod-log row.
    pub log: LogId,
    /// Until when (`None`: until lifted).
    pub until: Option<OffsetDateTime>,
    /// The reports it closed.
    pub closed_reports: usize,
}

pub(super) async fn check(db: &mut sqlx::PgConnection, moderator: Uuid, target: Uuid) -> Result<(), SanctionError> {
    if !role_of(&mut *db, moderator).await?.is_some_and(crate::domain::Role::moderates) {
        return Err(SanctionError::NotModerator);
    }
    let exists = sqlx::query_scalar!("SELECT id FROM users WHERE id = $1 FOR UPDATE", target)
        .fetch_optional(&mut *db)
        .await
        .context("locking the account")?;
    if exists.is_none() {
        return Err(SanctionError::NoSuchUser);
    }
    Ok(())
}

/// A chat timeout of `minutes` for `target`, replacing one in force; closes the open chat-abuse
/// reports against them.
///
/// # Errors
/// [`SanctionError`]: not a moderator, no such account, a duration outside the bounds; database
/// failures.
pub async fn chat_timeout(
    pool: &PgPool,
    moderator: Uuid,
    target: Uuid,
    minutes: i64,
    reason: &Reason,
) -> Result<Given, SanctionError> {
    if !(TIMEOUT_MIN_MINUTES..=TIMEOUT_MAX_MINUTES).contains(&minutes) {
        return Err(SanctionError::BadDuration);
    }
    let mut tx = pool.begin().await.context("starting a chat timeout")?;
    check(&mut tx, moderator, target).await?;
    let until = OffsetDateTime::now_utc() + time::Duration::minutes(minutes);
    let at = until.format(&time::format_description::well_known::Rfc3339).context("formatting a time")?;
    let log = log::append(
        &mut *tx,
        &Entry {
            moderator: Some(moderator),
            target: Some(target),
            action: SanctionKind::ChatTimeout.given(),
            reason,
            details: json!({"minutes": minutes, "until": at}),
        },
    )
    .await?;
    lift_in_force(&mut tx, target, SanctionKind::ChatTimeout).await?;
    insert(&mut tx, target, SanctionKind::ChatTimeout, Some(until), log).await?;
    let closed = reports::close_open(&mut *tx, target, Some(&[ReportReason::Comm]), Some(moderator), log).await?;
    tx.commit().await.context("committing a chat timeout")?;
    Ok(Given { log, until: Some(until), closed_reports: closed.len() })
}

/// Shadow-mutes `target` until lifted; closes the open chat-abuse reports against them.
///
/// # Errors
/// [`SanctionError`]: not a moderator, no such account, already shadow-muted; database failures.
pub async fn shadow_mute(
    pool: &PgPool,
    moderator: Uuid,
    target: Uuid,
    reason: &Reason,
) -> Result<Given, SanctionError> {
    let mut tx = pool.begin().await.context("starting a shadow-mute")?;
    check(&mut tx, moderator, target).await?;
    if in_force(&mut *tx, target, SanctionKind::ShadowMute).await? {
        return Err(SanctionError::Conflict("this player is shadow-muted already"));
    }
    let log = log::append(
        &mut *tx,
        &Entry {
            moderator: Some(moderator),
            target: Some(target),
            action: SanctionKind::ShadowMute.given(),
            reason,
            details: json!({}),
        },
    )
    .await?;
    insert(&mut tx, target, SanctionKind::ShadowMute, None, log).await?;
    let closed = reports::close_open(&mut *tx, target, Some(&[ReportReason::Comm]), Some(moderator), log).await?;
    tx.commit().await.context("committing a shadow-mute")?;
    Ok(Given { log, until: None, closed_reports: closed.len() })
}

/// Lifts the sanction of `kind` in force on `target` (the undo).
///
/// # Errors
/// [`SanctionError`]: not a moderator, no such account, nothing in force; database failures.
pub async fn lift(
    pool: &PgPool,
    moderator: Uuid,
    target: Uuid,
    kind: SanctionKind,
    reason: &Reason,
) -> Result<LogId, SanctionError> {
    let mut tx = pool.begin().await.context("starting to lift a sanction")?;
    check(&mut tx, moderator, target).await?;
    if !in_force(&mut *tx, target, kind).await? {
        return Err(SanctionError::Conflict("nothing of that kind is in force"));
    }
    let log = log::append(
        &mut *tx,
        &Entry { moderator: Some(moderator), target: Some(target), action: kind.lifted(), reason, details: json!({}) },
    )
    .await?;
    lift_in_force(&mut tx, target, kind).await?;
    tx.commit().await.context("committing a lifted sanction")?;
    Ok(log)
}

pub(super) async fn insert(
    db: &mut sqlx::PgConnection,
    target: Uuid,
    kind: SanctionKind,
    until: Option<OffsetDateTime>,
    log: LogId,
) -> anyhow::Result<()> {
    sqlx::query!(
        "INSERT INTO sanctions (user_id, kind, until, log_id) VALUES ($1, $2, $3, $4)",
        target,
        kind.as_str(),
        until,
        log.0
    )
    .execute(db)
    .await
    .context("storing a sanction")?;
    Ok(())
}

async fn lift_in_force(db: &mut sqlx::PgConnection, target: Uuid, kind: SanctionKind) -> anyhow::Result<()> {
    sqlx::query!(
        "UPDATE sanctions SET lifted_at = now() WHERE user_id = $1 AND kind = $2 AND lifted_at IS NULL \
         AND (until IS NULL OR until > now())",
        target,
        kind.as_str()
    )
    .execute(db)
    .await
    .context("lifting a sanction")?;
    Ok(())
}

pub(super) async fn in_force(db: impl PgExecutor<'_>, target: Uuid, kind: SanctionKind) -> anyhow::Result<bool> {
    sqlx::query_scalar!(
        r#"SELECT EXISTS (SELECT 1 FROM sanctions WHERE user_id = $1 AND kind = $2 AND lifted_at IS NULL
                          AND (until IS NULL OR until > now())) AS "b!""#,
        target,
        kind.as_str()
    )
    .fetch_one(db)
    .await
    .context("reading a sanction")
}

/// What the chat makes of a player now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ChatStanding {
    /// Timed out until then.
    pub timed_out_until: Option<OffsetDateTime>,
    /// Shadow-muted.
    pub shadow_muted: bool,
}

/// A player's chat standing now.
///
/// # Errors
/// Database failures.
pub async fn chat_standing(db: impl PgExecutor<'_>, user: Uuid) -> anyhow::Result<ChatStanding> {
    let rows = sqlx::query!(
        "SELECT kind, until FROM sanctions WHERE user_id = $1 AND lifted_at IS NULL AND (until IS NULL OR until > now())",
        user
    )
    .fetch_all(db)
    .await
    .context("reading a player's chat sanctions")?;
    let mut s = ChatStanding::default();
    for r in rows {
        if r.kind == SanctionKind::ShadowMute.as_str() {
            s.shadow_muted = true;
        } else if r.kind == SanctionKind::ChatTimeout.as_str() {
            s.timed_out_until = s.timed_out_until.max(r.until);
        }
    }
    Ok(s)
}

/// Who among `users` is shadow-muted now.
///
/// # Errors
/// Database failures.
pub async fn shadow_muted_among(db: impl PgExecutor<'_>, users: &[Uuid]) -> anyhow::Result<HashSet<Uuid>> {
    if users.is_empty() {
        return Ok(HashSet::new());
    }
    let ids = sqlx::query_scalar!(
        "SELECT DISTINCT user_id FROM sanctions WHERE user_id = ANY($1) AND kind = 'shadow_mute' AND lifted_at IS NULL",
        users
    )
    .fetch_all(db)
    .await
    .context("reading shadow-mutes")?;
    Ok(ids.into_iter().collect())
}
