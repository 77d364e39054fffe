//! Role changes: an admin (or the operator's command line) grants and revokes roles; each change
//! is one mod-log row, written in the transaction that changes the role.

use anyhow::Context;
use serde_json::json;
use sqlx::PgPool;
use uuid::Uuid;

use super::log::{self, Entry, LogId, ModAction, Reason};
use crate::domain::Role;

/// Why a role change was refused.
#[derive(Debug, thiserror::Error)]
pub enum RoleError {
    /// No account of that name.
    #[error("no account named '{0}'")]
    NoSuchUser(String),
    /// The one asking is not an admin.
    #[error("only an admin changes roles")]
    NotAdmin,
    /// The account has that role already.
    #[error("{name} is already {role}")]
    Unchanged {
        /// The account's name.
        name: String,
        /// Its role.
        role: Role,
    },
    /// Infrastructure failure.
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

/// A role change made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleChange {
    /// The account.
    pub user: Uuid,
    /// Its name.
    pub name: String,
    /// The role before.
    pub from: Role,
    /// The role now.
    pub to: Role,
    /// The mod-log row.
    pub log: LogId,
}

/// The role of an account, `None` when there is no such account.
///
/// # Errors
/// Database failures; a stored role this build does not know.
pub async fn role_of(db: impl sqlx::PgExecutor<'_>, user: Uuid) -> anyhow::Result<Option<Role>> {
    let stored = sqlx::query_scalar!("SELECT role FROM users WHERE id = $1", user)
        .fetch_optional(db)
        .await
        .context("reading an account's role")?;
    stored.map(|r| Role::parse(&r).map_err(|e| anyhow::anyhow!(e))).transpose()
}

/// Gives the account named `name` (ignoring case) the role `to`, logged with `reason`. `by` is
/// the admin doing it, `None` for the operator's command line.
///
/// # Errors
/// [`RoleError`]: an unknown account, a caller who is not an admin, no change; database failures.
#[tracing::instrument(skip(pool, reason))]
pub async fn set_role(
    pool: &PgPool,
    by: Option<Uuid>,
    name: &str,
    to: Role,
    reason: &Reason,
) -> Result<RoleChange, RoleError> {
    let mut tx = pool.begin().await.context("starting a role change")?;
    if let Some(admin) = by
        && role_of(&mut *tx, admin).await? != Some(Role::Admin)
    {
        return Err(RoleError::NotAdmin);
    }
    let row = sqlx::query!("SELECT id, username, role FROM users WHERE lower(username) = lower($1) FOR UPDATE", name)
        .fetch_optional(&mut *tx)
        .await
        .context("looking up the account")?
        .ok_or_else(|| RoleError::NoSuchUser(name.chars().take(30).collect()))?;
    let from = Role::parse(&row.role).map_err(|e| anyhow::anyhow!(e))?;
    if from == to {
        return Err(RoleError::Unchanged { name: row.username, role: to });
    }
    sqlx::query!("UPDATE users SET role = $2, updated_at = now() WHERE id = $1", row.id, to.as_str())
        .execute(&mut *tx)
        .await
        .context("changing the role")?;
    let log = log::append(
        &mut *tx,
        &Entry {
            moderator: by,
            target: Some(row.id),
            action: ModAction::SetRole,
            reason,
            details: json!({"from": from.as_str(), "to": to.as_str()}),
        },
    )
    .await?;
    tx.commit().await.context("committing a role change")?;
    tracing::info!(user.id = %row.id, %from, %to, "role changed");
    Ok(RoleChange { user: row.id, name: row.username, from, to, log })
}
