//! PostgreSQL stopped in the middle of a game played on two instances: the players are told the
//! server is unavailable and when play resumes, nothing acknowledged is lost, and the outage is
//! charged to nobody's clock.

use std::time::{Duration, Instant};

use sqlx::PgPool;

use crate::client::{Browser, instance, stored_actions};
use crate::services::{Postgres, Redis};

/// How long the drill keeps the database down: well over the downtime threshold (2 s).
const OUTAGE: Duration = Duration::from_secs(5);

fn cs(d: Duration) -> i64 {
    (d.as_millis() / 10) as i64
}

#[tokio::test]
async fn a_database_outage_is_charged_to_nobody() {
    let redis = Redis::start();
    let pg = Postgres::start();
    let quick = |s: &mut chessgold::settings::Settings| {
        s.game.heartbeat_interval_ms = 200;
        s.database.acquire_timeout_secs = 1;
    };
    let one = instance(&pg, &redis, quick).await;
    let two = instance(&pg, &redis, quick).await;
    let w = Browser::new(&one);
    let id = w.create("3+0").await;
    let b = Browser::new(&two);
    b.join(&id).await;
    let mut ws = w.socket(&id, None).await;
    let mut bs = b.socket(&id, None).await;
    ws.until("full").await;
    bs.until("full").await;
    // The two opening moves. Each instance must first know the state the move needs (black's
    // join reached instance one through Redis; white's move reached instance two), and a
    // heartbeat that could not get a connection within its second on a loaded machine marks the
    // database down until the next one: a refused move changes nothing and is sent again.
    for (ply, action) in ["e2e4", "e7e5"].into_iter().enumerate() {
        let (sock, other) = if ply == 0 { (&mut ws, &mut bs) } else { (&mut bs, &mut ws) };
        let deadline = Instant::now() + crate::client::WAIT;
        loop {
            let answer = sock.act(action, ply).await;
            if answer["t"] == "ack" {
                break;
            }
            assert!(Instant::now() < deadline, "{action} never accepted: {answer}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if ply == 0 {
            // Black moves once instance two has White's move (White's socket reads Black's
            // below, with the clocks).
            other.move_event(1).await;
        }
    }
    // A flap before the drill is old news: the notices below must be the outage's.
    ws.forget(|m| m["t"] == "service");
    bs.forget(|m| m["t"] == "service");
    // White's clock runs from here (the commit of e7e5 came before its ack).
    let turn_from = Instant::now();
    let before = ws.move_event(2).await["d"]["clocks"]["white"].as_i64().unwrap();

    let down_at = Instant::now();
    pg.down();
    // Both instances notice and tell their sockets.
    for s in [&mut ws, &mut bs] {
        let told = s.until_match(|m| m["t"] == "service").await;
        assert_eq!(told["d"]["available"], false, "{told}");
        assert!(told["d"]["since"].is_string(), "{told}");
    }
    // White tries to move: refused, nothing acknowledged.
    let refused = ws.act("g1f3", 2).await;
    assert_eq!((refused["t"].as_str(), refused["d"]["code"].as_str()), (Some("error"), Some("unavailable")));
    let elapsed = down_at.elapsed();
    if elapsed < OUTAGE {
        // The outage the drill simulates lasts this long (the time is the scenario, not a wait).
        tokio::time::sleep(OUTAGE - elapsed).await;
    }
    pg.up();
    let outage = down_at.elapsed();
    // Both are told play resumes, with the clocks; nobody was flagged.
    for s in [&mut ws, &mut bs] {
        let told = s.until_match(|m| m["t"] == "service" && m["d"]["available"] == true).await;
        assert_eq!(told["d"]["clocks"]["running"], "white", "{told}");
    }
    assert_eq!(ws.act("g1f3", 2).await["t"], "ack");
    let turn = turn_from.elapsed();
    let after = ws.move_event(3).await["d"]["clocks"]["white"].as_i64().unwrap();
    let charged = before - after;
    // The turn minus the outage is charged (a little slack for the heartbeat's period).
    assert!(
        charged <= cs(turn) - cs(outage) + 50,
        "white was charged {charged} cs for a turn of {} cs with an outage of {} cs",
        cs(turn),
        cs(outage)
    );
    bs.move_event(3).await;
    assert_eq!(bs.act("b8c6", 3).await["t"], "ack");
    let pool = PgPool::connect(&pg.url()).await.unwrap();
    assert_eq!(stored_actions(&pool, &id).await, ["e2e4", "e7e5", "g1f3", "b8c6"], "no acknowledged move lost");
    let game = chessgold::db::games::find(&pool, &id).await.unwrap().unwrap();
    assert_eq!(game.status, 20, "the game goes on");
}
