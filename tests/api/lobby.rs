//! Finding a game: quick-pairing pools and lobby seeks, on one instance and across two.
#![expect(clippy::unwrap_used, reason = "test code: a failed step should fail the test loudly")]

use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{spawn_app, spawn_app_with_redis};
use crate::round::instances::second_instance;
use crate::round::{Browser, Sock, play_line, stored_result};

/// Opens the lobby socket of a page with socket id `sri`; returns it with the first seek list.
async fn lobby(b: &Browser, sri: &str) -> (Sock, Vec<Value>) {
    let mut s = b.ws(&format!("/socket/lobby?sri={sri}")).await;
    let list = s.until("seeks").await["d"].as_array().unwrap().clone();
    (s, list)
}

async fn join_pool(b: &Browser, sri: &str, variant: &str, time: &str) {
    let r = b.post_json("/api/lobby/pool/join", &json!({"sri": sri, "variant": variant, "time": time})).await;
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
}

async fn seek(b: &Browser, body: Value) -> Value {
    let r = b.post_json("/api/lobby/seek", &body).await;
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    r.json().await.unwrap()
}

fn redirect_id(m: &Value) -> String {
    m["d"]["id"].as_str().unwrap().to_string()
}

/// Opens both players' game sockets; returns (white, black) sockets.
async fn seats(id: &str, one: &Browser, two: &Browser) -> (Sock, Sock) {
    let mut a = one.socket(id, None).await;
    let mut b = two.socket(id, None).await;
    let you = a.until("full").await["d"]["you"].as_str().unwrap().to_string();
    let other = b.until("full").await["d"]["you"].as_str().unwrap().to_string();
    assert_ne!(you, other);
    if you == "white" { (a, b) } else { (b, a) }
}

#[tokio::test]
async fn two_accounts_pair_through_the_pool_and_play_a_rated_game() {
    let app = spawn_app().await;
    let alice = Browser::new(&app.address);
    let bob = Browser::new(&app.address);
    alice.signup("alice").await;
    bob.signup("bob").await;
    let (mut la, _) = lobby(&alice, "alicesri01").await;
    let (mut lb, _) = lobby(&bob, "bobsri0001").await;
    // Alice also waits in another pool: pairing takes her out of both.
    join_pool(&alice, "alicesri01", "gold", "5+3").await;
    join_pool(&alice, "alicesri01", "standard", "3+2").await;
    join_pool(&bob, "bobsri0001", "standard", "3+2").await;
    let id = redirect_id(&la.until("redirect").await);
    assert_eq!(redirect_id(&lb.until("redirect").await), id);
    let g = chessgold::db::games::find(&app.db_pool, &id).await.unwrap().unwrap();
    assert!(g.rated && g.variant == "standard" && g.clock_limit == Some(18000) && g.clock_increment == Some(200));
    assert_eq!(g.status, 20, "started at once");
    assert!(app.state_pools_empty().await, "nobody waits any more");
    let (mut w, mut b) = seats(&id, &alice, &bob).await;
    play_line(&mut w, &mut b, 0, &["f2f3", "e7e5", "g2g4", "d8h4"]).await;
    assert_eq!(stored_result(&app.db_pool, &id).await.0, 30);
    let ratings: Vec<(i32,)> =
        sqlx::query_as("SELECT rating FROM user_ratings WHERE variant = 'standard' ORDER BY rating")
            .fetch_all(&app.db_pool)
            .await
            .unwrap();
    assert_eq!(ratings, [(1480,), (1520,)], "a rated game between two new players moves 20 points");
}

