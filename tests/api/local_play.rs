//! `POST /api/local`: the engine judges every action.

use serde_json::{Value, json};

use crate::helpers::spawn_app;

#[tokio::test]
async fn legal_actions_return_the_engine_state() {
    let app = spawn_app().await;
    let resp = app.post_local(&json!({"variant": "standard", "actions": ["e2e4", "e7e5", "g1f3"]})).await;
    assert_eq!(resp.status().as_u16(), 200);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["variant"], "standard");
    assert_eq!(body["fen"], "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2");
    assert_eq!(body["side"], "black");
    assert_eq!(body["status"], "ongoing");
    assert_eq!(body["actions"], json!(["e2e4", "e7e5", "g1f3"]));
    let legal = body["legal"].as_array().unwrap();
    assert_eq!(legal.len(), 29);
    assert!(legal.contains(&json!("b8c6")));
    assert_eq!(body["files"], 8);
    assert!(body["pieces"].as_array().unwrap().len() == 32);
}

#[tokio::test]
async fn no_actions_is_the_start_position() {
    let app = spawn_app().await;
    let body: Value = app.post_local(&json!({"variant": "standard"})).await.json().await.unwrap();
    assert_eq!(body["legal"].as_array().unwrap().len(), 20);
    assert_eq!(body["side"], "white");
}

#[tokio::test]
async fn a_finished_game_reports_its_result() {
    let app = spawn_app().await;
    let resp = app.post_local(&json!({"variant": "standard", "actions": ["f2f3", "e7e5", "g2g4", "d8h4"]})).await;
    assert_eq!(resp.status().as_u16(), 200);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["status"], "checkmate");
    assert_eq!(body["winner"], "black");
    assert_eq!(body["legal"], json!([]));
}

#[tokio::test]
async fn a_position_text_can_start_the_game() {
    let app = spawn_app().await;
    let resp = app
        .post_local(&json!({"variant": "standard", "fen": "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", "actions": ["e2e4"]}))
        .await;
    assert_eq!(resp.status().as_u16(), 200);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["fen"], "4k3/8/8/8/4P3/8/8/4K3 b - - 0 1");
}

#[tokio::test]
async fn an_illegal_action_is_named_with_its_index() {
    let app = spawn_app().await;
    let resp = app.post_local(&json!({"variant": "standard", "actions": ["e2e4", "e7e5", "e4e5"]})).await;
    assert_eq!(resp.status().as_u16(), 422);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["code"], "illegal_action");
    assert_eq!(body["index"], 2);
    let msg = body["error"].as_str().unwrap();
    assert!(msg.contains("actions[2]") && msg.contains("e4e5"), "{msg}");
}

#[tokio::test]
async fn a_malformed_action_is_named_with_its_index() {
    let app = spawn_app().await;
    for (bad, index) in [("e2e9", 0), ("hello", 0), ("E2E4", 0)] {
        let resp = app.post_local(&json!({"variant": "standard", "actions": [bad]})).await;
        assert_eq!(resp.status().as_u16(), 422, "{bad}");
        let body: Value = resp.json().await.unwrap();
        assert_eq!(body["index"], index, "{bad}");
        assert!(["malformed_action", "illegal_action"].contains(&body["code"].as_str().unwrap()), "{body}");
    }
    let long = "e".repeat(100);
    let body: Value =
        app.post_local(&json!({"variant": "standard", "actions": ["e2e4", long]})).await.json().await.unwrap();
    assert_eq!(body["code"], "malformed_action");
    assert_eq!(body["index"], 1);
}

#[tokio::test]
async fn playing_after_the_end_is_refused() {
    let app = spawn_app().await;
    let resp =
        app.post_local(&json!({"variant": "standard", "actions": ["f2f3", "e7e5", "g2g4", "d8h4", "a2a3"]})).await;
    assert_eq!(resp.status().as_u16(), 422);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["code"], "game_over");
    assert_eq!(body["index"], 4);
}

#[tokio::test]
async fn an_unknown_variant_is_refused_with_the_list() {
    let app = spawn_app().await;
    let resp = app.post_local(&json!({"variant": "fischer-random", "actions": []})).await;
    assert_eq!(resp.status().as_u16(), 422);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["code"], "unknown_variant");
    let msg = body["error"].as_str().unwrap();
    assert!(msg.contains("fischer-random") && msg.contains("standard"), "{msg}");
}

#[tokio::test]
async fn a_bad_position_text_is_refused() {
    let app = spawn_app().await;
    let resp = app.post_local(&json!({"variant": "standard", "fen": "not a position"})).await;
    assert_eq!(resp.status().as_u16(), 422);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["code"], "bad_fen");
}

#[tokio::test]
async fn malformed_json_is_a_400_naming_the_problem() {
    let app = spawn_app().await;
    let cases: [(&str, &str); 5] = [
        ("{\"variant\": ", "EOF"),
        ("[]", "expected struct LocalRequest"),
        ("{\"actions\": []}", "missing field `variant`"),
        ("{\"variant\": \"standard\", \"actions\": \"e2e4\"}", "invalid type"),
        ("{\"variant\": \"standard\", \"moves\": []}", "unknown field `moves`"),
    ];
    for (body, expected) in cases {
        let resp = app
            .client
            .post(app.url("/api/local"))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 400, "{body}");
        let json: Value = resp.json().await.unwrap();
        assert_eq!(json["code"], "bad_json");
        assert!(json["error"].as_str().unwrap().contains(expected), "{body}: {json}");
    }
}

