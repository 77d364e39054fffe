//! Abuse limits (issue 16): challenges waiting for one account, seeks from one address, chat
//! lines of one author over several sockets, sockets per address, and who may read `/metrics`.
#![expect(clippy::unwrap_used, reason = "test code: a failed step should fail the test loudly")]

use serde_json::{Value, json};

use crate::helpers::{spawn_app, spawn_app_with};
use crate::round::{Browser, Sock};

async fn challenge(from: &Browser, to: &str) -> reqwest::Response {
    from.post_form(
        &format!("/@/{to}"),
        &format!("/@/{to}/challenge"),
        &[("variant", "standard"), ("time", "5+3"), ("mode", "casual"), ("color", "random")],
    )
    .await
}

async fn pending(pool: &sqlx::PgPool) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM challenges WHERE status = 'created'").fetch_one(pool).await.unwrap()
}

#[tokio::test]
async fn an_account_receives_and_sends_at_most_twenty_waiting_challenges() {
    let app = spawn_app().await;
    let star = Browser::new(&app.address);
    star.signup("star").await;
    let fans: Vec<Browser> = (0..3).map(|_| Browser::new(&app.address)).collect();
    for (i, f) in fans.iter().enumerate() {
        f.signup(&format!("fan{i}")).await;
    }
    for n in 0..20 {
        let r = challenge(&fans[n % 3], "star").await;
        assert_eq!(r.status().as_u16(), 303, "challenge {n}");
    }
    let r = challenge(&fans[0], "star").await;
    assert_eq!(r.status().as_u16(), 400);
    assert!(r.text().await.unwrap().contains("star has 20 challenges waiting already"));
    assert_eq!(pending(&app.db_pool).await, 20);
    // One declined: room for one more.
    let id: String = sqlx::query_scalar("SELECT id FROM challenges ORDER BY created_at LIMIT 1")
        .fetch_one(&app.db_pool)
        .await
        .unwrap();
    let r = star.post_form(&format!("/challenge/{id}"), &format!("/challenge/{id}/decline"), &[]).await;
    assert!(r.status().is_redirection() || r.status().is_success(), "{}", r.status());
    assert_eq!(challenge(&fans[1], "star").await.status().as_u16(), 303);

    // Sending: open challenge links count too.
    let sender = Browser::new(&app.address);
    sender.signup("sender").await;
    let open = || {
        sender.post_form(
            "/@/sender",
            "/challenge/open",
            &[("variant", "standard"), ("time", "unlimited"), ("mode", "casual"), ("color", "random")],
        )
    };
    for n in 0..20 {
        assert_eq!(open().await.status().as_u16(), 303, "open challenge {n}");
    }
    let r = open().await;
    assert!(r.text().await.unwrap().contains("you have 20 challenges waiting for an answer"));
    let sent: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM challenges c JOIN users u ON u.id = c.challenger_id WHERE u.username = 'sender'",
    )
    .fetch_one(&app.db_pool)
    .await
    .unwrap();
    assert_eq!(sent, 20);
}

#[tokio::test]
async fn one_address_holds_at_most_twenty_seeks_whoever_the_guests_are() {
    let app = spawn_app().await;
    let body = |sri: &str| json!({"sri": sri, "variant": "standard", "time": "5+0"});
    let (mut guests, mut sockets) = (Vec::new(), Vec::new());
    for g in 0..4 {
        let guest = Browser::new(&app.address);
        let sri = format!("guestsri{g:02}");
        // Seeks live while their page's socket is open.
        let mut sock = guest.ws(&format!("/socket/lobby?sri={sri}")).await;
        sock.until("seeks").await;
        sockets.push(sock);
        for s in 0..5 {
            let r = guest.post_json("/api/lobby/seek", &body(&sri)).await;
            assert_eq!(r.status().as_u16(), 201, "guest {g} seek {s}: {}", r.text().await.unwrap());
        }
        guests.push(guest);
    }
    // A sixth from one guest: their own cap; a new guest: the address's.
    let r = guests[0].post_json("/api/lobby/seek", &body("guestsri00")).await;
    assert_eq!(r.status().as_u16(), 429);
    let fresh = Browser::new(&app.address);
    let mut sock = fresh.ws("/socket/lobby?sri=guestsri99").await;
    sock.until("seeks").await;
    let r = fresh.post_json("/api/lobby/seek", &body("guestsri99")).await;
    assert_eq!(r.status().as_u16(), 429);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["code"], "too_many_seeks");
    assert!(v["error"].as_str().unwrap().contains("from your address"), "{v}");
    let n: i64 = sqlx::query_scalar("SELECT count(*) FROM seeks").fetch_one(&app.db_pool).await.unwrap();
    assert_eq!(n, 20);
}

async fn say(sock: &mut Sock, text: &str) -> Value {
    let ack = sock.ack_id();
    sock.send(json!({"t": "chat", "d": {"room": "player", "text": text, "ack": ack}})).await;
    sock.answer(ack).await
}

