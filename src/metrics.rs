//! Prometheus metrics, exposed as text at `/metrics`.

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{HttpResponse, web};
use anyhow::Context;
use prometheus::{Encoder, HistogramOpts, HistogramVec, IntCounterVec, Opts, Registry, TextEncoder};

use crate::startup::AppState;

/// The service's metrics.
#[derive(Debug, Clone)]
pub struct Metrics {
    registry: Registry,
    requests: IntCounterVec,
    duration: HistogramVec,
}

impl Metrics {
    /// Creates and registers the metrics.
    ///
    /// # Errors
    /// A metric definition is invalid (a bug).
    pub fn new() -> anyhow::Result<Metrics> {
        let registry = Registry::new();
        let requests = IntCounterVec::new(
            Opts::new("chessgold_http_requests_total", "HTTP requests answered, by route and status"),
            &["method", "route", "status"],
        )
        .context("defining a metric")?;
        let duration = HistogramVec::new(
            HistogramOpts::new("chessgold_http_request_duration_seconds", "Time to answer an HTTP request"),
            &["method", "route"],
        )
        .context("defining a metric")?;
        registry.register(Box::new(requests.clone())).context("registering a metric")?;
        registry.register(Box::new(duration.clone())).context("registering a metric")?;
        Ok(Metrics { registry, requests, duration })
    }

    fn observe(&self, method: &str, route: &str, status: u16, seconds: f64) {
        self.requests.with_label_values(&[method, route, &status.to_string()]).inc();
        self.duration.with_label_values(&[method, route]).observe(seconds);
    }

    /// The metrics in the Prometheus text format.
    ///
    /// # Errors
    /// Encoding failure.
    pub fn render(&self) -> anyhow::Result<String> {
        let mut buf = Vec::new();
        TextEncoder::new().encode(&self.registry.gather(), &mut buf).context("encoding metrics")?;
        String::from_utf8(buf).context("metrics are not UTF-8")
    }
}

/// Middleware: counts and times every request by its route pattern (never the raw path, which
/// would let clients create unbounded label values).
pub async fn track(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let method = req.method().to_string();
    let route = req.match_pattern().unwrap_or_else(|| "unmatched".to_string());
    let metrics = req.app_data::<web::Data<AppState>>().map(|s| s.metrics.clone());
    let res = next.call(req).await?;
    if let Some(m) = metrics {
        m.observe(&method, &route, res.status().as_u16(), started.elapsed().as_secs_f64());
    }
    Ok(res)
}

/// `GET /metrics`, for the configured addresses (`application.metrics_from`) or with the bearer
/// token `application.metrics_token`; 404 for anyone else, as if there were nothing here.
pub async fn metrics(req: actix_web::HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    if !state.metrics_access.allows(&req, state.trust_forwarded_for) {
        return HttpResponse::NotFound().finish();
    }
    match state.metrics.render() {
        Ok(text) => HttpResponse::Ok().content_type("text/plain; version=0.0.4; charset=utf-8").body(text),
        Err(e) => {
            tracing::error!(error = format!("{e:#}"), "metrics failed");
            HttpResponse::InternalServerError().finish()
        }
    }
}

/// Who may read `/metrics`.
#[derive(Debug, Clone)]
pub struct MetricsAccess {
    from: Vec<std::net::IpAddr>,
    token: Option<String>,
}

impl MetricsAccess {
    /// From the settings: the addresses, and the token (none when empty).
    pub fn new(from: Vec<std::net::IpAddr>, token: &secrecy::SecretString) -> MetricsAccess {
        use secrecy::ExposeSecret;
        let token = Some(token.expose_secret().to_string()).filter(|t| !t.is_empty());
        MetricsAccess { from, token }
    }

    /// Whether the request may read the metrics.
    pub fn allows(&self, req: &actix_web::HttpRequest, trust_forwarded_for: bool) -> bool {
        if self.from.contains(&crate::startup::client_ip(req, trust_forwarded_for)) {
            return true;
        }
        let Some(token) = &self.token else { return false };
        let given = req
            .headers()
            .get(actix_web::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        given.is_some_and(|g| crate::auth::csrf::constant_time_eq(g.as_bytes(), token.as_bytes()))
    }
}
