//! One tracing subscriber for the process.

use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::settings::LogSettings;

/// Installs the global subscriber: `RUST_LOG` if set, else the configured filter; pretty or JSON
/// lines on standard error. A second call does nothing (tests spawn many apps).
pub fn init(log: &LogSettings) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(&log.filter));
    let registry = tracing_subscriber::registry().with(filter);
    let _ = if log.format == "json" {
        registry.with(tracing_subscriber::fmt::layer().json().with_writer(std::io::stderr)).try_init()
    } else {
        registry.with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr)).try_init()
    };
}

/// The root span of every request: method, route pattern, status and request id. Unlike the
/// default it records neither the client address, the user agent nor the raw path (which can
/// carry query strings): addresses and identifying data stay out of the logs.
#[derive(Debug)]
pub struct RequestSpan;

impl tracing_actix_web::RootSpanBuilder for RequestSpan {
    fn on_request_start(request: &actix_web::dev::ServiceRequest) -> tracing::Span {
        use actix_web::HttpMessage;
        let request_id = request.extensions().get::<tracing_actix_web::RequestId>().map(ToString::to_string);
        tracing::info_span!(
            "request",
            http.method = %request.method(),
            http.route = %request.match_pattern().unwrap_or_else(|| "unmatched".into()),
            request_id = request_id.as_deref().unwrap_or(""),
            http.status_code = tracing::field::Empty,
            otel.status_code = tracing::field::Empty,
            exception.message = tracing::field::Empty,
            exception.details = tracing::field::Empty,
        )
    }

    fn on_request_end<B: actix_web::body::MessageBody>(
        span: tracing::Span,
        outcome: &Result<actix_web::dev::ServiceResponse<B>, actix_web::Error>,
    ) {
        tracing_actix_web::DefaultRootSpanBuilder::on_request_end(span, outcome);
    }
}
