//! Accounts and sessions: sign-up, log-in, log-out, password change, CSRF tokens, rate limits.

pub mod csrf;
pub mod handlers;
pub mod password;
pub mod rate_limit;
pub mod roles;

use actix_session::Session;
use anyhow::Context;
use sqlx::PgPool;
use uuid::Uuid;

use crate::db;
use crate::db::users::InsertUserError;
use crate::domain::{NewPassword, Role, UserName};

use crate::db::sessions::AuthKind;
use crate::session_store::{SESSION_ID, SESSION_USER, current_client};

const SESSION_USER_ID: &str = SESSION_USER;
const SESSION_USER_NAME: &str = "name";

/// The logged-in user, as the session remembers them.
#[derive(Debug, Clone)]
pub struct SessionUser {
    /// Account key.
    pub id: Uuid,
    /// Display name.
    pub name: String,
}

/// The logged-in user of this session, if any. A session ended on the server (log-out, a
/// password change, the sessions page, a closed account) loads empty, so this is `None` for it.
pub fn current_user(session: &Session) -> Option<SessionUser> {
    let id = session.get::<Uuid>(SESSION_USER_ID).ok().flatten()?;
    let name = session.get::<String>(SESSION_USER_NAME).ok().flatten()?;
    Some(SessionUser { id, name })
}

/// The public id of this session (the account's sessions page marks it "this one").
pub fn current_session_id(session: &Session) -> Option<Uuid> {
    session.get::<Uuid>(SESSION_ID).ok().flatten()
}

/// Starts a logged-in session under a new session key and id (against fixation) with a new CSRF
/// token, and records it with the request's address and browser (`auth_events`).
///
/// # Errors
/// The session cannot be written; database failures.
pub async fn log_in(pool: &PgPool, session: &Session, id: Uuid, name: &str, kind: AuthKind) -> anyhow::Result<Uuid> {
    session.renew();
    let sid = Uuid::new_v4();
    session.insert(SESSION_ID, sid).context("writing the session")?;
    session.insert(SESSION_USER_ID, id).context("writing the session")?;
    session.insert(SESSION_USER_NAME, name).context("writing the session")?;
    csrf::rotate(session)?;
    let client = current_client();
    let ip = client.as_ref().map_or_else(|| "unknown".to_string(), |c| c.ip.to_string());
    let agent = client.map(|c| c.user_agent).unwrap_or_default();
    db::sessions::record(pool, id, kind, sid, &ip, &agent).await?;
    Ok(sid)
}

/// Ends the session, on the server too (its row is deleted: a copy of the cookie is signed out).
pub fn log_out(session: &Session) {
    session.purge();
}

/// Why an account could not be created.
#[derive(Debug, thiserror::Error)]
pub enum CreateAccountError {
    /// The name exists in some letter case.
    #[error("the name '{0}' is taken")]
    NameTaken(String),
    /// Infrastructure failure.
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

/// Hashes the password and stores a new account.
///
/// # Errors
/// [`CreateAccountError::NameTaken`] or an infrastructure failure.
pub async fn create_account(
    pool: &PgPool,
    name: &UserName,
    password: &NewPassword,
    role: Role,
) -> Result<Uuid, CreateAccountError> {
    let hash = password::hash(password.secret().clone()).await?;
    match db::users::insert(pool, name, &hash, role).await {
        Ok(id) => Ok(id),
        Err(InsertUserError::NameTaken) => Err(CreateAccountError::NameTaken(name.to_string())),
        Err(InsertUserError::Other(e)) => Err(CreateAccountError::Other(e)),
    }
}
