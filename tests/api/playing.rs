//! A player in a game finds it from the home page ("You are playing ...: Continue"), and a lobby
//! refusal because of a running game carries the way back to it.
#![expect(clippy::unwrap_used, reason = "test code: a failed step should fail the test loudly")]

use serde_json::{Value, json};

use crate::helpers::spawn_app;
use crate::round::{Browser, stored_result};

/// The home page's "playing" entries: (game id, text) in the page's order.
fn playing_entries(html: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find(r#"<li class="playing-game" data-game=""#) {
        rest = &rest[at + r#"<li class="playing-game" data-game=""#.len()..];
        let id = rest[..rest.find('"').unwrap()].to_string();
        let end = rest.find("</li>").unwrap();
        out.push((id, rest[..end].to_string()));
        rest = &rest[end..];
    }
    out
}

#[tokio::test]
async fn the_home_page_lists_the_games_in_play_with_a_way_back() {
    let app = spawn_app().await;
    let (alice, bob, carol) = (Browser::new(&app.address), Browser::new(&app.address), Browser::new(&app.address));
    alice.signup("alice").await;
    bob.signup("bob").await;
    // Nothing in play: no entry.
    assert!(playing_entries(&alice.html("/").await).is_empty());
    assert!(!alice.html("/").await.contains(r#"id="playing""#));

    // An unlimited game against a guest (created first), then a rated game with a clock.
    let slow = alice.create("gold", "unlimited", "casual", "black").await;
    carol.join(&slow).await;
    let fast = alice.create("standard", "5+3", "rated", "white").await;
    bob.join(&fast).await;

    let html = alice.html("/").await;
    assert!(html.contains("Your 2 games in progress"), "{html}");
    let entries = playing_entries(&html);
    assert_eq!(entries.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), [fast.as_str(), slow.as_str()]);
    let (_, text) = &entries[0];
    assert!(text.contains("You are playing <strong>bob</strong> with white: Standard, 5+3, rated"), "{text}");
    assert!(text.contains(&format!(r#"<a class="button small" href="/{fast}">Continue</a>"#)), "{text}");
    let (_, text) = &entries[1];
    assert!(text.contains("You are playing <strong>Anonymous</strong> with black: Chess Gold, Unlimited"), "{text}");
    assert!(html.contains("Finish your game with a clock before you look for another one"), "{html}");

    // Bob sees his side; the guest sees hers too (by the guest cookie).
    let entries = playing_entries(&bob.html("/").await);
    assert_eq!(entries.len(), 1);
    assert!(entries[0].1.contains("You are playing <strong>alice</strong> with black"), "{}", entries[0].1);
    let html = carol.html("/").await;
    assert_eq!(playing_entries(&html).len(), 1, "{html}");
    assert!(!html.contains("Finish your game with a clock"), "an unlimited game blocks nothing");

    // A finished game leaves the list.
    let mut sock = bob.socket(&fast, None).await;
    sock.until("full").await;
    assert_eq!(sock.command("resign").await["t"], "ack");
    assert_eq!(stored_result(&app.db_pool, &fast).await.0, 31);
    let html = alice.html("/").await;
    let entries = playing_entries(&html);
    assert_eq!(entries.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), [slow.as_str()]);
    assert!(html.contains("Your game in progress<") && !html.contains("Finish your game with a clock"), "{html}");
}

#[tokio::test]
async fn a_game_against_the_computer_is_listed_with_the_bot_name() {
    let app = spawn_app().await;
    let alice = Browser::new(&app.address);
    alice.signup("alice").await;
    let r = alice
        .post_form(
            "/game/computer",
            "/game/computer",
            &[("variant", "standard"), ("time", "unlimited"), ("level", "1"), ("color", "white")],
        )
        .await;
    assert_eq!(r.status().as_u16(), 303, "{}", r.text().await.unwrap());
    let id = r.headers()["location"].to_str().unwrap().trim_start_matches('/').to_string();
    let entries = playing_entries(&alice.html("/").await);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].0, id);
    assert!(entries[0].1.contains("<strong>Chess Gold bot · level 1"), "{}", entries[0].1);
}

#[tokio::test]
async fn lobby_refusals_for_a_running_game_carry_its_link() {
    let app = spawn_app().await;
    let (alice, bob, carol) = (Browser::new(&app.address), Browser::new(&app.address), Browser::new(&app.address));
    alice.signup("alice").await;
    bob.signup("bob").await;
    let game = alice.create("standard", "5+0", "casual", "white").await;
    bob.join(&game).await;
    // Carol's seek, for alice to try to accept.
    let mut lc = carol.ws("/socket/lobby?sri=carolsri01").await;
    lc.until("seeks").await;
    let r = carol.post_json("/api/lobby/seek", &json!({"sri": "carolsri01", "variant": "gold", "time": "3+2"})).await;
    assert_eq!(r.status().as_u16(), 201);
    let seek = r.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    let accept = format!("/api/lobby/seek/{seek}/accept");
    for (path, body) in [
        ("/api/lobby/pool/join", json!({"sri": "alicesri01", "variant": "standard", "time": "3+2"})),
        ("/api/lobby/seek", json!({"sri": "alicesri01", "variant": "standard", "time": "5+3"})),
        (accept.as_str(), json!({"sri": "alicesri01"})),
    ] {
        let r = alice.post_json(path, &body).await;
        assert_eq!(r.status().as_u16(), 409, "{path}");
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["code"], "already_playing", "{path}");
        assert_eq!(
            body["error"], "You are playing a game with a clock: finish it before you look for another one.",
            "{path}"
        );
        assert_eq!(
            (body["game"].as_str(), body["url"].as_str()),
            (Some(game.as_str()), Some(format!("/{game}").as_str()))
        );
    }
    assert!(app.state_pools_empty().await, "nothing joined");
}

#[tokio::test]
async fn joining_a_game_that_is_no_longer_waiting_is_a_409_in_words() {
    let app = spawn_app().await;
    let (one, two, three) = (Browser::new(&app.address), Browser::new(&app.address), Browser::new(&app.address));
    three.signup("latecomer").await;
    let id = one.create("standard", "5+0", "casual", "white").await;
    two.join(&id).await;
    let r = three.post_form(&format!("/{id}"), &format!("/game/{id}/join"), &[]).await;
    assert_eq!(r.status().as_u16(), 409);
    let html = r.text().await.unwrap();
    assert!(html.contains("This game is no longer waiting for an opponent"), "{html}");
    assert!(html.contains(r#"<span class="user-name">latecomer</span>"#), "the page keeps the header");
}
