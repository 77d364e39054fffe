//! Elo after rated games, exactly as the rule book says; casual and aborted games change nothing;
//! guests play casual games only.
#![expect(clippy::unwrap_used, reason = "tests")]

use serde_json::json;

use super::{Browser, play_line};
use crate::helpers::spawn_app;

const FOOLS_MATE: [&str; 4] = ["f2f3", "e7e5", "g2g4", "d8h4"];

async fn rating(pool: &sqlx::PgPool, name: &str) -> (i32, i32) {
    let id = chessgold::db::users::find_by_name(pool, name).await.unwrap().unwrap().id;
    let p = chessgold::db::ratings::perf(pool, id, "standard").await.unwrap();
    (p.rating, p.games)
}

/// White creates a game of `mode`, Black joins, Black mates; returns the id and Black's `end`.
async fn black_mates(w: &Browser, b: &Browser, mode: &str) -> (String, serde_json::Value) {
    let id = w.create("standard", "5+0", mode, "white").await;
    b.join(&id).await;
    let mut ws = w.socket(&id, None).await;
    let mut bs = b.socket(&id, None).await;
    ws.until("full").await;
    bs.until("full").await;
    play_line(&mut ws, &mut bs, 0, &FOOLS_MATE).await;
    let end = bs.until("end").await;
    (id, end)
}

#[tokio::test]
async fn rated_games_update_elo_exactly() {
    let app = spawn_app().await;
    let w = Browser::new(&app.address);
    let b = Browser::new(&app.address);
    w.signup("whitey").await;
    b.signup("blacky").await;

    let (id, end) = black_mates(&w, &b, "rated").await;
    assert_eq!(end["d"]["winner"], "black");
    assert_eq!(
        end["d"]["ratings"],
        json!({"white": {"before": 1500, "after": 1480, "diff": -20, "provisional": true},
               "black": {"before": 1500, "after": 1520, "diff": 20, "provisional": true}})
    );
    assert_eq!(rating(&app.db_pool, "whitey").await, (1480, 1));
    assert_eq!(rating(&app.db_pool, "blacky").await, (1520, 1));
    let page = w.html(&format!("/{id}")).await;
    assert!(page.contains("1500?") && page.contains("-20") && page.contains("+20"), "{page}");

    // Both updates come from the pre-game ratings: E(1480 vs 1520) = 0.442688...;
    // 1480 + 40 (0 - 0.442688) = 1462.29 -> 1462; 1520 + 40 (1 - 0.557312) = 1537.71 -> 1538.
    let (_, end) = black_mates(&w, &b, "rated").await;
    assert_eq!(end["d"]["ratings"]["white"], json!({"before": 1480, "after": 1462, "diff": -18, "provisional": true}));
    assert_eq!(end["d"]["ratings"]["black"], json!({"before": 1520, "after": 1538, "diff": 18, "provisional": true}));
    assert_eq!(rating(&app.db_pool, "whitey").await, (1462, 2));
    assert_eq!(rating(&app.db_pool, "blacky").await, (1538, 2));

    // A casual game changes nothing.
    let (casual, end) = black_mates(&w, &b, "casual").await;
    assert_eq!(end["d"]["ratings"], serde_json::Value::Null);
    assert_eq!(rating(&app.db_pool, "whitey").await, (1462, 2));
    // Its players' ratings show all the same (as on lichess), with no change.
    let text = w.http.get(format!("{}/api/games/user/whitey?max=1", app.address)).send().await.unwrap();
    let newest: serde_json::Value = serde_json::from_str(text.text().await.unwrap().trim()).unwrap();
    assert_eq!(newest["id"], casual.as_str());
    assert_eq!(newest["rated"], false);
    let players = &newest["players"];
    assert_eq!((players["white"]["rating"].as_i64(), players["black"]["rating"].as_i64()), (Some(1462), Some(1538)));
    assert!(players["white"].get("ratingDiff").is_none(), "{players}");

    // Nor does an aborted rated game.
    let id = w.create("standard", "3+0", "rated", "white").await;
    b.join(&id).await;
    let mut ws = w.socket(&id, None).await;
    ws.until("full").await;
    assert_eq!(ws.command("abort").await["t"], "ack");
    assert_eq!(ws.until("end").await["d"]["ratings"], serde_json::Value::Null);
    assert_eq!(rating(&app.db_pool, "blacky").await, (1538, 2));
}

#[tokio::test]
async fn guests_play_casual_games_only() {
    let app = spawn_app().await;
    let guest = Browser::new(&app.address);
    let r = guest
        .post_form(
            "/game/new",
            "/game/new",
            &[("variant", "standard"), ("time", "5+0"), ("mode", "rated"), ("color", "white")],
        )
        .await;
    assert_eq!(r.status().as_u16(), 422);
    assert!(r.text().await.unwrap().contains("Rated games are for registered players"));
    let user = Browser::new(&app.address);
    user.signup("ratedhost").await;
    let r = user
        .post_form(
            "/game/new",
            "/game/new",
            &[("variant", "standard"), ("time", "unlimited"), ("mode", "rated"), ("color", "white")],
        )
        .await;
    assert_eq!(r.status().as_u16(), 422, "rated games need a clock");
    let id = user.create("standard", "5+0", "rated", "black").await;
    let page = guest.html(&format!("/{id}")).await;
    assert!(page.contains("to join this rated game"));
    let r = guest.post_form("/game/new", &format!("/game/{id}/join"), &[]).await;
    assert_eq!(r.headers().get("location").unwrap(), &format!("/login?next=/{id}"));
    assert_eq!(chessgold::db::games::find(&app.db_pool, &id).await.unwrap().unwrap().status, 10);
}
