//! `/healthz`, `/metrics`, request ids and static files.

use sqlx::ConnectOptions;

use crate::helpers::{spawn_app, spawn_app_with};

#[tokio::test]
async fn healthz_reports_the_database() {
    let app = spawn_app().await;
    let resp = app.get("/healthz").await;
    assert_eq!(resp.status().as_u16(), 200);
    assert!(resp.headers().get("x-request-id").is_some());
    let json: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(json["database"], "ok");
    assert_eq!(json["broker_kind"], "memory");
}

#[tokio::test]
async fn healthz_is_503_when_the_database_is_gone() {
    // An app whose database does not exist (it starts: the pool connects lazily).
    let missing = crate::helpers::server_options().database("cgtest_never_created").to_url_lossy().to_string();
    let broken = spawn_app_with(|s| {
        s.database.migrate_on_start = false;
        s.database.acquire_timeout_secs = 1;
        s.database.url = secrecy::SecretString::from(missing);
    })
    .await;
    let resp = broken.get("/healthz").await;
    assert_eq!(resp.status().as_u16(), 503);
    let json: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(json["database"], "down");
}

#[tokio::test]
async fn an_infrastructure_failure_is_a_readable_500_page() {
    let missing = crate::helpers::server_options().database("cgtest_never_created").to_url_lossy().to_string();
    let broken = spawn_app_with(|s| {
        s.database.migrate_on_start = false;
        s.database.acquire_timeout_secs = 1;
        s.database.url = secrecy::SecretString::from(missing);
    })
    .await;
    let resp = broken.post_login("someone", "password1").await;
    assert_eq!(resp.status().as_u16(), 500);
    let html = resp.text().await.unwrap();
    assert!(html.contains("Something went wrong") && html.contains(r#"href="/""#), "{html}");
    assert!(!html.contains("cgtest_never_created"), "no internals leak to the page");
}

#[tokio::test]
async fn metrics_count_requests_by_route() {
    let app = spawn_app().await;
    app.get("/").await;
    app.get("/variant/standard").await;
    let text = app.get("/metrics").await.text().await.unwrap();
    assert!(text.contains("chessgold_http_requests_total"), "{text}");
    assert!(text.contains(r#"route="/variant/{id}""#), "{text}");
    assert!(text.contains("chessgold_http_request_duration_seconds_bucket"));
}

#[tokio::test]
async fn static_files_are_served_with_cache_headers() {
    let app = spawn_app().await;
    let resp = app.get("/static/css/site.css").await;
    assert_eq!(resp.status().as_u16(), 200);
    let cache = resp.headers().get("cache-control").unwrap().to_str().unwrap().to_string();
    assert!(cache.contains("max-age=3600"), "{cache}");
    assert!(resp.headers().get("etag").is_some());
    assert!(resp.headers().get("content-type").unwrap().to_str().unwrap().starts_with("text/css"));
    assert_eq!(app.get("/static/nothing-here.css").await.status().as_u16(), 404);
}
