//! Challenges that cannot start are refused in words: when they are sent (the profile form, the
//! API with lichess's `{"error": ...}`) and, should a player have started another game with a clock
//! meanwhile, when they are accepted (409, the challenge kept open).
#![expect(clippy::unwrap_used, reason = "test code: a failed step should fail the test loudly")]

use serde_json::Value;

use crate::helpers::{TestApp, location, spawn_app};
use crate::round::{Browser, Sock, stored_result};

/// `white` creates a casual 5+0 game with the friend form, `black` joins: a started game with a
/// clock. Returns its id and white's socket (to resign it later).
async fn clocked_game(white: &Browser, black: &Browser) -> (String, Sock) {
    let id = white.create("standard", "5+0", "casual", "white").await;
    black.join(&id).await;
    let mut sock = white.socket(&id, None).await;
    sock.until("full").await;
    (id, sock)
}

/// Sends the profile's challenge form from `from` to `to`.
async fn challenge_form(from: &Browser, to: &str, time: &str) -> reqwest::Response {
    from.post_form(
        &format!("/@/{to}"),
        &format!("/@/{to}/challenge"),
        &[("variant", "standard"), ("time", time), ("mode", "casual"), ("color", "random")],
    )
    .await
}

async fn challenge_count(app: &TestApp) -> i64 {
    let n: (i64,) = sqlx::query_as("SELECT count(*) FROM challenges").fetch_one(&app.db_pool).await.unwrap();
    n.0
}

async fn challenge_status(app: &TestApp, id: &str) -> String {
    chessgold::db::challenges::find(&app.db_pool, id).await.unwrap().unwrap().status
}

async fn resign(sock: &mut Sock, app: &TestApp, id: &str) {
    assert_eq!(sock.command("resign").await["t"], "ack");
    assert_eq!(stored_result(&app.db_pool, id).await.0, 31);
}

