//! Strict socket input, spectators, reconnection with missed events, resent actions.

use serde_json::json;

use super::{Browser, play_line, two_guests};
use crate::helpers::spawn_app;

#[tokio::test]
async fn malformed_and_out_of_turn_messages_change_nothing() {
    let app = spawn_app().await;
    let (id, _w, _b, mut ws, mut bs) = two_guests(&app.address, "standard", "5+0").await;
    let before = chessgold::db::games::find(&app.db_pool, &id).await.unwrap().unwrap().version;
    for (text, code) in [
        ("not json", "malformed"),
        ("[1]", "malformed"),
        (r#"{"t":"action","d":{"action":"e2e4"}}"#, "malformed"),
        (r#"{"t":"action","d":{"action":"e2e4","ply":0,"x":1}}"#, "malformed"),
        (r#"{"t":"teleport","d":{}}"#, "unknown_type"),
    ] {
        ws.send_text(text).await;
        let e = ws.until("error").await;
        assert_eq!(e["d"]["code"], code, "{text}");
    }
    ws.send_text(&format!(r#"{{"t":"chat","d":{{"room":"player","text":"{}"}}}}"#, "x".repeat(5000))).await;
    assert_eq!(ws.until("error").await["d"]["code"], "too_large");
    assert_eq!(bs.act("e7e5", 0).await["d"]["code"], "not_your_turn");
    assert_eq!(ws.act("e2e5", 0).await["d"]["code"], "illegal_action");
    assert_eq!(ws.act("e2", 0).await["d"]["code"], "malformed_action");
    assert_eq!(ws.act("e2e4", 3).await["d"]["code"], "stale");
    assert_eq!(ws.command("draw_no").await["d"]["code"], "no_offer");
    let after = chessgold::db::games::find(&app.db_pool, &id).await.unwrap().unwrap();
    assert_eq!((after.version, after.plies), (before, 0));
    // The socket still works.
    play_line(&mut ws, &mut bs, 0, &["e2e4"]).await;
}

#[tokio::test]
async fn spectators_watch_but_cannot_play() {
    let app = spawn_app().await;
    let (id, _w, _b, mut ws, mut bs) = two_guests(&app.address, "standard", "5+0").await;
    let watcher = Browser::new(&app.address);
    let mut sp = watcher.socket(&id, None).await;
    let full = sp.until("full").await;
    assert_eq!(full["d"]["you"], serde_json::Value::Null);
    assert_eq!(full["d"]["players"]["black"]["name"], "Anonymous");
    assert!(full["d"]["state"]["legal"].as_array().unwrap().contains(&json!("e2e4")));
    assert_eq!(sp.act("e2e4", 0).await["d"]["code"], "not_a_player");
    assert_eq!(sp.command("resign").await["d"]["code"], "not_a_player");
    play_line(&mut ws, &mut bs, 0, &["e2e4"]).await;
    let mv = sp.move_event(1).await;
    assert_eq!(mv["d"]["state"]["side"], "black");
    assert!(mv["d"]["clocks"]["white"].is_number());
}

/// A move is sent as a JSON Patch of the state before it, much smaller than the state, and the
/// state it gives is the one a newcomer gets whole.
#[tokio::test]
async fn moves_are_sent_as_patches_of_the_state_before() {
    let app = spawn_app().await;
    let (id, _w, _b, mut ws, mut bs) = two_guests(&app.address, "standard", "5+0").await;
    let mut sp = Browser::new(&app.address).socket(&id, None).await;
    sp.until("full").await;
    play_line(&mut ws, &mut bs, 0, &["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]).await;
    sp.move_event(5).await;
    let fresh = Browser::new(&app.address).socket(&id, None).await.until("full").await["d"]["state"].clone();
    assert_eq!(fresh["actions"], json!(["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]));
    for s in [&ws, &bs, &sp] {
        let moves: Vec<_> = s.seen.iter().filter(|m| m["t"] == "move").collect();
        assert_eq!(moves.len(), 5);
        for m in &moves[1..] {
            let patch = m["d"]["patch"].as_array().unwrap_or_else(|| panic!("a patch: {m}"));
            // The new action is appended, the piece leaves one square and lands on another.
            let ply = m["d"]["seq"].as_u64().unwrap() - 1;
            assert!(
                patch.contains(&json!({"op": "add", "path": format!("/actions/{ply}"), "value": m["d"]["action"]}))
            );
            let pieces = patch.iter().filter(|op| op["path"].as_str().unwrap().starts_with("/pieces/")).count();
            assert_eq!(pieces, 2, "{m}");
            assert!(m["d"]["patch"].to_string().len() * 2 < fresh.to_string().len(), "{m}");
        }
        assert_eq!(moves[4]["d"]["state"], fresh);
    }
}

#[tokio::test]
async fn a_reconnecting_client_gets_missed_events_and_resends_safely() {
    let app = spawn_app().await;
    let (id, w, _b, mut ws, mut bs) = two_guests(&app.address, "standard", "5+0").await;
    play_line(&mut ws, &mut bs, 0, &["e2e4"]).await;
    let v_seen = ws.seen.iter().filter_map(|m| m["v"].as_i64()).max().unwrap();
    drop(ws);
    // Black answers while White is away.
    assert_eq!(bs.act("e7e5", 1).await["t"], "ack");
    let mut ws = w.socket(&id, Some(v_seen)).await;
    let first = ws.next().await;
    assert_eq!(first["t"], "move", "{first}");
    assert_eq!(first["v"].as_i64(), Some(v_seen + 1));
    assert_eq!(first["d"]["action"], "e7e5");
    assert_eq!(first["d"]["state"]["side"], "white");
    assert_eq!(ws.next().await["t"], "clocks");
    assert_eq!(ws.next().await["t"], "chat_history");
    assert_eq!(ws.next().await["t"], "crowd");
    // An action sent twice with the same ack and ply (a resend after a lost connection) is
    // acknowledged twice and played once.
    let ack = ws.ack_id();
    ws.send(json!({"t": "action", "d": {"action": "g1f3", "ply": 2, "ack": ack}})).await;
    assert_eq!(ws.answer(ack).await["t"], "ack");
    ws.send(json!({"t": "action", "d": {"action": "g1f3", "ply": 2, "ack": ack}})).await;
    assert_eq!(ws.answer(ack).await["t"], "ack");
    let g = chessgold::db::games::find(&app.db_pool, &id).await.unwrap().unwrap();
    assert_eq!(g.plies, 3);
    // A bogus version gets a full resync.
    let mut again = w.socket(&id, Some(9999)).await;
    let full = again.next().await;
    assert_eq!(full["t"], "full");
    assert_eq!(full["v"].as_i64(), Some(i64::from(g.version)));
    assert_eq!(full["d"]["state"]["actions"], json!(["e2e4", "e7e5", "g1f3"]));
}

#[tokio::test]
async fn an_oversized_frame_closes_the_socket() {
    let app = spawn_app().await;
    let (id, _w, _b, _ws, _bs) = two_guests(&app.address, "standard", "5+0").await;
    let mut sp = Browser::new(&app.address).socket(&id, None).await;
    sp.until("crowd").await;
    sp.send_text(&"x".repeat(70_000)).await;
    assert!(sp.closed().await, "a frame over the cap closes the socket");
    assert!(sp.seen.iter().any(|m| m["t"] == "error" && m["d"]["code"] == "too_large"));
}

#[tokio::test]
async fn a_flood_of_messages_is_rate_limited_per_connection() {
    let app = crate::helpers::spawn_app_with(|s| {
        s.game.messages_per_second = 1;
        s.game.messages_burst = 5;
    })
    .await;
    let (id, _w, _b, mut ws, mut bs) = two_guests(&app.address, "standard", "5+0").await;
    for _ in 0..12 {
        ws.send(json!({"t": "ping"})).await;
    }
    let limited = ws.until("error").await;
    assert_eq!(limited["d"]["code"], "rate_limited");
    let pongs = ws.seen.iter().filter(|m| m["t"] == "pong").count();
    assert!((5..12).contains(&pongs), "the burst is answered, the rest refused: {pongs} pongs");
    // An action inside the flood is refused and changes nothing; the other connection is not
    // limited, and once the bucket refills the first one plays again.
    let ans = ws.act("e2e4", 0).await;
    assert_eq!(ans["d"]["code"], "rate_limited", "{ans}");
    assert_eq!(chessgold::db::games::find(&app.db_pool, &id).await.unwrap().unwrap().plies, 0);
    bs.send(json!({"t": "ping"})).await;
    bs.until("pong").await;
    tokio::time::sleep(std::time::Duration::from_millis(2200)).await;
    play_line(&mut ws, &mut bs, 0, &["e2e4"]).await;
}
