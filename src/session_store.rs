//! The session store: sessions live in PostgreSQL (table `sessions`), so that a Redis outage or
//! restart logs nobody out and a session ended on the server (log-out, a password change, a
//! closed account, the account's sessions page) is ended for every copy of its cookie. The cookie
//! holds only the session key, signed; the table holds the SHA-256 of the key, never the key.
//!
//! Each row also keeps, for the account's sessions page, its public id ([`SESSION_ID`] in the
//! state, a random UUID), the account it is signed in to (read from the state), when it was
//! created and last seen, and the address and browser of the request that created it
//! ([`with_client`]). Expired rows are deleted by [`delete_expired`] (the housekeeping task).

use std::collections::HashMap;
use std::net::IpAddr;

use actix_session::storage::{LoadError, SaveError, SessionKey, SessionStore, UpdateError};
use actix_web::cookie::time::Duration;
use anyhow::Context;
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use uuid::Uuid;

/// The state key of a session's public id.
pub const SESSION_ID: &str = "sid";
/// The state key of the signed-in account (written by [`crate::auth::log_in`]).
pub const SESSION_USER: &str = "uid";
/// The state a session loads with while the database cannot be read: the request is answered as
/// a guest's (with the site's own error page where it needs the database), and nothing of it is
/// written, so the real session is there again once the database is back.
const UNAVAILABLE: &str = "_unavailable";
/// How often `last_seen_at` is written at most, in seconds (a read per request, not a write).
const SEEN_EVERY_SECS: i64 = 60;
/// The longest user agent kept.
const AGENT_MAX: usize = 300;

/// Who is asking: the address and browser of the request being answered.
#[derive(Debug, Clone)]
pub struct Client {
    /// The client's address (behind a trusted proxy, the forwarded one).
    pub ip: IpAddr,
    /// Its `User-Agent`, cut to a few hundred characters.
    pub user_agent: String,
}

tokio::task_local! {
    static CLIENT: Client;
}

/// Runs `f` with `client` as the request's [`Client`] (the session middleware's saves inside it
/// record it).
pub async fn with_client<F: Future>(client: Client, f: F) -> F::Output {
    CLIENT.scope(client, f).await
}

/// The client of the request being answered, if any.
pub fn current_client() -> Option<Client> {
    CLIENT.try_with(Clone::clone).ok()
}

impl Client {
    /// The client of a request.
    pub fn of(req: &actix_web::HttpRequest, trust_forwarded_for: bool) -> Client {
        let agent = req.headers().get(actix_web::http::header::USER_AGENT).and_then(|v| v.to_str().ok()).unwrap_or("");
        Client {
            ip: crate::startup::client_ip(req, trust_forwarded_for),
            user_agent: agent.chars().filter(|c| !c.is_control()).take(AGENT_MAX).collect(),
        }
    }
}

/// Whether this request's session could not be loaded (the database is down).
pub fn unavailable(session: &actix_session::Session) -> bool {
    session.contains_key(UNAVAILABLE)
}

/// The PostgreSQL session store.
#[derive(Clone, Debug)]
pub struct PgSessionStore {
    pool: PgPool,
}

impl PgSessionStore {
    /// A store on `pool`.
    pub fn new(pool: PgPool) -> PgSessionStore {
        PgSessionStore { pool }
    }
}

/// A new random session key: 32 bytes from the system, in hex.
fn new_key() -> anyhow::Result<SessionKey> {
    use std::fmt::Write;
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no randomness for a session key: {e}"))?;
    let text = bytes.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    });
    SessionKey::try_from(text).map_err(|e| anyhow::anyhow!("{e}"))
}

fn key_hash(key: &SessionKey) -> Vec<u8> {
    Sha256::digest(key.as_ref().as_bytes()).to_vec()
}

/// The account a state is signed in to.
fn user_of(state: &HashMap<String, String>) -> Option<Uuid> {
    state.get(SESSION_USER).and_then(|v| serde_json::from_str::<Uuid>(v).ok())
}

/// The state's public id, given one if it has none (a new session).
fn sid_of(state: &mut HashMap<String, String>) -> Uuid {
    if let Some(sid) = state.get(SESSION_ID).and_then(|v| serde_json::from_str::<Uuid>(v).ok()) {
        return sid;
    }
    let sid = Uuid::new_v4();
    state.insert(SESSION_ID.to_string(), format!("\"{sid}\""));
    sid
}

fn expiry(ttl: &Duration) -> time::OffsetDateTime {
    time::OffsetDateTime::now_utc() + time::Duration::seconds(ttl.whole_seconds())
}

