//! Backups (docs/operations.md, "Backups and upgrades"): `pg_dump` of a live database restored
//! into a fresh one, and the platform on the restored database serves the same games, ratings
//! and accounts.

use std::process::Command;

use secrecy::SecretString;

use crate::helpers::{create_database, spawn_app, spawn_app_with};
use crate::moderation::black_wins_rated;
use crate::round::Browser;

/// A database URL as libpq reads it (without sqlx's own parameters).
fn plain(url: &str) -> &str {
    url.split('?').next().unwrap_or(url)
}

#[tokio::test]
async fn a_dump_of_a_live_database_restores_to_the_same_games_and_ratings() {
    let live = spawn_app().await;
    let (alice, bob) = (Browser::new(&live.address), Browser::new(&live.address));
    alice.signup("alice").await;
    bob.signup("bob").await;
    let game = black_wins_rated(&alice, &bob).await;
    // A second game still running while the dump is taken.
    let running = alice.create("standard", "5+0", "casual", "white").await;
    bob.join(&running).await;

    let dump = std::env::temp_dir().join(format!("cgdump-{}.sql", uuid::Uuid::new_v4().simple()));
    let out = Command::new("pg_dump")
        .args(["--no-owner", "--no-privileges", "--format=custom", "--file"])
        .arg(&dump)
        .arg(plain(&live.db_url))
        .output()
        .expect("pg_dump runs (Debian package postgresql-client)");
    assert!(out.status.success(), "pg_dump: {}", String::from_utf8_lossy(&out.stderr));
    let fresh = create_database().await;
    let out = Command::new("pg_restore")
        .args(["--no-owner", "--no-privileges", "--exit-on-error", "--dbname"])
        .arg(plain(&fresh))
        .arg(&dump)
        .output()
        .expect("pg_restore runs");
    let _ = std::fs::remove_file(&dump);
    assert!(out.status.success(), "pg_restore: {}", String::from_utf8_lossy(&out.stderr));

    let restored = spawn_app_with(|s| s.database.url = SecretString::from(fresh.clone())).await;
    // Each page as a guest sees it, the instance's own address left out.
    let page = |app: &crate::helpers::TestApp, path: String| {
        let (b, address) = (Browser::new(&app.address), app.address.clone());
        async move { b.html(&path).await.replace(&address, "ADDRESS") }
    };
    for path in ["/@/alice".to_string(), "/@/bob".to_string(), "/api/user/bob".to_string(), format!("/{game}")] {
        assert_eq!(page(&live, path.clone()).await, page(&restored, path.clone()).await, "{path}");
    }
    let (before, after) = (page(&live, "/player".into()).await, page(&restored, "/player".into()).await);
    assert_eq!(before, after, "the leaderboards");
    // The running game goes on from the restored database, and the accounts log in.
    let again = Browser::new(&restored.address);
    let r = again.post_form("/login", "/login", &[("username", "alice"), ("password", "password123")]).await;
    assert_eq!(r.status().as_u16(), 303);
    let mut sock = again.socket(&running, None).await;
    let full = sock.until("full").await;
    assert_eq!(full["d"]["you"], "white");
    assert_eq!(sock.act("e2e4", 0).await["t"], "ack");
}
