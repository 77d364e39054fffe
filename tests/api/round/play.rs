//! Whole games between two guests over sockets: mate, resignation, agreed draw, abort, takeback,
//! rematch.

use serde_json::Value;

use super::{play_line, stored_result, two_guests};
use crate::helpers::spawn_app;

const FOOLS_MATE: [&str; 4] = ["f2f3", "e7e5", "g2g4", "d8h4"];

/// A Chess Gold game to checkmate: the black king walks into the corner, White buys a bishop and
/// a knight.
pub const GOLD_MATE: [&str; 19] = [
    "e1d2", "e8d7", "d2c2", "d7c6", "c2c1", "c6b5", "c1c2", "b5a4", "c2c1", "a4a3", "c1c2", "a3a2", "c2c1", "a2a1",
    "c1c2", "P@h7", "B@b1", "P@g7", "N@b3",
];

#[tokio::test]
async fn fools_mate_between_two_guests() {
    let app = spawn_app().await;
    let (id, w, _b, mut ws, mut bs) = two_guests(&app.address, "standard", "5+0").await;
    play_line(&mut ws, &mut bs, 0, &FOOLS_MATE).await;
    for s in [&mut ws, &mut bs] {
        let end = s.until("end").await;
        assert_eq!(end["d"]["status"]["id"], 30);
        assert_eq!(end["d"]["status"]["name"], "mate");
        assert_eq!(end["d"]["winner"], "black");
        assert_eq!(end["d"]["reason"], "checkmate");
        assert_eq!(end["d"]["ratings"], Value::Null);
    }
    assert_eq!(stored_result(&app.db_pool, &id).await, (30, Some("black".into()), Some("checkmate".into())));
    // The record replays exactly.
    let rec: Value = w.http.get(format!("{}/api/game/{id}", app.address)).send().await.unwrap().json().await.unwrap();
    let actions: Vec<&str> = rec["actions"].as_array().unwrap().iter().map(|a| a["action"].as_str().unwrap()).collect();
    assert_eq!(actions, FOOLS_MATE);
    assert_eq!(rec["actions"][0]["clocks"]["white"], 30000, "no clock runs before both first moves");
    let game = chessgold_engine::variant("standard").unwrap();
    let mut g = game.new_game();
    for a in &actions {
        g.play(a).unwrap();
    }
    assert_eq!(g.snapshot().status, "checkmate");
    // After the end, actions are refused.
    let ans = ws.act("e1e2", 4).await;
    assert_eq!(ans["d"]["code"], "game_over");
    let page = w.html(&format!("/{id}")).await;
    assert!(page.contains("Checkmate: Black wins"), "{page}");
    assert!(page.contains(r#"data-mode="live""#) && page.contains(&format!(r#"data-socket="/socket/game/{id}""#)));
}

#[tokio::test]
async fn a_chess_gold_game_to_checkmate() {
    let app = spawn_app().await;
    let (id, _w, _b, mut ws, mut bs) = two_guests(&app.address, "gold", "unlimited").await;
    play_line(&mut ws, &mut bs, 0, &GOLD_MATE).await;
    let end = bs.until("end").await;
    assert_eq!((end["d"]["status"]["id"].as_i64(), end["d"]["winner"].as_str()), (Some(30), Some("white")));
    let last = ws.seen.iter().rev().find(|m| m["t"] == "move").unwrap().clone();
    assert_eq!(last["d"]["state"]["status"], "checkmate");
    assert_eq!(last["d"]["state"]["legal"], serde_json::json!([]));
    assert_eq!(stored_result(&app.db_pool, &id).await.0, 30);
}

#[tokio::test]
async fn resignation_and_what_comes_after() {
    let app = spawn_app().await;
    let (id, _w, b, mut ws, mut bs) = two_guests(&app.address, "standard", "3+2").await;
    play_line(&mut ws, &mut bs, 0, &["e2e4", "e7e5"]).await;
    assert_eq!(bs.command("resign").await["t"], "ack");
    let end = ws.until("end").await;
    assert_eq!(end["d"]["status"]["id"], 31);
    assert_eq!(end["d"]["winner"], "white");
    assert_eq!(stored_result(&app.db_pool, &id).await, (31, Some("white".into()), Some("resign".into())));
    assert_eq!(ws.command("resign").await["d"]["code"], "game_over");
    // Rematch: colours swapped, both players in the new game.
    assert_eq!(ws.command("rematch_yes").await["t"], "ack");
    ws.until("offers").await;
    let offers = bs.until("offers").await;
    assert_eq!(offers["d"]["rematch"], "white");
    assert_eq!(bs.command("rematch_yes").await["t"], "ack");
    let re = ws.until("rematch").await;
    let new_id = re["d"]["id"].as_str().unwrap().to_string();
    let g = chessgold::db::games::find(&app.db_pool, &new_id).await.unwrap().unwrap();
    assert_eq!(
        (g.status, g.variant.as_str(), g.clock_limit, g.clock_increment),
        (20, "standard", Some(18000), Some(200))
    );
    let mut nw = b.socket(&new_id, None).await;
    assert_eq!(nw.until("full").await["d"]["you"], "white", "the old Black plays White");
}

#[tokio::test]
async fn a_draw_offered_and_accepted() {
    let app = spawn_app().await;
    let (id, _w, _b, mut ws, mut bs) = two_guests(&app.address, "standard", "10+5").await;
    play_line(&mut ws, &mut bs, 0, &["d2d4", "d7d5"]).await;
    assert_eq!(ws.command("draw_yes").await["t"], "ack");
    assert_eq!(ws.until("offers").await["d"]["draw"], "white");
    assert_eq!(bs.until("offers").await["d"]["draw"], "white");
    // Declining clears it; a new offer and an acceptance end the game.
    assert_eq!(bs.command("draw_no").await["t"], "ack");
    assert_eq!(ws.until("offers").await["d"]["draw"], Value::Null);
    assert_eq!(bs.until("offers").await["d"]["draw"], serde_json::Value::Null);
    assert_eq!(bs.command("draw_no").await["d"]["code"], "no_offer");
    assert_eq!(bs.command("draw_yes").await["t"], "ack");
    assert_eq!(ws.until("offers").await["d"]["draw"], "black");
    assert_eq!(ws.command("draw_yes").await["t"], "ack");
    let end = bs.until("end").await;
    assert_eq!((end["d"]["status"]["id"].as_i64(), end["d"]["winner"].as_str()), (Some(34), None));
    assert_eq!(stored_result(&app.db_pool, &id).await, (34, None, Some("agreement".into())));
}

#[tokio::test]
async fn abort_only_until_both_sides_moved() {
    let app = spawn_app().await;
    let (id, _w, _b, mut ws, mut bs) = two_guests(&app.address, "standard", "5+3").await;
    play_line(&mut ws, &mut bs, 0, &["e2e4"]).await;
    assert_eq!(bs.command("abort").await["t"], "ack");
    let end = ws.until("end").await;
    assert_eq!((end["d"]["status"]["id"].as_i64(), end["d"]["reason"].as_str()), (Some(25), Some("aborted")));
    assert_eq!(stored_result(&app.db_pool, &id).await.0, 25);

    let (_id, _w, _b, mut ws, mut bs) = two_guests(&app.address, "standard", "5+3").await;
    play_line(&mut ws, &mut bs, 0, &["e2e4", "c7c5"]).await;
    assert_eq!(ws.command("abort").await["d"]["code"], "abort_too_late");
}

#[tokio::test]
async fn a_takeback_in_a_casual_game() {
    let app = spawn_app().await;
    let (id, _w, _b, mut ws, mut bs) = two_guests(&app.address, "standard", "unlimited").await;
    play_line(&mut ws, &mut bs, 0, &["e2e4", "e7e5", "g1f3"]).await;
    assert_eq!(ws.command("takeback_yes").await["t"], "ack");
    assert_eq!(ws.until("offers").await["d"]["takeback"], "white");
    assert_eq!(bs.until("offers").await["d"]["takeback"], "white");
    assert_eq!(bs.command("takeback_yes").await["t"], "ack");
    let tb = ws.until("takeback").await;
    assert_eq!(tb["d"]["state"]["actions"], serde_json::json!(["e2e4", "e7e5"]));
    assert_eq!(tb["d"]["state"]["side"], "white");
    let rec = chessgold::db::games::actions(&app.db_pool, &id).await.unwrap();
    assert_eq!(rec.len(), 2);
    play_line(&mut ws, &mut bs, 2, &["b1c3"]).await;
}

#[tokio::test]
async fn victory_can_be_claimed_over_a_vanished_opponent() {
    let app = crate::helpers::spawn_app_with(|s| s.game.claim_after_secs = 1).await;
    let (id, _w, _b, mut ws, mut bs) = two_guests(&app.address, "standard", "5+0").await;
    play_line(&mut ws, &mut bs, 0, &["e2e4", "e7e5"]).await;
    // Present opponent: no claim.
    assert_eq!(ws.command("claim_victory").await["d"]["code"], "claim_too_early");
    drop(bs);
    // Wait until the server reports Black away for at least the claim delay.
    ws.until_match(|m| m["t"] == "crowd" && m["d"]["away"]["black"].as_i64().is_some_and(|s| s >= 1)).await;
    assert_eq!(ws.command("claim_victory").await["t"], "ack");
    let end = ws.until("end").await;
    assert_eq!((end["d"]["status"]["id"].as_i64(), end["d"]["winner"].as_str()), (Some(33), Some("white")));
    assert_eq!(stored_result(&app.db_pool, &id).await, (33, Some("white".into()), Some("abandoned".into())));
}

#[tokio::test]
async fn loot_box_seeds_are_committed_then_published() {
    use sha2::{Digest, Sha256};
    let app = spawn_app().await;
    let (id, w, _b, mut ws, mut bs) = two_guests(&app.address, "lootbox", "unlimited").await;
    let full = ws.seen.iter().find(|m| m["t"] == "full").unwrap().clone();
    let commitment = full["d"]["seed_commitment"].as_str().unwrap().to_string();
    assert_eq!(commitment.len(), 64);
    assert_eq!((full["d"]["seed"].clone(), full["d"]["salt"].clone()), (Value::Null, Value::Null));
    let page = w.html(&format!("/{id}")).await;
    assert!(page.contains(&commitment) && !page.contains(r#"id="seed""#));
    play_line(&mut ws, &mut bs, 0, &["N@c3", "e8e7"]).await;
    assert_eq!(ws.command("resign").await["t"], "ack");
    let end = bs.until("end").await;
    let seed = end["d"]["seed"].as_u64().unwrap();
    let salt = end["d"]["salt"].as_str().unwrap().to_string();
    let salt_bytes: Vec<u8> =
        (0..salt.len()).step_by(2).map(|i| u8::from_str_radix(&salt[i..i + 2], 16).unwrap()).collect();
    assert_eq!(salt_bytes.len(), 32);
    let mut h = Sha256::new();
    h.update(seed.to_be_bytes());
    h.update(&salt_bytes);
    let digest: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(digest, commitment, "the published seed and salt match the commitment");
    let page = w.html(&format!("/{id}")).await;
    assert!(page.contains(&format!(r#"<code id="seed">{seed}</code>"#)) && page.contains(&salt));
    // The record replays with the published seed.
    let lootbox = chessgold_engine::variant("lootbox").unwrap();
    let mut g = lootbox.new_seeded_game(seed);
    for a in ["N@c3", "e8e7"] {
        g.play(a).unwrap();
    }
    let last = ws.seen.iter().rev().find(|m| m["t"] == "move").unwrap();
    assert_eq!(last["d"]["state"]["fen"], g.snapshot().fen);
}

#[tokio::test]
async fn the_game_page_carries_what_the_board_needs() {
    let app = spawn_app().await;
    let w = super::Browser::new(&app.address);
    let b = super::Browser::new(&app.address);
    assert!(w.html("/game/new").await.contains(r#"<option value="30+20">"#));
    let id = w.create("gold", "5+3", "casual", "black").await;
    let page = w.html(&format!("/{id}")).await;
    assert!(page.contains("Waiting for your opponent") && page.contains(&format!("/{id}\"")), "invite link");
    let page = b.html(&format!("/{id}")).await;
    assert!(page.contains(r#"id="join-form""#));
    b.join(&id).await;
    let page = b.html(&format!("/{id}")).await;
    for needle in [
        // Content-hashed names (tests/api/compression.rs checks them), the scripts as one bundle.
        r#"<link rel="stylesheet" href="/static/css/board."#,
        r#"<script type="module" src="/static/js/live.bundle."#,
        &format!(
            r#"data-mode="live" data-game="{id}" data-socket="/socket/game/{id}" data-variant="gold" data-color="white""#
        ),
        r#"<span class="player-clock" data-clock="white">5:00</span>"#,
        r#"<span class="player-name">Anonymous</span>"#,
    ] {
        assert!(page.contains(needle), "{needle}");
    }
    let at = page.find(r#"id="game-data">"#).unwrap() + r#"id="game-data">"#.len();
    let json: Value = serde_json::from_str(&page[at..at + page[at..].find("</script>").unwrap()]).unwrap();
    assert_eq!(json["you"], "white");
    assert_eq!(json["status"]["id"], 20);
    assert_eq!(json["state"]["variant"], "gold");
    assert_eq!(json["clock"]["limit"], 30000);
    // Unknown games are 404; a wrong player id goes back to the game.
    assert_eq!(w.http.get(format!("{}/zzzzzzzz", app.address)).send().await.unwrap().status().as_u16(), 404);
    let r = w.http.get(format!("{}/{id}abcd", app.address)).send().await.unwrap();
    assert_eq!(r.headers().get("location").unwrap().to_str().unwrap(), format!("/{id}"));
    let g = chessgold::db::games::players(&app.db_pool, &id).await.unwrap();
    let pid = &g.iter().find(|p| p.color == "black").unwrap().player_id;
    let r = w.http.get(format!("{}/{id}{pid}", app.address)).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200, "the seat's own 12-character link");
}

/// Every registered variant plays online: two guests take turns with legal actions from the
/// states the server sends (an equip whenever Loot Boxes offers one), both sockets see every
/// action, and after the game the record (with the published seed) replays to the same position.
#[tokio::test]
async fn every_variant_plays_online_and_replays_from_its_record() {
    let app = spawn_app().await;
    for info in chessgold_engine::registry::variants() {
        let (id, w, _b, mut ws, mut bs) = two_guests(&app.address, info.id, "unlimited").await;
        let mut state = ws.seen.iter().find(|m| m["t"] == "full").unwrap()["d"]["state"].clone();
        let mut played: Vec<String> = Vec::new();
        for ply in 0..40usize {
            let legal: Vec<String> = serde_json::from_value(state["legal"].clone()).unwrap();
            if legal.is_empty() || state["status"] != "ongoing" {
                break;
            }
            let equip =
                legal.iter().find(|a| a.contains('@') && a.chars().next().is_some_and(|c| c.is_ascii_lowercase()));
            let action = equip.cloned().unwrap_or_else(|| legal[(ply * 7 + 3) % legal.len()].clone());
            let white = state["side"] == "white";
            let (mover, other) = if white { (&mut ws, &mut bs) } else { (&mut bs, &mut ws) };
            let ans = mover.act(&action, ply).await;
            assert_eq!(ans["t"], "ack", "{}: {action} at ply {ply}: {ans}", info.id);
            let ev = mover.move_event(ply as u64 + 1).await;
            assert_eq!(other.move_event(ply as u64 + 1).await["v"], ev["v"]);
            state = ev["d"]["state"].clone();
            played.push(action);
        }
        let over = state["status"] != "ongoing";
        assert!(played.len() >= 6 || (over && played.len() >= 2), "{}: only {} actions", info.id, played.len());
        if !over {
            assert_eq!(ws.command("resign").await["t"], "ack", "{}", info.id);
        }
        let end = bs.until("end").await;
        let rec: Value =
            w.http.get(format!("{}/api/game/{id}", app.address)).send().await.unwrap().json().await.unwrap();
        let actions: Vec<&str> =
            rec["actions"].as_array().unwrap().iter().map(|a| a["action"].as_str().unwrap()).collect();
        assert_eq!(actions, played, "{}", info.id);
        let mut g = match end["d"]["seed"].as_u64() {
            Some(seed) => info.new_seeded_game(seed),
            None => info.new_game(),
        };
        assert_eq!(info.seeded, end["d"]["seed"].is_u64(), "{}: a seed is published for random variants only", info.id);
        for a in &actions {
            g.play(a).unwrap();
        }
        assert_eq!(g.snapshot().fen, state["fen"], "{}: the record replays", info.id);
    }
}

/// Loot Boxes online with a known seed (set in the record before anyone connects): a knight opens
/// the box, White equips the crossbow (the turn stays White's, both sockets see it), then moves.
#[tokio::test]
async fn a_loot_box_opened_and_its_item_equipped_online() {
    use sha2::{Digest, Sha256};
    let app = spawn_app().await;
    let w = super::Browser::new(&app.address);
    let b = super::Browser::new(&app.address);
    let id = w.create("lootbox", "unlimited", "casual", "white").await;
    b.join(&id).await;
    let salt = [7u8; 32];
    let mut h = Sha256::new();
    h.update(0u64.to_be_bytes());
    h.update(salt);
    let commitment: String = h.finalize().iter().map(|x| format!("{x:02x}")).collect();
    sqlx::query("UPDATE games SET seed = 0, salt = $2, commitment = $3 WHERE id = $1")
        .bind(&id)
        .bind(salt.to_vec())
        .bind(&commitment)
        .execute(&app.db_pool)
        .await
        .unwrap();
    let mut ws = w.socket(&id, None).await;
    let mut bs = b.socket(&id, None).await;
    ws.until("full").await;
    bs.until("full").await;
    let line = ["N@b1", "e8e7", "e1e2", "e7e6", "e2e1", "e6e7", "b1a3", "e7e6", "a3b5", "e6e7", "b5a3", "e7e6"];
    play_line(&mut ws, &mut bs, 0, &line).await;
    let last = ws.seen.iter().rev().find(|m| m["t"] == "move").unwrap()["d"]["state"].clone();
    assert_eq!(last["inventory"]["white"]["items"], serde_json::json!([["crossbow", 1]]), "{last}");
    assert!(last["equips"].as_array().unwrap().iter().any(|e| e == "crossbow@a3"), "{last}");
    assert_eq!(ws.act("crossbow@a3", 12).await["t"], "ack");
    let ev = bs.move_event(13).await;
    assert_eq!(ev["d"]["action"], "crossbow@a3");
    assert_eq!(ev["d"]["state"]["side"], "white", "an equip is not a turn");
    assert_eq!(bs.act("e6e7", 13).await["d"]["code"], "not_your_turn");
    assert_eq!(ws.act("a3b5", 13).await["t"], "ack");
    assert_eq!(bs.move_event(14).await["d"]["state"]["side"], "black");
    assert_eq!(ws.command("resign").await["t"], "ack");
    let end = bs.until("end").await;
    assert_eq!((end["d"]["seed"].as_u64(), end["d"]["salt"].as_str()), (Some(0), Some("07".repeat(32).as_str())));
    let full = ws.seen.iter().find(|m| m["t"] == "full").unwrap();
    assert_eq!(full["d"]["seed_commitment"], commitment.as_str());
}
