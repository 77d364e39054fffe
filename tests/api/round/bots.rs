//! Games against the computer: a guest starts one with the "play with the computer" form and
//! plays over the game socket; the bot answers every move (committed before it is announced),
//! moves first as White, declines draws and grants takebacks, plays to a result; bad form input is
//! refused.

use serde_json::Value;

use super::{Browser, Sock, stored_result};
use crate::helpers::spawn_app;

/// Starts a bot game with the form; returns the game id.
async fn start_bot_game(b: &Browser, variant: &str, level: &str, time: &str, color: &str) -> String {
    let r = b
        .post_form(
            "/game/computer",
            "/game/computer",
            &[("variant", variant), ("level", level), ("time", time), ("color", color)],
        )
        .await;
    assert_eq!(r.status().as_u16(), 303, "{}", r.text().await.unwrap());
    let loc = r.headers().get("location").unwrap().to_str().unwrap().to_string();
    loc.trim_start_matches('/').to_string()
}

async fn stored_plies(pool: &sqlx::PgPool, id: &str) -> usize {
    chessgold::db::games::actions(pool, id).await.unwrap().len()
}

/// The last state the socket has seen (from `full`, `move` or `takeback`).
fn last_state(sock: &Sock) -> Value {
    sock.seen
        .iter()
        .rev()
        .find_map(|m| match m["t"].as_str() {
            Some("move" | "full" | "takeback") => Some(m["d"]["state"].clone()),
            _ => None,
        })
        .unwrap()
}

/// The human plays the first legal action, then waits for the bot's answer; checks that the
/// bot's action was stored before its event arrived. Returns false once the game is over.
async fn human_then_bot(sock: &mut Sock, pool: &sqlx::PgPool, id: &str, bot: &str) -> bool {
    let state = last_state(sock);
    if state["status"] != "ongoing" {
        return false;
    }
    let ply = state["actions"].as_array().unwrap().len();
    let action = state["legal"][0].as_str().unwrap().to_string();
    let ans = sock.act(&action, ply).await;
    assert_eq!(ans["t"], "ack", "{action} at {ply}: {ans}");
    let mine = sock.move_event(ply as u64 + 1).await;
    if mine["d"]["state"]["status"] != "ongoing" {
        return false;
    }
    let reply = sock.move_event(ply as u64 + 2).await;
    assert_eq!(reply["d"]["by"], bot, "{reply}");
    assert!(stored_plies(pool, id).await >= ply + 2, "the bot's action is committed before it is announced");
    reply["d"]["state"]["status"] == "ongoing"
}

