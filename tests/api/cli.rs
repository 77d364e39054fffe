//! The operator commands run as a real process: `user create`, `user role`, `migrate`, `serve`.
#![expect(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "test support code: a failed setup step should fail the test loudly"
)]

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::helpers::{binary, create_database, root, spawn_app};

fn chessgold(db_url: &str, args: &[&str], stdin: &str) -> std::process::Output {
    let mut child = Command::new(binary())
        .args(args)
        .current_dir(root())
        .env("CHESSGOLD_ENV", "test")
        .env("DATABASE_URL", db_url)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chessgold starts");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

#[tokio::test]
async fn user_create_makes_an_admin_who_can_log_in() {
    let app = spawn_app().await;
    let out =
        chessgold(&app.db_url, &["user", "create", "Operator", "--password-stdin", "--role", "admin"], "s3cret-pass\n");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("created admin 'Operator'"));
    let row = chessgold::db::users::find_by_name(&app.db_pool, "operator").await.unwrap().unwrap();
    assert_eq!(row.role, "admin");
    assert_eq!(app.post_login("Operator", "s3cret-pass").await.status().as_u16(), 303);
}

#[tokio::test]
async fn user_create_refuses_bad_input_and_taken_names() {
    let app = spawn_app().await;
    let out = chessgold(&app.db_url, &["user", "create", "x", "--password-stdin"], "s3cret-pass\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid user name"));
    let out = chessgold(&app.db_url, &["user", "create", "shorty", "--password-stdin"], "short\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid password"));
    assert_eq!(app.user_count().await, 0);
    let out = chessgold(&app.db_url, &["user", "create", "Taken", "--password-stdin"], "password1\n");
    assert!(out.status.success());
    let out = chessgold(&app.db_url, &["user", "create", "TAKEN", "--password-stdin"], "password1\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is taken"));
    let row = chessgold::db::users::find_by_name(&app.db_pool, "taken").await.unwrap().unwrap();
    assert_eq!(row.role, "user");
    assert_eq!(app.user_count().await, 1);
    // The password never goes on the command line.
    let out = chessgold(&app.db_url, &["user", "create", "nopass"], "");
    assert_eq!(out.status.code(), Some(2));
}

