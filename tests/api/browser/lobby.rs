//! The lobby, challenges and games against the computer in the browser.

use super::*;

/// The lobby on the home page: one browser creates a seek with the form, the other sees it
/// appear without reloading, clicks it, and both land on the same live game; quick pairing of
/// two guests in one pool does the same.
#[tokio::test]
async fn lobby_a_seek_clicked_and_a_pool_pairing_send_both_browsers_to_one_game() {
    let (app, one, _permit) = session().await;
    let two = Browser::start(&app).await;
    for b in [&one, &two] {
        b.goto("/").await;
        b.wait_for("the lobby socket", "document.querySelector('[data-lobby]').dataset.connected === 'true'").await;
    }
    one.click(r#"[data-tab="seeks"]"#).await;
    one.js("const f = document.querySelector('[data-seek-form]'); f.variant.value = 'grunt'; f.time.value = '10+5'; f.color.value = 'white'; return null;").await;
    one.click(r#"[data-seek-form] button[type="submit"]"#).await;
    one.wait_for("the own seek listed", "document.querySelector('tr.own[data-seek]')").await;
    two.click(r#"[data-tab="seeks"]"#).await;
    two.wait_for("the seek arriving live", "document.querySelector('tr[data-seek]:not(.own)')").await;
    two.wait_for("the seek counted", "document.querySelector('[data-seek-count]').textContent === '1'").await;
    two.wait_text("the seek's row", "tr[data-seek]", &["Anonymous", "Grunt", "10+5", "Casual"]).await;
    two.click("tr[data-seek] button").await;
    for (b, who) in [(&one, "the seeker"), (&two, "the accepter")] {
        b.wait_for(
            &format!("{who} on the game page"),
            "document.querySelector('#board-app.cg-live[data-live=\"started\"] .cg-board .piece')",
        )
        .await;
    }
    let url_one = one.js("return location.pathname;").await;
    assert_eq!(url_one, two.js("return location.pathname;").await, "both on one game");
    assert_eq!(one.js("return document.querySelector('.cg-board').dataset.orientation;").await, json!("white"));
    assert_eq!(two.js("return document.querySelector('.cg-board').dataset.orientation;").await, json!("black"));
    // A player in a game with a clock is not paired again: White cancels this one first.
    one.click(r#"[data-live="abort"]"#).await;
    for b in [&one, &two] {
        b.wait_for("the game cancelled", "document.querySelector('#board-app').dataset.live === 'aborted'").await;
    }

    // A pool joined, then another variant chosen: the page leaves that pool on the server.
    one.goto("/").await;
    one.wait_for("the lobby socket", "document.querySelector('[data-lobby]').dataset.connected === 'true'").await;
    one.js("const s = document.querySelector('[data-pool-variant]'); s.value = 'gold'; s.dispatchEvent(new Event('change')); return null;").await;
    one.click(r#"[data-pool="5+3"]"#).await;
    one.wait_for(
        "the pool pressed",
        r#"document.querySelector('[data-pool="5+3"]').getAttribute('aria-pressed') === 'true'"#,
    )
    .await;
    assert!(wait_until(|| async { !app.state_pools_empty().await }).await, "the server has the player in the pool");
    one.js("const s = document.querySelector('[data-pool-variant]'); s.value = 'grunt'; s.dispatchEvent(new Event('change')); return null;").await;
    assert!(wait_until(|| async { app.state_pools_empty().await }).await, "changing the variant left the pool");
    assert_eq!(
        one.js(r#"return document.querySelector('[data-pool="5+3"]').getAttribute('aria-pressed');"#).await,
        json!("false")
    );

    // Quick pairing: both guests click the same pool.
    for b in [&one, &two] {
        b.goto("/").await;
        b.wait_for("the lobby socket", "document.querySelector('[data-lobby]').dataset.connected === 'true'").await;
        b.js("const s = document.querySelector('[data-pool-variant]'); s.value = 'standard'; s.dispatchEvent(new Event('change')); return null;").await;
        b.click(r#"[data-pool="3+0"]"#).await;
    }
    for (b, who) in [(&one, "the first"), (&two, "the second")] {
        b.wait_for(
            &format!("{who} paired"),
            "document.querySelector('#board-app.cg-live[data-live=\"started\"] .cg-board .piece')",
        )
        .await;
    }
    let game = one.js("return location.pathname;").await;
    assert_ne!(game, url_one, "a new game");
    assert_eq!(game, two.js("return location.pathname;").await);
}

/// A challenge from a profile page: the challenged player sees it live in the notification area
/// of the page they are on, accepts it there, and both browsers land on the game.
#[tokio::test]
async fn a_challenge_appears_live_and_accepting_it_sends_both_to_the_game() {
    let (app, alice, _permit) = session().await;
    let bob = Browser::start(&app).await;
    alice.sign_up("alice").await;
    bob.sign_up("bob").await;
    bob.goto("/player").await;
    bob.wait_for("the notification area", "document.getElementById('notifications')").await;

    alice.goto("/@/bob").await;
    alice.wait_for("the challenge form", "document.querySelector('#challenge-box form')").await;
    alice.click("#challenge-box summary").await;
    alice.click("#challenge-box button[type=\"submit\"]").await;
    alice.wait_for("the waiting page", "document.getElementById('challenge-waiting')").await;
    let id = alice.js("return document.getElementById('challenge').dataset.id;").await;
    let id = id.as_str().expect("a challenge id").to_string();

    bob.wait_text("the challenge notification", "#notifications .challenge-note a", &["alice challenges you"]).await;
    bob.click("#notifications .challenge-note form[action$=\"/accept\"] button").await;
    let on_game =
        format!("location.pathname === '/{id}' && document.querySelector('#board-app.cg-live .cg-board .piece')");
    bob.wait_for("Bob on the game", &on_game).await;
    alice.wait_for("Alice sent to the game", &on_game).await;
}

/// A guest opens "Play with the computer" from the home page's lobby, starts a standard game as
/// White against level 1, plays e2e4 with two clicks, and sees the bot's answer on the board.
#[tokio::test]
async fn a_guest_starts_a_bot_game_from_the_home_page_and_sees_the_reply() {
    let (_app, b, _permit) = session().await;
    b.goto("/").await;
    b.wait_for("the home page's lobby", "document.getElementById('play-computer')").await;
    b.click("#play-computer").await;
    b.wait_for("the computer form", "document.getElementById('computer-form')").await;
    b.js("document.getElementById('variant').value = 'standard'; document.getElementById('time').value = 'unlimited'; return true;")
        .await;
    b.click(r#"input[name="level"][value="1"]"#).await;
    b.click(r#"input[name="color"][value="white"]"#).await;
    b.click(r#"#computer-form button[type="submit"]"#).await;
    b.wait_for(
        "the live board",
        "document.querySelector('#board-app.cg-live[data-live=\"started\"] .cg-board .piece')",
    )
    .await;
    let bar = b.js(r#"return document.querySelector('.cg-player[data-color="black"]').textContent;"#).await;
    assert!(bar.as_str().is_some_and(|t| t.contains("level 1")), "the bot's bar: {bar}");
    assert_eq!(b.text(".cg-status").await, "Your turn");
    // The bot may answer before the page has drawn e2e4 alone: wait for both actions.
    b.click_square("e2").await;
    b.click_square("e4").await;
    b.wait_ply("White", 2).await;
    assert!(
        b.js("return !document.querySelector('[data-prompt=\"claim\"]');").await == json!(true),
        "the bot never counts as gone"
    );
    let moves = b.move_list().await;
    assert_eq!(moves.len(), 2, "{moves:?}");
    assert_eq!(moves[0], "e2e4");
    let reply = &moves[1];
    let to = &reply[2..4];
    assert_eq!(b.piece_on(to).await.map(|p| p.starts_with("black")), Some(true), "the bot's {reply} is drawn");
    assert_eq!(b.text(".cg-status").await, "Your turn");
}
