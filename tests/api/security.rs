//! CSRF tokens, the Origin check and rate limits.

use crate::helpers::{spawn_app, spawn_app_with};

#[tokio::test]
async fn a_form_without_the_token_is_refused() {
    let app = spawn_app().await;
    app.get("/signup").await;
    let resp = app.post_form("/signup", &[("username", "mallory"), ("password", "password1")]).await;
    assert_eq!(resp.status().as_u16(), 403);
    assert!(resp.text().await.unwrap().contains("Form expired"));
    assert_eq!(app.user_count().await, 0);
}

#[tokio::test]
async fn a_wrong_token_is_refused() {
    let app = spawn_app().await;
    let token = app.csrf_token("/signup").await;
    let forged = format!("{}x", &token[..token.len() - 1]);
    let resp =
        app.post_form("/signup", &[("csrf_token", &forged), ("username", "mallory"), ("password", "password1")]).await;
    assert_eq!(resp.status().as_u16(), 403);
    assert_eq!(app.user_count().await, 0);
}

#[tokio::test]
async fn another_sessions_token_is_refused() {
    let app = spawn_app().await;
    let token = app.csrf_token("/signup").await;
    let other = app.new_browser();
    other.get("/signup").await;
    let resp =
        other.post_form("/signup", &[("csrf_token", &token), ("username", "mallory"), ("password", "password1")]).await;
    assert_eq!(resp.status().as_u16(), 403);
}

#[tokio::test]
async fn log_out_needs_the_token() {
    let app = spawn_app().await;
    app.post_signup("ivan", "password1").await;
    let resp = app.post_form("/logout", &[("csrf_token", "nope")]).await;
    assert_eq!(resp.status().as_u16(), 403);
    assert_eq!(app.logged_in_name().await.as_deref(), Some("ivan"));
}

#[tokio::test]
async fn a_request_from_another_origin_is_refused_even_with_the_token() {
    let app = spawn_app().await;
    let token = app.csrf_token("/signup").await;
    let resp = app
        .client
        .post(app.url("/signup"))
        .header("Origin", "https://evil.example")
        .form(&[("csrf_token", token.as_str()), ("username", "mallory"), ("password", "password1")])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 403);
    assert!(resp.text().await.unwrap().contains("came from another site"));
    let resp = app
        .client
        .post(app.url("/signup"))
        .header("Referer", "https://evil.example/page")
        .form(&[("csrf_token", token.as_str()), ("username", "mallory"), ("password", "password1")])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 403);
    let resp = app
        .client
        .post(app.url("/api/local"))
        .header("Origin", "null")
        .json(&serde_json::json!({"variant": "standard"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 403);
    let json: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(json["code"], "cross_origin");
    assert_eq!(app.user_count().await, 0);
}

#[tokio::test]
async fn a_configured_public_origin_is_accepted() {
    let app = spawn_app_with(|s| s.application.public_origins = vec!["https://chess.example".into()]).await;
    let token = app.csrf_token("/signup").await;
    let resp = app
        .client
        .post(app.url("/signup"))
        .header("Origin", "https://chess.example")
        .form(&[("csrf_token", token.as_str()), ("username", "judy"), ("password", "password1")])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 303);
}

#[tokio::test]
async fn repeated_log_in_failures_on_one_account_get_429() {
    // A long window: no attempt comes back while the test runs, however slow the machine.
    let app = spawn_app_with(|s| s.rate_limit.window_secs = 3600).await;
    app.post_signup("target", "the-password").await;
    app.post_logout().await;
    let per_account = app.settings.rate_limit.login_per_account;
    for _ in 0..per_account {
        assert_eq!(app.post_login("target", "guess-guess").await.status().as_u16(), 401);
    }
    let resp = app.post_login("TARGET", "the-password").await;
    assert_eq!(resp.status().as_u16(), 429);
    assert!(resp.headers().get("retry-after").is_some());
    let html = resp.text().await.unwrap();
    assert!(html.contains("Too many attempts") && html.contains("Wait"), "{html}");
    assert_eq!(app.logged_in_name().await, None);
}

#[tokio::test]
async fn many_log_ins_from_one_address_get_429() {
    let app = spawn_app_with(|s| s.rate_limit.window_secs = 3600).await;
    let per_ip = app.settings.rate_limit.login_per_ip;
    for i in 0..per_ip {
        assert_eq!(app.post_login(&format!("user{i}"), "password1").await.status().as_u16(), 401);
    }
    assert_eq!(app.post_login("someone-else", "password1").await.status().as_u16(), 429);
}

#[tokio::test]
async fn many_sign_ups_from_one_address_get_429() {
    let app = spawn_app_with(|s| {
        s.rate_limit.window_secs = 3600;
        s.rate_limit.signup_per_ip = 3;
    })
    .await;
    for i in 0..3 {
        let browser = app.new_browser();
        assert_eq!(browser.post_signup(&format!("player{i}"), "password1").await.status().as_u16(), 303);
    }
    let resp = app.new_browser().post_signup("player9", "password1").await;
    assert_eq!(resp.status().as_u16(), 429);
    assert!(resp.text().await.unwrap().contains("Too many attempts"));
    assert_eq!(app.user_count().await, 3);
}

