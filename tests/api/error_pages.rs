//! Error pages keep the visitor's header: a signed-in player sees their menu (and a log-out form
//! with their session's token) on every 4xx page, whoever raised it: a handler, an extractor, the
//! default 404 service, the origin check. The API's errors stay JSON.

use serde_json::Value;

use crate::helpers::{TestApp, scrape_csrf, spawn_app};

/// The page is the signed-in layout of `name`: their menu, a log-out form carrying `token`,
/// and no sign-in links.
fn assert_signed_in(html: &str, name: &str, token: &str, what: &str) {
    assert!(html.contains(&format!(r#"<span class="user-name">{name}</span>"#)), "{what}: no user menu\n{html}");
    assert!(html.contains(r#"action="/logout""#), "{what}: no log-out form");
    assert_eq!(scrape_csrf(html).as_deref(), Some(token), "{what}: the log-out form lacks the session's token");
    assert!(!html.contains(r#"href="/login""#) && !html.contains(">Sign in<"), "{what}: a sign-in link");
}

async fn signed_in(app: &TestApp, name: &str) -> String {
    assert_eq!(app.post_signup(name, "password123").await.status().as_u16(), 303);
    app.csrf_token("/").await
}

#[tokio::test]
async fn every_kind_of_error_page_keeps_the_signed_in_header() {
    let app = spawn_app().await;
    let token = signed_in(&app, "alice").await;
    let cases: Vec<(&str, u16, reqwest::Response)> = vec![
        ("the default 404 service", 404, app.get("/no/such/page").await),
        ("a handler's 404", 404, app.get("/variant/no-such-variant").await),
        ("a handler's 400", 400, app.get("/@/alice?page=zero").await),
        // Two values for one field: the query extractor refuses it before the handler runs.
        ("the query extractor's 400", 400, app.get("/@/alice?page=1&page=2").await),
        ("a wrong CSRF token", 403, app.post_form("/challenge/open", &[("csrf_token", "forged")]).await),
        (
            "the origin check",
            403,
            app.client
                .post(app.url("/challenge/open"))
                .header("Origin", "http://elsewhere.example")
                .form(&[("csrf_token", token.as_str())])
                .send()
                .await
                .unwrap(),
        ),
        (
            "the form extractor's 413",
            413,
            app.post_form("/challenge/open", &[("csrf_token", &token), ("variant", &"x".repeat(20_000))]).await,
        ),
    ];
    for (what, status, resp) in cases {
        assert_eq!(resp.status().as_u16(), status, "{what}");
        assert!(resp.headers()["content-type"].to_str().unwrap().starts_with("text/html"), "{what}");
        let html = resp.text().await.unwrap();
        assert!(html.contains(&format!(r#"<p class="error-code">{status}</p>"#)), "{what}: {html}");
        assert_signed_in(&html, "alice", &token, what);
    }
}

#[tokio::test]
async fn the_too_many_attempts_page_keeps_the_header_and_its_wait() {
    let app = spawn_app().await;
    let token = signed_in(&app, "alice").await;
    // The test settings allow 5 log-in attempts per account name a minute.
    let mut last = None;
    for _ in 0..6 {
        let resp =
            app.post_form("/login", &[("csrf_token", &token), ("username", "nobody"), ("password", "wrong-one")]).await;
        last = Some(resp);
    }
    let resp = last.unwrap();
    assert_eq!(resp.status().as_u16(), 429);
    assert!(resp.headers().get("retry-after").is_some(), "Retry-After survives the new page");
    let html = resp.text().await.unwrap();
    assert!(html.contains("Too many attempts"), "{html}");
    assert_signed_in(&html, "alice", &token, "429");
}

#[tokio::test]
async fn an_anonymous_visitor_gets_the_signed_out_header_and_no_session() {
    let app = spawn_app().await;
    let resp = app.get("/no/such/page").await;
    assert_eq!(resp.status().as_u16(), 404);
    assert!(resp.headers().get("set-cookie").is_none(), "an error page makes no session for a reader");
    let html = resp.text().await.unwrap();
    assert!(html.contains(r#"href="/login""#) && !html.contains(r#"class="user-name""#), "{html}");
}

#[tokio::test]
async fn api_errors_stay_json_for_a_signed_in_player() {
    let app = spawn_app().await;
    signed_in(&app, "alice").await;
    for (path, status, code) in [
        ("/api/no/such/endpoint", 404, "not_found"),
        // The query extractor of an API route answers in JSON, not with the site's page.
        ("/api/games/user/alice?max=many", 400, "bad_query"),
    ] {
        let resp = app.get(path).await;
        assert_eq!(resp.status().as_u16(), status, "{path}");
        assert_eq!(resp.headers()["content-type"], "application/json", "{path}");
        let body: Value = resp.json().await.unwrap();
        assert_eq!(body["code"], code, "{path}");
        assert!(body["error"].as_str().is_some_and(|e| !e.is_empty()), "{path}: {body}");
    }
}
