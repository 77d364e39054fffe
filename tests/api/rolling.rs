//! A rolling restart (docs/operations.md, "Backups and upgrades"): two `chessgold serve`
//! processes on one database and Redis, games played across both by the load tool; each instance
//! in turn is stopped with SIGTERM and started again while the games go on. No acknowledged move
//! is lost, the load tool sees no error, and no game is ended by the restarts.
#![expect(clippy::unwrap_used, reason = "test code: a failed step should fail the test loudly")]

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chessgold::load::{self, LoadConfig, Pairing};
use uuid::Uuid;

use crate::helpers::{binary, create_database, redis_url};

/// How long the test waits for a state it expects.
const WAIT: Duration = Duration::from_secs(60);

/// One `chessgold serve` process.
struct Instance {
    child: Child,
    port: u16,
}

/// What the instances share: the database, the Redis key prefix and the session key.
struct Cluster {
    db_url: String,
    prefix: String,
    key: String,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Cluster {
    fn start(&self, port: u16) -> Instance {
        let root = env!("CARGO_MANIFEST_DIR");
        let child = Command::new(binary())
            .arg("serve")
            .current_dir(root)
            .env("CHESSGOLD_ENV", "test")
            .env("DATABASE_URL", &self.db_url)
            .env("CHESSGOLD__APPLICATION__PORT", port.to_string())
            .env("CHESSGOLD__APPLICATION__SESSION_KEY", &self.key)
            .env("CHESSGOLD__APPLICATION__SESSION_KEY_FILE", "")
            .env("CHESSGOLD__REDIS__URL", redis_url())
            .env("CHESSGOLD__REDIS__KEY_PREFIX", &self.prefix)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        Instance { child, port }
    }
}

impl Instance {
    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Waits until `/healthz` answers 200.
    async fn ready(&mut self) {
        let deadline = Instant::now() + WAIT;
        let client = reqwest::Client::new();
        loop {
            if let Ok(r) = client.get(format!("{}/healthz", self.url())).send().await
                && r.status().is_success()
            {
                return;
            }
            assert!(self.child.try_wait().unwrap().is_none(), "the instance on {} exited", self.port);
            assert!(Instant::now() < deadline, "the instance on {} did not come up", self.port);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// SIGTERM, then waits for the process to end (the graceful shutdown).
    async fn stop(mut self) {
        let pid = self.child.id().to_string();
        assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
        let deadline = Instant::now() + WAIT;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "the instance on {} did not stop", self.port);
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert!(status.success(), "a SIGTERM ends the server cleanly: {status}");
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn stored_moves(pool: &sqlx::PgPool) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM game_actions").fetch_one(pool).await.unwrap()
}

/// Waits until at least `more` moves beyond `from` are stored: the games go on.
async fn moves_go_on(pool: &sqlx::PgPool, from: i64, more: i64) -> i64 {
    let deadline = Instant::now() + WAIT;
    loop {
        let n = stored_moves(pool).await;
        if n >= from + more {
            return n;
        }
        assert!(Instant::now() < deadline, "the games stopped at {n} stored moves");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_rolling_restart_of_two_instances_loses_no_move_and_ends_no_game() {
    let cluster = Cluster {
        db_url: create_database().await,
        prefix: format!("cgtest:{}:", Uuid::new_v4().simple()),
        key: format!("rolling-{}", "k".repeat(64)),
    };
    let (port_a, port_b) = (free_port(), free_port());
    let mut a = cluster.start(port_a);
    a.ready().await;
    let mut b = cluster.start(port_b);
    b.ready().await;
    let pool = sqlx::PgPool::connect(&cluster.db_url).await.unwrap();

    let cfg = LoadConfig {
        urls: vec![a.url(), b.url()],
        games: 6,
        rate: Some(40.0),
        duration: Duration::from_secs(30),
        variant: "standard".into(),
        idle_games: 0,
        pairing: Pairing::Friend,
        progress: false,
    };
    let run = tokio::spawn(load::run(cfg));

    // Each instance in turn: stopped while games are being played on it, started again on its
    // port, and the games go on before the next one is stopped.
    let mut stored = moves_go_on(&pool, 0, 30).await;
    a.stop().await;
    stored = moves_go_on(&pool, stored, 10).await;
    let mut a = cluster.start(port_a);
    a.ready().await;
    stored = moves_go_on(&pool, stored, 20).await;
    b.stop().await;
    stored = moves_go_on(&pool, stored, 10).await;
    let mut b = cluster.start(port_b);
    b.ready().await;
    moves_go_on(&pool, stored, 20).await;

    let report = run.await.unwrap().unwrap();
    assert!(report.errors.is_empty(), "{}", report.summary());
    assert!(report.reconnects > 0, "the restarts closed sockets of games in play: {}", report.summary());
    assert!(load::verify(&pool, &report).await.unwrap().is_empty(), "every acknowledged move is stored");
    // Games end only by the rules of the board: none by a clock, an abandonment or an abort.
    let ended: Vec<(String, Option<String>)> =
        sqlx::query_as("SELECT id, reason FROM games WHERE reason IS NOT NULL").fetch_all(&pool).await.unwrap();
    let by_restart =
        ["timeout", "timeout-draw", "abandoned", "abandoned-draw", "aborted", "no-start", "resign", "agreement"];
    let wrong: Vec<_> = ended.iter().filter(|(_, r)| r.as_deref().is_some_and(|r| by_restart.contains(&r))).collect();
    assert!(wrong.is_empty(), "games ended by the restarts: {wrong:?}");
    drop((a, b));
}