#[tokio::test]
async fn a_guest_plays_the_bot_which_answers_every_move_declines_draws_and_grants_takebacks() {
    let app = spawn_app().await;
    let guest = Browser::new(&app.address);
    let id = start_bot_game(&guest, "standard", "2", "5+3", "white").await;
    let page = guest.html(&format!("/{id}")).await;
    assert!(page.contains("Chess Gold bot · level 2 (Novice)"), "the bot's name on the page");
    let mut sock = guest.socket(&id, None).await;
    let full = sock.until("full").await;
    assert_eq!(full["d"]["you"], "white");
    assert_eq!(full["d"]["rated"], false);
    assert_eq!(full["d"]["status"]["name"], "started");
    let bot = &full["d"]["players"]["black"];
    assert_eq!((bot["bot"].as_u64(), bot["rating"].as_u64(), bot["user"].as_bool()), (Some(2), Some(800), Some(false)));
    assert_eq!(full["d"]["players"]["white"]["bot"], Value::Null);
    let crowd = sock.until("crowd").await;
    assert_eq!(crowd["d"]["black"], true, "the bot is always connected: {crowd}");
    assert_eq!(sock.command("claim_victory").await["d"]["code"], "claim_too_early", "no claim against a bot");
    for _ in 0..4 {
        assert!(human_then_bot(&mut sock, &app.db_pool, &id, "black").await, "the game goes on");
    }
    // A draw offer is declined, and the declining is said (the bot, Black, declined).
    assert_eq!(sock.command("draw_yes").await["t"], "ack");
    let declined = sock.until_match(|m| m["t"] == "offers" && m["d"]["draw"].is_null()).await;
    assert_eq!(declined["d"]["takeback"], Value::Null);
    assert_eq!(declined["d"]["closed"], serde_json::json!([{"offer": "draw", "by": "black", "how": "declined"}]));
    // A takeback is granted, as lichess's AI does: the human's last move and the bot's reply go.
    assert_eq!(sock.command("takeback_yes").await["t"], "ack");
    sock.until_match(|m| m["t"] == "offers" && m["d"]["takeback"] == "white").await;
    let taken = sock.until("takeback").await;
    assert_eq!(taken["d"]["plies"], 6, "{taken}");
    assert_eq!(taken["d"]["state"]["side"], "white", "the human is to move again");
    let offers = sock.until_match(|m| m["t"] == "offers" && m["d"]["takeback"].is_null()).await;
    assert!(offers["d"].get("closed").is_none(), "an accepted request closes nothing: {offers}");
    assert_eq!(stored_plies(&app.db_pool, &id).await, 6, "two actions were taken back");
    // The game goes on from there.
    assert!(human_then_bot(&mut sock, &app.db_pool, &id, "black").await);
    // The human resigns: the bot wins; the record names the bot.
    assert_eq!(sock.command("resign").await["t"], "ack");
    let end = sock.until("end").await;
    assert_eq!((end["d"]["status"]["id"].as_i64(), end["d"]["winner"].as_str()), (Some(31), Some("black")));
    assert_eq!(stored_result(&app.db_pool, &id).await, (31, Some("black".into()), Some("resign".into())));
    let rec: Value =
        guest.http.get(format!("{}/api/game/{id}", app.address)).send().await.unwrap().json().await.unwrap();
    assert_eq!(rec["players"]["black"]["bot"], 2);
    assert_eq!(rec["rated"], false);
    // A rematch offer is accepted by the bot: a new game with colours swapped.
    assert_eq!(sock.command("rematch_yes").await["t"], "ack");
    let rematch = sock.until("rematch").await;
    let new_id = rematch["d"]["id"].as_str().unwrap().to_string();
    let mut again = guest.socket(&new_id, None).await;
    let full = again.until("full").await;
    assert_eq!(full["d"]["you"], "black");
    assert_eq!(full["d"]["players"]["white"]["bot"], 2);
    // The bot, White now, moves first.
    again.move_event(1).await;
}

#[tokio::test]
async fn the_bot_as_white_opens_the_game_and_a_loot_box_game_goes_on() {
    let app = spawn_app().await;
    let guest = Browser::new(&app.address);
    let id = start_bot_game(&guest, "standard", "5", "unlimited", "black").await;
    let mut sock = guest.socket(&id, None).await;
    let full = sock.until("full").await;
    assert_eq!(full["d"]["you"], "black");
    assert_eq!(full["d"]["clock"], Value::Null);
    let first = sock.move_event(1).await;
    assert_eq!(first["d"]["by"], "white");
    assert_eq!(stored_plies(&app.db_pool, &id).await, 1);
    assert!(human_then_bot(&mut sock, &app.db_pool, &id, "white").await);

    // Loot Boxes (a seeded variant): the bot plays from a view without the seed.
    let id = start_bot_game(&guest, "lootbox", "3", "unlimited", "white").await;
    let mut sock = guest.socket(&id, None).await;
    sock.until("full").await;
    for _ in 0..3 {
        if !human_then_bot(&mut sock, &app.db_pool, &id, "black").await {
            break;
        }
    }
}

/// A whole game: the human plays the first legal action every time, the level-8 bot wins.
#[tokio::test]
async fn a_bot_game_is_played_to_a_result() {
    let app = spawn_app().await;
    let guest = Browser::new(&app.address);
    let id = start_bot_game(&guest, "standard", "8", "unlimited", "white").await;
    let mut sock = guest.socket(&id, None).await;
    sock.until("full").await;
    let mut turns = 0;
    while human_then_bot(&mut sock, &app.db_pool, &id, "black").await {
        turns += 1;
        assert!(turns < 200, "the game ends");
    }
    let end = sock.until("end").await;
    let (status, winner, reason) = stored_result(&app.db_pool, &id).await;
    assert_eq!(end["d"]["status"]["id"].as_i64(), Some(i64::from(status)));
    assert_eq!((status, winner.as_deref(), reason.as_deref()), (30, Some("black"), Some("checkmate")), "{end}");
}

