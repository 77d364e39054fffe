//! Compression and caching of what the server sends: gzip and brotli by `Accept-Encoding` for the
//! text types, content-hashed static URLs cached for a year, and NDJSON streams that still
//! deliver each line as it happens.

#![expect(clippy::expect_used, clippy::unwrap_used, reason = "test code: a failed step should fail the test loudly")]

use std::io::Read;

use reqwest::header::HeaderMap;
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app};

/// A client that sends the given `Accept-Encoding` (none when empty) and decodes nothing.
fn raw(accept: &str) -> reqwest::Client {
    let mut headers = HeaderMap::new();
    if !accept.is_empty() {
        headers.insert("accept-encoding", accept.parse().unwrap());
    }
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).default_headers(headers).build().unwrap()
}

fn gunzip(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(body).read_to_end(&mut out).expect("a gzip body");
    out
}

fn unbrotli(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli::BrotliDecompress(&mut &body[..], &mut out).expect("a brotli body");
    out
}

fn header(resp: &reqwest::Response, name: &str) -> Option<String> {
    resp.headers().get(name).map(|v| v.to_str().unwrap().to_string())
}

fn varies_on_encoding(resp: &reqwest::Response) -> bool {
    resp.headers()
        .get_all("vary")
        .iter()
        .any(|v| v.to_str().unwrap().split(',').any(|t| t.trim().eq_ignore_ascii_case("accept-encoding")))
}

/// A request of each kind the brief names, as `(what, method, path, JSON body)`.
fn requests(css: &str, js: &str) -> Vec<(&'static str, &'static str, String, Option<Value>)> {
    vec![
        ("HTML", "GET", "/".to_string(), None),
        ("JSON", "POST", "/api/local".to_string(), Some(json!({"variant": "gold"}))),
        ("JavaScript", "GET", js.to_string(), None),
        ("CSS", "GET", css.to_string(), None),
        ("SVG", "GET", "/static/pieces/caman-white.svg".to_string(), None),
    ]
}

async fn send(
    app: &TestApp,
    client: &reqwest::Client,
    method: &str,
    path: &str,
    body: &Option<Value>,
) -> reqwest::Response {
    let url = app.url(path);
    let r = match body {
        Some(b) => client.post(url).json(b),
        None if method == "GET" => client.get(url),
        None => panic!("{method} without a body"),
    };
    r.send().await.unwrap()
}

/// The `href`/`src` of the first tag on a page that mentions `needle`.
fn linked(html: &str, needle: &str) -> String {
    let at = html.find(needle).unwrap_or_else(|| panic!("{needle} is not linked"));
    let start = html[..at].rfind('"').unwrap() + 1;
    let end = at + html[at..].find('"').unwrap();
    html[start..end].to_string()
}

#[tokio::test]
async fn gzip_and_brotli_bodies_decode_to_the_plain_bytes_for_every_text_type() {
    let app = spawn_app().await;
    let html = app.get_html("/local/gold").await;
    let css = linked(&html, "/static/css/board.");
    let js = linked(&html, "/static/js/local.");
    for (what, method, path, body) in requests(&css, &js) {
        let plain = send(&app, &raw(""), method, &path, &body).await;
        assert_eq!(plain.status().as_u16(), 200, "{what} {path}");
        assert_eq!(header(&plain, "content-encoding"), None, "{what}: no compression without Accept-Encoding");
        assert!(varies_on_encoding(&plain), "{what}: Vary: Accept-Encoding without it too");
        let plain_type = header(&plain, "content-type");
        let plain = plain.bytes().await.unwrap();
        assert!(plain.len() > 1024, "{what} is big enough to compress");
        for (accept, coding) in [("gzip", "gzip"), ("br", "br"), ("gzip, deflate, br, zstd", "br")] {
            let resp = send(&app, &raw(accept), method, &path, &body).await;
            assert_eq!(resp.status().as_u16(), 200, "{what} {accept}");
            assert_eq!(header(&resp, "content-encoding").as_deref(), Some(coding), "{what} asked for {accept}");
            assert!(varies_on_encoding(&resp), "{what} {accept}: Vary: Accept-Encoding");
            assert_eq!(header(&resp, "content-type"), plain_type, "{what} {accept}");
            let packed = resp.bytes().await.unwrap();
            assert!(packed.len() < plain.len(), "{what} {accept}: {} of {} bytes", packed.len(), plain.len());
            let back = if coding == "gzip" { gunzip(&packed) } else { unbrotli(&packed) };
            if what == "HTML" || what == "JSON" {
                // Made per request: the same page, though tokens and timestamps may differ.
                let (a, b) = (String::from_utf8(back).unwrap(), String::from_utf8(plain.to_vec()).unwrap());
                if what == "JSON" {
                    assert_eq!(serde_json::from_str::<Value>(&a).unwrap(), serde_json::from_str::<Value>(&b).unwrap());
                } else {
                    assert_eq!(a.len(), b.len(), "{what} {accept}: the same page");
                    assert!(a.starts_with("<!doctype html>") && a.trim_end().ends_with("</html>"));
                }
            } else {
                assert_eq!(back, plain.to_vec(), "{what} {accept}: the same bytes");
            }
        }
    }
}