#[tokio::test]
async fn the_chat_flood_limit_holds_for_an_author_over_all_their_sockets() {
    let app = spawn_app().await;
    let alice = Browser::new(&app.address);
    alice.signup("alice").await;
    let bob = Browser::new(&app.address);
    bob.signup("bob").await;
    let id = alice.create("standard", "5+0", "casual", "white").await;
    bob.join(&id).await;
    let mut socks = Vec::new();
    for _ in 0..4 {
        let mut s = alice.socket(&id, None).await;
        s.until("full").await;
        socks.push(s);
    }
    for n in 0..8 {
        let answer = say(&mut socks[n % 4], &format!("line {n}")).await;
        assert_eq!(answer["t"], "ack", "line {n}: {answer}");
    }
    let refused = say(&mut socks[1], "one too many").await;
    assert_eq!(refused["d"]["code"], "rate_limited", "{refused}");
    assert!(refused["d"]["message"].as_str().unwrap().contains("at most 8 lines in 10 seconds"));
    // Bob is not limited by alice's lines.
    let mut b = bob.socket(&id, None).await;
    b.until("full").await;
    assert_eq!(say(&mut b, "hi").await["t"], "ack");
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM game_chat").fetch_one(&app.db_pool).await.unwrap();
    assert_eq!(stored, 9);
}

#[tokio::test]
async fn one_address_opens_at_most_a_hundred_sockets() {
    let app = spawn_app().await;
    let guest = Browser::new(&app.address);
    let mut open = Vec::new();
    for n in 0..chessgold::game::socket::SOCKETS_PER_ADDRESS {
        let mut s = guest.ws(&format!("/socket/lobby?sri=capsri{n:04}")).await;
        s.until("seeks").await;
        open.push(s);
    }
    let url = format!("{}/socket/lobby?sri=capsri9999", guest.base.replacen("http://", "ws://", 1));
    let refused = tokio_tungstenite::connect_async(url.as_str()).await;
    match refused {
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => assert_eq!(resp.status().as_u16(), 429),
        other => panic!("the 101st socket opened: {other:?}"),
    }
    // One closes: one more may open (once the server has seen it close).
    drop(open.pop());
    let ip: std::net::IpAddr = "127.0.0.1".parse().unwrap();
    let sockets = app.state.sockets.clone();
    let deadline = std::time::Instant::now() + crate::round::WAIT;
    while sockets.of(ip) >= chessgold::game::socket::SOCKETS_PER_ADDRESS {
        assert!(std::time::Instant::now() < deadline, "the closed socket is let go");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let mut again = guest.ws("/socket/lobby?sri=capsri9999").await;
    again.until("seeks").await;
}

#[tokio::test]
async fn metrics_are_for_the_configured_addresses_or_the_token() {
    let app = spawn_app_with(|s| {
        s.application.metrics_from = Vec::new();
        s.application.metrics_token = secrecy::SecretString::from("metrics-secret");
    })
    .await;
    let client = reqwest::Client::new();
    let url = format!("{}/metrics", app.address);
    assert_eq!(client.get(&url).send().await.unwrap().status().as_u16(), 404);
    let wrong = client.get(&url).bearer_auth("guess").send().await.unwrap();
    assert_eq!(wrong.status().as_u16(), 404);
    let right = client.get(&url).bearer_auth("metrics-secret").send().await.unwrap();
    assert_eq!(right.status().as_u16(), 200);
    assert!(right.text().await.unwrap().contains("chessgold_http_requests_total"));
    // The default: loopback may read them.
    let local = spawn_app().await;
    assert_eq!(client.get(format!("{}/metrics", local.address)).send().await.unwrap().status().as_u16(), 200);
}

#[tokio::test]
async fn the_socket_cap_of_an_address_holds_across_instances_sharing_redis() {
    use chessgold::game::socket::SOCKETS_PER_ADDRESS;
    let one = crate::helpers::spawn_app_with_redis().await;
    let two = crate::round::instances::second_instance(&one).await;
    let (a, b) = (Browser::new(&one.address), Browser::new(&two.address));
    let mut open = Vec::new();
    for n in 0..SOCKETS_PER_ADDRESS {
        let browser = if n % 2 == 0 { &a } else { &b };
        let mut s = browser.ws(&format!("/socket/lobby?sri=capsri{n:04}")).await;
        s.until("seeks").await;
        open.push(s);
    }
    // Each instance holds half; the cap counts both (once the counts are in Redis).
    let ip: std::net::IpAddr = "127.0.0.1".parse().unwrap();
    assert_eq!(one.state.sockets.of(ip), SOCKETS_PER_ADDRESS / 2);
    for base in [&one.address, &two.address] {
        let url = format!("{}/socket/lobby?sri=capsri9999", base.replacen("http://", "ws://", 1));
        let deadline = std::time::Instant::now() + crate::round::WAIT;
        loop {
            match tokio_tungstenite::connect_async(url.as_str()).await {
                Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
                    assert_eq!(resp.status().as_u16(), 429);
                    break;
                }
                // The other instance's last count may not be written yet: this one goes again.
                Ok((ws, _)) => drop(ws),
                Err(e) => panic!("{e}"),
            }
            assert!(std::time::Instant::now() < deadline, "{base} refuses the 101st socket");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
}
