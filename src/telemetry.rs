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
