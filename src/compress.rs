//! Response compression: gzip and brotli, chosen by the request's `Accept-Encoding`, for the text
//! types (HTML, JSON, JavaScript, CSS, SVG, NDJSON, PGN, plain text) and only where it pays.
//!
//! Two users: the [`compress`] middleware compresses the server's own responses (pages, API
//! answers) as they leave, at quick settings; the static files are compressed once, at their
//! best settings, when they are loaded ([`crate::assets`]), and served as they are. Left alone:
//! bodies that are already encoded (they carry `Content-Encoding`), other types (images other
//! than SVG, fonts, archives), bodies under [`MIN_SIZE`], and streamed bodies (the API's NDJSON
//! streams and the game sockets: they deliver small lines one at a time, which compression would
//! hold back or barely shrink, and a compressor per open stream costs memory).

use std::io::Write;

use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, AcceptEncoding, ContentEncoding, HeaderMap, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::web::Bytes;
use actix_web::{HttpMessage, web};

/// Bodies smaller than this are sent as they are: compression would save a few bytes of a
/// packet that is sent anyway.
pub const MIN_SIZE: usize = 1024;

/// Bodies larger than this are not compressed on the fly (they would be held in memory whole).
const MAX_DYNAMIC_SIZE: usize = 8 * 1024 * 1024;

/// Bodies from this size on are compressed on a blocking thread, not on the request's worker.
const BLOCKING_FROM: usize = 32 * 1024;

/// A content coding this server produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    /// Brotli (`br`).
    Brotli,
    /// Gzip.
    Gzip,
    /// As it is.
    Identity,
}

impl Coding {
    /// The `Content-Encoding` value; `None` for identity.
    pub fn header(self) -> Option<ContentEncoding> {
        match self {
            Coding::Brotli => Some(ContentEncoding::Brotli),
            Coding::Gzip => Some(ContentEncoding::Gzip),
            Coding::Identity => None,
        }
    }

    /// The coding a request asks for: the best of brotli and gzip it accepts (brotli when both
    /// rank equally), else identity. Without `Accept-Encoding`, or when it refuses everything we
    /// have, identity (a body the client can read rather than a 406).
    pub fn negotiate(req: &impl HttpMessage) -> Coding {
        let Some(accept) = req.get_header::<AcceptEncoding>() else {
            return Coding::Identity;
        };
        let supported = [header::Encoding::brotli(), header::Encoding::gzip(), header::Encoding::identity()];
        match accept.negotiate(supported.iter()) {
            Some(e) if e == header::Encoding::brotli() => Coding::Brotli,
            Some(e) if e == header::Encoding::gzip() => Coding::Gzip,
            _ => Coding::Identity,
        }
    }
}

/// Whether a media type (a `Content-Type` value, parameters allowed) is text that compresses.
pub fn compressible(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    essence.starts_with("text/")
        || matches!(
            essence.as_str(),
            "application/json"
                | "application/javascript"
                | "application/x-ndjson"
                | "application/x-chess-pgn"
                | "application/manifest+json"
                | "application/xml"
                | "image/svg+xml"
        )
}

/// How hard to compress: quick for answers made per request, best for files compressed once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effort {
    /// Per request: gzip level 6, brotli quality 5 (most of the gain for a few ms per 100 KB).
    Quick,
    /// Once: gzip level 9, brotli quality 11.
    Best,
}

/// Compresses a whole body.
///
/// # Errors
/// The encoder fails (out of memory).
pub fn encode(coding: Coding, body: &[u8], effort: Effort) -> std::io::Result<Bytes> {
    match coding {
        Coding::Identity => Ok(Bytes::copy_from_slice(body)),
        Coding::Gzip => {
            let level = if effort == Effort::Best { 9 } else { 6 };
            let mut gz =
                flate2::write::GzEncoder::new(Vec::with_capacity(body.len() / 3), flate2::Compression::new(level));
            gz.write_all(body)?;
            Ok(Bytes::from(gz.finish()?))
        }
        Coding::Brotli => {
            let params = brotli::enc::BrotliEncoderParams {
                quality: if effort == Effort::Best { 11 } else { 5 },
                lgwin: window_bits(body.len()),
                size_hint: body.len(),
                ..Default::default()
            };
            let mut out = Vec::with_capacity(body.len() / 3);
            brotli::BrotliCompress(&mut &body[..], &mut out, &params)?;
            Ok(Bytes::from(out))
        }
    }
}

/// Brotli's window for a body of `len` bytes: just large enough to hold it, 18 to 22 bits. The
/// encoder sets up tables for its whole window: at quality 5 a 90 KB page took 1.2 ms with the
/// 4 MB window and 0.65 ms with 256 KB. Below 18 bits the crate takes a much slower path (16
/// bits: 5.6 ms for a 7.5 KB page against 0.15 ms at 18; measured 2026-12-03).
fn window_bits(len: usize) -> i32 {
    let bits = usize::BITS - len.max(1).leading_zeros();
    i32::try_from(bits).unwrap_or(22).clamp(18, 22)
}

/// Whether a response is worth compressing on the fly: a body of a compressible type, not yet
/// encoded, of a known size from [`MIN_SIZE`] to a few megabytes (streamed bodies are left as
/// they are, see the module's notes).
fn worth_it(status: StatusCode, headers: &HeaderMap, size: BodySize) -> bool {
    let typed = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(compressible);
    let encoded = headers.contains_key(header::CONTENT_ENCODING);
    let sized = matches!(size, BodySize::Sized(n) if (MIN_SIZE as u64..=MAX_DYNAMIC_SIZE as u64).contains(&n));
    typed
        && !encoded
        && sized
        && !matches!(status, StatusCode::SWITCHING_PROTOCOLS | StatusCode::NO_CONTENT | StatusCode::PARTIAL_CONTENT)
}