#[tokio::test]
async fn a_seek_accepted_starts_the_game_for_both() {
    let app = spawn_app().await;
    let alice = Browser::new(&app.address);
    let bob = Browser::new(&app.address);
    alice.signup("alice").await;
    bob.signup("bob").await;
    let (mut la, _) = lobby(&alice, "alicesri01").await;
    let (mut lb, first) = lobby(&bob, "bobsri0001").await;
    assert!(first.is_empty());
    let made =
        seek(&alice, json!({"sri": "alicesri01", "variant": "gold", "time": "5+3", "mode": "rated", "color": "white"}))
            .await;
    assert_eq!(
        (made["own"].as_bool(), made["rating"].as_i64(), made["provisional"].as_bool()),
        (Some(true), Some(1500), Some(true))
    );
    let shown = lb.until("seek_add").await["d"].clone();
    assert_eq!(
        (shown["name"].as_str(), shown["own"].as_bool(), shown["time"].as_str()),
        (Some("alice"), Some(false), Some("5+3"))
    );
    assert_eq!(shown["variant_name"], "Chess Gold");
    assert_eq!(la.until("seek_add").await["d"]["own"], true);
    let id = shown["id"].as_str().unwrap();
    let r = bob.post_json(&format!("/api/lobby/seek/{id}/accept"), &json!({"sri": "bobsri0001"})).await;
    assert_eq!(r.status().as_u16(), 200);
    let game: Value = r.json().await.unwrap();
    let gid = game["game"].as_str().unwrap();
    assert_eq!(game["url"], format!("/{gid}"));
    assert_eq!(redirect_id(&la.until("redirect").await), gid);
    assert_eq!(lb.until("seek_remove").await["d"], json!([id]));
    let players = chessgold::db::games::players(&app.db_pool, gid).await.unwrap();
    let white = players.iter().find(|p| p.color == "white").unwrap();
    let alice_id: (uuid::Uuid,) =
        sqlx::query_as("SELECT id FROM users WHERE username = 'alice'").fetch_one(&app.db_pool).await.unwrap();
    assert_eq!(white.user_id, Some(alice_id.0), "the seek's colour holds");
    // A second accept finds nothing.
    let again = bob.post_json(&format!("/api/lobby/seek/{id}/accept"), &json!({"sri": "bobsri0001"})).await;
    assert_eq!(again.status().as_u16(), 404);
    // Both reach the same game page as its players, and play it to a result.
    let (mut w, mut b) = seats(gid, &alice, &bob).await;
    let ack = b.command("resign").await;
    assert_eq!(ack["t"], "ack");
    w.until("end").await;
    assert_eq!(stored_result(&app.db_pool, gid).await, (31, Some("white".into()), Some("resign".into())));
}

#[tokio::test]
async fn a_seek_goes_when_its_page_closes_or_its_owner_starts_another_game() {
    let app = spawn_app().await;
    let guest = Browser::new(&app.address);
    let watcher = Browser::new(&app.address);
    let (lg, _) = lobby(&guest, "guestsri01").await;
    let (mut lw, _) = lobby(&watcher, "watchsri01").await;
    let made = seek(&guest, json!({"sri": "guestsri01", "variant": "standard", "time": "unlimited"})).await;
    assert_eq!(
        (made["name"].as_str(), made["rating"].as_i64(), made["time"].as_str()),
        (Some("Anonymous"), None, Some("unlimited"))
    );
    assert_eq!(lw.until("seek_add").await["d"]["id"], made["id"]);
    lg.close().await;
    assert_eq!(lw.until("seek_remove").await["d"], json!([made["id"]]));
    let left: (i64,) = sqlx::query_as("SELECT count(*) FROM seeks").fetch_one(&app.db_pool).await.unwrap();
    assert_eq!(left.0, 0);
    // A new page of the same guest seeks again, then joins a friend's game: the seek goes.
    let (_lg2, listed) = lobby(&guest, "guestsri02").await;
    assert!(listed.is_empty());
    let again = seek(&guest, json!({"sri": "guestsri02", "variant": "gold", "time": "3+2"})).await;
    lw.until("seek_add").await;
    let friend = Browser::new(&app.address);
    let fid = friend.create("standard", "5+0", "casual", "white").await;
    guest.join(&fid).await;
    assert_eq!(lw.until("seek_remove").await["d"], json!([again["id"]]));
}

