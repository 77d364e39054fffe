//! Argon2id password hashes, computed off the async worker threads.

use anyhow::Context;
use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use secrecy::{ExposeSecret, SecretString};

/// A valid hash of a password nobody knows, verified when the account does not exist so that
/// both cases take the same time.
const DUMMY_HASH: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$gZiV/M1gPc22ElAH/Jh1Hw$CWOrkoo7oJBQ/iyh7uJ0LO2aLEfrHwTWllSAxT0zRno";

/// Hashes a password with Argon2id and a random salt (PHC string).
///
/// # Errors
/// Hashing failure (should not happen) or a panicked worker.
pub async fn hash(password: SecretString) -> anyhow::Result<String> {
    tokio::task::spawn_blocking(move || {
        Argon2::default()
            .hash_password(password.expose_secret().as_bytes())
            .map(|h| h.to_string())
            .map_err(|e| anyhow::anyhow!("hashing a password: {e}"))
    })
    .await
    .context("the hashing task failed")?
}

/// Whether the password matches the stored hash; with no hash, verifies against a dummy so the
/// time taken does not reveal whether the account exists, and answers `false`.
///
/// # Errors
/// A panicked worker.
pub async fn verify(password: SecretString, stored: Option<String>) -> anyhow::Result<bool> {
    tokio::task::spawn_blocking(move || {
        let known = stored.is_some();
        let text = stored.unwrap_or_else(|| DUMMY_HASH.to_string());
        let Ok(parsed) = PasswordHash::new(&text) else {
            tracing::error!("a stored password hash is not a PHC string");
            return false;
        };
        let ok = Argon2::default().verify_password(password.expose_secret().as_bytes(), &parsed).is_ok();
        known && ok
    })
    .await
    .context("the verification task failed")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_hash_verifies_its_password_only() {
        let h = hash(SecretString::from("correct horse")).await.unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(verify(SecretString::from("correct horse"), Some(h.clone())).await.unwrap());
        assert!(!verify(SecretString::from("correct hors"), Some(h)).await.unwrap());
    }

    #[tokio::test]
    async fn no_account_never_verifies() {
        assert!(PasswordHash::new(DUMMY_HASH).is_ok());
        assert!(!verify(SecretString::from("anything"), None).await.unwrap());
    }
}