#[tokio::test]
async fn a_busy_challenger_is_refused_on_the_profile_with_the_way_back_to_the_game() {
    let app = spawn_app().await;
    let (alice, bob, carol) = (Browser::new(&app.address), Browser::new(&app.address), Browser::new(&app.address));
    alice.signup("alice").await;
    bob.signup("bob").await;
    carol.signup("carol").await;
    let (game, _sock) = clocked_game(&alice, &carol).await;

    let resp = challenge_form(&alice, "bob", "5+3").await;
    assert_eq!(resp.status().as_u16(), 409);
    let html = resp.text().await.unwrap();
    assert!(html.contains(r#"id="challenge-box" open"#), "the form stays open: {html}");
    assert!(html.contains("You are playing a game with a clock: finish it before you send a challenge"), "{html}");
    assert!(html.contains(&format!(r#"<a href="/{game}">Continue your game</a>"#)), "{html}");
    assert_eq!(challenge_count(&app).await, 0, "nothing was sent");

    // A challenge without a clock can wait: it goes.
    let resp = challenge_form(&alice, "bob", "unlimited").await;
    assert_eq!(resp.status().as_u16(), 303);
    assert!(location(&resp).starts_with("/challenge/"));
    // So does an open challenge link without a clock, while one with a clock is refused.
    let open = |time: &'static str| {
        let alice = alice.clone();
        async move {
            alice
                .post_form(
                    "/@/alice",
                    "/challenge/open",
                    &[("variant", "standard"), ("time", time), ("mode", "casual"), ("color", "random")],
                )
                .await
        }
    };
    let resp = open("3+2").await;
    assert_eq!(resp.status().as_u16(), 409);
    let html = resp.text().await.unwrap();
    assert!(html.contains(r#"id="open-challenge" open"#) && html.contains("Continue your game"), "{html}");
    assert_eq!(open("unlimited").await.status().as_u16(), 303);
    assert_eq!(challenge_count(&app).await, 2);
}

#[tokio::test]
async fn a_challenge_to_a_busy_player_is_refused_in_their_name() {
    let app = spawn_app().await;
    let (alice, bob, carol) = (Browser::new(&app.address), Browser::new(&app.address), Browser::new(&app.address));
    alice.signup("alice").await;
    bob.signup("bob").await;
    carol.signup("carol").await;
    let (bob_game, mut sock) = clocked_game(&bob, &carol).await;
    let resp = challenge_form(&alice, "bob", "5+3").await;
    assert_eq!(resp.status().as_u16(), 409);
    let html = resp.text().await.unwrap();
    assert!(html.contains("bob is playing a game with a clock right now: challenge them when it is over"), "{html}");
    assert!(!html.contains("Continue your game"), "bob's game is not alice's to continue");
    assert_eq!(challenge_count(&app).await, 0);
    // Bad terms are said on the profile too, and send nothing.
    let resp = alice
        .post_form(
            "/@/bob",
            "/@/bob/challenge",
            &[("variant", "no-such-variant"), ("time", "unlimited"), ("mode", "casual"), ("color", "random")],
        )
        .await;
    assert_eq!(resp.status().as_u16(), 422);
    let html = resp.text().await.unwrap();
    assert!(html.contains(r#"id="challenge-error">Unknown variant"#) && html.contains("no-such-variant"), "{html}");
    let resp = challenge_form(&alice, "bob", "7+7").await;
    assert_eq!(resp.status().as_u16(), 422);
    let html = resp.text().await.unwrap();
    assert!(html.contains(r#"id="challenge-error">Unknown time control"#), "{html}");
    assert_eq!(challenge_count(&app).await, 0);
    // Once bob's game is over, the challenge goes.
    resign(&mut sock, &app, &bob_game).await;
    assert_eq!(challenge_form(&alice, "bob", "5+3").await.status().as_u16(), 303);
}

#[tokio::test]
async fn accepting_when_the_challenger_started_another_game_says_so_and_keeps_the_challenge() {
    let app = spawn_app().await;
    let (alice, bob, carol) = (Browser::new(&app.address), Browser::new(&app.address), Browser::new(&app.address));
    alice.signup("alice").await;
    bob.signup("bob").await;
    carol.signup("carol").await;
    let resp = challenge_form(&alice, "bob", "5+3").await;
    assert_eq!(resp.status().as_u16(), 303);
    let id = location(&resp).trim_start_matches("/challenge/").to_string();
    // Meanwhile alice starts another game with a clock.
    let (other, mut sock) = clocked_game(&alice, &carol).await;

    let page = format!("/challenge/{id}");
    let resp = bob.post_form(&page, &format!("{page}/accept"), &[]).await;
    assert_eq!(resp.status().as_u16(), 409);
    let html = resp.text().await.unwrap();
    assert!(
        html.contains("alice is playing another game with a clock right now, so this game cannot start. The challenge stays open: accept it when that game is over."),
        "{html}"
    );
    assert!(!html.contains("Continue your game"), "alice's game is not bob's");
    assert!(html.contains(r#"id="accept-form""#), "bob may accept again later");
    assert_eq!(challenge_status(&app, &id).await, "created", "the challenge stays open");

    resign(&mut sock, &app, &other).await;
    let resp = bob.post_form(&page, &format!("{page}/accept"), &[]).await;
    assert_eq!(resp.status().as_u16(), 303);
    assert_eq!(location(&resp), format!("/{id}"));
}

#[tokio::test]
async fn accepting_while_in_a_game_with_a_clock_links_to_that_game() {
    let app = spawn_app().await;
    let (alice, bob, carol) = (Browser::new(&app.address), Browser::new(&app.address), Browser::new(&app.address));
    alice.signup("alice").await;
    bob.signup("bob").await;
    carol.signup("carol").await;
    let resp = challenge_form(&alice, "bob", "5+3").await;
    let id = location(&resp).trim_start_matches("/challenge/").to_string();
    let (game, _sock) = clocked_game(&bob, &carol).await;
    let page = format!("/challenge/{id}");
    let resp = bob.post_form(&page, &format!("{page}/accept"), &[]).await;
    assert_eq!(resp.status().as_u16(), 409);
    let html = resp.text().await.unwrap();
    assert!(html.contains("You are playing a game with a clock: finish it, then accept this challenge."), "{html}");
    assert!(html.contains(&format!(r#"<a href="/{game}">Continue your game</a>"#)), "{html}");
    assert_eq!(challenge_status(&app, &id).await, "created");
}

/// A personal token of a signed-up account.
async fn token(app: &TestApp, name: &str) -> String {
    let user = chessgold::db::users::find_by_name(&app.db_pool, name).await.unwrap().unwrap();
    let (token, hash) = chessgold::api::auth::new_token().unwrap();
    let scopes = vec!["challenge:write".to_string(), "board:play".to_string()];
    chessgold::db::tokens::insert(&app.db_pool, user.id, "test", &scopes, &hash).await.unwrap();
    token
}

#[tokio::test]
async fn the_api_refuses_a_challenge_that_cannot_start_with_lichess_error_shape() {
    let app = spawn_app().await;
    let (alice, bob, carol) = (Browser::new(&app.address), Browser::new(&app.address), Browser::new(&app.address));
    alice.signup("alice").await;
    bob.signup("bob").await;
    carol.signup("carol").await;
    let alice_token = token(&app, "alice").await;
    let carol_token = token(&app, "carol").await;
    let (game, _sock) = clocked_game(&alice, &bob).await;
    let client = reqwest::Client::new();
    let send = |token: String, to: &'static str, clock: bool| {
        let client = client.clone();
        let url = app.url(&format!("/api/challenge/{to}"));
        async move {
            let form: &[(&str, &str)] = if clock { &[("clock.limit", "300"), ("clock.increment", "3")] } else { &[] };
            client.post(url).bearer_auth(token).form(form).send().await.unwrap()
        }
    };
    // The busy challenger: 400 {"error": "..."} as lichess, with our code and the game.
    let r = send(alice_token.clone(), "carol", true).await;
    assert_eq!(r.status().as_u16(), 400);
    let body: Value = r.json().await.unwrap();
    assert!(body["error"].as_str().unwrap().starts_with("You are playing a game with a clock"), "{body}");
    assert_eq!(
        (body["code"].as_str(), body["url"].as_str()),
        (Some("already_playing"), Some(format!("/{game}").as_str()))
    );
    // A busy challenged player.
    let r = send(carol_token.clone(), "alice", true).await;
    assert_eq!(r.status().as_u16(), 400);
    let body: Value = r.json().await.unwrap();
    assert!(body["error"].as_str().unwrap().starts_with("alice is playing a game with a clock right now"), "{body}");
    assert!(body.get("url").is_none(), "{body}");
    assert_eq!(challenge_count(&app).await, 0);
    // Without a clock the challenge goes; accepting it starts an unlimited game at once.
    let r = send(carol_token, "alice", false).await;
    assert_eq!(r.status().as_u16(), 200);
    let id = r.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    let r =
        client.post(app.url(&format!("/api/challenge/{id}/accept"))).bearer_auth(&alice_token).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
}
