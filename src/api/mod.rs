//! The JSON API: local play, game records, the lobby, and the lichess-shaped API (tokens,
//! accounts, the event stream, challenges, the board API).

pub mod auth;
pub mod board;
pub mod bot;
pub mod challenge;
pub mod events;
pub mod lichess;
pub mod local;
pub mod rel;
pub mod seek;
pub mod spectate;
pub mod token;
pub mod users;

use actix_web::web;

use crate::error::ApiError;

/// Largest JSON body the API reads.
pub const MAX_JSON_BYTES: usize = 64 * 1024;

/// The API's body settings: JSON bodies up to [`MAX_JSON_BYTES`], with JSON errors.
pub fn json_config() -> web::JsonConfig {
    web::JsonConfig::default().limit(MAX_JSON_BYTES).error_handler(|err, _req| json_error(&err).into())
}

/// The API's query settings: the site's query errors are pages; the API's stay JSON.
pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|err, _req| {
        ApiError::bad_request("bad_query", format!("the query string is not valid: {err}")).into()
    })
}

fn json_error(err: &actix_web::error::JsonPayloadError) -> ApiError {
    use actix_web::error::JsonPayloadError as E;
    match err {
        E::OverflowKnownLength { length, limit } => ApiError::new(
            actix_web::http::StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            format!("the body has {length} bytes; at most {limit} are accepted"),
        ),
        E::Overflow { limit } => ApiError::new(
            actix_web::http::StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            format!("the body is larger than {limit} bytes"),
        ),
        E::ContentType => ApiError::new(
            actix_web::http::StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "bad_content_type",
            "send the body as JSON with Content-Type: application/json",
        ),
        E::Deserialize(e) => ApiError::bad_request("bad_json", format!("the body is not a valid request: {e}")),
        other => ApiError::bad_request("bad_json", format!("the body could not be read: {other}")),
    }
}

/// Any other path under `/api`: a JSON 404.
pub async fn not_found() -> Result<actix_web::HttpResponse, ApiError> {
    Err(ApiError::new(actix_web::http::StatusCode::NOT_FOUND, "not_found", "no such API endpoint"))
}
