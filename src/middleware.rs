//! Cross-cutting request handling: the Origin check of unsafe requests, request ids on responses,
//! the security headers of every response, CORS on the API.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, web};
use tracing_actix_web::RequestId;

use crate::error::{ApiError, PageError};
use crate::startup::AppState;

/// `scheme://host[:port]` of a URL, lower-cased.
fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let host = rest.split(['/', '?', '#']).next()?;
    if scheme.is_empty() || host.is_empty() {
        return None;
    }
    Some(format!("{}://{}", scheme.to_ascii_lowercase(), host.to_ascii_lowercase()))
}

/// Whether an unsafe request may proceed: its `Origin` (or, without one, its `Referer`) must be
/// this site, as the request's own host names it, or one of the configured public origins.
/// Requests with neither header (non-browser clients) pass; forms still need their CSRF token.
fn origin_allowed(req: &ServiceRequest, public_origins: &[String]) -> bool {
    origin_allowed_headers(req.request(), public_origins)
}

/// The origin check of the middleware for a handler's request (the WebSocket upgrade of a game socket, a GET that
/// the middleware lets through).
pub fn origin_allowed_headers(req: &actix_web::HttpRequest, public_origins: &[String]) -> bool {
    let headers = req.headers();
    let claimed = match headers.get(header::ORIGIN) {
        Some(v) => match v.to_str() {
            Ok(text) => origin_of(text),
            Err(_) => None,
        },
        None => match headers.get(header::REFERER) {
            Some(v) => v.to_str().ok().and_then(origin_of),
            None => return true,
        },
    };
    let Some(claimed) = claimed else {
        // "null" or garbage: a sandboxed or privacy-hidden context.
        return false;
    };
    let info = req.connection_info();
    let own = format!("{}://{}", info.scheme(), info.host()).to_ascii_lowercase();
    claimed == own || public_origins.iter().any(|o| o.trim_end_matches('/').eq_ignore_ascii_case(&claimed))
}

/// Middleware: refuses unsafe requests from other origins with 403.
pub async fn check_origin(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let safe = matches!(req.method().as_str(), "GET" | "HEAD" | "OPTIONS" | "TRACE");
    // An API client with a token carries no cookie a browser would add on its own: it may call
    // from any origin (a page elsewhere using its owner's token).
    let token_only =
        req.headers().contains_key(header::AUTHORIZATION) && req.cookie(crate::startup::SESSION_COOKIE).is_none();
    if !safe && !token_only {
        let origins = req.app_data::<web::Data<AppState>>().map(|s| s.public_origins.clone()).unwrap_or_default();
        if !origin_allowed(&req, &origins) {
            tracing::warn!(path = %req.path(), "cross-origin unsafe request refused");
            // The error travels with the response, so the error page gets its signed-in header
            // (`error::page_context`).
            let resp = if req.path().starts_with("/api/") {
                req.error_response(ApiError::new(
                    actix_web::http::StatusCode::FORBIDDEN,
                    "cross_origin",
                    "requests from another origin are refused",
                ))
            } else {
                req.error_response(PageError::CrossOrigin)
            };
            return Ok(resp.map_into_right_body());
        }
    }
    next.call(req).await.map(ServiceResponse::map_into_left_body)
}

/// The `code` of an API error answered by the framework rather than a handler.
fn framework_code(status: actix_web::http::StatusCode) -> &'static str {
    use actix_web::http::StatusCode as S;
    match status {
        S::PAYLOAD_TOO_LARGE => "too_large",
        S::NOT_FOUND => "not_found",
        S::METHOD_NOT_ALLOWED => "method_not_allowed",
        S::UNSUPPORTED_MEDIA_TYPE => "bad_content_type",
        S::URI_TOO_LONG => "too_long",
        s if s.is_server_error() => "unavailable",
        _ => "bad_request",
    }
}

