//! The session store chosen at start-up: Redis when configured, else signed cookies.

use std::collections::HashMap;

use actix_session::storage::{
    CookieSessionStore, LoadError, RedisSessionStore, SaveError, SessionKey, SessionStore, UpdateError,
};
use actix_web::cookie::time::Duration;

/// Either store, so one middleware type serves both configurations.
#[derive(Clone)]
pub enum AnySessionStore {
    /// Session state in Redis, only its key in the cookie.
    Redis(RedisSessionStore),
    /// Session state in the encrypted cookie itself.
    Cookie,
}

impl std::fmt::Debug for AnySessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AnySessionStore::Redis(_) => "AnySessionStore::Redis",
            AnySessionStore::Cookie => "AnySessionStore::Cookie",
        })
    }
}

impl SessionStore for AnySessionStore {
    async fn load(&self, key: &SessionKey) -> Result<Option<HashMap<String, String>>, LoadError> {
        match self {
            AnySessionStore::Redis(s) => s.load(key).await,
            AnySessionStore::Cookie => CookieSessionStore::default().load(key).await,
        }
    }

    async fn save(&self, state: HashMap<String, String>, ttl: &Duration) -> Result<SessionKey, SaveError> {
        match self {
            AnySessionStore::Redis(s) => s.save(state, ttl).await,
            AnySessionStore::Cookie => CookieSessionStore::default().save(state, ttl).await,
        }
    }

    async fn update(
        &self,
        key: SessionKey,
        state: HashMap<String, String>,
        ttl: &Duration,
    ) -> Result<SessionKey, UpdateError> {
        match self {
            AnySessionStore::Redis(s) => s.update(key, state, ttl).await,
            AnySessionStore::Cookie => CookieSessionStore::default().update(key, state, ttl).await,
        }
    }

    async fn update_ttl(&self, key: &SessionKey, ttl: &Duration) -> Result<(), anyhow::Error> {
        match self {
            AnySessionStore::Redis(s) => s.update_ttl(key, ttl).await,
            AnySessionStore::Cookie => CookieSessionStore::default().update_ttl(key, ttl).await,
        }
    }

    async fn delete(&self, key: &SessionKey) -> Result<(), anyhow::Error> {
        match self {
            AnySessionStore::Redis(s) => s.delete(key).await,
            AnySessionStore::Cookie => CookieSessionStore::default().delete(key).await,
        }
    }
}
