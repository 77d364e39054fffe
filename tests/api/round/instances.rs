//! Two instances sharing PostgreSQL and Redis serve one game with a player on each, and racing
//! actions result in exactly one applied.

use secrecy::SecretString;
use serde_json::json;

use super::{Browser, play_line, stored_result};
use crate::helpers::{TestApp, redis_url, spawn_app_with, spawn_app_with_redis};

/// A second instance on the same database and Redis prefix as `first`.
pub async fn second_instance(first: &TestApp) -> TestApp {
    let db = first.db_url.clone();
    let prefix = first.settings.redis.key_prefix.clone();
    spawn_app_with(move |s| {
        s.database.url = SecretString::from(db);
        s.redis.url = SecretString::from(redis_url());
        s.redis.key_prefix = prefix;
    })
    .await
}

#[tokio::test]
async fn two_instances_serve_one_game() {
    let one = spawn_app_with_redis().await;
    let two = second_instance(&one).await;
    let w = Browser::new(&one.address);
    let b = Browser::new(&two.address);
    let id = w.create("standard", "5+0", "casual", "white").await;
    b.join(&id).await;
    let mut ws = w.socket(&id, None).await;
    let mut bs = b.socket(&id, None).await;
    assert_eq!(ws.until("full").await["d"]["you"], "white");
    assert_eq!(bs.until("full").await["d"]["you"], "black");
    // A spectator on each instance.
    let mut s1 = Browser::new(&one.address).socket(&id, None).await;
    let mut s2 = Browser::new(&two.address).socket(&id, None).await;
    s1.until("full").await;
    s2.until("full").await;
    play_line(&mut ws, &mut bs, 0, &["f2f3", "e7e5", "g2g4", "d8h4"]).await;
    for s in [&mut ws, &mut bs, &mut s1, &mut s2] {
        let end = s.until("end").await;
        assert_eq!((end["d"]["status"]["id"].as_i64(), end["d"]["winner"].as_str()), (Some(30), Some("black")));
    }
    // Every socket saw the same versions in order.
    let versions = |s: &super::Sock| {
        s.seen.iter().filter(|m| m["t"] == "move").filter_map(|m| m["v"].as_i64()).collect::<Vec<_>>()
    };
    assert_eq!(versions(&s1), versions(&s2));
    assert_eq!(versions(&ws), versions(&bs));
    // After the first, each move reached every socket, on both instances, as a patch of the
    // state before it; applied, it gives the state a newcomer gets whole.
    let fresh = Browser::new(&two.address).socket(&id, None).await.until("full").await["d"]["state"].clone();
    for s in [&ws, &bs, &s1, &s2] {
        let moves: Vec<_> = s.seen.iter().filter(|m| m["t"] == "move").collect();
        assert_eq!(moves.len(), 4);
        assert!(moves[1..].iter().all(|m| m["d"]["patch"].is_array()), "{moves:?}");
        assert_eq!(moves[3]["d"]["state"], fresh);
    }
    // Chat crosses instances too.
    let ack = bs.ack_id();
    bs.send(json!({"t": "chat", "d": {"room": "player", "text": "gg from two", "ack": ack}})).await;
    assert_eq!(ws.until("chat").await["d"]["line"]["text"], "gg from two");
    assert_eq!(stored_result(&one.db_pool, &id).await.0, 30);
}