impl SessionStore for PgSessionStore {
    async fn load(&self, key: &SessionKey) -> Result<Option<HashMap<String, String>>, LoadError> {
        let hash = key_hash(key);
        let row = sqlx::query!(
            r#"SELECT state, now() - last_seen_at > make_interval(secs => $2) AS "stale!"
               FROM sessions WHERE key_hash = $1 AND expires_at > now()"#,
            &hash,
            SEEN_EVERY_SECS as f64
        )
        .fetch_optional(&self.pool)
        .await;
        let row = match row {
            Ok(row) => row,
            Err(e) => {
                tracing::warn!(error = %e, "a session could not be loaded: answered as a guest's");
                return Ok(Some(HashMap::from([(UNAVAILABLE.to_string(), "true".to_string())])));
            }
        };
        let Some(row) = row else { return Ok(None) };
        if row.stale {
            // A write at most once a minute per session, off the request's path.
            let pool = self.pool.clone();
            tokio::spawn(async move {
                let _ = sqlx::query!("UPDATE sessions SET last_seen_at = now() WHERE key_hash = $1", &hash)
                    .execute(&pool)
                    .await;
            });
        }
        let state =
            serde_json::from_value(row.state).context("a stored session state").map_err(LoadError::Deserialization)?;
        Ok(Some(state))
    }

    async fn save(&self, mut state: HashMap<String, String>, ttl: &Duration) -> Result<SessionKey, SaveError> {
        let key = new_key().map_err(SaveError::Other)?;
        if state.remove(UNAVAILABLE).is_some() {
            // A session that could not be loaded, renewed (a log-in): nothing is written.
            return Ok(key);
        }
        let sid = sid_of(&mut state);
        let user = user_of(&state);
        let client = current_client();
        let json = serde_json::to_value(&state).context("a session state").map_err(SaveError::Serialization)?;
        let saved = sqlx::query!(
            "INSERT INTO sessions (key_hash, sid, user_id, state, expires_at, ip, user_agent)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
            &key_hash(&key),
            sid,
            user,
            json,
            expiry(ttl),
            client.as_ref().map(|c| c.ip.to_string()),
            client.as_ref().map(|c| c.user_agent.clone()),
        )
        .execute(&self.pool)
        .await;
        if let Err(e) = saved {
            // A new session the database does not take: the answer goes out with a cookie that
            // loads nothing later, as if no session had been started.
            tracing::warn!(error = %e, "a new session could not be saved");
        }
        Ok(key)
    }

    async fn update(
        &self,
        key: SessionKey,
        mut state: HashMap<String, String>,
        ttl: &Duration,
    ) -> Result<SessionKey, UpdateError> {
        if state.contains_key(UNAVAILABLE) {
            return Ok(key);
        }
        sid_of(&mut state);
        let user = user_of(&state);
        let json = serde_json::to_value(&state).context("a session state").map_err(UpdateError::Serialization)?;
        let updated = sqlx::query!(
            "UPDATE sessions SET state = $2, user_id = $3, expires_at = $4, last_seen_at = now()
             WHERE key_hash = $1 AND expires_at > now()",
            &key_hash(&key),
            json,
            user,
            expiry(ttl)
        )
        .execute(&self.pool)
        .await
        .map_or_else(
            |e| {
                // Kept as it was: the cookie still names the stored session.
                tracing::warn!(error = %e, "a session could not be updated");
                1
            },
            |r| r.rows_affected(),
        );
        if updated == 0 {
            // Ended meanwhile on the server: the write must not bring it back, and the cookie
            // loads nothing from now on.
            tracing::debug!("a write to an ended session was dropped");
        }
        Ok(key)
    }

    async fn update_ttl(&self, key: &SessionKey, ttl: &Duration) -> Result<(), anyhow::Error> {
        sqlx::query!(
            "UPDATE sessions SET expires_at = $2, last_seen_at = now() WHERE key_hash = $1",
            &key_hash(key),
            expiry(ttl)
        )
        .execute(&self.pool)
        .await
        .context("extending a session")?;
        Ok(())
    }

    async fn delete(&self, key: &SessionKey) -> Result<(), anyhow::Error> {
        sqlx::query!("DELETE FROM sessions WHERE key_hash = $1", &key_hash(key))
            .execute(&self.pool)
            .await
            .context("ending a session")?;
        Ok(())
    }
}

/// Deletes the expired sessions; the number deleted.
///
/// # Errors
/// Database failures.
pub async fn delete_expired(pool: &PgPool) -> anyhow::Result<u64> {
    Ok(sqlx::query!("DELETE FROM sessions WHERE expires_at <= now()")
        .execute(pool)
        .await
        .context("deleting expired sessions")?
        .rows_affected())
}