#[tokio::test]
async fn a_body_that_is_not_json_is_refused() {
    let app = spawn_app().await;
    let resp =
        app.client.post(app.url("/api/local")).header("content-type", "text/plain").body("e2e4").send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 415);
    let json: Value = resp.json().await.unwrap();
    assert_eq!(json["code"], "bad_content_type");
}

#[tokio::test]
async fn too_many_actions_are_refused() {
    let app = spawn_app().await;
    let actions: Vec<&str> = ["g1f3", "g8f6", "f3g1", "f6g8"].iter().copied().cycle().take(2001).collect();
    let resp = app.post_local(&json!({"variant": "standard", "actions": actions})).await;
    assert_eq!(resp.status().as_u16(), 422);
    let json: Value = resp.json().await.unwrap();
    assert_eq!(json["code"], "too_many_actions");
    assert!(json["error"].as_str().unwrap().contains("2000"));
}

#[tokio::test]
async fn an_oversized_body_is_refused() {
    let app = spawn_app().await;
    let resp = app
        .client
        .post(app.url("/api/local"))
        .header("content-type", "application/json")
        .body(format!("{{\"variant\": \"{}\"}}", "x".repeat(70_000)))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 413);
    let json: Value = resp.json().await.unwrap();
    assert_eq!(json["code"], "too_large");
}

#[tokio::test]
async fn every_registered_variant_starts_and_plays_its_first_legal_action() {
    let app = spawn_app().await;
    for info in chessgold_engine::registry::variants() {
        let start: Value = app.post_local(&json!({"variant": info.id})).await.json().await.unwrap();
        assert_eq!(start["variant"], info.id);
        let first = start["legal"][0].as_str().unwrap_or_else(|| panic!("{} has no legal action", info.id)).to_string();
        let resp = app.post_local(&json!({"variant": info.id, "actions": [first]})).await;
        assert_eq!(resp.status().as_u16(), 200, "{}", info.id);
        let after: Value = resp.json().await.unwrap();
        assert_eq!(after["actions"], json!([first]));
    }
}

#[tokio::test]
async fn unknown_api_paths_answer_json_404() {
    let app = spawn_app().await;
    let resp = app.get("/api/nothing").await;
    assert_eq!(resp.status().as_u16(), 404);
    let json: Value = resp.json().await.unwrap();
    assert_eq!(json["code"], "not_found");
}

#[tokio::test]
async fn a_seeded_variant_replays_exactly_from_its_seed() {
    let app = spawn_app().await;
    let seeded = chessgold_engine::registry::variant("lootbox").expect("loot boxes are registered");
    assert!(seeded.seeded);
    let start: Value = app.post_local(&json!({"variant": seeded.id, "seed": 42})).await.json().await.unwrap();
    assert_eq!(start["seed"], 42);
    let actions: Vec<Value> = start["legal"].as_array().unwrap().iter().take(1).cloned().collect();
    let body = json!({"variant": seeded.id, "seed": 42, "actions": actions});
    let a: Value = app.post_local(&body).await.json().await.unwrap();
    let b: Value = app.post_local(&body).await.json().await.unwrap();
    assert_eq!(a, b, "the same seed and actions give the same game");
    let unseeded: Value = app.post_local(&json!({"variant": seeded.id})).await.json().await.unwrap();
    assert_eq!(unseeded["seed"], 0, "no seed means seed 0");
}

#[tokio::test]
async fn a_variant_without_randomness_ignores_the_seed() {
    let app = spawn_app().await;
    let resp = app.post_local(&json!({"variant": "standard", "seed": 7, "actions": ["e2e4"]})).await;
    assert_eq!(resp.status().as_u16(), 200);
    let body: Value = resp.json().await.unwrap();
    assert!(body.get("seed").is_none(), "{body}");
}

/// The `data-seed` of a pass-and-play page, if any (a seed that is not a number is none).
fn page_seed(html: &str) -> Option<u64> {
    let start = html.find("data-seed=\"")? + "data-seed=\"".len();
    let end = html[start..].find('"')? + start;
    html[start..end].parse().ok()
}

#[tokio::test]
async fn every_local_game_with_random_events_gets_its_own_seed_and_the_address_keeps_it() {
    let app = spawn_app().await;
    let first = page_seed(&app.get_html("/local/lootbox").await).expect("a seed for a loot-box game");
    let second = page_seed(&app.get_html("/local/lootbox").await).expect("a seed for a loot-box game");
    assert_ne!(first, second, "two games, two seeds");
    assert!(first < 1 << 53 && second < 1 << 53, "seeds the page's JavaScript holds exactly");
    assert_eq!(page_seed(&app.get_html("/local/lootbox?seed=42").await), Some(42), "the address's seed is kept");
    assert_eq!(page_seed(&app.get_html("/local/standard").await), None, "no seed without random events");
    for bad in ["abc", "-1", "1.5", "9007199254740992"] {
        let resp = app.get(&format!("/local/lootbox?seed={bad}")).await;
        assert_eq!(resp.status().as_u16(), 400, "{bad}");
        assert!(resp.text().await.unwrap().contains("whole number"), "{bad}: the page says what is wrong");
    }
}
