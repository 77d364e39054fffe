//! Rate limits of the account forms, per client address and per account name, of the API, per
//! token, and of the requests without one (the lobby's, the API's), per address (governor, GCRA).

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use actix_web::HttpRequest;
use actix_web::http::StatusCode;
use governor::clock::{Clock, MonotonicClock};
use governor::middleware::NoOpMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};

use crate::error::{ApiError, PageError};
use crate::settings::RateLimitSettings;
use crate::startup::AppState;

/// Counts a request against its client address's quota (the lobby's requests, the API without
/// a token or session).
///
/// # Errors
/// 429 with `Retry-After` when the quota is used up.
pub fn limit_ip(req: &HttpRequest, state: &AppState) -> Result<(), ApiError> {
    let ip = crate::startup::client_ip(req, state.trust_forwarded_for);
    state.limiters.api_ip(ip).map_err(|wait| {
        let mut e = ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            format!("too many requests from this address; wait {wait} s"),
        );
        e.retry_after = Some(wait);
        e
    })
}

/// An extractor: the request counted against its client address's quota ([`limit_ip`]);
/// rejects with 429 and `Retry-After` when the quota is used up. Handlers take it last, so that
/// their other arguments are read first.
#[derive(Debug, Clone, Copy)]
pub struct IpLimited;

impl actix_web::FromRequest for IpLimited {
    type Error = ApiError;
    type Future = std::future::Ready<Result<IpLimited, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let checked = match req.app_data::<actix_web::web::Data<AppState>>() {
            Some(state) => limit_ip(req, state).map(|()| IpLimited),
            None => Err(ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "unavailable", "no application state")),
        };
        std::future::ready(checked)
    }
}

/// The limiters of the log-in and sign-up forms.
#[derive(Debug)]
pub struct Limiters {
    login_ip: Keyed<IpAddr>,
    login_account: Keyed<String>,
    signup_ip: Keyed<IpAddr>,
    signup_account: Keyed<String>,
    api: Keyed<uuid::Uuid>,
    api_chat: Keyed<uuid::Uuid>,
    api_ip: Keyed<IpAddr>,
}

/// A keyed limiter on the standard monotonic clock (`Instant`): the TSC-based default clock can
/// misjudge time on a busy virtual machine.
type Keyed<K> = RateLimiter<K, DefaultKeyedStateStore<K>, MonotonicClock, NoOpMiddleware<std::time::Instant>>;

fn keyed<K: std::hash::Hash + Eq + Clone>(quota: Quota) -> Keyed<K> {
    RateLimiter::new(quota, DefaultKeyedStateStore::default(), MonotonicClock)
}

fn quota(per_window: u32, window_secs: u64) -> Quota {
    let n = NonZeroU32::new(per_window).unwrap_or(NonZeroU32::MIN);
    let period = Duration::from_secs(window_secs.max(1)) / n.get();
    Quota::with_period(period.max(Duration::from_millis(1))).map_or(Quota::per_second(n), |q| q.allow_burst(n))
}

fn check<K: std::hash::Hash + Eq + Clone>(limiter: &Keyed<K>, key: &K) -> Result<(), PageError> {
    limiter.check_key(key).map_err(|not_until| {
        let wait = not_until.wait_time_from(MonotonicClock.now());
        PageError::TooManyRequests { retry_after: wait.as_secs().max(1) }
    })
}

impl Limiters {
    /// Limiters with the configured quotas.
    pub fn new(s: &RateLimitSettings) -> Limiters {
        Limiters {
            login_ip: keyed(quota(s.login_per_ip, s.window_secs)),
            login_account: keyed(quota(s.login_per_account, s.window_secs)),
            signup_ip: keyed(quota(s.signup_per_ip, s.window_secs)),
            signup_account: keyed(quota(s.signup_per_account, s.window_secs)),
            api: keyed(quota(s.api_per_minute, 60)),
            // As a game socket's chat: 5 lines per 10 s.
            api_chat: keyed(quota(5, 10)),
            api_ip: keyed(quota(s.api_per_ip_per_minute, 60)),
        }
    }

    /// Counts a log-in attempt.
    ///
    /// # Errors
    /// [`PageError::TooManyRequests`] when the address or the account has used its quota.
    pub fn login(&self, ip: IpAddr, account: &str) -> Result<(), PageError> {
        check(&self.login_ip, &ip)?;
        check(&self.login_account, &account.to_lowercase())
    }

    /// Counts a sign-up attempt; `account` is the requested name when it is a valid one.
    ///
    /// # Errors
    /// [`PageError::TooManyRequests`] when the address or the name has used its quota.
    pub fn signup(&self, ip: IpAddr, account: Option<&str>) -> Result<(), PageError> {
        check(&self.signup_ip, &ip)?;
        match account {
            Some(name) => check(&self.signup_account, &name.to_lowercase()),
            None => Ok(()),
        }
    }

    /// Counts an API request of a token (or of a logged-in account); `Err(seconds to wait)`
    /// when its quota is used up.
    ///
    /// # Errors
    /// The seconds until the next request is allowed.
    pub fn api(&self, key: uuid::Uuid) -> Result<(), u64> {
        self.api.check_key(&key).map_err(|not_until| not_until.wait_time_from(MonotonicClock.now()).as_secs().max(1))
    }

    /// Counts a chat line sent through the API by an account; `Err(seconds to wait)` when it
    /// writes faster than a game socket may (5 lines per 10 s).
    ///
    /// # Errors
    /// The seconds until the next line is allowed.
    pub fn api_chat(&self, key: uuid::Uuid) -> Result<(), u64> {
        self.api_chat
            .check_key(&key)
            .map_err(|not_until| not_until.wait_time_from(MonotonicClock.now()).as_secs().max(1))
    }

    /// Counts a lobby request or an API request without a token or session from a client
    /// address; `Err(seconds to wait)` when its quota is used up.
    ///
    /// # Errors
    /// The seconds until the next request is allowed.
    pub fn api_ip(&self, ip: IpAddr) -> Result<(), u64> {
        self.api_ip.check_key(&ip).map_err(|not_until| not_until.wait_time_from(MonotonicClock.now()).as_secs().max(1))
    }

    /// Forgets keys whose quota is full again (called periodically to bound memory).
    pub fn prune(&self) {
        self.login_ip.retain_recent();
        self.login_account.retain_recent();
        self.signup_ip.retain_recent();
        self.signup_account.retain_recent();
        self.api.retain_recent();
        self.api_chat.retain_recent();
        self.api_ip.retain_recent();
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;

    fn settings() -> RateLimitSettings {
        RateLimitSettings {
            window_secs: 60,
            login_per_ip: 3,
            login_per_account: 2,
            signup_per_ip: 2,
            signup_per_account: 1,
            api_per_minute: 2,
            api_per_ip_per_minute: 2,
        }
    }

    #[test]
    fn the_account_quota_is_shared_across_letter_case() {
        let l = Limiters::new(&settings());
        let ip = IpAddr::V4(Ipv4Addr::LOCALHOST);
        assert!(l.login(ip, "Alice").is_ok());
        assert!(l.login(ip, "alice").is_ok());
        assert!(matches!(l.login(ip, "ALICE"), Err(PageError::TooManyRequests { retry_after }) if retry_after >= 1));
    }

    #[test]
    fn the_address_quota_covers_every_account() {
        let l = Limiters::new(&settings());
        let ip = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
        for name in ["a1", "a2", "a3"] {
            assert!(l.login(ip, name).is_ok());
        }
        assert!(l.login(ip, "a4").is_err());
        assert!(l.login(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)), "a4").is_ok());
    }
}
