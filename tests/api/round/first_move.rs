//! The first-move rule protects a human opponent from waiting for someone who never plays: a game
//! against the computer is never aborted for a missing first move (as lichess never aborts games
//! against its AI), clocked or unlimited, whoever moves first.
#![expect(clippy::unwrap_used, reason = "tests")]

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Browser, stored_result};
use crate::helpers::spawn_app_with;

/// Starts a game against the computer with the form; returns its id.
async fn bot_game(b: &Browser, time: &str, color: &str) -> String {
    let fields = [("variant", "standard"), ("level", "1"), ("time", time), ("color", color)];
    let r = b.post_form("/game/computer", "/game/computer", &fields).await;
    assert_eq!(r.status().as_u16(), 303, "{}", r.text().await.unwrap());
    r.headers()["location"].to_str().unwrap().trim_start_matches('/').to_string()
}

#[tokio::test]
async fn a_game_against_the_computer_waits_for_a_first_move_however_long_it_takes() {
    let app = spawn_app_with(|s| {
        s.game.first_move_secs = 1;
        s.game.sweeper_interval_ms = 200;
    })
    .await;
    let human = Browser::new(&app.address);
    // A clocked game where the human moves first, an unlimited one where the bot does.
    let clocked = bot_game(&human, "5+3", "white").await;
    let unlimited = bot_game(&human, "unlimited", "black").await;
    let mut clocked_sock = human.socket(&clocked, None).await;
    let full = clocked_sock.until("full").await;
    assert_eq!(full["d"]["clocks"]["first_move"], json!({"color": "white", "cs": null}), "no first move is due");
    let mut unlimited_sock = human.socket(&unlimited, None).await;
    unlimited_sock.until("full").await;
    let bots_move = unlimited_sock.move_event(1).await;
    assert_eq!(bots_move["d"]["by"], "white");
    assert_eq!(bots_move["d"]["clocks"]["first_move"], json!({"color": "black", "cs": null}));

    // A game between two people created after both: the sweeper aborts it once its first move is
    // overdue. By then both games against the computer are as overdue as it is, and the sweeper
    // has looked at them too (it lists every overdue game in one pass, oldest first).
    let (w, b) = (Browser::new(&app.address), Browser::new(&app.address));
    let people = w.create("standard", "5+3", "casual", "white").await;
    b.join(&people).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while stored_result(&app.db_pool, &people).await.0 == 20 {
        assert!(Instant::now() < deadline, "the sweeper aborts the game between people");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(stored_result(&app.db_pool, &people).await, (37, None, Some("no-start".into())));
    for id in [&clocked, &unlimited] {
        assert_eq!(stored_result(&app.db_pool, id).await, (20, None, None), "the game against the computer goes on");
    }

    // The humans' first moves, long after the allowance, are played (each round judges its
    // deadline before an action), and the bot answers.
    assert_eq!(clocked_sock.act("e2e4", 0).await["t"], "ack");
    let reply = clocked_sock.move_event(2).await;
    assert_eq!(reply["d"]["by"], "black");
    assert_eq!(reply["d"]["clocks"]["first_move"], Value::Null, "both have moved: the clocks run");
    assert_eq!(reply["d"]["clocks"]["running"], "white");
    let state = &bots_move["d"]["state"];
    let answer = state["legal"][0].as_str().unwrap();
    assert_eq!(unlimited_sock.act(answer, 1).await["t"], "ack");
    unlimited_sock.move_event(3).await;
    assert_eq!(stored_result(&app.db_pool, &unlimited).await.0, 20);
}
