//! Two instances after a restart: a reconnecting client gets the clocks, and two rematch "yes"
//! said at once on two instances make a rematch.

use serde_json::Value;

use crate::client::{Browser, Sock, instance};
use crate::services::{Postgres, Redis};

#[tokio::test]
async fn a_client_reconnecting_to_another_instance_gets_the_clocks() {
    let redis = Redis::start();
    let pg = Postgres::start();
    let one = instance(&pg, &redis, |_| {}).await;
    let w = Browser::new(&one);
    let id = w.create("5+0").await;
    let b = Browser::new(&one);
    b.join(&id).await;
    let mut ws = w.socket(&id, None).await;
    let mut bs = b.socket(&id, None).await;
    ws.until("full").await;
    bs.until("full").await;
    assert_eq!(ws.act("e2e4", 0).await["t"], "ack");
    assert_eq!(bs.act("e7e5", 1).await["t"], "ack");
    let v = ws.move_event(2).await["v"].as_i64().unwrap();
    // A new instance (as after a restart: its round starts from the database); white comes back
    // with the version it has.
    let two = instance(&pg, &redis, |_| {}).await;
    let mut back = w.on(&two).socket(&id, Some(v)).await;
    let first = back.until_match(|m| m["t"] == "clocks" || m["t"] == "chat_history").await;
    assert_eq!(first["t"], "clocks", "the clocks come first: {first}");
    assert_eq!(first["d"]["running"], "white");
}

async fn both(ws: &mut Sock, bs: &mut Sock, t: &str) -> (Value, Value) {
    tokio::join!(ws.command(t), bs.command(t))
}

#[tokio::test]
async fn rematch_said_at_once_on_two_instances_makes_a_rematch() {
    let redis = Redis::start();
    let pg = Postgres::start();
    let one = instance(&pg, &redis, |_| {}).await;
    let two = instance(&pg, &redis, |_| {}).await;
    let p1 = Browser::new(&one);
    let p2 = Browser::new(&two);
    let mut id = p1.create("5+0").await;
    p2.join(&id).await;
    // Several times, as the race is won by timing.
    for _ in 0..4 {
        let mut s1 = p1.socket(&id, None).await;
        let mut s2 = p2.socket(&id, None).await;
        s1.until("full").await;
        s2.until("full").await;
        assert_eq!(s1.command("resign").await["t"], "ack");
        s2.until("end").await;
        let (a1, a2) = both(&mut s1, &mut s2, "rematch_yes").await;
        assert_eq!((a1["t"].as_str(), a2["t"].as_str()), (Some("ack"), Some("ack")), "{a1} {a2}");
        let r1 = s1.until("rematch").await;
        let r2 = s2.until("rematch").await;
        assert_eq!(r1["d"]["id"], r2["d"]["id"]);
        id = r1["d"]["id"].as_str().unwrap().to_string();
    }
}
