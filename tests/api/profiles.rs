//! Profiles, leaderboards and the game export: a real rated game between two accounts, and game
//! and rating rows written straight into the database for what would take too long to play.
#![expect(clippy::unwrap_used, reason = "tests")]

use serde_json::Value;
use sqlx::PgPool;
use uuid::Uuid;

use crate::helpers::spawn_app;
use crate::round::{Browser, play_line, stored_result, two_guests};

const FOOLS_MATE: [&str; 4] = ["f2f3", "e7e5", "g2g4", "d8h4"];

/// White creates a rated standard 5+0 game, Black joins, Black mates with the fool's mate.
async fn rated_fools_mate(w: &Browser, b: &Browser) -> String {
    let id = w.create("standard", "5+0", "rated", "white").await;
    b.join(&id).await;
    let mut ws = w.socket(&id, None).await;
    let mut bs = b.socket(&id, None).await;
    ws.until("full").await;
    bs.until("full").await;
    play_line(&mut ws, &mut bs, 0, &FOOLS_MATE).await;
    bs.until("end").await;
    id
}

/// The text of the element with this id (`<dd id="count-wins">3</dd>`).
fn by_id(html: &str, id: &str) -> String {
    let at = html.find(&format!(r#"id="{id}">"#)).unwrap_or_else(|| panic!("no #{id}"));
    let rest = &html[at + id.len() + 6..];
    rest[..rest.find('<').unwrap()].to_string()
}

/// Game ids of the profile's list, in order.
fn listed_games(html: &str) -> Vec<String> {
    html.split(r#"<tr class="game-line"#)
        .skip(1)
        .map(|row| {
            let at = row.find(r#"data-game=""#).unwrap() + r#"data-game=""#.len();
            row[at..at + 8].to_string()
        })
        .collect()
}

#[tokio::test]
async fn a_rated_game_shows_on_both_profiles_with_ratings_counts_and_a_chart() {
    let app = spawn_app().await;
    let w = Browser::new(&app.address);
    let b = Browser::new(&app.address);
    w.signup("Whitey").await;
    b.signup("blacky").await;
    let id = rated_fools_mate(&w, &b).await;

    // The lookup ignores case; the page shows the name as it was chosen.
    let resp = app.get("/@/WHITEY").await;
    assert_eq!(resp.status().as_u16(), 200);
    let html = resp.text().await.unwrap();
    assert!(html.contains(r#"<h1 class="profile-name">Whitey</h1>"#), "{html}");
    assert!(html.contains(r#"<li class="perf" data-variant="standard">"#), "{html}");
    assert!(html.contains(">1480?</span>"), "a provisional rating is marked: {html}");
    assert_eq!(by_id(&html, "count-total"), "1");
    assert_eq!(by_id(&html, "count-rated"), "1");
    assert_eq!(
        (by_id(&html, "count-wins"), by_id(&html, "count-draws"), by_id(&html, "count-losses")),
        ("0".into(), "0".into(), "1".into())
    );
    assert_eq!(listed_games(&html), [id.as_str()]);
    assert!(html.contains(&format!(r#"href="/{id}""#)));
    assert!(html.contains(r#"<a href="/@/blacky">blacky</a> <span class="muted">(1500)</span>"#), "{html}");
    assert!(html.contains("Lost") && html.contains(r#"<span class="rating-diff">-20</span>"#));
    assert!(html.contains("<td>Standard</td>") && html.contains("<td>5+0</td>") && html.contains("<td>Rated</td>"));
    // The chart: the start rating and the rating after the game, as server-rendered SVG.
    assert!(html.contains(r#"<figure class="rating-history" data-variant="standard">"#));
    assert!(html.contains(r#"<svg class="rating-chart""#) && html.contains(r#"data-points="2""#), "{html}");
    assert!(html.contains(">1480 (after game 1)</title>"));

    let html = app.get_html("/@/blacky").await;
    assert!(html.contains(">1520?</span>"));
    assert_eq!((by_id(&html, "count-wins"), by_id(&html, "count-losses")), ("1".into(), "0".into()));
    assert!(html.contains("Won") && html.contains(r#"<span class="rating-diff">+20</span>"#));
    assert!(html.contains(r#"<a href="/@/Whitey">Whitey</a>"#));

    // The game page links both names to their profiles; the header links the signed-in user's.
    let page = w.html(&format!("/{id}")).await;
    assert!(page.contains(r#"<a href="/@/Whitey">Whitey</a>"#) && page.contains(r#"<a href="/@/blacky">blacky</a>"#));
    assert!(page.contains(r#"<a href="/@/Whitey" class="profile-link">Profile</a>"#));
    assert!(page.contains(&format!(r#"href="/game/export/{id}""#)));
    assert!(page.contains(r#"<a href="/player">Leaderboards</a>"#));

    // One rated game is not enough for the leaderboard.
    let board = app.get_html("/player/standard").await;
    assert!(!board.contains("/@/Whitey") && !board.contains("/@/blacky"), "{board}");
}

#[tokio::test]
async fn the_export_of_a_rated_fools_mate_is_exact() {
    let app = spawn_app().await;
    let w = Browser::new(&app.address);
    let b = Browser::new(&app.address);
    w.signup("whitey").await;
    b.signup("blacky").await;
    let id = rated_fools_mate(&w, &b).await;
    let created = chessgold::db::games::find(&app.db_pool, &id).await.unwrap().unwrap().created_at;
    let date = format!("{:04}.{:02}.{:02}", created.year(), u8::from(created.month()), created.day());
    let clock = format!("{:02}:{:02}:{:02}", created.hour(), created.minute(), created.second());

    let resp = app.get(&format!("/game/export/{id}")).await;
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.headers()["content-type"], "application/x-chess-pgn; charset=utf-8");
    // A download named as lichess names its exports.
    assert_eq!(
        resp.headers()["content-disposition"],
        format!(r#"attachment; filename="chessgold_standard_whitey_vs_blacky_{date}_{id}.pgn""#).as_str()
    );
    let text = resp.text().await.unwrap();
    let expected = format!(
        r#"[Event "Rated Blitz game"]
[Site "{}/{id}"]
[Date "{date}"]
[White "whitey"]
[Black "blacky"]
[Result "0-1"]
[WhiteElo "1500"]
[BlackElo "1500"]
[WhiteRatingDiff "-20"]
[BlackRatingDiff "+20"]
[UTCDate "{date}"]
[UTCTime "{clock}"]
[GameId "{id}"]
[Variant "Standard"]
[TimeControl "300+0"]
[Termination "Normal"]

1. f2f3 e7e5 2. g2g4 d8h4 0-1
"#,
        app.address
    );
    assert_eq!(text, expected);
}

#[tokio::test]
async fn a_loot_box_export_publishes_the_seed_only_once_the_game_is_over() {
    let app = spawn_app().await;
    let (id, _w, _b, mut ws, mut bs) = two_guests(&app.address, "lootbox", "unlimited").await;
    play_line(&mut ws, &mut bs, 0, &["N@c3", "e8e7"]).await;
    let text = app.get_html(&format!("/game/export/{id}")).await;
    let record: Value = app.get(&format!("/api/game/{id}")).await.json().await.unwrap();
    let commitment = record["seed_commitment"].as_str().unwrap();
    assert!(text.contains(&format!("[SeedCommitment \"{commitment}\"]\n")), "{text}");
    assert!(!text.contains("[Seed ") && !text.contains("[Salt "), "{text}");
    assert!(text.contains("[Result \"*\"]") && text.contains("[Termination \"Unterminated\"]"), "{text}");
    assert!(
        text.contains("[White \"Anonymous\"]")
            && text.contains("[WhiteElo \"?\"]")
            && text.contains("[TimeControl \"-\"]")
    );
    assert!(text.contains("[Event \"Casual Chess Gold: Loot Boxes game\"]"), "{text}");
    let resp = app.get(&format!("/game/export/{id}")).await;
    let name = resp.headers()["content-disposition"].to_str().unwrap().to_string();
    assert!(name.starts_with(r#"attachment; filename="chessgold_lootbox_Anonymous_vs_Anonymous_"#), "{name}");
    assert!(name.ends_with(&format!(r#"_{id}.pgn""#)), "{name}");
    assert!(text.ends_with("\n\n1. N@c3 e8e7 *\n"), "{text}");

    assert_eq!(bs.command("resign").await["t"], "ack");
    assert_eq!(stored_result(&app.db_pool, &id).await.0, 31);
    let text = app.get_html(&format!("/game/export/{id}")).await;
    let record: Value = app.get(&format!("/api/game/{id}")).await.json().await.unwrap();
    assert!(text.contains(&format!("[Seed \"{}\"]\n", record["seed"].as_u64().unwrap())), "{text}");
    assert!(text.contains(&format!("[Salt \"{}\"]\n", record["salt"].as_str().unwrap())), "{text}");
    assert!(text.contains("[Result \"1-0\"]") && text.contains("[Termination \"Normal\"]"), "{text}");
    assert!(text.ends_with("\n\n1. N@c3 e8e7 1-0\n"), "{text}");
}

#[tokio::test]
async fn unknown_profiles_leaderboards_and_games_are_404() {
    let app = spawn_app().await;
    for path in ["/@/nobody", "/@/no%20such%20name", "/player/no-such-variant"] {
        let resp = app.get(path).await;
        assert_eq!(resp.status().as_u16(), 404, "{path}");
        assert!(resp.text().await.unwrap().contains("Page not found"), "{path}");
    }
    // Reading pages: no session for anonymous readers.
    insert_user(&app.db_pool, "reader").await;
    for path in ["/@/reader", "/player", "/player/standard"] {
        let resp = app.get(path).await;
        assert_eq!(resp.status().as_u16(), 200, "{path}");
        assert!(resp.headers().get("set-cookie").is_none(), "{path} set a cookie");
    }
    for path in ["/game/export/abcdEFGH", "/game/export/bad-id"] {
        let resp = app.get(path).await;
        assert_eq!(resp.status().as_u16(), 404, "{path}");
    }
}

/// Inserts an account (no usable password) and returns its id.
async fn insert_user(pool: &PgPool, name: &str) -> Uuid {
    let id = Uuid::now_v7();
    sqlx::query("INSERT INTO users (id, username, password_hash) VALUES ($1, $2, 'x')")
        .bind(id)
        .bind(name)
        .execute(pool)
        .await
        .unwrap();
    id
}

async fn insert_rating(pool: &PgPool, user: Uuid, variant: &str, rating: i32, games: i32) {
    sqlx::query("INSERT INTO user_ratings (user_id, variant, rating, games) VALUES ($1, $2, $3, $4)")
        .bind(user)
        .bind(variant)
        .bind(rating)
        .bind(games)
        .execute(pool)
        .await
        .unwrap();
}

/// Ranks on a variant's leaderboard page: the linked names in order.
fn leaders(html: &str) -> Vec<String> {
    html.split(r#"<tr class="leader">"#)
        .skip(1)
        .map(|row| {
            let at = row.find(r#"href="/@/"#).unwrap() + r#"href="/@/"#.len();
            row[at..at + row[at..].find('"').unwrap()].to_string()
        })
        .collect()
}

#[tokio::test]
async fn leaderboards_list_only_accounts_with_ten_rated_games_best_first() {
    let app = spawn_app().await;
    let pool = &app.db_pool;
    for (name, rating, games) in
        [("alice", 1700, 12), ("bob", 1650, 10), ("carol", 1900, 9), ("dave", 1720, 45), ("erin", 1400, 30)]
    {
        let id = insert_user(pool, name).await;
        insert_rating(pool, id, "standard", rating, games).await;
    }
    let frank = insert_user(pool, "frank").await;
    insert_rating(pool, frank, "gold", 1600, 10).await;

    let resp = app.get("/player/standard").await;
    assert_eq!(resp.status().as_u16(), 200);
    let html = resp.text().await.unwrap();
    assert_eq!(leaders(&html), ["dave", "alice", "bob", "erin"], "carol has 9 rated games");
    assert!(html.contains(r#"<td class="leader-rating">1720</td>"#), "established: no mark");
    assert!(html.contains(r#"<td class="leader-rating">1700?</td>"#), "provisional under 30 games");
    assert!(!html.contains("frank"));

    let html = app.get_html("/player/gold").await;
    assert_eq!(leaders(&html), ["frank"]);

    // The overview: the top of every registered variant.
    let html = app.get_html("/player").await;
    for v in chessgold_engine::registry::variants() {
        assert!(html.contains(&format!(r#"<section class="card leaderboard" data-variant="{}">"#, v.id)), "{}", v.id);
    }
    let standard = &html[html.find(r#"data-variant="standard""#).unwrap()..];
    let standard = &standard[..standard.find("</section>").unwrap()];
    let order: Vec<usize> =
        ["dave", "alice", "bob", "erin"].iter().map(|n| standard.find(&format!("/@/{n}\"")).unwrap()).collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{standard}");
    assert!(!standard.contains("carol"));

    // At most 100 lines.
    for i in 0..105 {
        let id = insert_user(pool, &format!("p{i:03}")).await;
        insert_rating(pool, id, "conqueror", 1000 + i, 10).await;
    }
    let html = app.get_html("/player/conqueror").await;
    let names = leaders(&html);
    assert_eq!(names.len(), 100);
    assert_eq!((names[0].as_str(), names[99].as_str()), ("p104", "p005"));
}

/// Inserts a finished casual game (`white` won by resignation) between an account (White) and a
/// guest, created `minutes_ago` minutes ago.
async fn insert_game(pool: &PgPool, id: &str, user: Uuid, minutes_ago: i32) {
    sqlx::query(
        "INSERT INTO games (id, variant, rated, source, status, winner, reason, created_at, started_at, finished_at)
         VALUES ($1, 'standard', false, 'friend', 31, 'white', 'resign', now() - make_interval(mins => $2),
                 now() - make_interval(mins => $2), now() - make_interval(mins => $2))",
    )
    .bind(id)
    .bind(minutes_ago)
    .execute(pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO game_players (game_id, color, player_id, user_id, guest_id, lag_quota)
         VALUES ($1, 'white', 'Wxyz', $2, NULL, 0), ($1, 'black', 'Bxyz', NULL, 'guest1', 0)",
    )
    .bind(id)
    .bind(user)
    .execute(pool)
    .await
    .unwrap();
}

#[tokio::test]
async fn the_game_list_is_paged_newest_first() {
    let app = spawn_app().await;
    let user = insert_user(&app.db_pool, "pager").await;
    // 45 games: g0000000 is the newest.
    let ids: Vec<String> = (0..45).map(|i| format!("g{i:07}")).collect();
    for (i, id) in ids.iter().enumerate() {
        insert_game(&app.db_pool, id, user, i32::try_from(i).unwrap() + 1).await;
    }
    // An unstarted game is not listed.
    sqlx::query("INSERT INTO games (id, variant, rated, source) VALUES ('waiting0', 'standard', false, 'friend')")
        .execute(&app.db_pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO game_players (game_id, color, player_id, user_id, lag_quota) VALUES ('waiting0', 'white', 'Wxyz', $1, 0)",
    )
    .bind(user)
    .execute(&app.db_pool)
    .await
    .unwrap();

    let html = app.get_html("/@/pager").await;
    assert_eq!(listed_games(&html), ids[..20]);
    assert_eq!(by_id(&html, "count-total"), "45");
    assert_eq!((by_id(&html, "count-wins"), by_id(&html, "count-rated")), ("45".into(), "0".into()));
    assert!(html.contains("Page 1 of 3") && html.contains(r#"href="/@/pager?page=2""#));
    assert!(html.contains("<td class=\"opponent\">Anonymous</td>") && html.contains("<td>Casual</td>"));
    assert!(!html.contains("rating-chart"), "no rated games, no chart");
    assert!(html.contains("No rated games yet."));

    let html = app.get_html("/@/pager?page=2").await;
    assert_eq!(listed_games(&html), ids[20..40]);
    assert!(html.contains(r#"href="/@/pager?page=1""#) && html.contains(r#"href="/@/pager?page=3""#));
    let html = app.get_html("/@/pager?page=3").await;
    assert_eq!(listed_games(&html), ids[40..]);
    assert!(html.contains("Page 3 of 3") && !html.contains("?page=4"));

    // Past the end: the last page.
    let html = app.get_html("/@/pager?page=99").await;
    assert_eq!(listed_games(&html), ids[40..]);

    for bad in ["0", "-1", "abc", "2.5", ""] {
        let resp = app.get(&format!("/@/pager?page={bad}")).await;
        assert_eq!(resp.status().as_u16(), 400, "page={bad}");
        assert!(resp.text().await.unwrap().contains("Bad request"));
    }

    // An account without games.
    insert_user(&app.db_pool, "newbie").await;
    let html = app.get_html("/@/newbie").await;
    assert!(html.contains("No games yet.") && !html.contains("Page 1 of"));
}