#[tokio::test]
async fn racing_actions_from_two_tabs_on_two_instances_apply_once() {
    let one = spawn_app_with_redis().await;
    let two = second_instance(&one).await;
    let w = Browser::new(&one.address);
    let b = Browser::new(&one.address);
    let id = w.create("standard", "unlimited", "casual", "white").await;
    b.join(&id).await;
    // White has a tab on each instance.
    let w2 = w.on(&two.address);
    let mut tab1 = w.socket(&id, None).await;
    let mut tab2 = w2.socket(&id, None).await;
    let mut bs = b.socket(&id, None).await;
    assert_eq!(tab1.until("full").await["d"]["you"], "white");
    assert_eq!(tab2.until("full").await["d"]["you"], "white");
    bs.until("full").await;
    for round in 0..3 {
        let ply = round * 2;
        // Every pair is legal whichever action of the earlier rounds won.
        let (a1, a2) = [("e2e4", "d2d4"), ("g1f3", "b1c3"), ("h2h3", "a2a3")][round];
        tab1.send(json!({"t": "action", "d": {"action": a1, "ply": ply, "ack": 100 + round}})).await;
        tab2.send(json!({"t": "action", "d": {"action": a2, "ply": ply, "ack": 200 + round}})).await;
        let r1 = tab1.answer(100 + round as u64).await;
        let r2 = tab2.answer(200 + round as u64).await;
        let acks = [&r1, &r2].iter().filter(|r| r["t"] == "ack").count();
        assert_eq!(acks, 1, "exactly one applied: {r1} {r2}");
        let loser = if r1["t"] == "ack" { &r2 } else { &r1 };
        assert!(["stale", "not_your_turn"].contains(&loser["d"]["code"].as_str().unwrap()), "{loser}");
        let applied = if r1["t"] == "ack" { a1 } else { a2 };
        let mv = bs.move_event(ply as u64 + 1).await;
        assert_eq!(mv["d"]["action"], applied);
        let rows = chessgold::db::games::actions(&one.db_pool, &id).await.unwrap();
        assert_eq!(rows.len(), ply + 1);
        assert_eq!(rows[ply].action, applied);
        // Both tabs learn the applied move.
        tab1.move_event(ply as u64 + 1).await;
        tab2.move_event(ply as u64 + 1).await;
        let reply = ["e7e5", "b8c6", "g8f6"][round];
        assert_eq!(bs.act(reply, ply + 1).await["t"], "ack");
        tab1.move_event(ply as u64 + 2).await;
        tab2.move_event(ply as u64 + 2).await;
    }
}

/// Shared by two instances, who is connected goes through Redis: each instance's round records
/// its own seat there every tick and reads the other's, while the database is written only when
/// a seat comes or goes (and every 30 s), not on every tick as before.
#[tokio::test]
async fn presence_across_instances_goes_through_redis_not_the_database() {
    use redis::AsyncCommands;
    let one = spawn_app_with_redis().await;
    let two = second_instance(&one).await;
    let w = Browser::new(&one.address);
    let b = Browser::new(&two.address);
    let id = w.create("standard", "5+0", "casual", "white").await;
    b.join(&id).await;
    let mut ws = w.socket(&id, None).await;
    let mut bs = b.socket(&id, None).await;
    // Each instance sees the seat connected to the other one.
    ws.until_match(|m| m["t"] == "crowd" && m["d"]["white"] == true && m["d"]["black"] == true).await;
    bs.until_match(|m| m["t"] == "crowd" && m["d"]["white"] == true && m["d"]["black"] == true).await;
    let key = format!("{}presence:{id}", one.settings.redis.key_prefix);
    let client = redis::Client::open(crate::helpers::redis_url()).unwrap();
    let conn = client.get_multiplexed_async_connection().await.unwrap();
    let seen = || {
        let (mut conn, key) = (conn.clone(), key.clone());
        async move {
            let at: (Option<i64>, Option<i64>) = conn.hget(&key, &["white", "black"]).await.unwrap();
            at
        }
    };
    let stored = || async {
        sqlx::query_scalar::<_, Option<time::OffsetDateTime>>(
            "SELECT last_seen FROM game_players WHERE game_id = $1 ORDER BY color",
        )
        .bind(&id)
        .fetch_all(&one.db_pool)
        .await
        .unwrap()
    };
    let (Some(_), Some(_)) = seen().await else { panic!("both seats are recorded in Redis") };
    let before = stored().await;
    assert!(before.iter().all(Option::is_some), "written through once: {before:?}");
    // Two more records of both seats in Redis (two ticks of each instance's round)...
    let mut last = seen().await;
    for _ in 0..2 {
        let deadline = tokio::time::Instant::now() + super::WAIT;
        loop {
            let now = seen().await;
            if now.0 > last.0 && now.1 > last.1 {
                last = now;
                break;
            }
            assert!(tokio::time::Instant::now() < deadline, "the seats are recorded again: {now:?}");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }
    // ...and none in the database.
    assert_eq!(stored().await, before);
    ws.close().await;
    bs.close().await;
}