/// Middleware: every error under `/api/` is lichess's JSON (`{"error": "...", "code": ...}`),
/// also those the framework answers before a handler runs (a body over its size limit, a path
/// that does not parse, a method the route does not take), which come as text. The status and
/// the other headers stay.
pub async fn api_errors_json(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let api = req.path().starts_with("/api/");
    let resp = next.call(req).await?;
    let status = resp.status();
    let json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.starts_with("application/json"));
    if !api || !(status.is_client_error() || status.is_server_error()) || json {
        return Ok(resp.map_into_left_body());
    }
    let (req, res) = resp.into_parts();
    let headers = res.headers().clone();
    let text = match actix_web::body::to_bytes(res.into_body()).await {
        Ok(b) => String::from_utf8_lossy(&b).trim().chars().take(300).collect::<String>(),
        Err(_) => String::new(),
    };
    let message = if text.is_empty() { status.canonical_reason().unwrap_or("error").to_string() } else { text };
    let mut answer = actix_web::ResponseError::error_response(&ApiError::new(status, framework_code(status), message));
    for (name, value) in &headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH && !answer.headers().contains_key(name) {
            answer.headers_mut().insert(name.clone(), value.clone());
        }
    }
    Ok(ServiceResponse::new(req, answer).map_into_right_body())
}

/// The methods a cross-origin page may use on the API (lichess's list).
const CORS_METHODS: &str = "OPTIONS, GET, POST, PUT, DELETE";
/// The request headers it may send.
const CORS_HEADERS: &str = "Origin, Authorization, If-Modified-Since, Cache-Control, Content-Type";
/// How long a browser may keep a preflight's answer, in seconds (lichess's 20 days).
const CORS_MAX_AGE: &str = "1728000";

/// Middleware: the API may be called from pages of any origin, as lichess's is. Every answer
/// under `/api/` carries `Access-Control-Allow-Origin: *`, and a preflight (`OPTIONS` with
/// `Access-Control-Request-Method`) is answered 204 with the methods and headers allowed. The
/// wildcard never lets another site read what a session cookie would show: browsers send no
/// cookie on such a request unless asked to, and then refuse the answer of a wildcard. A
/// cross-origin page uses a token.
pub async fn api_cors(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    if !req.path().starts_with("/api/") {
        return next.call(req).await.map(ServiceResponse::map_into_left_body);
    }
    let any = HeaderValue::from_static("*");
    if req.method() == actix_web::http::Method::OPTIONS
        && req.headers().contains_key(header::ACCESS_CONTROL_REQUEST_METHOD)
    {
        let resp = actix_web::HttpResponse::NoContent()
            .insert_header((header::ACCESS_CONTROL_ALLOW_ORIGIN, any))
            .insert_header((header::ACCESS_CONTROL_ALLOW_METHODS, CORS_METHODS))
            .insert_header((header::ACCESS_CONTROL_ALLOW_HEADERS, CORS_HEADERS))
            .insert_header((header::ACCESS_CONTROL_MAX_AGE, CORS_MAX_AGE))
            .finish();
        return Ok(req.into_response(resp).map_into_right_body());
    }
    let mut resp = next.call(req).await?;
    resp.headers_mut().insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, any);
    Ok(resp.map_into_left_body())
}

tokio::task_local! {
    static REQUEST_ID: String;
}

/// The id of the request being answered (the `x-request-id` of its response, on its log span),
/// for the error answers that name it ([`crate::error`]). `None` outside a request.
pub fn current_request_id() -> Option<String> {
    REQUEST_ID.try_with(Clone::clone).ok()
}

/// Middleware: echoes the request id that tracing-actix-web gave the request as `x-request-id`,
/// and makes it [`current_request_id`] while the request is handled.
pub async fn request_id_header(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let id = req.extensions().get::<RequestId>().copied();
    let text = id.map(|i| i.to_string()).unwrap_or_default();
    let mut res = REQUEST_ID.scope(text, next.call(req)).await?;
    if let Some(id) = id
        && let Ok(value) = HeaderValue::from_str(&id.to_string())
    {
        res.headers_mut().insert(HeaderName::from_static("x-request-id"), value);
    }
    Ok(res)
}