/// Adds `Vary: Accept-Encoding` unless the response already varies on it (or on everything).
pub fn vary_on_encoding(headers: &mut HeaderMap) {
    let present = headers.get_all(header::VARY).filter_map(|v| v.to_str().ok()).any(|v| {
        v.split(',').any(|t| {
            let t = t.trim();
            t == "*" || t.eq_ignore_ascii_case("accept-encoding")
        })
    });
    if !present {
        headers.append(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
}

/// Middleware: compresses the responses that are worth it (`worth_it`) in the coding the request
/// prefers, and marks them `Vary: Accept-Encoding` (also when the request asked for none, so a
/// cache between keeps the variants apart).
///
/// # Errors
/// Those of the inner service; a body that fails to read or encode becomes a 500.
pub async fn compress(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let coding = if req.method() == Method::HEAD { Coding::Identity } else { Coding::negotiate(&req) };
    let res = next.call(req).await?;
    if !worth_it(res.status(), res.headers(), res.response().body().size()) {
        return Ok(res.map_into_boxed_body());
    }
    let (req, mut res) = res.into_parts();
    vary_on_encoding(res.headers_mut());
    if coding == Coding::Identity {
        return Ok(ServiceResponse::new(req, res.map_into_boxed_body()));
    }
    let (mut res, body) = res.into_parts();
    let plain = actix_web::body::to_bytes(body).await.map_err(|e| {
        let e: Box<dyn std::error::Error> = e.into();
        actix_web::error::ErrorInternalServerError(e.to_string())
    })?;
    let encoded = if plain.len() < BLOCKING_FROM {
        encode(coding, &plain, Effort::Quick)
    } else {
        web::block(move || encode(coding, &plain, Effort::Quick)).await?
    }
    .map_err(actix_web::error::ErrorInternalServerError)?;
    if let Some(value) = coding.header() {
        res.headers_mut().insert(header::CONTENT_ENCODING, value.to_header_value());
    }
    // The length is the encoded body's; actix writes it.
    res.headers_mut().remove(header::CONTENT_LENGTH);
    Ok(ServiceResponse::new(req, res.set_body(encoded).map_into_boxed_body()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_brotli_window_fits_the_body() {
        assert_eq!(super::window_bits(0), 18);
        assert_eq!(super::window_bits(60_000), 18);
        assert_eq!(super::window_bits(300_000), 19);
        assert_eq!(super::window_bits(1 << 20), 21);
        assert_eq!(super::window_bits(50 << 20), 22);
        // Whatever the window, the body comes back whole.
        let body: Vec<u8> = (0..200_000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        let packed = super::encode(super::Coding::Brotli, &body, super::Effort::Quick).unwrap();
        let mut plain = Vec::new();
        brotli::BrotliDecompress(&mut &packed[..], &mut plain).unwrap();
        assert_eq!(plain, body);
    }

    use super::*;

    fn accept(value: &str) -> actix_web::HttpRequest {
        actix_web::test::TestRequest::default().insert_header((header::ACCEPT_ENCODING, value)).to_http_request()
    }

    #[test]
    fn brotli_is_chosen_over_gzip_when_both_are_accepted() {
        assert_eq!(Coding::negotiate(&accept("gzip, deflate, br, zstd")), Coding::Brotli);
        assert_eq!(Coding::negotiate(&accept("gzip")), Coding::Gzip);
        assert_eq!(Coding::negotiate(&accept("br;q=0.5, gzip")), Coding::Gzip);
        assert_eq!(Coding::negotiate(&accept("br;q=0, gzip;q=0")), Coding::Identity);
    }

    #[test]
    fn without_accept_encoding_nothing_is_compressed() {
        assert_eq!(Coding::negotiate(&actix_web::test::TestRequest::default().to_http_request()), Coding::Identity);
        assert_eq!(Coding::negotiate(&accept("identity")), Coding::Identity);
        assert_eq!(Coding::negotiate(&accept("deflate")), Coding::Identity);
    }

    #[test]
    fn text_types_compress_and_images_do_not() {
        for t in ["text/html; charset=utf-8", "application/json", "text/css", "image/svg+xml", "text/javascript"] {
            assert!(compressible(t), "{t}");
        }
        for t in ["image/png", "font/woff2", "application/gzip", "application/octet-stream"] {
            assert!(!compressible(t), "{t}");
        }
    }

    #[test]
    fn both_codings_give_back_the_same_bytes() {
        use std::io::Read;
        let body = "<p>Chess Gold</p>\n".repeat(200);
        for effort in [Effort::Quick, Effort::Best] {
            let gz = encode(Coding::Gzip, body.as_bytes(), effort).expect("gzip");
            let mut plain = String::new();
            flate2::read::GzDecoder::new(&gz[..]).read_to_string(&mut plain).expect("gunzip");
            assert_eq!(plain, body);
            let br = encode(Coding::Brotli, body.as_bytes(), effort).expect("brotli");
            let mut plain = Vec::new();
            brotli::BrotliDecompress(&mut &br[..], &mut plain).expect("unbrotli");
            assert_eq!(plain, body.as_bytes());
            assert!(br.len() < body.len() / 10 && gz.len() < body.len() / 10);
        }
    }

    #[test]
    fn vary_is_added_once() {
        let mut h = HeaderMap::new();
        h.insert(header::VARY, HeaderValue::from_static("Origin"));
        vary_on_encoding(&mut h);
        vary_on_encoding(&mut h);
        let all: Vec<_> = h.get_all(header::VARY).collect();
        assert_eq!(all.len(), 2, "{all:?}");
    }
}
