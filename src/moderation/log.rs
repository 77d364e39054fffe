//! The mod log: one row per moderation action (who, on whom, what, why, details, when). The
//! table only grows: its triggers refuse UPDATE, DELETE and TRUNCATE, and this module has no
//! function that would try.

use std::fmt;

use anyhow::Context;
use serde_json::Value;
use sqlx::PgExecutor;
use time::OffsetDateTime;
use uuid::Uuid;

/// Most characters of a moderator's reason.
pub const REASON_MAX: usize = 2000;

/// The id of a mod-log row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LogId(pub i64);

/// What a moderator (or the operator) did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModAction {
    /// An account's role changed (`details`: `from`, `to`).
    SetRole,
    /// Reports were closed without a sanction (`details`: `reports`).
    CloseReports,
    /// A chat timeout (`details`: `until`, `minutes`).
    ChatTimeout,
    /// A chat timeout lifted early.
    LiftChatTimeout,
    /// A shadow-mute ("troll").
    ShadowMute,
    /// A shadow-mute lifted.
    LiftShadowMute,
    /// An engine mark (`details`: `refunds`, the opponents' points given back).
    EngineMark,
    /// An engine mark lifted.
    LiftEngineMark,
    /// A booster mark.
    BoosterMark,
    /// A booster mark lifted.
    LiftBoosterMark,
    /// An account closed (`details`: `tokens`, `challenges`, `seeks`, the counts ended).
    CloseAccount,
    /// A closed account reopened.
    ReopenAccount,
    /// An engine analysis of the account's recent rated games asked for (`details`: `job`).
    AnalysisRequested,
}

impl ModAction {
    /// Every action.
    pub const ALL: [ModAction; 13] = [
        ModAction::SetRole,
        ModAction::CloseReports,
        ModAction::ChatTimeout,
        ModAction::LiftChatTimeout,
        ModAction::ShadowMute,
        ModAction::LiftShadowMute,
        ModAction::EngineMark,
        ModAction::LiftEngineMark,
        ModAction::BoosterMark,
        ModAction::LiftBoosterMark,
        ModAction::CloseAccount,
        ModAction::ReopenAccount,
        ModAction::AnalysisRequested,
    ];

    /// The stored text.
    pub const fn as_str(self) -> &'static str {
        match self {
            ModAction::SetRole => "set_role",
            ModAction::CloseReports => "close_reports",
            ModAction::ChatTimeout => "chat_timeout",
            ModAction::LiftChatTimeout => "lift_chat_timeout",
            ModAction::ShadowMute => "shadow_mute",
            ModAction::LiftShadowMute => "lift_shadow_mute",
            ModAction::EngineMark => "engine_mark",
            ModAction::LiftEngineMark => "lift_engine_mark",
            ModAction::BoosterMark => "booster_mark",
            ModAction::LiftBoosterMark => "lift_booster_mark",
            ModAction::CloseAccount => "close_account",
            ModAction::ReopenAccount => "reopen_account",
            ModAction::AnalysisRequested => "analysis_requested",
        }
    }

    /// Reads the stored text.
    ///
    /// # Errors
    /// An unknown action, named.
    pub fn parse(text: &str) -> Result<ModAction, String> {
        ModAction::ALL
            .into_iter()
            .find(|a| a.as_str() == text)
            .ok_or_else(|| format!("unknown mod-log action '{}'", text.chars().take(40).collect::<String>()))
    }
}

impl fmt::Display for ModAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A moderator's reason for an action: 1 to [`REASON_MAX`] characters, trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason(String);

impl Reason {
    /// Checks a reason as typed.
    ///
    /// # Errors
    /// A sentence for the form.
    pub fn parse(text: &str) -> Result<Reason, String> {
        let t = text.trim();
        if t.is_empty() {
            return Err("Every moderation action needs a reason.".into());
        }
        let n = t.chars().count();
        if n > REASON_MAX {
            return Err(format!("A reason has at most {REASON_MAX} characters (this one has {n})."));
        }
        Ok(Reason(t.to_string()))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An action to log.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    /// The moderator; `None` for the operator's command line.
    pub moderator: Option<Uuid>,
    /// The account acted on.
    pub target: Option<Uuid>,
    /// What was done.
    pub action: ModAction,
    /// Why.
    pub reason: &'a Reason,
    /// What exactly (an object; `{}` when nothing more).
    pub details: Value,
}

/// Appends one row: the only way anything is written to the mod log.
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip(db, entry), fields(action = %entry.action))]
pub async fn append(db: impl PgExecutor<'_>, entry: &Entry<'_>) -> anyhow::Result<LogId> {
    let id = sqlx::query_scalar!(
        "INSERT INTO mod_log (moderator_id, target_id, action, reason, details) VALUES ($1, $2, $3, $4, $5) \
         RETURNING id",
        entry.moderator,
        entry.target,
        entry.action.as_str(),
        entry.reason.as_str(),
        entry.details
    )
    .fetch_one(db)
    .await
    .context("appending to the mod log")?;
    Ok(LogId(id))
}

