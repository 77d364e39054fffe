//! Synchronizer CSRF tokens: a random token in the session, echoed by every state-changing form.

use actix_session::Session;
use anyhow::Context;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::error::PageError;

const SESSION_KEY: &str = "csrf";

/// Name of the hidden form field.
pub const FIELD: &str = "csrf_token";

fn new_token() -> anyhow::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no randomness for a CSRF token: {e}"))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// The session's token, created when the session has none.
///
/// # Errors
/// The session cannot be written or no randomness is available.
pub fn token(session: &Session) -> anyhow::Result<String> {
    if let Ok(Some(t)) = session.get::<String>(SESSION_KEY) {
        return Ok(t);
    }
    rotate(session)
}

/// Replaces the session's token (at log-in) and returns the new one.
///
/// # Errors
/// The session cannot be written or no randomness is available.
pub fn rotate(session: &Session) -> anyhow::Result<String> {
    let t = new_token()?;
    session.insert(SESSION_KEY, &t).context("writing the session")?;
    Ok(t)
}

/// Checks a submitted token against the session's, in constant time.
///
/// # Errors
/// [`PageError::Csrf`] when the session has no token or the tokens differ;
/// [`PageError::Internal`] when the session could not be loaded (the database is down: that, not
/// an expired form, is what the visitor is told).
pub fn verify(session: &Session, submitted: &str) -> Result<(), PageError> {
    if crate::session_store::unavailable(session) {
        return Err(PageError::Internal(anyhow::anyhow!("the session store is unavailable")));
    }
    let expected = session.get::<String>(SESSION_KEY).ok().flatten().ok_or(PageError::Csrf)?;
    if constant_time_eq(expected.as_bytes(), submitted.as_bytes()) { Ok(()) } else { Err(PageError::Csrf) }
}

/// A form with the CSRF field ([`FIELD`]).
pub trait CsrfField {
    /// The submitted token.
    fn csrf_token(&self) -> &str;
}

/// Implements [`CsrfField`] for forms with a `csrf_token: String` field.
#[macro_export]
macro_rules! csrf_field {
    ($($form:ty),* $(,)?) => {$(
        impl $crate::auth::csrf::CsrfField for $form {
            fn csrf_token(&self) -> &str {
                &self.csrf_token
            }
        }
    )*};
}

/// An extractor: a posted form (as `web::Form` reads it) whose CSRF token matches the
/// session's; rejects with [`PageError::Csrf`] otherwise. Derefs to the form.
#[derive(Debug)]
pub struct CsrfForm<T>(pub T);

impl<T> CsrfForm<T> {
    /// The form.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for CsrfForm<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: serde::de::DeserializeOwned + CsrfField + 'static> actix_web::FromRequest for CsrfForm<T> {
    type Error = actix_web::Error;
    type Future = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Self, actix_web::Error>>>>;

    fn from_request(req: &actix_web::HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        let form = actix_web::web::Form::<T>::from_request(req, payload);
        let session = actix_session::SessionExt::get_session(req);
        Box::pin(async move {
            let form = form.await?.into_inner();
            verify(&session, form.csrf_token())?;
            Ok(CsrfForm(form))
        })
    }
}

pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_and_distinct() {
        let a = new_token().unwrap();
        let b = new_token().unwrap();
        assert_eq!(a.len(), 43);
        assert_ne!(a, b);
    }

    #[test]
    fn comparison_is_exact() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
    }
}