#[tokio::test]
async fn rated_and_ranged_seeks_show_only_to_those_who_may_accept() {
    let app = spawn_app().await;
    let alice = Browser::new(&app.address);
    let bob = Browser::new(&app.address);
    let guest = Browser::new(&app.address);
    alice.signup("alice").await;
    bob.signup("bob").await;
    let (mut la, _) = lobby(&alice, "alicesri01").await;
    let (mut lb, _) = lobby(&bob, "bobsri0001").await;
    let (mut lg, _) = lobby(&guest, "guestsri01").await;
    let ranged = seek(
        &alice,
        json!({"sri": "alicesri01", "variant": "standard", "time": "3+0", "mode": "rated", "rating_min": 1600, "rating_max": 1800}),
    )
    .await;
    let rated = seek(&alice, json!({"sri": "alicesri01", "variant": "standard", "time": "3+0", "mode": "rated"})).await;
    let casual = seek(&alice, json!({"sri": "alicesri01", "variant": "standard", "time": "3+0"})).await;
    assert_eq!(ranged["range"], json!([1600, 1800]));
    // The owner sees all three; bob (1500) the rated one without a range and the casual one;
    // the guest only the casual one.
    for id in [&ranged["id"], &rated["id"], &casual["id"]] {
        assert_eq!(&la.until("seek_add").await["d"]["id"], id);
    }
    assert_eq!(lb.until("seek_add").await["d"]["id"], rated["id"]);
    assert_eq!(lb.until("seek_add").await["d"]["id"], casual["id"]);
    assert_eq!(lg.until("seek_add").await["d"]["id"], casual["id"]);
    let (_, bob_list) = lobby(&bob, "bobsri0002").await;
    assert_eq!(bob_list.len(), 2);
    // Accepting what one may not: refused, and the seek stays.
    let r = bob
        .post_json(&format!("/api/lobby/seek/{}/accept", ranged["id"].as_str().unwrap()), &json!({"sri": "bobsri0001"}))
        .await;
    assert_eq!(r.status().as_u16(), 403);
    assert!(r.text().await.unwrap().contains("outside the seek's range"));
    let r = guest
        .post_json(&format!("/api/lobby/seek/{}/accept", rated["id"].as_str().unwrap()), &json!({"sri": "guestsri01"}))
        .await;
    assert_eq!(r.status().as_u16(), 403);
    let r = alice
        .post_json(&format!("/api/lobby/seek/{}/accept", casual["id"].as_str().unwrap()), &json!({"sri": "alicesri01"}))
        .await;
    assert_eq!(r.status().as_u16(), 403, "not one's own seek");
    let left: (i64,) = sqlx::query_as("SELECT count(*) FROM seeks").fetch_one(&app.db_pool).await.unwrap();
    assert_eq!(left.0, 3);
    // Cancelling: only the owner.
    let path = format!("/api/lobby/seek/{}/cancel", casual["id"].as_str().unwrap());
    assert_eq!(bob.post_json(&path, &json!({})).await.status().as_u16(), 404);
    assert_eq!(alice.post_json(&path, &json!({})).await.status().as_u16(), 200);
    assert_eq!(lg.until("seek_remove").await["d"], json!([casual["id"]]));
}