/// A row of the mod log, with the names of the accounts.
#[derive(Debug, Clone, PartialEq)]
pub struct LogRow {
    /// Its id (increasing with time).
    pub id: LogId,
    /// The moderator, `None` for the command line.
    pub moderator: Option<(Uuid, String)>,
    /// The account acted on.
    pub target: Option<(Uuid, String)>,
    /// What was done.
    pub action: ModAction,
    /// Why.
    pub reason: String,
    /// What exactly.
    pub details: Value,
    /// When.
    pub at: OffsetDateTime,
}

struct RawRow {
    id: i64,
    moderator_id: Option<Uuid>,
    moderator_name: Option<String>,
    target_id: Option<Uuid>,
    target_name: Option<String>,
    action: String,
    reason: String,
    details: Value,
    at: OffsetDateTime,
}

fn typed(rows: Vec<RawRow>) -> anyhow::Result<Vec<LogRow>> {
    rows.into_iter()
        .map(|r| {
            Ok(LogRow {
                id: LogId(r.id),
                moderator: r.moderator_id.zip(r.moderator_name),
                target: r.target_id.zip(r.target_name),
                action: ModAction::parse(&r.action).map_err(|e| anyhow::anyhow!(e))?,
                reason: r.reason,
                details: r.details,
                at: r.at,
            })
        })
        .collect()
}

/// The latest rows about an account, newest first.
///
/// # Errors
/// Database failures; an action this build does not know.
pub async fn of_target(db: impl PgExecutor<'_>, target: Uuid, limit: i64) -> anyhow::Result<Vec<LogRow>> {
    let rows = sqlx::query_as!(
        RawRow,
        r#"SELECT l.id, l.moderator_id, m.username AS "moderator_name?", l.target_id, t.username AS "target_name?",
                  l.action, l.reason, l.details, l.at
           FROM mod_log l LEFT JOIN users m ON m.id = l.moderator_id LEFT JOIN users t ON t.id = l.target_id
           WHERE l.target_id = $1 ORDER BY l.id DESC LIMIT $2"#,
        target,
        limit
    )
    .fetch_all(db)
    .await
    .context("reading an account's mod log")?;
    typed(rows)
}

/// The latest rows of the whole log, newest first.
///
/// # Errors
/// Database failures; an action this build does not know.
pub async fn recent(db: impl PgExecutor<'_>, limit: i64) -> anyhow::Result<Vec<LogRow>> {
    let rows = sqlx::query_as!(
        RawRow,
        r#"SELECT l.id, l.moderator_id, m.username AS "moderator_name?", l.target_id, t.username AS "target_name?",
                  l.action, l.reason, l.details, l.at
           FROM mod_log l LEFT JOIN users m ON m.id = l.moderator_id LEFT JOIN users t ON t.id = l.target_id
           ORDER BY l.id DESC LIMIT $1"#,
        limit
    )
    .fetch_all(db)
    .await
    .context("reading the mod log")?;
    typed(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_round_trip_and_unknown_ones_are_named() {
        for a in ModAction::ALL {
            assert_eq!(ModAction::parse(a.as_str()), Ok(a));
        }
        assert!(ModAction::parse("erase").unwrap_err().contains("'erase'"));
    }

    #[test]
    fn a_reason_is_required_and_bounded() {
        assert!(Reason::parse("   ").unwrap_err().contains("needs a reason"));
        assert_eq!(Reason::parse("  spam in chat ").unwrap().as_str(), "spam in chat");
        assert!(Reason::parse(&"x".repeat(REASON_MAX)).is_ok());
        assert!(Reason::parse(&"x".repeat(REASON_MAX + 1)).unwrap_err().contains("at most"));
    }
}
