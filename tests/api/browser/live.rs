//! Live games in the browser: two players, spectators, replays.

use super::*;

/// Two browsers (two profiles, two guests) play Chess Gold on one game page: White creates the
/// game with the "play with a friend" form and copies the invite link, Black opens it and joins;
/// a knight bought in White's shop appears on Black's board, Black's king move on White's; the
/// clock of the side to move runs; a chat line arrives as text; a draw offer is declined; Black
/// reloads mid-game and continues; Black resigns (after confirming) and both see the result;
/// a rematch accepted on both sides sends both players to the new game with colours swapped.
#[tokio::test]
async fn live_gold_two_browsers_play_to_a_resignation() {
    let (app, white, _permit) = session().await;
    let black = Browser::start(&app).await;

    white.goto("/game/new?variant=gold").await;
    white.wait_for("the friend form", "document.querySelector('form.new-game')").await;
    assert_eq!(white.js("return document.getElementById('variant').value;").await, json!("gold"));
    white.click(r#"input[name="color"][value="white"]"#).await;
    white.click(r#"form.new-game button[type="submit"]"#).await;
    white.wait_for("the live board", "document.querySelector('#board-app.cg-live .cg-board .piece')").await;
    assert_eq!(white.js("return document.querySelector('#board-app').dataset.live;").await, json!("created"));
    let invite = white.js("return document.getElementById('invite-link').value;").await;
    let invite = invite.as_str().expect("an invite link").to_string();
    let path = invite.strip_prefix(&white.base).expect("the invite link points to this site").to_string();
    let id = path.trim_start_matches('/').to_string();
    assert_eq!(id.len(), 8, "the invite is /{{gameId}}: {invite}");
    white.click(".invite-copy").await;
    white
        .wait_for(
            "the copy button's answer",
            "/Copied|Select/.test(document.querySelector('.invite-copy').textContent)",
        )
        .await;
    assert!(white.text(".cg-status").await.contains("Waiting"), "the status says the game waits");
    assert!(
        white.js("return !!document.querySelector('[data-live=\"abort\"]');").await == json!(true),
        "the creator may cancel"
    );

    black.goto(&path).await;
    black.wait_for("the join button", "document.querySelector('#join-form button')").await;
    black.click("#join-form button").await;
    black
        .wait_for(
            "Black's live board",
            "document.querySelector('#board-app.cg-live[data-live=\"started\"] .cg-board .piece')",
        )
        .await;
    white
        .wait_for(
            "the start on White's page",
            "document.querySelector('#board-app').dataset.live === 'started' && !document.getElementById('invite')",
        )
        .await;
    assert_eq!(black.js("return document.querySelector('.cg-board').dataset.orientation;").await, json!("black"));
    assert_eq!(white.js("return document.querySelector('.cg-board').dataset.orientation;").await, json!("white"));
    assert_eq!(white.text(".cg-status").await, "Your turn");
    assert_eq!(black.text(".cg-status").await, "Your opponent\u{2019}s turn");
    white
        .wait_for(
            "Black's connection dot",
            r#"document.querySelector('.cg-player[data-color="black"]').dataset.connected === 'true'"#,
        )
        .await;
    assert!(black.marked("movable").await.is_empty(), "Black cannot act on White's turn");
    assert_eq!(white.gold("white").await, "4");

    // White buys a knight; it appears on Black's board with the gold counters.
    white.click(r#".shop-item[data-piece="N"]"#).await;
    white.click_square("c3").await;
    white.wait_ply("White", 1).await;
    black.wait_ply("Black", 1).await;
    assert_eq!(black.piece_on("c3").await.as_deref(), Some("white knight"));
    assert_eq!(black.gold("white").await, "1");
    assert_eq!(black.move_list().await, ["N@c3"]);
    assert_eq!(black.marked("last").await, ["c3"]);
    assert_eq!(black.text(".cg-status").await, "Your turn");

    black.click_move("e8", "d7").await;
    white.wait_ply("White", 2).await;
    assert_eq!(white.piece_on("d7").await.as_deref(), Some("black king"));
    assert_eq!(white.move_list().await, ["N@c3", "e8d7"]);

    // Both sides have moved: White's clock runs on both pages, Black's stands.
    for (b, who) in [(&white, "White"), (&black, "Black")] {
        b.wait_for(
            &format!("the running clock on {who}'s page"),
            r#"document.querySelector('.cg-clock[data-clock="white"]').classList.contains('running')"#,
        )
        .await;
    }
    let before = black.clock("white").await;
    let black_before = black.clock("black").await;
    assert!(before.starts_with("5:") || before.starts_with("4:"), "a 5+3 clock: {before}");
    black
        .wait_for(
            "White's clock to tick on Black's page",
            &format!(r#"document.querySelector('.cg-clock[data-clock="white"]').textContent !== {}"#, json!(before)),
        )
        .await;
    assert_eq!(black.clock("black").await, black_before, "Black's clock stands");

    // Chat: the line arrives as text, never as HTML.
    let line = "good luck <b>friend</b>";
    let input = white.find(".cg-chat input").await;
    input.send_keys(&format!("{line}\u{E007}")).await.expect("typed");
    black
        .wait_for(
            "the chat line",
            &format!(
                "[...document.querySelectorAll('.cg-chat-line .text')].some(t => t.textContent === {})",
                json!(line)
            ),
        )
        .await;
    assert_eq!(black.js("return document.querySelectorAll('.cg-chat-line b:not(.author)').length;").await, json!(0));
    // The box empties once the server has the line (its acknowledgement may come after Black
    // has the line).
    white.wait_for("White's chat box to empty", "document.querySelector('.cg-chat input').value === ''").await;

    // A draw offer, declined.
    white.click(r#".cg-live-actions [data-live="draw_yes"]"#).await;
    white.wait_for("the sent offer", r#"document.querySelector('[data-prompt="draw-sent"]')"#).await;
    black.wait_for("the draw offer", r#"document.querySelector('[data-prompt="draw-offer"]')"#).await;
    black.click(r#"[data-prompt="draw-offer"] [data-live="draw_no"]"#).await;
    white.wait_for("the offer gone", r#"!document.querySelector('[data-prompt="draw-sent"]')"#).await;
    black.wait_for("the prompt gone", r#"!document.querySelector('[data-prompt="draw-offer"]')"#).await;

    // Black reloads mid-game: the same game comes back, and it goes on live.
    black.client.refresh().await.expect("reload");
    black.wait_ply("Black after the reload", 2).await;
    assert_eq!(black.move_list().await, ["N@c3", "e8d7"]);
    assert_eq!(black.piece_on("d7").await.as_deref(), Some("black king"));
    black
        .wait_for(
            "the chat history",
            &format!(
                "[...document.querySelectorAll('.cg-chat-line .text')].some(t => t.textContent === {})",
                json!(line)
            ),
        )
        .await;
    white.click_move("e1", "e2").await;
    black.wait_ply("Black", 3).await;
    assert_eq!(black.piece_on("e2").await.as_deref(), Some("white king"));
    assert_eq!(black.text(".cg-status").await, "Your turn");

    // Black resigns, after confirming.
    black.click(r#".cg-live-actions [data-live="resign"]"#).await;
    black.wait_for("the confirmation", r#"document.querySelector('[data-prompt="resign-confirm"]')"#).await;
    assert_eq!(
        black.js("return document.querySelector('#board-app').dataset.live;").await,
        json!("started"),
        "nothing happens before confirming"
    );
    black.click(r#"[data-live="resign-yes"]"#).await;
    assert_live_banner(&black, "Black", "Black resigned", "White wins", &[]).await;
    assert_live_banner(&white, "White", "Black resigned", "White wins", &["1\u{2013}0"]).await;
    white.wait_text("White's result in the side panel", ".cg-result", &["Black resigned"]).await;
    assert!(
        white.js("return document.querySelectorAll('.cg-clock.running').length;").await == json!(0),
        "the clocks stop"
    );
    assert!(white.marked("movable").await.is_empty(), "nothing more can be played");
    let api = app.client.get(app.url(&format!("/api/game/{id}"))).send().await.expect("GET sent");
    let record: Value = api.json().await.expect("the game record");
    assert_eq!(
        (&record["status"]["id"], &record["winner"], &record["reason"]),
        (&json!(31), &json!("white"), &json!("resign"))
    );

    // A rematch: offered by White in the banner (once it has faded in), accepted by Black; both
    // go to the new game.
    white.wait_for("the banner fully shown", "document.querySelector('.cg-banner').getAnimations().length === 0").await;
    white.click(r#".cg-banner-actions [data-live="rematch_yes"]"#).await;
    black.wait_for("the rematch offer", r#"document.querySelector('[data-prompt="rematch-offer"]')"#).await;
    black.click(r#"[data-prompt="rematch-offer"] [data-live="rematch_yes"]"#).await;
    for (b, who, color) in [(&white, "White", "black"), (&black, "Black", "white")] {
        b.wait_for(
            &format!("{who} on the rematch"),
            &format!("!location.pathname.endsWith('{id}') && document.querySelector('#board-app.cg-live[data-live=\"started\"]') && window.chessgold && window.chessgold.you === '{color}'"),
        )
        .await;
    }
}

/// A spectator watches two players (socket clients) on the game page: it offers them nothing to
/// play, the players' moves appear live, and after its socket drops it reconnects with the
/// version it holds and gets the move it missed.
#[tokio::test]
async fn live_spectator_sees_moves_live_and_catches_up_after_a_reconnect() {
    let (app, viewer, _permit) = session().await;
    let (id, mut white, mut black) = two_socket_players(&app).await;
    viewer.open(&format!("/{id}")).await;
    viewer.wait_for("the spectator's page", "document.querySelector('#board-app.cg-live.spectator')").await;
    viewer.wait_for("the socket", "document.querySelector('#board-app').dataset.connection === 'open'").await;
    assert!(viewer.text(".cg-chat h2").await.to_lowercase().contains("spectators"));
    assert_eq!(viewer.js("return getComputedStyle(document.querySelector('.cg-typed')).display;").await, json!("none"));
    assert_eq!(viewer.js("return document.querySelectorAll('.cg-live-actions [data-live]').length;").await, json!(0));
    assert!(viewer.text(".cg-status").await.contains("White to move"));

    let answer = white.act("N@c3", 0).await;
    assert_eq!(answer["t"], "ack", "{answer}");
    viewer.wait_ply("the spectator", 1).await;
    assert_eq!(viewer.piece_on("c3").await.as_deref(), Some("white knight"));
    assert_eq!(viewer.move_list().await, ["N@c3"]);
    assert!(viewer.marked("movable").await.is_empty(), "a spectator cannot act");

    // The socket drops; Black moves meanwhile; the page reconnects with its version.
    let v = viewer.js("return Number(document.querySelector('#board-app').dataset.v);").await;
    viewer.js("const s = window.chessgold.socket; s.stopped = true; s.ws.close();").await;
    viewer.wait_for("the closed socket", "document.querySelector('#board-app').dataset.connection === 'closed'").await;
    let answer = black.act("e8d7", 1).await;
    assert_eq!(answer["t"], "ack", "{answer}");
    assert_eq!(viewer.ply().await, 1, "the page has not heard of the move");
    viewer.js("const s = window.chessgold.socket; s.stopped = false; s.connect();").await;
    viewer.wait_ply("the spectator after reconnecting", 2).await;
    assert_eq!(viewer.piece_on("d7").await.as_deref(), Some("black king"));
    assert_eq!(viewer.js("return window.chessgold.socket.connections;").await, json!(2));
    let received = viewer.js("return window.chessgold.received;").await;
    assert_eq!(received, json!({"move": 2}), "two moves, and no full resync: the page asked from its version");
    let v_after = viewer.js("return Number(document.querySelector('#board-app').dataset.v);").await;
    assert!(v_after.as_i64() > v.as_i64(), "the version moved on: {v} -> {v_after}");

    // The next move comes as a patch of the state the page holds: the page applies it and holds
    // exactly the state the server sent (the socket client applied the same patch with an
    // independent implementation), with no resync.
    let mut watcher = crate::round::Browser::new(&app.address).socket(&id, None).await;
    watcher.until("full").await;
    let answer = white.act("e1e2", 2).await;
    assert_eq!(answer["t"], "ack", "{answer}");
    let sent = watcher.move_event(3).await;
    assert!(sent["d"]["patch"].is_array(), "sent as a patch: {sent}");
    viewer.wait_ply("the spectator after a patched move", 3).await;
    assert_eq!(viewer.piece_on("e2").await.as_deref(), Some("white king"));
    assert_eq!(viewer.js("return window.chessgold.game.state;").await, sent["d"]["state"]);
    assert_eq!(viewer.js("return window.chessgold.received;").await, json!({"move": 3}), "no resync");
}

/// A finished game's page replays it: the replay buttons, the arrow keys and a click in the move
/// list step through the positions, each drawn from the engine's state at that point.
#[tokio::test]
async fn a_finished_game_replays_with_buttons_keys_and_the_move_list() {
    let (app, viewer, _permit) = session().await;
    let (id, _w, _b, mut white, mut black) = crate::round::two_guests(&app.address, "standard", "5+0").await;
    crate::round::play_line(&mut white, &mut black, 0, &["f2f3", "e7e5", "g2g4", "d8h4"]).await;
    black.until("end").await;

    viewer.open(&format!("/{id}")).await;
    viewer.wait_for("the finished game", "document.querySelector('#board-app').dataset.shown === '4'").await;
    let fen = || viewer.js("return window.chessgold.view.state.fen;");
    let shown = |n: u32| format!("document.querySelector('#board-app').dataset.shown === '{n}'");
    assert_eq!(viewer.js("return document.querySelector('.cg-replay').hidden;").await, json!(false));
    assert_eq!(viewer.js("return document.querySelector('[data-replay=\"next\"]').disabled;").await, json!(true));
    let end = fen().await;
    assert_eq!(viewer.piece_on("h4").await.as_deref(), Some("black queen"));

    viewer.click("[data-replay=\"first\"]").await;
    viewer.wait_for("the start position", &shown(0)).await;
    assert_eq!(fen().await, json!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"));
    assert_eq!(viewer.js("return document.querySelector('[data-replay=\"prev\"]').disabled;").await, json!(true));

    viewer.click("[data-replay=\"next\"]").await;
    viewer.wait_for("the first move", &shown(1)).await;
    assert_eq!(fen().await, json!("rnbqkbnr/pppppppp/8/8/8/5P2/PPPPP1PP/RNBQKBNR b KQkq - 0 1"));
    assert_eq!(viewer.piece_on("f3").await.as_deref(), Some("white pawn"));
    assert!(viewer.text(".cg-status").await.contains("Viewing move 1 of 4"));

    viewer.press(Key::Right).await;
    viewer.wait_for("the second move", &shown(2)).await;
    assert_eq!(viewer.piece_on("e5").await.as_deref(), Some("black pawn"));
    viewer.press(Key::Left).await;
    viewer.wait_for("back to the first move", &shown(1)).await;
    assert_eq!(viewer.piece_on("e5").await, None);

    viewer.click(".cg-moves .move[data-ply=\"3\"]").await;
    viewer.wait_for("the clicked move", &shown(3)).await;
    assert_eq!(viewer.piece_on("g4").await.as_deref(), Some("white pawn"));
    assert_eq!(viewer.piece_on("d8").await.as_deref(), Some("black queen"));

    viewer.press(Key::End).await;
    viewer.wait_for("the last position", &shown(4)).await;
    assert_eq!(fen().await, end);
    viewer.press(Key::Home).await;
    viewer.wait_for("the start again", &shown(0)).await;
    viewer.click("[data-replay=\"last\"]").await;
    viewer.wait_for("the last position again", &shown(4)).await;
    assert_eq!(viewer.move_list().await, ["f2f3", "e7e5", "g2g4", "d8h4"]);
}

/// The page counts down to a claim with the server's claim delay (`claim_after`), not a number
/// of its own: with a 12 s delay, the countdown shown once the opponent is gone (from 5 s) says at
/// most 7 s (a page counting to 30 s would say 18 s or more), and the claim then wins the game.
/// The countdown shows for 7 s, long enough to be read on a busy machine.
#[tokio::test]
async fn the_claim_countdown_follows_the_servers_delay() {
    let permit = ONE_BROWSER.acquire().await.expect("the browser semaphore is never closed");
    let app = crate::helpers::spawn_app_with(|s| s.game.claim_after_secs = 12).await;
    let white = Browser::start(&app).await;
    let mut black = SocketPlayer::new(&app);

    white.goto("/game/new?variant=standard").await;
    white.wait_for("the friend form", "document.querySelector('form.new-game')").await;
    white.click(r#"input[name="color"][value="white"]"#).await;
    white.click(r#"form.new-game button[type="submit"]"#).await;
    white.wait_for("the invite", "document.getElementById('invite-link')").await;
    let id = white.js("return location.pathname.slice(1);").await.as_str().expect("a game id").to_string();
    black.post_form(&format!("/{id}"), &format!("/game/{id}/join"), &[]).await;
    black.connect(&id).await;
    white.wait_ply("White", 0).await;
    white.wait_for("the start", "document.querySelector('#board-app').dataset.live === 'started'").await;
    white.click_move("e2", "e4").await;
    assert_eq!(black.act("e7e5", 1).await["t"], "ack");
    white.wait_ply("White", 2).await;

    // Black's socket goes away.
    black.ws = None;
    let text = white.wait_text("the countdown", r#"[data-prompt="gone"]"#, &["claim victory in"]).await;
    let seconds: i64 = text
        .split("claim victory in ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a number of seconds in {text:?}"));
    assert!((0..=7).contains(&seconds), "12 s delay, shown from 5 s gone: {text}");
    white.wait_for("the claim button", r#"document.querySelector('[data-live="claim_victory"]')"#).await;
    white.click(r#"[data-live="claim_victory"]"#).await;
    white.wait_text("the result", ".cg-result", &["Black left the game", "White wins"]).await;
    let stored = chessgold::db::games::find(&app.db_pool, &id).await.expect("a query").expect("the game");
    assert_eq!(stored.winner.as_deref(), Some("white"));
    drop(permit);
}

/// A BOT account's title shows before its name on the game page, where the board's player bars
/// are drawn by the page's script.
#[tokio::test]
async fn a_bot_accounts_title_shows_before_its_name_on_the_game_page() {
    let (app, viewer, _permit) = session().await;
    for name in ["alice", "robo"] {
        crate::round::Browser::new(&app.address).signup(name).await;
    }
    let id_of = |name: &'static str| {
        let pool = app.db_pool.clone();
        async move { chessgold::db::users::find_by_name(&pool, name).await.unwrap().unwrap().id }
    };
    let (alice, robo) = (id_of("alice").await, id_of("robo").await);
    chessgold::db::users::upgrade_to_bot(&app.db_pool, robo).await.unwrap();
    let request = chessgold::game::CreateGame {
        variant: "standard".into(),
        clock: None,
        rated: false,
        source: chessgold::game::Source::Friend,
        initial_fen: None,
        creator: chessgold::game::PlayerRef::User(alice),
        creator_color: chessgold_engine::Color::White,
        opponent: Some(chessgold::game::PlayerRef::User(robo)),
    };
    let settings = chessgold::settings::Settings::defaults().unwrap().game;
    let id = chessgold::game::create_game(&app.db_pool, request, &settings).await.unwrap();
    viewer.open(&format!("/{id}")).await;
    viewer
        .wait_for(
            "the BOT's title in its bar",
            "[...document.querySelectorAll('.name')].some(n => n.querySelector('.title')?.textContent === 'BOT' \
             && n.querySelector('a')?.textContent === 'robo')",
        )
        .await;
    let titles = viewer.js("return [...document.querySelectorAll('.name .title')].length;").await;
    assert_eq!(titles, json!(1), "alice has no title");
}
