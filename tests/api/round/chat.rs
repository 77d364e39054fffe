//! Chat: rooms, limits, flood, storage, escaping on the page.

use serde_json::json;

use super::{Browser, two_guests};
use crate::helpers::spawn_app;

#[tokio::test]
async fn chat_lines_are_limited_stored_and_escaped() {
    let app = spawn_app().await;
    let (id, w, _b, mut ws, mut bs) = two_guests(&app.address, "standard", "5+0").await;
    let watcher = Browser::new(&app.address);
    let mut sp = watcher.socket(&id, None).await;
    sp.until("crowd").await;

    let ack = ws.ack_id();
    ws.send(json!({"t": "chat", "d": {"room": "player", "text": "  <script>alert(1)</script> gl  ", "ack": ack}}))
        .await;
    assert_eq!(ws.answer(ack).await["t"], "ack");
    let line = bs.until("chat").await;
    assert_eq!(line["d"]["room"], "player");
    assert_eq!(line["d"]["line"]["text"], "<script>alert(1)</script> gl", "raw text, trimmed");
    assert_eq!(line["d"]["line"]["color"], "white");

    // Players do not write in the spectators' room, spectators not in the players'.
    let ack = ws.ack_id();
    ws.send(json!({"t": "chat", "d": {"room": "spectator", "text": "hi", "ack": ack}})).await;
    assert_eq!(ws.answer(ack).await["d"]["code"], "wrong_chat_room");
    let ack = sp.ack_id();
    sp.send(json!({"t": "chat", "d": {"room": "spectator", "text": "nice game", "ack": ack}})).await;
    assert_eq!(sp.answer(ack).await["t"], "ack");
    assert_eq!(sp.until("chat").await["d"]["line"]["text"], "nice game");

    // Length and emptiness.
    let ack = ws.ack_id();
    ws.send(json!({"t": "chat", "d": {"room": "player", "text": "é".repeat(141), "ack": ack}})).await;
    assert_eq!(ws.answer(ack).await["d"]["code"], "chat_too_long");
    let ack = ws.ack_id();
    ws.send(json!({"t": "chat", "d": {"room": "player", "text": "   ", "ack": ack}})).await;
    assert_eq!(ws.answer(ack).await["d"]["code"], "chat_empty");
    let ack = ws.ack_id();
    ws.send(json!({"t": "chat", "d": {"room": "player", "text": "é".repeat(140), "ack": ack}})).await;
    assert_eq!(ws.answer(ack).await["t"], "ack");

    // Flood: five lines per window per connection (attempts count, refused ones too).
    let mut fresh = w.socket(&id, None).await;
    fresh.until("crowd").await;
    let mut codes = Vec::new();
    for i in 0..6 {
        let ack = fresh.ack_id();
        fresh.send(json!({"t": "chat", "d": {"room": "player", "text": format!("line {i}"), "ack": ack}})).await;
        codes.push(fresh.answer(ack).await.get("d").and_then(|d| d.get("code")).cloned());
    }
    assert_eq!(codes[..5].iter().filter(|c| c.is_none()).count(), 5, "{codes:?}");
    assert_eq!(codes[5], Some(json!("chat_flood")));
    let ack = ws.ack_id();
    ws.send(json!({"t": "chat", "d": {"room": "player", "text": "one too many", "ack": ack}})).await;
    assert_eq!(ws.answer(ack).await["d"]["code"], "chat_flood", "five attempts on the first socket already");

    // Stored with the game; the spectators never got the players' lines.
    let stored = chessgold::db::games::recent_chat(&app.db_pool, &id, "player", 50).await.unwrap();
    assert_eq!(stored.len(), 7);
    assert!(!sp.seen.iter().any(|m| m["t"] == "chat" && m["d"]["room"] == "player"));
    // Escaped on the page.
    let page = w.html(&format!("/{id}")).await;
    let at = page.find("chat-lines").unwrap();
    assert!(page.contains("&#60;script&#62;alert(1)&#60;/script&#62; gl"), "escaped: {}", &page[at..at + 300]);
    assert!(!page.contains("<script>alert(1)"));
    // The history comes with a new connection.
    let mut again = w.socket(&id, None).await;
    let history = again.until("chat_history").await;
    assert_eq!(history["d"]["room"], "player");
    assert_eq!(history["d"]["lines"].as_array().unwrap().len(), 7);
}
