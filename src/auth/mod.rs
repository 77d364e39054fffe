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

const SESSION_USER_ID: &str = "uid";
const SESSION_USER_NAME: &str = "name";

/// The logged-in user, as the session remembers them.
#[derive(Debug, Clone)]
pub struct SessionUser {
    /// Account key.
    pub id: Uuid,
    /// Display name.
    pub name: String,
}

/// The logged-in user of this session, if any.
pub fn current_user(session: &Session) -> Option<SessionUser> {
    let id = session.get::<Uuid>(SESSION_USER_ID).ok().flatten()?;
    let name = session.get::<String>(SESSION_USER_NAME).ok().flatten()?;
    Some(SessionUser { id, name })
}

/// Starts a logged-in session under a new session key (against fixation) with a new CSRF token.
///
/// # Errors
/// The session cannot be written.
pub fn log_in(session: &Session, id: Uuid, name: &str) -> anyhow::Result<()> {
    session.renew();
    session.insert(SESSION_USER_ID, id).context("writing the session")?;
    session.insert(SESSION_USER_NAME, name).context("writing the session")?;
    csrf::rotate(session)?;
    Ok(())
}

/// Ends the session.
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
