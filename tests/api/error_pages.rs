//! Error pages keep the visitor's header: a signed-in player sees their menu (and a log-out form
//! with their session's token) on every 4xx page, whoever raised it: a handler, an extractor, the
//! default 404 service, the origin check. The API's errors stay JSON.

use serde_json::{Value, json};

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

#[tokio::test]
async fn text_with_a_nul_character_is_refused_with_a_sentence_and_changes_nothing() {
    let app = spawn_app().await;
    let token = app.csrf_token("/signup").await;
    let signup = app
        .post_form("/signup", &[("csrf_token", token.as_str()), ("username", "ali\0ce"), ("password", "password123")])
        .await;
    assert_eq!(signup.status().as_u16(), 400, "a name with NUL");
    let page = signup.text().await.unwrap();
    assert!(page.contains("NUL character"), "the page says why: {page}");
    assert_eq!(app.user_count().await, 0);

    let token = signed_in(&app, "alice").await;
    let made = app
        .post_form(
            "/account/tokens",
            &[("csrf_token", token.as_str()), ("description", "my\0board"), ("board:play", "on")],
        )
        .await;
    assert_eq!(made.status().as_u16(), 400, "a token description with NUL");
    let tokens: i64 = sqlx::query_scalar("SELECT count(*) FROM api_tokens").fetch_one(&app.db_pool).await.unwrap();
    assert_eq!(tokens, 0, "no token was made");
    let login = app.new_browser();
    let login_token = login.csrf_token("/login").await;
    let answer = login
        .post_form(
            "/login",
            &[("csrf_token", login_token.as_str()), ("username", "alice\0"), ("password", "password123")],
        )
        .await;
    assert_eq!(answer.status().as_u16(), 400, "a log-in name with NUL");

    for (what, resp) in [
        ("a path", app.get("/api/user/ali%00ce").await),
        ("a query", app.get("/api/games/user/alice?since=%00").await),
        (
            "a JSON body",
            app.client.post(app.url("/api/local")).json(&json!({"variant": "standard\u{0}"})).send().await.unwrap(),
        ),
    ] {
        assert_eq!(resp.status().as_u16(), 400, "{what}");
        let body: Value = resp.json().await.unwrap();
        assert_eq!(body["code"], "bad_text", "{what}: {body}");
        assert!(body["error"].as_str().unwrap_or("").contains("NUL character"), "{what}: {body}");
    }
}

#[tokio::test]
async fn a_server_failure_says_only_that_it_failed_and_names_its_request_id() {
    let app = spawn_app().await;
    let token = signed_in(&app, "alice").await;
    let made = app
        .post_form("/account/tokens", &[("csrf_token", token.as_str()), ("description", "mine"), ("board:play", "on")])
        .await;
    assert_eq!(made.status().as_u16(), 200, "a token");
    let page = made.text().await.unwrap();
    let at = page.find(r#"<code class="token-value">"#).expect("the new token shown")
        + r#"<code class="token-value">"#.len();
    let bearer = format!("Bearer {}", &page[at..at + page[at..].find('<').unwrap_or(0)]);
    // The database loses a table the requests need: a real failure inside the server.
    sqlx::query("ALTER TABLE api_tokens RENAME TO api_tokens_gone").execute(&app.db_pool).await.unwrap();

    let page = app.get("/account/tokens").await;
    assert_eq!(page.status().as_u16(), 500);
    let id = page.headers()["x-request-id"].to_str().unwrap().to_string();
    let html = page.text().await.unwrap();
    assert!(html.contains(&format!("request {id}")), "the page names its request id {id}");
    assert!(!html.contains("api_tokens") && !html.contains("relation"), "the page leaks the failure:\n{html}");

    let api =
        app.new_browser().client.get(app.url("/api/account")).header("Authorization", &bearer).send().await.unwrap();
    assert_eq!(api.status().as_u16(), 500);
    let id = api.headers()["x-request-id"].to_str().unwrap().to_string();
    let body: Value = api.json().await.unwrap();
    let error = body["error"].as_str().unwrap_or("");
    assert!(error.contains(&format!("request {id}")), "the answer names its request id: {body}");
    assert!(!error.contains("api_tokens") && !error.contains("relation"), "the answer leaks the failure: {body}");
}
