//! Server clocks: a flag over sockets, the first-move rule, and the sweeper with nobody connected.
#![expect(clippy::unwrap_used, reason = "tests")]

use std::time::Duration;

use chessgold::game::{CreateGame, PlayerRef, TimeControl, create_game};
use chessgold_engine::Color;

use super::{Browser, play_line, stored_result};
use crate::helpers::{spawn_app, spawn_app_with};

/// Two registered players in a game created with `create_game` (any clock).
async fn users_game(
    base: &str,
    pool: &sqlx::PgPool,
    clock: Option<TimeControl>,
    cfg: &chessgold::settings::GameSettings,
) -> (String, Browser, Browser) {
    let w = Browser::new(base);
    let b = Browser::new(base);
    let suffix = &uuid::Uuid::new_v4().simple().to_string()[..8];
    w.signup(&format!("w{suffix}")).await;
    b.signup(&format!("b{suffix}")).await;
    let wid = chessgold::db::users::find_by_name(pool, &format!("w{suffix}")).await.unwrap().unwrap().id;
    let bid = chessgold::db::users::find_by_name(pool, &format!("b{suffix}")).await.unwrap().unwrap().id;
    let req = CreateGame {
        variant: "standard".into(),
        clock,
        rated: false,
        source: chessgold::game::Source::Friend,
        initial_fen: None,
        creator: PlayerRef::User(wid),
        creator_color: Color::White,
        opponent: Some(PlayerRef::User(bid)),
    };
    let id = create_game(pool, req, cfg).await.unwrap();
    (id.to_string(), w, b)
}

#[tokio::test]
async fn a_flag_loses_on_time() {
    let app = spawn_app().await;
    let (id, w, b) = users_game(&app.address, &app.db_pool, TimeControl::new(150, 0), &app.settings.game).await;
    let mut ws = w.socket(&id, None).await;
    let mut bs = b.socket(&id, None).await;
    assert_eq!(ws.until("full").await["d"]["you"], "white");
    bs.until("full").await;
    play_line(&mut ws, &mut bs, 0, &["e2e4", "e7e5"]).await;
    // White's clock (1.5 s) runs now; nobody moves.
    for s in [&mut ws, &mut bs] {
        let end = s.until("end").await;
        assert_eq!(end["d"]["status"]["id"], 35);
        assert_eq!(end["d"]["winner"], "black");
        assert_eq!(end["d"]["reason"], "timeout");
        assert_eq!(end["d"]["clocks"]["white"], 0);
    }
    assert_eq!(stored_result(&app.db_pool, &id).await, (35, Some("black".into()), Some("timeout".into())));
    assert_eq!(ws.act("g1f3", 2).await["d"]["code"], "game_over");
}

#[tokio::test]
async fn clocks_are_charged_to_the_mover_only() {
    let app = spawn_app().await;
    let (id, w, b) = users_game(&app.address, &app.db_pool, TimeControl::new(60_000, 500), &app.settings.game).await;
    let mut ws = w.socket(&id, None).await;
    let mut bs = b.socket(&id, None).await;
    ws.until("full").await;
    bs.until("full").await;
    play_line(&mut ws, &mut bs, 0, &["e2e4", "e7e5"]).await;
    let started = std::time::Instant::now();
    tokio::time::sleep(Duration::from_millis(300)).await;
    play_line(&mut ws, &mut bs, 2, &["g1f3"]).await;
    let waited = started.elapsed().as_millis() as i64 / 10;
    let mv = bs.seen.iter().rev().find(|m| m["t"] == "move").unwrap().clone();
    let white = mv["d"]["clocks"]["white"].as_i64().unwrap();
    let black = mv["d"]["clocks"]["black"].as_i64().unwrap();
    assert_eq!(mv["d"]["clocks"]["running"], "black");
    assert_eq!(black, 60_000, "Black's clock did not run");
    // White was charged at least the 0.3 s it waited (at most the whole wait), plus the increment.
    assert!(white <= 60_000 + 500 - 30 && white >= 60_000 + 500 - waited - 5, "{white} after {waited} cs");
    let rows = chessgold::db::games::actions(&app.db_pool, &id).await.unwrap();
    assert_eq!(rows[2].white_clock.map(i64::from), Some(white));
}

#[tokio::test]
async fn no_first_move_aborts_the_game_even_with_nobody_connected() {
    let app = spawn_app_with(|s| {
        s.game.first_move_secs = 1;
        s.game.sweeper_interval_ms = 200;
    })
    .await;
    let (id, w, _b) = users_game(&app.address, &app.db_pool, TimeControl::new(30_000, 0), &app.settings.game).await;
    // Nobody connects: the sweeper ends the game.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while stored_result(&app.db_pool, &id).await.0 == 20 {
        assert!(std::time::Instant::now() < deadline, "the sweeper ended the game");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(stored_result(&app.db_pool, &id).await, (37, None, Some("no-start".into())));
    // A connected player sees the same for Black's first move.
    let (id, w2, b2) = users_game(&app.address, &app.db_pool, None, &app.settings.game).await;
    let mut ws = w2.socket(&id, None).await;
    let mut bs = b2.socket(&id, None).await;
    ws.until("full").await;
    bs.until("full").await;
    play_line(&mut ws, &mut bs, 0, &["e2e4"]).await;
    let end = bs.until("end").await;
    assert_eq!(end["d"]["status"]["name"], "no_start");
    drop(w);
}

#[tokio::test]
async fn a_flag_with_nobody_connected_is_ended_by_the_sweeper() {
    // Rounds stop as soon as their sockets are gone, so only the sweeper is left to end the game.
    let app = spawn_app_with(|s| {
        s.game.round_idle_secs = 0;
        s.game.sweeper_interval_ms = 200;
    })
    .await;
    let (id, w, b) = users_game(&app.address, &app.db_pool, TimeControl::new(600, 0), &app.settings.game).await;
    {
        let mut ws = w.socket(&id, None).await;
        let mut bs = b.socket(&id, None).await;
        ws.until("full").await;
        bs.until("full").await;
        play_line(&mut ws, &mut bs, 0, &["d2d4", "d7d5", "c2c4"]).await;
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while stored_result(&app.db_pool, &id).await.0 == 20 {
        assert!(std::time::Instant::now() < deadline, "the game ended");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(stored_result(&app.db_pool, &id).await, (35, Some("white".into()), Some("timeout".into())));
    let g = chessgold::db::games::find(&app.db_pool, &id).await.unwrap().unwrap();
    assert_eq!(g.black_clock, Some(0));
}
