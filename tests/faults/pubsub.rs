//! Redis pub/sub connections killed (`CLIENT KILL TYPE pubsub`) in the middle of a game played
//! on two instances: every subscriber subscribes again and the rounds catch up from PostgreSQL.

use serde_json::json;
use sqlx::PgPool;

use crate::client::{Browser, instance, stored_actions};
use crate::services::{Postgres, Redis};

#[tokio::test]
async fn killed_pubsub_connections_freeze_no_game() {
    let redis = Redis::start();
    let pg = Postgres::start();
    let one = instance(&pg, &redis, |_| {}).await;
    let two = instance(&pg, &redis, |_| {}).await;
    let pool = PgPool::connect(&pg.url()).await.unwrap();
    let w = Browser::new(&one);
    let id = w.create("5+0").await;
    let b = Browser::new(&two);
    b.join(&id).await;
    let mut ws = w.socket(&id, None).await;
    let mut bs = b.socket(&id, None).await;
    assert_eq!(ws.until("full").await["d"]["you"], "white");
    assert_eq!(bs.until("full").await["d"]["you"], "black");
    let line = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"];
    // Per instance: the game's round, the lobby and account news.
    let subscribers = 6;
    redis.until_pubsub_clients(subscribers).await;
    let mut acked = Vec::new();
    for (ply, action) in line.iter().enumerate() {
        // Before every move but the first, every pub/sub connection of both instances is cut
        // (once they have all come back from the cut before).
        if ply > 0 {
            if ply > 1 {
                redis.until_pubsub_clients(subscribers).await;
            }
            let killed = redis.cli(&["CLIENT", "KILL", "TYPE", "pubsub"]);
            assert_eq!(killed.trim(), subscribers.to_string(), "every subscription cut");
        }
        let (mover, other) = if ply % 2 == 0 { (&mut ws, &mut bs) } else { (&mut bs, &mut ws) };
        let answer = mover.act(action, ply).await;
        assert_eq!(answer["t"], "ack", "{action}: {answer}");
        acked.push(action.to_string());
        // The opponent on the other instance hears of it (the notice may have been lost: the
        // round catches up once subscribed again).
        let seen = other.move_event(ply as u64 + 1).await;
        assert_eq!(seen["d"]["action"], *action);
    }
    assert_eq!(stored_actions(&pool, &id).await, acked, "no acknowledged move lost");
    // A chat line said while the subscriptions are cut reaches the other instance: live, or in
    // the chat history its round sends once subscribed again.
    redis.cli(&["CLIENT", "KILL", "TYPE", "pubsub"]);
    bs.send(json!({"t": "chat", "d": {"room": "player", "text": "still here", "ack": 99}})).await;
    ws.until_match(|m| {
        (m["t"] == "chat" && m["d"]["line"]["text"] == "still here")
            || (m["t"] == "chat_history"
                && m["d"]["lines"].as_array().is_some_and(|l| l.iter().any(|x| x["text"] == "still here")))
    })
    .await;
    // A socket opened later on either instance gets the current position.
    for base in [&one, &two] {
        let mut late = Browser::new(base).socket(&id, None).await;
        let full = late.until("full").await;
        assert_eq!(full["d"]["state"]["actions"], json!(line), "{base}");
    }
}

