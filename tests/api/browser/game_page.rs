//! The game page as a lichess player uses it: games against the computer, answers to offers in
//! words, the result of a finished game, replays with their clocks, loot-box equips and the shop's
//! owned pieces, and local games with their own seeds.

use super::*;
use crate::round::{Sock, play_line, two_guests};

/// Creates a game with the "play with a friend" form in the browser, as `color`; returns its id.
async fn create_with_the_form(b: &Browser, variant: &str, time: &str, color: &str) -> String {
    b.goto(&format!("/game/new?variant={variant}")).await;
    b.wait_for("the friend form", "document.querySelector('form.new-game')").await;
    b.js(&format!("document.getElementById('time').value = {}; return true;", json!(time))).await;
    b.click(&format!(r#"input[name="color"][value="{color}"]"#)).await;
    b.click(r#"form.new-game button[type="submit"]"#).await;
    b.wait_for("the live board", "document.querySelector('#board-app.cg-live .cg-board .piece')").await;
    let path = b.js("return location.pathname;").await;
    path.as_str().expect("a path").trim_start_matches('/').to_string()
}

/// A guest without a browser joins the waiting game `id` and opens its socket.
async fn join_by_socket(app: &TestApp, id: &str) -> (crate::round::Browser, Sock) {
    let player = crate::round::Browser::new(&app.address);
    player.join(id).await;
    let mut sock = player.socket(id, None).await;
    sock.until("full").await;
    (player, sock)
}

/// `n` legal actions of `variant` from its start that do not end the game, picked from the
/// engine's legal lists by a fixed rule (the same line every run).
async fn a_long_line(app: &TestApp, variant: &str, n: usize) -> Vec<String> {
    let mut line: Vec<String> = Vec::new();
    while line.len() < n {
        let state: Value =
            app.post_local(&json!({"variant": variant, "actions": line})).await.json().await.expect("a state");
        let legal: Vec<String> = serde_json::from_value(state["legal"].clone()).expect("legal actions");
        assert!(!legal.is_empty(), "the game goes on at ply {}", line.len());
        let mut picked = None;
        for j in 0..legal.len() {
            let candidate = legal[(line.len() * 7 + 3 + j) % legal.len()].clone();
            let mut next = line.clone();
            next.push(candidate.clone());
            let after: Value =
                app.post_local(&json!({"variant": variant, "actions": next})).await.json().await.expect("a state");
            if after["status"] == "ongoing" {
                picked = Some(candidate);
                break;
            }
        }
        line.push(picked.expect("an action that keeps the game going"));
    }
    line
}

/// A clock reading as the page writes it (`5:03`), for readings of 10 s to an hour.
fn clock_text(cs: i64) -> String {
    assert!((1000..360_000).contains(&cs), "a reading this helper writes: {cs}");
    let secs = cs / 100;
    format!("{}:{:02}", secs / 60, secs % 60)
}

/// The page's clock texts, White's and Black's.
const CLOCK_TEXTS: &str =
    r#"return ['white', 'black'].map(c => document.querySelector(`.cg-clock[data-clock="${c}"]`).textContent);"#;

/// A game against the computer: no first move is due (the note never threatens an abort, the
/// Abort button is there); a takeback is granted by the bot (the human's move and the bot's reply
/// go, and the page says so); a draw offer is declined, in words.
#[tokio::test]
async fn the_computer_waits_for_the_first_move_grants_a_takeback_and_declines_a_draw_in_words() {
    let (_app, b, _permit) = session().await;
    b.goto("/game/computer").await;
    b.wait_for("the computer form", "document.getElementById('computer-form')").await;
    b.js("document.getElementById('variant').value = 'standard'; document.getElementById('time').value = '5+3'; return true;")
        .await;
    b.click(r#"input[name="level"][value="1"]"#).await;
    b.click(r#"input[name="color"][value="white"]"#).await;
    b.click(r#"#computer-form button[type="submit"]"#).await;
    b.wait_for(
        "the live board",
        "document.querySelector('#board-app.cg-live[data-live=\"started\"] .cg-board .piece')",
    )
    .await;
    let note = b.wait_text("the first-move note", ".cg-live-note", &["take your time"]).await;
    assert!(!note.contains("aborted"), "no abort is threatened: {note}");
    assert_eq!(
        b.js("return window.chessgold.game.clocks.first_move;").await,
        json!({"color": "white", "cs": null}),
        "no first move is due"
    );
    assert!(b.js(r#"return !!document.querySelector('.cg-live-actions [data-live="abort"]');"#).await == json!(true));

    // e2e4, the bot's reply, d2d4, the bot's reply.
    b.click_square("e2").await;
    b.click_square("e4").await;
    b.wait_ply("White", 2).await;
    let reply = b.move_list().await[1].clone();
    b.type_action("d2d4").await;
    b.wait_ply("White", 4).await;

    // A takeback: the bot grants it; d2d4 and its reply go.
    b.click(r#".cg-live-actions [data-live="takeback_yes"]"#).await;
    b.wait_text("the takeback told", ".cg-live-notice", &["takeback request was accepted"]).await;
    b.wait_ply("White after the takeback", 2).await;
    assert_eq!(b.move_list().await, ["e2e4".to_string(), reply]);
    assert_eq!(b.text(".cg-status").await, "Your turn");

    // A draw offer: declined, and the page says so.
    b.click(r#".cg-live-actions [data-live="draw_yes"]"#).await;
    b.wait_text("the declined draw told", ".cg-live-notice", &["The computer declined your draw offer"]).await;
    b.wait_for("no draw offer standing", r#"!document.querySelector('[data-prompt="draw-sent"]')"#).await;
    assert_eq!(b.js("return document.querySelector('#board-app').dataset.live;").await, json!("started"));
}

/// Offers between two people: the one who made an offer is told in words when it is declined, and
/// when the opponent plays on instead of answering.
#[tokio::test]
async fn a_declined_or_unanswered_offer_is_told_to_the_one_who_made_it() {
    let (app, b, _permit) = session().await;
    let id = create_with_the_form(&b, "standard", "unlimited", "white").await;
    let (_black, mut bs) = join_by_socket(&app, &id).await;
    b.wait_for("the start", "document.querySelector('#board-app').dataset.live === 'started'").await;
    b.click_move("e2", "e4").await;
    assert_eq!(bs.act("e7e5", 1).await["t"], "ack");
    b.wait_ply("White", 2).await;

    b.click(r#".cg-live-actions [data-live="draw_yes"]"#).await;
    bs.until_match(|m| m["t"] == "offers" && m["d"]["draw"] == "white").await;
    assert_eq!(bs.command("draw_no").await["t"], "ack");
    b.wait_text("the declined draw told", ".cg-live-notice", &["Your opponent declined your draw offer."]).await;
    b.wait_text("the same in the chat", ".cg-chat", &["Your opponent declined your draw offer."]).await;

    b.click(r#".cg-live-actions [data-live="takeback_yes"]"#).await;
    bs.until_match(|m| m["t"] == "offers" && m["d"]["takeback"] == "white").await;
    assert_eq!(bs.command("takeback_no").await["t"], "ack");
    b.wait_text("the declined takeback told", ".cg-live-notice", &["Your opponent declined your takeback request."])
        .await;
    assert_eq!(b.ply().await, 2, "nothing was taken back");

    // White offers a draw and moves; Black plays on instead of answering.
    b.click(r#".cg-live-actions [data-live="draw_yes"]"#).await;
    bs.until_match(|m| m["t"] == "offers" && m["d"]["draw"] == "white").await;
    b.click_move("g1", "f3").await;
    b.wait_for("White's move clears the old notice", "document.querySelector('.cg-live-notice').textContent === ''")
        .await;
    assert_eq!(bs.act("b8c6", 3).await["t"], "ack");
    b.wait_text("the lapsed offer told", ".cg-live-notice", &["Your opponent played on: your draw offer lapsed."])
        .await;
    b.wait_for("the offer gone", r#"!document.querySelector('[data-prompt="draw-sent"]')"#).await;
}

/// A finished game: its result is in the move list and the side panel; the dialog over the board
/// opens once, for the player who saw the game end, and never for a page opened later (the
/// player's reload, a spectator).
#[tokio::test]
async fn a_finished_game_shows_its_result_in_the_move_list_and_the_panel_and_a_dialog_only_at_the_end() {
    let (app, b, _permit) = session().await;
    let id = create_with_the_form(&b, "standard", "5+0", "white").await;
    let (_black, mut bs) = join_by_socket(&app, &id).await;
    b.wait_for("the start", "document.querySelector('#board-app').dataset.live === 'started'").await;
    b.click_move("f2", "f3").await;
    assert_eq!(bs.act("e7e5", 1).await["t"], "ack");
    b.wait_ply("White", 2).await;
    b.click_move("g2", "g4").await;
    assert_eq!(bs.act("d8h4", 3).await["t"], "ack");
    assert_live_banner(&b, "White", "Checkmate", "Black wins", &["0\u{2013}1"]).await;

    // Where the result shows: the move list's end and the side panel, and nowhere else.
    let places = r#"const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        const places = new Set();
        for (let n = walk.nextNode(); n; n = walk.nextNode()) {
          const e = n.parentElement;
          if (!n.textContent.includes('Checkmate') || e.closest('[hidden], script, noscript')) continue;
          const box = e.closest('.cg-move-result, .cg-result, .cg-banner, #result');
          places.add(box ? box.id || box.classList[0] : e.tagName);
        }
        return [...places].sort();"#;
    for (who, reopen) in [("the player after a reload", false), ("a spectator", true)] {
        if reopen {
            b.client.delete_all_cookies().await.expect("cookies deleted");
            b.goto(&format!("/{id}")).await;
            b.wait_for("the spectator's page", "document.querySelector('#board-app.cg-live.spectator')").await;
        } else {
            b.client.refresh().await.expect("reload");
        }
        b.wait_text(
            &format!("the move list's result for {who}"),
            ".cg-move-result",
            &["0\u{2013}1", "Checkmate", "Black wins"],
        )
        .await;
        assert_eq!(
            b.js("return document.querySelector('.cg-banner').hidden;").await,
            json!(true),
            "no dialog for {who}"
        );
        assert_eq!(b.js(places).await, json!(["cg-move-result", "cg-result"]), "the result's places for {who}");
        assert!(b.text(".cg-result").await.contains("Black wins"));
    }
}

/// A spectator watches the end (no dialog for them) and the rematch start; once that rematch is
/// aborted, a spectator opening the old game is told so, not that the players started one.
#[tokio::test]
async fn a_spectator_gets_no_dialog_and_is_told_that_the_rematch_was_aborted() {
    let (app, viewer, _permit) = session().await;
    let (id, w, _b, mut ws, mut bs) = two_guests(&app.address, "standard", "5+0").await;
    viewer.open(&format!("/{id}")).await;
    viewer.wait_for("the socket", "document.querySelector('#board-app').dataset.connection === 'open'").await;
    play_line(&mut ws, &mut bs, 0, &["e2e4", "e7e5"]).await;
    assert_eq!(ws.command("resign").await["t"], "ack");
    viewer.wait_text("the result", ".cg-move-result", &["White resigned", "Black wins"]).await;
    assert_eq!(viewer.js("return document.querySelector('.cg-banner').hidden;").await, json!(true));

    assert_eq!(ws.command("rematch_yes").await["t"], "ack");
    assert_eq!(bs.command("rematch_yes").await["t"], "ack");
    let rematch = ws.until("rematch").await;
    let next = rematch["d"]["id"].as_str().expect("the rematch's id").to_string();
    viewer.wait_text("the rematch told", r#"[data-prompt="rematch-ready"]"#, &["The players started a rematch."]).await;

    // The rematch is aborted before anyone moves.
    let mut again = w.socket(&next, None).await;
    again.until("full").await;
    assert_eq!(again.command("abort").await["t"], "ack");
    again.until("end").await;
    viewer.open(&format!("/{id}")).await;
    viewer.wait_text("the aborted rematch told", r#"[data-prompt="rematch-aborted"]"#, &["rematch was aborted"]).await;
    assert_eq!(viewer.js(r#"return !!document.querySelector('[data-prompt="rematch-ready"]');"#).await, json!(false));
}

/// The replay of a long finished game: the move list keeps the viewed move in view and marked,
/// the clocks show their times at the viewed position (from the record), and the shop invites no
/// purchase.
#[tokio::test]
async fn a_replay_follows_the_viewed_move_with_its_clocks_and_the_shop_invites_nothing() {
    let (app, viewer, _permit) = session().await;
    let line = a_long_line(&app, "gold", 60).await;
    let line: Vec<&str> = line.iter().map(String::as_str).collect();
    let (id, _w, _b, mut ws, mut bs) = two_guests(&app.address, "gold", "5+3").await;
    play_line(&mut ws, &mut bs, 0, &line).await;
    assert_eq!(ws.command("resign").await["t"], "ack");
    let end = ws.until("end").await;
    let record: Value =
        app.client.get(app.url(&format!("/api/game/{id}"))).send().await.expect("GET sent").json().await.expect("JSON");
    let after = |ply: usize| -> [String; 2] {
        let c = &record["actions"][ply - 1]["clocks"];
        [clock_text(c["white"].as_i64().expect("a clock")), clock_text(c["black"].as_i64().expect("a clock"))]
    };

    viewer.open(&format!("/{id}")).await;
    viewer.wait_for("the finished game", "document.querySelector('#board-app').dataset.shown === '60'").await;
    let final_clocks = [
        clock_text(end["d"]["clocks"]["white"].as_i64().expect("a clock")),
        clock_text(end["d"]["clocks"]["black"].as_i64().expect("a clock")),
    ];
    assert_eq!(viewer.js(CLOCK_TEXTS).await, json!(final_clocks));

    // The shop of a finished game: no buyer, no invitation, nothing to click.
    let shop = viewer
        .js(r#"const s = document.querySelector('.cg-shop');
               return {title: s.querySelector('.cg-shop-title').textContent, note: s.querySelector('.cg-shop-note').textContent,
                       inactive: s.classList.contains('inactive'),
                       enabled: [...s.querySelectorAll('.shop-item')].filter(b => !b.disabled).length};"#)
        .await;
    assert_eq!(shop["title"], "Shop", "{shop}");
    assert_eq!((&shop["inactive"], &shop["enabled"]), (&json!(true), &json!(0)), "{shop}");
    assert!(!shop["note"].as_str().unwrap_or_default().contains("Click"), "{shop}");

    // The list scrolls: the first moves are out of view at the end.
    let overflow =
        viewer.js("const w = document.querySelector('.cg-moves-wrap'); return w.scrollHeight - w.clientHeight;").await;
    assert!(overflow.as_f64().unwrap_or(0.0) > 40.0, "the move list needs to scroll: {overflow}");
    let shown_in_view = |ply: usize| {
        format!(
            r#"(() => {{ const app = document.querySelector('#board-app'); if (app.dataset.shown !== '{ply}') return false;
                const w = document.querySelector('.cg-moves-wrap'); const c = w.querySelector('.move.current');
                if (!c || !c.querySelector('[data-ply="{ply}"]')) return false;
                const a = w.getBoundingClientRect(), r = c.getBoundingClientRect();
                return r.top >= a.top - 1 && r.bottom <= a.bottom + 1; }})()"#
        )
    };
    let clocks_are = |c: &[String; 2]| format!("(() => {{ {} }})().join(' ') === {}", CLOCK_TEXTS, json!(c.join(" ")));

    viewer.click(r#"[data-replay="first"]"#).await;
    viewer.wait_for("the start position", "document.querySelector('#board-app').dataset.shown === '0'").await;
    viewer.wait_for("the starting clocks", &clocks_are(&[clock_text(30_000), clock_text(30_000)])).await;
    viewer.click(r#"[data-replay="next"]"#).await;
    viewer.wait_for("the first move marked and in view", &shown_in_view(1)).await;
    viewer.wait_for("the clocks after the first move", &clocks_are(&after(1))).await;

    viewer.click(r#".cg-moves .move[data-ply="31"]"#).await;
    viewer.wait_for("move 31 marked and in view", &shown_in_view(31)).await;
    viewer.wait_for("the clocks after move 31", &clocks_are(&after(31))).await;
    assert_ne!(after(31), final_clocks, "the clocks moved on after move 31");
    viewer.press(Key::Left).await;
    viewer.wait_for("move 30 marked and in view", &shown_in_view(30)).await;
    viewer.wait_for("the clocks after move 30", &clocks_are(&after(30))).await;

    viewer.press(Key::End).await;
    viewer.wait_for("the last position", "document.querySelector('#board-app').dataset.shown === '60'").await;
    viewer.wait_for("the final clocks again", &clocks_are(&final_clocks)).await;
}

/// Loot boxes on the pass-and-play board: an item shows its equip cost; choosing it rings the
/// pieces it may go on, over the pieces; a looted piece shows in the shop as owned, free, with its
/// count, and is placed for nothing.
#[tokio::test]
async fn loot_box_equip_targets_show_over_the_pieces_and_the_shop_shows_what_the_player_owns() {
    let (_app, b, _permit) = session().await;
    // Seed 0: the first box (a4) holds a crossbow; White's knight opens it with b5a3.
    let opening = "N@b1,e8e7,e1e2,e7e6,e2e1,e6e7,b1a3,e7e6,a3b5,e6e7,b5a3,e7e6";
    b.open(&format!("/local/lootbox?seed=0#{opening}")).await;
    b.wait_for("the game in the address", "document.querySelector('#board-app').dataset.ply === '12'").await;
    let item = b.wait_text("the crossbow", r#".cg-equip button[data-item="crossbow"]"#, &["Crossbow"]).await;
    assert_eq!(b.text(r#".cg-equip button[data-item="crossbow"] .cost"#).await, "2", "its equip cost: {item}");
    b.click(r#".cg-equip button[data-item="crossbow"]"#).await;
    let lit = b.marked("drop").await;
    assert!(!lit.is_empty(), "some piece may take the crossbow");
    let markers = b
        .js(r#"return [...document.querySelectorAll('.cg-board .sq.drop')].map(sq => {
                 const piece = document.querySelector(`.cg-board .piece[data-square="${sq.dataset.square}"]`);
                 const mark = getComputedStyle(sq, '::after');
                 return {square: sq.dataset.square, piece: !!piece,
                         above: !!piece && Number(mark.zIndex) > Number(getComputedStyle(piece).zIndex),
                         drawn: mark.boxShadow !== 'none' || mark.backgroundImage !== 'none'};
               });"#)
        .await;
    for m in markers.as_array().expect("a list") {
        assert_eq!((&m["piece"], &m["above"], &m["drawn"]), (&json!(true), &json!(true), &json!(true)), "{m}");
    }

    // Seed 2: the same box holds a rook. White owns it: free, one of it, not dimmed.
    b.open(&format!("/local/lootbox?seed=2#{opening}")).await;
    b.wait_for("the game in the address", "document.querySelector('#board-app').dataset.ply === '12'").await;
    assert_eq!(
        b.js("return window.chessgold.state.inventory.white.pieces;").await,
        json!([["R", 1]]),
        "the box held a rook"
    );
    let rook = r#".shop-item[data-piece="R"]"#;
    let label = b.wait_text("the owned rook", &format!("{rook} .owned-count"), &["free"]).await;
    assert!(label.contains("\u{d7}1"), "its count: {label}");
    let classes = b.find(rook).await.attr("class").await.expect("class").unwrap_or_default();
    assert!(classes.contains("owned") && !classes.contains("unaffordable"), "{classes}");
    assert_eq!(b.js(&format!("return document.querySelectorAll('{rook} .cost').length;")).await, json!(0), "no price");
    let gold = b.gold("white").await;
    b.click(rook).await;
    let square = b.marked("drop").await.first().cloned().expect("a square for the rook");
    b.click_square(&square).await;
    b.wait_for("the rook placed", "document.querySelector('#board-app').dataset.ply === '13'").await;
    assert_eq!(b.piece_on(&square).await.as_deref(), Some("white rook"));
    assert_eq!(b.gold("white").await, gold, "a looted piece is placed for nothing");
}

/// Every pass-and-play game of Loot Boxes gets its own seed, kept in the address: a reload
/// replays the same game, a new game gets a new seed.
#[tokio::test]
async fn each_local_loot_box_game_has_its_own_seed_in_the_address() {
    let (_app, b, _permit) = session().await;
    let seed_of_page = "return [new URLSearchParams(location.search).get('seed'), window.chessgold.seed, window.chessgold.state.seed];";
    let mut seeds = Vec::new();
    for _ in 0..2 {
        b.open("/local/lootbox").await;
        b.wait_for("the seed in the address", "/^\\?seed=\\d+$/.test(location.search)").await;
        let [address, controller, state]: [Value; 3] =
            serde_json::from_value(b.js(seed_of_page).await).expect("three seeds");
        let seed: u64 = address.as_str().expect("a seed").parse().expect("a number");
        assert_eq!((controller.as_u64(), state.as_u64()), (Some(seed), Some(seed)), "one seed for the whole game");
        seeds.push(seed);
    }
    assert_ne!(seeds[0], seeds[1], "two games, two seeds");

    b.type_action("N@b1").await;
    b.wait_for("the knight placed", "document.querySelector('#board-app').dataset.ply === '1'").await;
    let before = b
        .js("return [location.search + location.hash, window.chessgold.state.countdown, window.chessgold.state.fen];")
        .await;
    assert_eq!(before[0], json!(format!("?seed={}#N@b1", seeds[1])));
    b.client.refresh().await.expect("reload");
    b.wait_for("the game replayed", "window.chessgold && document.querySelector('#board-app').dataset.ply === '1'")
        .await;
    let after = b
        .js("return [location.search + location.hash, window.chessgold.state.countdown, window.chessgold.state.fen];")
        .await;
    assert_eq!(after, before, "a reload replays the same game");

    b.click(r#".cg-controls [data-control="new"]"#).await;
    b.wait_for(
        "a new game with a new seed",
        &format!("document.querySelector('#board-app').dataset.ply === '0' && location.hash === '' && /^\\?seed=\\d+$/.test(location.search) && location.search !== '?seed={}'", seeds[1]),
    )
    .await;
}

/// A finished game from a position (lichess's `fen`): the page's replay starts at that position,
/// not at the variant's start, and steps on from it.
#[tokio::test]
async fn the_replay_of_a_game_from_a_position_starts_there() {
    let (app, viewer, _permit) = session().await;
    let (alice, bob) = (crate::round::Browser::new(&app.address), crate::round::Browser::new(&app.address));
    alice.signup("alice").await;
    bob.signup("bob").await;
    let id_of = |name: &'static str| {
        let pool = app.db_pool.clone();
        async move { chessgold::db::users::find_by_name(&pool, name).await.unwrap().unwrap().id }
    };
    let request = chessgold::game::CreateGame {
        variant: "standard".into(),
        clock: None,
        rated: false,
        source: chessgold::game::Source::Friend,
        initial_fen: Some("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1".into()),
        creator: chessgold::game::PlayerRef::User(id_of("alice").await),
        creator_color: chessgold_engine::Color::White,
        opponent: Some(chessgold::game::PlayerRef::User(id_of("bob").await)),
    };
    let settings = chessgold::settings::Settings::defaults().unwrap().game;
    let id = chessgold::game::create_game(&app.db_pool, request, &settings).await.unwrap().to_string();
    let (mut ws, mut bs) = (alice.socket(&id, None).await, bob.socket(&id, None).await);
    ws.until("full").await;
    bs.until("full").await;
    play_line(&mut ws, &mut bs, 0, &["e2e4", "e8d8", "e4e5"]).await;
    assert_eq!(bs.command("resign").await["t"], "ack");
    ws.until("end").await;

    viewer.open(&format!("/{id}")).await;
    viewer.wait_for("the finished game", "document.querySelector('#board-app').dataset.shown === '3'").await;
    let pieces = "return [...document.querySelectorAll('.cg-board .piece:not(.ghost)')].map(p => p.dataset.square + p.dataset.kind).sort().join(' ');";
    assert_eq!(viewer.js(pieces).await, json!("d8king e1king e5pawn"));
    viewer.click(r#"[data-replay="first"]"#).await;
    viewer.wait_for("the start position", "document.querySelector('#board-app').dataset.shown === '0'").await;
    assert_eq!(viewer.js(pieces).await, json!("e1king e2pawn e8king"), "the game's own start");
    viewer.click(r#"[data-replay="next"]"#).await;
    viewer.wait_for("after the first move", "document.querySelector('#board-app').dataset.shown === '1'").await;
    viewer
        .wait_for(
            "the pawn on e4",
            "!!document.querySelector('.cg-board .piece[data-square=\"e4\"][data-kind=\"pawn\"]')",
        )
        .await;
    assert_eq!(viewer.js(pieces).await, json!("e1king e4pawn e8king"));
}
