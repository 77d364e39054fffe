//! The load tool (`chessgold load`, src/load.rs) on a short run: games played over the real
//! sockets, no error, and every acknowledged move found in the database. Never a speed: the
//! figures are benchmarks (docs/benchmarks.md).
#![expect(clippy::unwrap_used, reason = "test code: a failed step should fail the test loudly")]

use std::time::Duration;

use chessgold::load::{self, LoadConfig, Pairing};

use crate::helpers::{spawn_app, spawn_app_with_redis};
use crate::round::instances::second_instance;

fn config(urls: Vec<String>) -> LoadConfig {
    LoadConfig {
        urls,
        games: 3,
        rate: Some(60.0),
        duration: Duration::from_secs(3),
        variant: "standard".into(),
        idle_games: 0,
        pairing: Pairing::Friend,
        progress: false,
    }
}

async fn check(report: &load::LoadReport, pool: &sqlx::PgPool) {
    assert!(report.errors.is_empty(), "{}", report.summary());
    assert!(report.moves > 0 && report.games >= 3, "{}", report.summary());
    assert_eq!(report.ack_us.len() as u64, report.moves);
    assert_eq!(report.receive_us.len() as u64, report.moves);
    assert_eq!(report.acked.values().sum::<usize>() as u64, report.moves);
    assert!(load::verify(pool, report).await.unwrap().is_empty(), "acknowledged moves are stored");
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM game_actions").fetch_one(pool).await.unwrap();
    assert!(stored as u64 >= report.moves);
}

#[tokio::test]
async fn a_short_load_run_loses_no_move_on_one_instance() {
    let app = spawn_app().await;
    let report = load::run(config(vec![app.address.clone()])).await.unwrap();
    check(&report, &app.db_pool).await;
}

#[tokio::test]
async fn a_short_load_run_loses_no_move_across_two_instances_on_redis() {
    let one = spawn_app_with_redis().await;
    let two = second_instance(&one).await;
    let report = load::run(config(vec![one.address.clone(), two.address.clone()])).await.unwrap();
    check(&report, &one.db_pool).await;
}

#[tokio::test]
async fn idle_games_hold_their_sockets_to_the_end_beside_the_playing_ones() {
    let app = spawn_app().await;
    let mut cfg = config(vec![app.address.clone()]);
    cfg.games = 1;
    cfg.idle_games = 3;
    let report = load::run(cfg).await.unwrap();
    check(&report, &app.db_pool).await;
    // Every idle game made its two moves and held both sockets until the end.
    assert_eq!(report.idle_held, 6, "{}", report.summary());
    let idle_games: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT game_id FROM game_actions GROUP BY game_id HAVING count(*) = 2) g",
    )
    .fetch_one(&app.db_pool)
    .await
    .unwrap();
    assert!(idle_games >= 3, "{idle_games} games stopped after their first two moves");
}

#[tokio::test]
async fn bad_load_arguments_are_refused_in_words() {
    let mut cfg = config(Vec::new());
    assert!(load::run(cfg.clone()).await.unwrap_err().to_string().contains("--url"));
    cfg.urls = vec!["http://127.0.0.1:1".into()];
    cfg.variant = "nope".into();
    assert!(load::run(cfg).await.unwrap_err().to_string().contains("unknown variant 'nope'"));
}

/// Games paired through lobby seeks, the quick-pairing pools and open challenges from signed-up
/// players: each pairing's own requests and sockets work under the tool, and nothing is lost.
#[tokio::test]
async fn games_paired_by_seeks_pools_and_challenges_lose_no_move() {
    let app = spawn_app().await;
    for pairing in [Pairing::Seek, Pairing::Pool, Pairing::Challenge] {
        let mut cfg = config(vec![app.address.clone()]);
        cfg.pairing = pairing;
        let report = load::run(cfg).await.unwrap();
        assert!(report.errors.is_empty(), "{pairing:?}: {}", report.summary());
        assert!(report.moves > 0 && report.games >= 3, "{pairing:?}: {}", report.summary());
        assert!(load::verify(&app.db_pool, &report).await.unwrap().is_empty(), "{pairing:?}");
    }
    // One account per slot, kept for the run; every game came from one of its challenges.
    let accepted: i64 = sqlx::query_scalar("SELECT count(*) FROM challenges WHERE status = 'accepted'")
        .fetch_one(&app.db_pool)
        .await
        .unwrap();
    let accounts: i64 = sqlx::query_scalar("SELECT count(*) FROM users WHERE username LIKE 'load%'")
        .fetch_one(&app.db_pool)
        .await
        .unwrap();
    assert!(accepted >= 3, "{accepted} challenges accepted");
    assert_eq!(accounts, 3);
}

/// The pools shared by two instances through Redis pair players of either instance.
#[tokio::test]
async fn pool_pairing_across_two_instances_on_redis_loses_no_move() {
    let one = spawn_app_with_redis().await;
    let two = second_instance(&one).await;
    let mut cfg = config(vec![one.address.clone(), two.address.clone()]);
    cfg.pairing = Pairing::Pool;
    let report = load::run(cfg).await.unwrap();
    check(&report, &one.db_pool).await;
}