#[tokio::test]
async fn tiny_bodies_are_sent_as_they_are() {
    let app = spawn_app().await;
    // The health answer is a few bytes of JSON; the favicon a few hundred of SVG.
    for path in ["/healthz", "/static/favicon.svg"] {
        let resp = raw("gzip, br").get(app.url(path)).send().await.unwrap();
        assert_eq!(resp.status().as_u16(), 200, "{path}");
        assert_eq!(header(&resp, "content-encoding"), None, "{path}");
        let body = resp.bytes().await.unwrap();
        assert!(body.len() < 1024, "{path}: {} bytes", body.len());
    }
}

#[tokio::test]
async fn pages_link_hashed_static_urls_that_are_cached_for_a_year() {
    let app = spawn_app().await;
    let client = raw("");
    for page in ["/", "/local/gold", "/variant/gold", "/login"] {
        let html = app.get_html(page).await;
        let urls: Vec<&str> =
            html.split(['"', '\'']).filter(|s| s.starts_with("/static/") && !s.contains(' ')).collect();
        assert!(urls.iter().any(|u| u.starts_with("/static/css/site.")), "{page} links its style: {urls:?}");
        // Every URL but the import map's keys (the plain names it maps).
        for url in urls.iter().filter(|u| !html.contains(&format!("\"{u}\":"))) {
            let name = url.rsplit('/').next().unwrap();
            let parts: Vec<&str> = name.split('.').collect();
            assert!(parts.len() >= 3 && parts[parts.len() - 2].len() == 12, "{page} links a plain name: {url}");
            let resp = client.get(app.url(url)).send().await.unwrap();
            assert_eq!(resp.status().as_u16(), 200, "{page}: {url}");
            assert_eq!(header(&resp, "cache-control").as_deref(), Some("public, max-age=31536000, immutable"), "{url}");
        }
    }
    // The plain names still work, with the short cache.
    let resp = client.get(app.url("/static/css/site.css")).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let cache = header(&resp, "cache-control").unwrap();
    assert_eq!(cache, format!("public, max-age={}", app.settings.application.static_max_age_secs));
    // A name with a hash that is not the file's: the file, but not for a year.
    let resp = client.get(app.url("/static/css/site.0123456789ab.css")).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(header(&resp, "cache-control").unwrap(), cache);
    assert_eq!(
        client.get(app.url("/static/css/nothing.0123456789ab.css")).send().await.unwrap().status().as_u16(),
        404
    );
}

