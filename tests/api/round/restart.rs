//! A killed server loses nothing: the real binary is killed with SIGKILL in the middle of a game
//! and started again; both players continue from the last acknowledged action, and the time the
//! server was down is charged to nobody.
#![expect(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use super::{Browser, play_line};
use crate::helpers::{binary, create_database, root};

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A running `chessgold serve`, killed (SIGKILL) and reaped when dropped, a failing test included.
struct Server(Child);

impl Server {
    fn sigkill(&mut self) {
        self.0.kill().expect("SIGKILL");
        self.0.wait().expect("reaped");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn start(db_url: &str, port: u16) -> Server {
    let server = Server(
        Command::new(binary())
            .arg("serve")
            .current_dir(root())
            .env("CHESSGOLD_ENV", "test")
            .env("DATABASE_URL", db_url)
            .env("CHESSGOLD__APPLICATION__PORT", port.to_string())
            .env("CHESSGOLD__REDIS__URL", "")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chessgold serve starts"),
    );
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(r) = client.get(format!("http://127.0.0.1:{port}/healthz")).send().await
            && r.status().is_success()
        {
            return server;
        }
        assert!(Instant::now() < deadline, "the server answers within 60 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn sigkill_loses_no_acknowledged_action_and_downtime_is_free() {
    let db = create_database().await;
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut server = start(&db, port).await;
    let w = Browser::new(&base);
    let b = Browser::new(&base);
    let id = w.create("standard", "10+0", "casual", "white").await;
    b.join(&id).await;
    let mut ws = w.socket(&id, None).await;
    let mut bs = b.socket(&id, None).await;
    ws.until("full").await;
    bs.until("full").await;
    play_line(&mut ws, &mut bs, 0, &["e2e4", "e7e5"]).await;
    let sent = Instant::now();
    play_line(&mut ws, &mut bs, 2, &["g1f3"]).await;
    // Black's clock runs from g1f3's commit, which came after `sent`.
    let v_white = ws.seen.iter().filter_map(|m| m["v"].as_i64()).max().unwrap();
    let v_black = bs.seen.iter().filter_map(|m| m["v"].as_i64()).max().unwrap();

    server.sigkill();
    let down = Instant::now();
    drop((ws, bs));
    tokio::time::sleep(Duration::from_secs(4)).await;
    // The server gives back the time from its last heartbeat (before the kill) to its start-up,
    // so at least this much; what its start-up takes after that is charged, however long.
    let downtime_cs = down.elapsed().as_millis() as i64 / 10;
    let mut server = start(&db, port).await;

    // Both reconnect with the versions they hold: nothing was missed, no resync; they get the
    // clocks as of now (the downtime was given back meanwhile).
    let mut ws = w.socket(&id, Some(v_white)).await;
    let mut bs = b.socket(&id, Some(v_black)).await;
    assert_eq!(ws.next().await["t"], "clocks", "no missed event, no resync: the clocks");
    assert_eq!(ws.next().await["t"], "chat_history", "no missed event, no resync");
    let clocks = bs.next().await;
    assert_eq!(clocks["t"], "clocks");
    assert_eq!(clocks["d"]["running"], "black");
    assert_eq!(bs.next().await["t"], "chat_history");
    let full = Browser::new(&base).socket(&id, None).await.until("full").await;
    assert_eq!(full["d"]["state"]["actions"], json!(["e2e4", "e7e5", "g1f3"]));
    let black_left = full["d"]["clocks"]["black"].as_i64().unwrap();
    let charged = 60_000 - black_left;
    let wall = sent.elapsed().as_millis() as i64 / 10;
    // Black was charged at most the wall time since g1f3 minus the time the server was down
    // (until the new process started), never the downtime.
    assert!(charged <= wall - downtime_cs + 300, "charged {charged} cs of {wall} cs, {downtime_cs} cs down");
    assert!(charged < wall - 300, "the downtime of at least 4 s was not charged: {charged} of {wall}");

    // The game goes on; a resend of an action whose ack was lost is acknowledged, not replayed.
    play_line(&mut ws, &mut bs, 3, &["b8c6"]).await;
    let ack = ws.ack_id();
    ws.send(json!({"t": "action", "d": {"action": "f1c4", "ply": 4, "ack": ack}})).await;
    assert_eq!(ws.answer(ack).await["t"], "ack");
    server.sigkill();
    let server = start(&db, port).await;
    let mut ws = w.socket(&id, None).await;
    ws.until("full").await;
    ws.send(json!({"t": "action", "d": {"action": "f1c4", "ply": 4, "ack": ack}})).await;
    assert_eq!(ws.answer(ack).await["t"], "ack");
    let rows = chessgold::db::games::actions(&sqlx::PgPool::connect(&db).await.unwrap(), &id).await.unwrap();
    let played: Vec<&str> = rows.iter().map(|r| r.action.as_str()).collect();
    assert_eq!(played, ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4"]);
    drop(server);
}

/// A bot game survives a SIGKILL: the player's acknowledged move is kept, and after the restart
/// the bot (level 8, searching for about 200 ms, so usually killed mid-search) answers it by
/// itself, with nobody connected (the server resumes the rounds of live bot games).
#[tokio::test]
async fn a_bot_game_goes_on_after_a_sigkill() {
    let db = create_database().await;
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut server = start(&db, port).await;
    let guest = Browser::new(&base);
    let r = guest
        .post_form(
            "/game/computer",
            "/game/computer",
            &[("variant", "standard"), ("level", "8"), ("time", "unlimited"), ("color", "white")],
        )
        .await;
    assert_eq!(r.status().as_u16(), 303);
    let id = r.headers().get("location").unwrap().to_str().unwrap().trim_start_matches('/').to_string();
    let mut sock = guest.socket(&id, None).await;
    sock.until("full").await;
    assert_eq!(sock.act("e2e4", 0).await["t"], "ack");
    server.sigkill();
    drop(sock);
    let server = start(&db, port).await;
    let pool = sqlx::PgPool::connect(&db).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    while chessgold::db::games::actions(&pool, &id).await.unwrap().len() < 2 {
        assert!(Instant::now() < deadline, "the bot answers after the restart without anyone connected");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut sock = guest.socket(&id, None).await;
    let full = sock.until("full").await;
    assert_eq!(full["d"]["state"]["actions"][0], "e2e4");
    assert_eq!(full["d"]["state"]["actions"].as_array().unwrap().len(), 2, "{full}");
    drop(server);
}
