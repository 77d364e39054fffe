//! Pages the server says things on: the home page of a player in a game, and the lobby's refusal
//! with the way back to that game; and the account's event stream each signed-in page reads.

use super::*;

/// A guest in a game with a clock opens the home page: it says so and links to the game; a
/// click on a quick-pairing pool is refused in words, with a link that leads back to the game.
#[tokio::test]
async fn home_a_player_in_a_clocked_game_is_shown_the_way_back_to_it() {
    let (app, browser, _permit) = session().await;
    browser.goto("/game/new").await;
    browser.wait_for("the new-game form", "document.querySelector('form.new-game')").await;
    browser
        .js("const f = document.querySelector('form.new-game'); f.variant.value = 'standard'; f.time.value = '5+0'; \
             f.querySelector('[name=color][value=white]').checked = true; f.submit(); return null;")
        .await;
    browser.wait_for("the game page", "document.querySelector('#board-app')").await;
    let path = browser.js("return location.pathname;").await;
    let path = path.as_str().expect("a path").to_string();
    let opponent = SocketPlayer::new(&app);
    opponent.post_form(&path, &format!("/game{path}/join"), &[]).await;

    browser.goto("/").await;
    browser.wait_for("the playing notice", "document.getElementById('playing')").await;
    let notice = browser.text("#playing").await;
    assert!(notice.contains("You are playing Anonymous with white: Standard, 5+0"), "{notice}");
    assert_eq!(
        browser.js("return document.querySelector('#playing .playing-game a').getAttribute('href');").await,
        json!(path)
    );
    browser.wait_for("the lobby socket", "document.querySelector('[data-lobby]').dataset.connected === 'true'").await;
    browser.click(r#"[data-pool="3+2"]"#).await;
    browser
        .wait_for("the refusal with its link", "document.querySelector('[data-lobby-status] a.lobby-continue')")
        .await;
    let status = browser.text("[data-lobby-status]").await;
    assert!(status.starts_with("You are playing a game with a clock: finish it"), "{status}");
    assert_eq!(
        browser.js(r#"return document.querySelector('[data-pool="3+2"]').getAttribute('aria-pressed');"#).await,
        json!("false")
    );
    browser.click("[data-lobby-status] a.lobby-continue").await;
    browser
        .wait_for(
            "back on the game",
            &format!("location.pathname === '{path}' && document.querySelector('#board-app')"),
        )
        .await;
}

/// Each page of a signed-in player reads the account's event stream, and ends it when the player
/// leaves the page. A stream left open held one of the browser's six connections to the site
/// until the server dropped it, about a minute later: after six pages the next one waited for
/// a connection that long.
#[tokio::test]
async fn a_signed_in_page_ends_its_event_stream_when_the_player_leaves_it() {
    let (app, browser, _permit) = session().await;
    browser.sign_up("walker").await;
    let pages =
        ["/player", "/login", "/variant/gold", "/game/new", "/game/computer", "/@/walker", "/account/tokens", "/"];
    for path in pages {
        browser.goto(path).await;
        browser.wait_for(&format!("the header on {path}"), "document.querySelector('.user-name')").await;
    }
    // The shown page's stream, and at most the one of the page just left: the server learns that
    // a stream was closed when it next writes to it (a keep-alive line every few seconds), and a
    // busy machine may take longer than the wait. Without the page ending its stream, four or
    // more stayed open.
    let streams = || async { app.state.users.listeners() };
    let few = wait_until(|| async { (1..=2).contains(&streams().await) }).await;
    assert!(few, "{} event streams open after {} pages, one is still shown", streams().await, pages.len() + 1);
}