/// Middleware (outside the session's): makes the request's address and browser the
/// [`crate::session_store::Client`] while it is handled, so that a session started by it records
/// them.
pub async fn session_client(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let trust = req.app_data::<actix_web::web::Data<crate::startup::AppState>>().is_some_and(|s| s.trust_forwarded_for);
    let client = crate::session_store::Client::of(req.request(), trust);
    crate::session_store::with_client(client, next.call(req)).await
}

/// The largest body [`refuse_nul`] reads to look for NUL characters; larger bodies are refused
/// (413): no route takes more.
pub const MAX_CHECKED_BODY: usize = 1024 * 1024;

/// Whether a percent-encoded text (a path, a query, a form body) holds a NUL character, raw or
/// as `%00`.
fn encoded_nul(text: &[u8]) -> bool {
    text.contains(&0) || text.windows(3).any(|w| w[0] == b'%' && w[1] == b'0' && w[2] == b'0')
}

/// Whether a JSON text holds a NUL character: raw, or the escape `\u0000` (not a backslash
/// escaped before `u0000`).
fn json_nul(text: &[u8]) -> bool {
    if text.contains(&0) {
        return true;
    }
    let mut backslashes = 0usize;
    for (i, &b) in text.iter().enumerate() {
        if b == b'\\' {
            backslashes += 1;
            continue;
        }
        if b == b'u' && backslashes % 2 == 1 && text.get(i + 1..i + 5) == Some(&b"0000"[..]) {
            return true;
        }
        backslashes = 0;
    }
    false
}

/// Middleware: refuses with 400 and a sentence any request whose path, query or form or JSON
/// body holds a NUL character. No text the site stores may hold one (PostgreSQL refuses it), and
/// refusing it here keeps every handler from meeting it.
pub async fn refuse_nul(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let refuse = |req: ServiceRequest, status: actix_web::http::StatusCode, why: &'static str| {
        let resp = if req.path().starts_with("/api/") {
            let code = if status == actix_web::http::StatusCode::PAYLOAD_TOO_LARGE { "too_large" } else { "bad_text" };
            req.error_response(ApiError::new(status, code, why))
        } else if status == actix_web::http::StatusCode::PAYLOAD_TOO_LARGE {
            req.error_response(PageError::TooLarge)
        } else {
            req.error_response(PageError::BadRequest(why.to_string()))
        };
        Ok(resp.map_into_right_body())
    };
    const NUL: &str = "text may not contain the NUL character";
    let uri = req.uri();
    let in_address = encoded_nul(uri.path().as_bytes()) || uri.query().is_some_and(|q| encoded_nul(q.as_bytes()));
    if in_address {
        return refuse(req, actix_web::http::StatusCode::BAD_REQUEST, NUL);
    }
    let kind = req.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let form = kind.starts_with("application/x-www-form-urlencoded");
    let json = kind.starts_with("application/json");
    if form || json {
        let mut body = web::BytesMut::new();
        let mut payload = req.take_payload();
        while let Some(chunk) = futures_util::StreamExt::next(&mut payload).await {
            body.extend_from_slice(&chunk?);
            if body.len() > MAX_CHECKED_BODY {
                return refuse(req, actix_web::http::StatusCode::PAYLOAD_TOO_LARGE, "the request is too large");
            }
        }
        if (form && encoded_nul(&body)) || (json && json_nul(&body)) {
            return refuse(req, actix_web::http::StatusCode::BAD_REQUEST, NUL);
        }
        let body = body.freeze();
        let replay = futures_util::stream::once(async move { Ok::<_, actix_web::error::PayloadError>(body) });
        req.set_payload(actix_web::dev::Payload::Stream { payload: Box::pin(replay) });
    }
    next.call(req).await.map(ServiceResponse::map_into_left_body)
}