#[tokio::test]
async fn the_import_map_sends_every_module_to_its_hashed_url() {
    let app = spawn_app().await;
    let html = app.get_html("/local/gold").await;
    let start =
        html.find(r#"<script type="importmap">"#).expect("an import map") + r#"<script type="importmap">"#.len();
    let map: Value = serde_json::from_str(&html[start..start + html[start..].find("</script>").unwrap()]).unwrap();
    let imports = map["imports"].as_object().unwrap();
    for module in ["/static/js/local.js", "/static/js/view.js", "/static/js/extras/index.js", "/static/js/pieces.js"] {
        let hashed = imports[module].as_str().unwrap_or_else(|| panic!("{module} is not mapped"));
        let plain = raw("").get(app.url(module)).send().await.unwrap().bytes().await.unwrap();
        let resp = raw("").get(app.url(hashed)).send().await.unwrap();
        assert_eq!(header(&resp, "content-type").as_deref(), Some("text/javascript; charset=utf-8"), "{hashed}");
        assert_eq!(resp.bytes().await.unwrap(), plain, "{hashed} is {module}");
    }
    // The entry comes as one bundle of its graph (view.js is imported by local.js, board.js by
    // view.js, xp.js by extras/index.js), hashed and cached for a year.
    let tag = r#"<script type="module" src="/static/js/local.bundle."#;
    let at = html.find(tag).expect("the bundle's script") + tag.len() - "/static/js/local.bundle.".len();
    let bundle = html[at..at + html[at..].find('"').unwrap()].to_string();
    let resp = raw("").get(app.url(&bundle)).send().await.unwrap();
    assert_eq!(header(&resp, "cache-control").as_deref(), Some("public, max-age=31536000, immutable"));
    let text = resp.text().await.unwrap();
    for module in ["js/local.js", "js/view.js", "js/board.js", "js/extras/xp.js", "js/pieces.js"] {
        assert!(text.contains(&format!("__cg[\"{module}\"] ??= (() => {{")), "{module} in the bundle");
    }
    // And only the bundle besides the layout's own header script: the page's modules are not
    // loaded besides it.
    let modules: Vec<&str> = html
        .match_indices(r#"<script type="module" src=""#)
        .map(|(at, tag)| {
            let src = &html[at + tag.len()..];
            &src[..src.find('"').unwrap()]
        })
        .collect();
    assert_eq!(modules.len(), 2, "{html}");
    assert_eq!(modules[0], bundle);
    assert!(modules[1].starts_with("/static/js/site.") && !modules[1].contains("bundle"), "{modules:?}");
    assert!(!html.contains("modulepreload"));
}

#[tokio::test]
async fn a_static_file_the_browser_has_is_not_sent_again() {
    let app = spawn_app().await;
    let client = raw("br");
    let first = client.get(app.url("/static/js/board.js")).send().await.unwrap();
    let etag = header(&first, "etag").expect("an ETag");
    let again = client.get(app.url("/static/js/board.js")).header("if-none-match", &etag).send().await.unwrap();
    assert_eq!(again.status().as_u16(), 304);
    assert!(again.bytes().await.unwrap().is_empty());
}

#[tokio::test]
async fn the_event_stream_delivers_a_line_as_it_happens_when_gzip_is_accepted() {
    let app = spawn_app().await;
    let alice = app.new_browser();
    assert_eq!(alice.post_signup("alice", "correct horse battery").await.status().as_u16(), 303);
    let bob = app.new_browser();
    assert_eq!(bob.post_signup("bob", "correct horse battery").await.status().as_u16(), 303);
    let mut stream =
        alice.client.get(app.url("/api/stream/event")).header("accept-encoding", "gzip").send().await.unwrap();
    assert_eq!(stream.status().as_u16(), 200);
    assert_eq!(header(&stream, "content-type").as_deref(), Some("application/x-ndjson"));
    // Streams go out as they are, line by line (see src/compress.rs).
    assert_eq!(header(&stream, "content-encoding"), None);
    // Bob challenges Alice once her stream is open: the line must come while the stream stays
    // open (nothing else is sent before the keep-alive).
    let token = bob.csrf_token("/@/alice").await;
    let fields = [
        ("csrf_token", token.as_str()),
        ("variant", "standard"),
        ("time", "5+3"),
        ("mode", "casual"),
        ("color", "white"),
    ];
    let sent = bob.post_form("/@/alice/challenge", &fields).await;
    assert_eq!(sent.status().as_u16(), 303, "the challenge is sent");
    let mut buf = String::new();
    let line = loop {
        if let Some(at) = buf.find('\n') {
            let line: String = buf.drain(..=at).collect();
            if line.trim().is_empty() {
                continue;
            }
            break line;
        }
        let chunk = tokio::time::timeout(std::time::Duration::from_secs(30), stream.chunk())
            .await
            .expect("a line while the stream is open")
            .unwrap()
            .expect("the stream stays open");
        buf.push_str(std::str::from_utf8(&chunk).unwrap());
    };
    let event: Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!(event["type"], "challenge", "{event}");
    assert_eq!(event["challenge"]["challenger"]["name"], "bob", "{event}");
}

#[tokio::test]
async fn the_piece_sprite_shows_every_piece_image_of_every_variant() {
    let app = spawn_app().await;
    let html = app.get_html("/local/gold").await;
    // The board pages preload it.
    let tag = r#"<link rel="preload" as="image" href=""#;
    let at = html.find(tag).expect("a preloaded sprite") + tag.len();
    let sprite = html[at..at + html[at..].find('"').unwrap()].to_string();
    assert!(sprite.starts_with("/static/pieces.") && sprite.ends_with(".svg"), "{sprite}");
    let resp = raw("").get(app.url(&sprite)).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(header(&resp, "content-type").as_deref(), Some("image/svg+xml"));
    assert_eq!(header(&resp, "cache-control").as_deref(), Some("public, max-age=31536000, immutable"));
    let svg = resp.text().await.unwrap();
    for v in chessgold_engine::registry::variants() {
        for p in v.pieces {
            for color in ["white", "black"] {
                let name = format!("{}-{color}", p.kind.slug());
                assert!(svg.contains(&format!(r#"<view id="{name}""#)), "{}: {name}", v.id);
                // The drawing of the piece's own file is in it.
                let own = app.get(&format!("/static/pieces/{name}.svg")).await.text().await.unwrap();
                let inner = &own[own.find('>').unwrap() + 1..own.rfind("</svg>").unwrap()];
                assert!(svg.contains(inner), "{name}'s drawing");
            }
        }
    }
}