#[tokio::test]
async fn a_player_is_never_paired_with_themself() {
    let app = spawn_app().await;
    let alice = Browser::new(&app.address);
    alice.signup("alice").await;
    let (mut one, _) = lobby(&alice, "alicetab01").await;
    let (mut two, _) = lobby(&alice, "alicetab02").await;
    join_pool(&alice, "alicetab01", "standard", "1+0").await;
    join_pool(&alice, "alicetab02", "standard", "1+0").await;
    // Several matcher passes (one a second) go by without a pairing.
    assert!(one.none_for(Duration::from_millis(2500), |m| m["t"] == "redirect").await);
    assert!(two.none_for(Duration::from_millis(100), |m| m["t"] == "redirect").await);
    let games: (i64,) = sqlx::query_as("SELECT count(*) FROM games").fetch_one(&app.db_pool).await.unwrap();
    assert_eq!(games.0, 0);
    // A guest in the same time control waits in the casual pool, apart from rated players.
    let guest = Browser::new(&app.address);
    let (mut g, _) = lobby(&guest, "guestsri01").await;
    join_pool(&guest, "guestsri01", "standard", "1+0").await;
    assert!(g.none_for(Duration::from_millis(2500), |m| m["t"] == "redirect").await);
    // Closing a tab leaves its pools: another guest then pairs with the first guest only.
    one.close().await;
    two.close().await;
    let other = Browser::new(&app.address);
    let (mut o, _) = lobby(&other, "othersri01").await;
    join_pool(&other, "othersri01", "standard", "1+0").await;
    assert_eq!(redirect_id(&o.until("redirect").await), redirect_id(&g.until("redirect").await));
}

#[tokio::test]
async fn bad_lobby_requests_are_refused_and_change_nothing() {
    let app = spawn_app().await;
    let guest = Browser::new(&app.address);
    let cases = [
        ("/api/lobby/seek", json!({"sri": "short", "variant": "gold", "time": "3+2"}), 400, "bad_sri"),
        ("/api/lobby/seek", json!({"sri": "guestsri01", "variant": "nope", "time": "3+2"}), 422, "invalid_seek"),
        ("/api/lobby/seek", json!({"sri": "guestsri01", "variant": "gold", "time": "2+1"}), 422, "invalid_seek"),
        (
            "/api/lobby/seek",
            json!({"sri": "guestsri01", "variant": "gold", "time": "3+2", "mode": "rated"}),
            422,
            "invalid_seek",
        ),
        (
            "/api/lobby/seek",
            json!({"sri": "guestsri01", "variant": "gold", "time": "3+2", "color": "green"}),
            422,
            "invalid_seek",
        ),
        (
            "/api/lobby/seek",
            json!({"sri": "guestsri01", "variant": "gold", "time": "3+2", "rating_min": 1800}),
            422,
            "invalid_seek",
        ),
        (
            "/api/lobby/seek",
            json!({"sri": "guestsri01", "variant": "gold", "time": "3+2", "extra": 1}),
            400,
            "bad_json",
        ),
        (
            "/api/lobby/pool/join",
            json!({"sri": "guestsri01", "variant": "gold", "time": "unlimited"}),
            422,
            "invalid_pool",
        ),
        ("/api/lobby/pool/join", json!({"sri": "guestsri01", "variant": "gold"}), 400, "bad_json"),
        ("/api/lobby/seek/abcdefgh/accept", json!({"sri": "guestsri01"}), 404, "not_found"),
    ];
    for (path, body, status, code) in cases {
        let r = guest.post_json(path, &body).await;
        assert_eq!(r.status().as_u16(), status, "{path} {body}");
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["code"], code, "{path} {body}: {v}");
        assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()));
    }
    let r = guest
        .http
        .post(format!("{}/api/lobby/seek", app.address))
        .header("Origin", "http://evil.example")
        .json(&json!({"sri": "guestsri01", "variant": "gold", "time": "3+2"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 403);
    let seeks: (i64,) = sqlx::query_as("SELECT count(*) FROM seeks").fetch_one(&app.db_pool).await.unwrap();
    assert_eq!(seeks.0, 0);
    assert!(app.state_pools_empty().await);
    // The socket: a bad id is refused; garbage and unknown messages get errors, pings pongs.
    let r = guest.http.get(format!("{}/socket/lobby?sri=x", app.address)).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 400);
    let (mut s, _) = lobby(&guest, "guestsri01").await;
    s.send_text("not json").await;
    assert_eq!(s.until("error").await["d"]["code"], "malformed");
    s.send(json!({"t": "seek", "d": {}})).await;
    assert_eq!(s.until("error").await["d"]["code"], "unknown_type");
    s.send(json!({"t": "ping"})).await;
    s.until("pong").await;
}

