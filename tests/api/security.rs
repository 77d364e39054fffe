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
