//! Migrations that rewrite stored data, run on a database holding rows in the old form.

use chessgold::db::MIGRATOR;
use chessgold::game::Reason;
use serde_json::json;
use sqlx::PgPool;

use crate::helpers::create_database;

/// The spellings the service wrote before the end reasons had one enum, with what they become,
/// and the status each was written with. The reasons spelt alike before and after come last.
const OLD_SPELLINGS: &[(&str, &str, i16)] = &[
    ("abort", "aborted", 25),
    ("no_start", "no-start", 37),
    ("flag", "timeout", 35),
    ("flag_insufficient_material", "timeout-draw", 35),
    ("claim_draw", "abandoned-draw", 34),
    ("resign", "resign", 31),
    ("agreement", "agreement", 34),
    ("abandoned", "abandoned", 33),
    ("no-progress", "no-progress", 34),
    ("king-killed", "king-killed", 60),
];

/// A migrated database up to (not including) the migration named `description`; its version.
#[expect(clippy::expect_used, reason = "test support code: a failed setup step should fail the test loudly")]
async fn database_before(description: &str) -> (PgPool, i64) {
    let pool = PgPool::connect(&create_database().await).await.expect("the test database");
    let target = MIGRATOR.iter().find(|m| m.description == description).expect("the migration").version;
    let before = MIGRATOR.iter().map(|m| m.version).filter(|v| *v < target).max().expect("an earlier migration");
    MIGRATOR.run_to(before, &pool).await.expect("the earlier migrations");
    (pool, target)
}

#[tokio::test]
async fn the_end_reason_migration_rewrites_every_old_spelling_in_games_and_end_events() {
    let (pool, _) = database_before("end reason spellings").await;
    for (i, (old, _, status)) in OLD_SPELLINGS.iter().enumerate() {
        let id = format!("reason{i:02}");
        sqlx::query("INSERT INTO games (id, variant, rated, status, reason, finished_at) VALUES ($1, 'standard', false, $2, $3, now())")
            .bind(&id)
            .bind(*status)
            .bind(*old)
            .execute(&pool)
            .await
            .expect("an old game");
        let end = json!({"status": {"id": status}, "winner": null, "reason": old, "clocks": null, "ratings": null});
        for (v, t, d) in [(1, "offers", json!({"reason": old})), (2, "end", end)] {
            sqlx::query("INSERT INTO game_events (game_id, v, t, d) VALUES ($1, $2, $3, $4)")
                .bind(&id)
                .bind(v)
                .bind(t)
                .bind(d)
                .execute(&pool)
                .await
                .expect("an old event");
        }
    }
    sqlx::query("INSERT INTO games (id, variant, rated, status) VALUES ('playing0', 'standard', false, 20)")
        .execute(&pool)
        .await
        .expect("a live game");

    MIGRATOR.run(&pool).await.expect("the migration");

    for (i, (old, new, _)) in OLD_SPELLINGS.iter().enumerate() {
        let id = format!("reason{i:02}");
        // The game reads back through the type: an unknown spelling would not decode.
        let game = chessgold::db::games::find(&pool, &id).await.expect("the game loads").expect("the game");
        assert_eq!(game.reason, Reason::from_name(new), "games.reason {old}");
        assert!(game.reason.is_some(), "{new} is a reason");
        let events = chessgold::db::games::events_since(&pool, &id, 0).await.expect("the events");
        let data: Vec<_> = events.iter().map(|e| (e.t.as_str(), e.d["reason"].clone())).collect();
        // Only `end` events carry an end reason; other data is left alone.
        assert_eq!(data, [("offers", json!(old)), ("end", json!(new))], "events of the game ended by {old}");
        assert_eq!(events[1].d["status"], json!({"id": OLD_SPELLINGS[i].2}), "the rest of the event stays");
    }
    let live = chessgold::db::games::find(&pool, "playing0").await.expect("the game loads").expect("the game");
    assert_eq!(live.reason, None);
    let left: i64 = sqlx::query_scalar("SELECT count(*) FROM pg_tables WHERE tablename = 'end_reason_renames'")
        .fetch_one(&pool)
        .await
        .expect("the catalogue");
    assert_eq!(left, 0, "the migration leaves no table behind");
}
