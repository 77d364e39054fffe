//! Who is asking: the session's account, or a guest known by a signed cookie.

use actix_session::Session;
use actix_web::HttpRequest;
use actix_web::cookie::{Cookie, SameSite};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use super::model::{PlayerRef, hex};
use super::random_base62;
use crate::auth::{SessionUser, current_session_id, current_user};

/// Name of the guest cookie.
pub const GUEST_COOKIE: &str = "cg_guest";

/// Signs guest ids (HMAC-SHA256 with a key derived from the session key).
#[derive(Clone)]
pub struct GuestKey([u8; 32]);

impl std::fmt::Debug for GuestKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GuestKey(..)")
    }
}

impl GuestKey {
    /// Derives the key from the session key; a random one when the session key is empty.
    ///
    /// # Errors
    /// No randomness is available.
    pub fn derive(session_key: &str) -> anyhow::Result<GuestKey> {
        let mut key = [0u8; 32];
        if session_key.is_empty() {
            getrandom::fill(&mut key).map_err(|e| anyhow::anyhow!("no randomness: {e}"))?;
        } else {
            let mut h = Sha256::new();
            h.update(b"chessgold guest cookie\0");
            h.update(session_key.as_bytes());
            key.copy_from_slice(&h.finalize());
        }
        Ok(GuestKey(key))
    }

    fn mac(&self, id: &str) -> String {
        // An HMAC takes keys of any length: this cannot fail.
        match Hmac::<Sha256>::new_from_slice(&self.0) {
            Ok(mut m) => {
                m.update(id.as_bytes());
                hex(&m.finalize().into_bytes())
            }
            Err(_) => String::new(),
        }
    }

    /// The cookie value of a guest id: `id.mac`.
    pub fn sign(&self, id: &str) -> String {
        format!("{id}.{}", self.mac(id))
    }

    /// The guest id of a cookie value, when its signature holds.
    pub fn verify(&self, value: &str) -> Option<String> {
        let (id, mac) = value.split_once('.')?;
        if id.len() != 16 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return None;
        }
        let expected = self.mac(id);
        let same =
            expected.len() == mac.len() && expected.bytes().zip(mac.bytes()).fold(0u8, |a, (x, y)| a | (x ^ y)) == 0;
        same.then(|| id.to_string())
    }
}

/// The requester: an account, a guest with a cookie, or nobody known yet.
#[derive(Debug, Clone, Default)]
pub struct Identity {
    /// The logged-in user.
    pub user: Option<SessionUser>,
    /// The guest id of a valid guest cookie.
    pub guest: Option<String>,
    /// The public id of the signed-in session (its sockets close when it ends).
    pub session: Option<uuid::Uuid>,
}

/// An extractor: the caller's identity (the session's account, the guest cookie), as
/// [`Identity::of`] reads it. Never fails: without either, both are `None`.
impl actix_web::FromRequest for Identity {
    type Error = actix_web::Error;
    type Future = std::future::Ready<Result<Identity, actix_web::Error>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let session = actix_session::SessionExt::get_session(req);
        let identity = match req.app_data::<actix_web::web::Data<crate::startup::AppState>>() {
            Some(state) => Identity::of(req, &session, &state.guest_key),
            None => Identity { user: current_user(&session), guest: None, session: current_session_id(&session) },
        };
        std::future::ready(Ok(identity))
    }
}

impl Identity {
    /// Reads the session and the guest cookie.
    pub fn of(req: &HttpRequest, session: &Session, key: &GuestKey) -> Identity {
        let guest = req.cookie(GUEST_COOKIE).and_then(|c| key.verify(c.value()));
        Identity { user: current_user(session), guest, session: current_session_id(session) }
    }

    /// Every player this requester may be: the account, and the guest they were before logging in.
    pub fn candidates(&self) -> Vec<PlayerRef> {
        let mut out = Vec::new();
        if let Some(u) = &self.user {
            out.push(PlayerRef::User(u.id));
        }
        if let Some(g) = &self.guest {
            out.push(PlayerRef::Guest(g.clone()));
        }
        out
    }

    /// The player a new seat goes to: the account, else the guest (a new guest id when there is
    /// none, with the cookie to set).
    ///
    /// # Errors
    /// No randomness is available.
    pub fn player(&self, key: &GuestKey, secure: bool) -> anyhow::Result<(PlayerRef, Option<Cookie<'static>>)> {
        if let Some(u) = &self.user {
            return Ok((PlayerRef::User(u.id), None));
        }
        if let Some(g) = &self.guest {
            return Ok((PlayerRef::Guest(g.clone()), None));
        }
        let id = random_base62(16)?;
        let cookie = Cookie::build(GUEST_COOKIE, key.sign(&id))
            .path("/")
            .http_only(true)
            .secure(secure)
            .same_site(SameSite::Lax)
            .max_age(actix_web::cookie::time::Duration::days(365))
            .finish();
        Ok((PlayerRef::Guest(id), Some(cookie)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_ids_verify_and_forgeries_do_not() {
        let key = GuestKey::derive("k".repeat(64).as_str()).unwrap();
        let value = key.sign("abcdefghijklmnop");
        assert_eq!(key.verify(&value).as_deref(), Some("abcdefghijklmnop"));
        let forged = value.replacen("abcdefghijklmnop", "abcdefghijklmnoq", 1);
        assert_eq!(key.verify(&forged), None);
        assert_eq!(key.verify("abcdefghijklmnop"), None);
        let other = GuestKey::derive("x".repeat(64).as_str()).unwrap();
        assert_eq!(other.verify(&value), None);
    }
}