/// The security headers every response carries (issue 16, item 9):
///
/// - `Content-Security-Policy`: scripts, styles, images, fonts and connections (the game and
///   lobby sockets too) from this site only; the one inline script allowed is the import map, by
///   its hash; no plugins, no `<base>`, forms post here only, and no page may frame ours
///   (`frame-ancestors 'none'`). Page data travels in `<script type="application/json">` blocks
///   and `data-` attributes, which the policy does not execute.
/// - `X-Frame-Options: DENY` (the same for older browsers), `X-Content-Type-Options: nosniff`,
///   `Referrer-Policy: strict-origin-when-cross-origin`, `Cross-Origin-Opener-Policy: same-origin`.
/// - `Strict-Transport-Security` when the site is served over HTTPS (`secure_cookies`).
///
/// A handler that sets one of them keeps its own.
#[derive(Debug, Clone)]
pub struct SecurityHeaders {
    headers: Vec<(HeaderName, HeaderValue)>,
}

impl SecurityHeaders {
    /// The headers for a site whose only inline script has the CSP source `import_map_hash`
    /// (`'sha256-…'`, or empty without static files), with HSTS when `https`.
    ///
    /// # Errors
    /// The hash is not valid header text.
    pub fn new(import_map_hash: &str, https: bool) -> anyhow::Result<SecurityHeaders> {
        let script =
            if import_map_hash.is_empty() { "'self'".to_string() } else { format!("'self' {import_map_hash}") };
        let csp = format!(
            "default-src 'self'; script-src {script}; style-src 'self'; img-src 'self' data:; font-src 'self'; \
             connect-src 'self'; media-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
             frame-ancestors 'none'"
        );
        let mut headers = vec![
            (header::CONTENT_SECURITY_POLICY, HeaderValue::from_str(&csp)?),
            (header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
            (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
            (header::REFERRER_POLICY, HeaderValue::from_static("strict-origin-when-cross-origin")),
            (HeaderName::from_static("cross-origin-opener-policy"), HeaderValue::from_static("same-origin")),
        ];
        if https {
            headers.push((
                header::STRICT_TRANSPORT_SECURITY,
                HeaderValue::from_static("max-age=63072000; includeSubDomains"),
            ));
        }
        Ok(SecurityHeaders { headers })
    }

    /// Adds the headers the response does not have yet.
    pub fn apply(&self, headers: &mut actix_web::http::header::HeaderMap) {
        for (name, value) in &self.headers {
            if !headers.contains_key(name) {
                headers.insert(name.clone(), value.clone());
            }
        }
    }
}

/// Middleware: [`SecurityHeaders`] on every response, errors included.
pub async fn security_headers(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let policy = req.app_data::<web::Data<SecurityHeaders>>().cloned();
    let mut res = next.call(req).await?;
    if let Some(policy) = policy {
        policy.apply(res.headers_mut());
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::{encoded_nul, json_nul, origin_of};

    #[test]
    fn nul_characters_are_found_raw_and_encoded() {
        assert!(encoded_nul(b"name=a%00b"));
        assert!(encoded_nul(b"a\0b"));
        assert!(!encoded_nul(b"name=a%2500b&x=%0a"));
        assert!(json_nul(br#"{"a":"x\u0000"}"#));
        assert!(json_nul(br#"{"a":"\\\u0000"}"#));
        assert!(!json_nul(br#"{"a":"\\u0000"}"#));
        assert!(!json_nul(br#"{"a":"u0000"}"#));
    }

    #[test]
    fn origins_are_scheme_and_host() {
        assert_eq!(origin_of("http://Example.com:8080/a?b").as_deref(), Some("http://example.com:8080"));
        assert_eq!(origin_of("https://x.y").as_deref(), Some("https://x.y"));
        assert_eq!(origin_of("null"), None);
        assert_eq!(origin_of("http://"), None);
    }
}