#[tokio::test]
async fn two_instances_share_the_pools_and_the_seeks_through_redis() {
    let one = spawn_app_with_redis().await;
    let two = second_instance(&one).await;
    let alice = Browser::new(&one.address);
    let bob = Browser::new(&two.address);
    alice.signup("alice").await;
    bob.signup("bob").await;
    let (mut la, _) = lobby(&alice, "alicesri01").await;
    let (mut lb, _) = lobby(&bob, "bobsri0001").await;
    // A seek made on one instance shows on the other.
    let made = seek(&alice, json!({"sri": "alicesri01", "variant": "grunt", "time": "10+5"})).await;
    assert_eq!(lb.until("seek_add").await["d"]["id"], made["id"]);
    // The pools are shared: a player on each instance pairs.
    join_pool(&alice, "alicesri01", "electrum", "10+0").await;
    join_pool(&bob, "bobsri0001", "electrum", "10+0").await;
    let id = redirect_id(&la.until("redirect").await);
    assert_eq!(redirect_id(&lb.until("redirect").await), id);
    // Starting the game took alice's seek away, on both instances.
    assert_eq!(lb.until("seek_remove").await["d"], json!([made["id"]]));
    let g = chessgold::db::games::find(&one.db_pool, &id).await.unwrap().unwrap();
    assert!(g.rated && g.variant == "electrum");
    assert!(one.state_pools_empty().await && two.state_pools_empty().await);
}

#[tokio::test]
async fn racing_accepts_never_give_one_player_two_clocked_games() {
    let app = spawn_app().await;
    let alice = Browser::new(&app.address);
    let (_la, _) = lobby(&alice, "alicesri01").await;
    let first = seek(&alice, json!({"sri": "alicesri01", "variant": "standard", "time": "3+0"})).await;
    let second = seek(&alice, json!({"sri": "alicesri01", "variant": "gold", "time": "5+3"})).await;
    let bob = Browser::new(&app.address);
    let carol = Browser::new(&app.address);
    let accept = |b: &Browser, id: &Value, sri: &str| {
        let path = format!("/api/lobby/seek/{}/accept", id.as_str().unwrap());
        let body = json!({"sri": sri});
        let b = b.clone();
        async move { b.post_json(&path, &body).await.status().as_u16() }
    };
    let (one, two) =
        tokio::join!(accept(&bob, &first["id"], "bobsri0001"), accept(&carol, &second["id"], "carolsri01"));
    let mut codes = [one, two];
    codes.sort_unstable();
    assert_eq!(codes[0], 200, "one accept wins: {codes:?}");
    assert!(codes[1] == 404 || codes[1] == 409, "the other is refused: {codes:?}");
    let games: (i64,) = sqlx::query_as("SELECT count(*) FROM games").fetch_one(&app.db_pool).await.unwrap();
    assert_eq!(games.0, 1);
    let left: (i64,) = sqlx::query_as("SELECT count(*) FROM seeks").fetch_one(&app.db_pool).await.unwrap();
    assert_eq!(left.0, 0, "a player who started a game keeps no seek");
    // Until that game ends, the lobby sends the player back to it.
    let r =
        alice.post_json("/api/lobby/pool/join", &json!({"sri": "alicesri01", "variant": "gold", "time": "3+2"})).await;
    assert_eq!(r.status().as_u16(), 409);
    let r = alice.post_json("/api/lobby/seek", &json!({"sri": "alicesri01", "variant": "gold", "time": "3+2"})).await;
    assert_eq!(r.status().as_u16(), 409);
    assert!(app.state_pools_empty().await);
}