#[tokio::test]
async fn repeated_sign_ups_for_one_name_get_429() {
    let app = spawn_app_with(|s| {
        s.rate_limit.window_secs = 3600;
        s.rate_limit.signup_per_account = 2;
    })
    .await;
    assert_eq!(app.post_signup("wanted", "password1").await.status().as_u16(), 303);
    let other = app.new_browser();
    assert_eq!(other.post_signup("WANTED", "password1").await.status().as_u16(), 422);
    assert_eq!(other.post_signup("Wanted", "password1").await.status().as_u16(), 429);
}

/// The headers of [`chessgold::middleware::SecurityHeaders`] on one answer.
fn assert_security_headers(resp: &reqwest::Response, what: &str, hsts: bool) {
    let h = resp.headers();
    let get = |name: &str| h.get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let csp = get("content-security-policy");
    for directive in [
        "default-src 'self'",
        "style-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(csp.contains(directive), "{what}: no {directive:?} in the CSP {csp:?}");
    }
    let scripts = csp.split(';').map(str::trim).find(|d| d.starts_with("script-src ")).unwrap_or("");
    assert!(!scripts.contains("'unsafe-inline'") && !scripts.contains("'unsafe-eval'"), "{what}: {scripts}");
    assert_eq!(get("x-frame-options"), "DENY", "{what}");
    assert_eq!(get("x-content-type-options"), "nosniff", "{what}");
    assert_eq!(get("referrer-policy"), "strict-origin-when-cross-origin", "{what}");
    assert_eq!(h.contains_key("strict-transport-security"), hsts, "{what}: HSTS only over HTTPS");
}

#[tokio::test]
async fn every_kind_of_answer_carries_the_security_headers() {
    let app = spawn_app().await;
    let token = app.csrf_token("/game/new").await;
    let made = app
        .post_form(
            "/game/new",
            &[("csrf_token", &token), ("variant", "standard"), ("time", "5+0"), ("mode", "casual"), ("color", "white")],
        )
        .await;
    assert_eq!(made.status().as_u16(), 303, "a game for the list");
    assert_security_headers(&made, "a form's redirect", false);
    let game = crate::helpers::location(&made);
    assert_eq!(app.post_signup("alice", "password123").await.status().as_u16(), 303);
    let asset = {
        let home = app.get_html("/").await;
        let at = home.find("/static/css/site.").expect("the stylesheet's hashed name");
        home[at..].split('"').next().unwrap_or_default().to_string()
    };
    let paths = [
        "/",
        "/variant/chessgold",
        "/local/chessgold",
        game.as_str(),
        "/@/alice",
        "/player",
        "/player/standard",
        "/account/password",
        "/account/tokens",
        "/login",
        "/no-such-page",
        asset.as_str(),
        "/static/js/site.js",
        "/api/account",
        "/api/user/alice",
        "/healthz",
    ];
    for path in paths {
        let resp = app.get(path).await;
        assert_security_headers(&resp, &format!("GET {path} ({})", resp.status()), false);
    }
    // An error answer too: a page that does not exist, an API call without its token.
    assert_eq!(app.get("/no-such-page").await.status().as_u16(), 404);
    assert_eq!(app.new_browser().get("/api/account").await.status().as_u16(), 401);
}

#[tokio::test]
async fn the_pages_have_no_inline_script_but_the_import_map_the_policy_names() {
    let app = spawn_app().await;
    let resp = app.get("/").await;
    let csp = resp.headers()["content-security-policy"].to_str().expect("text").to_string();
    let html = resp.text().await.expect("the page");
    let mut inline = Vec::new();
    for part in html.split("<script").skip(1) {
        let (attrs, rest) = part.split_once('>').expect("a whole tag");
        if attrs.contains("src=") || attrs.contains("application/json") {
            continue;
        }
        inline.push((attrs.trim().to_string(), rest.split("</script>").next().unwrap_or_default().to_string()));
    }
    assert_eq!(inline.len(), 1, "one inline script, the import map: {inline:?}");
    let (attrs, body) = &inline[0];
    assert_eq!(attrs, r#"type="importmap""#);
    use base64::Engine as _;
    use sha2::Digest as _;
    let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(body.as_bytes()));
    assert!(csp.contains(&format!("'sha256-{hash}'")), "the policy allows the import map by its hash: {csp}");
}

#[tokio::test]
async fn https_sites_send_strict_transport_security() {
    let app = spawn_app_with(|s| s.application.secure_cookies = true).await;
    let resp = app.get("/").await;
    assert_security_headers(&resp, "GET / over HTTPS", true);
    let hsts = resp.headers()["strict-transport-security"].to_str().expect("text");
    assert!(hsts.starts_with("max-age=") && hsts.contains("includeSubDomains"), "{hsts}");
}