/// Redis killed and started again empty: a challenge sent meanwhile (its news could not be
/// published) reaches the challenged player's event stream on the other instance once its
/// subscription is back, and the stream goes on: a challenge after that arrives live. The
/// sessions, in PostgreSQL, outlive Redis: both stay signed in.
#[tokio::test]
async fn account_news_missed_while_redis_was_down_is_caught_up() {
    let mut redis = Redis::start();
    let pg = Postgres::start();
    let one = instance(&pg, &redis, |_| {}).await;
    let two = instance(&pg, &redis, |_| {}).await;
    let alice = Browser::new(&one);
    alice.signup("alice").await;
    let bob = Browser::new(&two);
    bob.signup("bob").await;
    let mut events = alice.event_stream().await;
    redis.until_pubsub_clients(4).await;

    redis.kill();
    let r = bob.challenge("alice").await;
    assert_eq!(r.status().as_u16(), 303, "the challenge is made without Redis");
    let pool = PgPool::connect(&pg.url()).await.unwrap();
    let (first,): (String,) = sqlx::query_as("SELECT id FROM challenges").fetch_one(&pool).await.unwrap();
    redis.restart();
    let event = events.next().await;
    assert_eq!(event["type"], "challenge", "{event}");
    assert_eq!(event["challenge"]["id"], first.as_str());

    // Live again, and told once: the next event is the next challenge, from carol.
    redis.until_pubsub_clients(4).await;
    let carol = Browser::new(&two);
    carol.signup("carol").await;
    assert_eq!(carol.challenge("alice").await.status().as_u16(), 303);
    let event = events.next().await;
    assert_eq!(event["type"], "challenge", "{event}");
    assert_eq!(event["challenge"]["challenger"]["name"], "carol", "{event}");
}

/// Redis killed while a seek is accepted on the other instance: the redirect to the new game
/// cannot be published, and the seeker's lobby page is sent to the game once Redis is back.
/// Signed-in pages answer meanwhile (sessions are in PostgreSQL, every Redis call times out).
#[tokio::test]
async fn a_lobby_redirect_missed_while_redis_was_down_is_caught_up() {
    let mut redis = Redis::start();
    let pg = Postgres::start();
    let one = instance(&pg, &redis, |_| {}).await;
    let two = instance(&pg, &redis, |_| {}).await;
    let alice = Browser::new(&one);
    alice.signup("alice").await;
    let bob = Browser::new(&two);
    bob.signup("bob").await;
    let mut lobby = alice.ws("/socket/lobby?sri=alicesri01").await;
    lobby.until("seeks").await;
    let seek = json!({"sri": "alicesri01", "variant": "standard", "time": "5+0"});
    let r = alice.post_json("/api/lobby/seek", &seek).await;
    assert_eq!(r.status().as_u16(), 201);
    let seek: serde_json::Value = r.json().await.unwrap();
    redis.until_pubsub_clients(4).await;

    redis.kill();
    // A signed-in page is served without Redis.
    let home = alice.page("/").await;
    assert!(home.contains(r#"<span class="user-name">alice</span>"#), "still signed in");
    let r = bob
        .post_json(&format!("/api/lobby/seek/{}/accept", seek["id"].as_str().unwrap()), &json!({"sri": "bobsri0001"}))
        .await;
    assert_eq!(r.status().as_u16(), 200, "the seek is taken without Redis");
    let game: serde_json::Value = r.json().await.unwrap();
    redis.restart();
    let redirect = lobby.until("redirect").await;
    assert_eq!(redirect["d"]["id"], game["game"], "{redirect} {game}");
}

/// A game's round that stops (its sockets gone for `round_idle_secs`) lets its Redis
/// subscription go: a batch of games leaves no connection behind.
#[tokio::test]
async fn stopped_rounds_leave_no_redis_connection_behind() {
    let redis = Redis::start();
    let pg = Postgres::start();
    let one = instance(&pg, &redis, |s| s.game.round_idle_secs = 1).await;
    // The lobby's and the account news' subscriptions.
    redis.until_pubsub_clients(2).await;
    let before = redis.clients();
    let mut socks = Vec::new();
    for _ in 0..8 {
        let w = Browser::new(&one);
        let id = w.create("5+0").await;
        let mut s = w.socket(&id, None).await;
        s.until("full").await;
        socks.push(s);
    }
    redis.until_pubsub_clients(2 + 8).await;
    drop(socks);
    redis.until_pubsub_clients_at_most(2).await;
    let deadline = std::time::Instant::now() + crate::client::WAIT;
    while redis.clients() > before {
        assert!(std::time::Instant::now() < deadline, "{} clients, {before} before", redis.clients());
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