#[tokio::test]
async fn lobby_requests_and_anonymous_api_reads_are_limited_per_address() {
    let app = crate::helpers::spawn_app_with(|s| s.rate_limit.api_per_ip_per_minute = 3).await;
    let guest = Browser::new(&app.address);
    let body = json!({"sri": "guestsri01", "variant": "gold", "time": "3+2"});
    for _ in 0..3 {
        assert_eq!(guest.post_json("/api/lobby/pool/join", &body).await.status().as_u16(), 200);
    }
    let r = guest.post_json("/api/lobby/pool/leave", &body).await;
    assert_eq!(r.status().as_u16(), 429);
    assert!(r.headers().get("retry-after").is_some());
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["code"], "rate_limited");
    // The same address reading the API anonymously shares the quota.
    let r = guest.http.get(format!("{}/api/user/nobody", app.address)).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 429);
}

/// Who waits in the pools now (their `player` keys).
async fn waiting(app: &crate::helpers::TestApp) -> Vec<String> {
    app.state.lobby.pools.entries().await.unwrap().into_iter().map(|e| e.player).collect()
}

#[tokio::test]
async fn a_player_drawn_against_someone_already_playing_keeps_waiting() {
    let app = spawn_app().await;
    let (alice, bob, carol, dave) = (
        Browser::new(&app.address),
        Browser::new(&app.address),
        Browser::new(&app.address),
        Browser::new(&app.address),
    );
    for (b, name) in [(&alice, "alice"), (&bob, "bob"), (&carol, "carol"), (&dave, "dave")] {
        b.signup(name).await;
    }
    // Alice plays a clocked game with Carol...
    let game = alice.create("standard", "5+0", "casual", "white").await;
    carol.join(&game).await;
    let alice_id = chessgold::db::users::find_by_name(&app.db_pool, "alice").await.unwrap().unwrap().id;
    // ... and still has a place in a pool, as when her game started on another instance in the
    // moment between her joining the pool and the pass that draws her.
    let me = chessgold::game::PlayerRef::User(alice_id);
    let now = chessgold::lobby::now_ms();
    let key = chessgold::lobby::pools::PoolKey { variant: "standard".into(), time: "3+2".into(), rated: true };
    let entry = chessgold::lobby::pools::PoolEntry {
        player: chessgold::lobby::player_key(&me),
        conn: "alicesri77".into(),
        user_id: Some(alice_id),
        guest_id: None,
        rating: 1500,
        pool: key,
        joined_ms: now - 60_000,
        seen_ms: now,
    };
    app.state.lobby.pools.join(entry.clone()).await.unwrap();
    let (mut lb, _) = lobby(&bob, "bobsri0077").await;
    join_pool(&bob, "bobsri0077", "standard", "3+2").await;
    // The matcher draws the two and finds Alice playing: her place goes, Bob's comes back (the
    // pass takes both out before it puts him back, so the test waits for that state itself).
    let bob_id = chessgold::db::users::find_by_name(&app.db_pool, "bob").await.unwrap().unwrap().id;
    let bob_key = chessgold::lobby::player_key(&chessgold::game::PlayerRef::User(bob_id));
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let left = waiting(&app).await;
        if left == [bob_key.clone()] {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "only Bob should wait, not {left:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let games: (i64,) = sqlx::query_as("SELECT count(*) FROM games").fetch_one(&app.db_pool).await.unwrap();
    assert_eq!(games.0, 1, "no game with the busy player");
    // Bob is paired with the next player to come.
    let (mut ld, _) = lobby(&dave, "davesri077").await;
    join_pool(&dave, "davesri077", "standard", "3+2").await;
    let id = redirect_id(&lb.until("redirect").await);
    assert_eq!(redirect_id(&ld.until("redirect").await), id);
}

#[tokio::test]
async fn blocked_and_marked_players_neither_see_nor_take_each_others_seeks() {
    use chessgold::moderation::{Reason, marks, roles};
    let app = spawn_app().await;
    let pool = &app.db_pool;
    let [alice, bob, carol, judge] = ["alice", "bob", "carol", "judge"].map(|_| Browser::new(&app.address));
    for (b, name) in [(&alice, "alice"), (&bob, "bob"), (&carol, "carol"), (&judge, "judge")] {
        b.signup(name).await;
    }
    let guest = Browser::new(&app.address);
    let id =
        |name: &'static str| async move { chessgold::db::users::find_by_name(pool, name).await.unwrap().unwrap().id };
    let reason = |t: &str| Reason::parse(t).unwrap();
    roles::set_role(pool, None, "judge", chessgold::domain::Role::Moderator, &reason("test")).await.unwrap();
    // Bob blocks alice from her profile; carol is engine-marked.
    let r = bob.post_form("/@/alice", "/@/alice/block", &[]).await;
    assert_eq!(r.status().as_u16(), 303);
    marks::mark(pool, id("judge").await, id("carol").await, marks::Mark::Engine, &reason("engine")).await.unwrap();
    let of_alice = seek(&alice, json!({"sri": "alicesri01", "variant": "standard", "time": "3+0"})).await;
    let of_carol = seek(&carol, json!({"sri": "carolsri01", "variant": "standard", "time": "3+0"})).await;
    let ids = |list: &[Value]| -> Vec<String> { list.iter().map(|s| s["id"].as_str().unwrap().to_string()).collect() };
    let (a, c) = (of_alice["id"].as_str().unwrap().to_string(), of_carol["id"].as_str().unwrap().to_string());
    // Bob sees neither (a block, a mark); carol only her own; the guest and the judge alice's.
    let (_lb, bob_list) = lobby(&bob, "bobsri0001").await;
    assert!(ids(&bob_list).is_empty(), "{bob_list:?}");
    let (_lc, carol_list) = lobby(&carol, "carolsri02").await;
    assert_eq!(ids(&carol_list), std::slice::from_ref(&c));
    let (mut lg, guest_list) = lobby(&guest, "guestsri01").await;
    assert_eq!(ids(&guest_list), std::slice::from_ref(&a));
    let (_lj, judge_list) = lobby(&judge, "judgesri01").await;
    assert_eq!(ids(&judge_list), std::slice::from_ref(&a));
    // A seek added later is filtered the same way.
    let dave = Browser::new(&app.address);
    dave.signup("dave").await;
    let r = dave.post_form("/@/alice", "/@/alice/block", &[]).await;
    assert_eq!(r.status().as_u16(), 303);
    let of_dave = seek(&dave, json!({"sri": "davesri001", "variant": "standard", "time": "3+0"})).await;
    assert_eq!(lg.until("seek_add").await["d"]["id"], of_dave["id"]);
    let (_la, alice_list) = lobby(&alice, "alicesri02").await;
    assert_eq!(ids(&alice_list), std::slice::from_ref(&a), "only her own: dave blocks her, carol is marked");
    // Taking them anyway is refused in words, and the seeks stay.
    let accept = |b: &Browser, seek: &str, sri: &str| {
        let (b, path) = (b.clone(), format!("/api/lobby/seek/{seek}/accept"));
        let body = json!({"sri": sri});
        async move { b.post_json(&path, &body).await }
    };
    let r = accept(&bob, &a, "bobsri0001").await;
    assert_eq!(r.status().as_u16(), 403);
    assert!(r.text().await.unwrap().contains("one of you blocks the other"));
    let r = accept(&alice, &c, "alicesri02").await;
    assert_eq!(r.status().as_u16(), 403);
    let r = accept(&guest, &c, "guestsri01").await;
    assert_eq!(r.status().as_u16(), 403);
    let left: (i64,) = sqlx::query_as("SELECT count(*) FROM seeks").fetch_one(pool).await.unwrap();
    assert_eq!(left.0, 3);
    // Joining a friend's game by its link is refused across a block too.
    let friendly = alice.create("standard", "5+0", "casual", "white").await;
    let r = bob.post_form(&format!("/{friendly}"), &format!("/game/{friendly}/join"), &[]).await;
    assert_eq!(r.status().as_u16(), 409);
    assert!(r.text().await.unwrap().contains("one of you blocks the other"));
    guest.join(&friendly).await;
}
