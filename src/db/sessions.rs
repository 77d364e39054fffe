//! The signed-in sessions of an account (table `sessions`, written by
//! [`crate::session_store`]) and the log of sign-ups and log-ins (`auth_events`): the account's
//! sessions page, ending sessions on the server, the moderators' search by address or session.

use anyhow::Context;
use sqlx::PgExecutor;
use time::OffsetDateTime;
use uuid::Uuid;

/// What started a signed-in session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthKind {
    /// A new account.
    Signup,
    /// A log-in.
    Login,
    /// A password change (which renews the session and ends the others).
    Password,
}

impl AuthKind {
    /// The stored text.
    pub const fn as_str(self) -> &'static str {
        match self {
            AuthKind::Signup => "signup",
            AuthKind::Login => "login",
            AuthKind::Password => "password",
        }
    }
}

/// A signed-in session of an account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenSession {
    /// Its public id.
    pub sid: Uuid,
    /// Started.
    pub created_at: OffsetDateTime,
    /// Last request (to the minute).
    pub last_seen_at: OffsetDateTime,
    /// The address it started from.
    pub ip: Option<String>,
    /// The browser it started in.
    pub user_agent: Option<String>,
}

/// The account's live sessions, the latest seen first.
///
/// # Errors
/// Database failures.
pub async fn open_of(db: impl PgExecutor<'_>, user: Uuid) -> anyhow::Result<Vec<OpenSession>> {
    sqlx::query_as!(
        OpenSession,
        "SELECT sid, created_at, last_seen_at, ip, user_agent FROM sessions
         WHERE user_id = $1 AND expires_at > now() ORDER BY last_seen_at DESC, created_at DESC",
        user
    )
    .fetch_all(db)
    .await
    .context("reading an account's sessions")
}

/// Ends one session of the account; whether it was open.
///
/// # Errors
/// Database failures.
pub async fn end(db: impl PgExecutor<'_>, user: Uuid, sid: Uuid) -> anyhow::Result<bool> {
    let n = sqlx::query!("DELETE FROM sessions WHERE user_id = $1 AND sid = $2", user, sid)
        .execute(db)
        .await
        .context("ending a session")?
        .rows_affected();
    Ok(n > 0)
}

/// Ends every session of the account but `keep`; their public ids.
///
/// # Errors
/// Database failures.
pub async fn end_all_but(db: impl PgExecutor<'_>, user: Uuid, keep: Option<Uuid>) -> anyhow::Result<Vec<Uuid>> {
    sqlx::query_scalar!("DELETE FROM sessions WHERE user_id = $1 AND sid IS DISTINCT FROM $2 RETURNING sid", user, keep)
        .fetch_all(db)
        .await
        .context("ending an account's sessions")
}

/// Records a sign-up, log-in or password change of `user` in session `sid`.
///
/// # Errors
/// Database failures.
pub async fn record(
    db: impl PgExecutor<'_>,
    user: Uuid,
    kind: AuthKind,
    sid: Uuid,
    ip: &str,
    user_agent: &str,
) -> anyhow::Result<()> {
    sqlx::query!(
        "INSERT INTO auth_events (user_id, kind, sid, ip, user_agent) VALUES ($1, $2, $3, $4, $5)",
        user,
        kind.as_str(),
        sid,
        ip,
        user_agent
    )
    .execute(db)
    .await
    .context("recording a log-in")?;
    Ok(())
}

/// A sign-up or log-in, as the moderators' pages show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthEvent {
    /// The account.
    pub user_id: Uuid,
    /// Its name.
    pub username: String,
    /// `signup`, `login` or `password`.
    pub kind: String,
    /// The session it started.
    pub sid: Uuid,
    /// From where.
    pub ip: String,
    /// In which browser.
    pub user_agent: String,
    /// When.
    pub at: OffsetDateTime,
}

/// The latest sign-ups and log-ins of an account.
///
/// # Errors
/// Database failures.
pub async fn events_of(db: impl PgExecutor<'_>, user: Uuid, limit: i64) -> anyhow::Result<Vec<AuthEvent>> {
    sqlx::query_as!(
        AuthEvent,
        "SELECT e.user_id, u.username, e.kind, e.sid, e.ip, e.user_agent, e.at FROM auth_events e
         JOIN users u ON u.id = e.user_id WHERE e.user_id = $1 ORDER BY e.at DESC, e.id DESC LIMIT $2",
        user,
        limit
    )
    .fetch_all(db)
    .await
    .context("reading an account's log-ins")
}

/// The sign-ups and log-ins from an address, or of a session, newest first.
///
/// # Errors
/// Database failures.
pub async fn events_from(db: impl PgExecutor<'_>, seen: &Seen, limit: i64) -> anyhow::Result<Vec<AuthEvent>> {
    let (ip, sid) = match seen {
        Seen::Address(ip) => (Some(ip.to_string()), None),
        Seen::Session(sid) => (None, Some(*sid)),
    };
    sqlx::query_as!(
        AuthEvent,
        "SELECT e.user_id, u.username, e.kind, e.sid, e.ip, e.user_agent, e.at FROM auth_events e
         JOIN users u ON u.id = e.user_id WHERE e.ip = $1 OR e.sid = $2 ORDER BY e.at DESC, e.id DESC LIMIT $3",
        ip,
        sid,
        limit
    )
    .fetch_all(db)
    .await
    .context("searching log-ins")
}

/// What the moderators' search looks for besides a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    /// An address seen at sign-up or log-in.
    Address(std::net::IpAddr),
    /// A session (its public id).
    Session(Uuid),
}

impl Seen {
    /// An address (`203.0.113.7`, `2001:db8::1`) or a session id (a UUID), if the text is one.
    pub fn parse(text: &str) -> Option<Seen> {
        let text = text.trim();
        text.parse().map(Seen::Address).ok().or_else(|| Uuid::parse_str(text).ok().map(Seen::Session))
    }
}
