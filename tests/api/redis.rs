//! The Redis paths: sessions stay in PostgreSQL, and the Redis broker, against the real Redis.
#![expect(clippy::unwrap_used, reason = "test support code: a failed setup step should fail the test loudly")]

use std::time::Duration;

use chessgold::broker::Broker;
use chessgold::broker::redis::RedisBroker;
use redis::AsyncCommands;
use uuid::Uuid;

use crate::helpers::{redis_url, spawn_app_with_redis};

async fn keys(prefix: &str) -> Vec<String> {
    let client = redis::Client::open(redis_url()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    conn.keys(format!("{prefix}*")).await.unwrap()
}

/// With Redis configured, sessions still live in PostgreSQL: Redis losing every key of the
/// deployment (a restart without persistence) logs nobody out.
#[tokio::test]
async fn sessions_live_in_postgres_and_survive_redis_losing_its_keys() {
    let app = spawn_app_with_redis().await;
    let prefix = app.settings.redis.key_prefix.clone();
    let resp = app.get("/healthz").await;
    let json: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(json["broker_kind"], "redis");
    assert_eq!(app.post_signup("redisuser", "password1").await.status().as_u16(), 303);
    assert_eq!(app.logged_in_name().await.as_deref(), Some("redisuser"));
    let rows: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM sessions s JOIN users u ON u.id = s.user_id \
                                        WHERE u.username = 'redisuser'",
    )
    .fetch_one(&app.db_pool)
    .await
    .unwrap();
    assert_eq!(rows, 1);
    assert!(keys(&format!("{prefix}session:")).await.is_empty(), "no session in Redis");
    let client = redis::Client::open(redis_url()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    for key in keys(&prefix).await {
        let _: () = conn.del(key).await.unwrap();
    }
    assert_eq!(app.logged_in_name().await.as_deref(), Some("redisuser"), "still signed in");
    app.post_logout().await;
    assert_eq!(app.logged_in_name().await, None);
    assert_eq!(app.post_login("redisuser", "password1").await.status().as_u16(), 303);
    assert_eq!(app.logged_in_name().await.as_deref(), Some("redisuser"));
}

#[tokio::test]
async fn the_redis_broker_carries_messages_between_instances() {
    let prefix = format!("cgtest:{}:", Uuid::new_v4().simple());
    let a = RedisBroker::connect(&redis_url(), &prefix).await.unwrap();
    let b = RedisBroker::connect(&redis_url(), &prefix).await.unwrap();
    a.ping().await.unwrap();
    let mut sub = b.subscribe("game:abc").await.unwrap();
    let mut other = b.subscribe("game:xyz").await.unwrap();
    a.publish("game:abc", r#"{"t":"move","d":"e2e4"}"#).await.unwrap();
    a.publish("game:abc", "second").await.unwrap();
    let first = tokio::time::timeout(Duration::from_secs(5), sub.recv()).await.unwrap();
    assert_eq!(first.as_deref(), Some(r#"{"t":"move","d":"e2e4"}"#));
    let second = tokio::time::timeout(Duration::from_secs(5), sub.recv()).await.unwrap();
    assert_eq!(second.as_deref(), Some("second"));
    assert!(tokio::time::timeout(Duration::from_millis(300), other.recv()).await.is_err());
    // Another prefix (another deployment) does not hear it.
    let c = RedisBroker::connect(&redis_url(), "cgtest:other:").await.unwrap();
    let mut foreign = c.subscribe("game:abc").await.unwrap();
    a.publish("game:abc", "third").await.unwrap();
    assert!(tokio::time::timeout(Duration::from_millis(300), foreign.recv()).await.is_err());
}