#[tokio::test]
async fn the_computer_form_refuses_bad_input() {
    let app = spawn_app().await;
    let guest = Browser::new(&app.address);
    let page = guest.html("/game/computer").await;
    assert!(page.contains("Play with the computer") && page.contains("Master") && page.contains("~2000"));
    let home = guest.html("/").await;
    assert!(home.contains(r#"href="/game/computer""#), "the home page links to the form");
    for (fields, message) in [
        (
            [("variant", "nope"), ("level", "3"), ("time", "5+3"), ("color", "white")],
            "Choose one of the listed variants",
        ),
        ([("variant", "standard"), ("level", "9"), ("time", "5+3"), ("color", "white")], "level from 1 to 8"),
        ([("variant", "standard"), ("level", "x"), ("time", "5+3"), ("color", "white")], "level from 1 to 8"),
        ([("variant", "standard"), ("level", "3"), ("time", "2+1"), ("color", "white")], "not offered"),
        ([("variant", "standard"), ("level", "3"), ("time", "5+3"), ("color", "purple")], "white, black or random"),
    ] {
        let r = guest.post_form("/game/computer", "/game/computer", &fields).await;
        assert_eq!(r.status().as_u16(), 422, "{fields:?}");
        let body = r.text().await.unwrap();
        assert!(body.contains(message), "{fields:?}: {body}");
        assert!(body.contains(r#"name="csrf_token""#), "the form comes back");
    }
    // A variant the bot does not play yet is listed as unavailable and refused.
    if let Some(v) = chessgold_engine::registry::variants().iter().find(|v| !chessgold::bots::plays(v.id)) {
        assert!(page.contains(&format!(r#"<option value="{}" disabled>"#, v.id)), "{} is shown unavailable", v.id);
        let fields = [("variant", v.id), ("level", "3"), ("time", "5+3"), ("color", "white")];
        let r = guest.post_form("/game/computer", "/game/computer", &fields).await;
        assert_eq!(r.status().as_u16(), 422);
        assert!(r.text().await.unwrap().contains("does not play"));
    }
    // Without the CSRF token: refused.
    let r = guest
        .http
        .post(format!("{}/game/computer", app.address))
        .header("Origin", &app.address)
        .form(&[("variant", "standard"), ("level", "3"), ("time", "5+3"), ("color", "white")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 403);
    let games: i64 = sqlx::query_scalar("SELECT count(*) FROM games").fetch_one(&app.db_pool).await.unwrap();
    assert_eq!(games, 0);
}

/// A registered player plays the bot (casual: no rating change); the profile lists the game with
/// the bot's name. The player's tab goes away right after a move: the bot's answer is committed
/// all the same, and a reconnecting socket gets it as a missed event.
#[tokio::test]
async fn a_registered_player_leaves_after_a_move_and_finds_the_bots_answer() {
    let app = spawn_app().await;
    let alice = Browser::new(&app.address);
    alice.signup("alice").await;
    let id = start_bot_game(&alice, "gold", "1", "5+3", "white").await;
    let mut sock = alice.socket(&id, None).await;
    let full = sock.until("full").await;
    assert_eq!(full["d"]["players"]["white"]["name"], "alice");
    let v = full["v"].as_i64().unwrap();
    assert_eq!(sock.act("N@c3", 0).await["t"], "ack");
    sock.close().await;
    let deadline = std::time::Instant::now() + super::WAIT;
    while stored_plies(&app.db_pool, &id).await < 2 {
        assert!(std::time::Instant::now() < deadline, "the bot answers without anyone connected");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let mut back = alice.socket(&id, Some(v)).await;
    let first = back.move_event(1).await;
    assert_eq!(first["d"]["action"], "N@c3");
    let reply = back.move_event(2).await;
    assert_eq!(reply["d"]["by"], "black");
    assert_eq!(back.command("resign").await["t"], "ack");
    back.until("end").await;
    let profile = alice.html("/@/alice").await;
    assert!(profile.contains("Chess Gold bot · level 1 (Beginner)"), "{profile}");
    let rating: Option<i32> = sqlx::query_scalar("SELECT rating FROM user_ratings WHERE variant = 'gold'")
        .fetch_optional(&app.db_pool)
        .await
        .unwrap();
    assert_eq!(rating, None, "bot games are casual");
    // The lichess-shaped export names the computer as lichess does, by its level.
    let text =
        alice.http.get(format!("{}/api/games/user/alice", app.address)).send().await.unwrap().text().await.unwrap();
    let game: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(game["players"]["black"]["aiLevel"], 1, "{game}");
    assert_eq!(game["players"]["white"]["user"]["name"], "alice", "{game}");
}