#[tokio::test]
async fn user_role_changes_a_role_with_one_mod_log_row() {
    let app = spawn_app().await;
    let out = chessgold(&app.db_url, &["user", "create", "Helper", "--password-stdin"], "password1\n");
    assert!(out.status.success());
    let out = chessgold(&app.db_url, &["user", "role", "helper", "moderator", "--reason", "trusted player"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Helper is now moderator (was user)"));
    let row = chessgold::db::users::find_by_name(&app.db_pool, "helper").await.unwrap().unwrap();
    assert_eq!(row.role, "moderator");
    let log: Vec<(Option<uuid::Uuid>, uuid::Uuid, String, String)> =
        sqlx::query_as("SELECT moderator_id, target_id, action, reason FROM mod_log")
            .fetch_all(&app.db_pool)
            .await
            .unwrap();
    assert_eq!(log, [(None, row.id, "set_role".to_string(), "trusted player".to_string())]);
    // No change, no account, no such role: refused, and nothing more is logged.
    let out = chessgold(&app.db_url, &["user", "role", "Helper", "moderator"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Helper is already moderator"));
    let out = chessgold(&app.db_url, &["user", "role", "nobody", "admin"], "");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no account named 'nobody'"));
    let out = chessgold(&app.db_url, &["user", "role", "Helper", "root"], "");
    assert_eq!(out.status.code(), Some(2));
    let n: (i64,) = sqlx::query_as("SELECT count(*) FROM mod_log").fetch_one(&app.db_pool).await.unwrap();
    assert_eq!(n.0, 1);
}

#[tokio::test]
async fn migrate_creates_the_schema() {
    let db_url = create_database().await;
    let out = chessgold(&db_url, &["migrate"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let pool = sqlx::PgPool::connect(&db_url).await.unwrap();
    assert_eq!(chessgold::db::users::count(&pool).await.unwrap(), 0);
    // Running it again is harmless.
    assert!(chessgold(&db_url, &["migrate"], "").status.success());
}

#[tokio::test]
async fn serve_answers_and_stops_gracefully_on_sigterm() {
    let db_url = create_database().await;
    let mut child = Command::new(binary())
        .arg("serve")
        .current_dir(root())
        .env("CHESSGOLD_ENV", "test")
        .env("DATABASE_URL", &db_url)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chessgold serve starts");
    let stderr = child.stderr.take().unwrap();
    let port = tokio::task::spawn_blocking(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr).lines() {
            let line = line.unwrap();
            if let Some(p) = line.strip_prefix("Chess Gold is listening on port ") {
                return p.trim().parse::<u16>().unwrap();
            }
        }
        panic!("serve never reported its port");
    })
    .await
    .unwrap();
    let health = reqwest::get(format!("http://127.0.0.1:{port}/healthz")).await.unwrap();
    assert_eq!(health.status().as_u16(), 200);
    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let started = Instant::now();
    loop {
        if let Some(exit) = child.try_wait().unwrap() {
            assert!(exit.success(), "serve exited with {exit}");
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(15), "serve did not stop after SIGTERM");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn token_create_prints_a_working_token_once() {
    let app = spawn_app().await;
    let out = chessgold(&app.db_url, &["user", "create", "Botter", "--password-stdin"], "s3cret-pass\n");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out =
        chessgold(&app.db_url, &["token", "create", "botter", "my bot", "--scopes", "board:play,challenge:read"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let token = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(token.starts_with("cgp_"), "{token}");
    let r = reqwest::Client::new().get(app.url("/api/account")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(r.json::<serde_json::Value>().await.unwrap()["username"], "Botter");
    let out = chessgold(&app.db_url, &["token", "create", "botter", "x", "--scopes", "admin"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown scope"));
    let out = chessgold(&app.db_url, &["token", "create", "nobody", "x"], "");
    assert_eq!(out.status.code(), Some(1));
}

fn chessgold_plain(args: &[&str]) -> std::process::Output {
    Command::new(binary()).args(args).current_dir(root()).stdin(Stdio::null()).output().expect("chessgold runs")
}

#[test]
fn bot_match_plays_a_tiny_match_and_prints_the_elo_estimate() {
    let out = chessgold_plain(&["bot-match", "--variant", "standard", "--white", "2", "--black", "1", "--games", "2"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("standard: level 2 vs level 1, 2 games"), "{stdout}");
    assert!(stdout.contains("(wins, draws, losses)") && stdout.contains("95% interval"), "{stdout}");
    assert!(stderr.contains("] 2/2"), "a progress bar on stderr: {stderr}");
    let wdl = stdout.lines().find(|l| l.starts_with("level 2: +")).expect("the result line");
    let counts: Vec<u32> = wdl
        .split_whitespace()
        .skip(2)
        .take(3)
        .map(|t| t.trim_start_matches(['+', '=', '-']).parse().expect("a count"))
        .collect();
    assert_eq!(counts.iter().sum::<u32>(), 2, "{wdl}");
}

#[test]
fn bot_match_refuses_bad_arguments_with_exit_code_2() {
    for (args, message) in [
        (vec!["--variant", "nope", "--white", "1", "--black", "2", "--games", "2"], "unknown variant"),
        (vec!["--variant", "standard", "--white", "9", "--black", "2", "--games", "2"], "--white"),
        (vec!["--variant", "standard", "--white", "1", "--black", "x", "--games", "2"], "--black"),
        (vec!["--variant", "standard", "--white", "1", "--black", "2", "--games", "0"], "--games"),
        (vec!["--variant", "standard", "--white", "1", "--black", "2"], "--games"),
        (vec!["--variant", "standard", "--white", "1", "--black", "2", "--games", "2", "--movetime", "x"], "movetime"),
        (vec!["--variant", "gold", "--white", "1", "--black", "stockfish", "--games", "2"], "UCI engines play only"),
    ] {
        let mut all = vec!["bot-match"];
        all.extend_from_slice(&args);
        let out = chessgold_plain(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

/// A misspelt setting in the environment stops the command with the key's name, before anything
/// is done; the right spelling is taken.
#[tokio::test]
async fn a_misspelt_environment_setting_stops_the_start_with_its_name() {
    let db_url = create_database().await;
    let run = |key: &str| {
        Command::new(binary())
            .args(["migrate"])
            .current_dir(root())
            .env("CHESSGOLD_ENV", "test")
            .env("DATABASE_URL", &db_url)
            .env(key, "5")
            .output()
            .expect("chessgold runs")
    };
    let out = run("CHESSGOLD__GAME__FIRST_MOVE_SECZ");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("first_move_secz"), "{err}");
    let pool = sqlx::PgPool::connect(&db_url).await.unwrap();
    let tables: i64 =
        sqlx::query_scalar("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(tables, 0, "nothing was migrated");
    let out = run("CHESSGOLD__GAME__FIRST_MOVE_SECS");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// `chessgold state` as JSON, after checking that it succeeded.
fn state_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["state"];
    all.extend_from_slice(args);
    let out = chessgold_plain(&all);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("state prints JSON")
}

#[test]
fn state_resolves_a_chessception_attack_that_kills_the_king_whole() {
    // The rule book's example: White wins, and the queen (1 HP) falls to the e6 pawn's
    // counter-attack instead of standing on e5.
    let fen = "8/8/4p3/4k3/8/8/8/K3Q3 w - - 0 1 hp=e5:2,e1:1 shields=e6";
    let state = state_json(&["--variant", "chessception", "--fen", fen, "--moves", "e1e5"]);
    assert_eq!(state["fen"], "8/8/4p3/8/8/8/8/K7 b - - 0 1 hp=e6:1 shields=e6");
    assert_eq!((state["status"].as_str(), state["winner"].as_str()), (Some("variant_end"), Some("white")));
    assert_eq!(state["reason"], "king-killed");
}

#[test]
fn state_between_an_equip_and_the_action_shows_the_counter_reset() {
    // Loot Boxes rule 12: the equip resets the no-progress counter at once.
    let moves = "N@b1 e8e7 e1e2 e7e8 e2e1 e8e7 b1a3 e7e8 a3b5 e8e7 b5a3 e7e8 crossbow@a3";
    let state = state_json(&["--variant", "lootbox", "--seed", "0", "--moves", moves]);
    let fen = state["fen"].as_str().expect("fen");
    assert!(fen.contains(" w - - 0 7 "), "{fen}");
    // The text loaded with the seed plays on with the game's counters.
    let resumed = state_json(&["--variant", "lootbox", "--seed", "0", "--fen", fen, "--moves", "a3b5"]);
    let played = state_json(&["--variant", "lootbox", "--seed", "0", "--moves", &format!("{moves} a3b5")]);
    assert_eq!(resumed["fen"], played["fen"]);
    assert!(played["fen"].as_str().is_some_and(|f| f.contains(" b - - 1 7 ")), "{}", played["fen"]);
}

// Multi-threaded: the test waits for the command while the app answers it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_succeeds_only_when_healthz_answers_200() {
    let app = spawn_app().await;
    let url = format!("{}/healthz", app.address);
    let out = chessgold(&app.db_url, &["health", "--url", &url], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(r#""database":"ok""#),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // The default: the configured port on this machine (here the app's).
    let port = app.address.rsplit(':').next().unwrap();
    let mut child = Command::new(binary())
        .arg("health")
        .current_dir(root())
        .env("CHESSGOLD_ENV", "test")
        .env("CHESSGOLD__APPLICATION__PORT", port)
        .output()
        .unwrap();
    assert!(child.status.success(), "{}", String::from_utf8_lossy(&child.stderr));
    // Nothing listening, and a page that is not 200: exit status 1 with the reason.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let out = chessgold(&app.db_url, &["health", "--url", &format!("http://127.0.0.1:{closed}/healthz")], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("asking http://127.0.0.1:"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    child =
        Command::new(binary()).args(["health", "--url", &format!("{}/no-such-page", app.address)]).output().unwrap();
    assert_eq!(child.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&child.stderr).contains("answered 404"),
        "{}",
        String::from_utf8_lossy(&child.stderr)
    );
}
