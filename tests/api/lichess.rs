//! The lichess-shaped API with personal tokens: challenges, the event stream, the board API
//! (a whole game streamed on both sides), board seeks, profiles, and the 4xx answers.
#![expect(clippy::expect_used, clippy::unwrap_used, reason = "test code: a failed step should fail the test loudly")]

use std::time::Duration;

use serde_json::Value;

use crate::helpers::{TestApp, spawn_app, spawn_app_with};
use crate::round::{Browser, WAIT};

/// A signed-up account with a personal token, and the browser it signed up in.
struct Player {
    name: String,
    token: String,
    browser: Browser,
}

async fn player(app: &TestApp, name: &str, scopes: &[&str]) -> Player {
    let browser = Browser::new(&app.address);
    browser.signup(name).await;
    let user = chessgold::db::users::find_by_name(&app.db_pool, name).await.unwrap().unwrap();
    let (token, hash) = chessgold::api::auth::new_token().unwrap();
    let scopes: Vec<String> = scopes.iter().map(|s| (*s).to_string()).collect();
    chessgold::db::tokens::insert(&app.db_pool, user.id, "test", &scopes, &hash).await.unwrap();
    Player { name: name.to_string(), token, browser }
}

const ALL: &[&str] = &["board:play", "challenge:read", "challenge:write"];

fn client() -> reqwest::Client {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap()
}

/// A request with the token, if any.
fn request(method: reqwest::Method, app: &TestApp, token: Option<&str>, path: &str) -> reqwest::RequestBuilder {
    let r = client().request(method, app.url(path));
    match token {
        Some(t) => r.bearer_auth(t),
        None => r,
    }
}

/// Sends `r`; an answer of the API is checked against `docs/openapi.yaml`.
async fn send(r: reqwest::RequestBuilder) -> reqwest::Response {
    let (client, req) = r.build_split();
    let req = req.unwrap();
    let (method, api) = (req.method().to_string(), req.url().path().starts_with("/api/"));
    let resp = client.execute(req).await.unwrap();
    if api { crate::openapi::checked(&method, resp).await } else { resp }
}

/// A GET, its answer checked against `docs/openapi.yaml`.
async fn get(app: &TestApp, token: Option<&str>, path: &str) -> reqwest::Response {
    crate::openapi::checked("GET", request(reqwest::Method::GET, app, token, path).send().await.unwrap()).await
}

/// A POST of a form, its answer checked against `docs/openapi.yaml`.
async fn post_form(app: &TestApp, token: Option<&str>, path: &str, form: &[(&str, &str)]) -> reqwest::Response {
    let r = request(reqwest::Method::POST, app, token, path).form(form);
    crate::openapi::checked("POST", r.send().await.unwrap()).await
}

/// An NDJSON stream read line by line (keep-alive newlines skipped).
/// Each line is checked against the description of the stream (`method` on the path).
struct Ndjson {
    resp: reqwest::Response,
    method: &'static str,
    buf: String,
}

impl Ndjson {
    async fn open(app: &TestApp, token: &str, path: &str) -> Ndjson {
        let resp = request(reqwest::Method::GET, app, Some(token), path).send().await.unwrap();
        assert_eq!(resp.status().as_u16(), 200, "{path}");
        assert_eq!(resp.headers().get("content-type").unwrap(), "application/x-ndjson");
        Ndjson::from("GET", resp)
    }

    fn from(method: &'static str, resp: reqwest::Response) -> Ndjson {
        Ndjson { resp, method, buf: String::new() }
    }

    /// The next JSON line, or `None` at the end of the stream; keep-alive newlines do not
    /// extend the wait.
    async fn next(&mut self) -> Option<Value> {
        self.next_within(WAIT).await
    }

    /// [`Ndjson::next`] waiting up to `wait`.
    async fn next_within(&mut self, wait: Duration) -> Option<Value> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            while let Some(at) = self.buf.find('\n') {
                let line: String = self.buf.drain(..=at).collect();
                if !line.trim().is_empty() {
                    let path = self.resp.url().path();
                    crate::openapi::check_line(self.method, path, line.trim()).unwrap_or_else(|e| panic!("{e}"));
                    return Some(serde_json::from_str(line.trim()).unwrap());
                }
            }
            let chunk = tokio::time::timeout_at(deadline, self.resp.chunk()).await.expect("a line in time").unwrap()?;
            self.buf.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }

    /// The next line of `type`, skipping others.
    async fn until(&mut self, t: &str) -> Value {
        loop {
            let v = self.next().await.unwrap_or_else(|| panic!("the stream ended before a {t}"));
            if v["type"] == t {
                return v;
            }
        }
    }
}

async fn play(app: &TestApp, p: &Player, game: &str, action: &str) {
    let r = post_form(app, Some(&p.token), &format!("/api/board/game/{game}/move/{action}"), &[]).await;
    assert_eq!(r.status().as_u16(), 200, "{action}: {}", r.text().await.unwrap());
}

/// Alice challenges Bob (rated 5+0, Alice white); Bob accepts; returns the game id.
async fn challenge_accepted(
    app: &TestApp,
    alice: &Player,
    bob: &Player,
    a_events: &mut Ndjson,
    b_events: &mut Ndjson,
) -> String {
    let r = post_form(
        app,
        Some(&alice.token),
        &format!("/api/challenge/{}", bob.name),
        &[("rated", "true"), ("clock.limit", "300"), ("clock.increment", "0"), ("color", "white")],
    )
    .await;
    assert_eq!(r.status().as_u16(), 200);
    let c: Value = r.json().await.unwrap();
    let id = c["id"].as_str().unwrap().to_string();
    assert_eq!(c["status"], "created");
    assert_eq!(c["destUser"]["name"], bob.name.as_str());
    assert_eq!(c["timeControl"]["limit"], 300);
    let seen = b_events.until("challenge").await;
    assert_eq!(seen["challenge"]["id"], id.as_str());
    assert_eq!(seen["challenge"]["direction"], "in");
    assert_eq!(seen["challenge"]["challenger"]["rating"], 1500);
    assert_eq!(seen["challenge"]["finalColor"], "white");
    let r = post_form(app, Some(&bob.token), &format!("/api/challenge/{id}/accept"), &[]).await;
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
    for (events, color) in [(a_events, "white"), (b_events, "black")] {
        let start = events.until("gameStart").await;
        assert_eq!(start["game"]["gameId"], id.as_str());
        assert_eq!(start["game"]["color"], color);
        assert_eq!(start["game"]["rated"], true);
        assert_eq!(start["game"]["source"], "friend");
    }
    id
}

#[tokio::test]
async fn a_challenged_game_is_played_to_mate_through_the_board_api() {
    let app = spawn_app().await;
    let alice = player(&app, "alice", ALL).await;
    let bob = player(&app, "bob", ALL).await;
    let mut a_events = Ndjson::open(&app, &alice.token, "/api/stream/event").await;
    let mut b_events = Ndjson::open(&app, &bob.token, "/api/stream/event").await;
    let id = challenge_accepted(&app, &alice, &bob, &mut a_events, &mut b_events).await;

    // Both are online (their tokens were just used) and playing; unknown names are left out.
    let st: Value = get(&app, None, "/api/users/status?ids=bob,nobody,Alice").await.json().await.unwrap();
    assert_eq!(
        st,
        serde_json::json!([{"id": "bob", "name": "bob", "online": true, "playing": true},
                           {"id": "alice", "name": "alice", "online": true, "playing": true}])
    );
    let st: Value = get(&app, None, "/api/users/status?ids=bob&withGameIds=true").await.json().await.unwrap();
    assert_eq!(st[0]["playingId"], id.as_str(), "{st}");
    assert_eq!(get(&app, None, "/api/users/status?ids=bob&withGameIds=maybe").await.status().as_u16(), 400);
    let current =
        request(reqwest::Method::GET, &app, None, "/api/user/alice/current-game").header("accept", "application/json");
    let current: Value = send(current).await.json().await.unwrap();
    assert_eq!(current["id"], id.as_str());
    let mut a_game = Ndjson::open(&app, &alice.token, &format!("/api/board/game/stream/{id}")).await;
    let mut b_game = Ndjson::open(&app, &bob.token, &format!("/api/board/game/stream/{id}")).await;
    for s in [&mut a_game, &mut b_game] {
        let full = s.next().await.unwrap();
        assert_eq!(full["type"], "gameFull");
        assert_eq!(full["id"], id.as_str());
        assert_eq!(full["white"]["name"], "alice");
        assert_eq!(full["black"]["name"], "bob");
        assert_eq!(full["clock"]["initial"], 300_000);
        assert_eq!(full["state"]["moves"], "");
        assert_eq!(full["state"]["status"], "started");
    }
    let line = ["f2f3", "e7e5", "g2g4", "d8h4"];
    for (i, action) in line.iter().enumerate() {
        let p = if i % 2 == 0 { &alice } else { &bob };
        play(&app, p, &id, action).await;
        let want = line[..=i].join(" ");
        for s in [&mut a_game, &mut b_game] {
            let state = s.until("gameState").await;
            assert_eq!(state["moves"], want.as_str());
            if i + 1 < line.len() {
                assert_eq!(state["status"], "started", "{state}");
            } else {
                // The mating move's state is the result, as on lichess; then the stream ends.
                assert_eq!((state["status"].as_str(), state["winner"].as_str()), (Some("mate"), Some("black")));
                assert!(s.next().await.is_none(), "the stream ends with the game");
            }
        }
    }
    for events in [&mut a_events, &mut b_events] {
        let fin = events.until("gameFinish").await;
        assert_eq!(fin["game"]["gameId"], id.as_str());
        assert_eq!(fin["game"]["winner"], "black");
        assert_eq!(fin["game"]["status"]["name"], "mate");
        let (mine, theirs) =
            (fin["game"]["ratingDiff"].as_i64().unwrap(), fin["game"]["opponent"]["ratingDiff"].as_i64().unwrap());
        assert_eq!(mine, -theirs);
    }
    // The rating shows on the profile.
    let r = get(&app, None, "/api/user/bob").await;
    assert_eq!(r.status().as_u16(), 200);
    let u: Value = r.json().await.unwrap();
    assert_eq!(u["username"], "bob");
    assert_eq!(u["perfs"]["standard"]["games"], 1);
    assert!(u["perfs"]["standard"]["rating"].as_i64().unwrap() > 1500);
    assert_eq!(u["perfs"]["standard"]["prov"], true);
    assert_eq!(u["perfs"]["standard"]["rd"], 150, "a number, large while provisional, as lichess clients expect");
    assert!(u["createdAt"].is_i64() && u["seenAt"].is_i64());
    let count = &u["count"];
    assert_eq!(
        (count["all"].as_i64(), count["rated"].as_i64(), count["win"].as_i64(), count["winH"].as_i64()),
        (Some(1), Some(1), Some(1), Some(1))
    );
    for field in ["ai", "draw", "drawH", "loss", "lossH", "bookmark", "playing", "import", "me"] {
        assert_eq!(count[field], 0, "count.{field}");
    }
    // And the game in the account's list.
    let r = get(&app, None, "/api/games/user/alice").await;
    assert_eq!(r.headers().get("content-type").unwrap(), "application/x-ndjson");
    let text = r.text().await.unwrap();
    let g: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(g["id"], id.as_str());
    assert_eq!(g["status"], "mate");
    assert_eq!(g["winner"], "black");
    assert_eq!(g["moves"], "f2f3 e7e5 g2g4 d8h4");
    assert_eq!(g["players"]["white"]["user"]["name"], "alice");
    assert!(g["players"]["white"]["ratingDiff"].as_i64().unwrap() < 0);
    let r = send(client().get(app.url(&format!("/game/export/{id}"))).header("Accept", "application/json")).await;
    assert_eq!(r.json::<Value>().await.unwrap()["moves"], "f2f3 e7e5 g2g4 d8h4");
    // The users endpoints after the game.
    let st: Value = get(&app, None, "/api/users/status?ids=alice").await.json().await.unwrap();
    assert_eq!(st[0]["playing"], false);
    assert_eq!(get(&app, None, "/api/users/status?ids=").await.status().as_u16(), 400);
    let r = send(client().post(app.url("/api/users")).body("bob,nobody,alice")).await;
    let many: Value = r.json().await.unwrap();
    let names: Vec<&str> = many.as_array().unwrap().iter().map(|u| u["username"].as_str().unwrap()).collect();
    assert_eq!(names, ["bob", "alice"]);
    assert_eq!(many[0]["perfs"]["standard"]["games"], 1);
    let history: Value = get(&app, None, "/api/user/bob/rating-history").await.json().await.unwrap();
    let standard = history.as_array().unwrap().iter().find(|h| h["name"] == "Standard").unwrap();
    let point = standard["points"].as_array().unwrap();
    assert_eq!(point.len(), 1);
    let finished = chessgold::db::games::find(&app.db_pool, &id).await.unwrap().unwrap().finished_at.unwrap();
    let (y, m, d) = (point[0][0].as_i64().unwrap(), point[0][1].as_i64().unwrap(), point[0][2].as_i64().unwrap());
    assert_eq!(
        (y, m, d),
        (i64::from(finished.year()), i64::from(u8::from(finished.month())) - 1, i64::from(finished.day())),
        "year, month from 0 as lichess counts them, day"
    );
    assert_eq!(point[0][3], u["perfs"]["standard"]["rating"]);
    assert!(
        history
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["name"] != "Standard")
            .all(|h| h["points"] == serde_json::json!([]))
    );
    let perf: Value = get(&app, None, "/api/user/bob/perf/blitz").await.json().await.unwrap();
    assert_eq!(perf["perf"]["nb"], 1, "{perf}");
    assert_eq!(perf["perf"]["glicko"]["rating"], u["perfs"]["standard"]["rating"]);
    assert_eq!(perf["stat"]["count"]["win"], 1);
    assert_eq!(perf["stat"]["highest"]["int"], u["perfs"]["standard"]["rating"]);
    // The counts of a speed are of its games only (the 5+0 game is blitz); the rating is
    // standard's one Elo under every speed.
    let bullet: Value = get(&app, None, "/api/user/bob/perf/bullet").await.json().await.unwrap();
    assert_eq!((bullet["stat"]["count"]["all"].as_i64(), bullet["stat"]["count"]["win"].as_i64()), (Some(0), Some(0)));
    assert_eq!(bullet["perf"]["glicko"]["rating"], u["perfs"]["standard"]["rating"]);
    let correspondence: Value = get(&app, None, "/api/user/bob/perf/correspondence").await.json().await.unwrap();
    assert_eq!(correspondence["stat"]["count"]["all"], 0, "{correspondence}");
    assert_eq!(perf["stat"]["count"]["all"], 1, "{perf}");
    assert_eq!(get(&app, None, "/api/user/bob/perf/nope").await.status().as_u16(), 404);
    assert_eq!(get(&app, None, "/api/crosstable/alice/Alice").await.status().as_u16(), 400);
    let cross: Value = get(&app, None, "/api/crosstable/alice/Bob").await.json().await.unwrap();
    assert_eq!(cross, serde_json::json!({"users": {"alice": 0, "bob": 1}, "nbGames": 1}));
    // One game is PGN by default, as on lichess; JSON when asked for.
    let current = get(&app, None, "/api/user/alice/current-game?clocks=true").await;
    assert_eq!(current.headers()["content-type"], "application/x-chess-pgn; charset=utf-8");
    let pgn = current.text().await.unwrap();
    assert!(pgn.starts_with("[Event \"Rated Blitz game\"]\n"), "{pgn}");
    assert!(pgn.contains(&format!("[GameId \"{id}\"]\n")) && pgn.contains("[Termination \"Normal\"]\n"), "{pgn}");
    let current = request(reqwest::Method::GET, &app, None, "/api/user/alice/current-game?moves=false")
        .header("accept", "application/json");
    let current: Value = send(current).await.json().await.unwrap();
    assert_eq!((current["id"].as_str(), current["status"].as_str()), (Some(id.as_str()), Some("mate")));
    assert!(current.get("moves").is_none(), "{current}");
    let r = get(&app, None, "/api/user/alice/current-game?moves=maybe").await;
    assert_eq!(r.status().as_u16(), 400, "an option that does not parse is refused");
    let names: Value = get(&app, None, "/api/player/autocomplete?term=AL").await.json().await.unwrap();
    assert_eq!(names, serde_json::json!(["alice"]));
    let objects: Value = get(&app, None, "/api/player/autocomplete?term=bo&object=true").await.json().await.unwrap();
    assert_eq!(objects, serde_json::json!({"result": [{"id": "bob", "name": "bob", "title": null}]}));
    assert_eq!(get(&app, None, "/api/player/autocomplete?term=a").await.status().as_u16(), 400);
    assert_eq!(
        get(&app, None, "/api/player/autocomplete?term=a_").await.json::<Value>().await.unwrap(),
        serde_json::json!([])
    );
}

#[tokio::test]
async fn resign_draw_and_chat_go_through_the_round() {
    let app = spawn_app().await;
    let alice = player(&app, "alice", ALL).await;
    let bob = player(&app, "bob", ALL).await;
    let mut a_events = Ndjson::open(&app, &alice.token, "/api/stream/event").await;
    let mut b_events = Ndjson::open(&app, &bob.token, "/api/stream/event").await;
    let id = challenge_accepted(&app, &alice, &bob, &mut a_events, &mut b_events).await;
    let mut b_game = Ndjson::open(&app, &bob.token, &format!("/api/board/game/stream/{id}")).await;
    assert_eq!(b_game.next().await.unwrap()["type"], "gameFull");
    let playing: Value = get(&app, Some(&bob.token), "/api/account/playing").await.json().await.unwrap();
    assert_eq!(playing["nowPlaying"][0]["gameId"], id.as_str());
    assert_eq!(playing["nowPlaying"][0]["color"], "black");
    assert_eq!(playing["nowPlaying"][0]["isMyTurn"], false);
    let r = post_form(
        &app,
        Some(&alice.token),
        &format!("/api/board/game/{id}/chat"),
        &[("room", "player"), ("text", "hello")],
    )
    .await;
    assert_eq!(r.status().as_u16(), 200);
    let chat = b_game.until("chatLine").await;
    assert_eq!(chat["username"], "alice");
    assert_eq!(chat["text"], "hello");
    // Chat is held to a socket's pace: 5 lines per 10 s.
    let codes = {
        let mut codes = Vec::new();
        for i in 0..5 {
            let text = format!("line {i}");
            let r = post_form(
                &app,
                Some(&alice.token),
                &format!("/api/board/game/{id}/chat"),
                &[("room", "player"), ("text", &text)],
            )
            .await;
            codes.push(r.status().as_u16());
        }
        codes
    };
    assert_eq!(codes, [200, 200, 200, 200, 429]);
    // A player may write to the spectators too (not heard on the board stream, which is the
    // players' room), and nowhere else.
    let r = post_form(
        &app,
        Some(&bob.token),
        &format!("/api/board/game/{id}/chat"),
        &[("room", "spectator"), ("text", "hi all")],
    )
    .await;
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
    let rooms: Vec<(String, String)> =
        sqlx::query_as("SELECT room, text FROM game_chat WHERE game_id = $1 ORDER BY id")
            .bind(&id)
            .fetch_all(&app.db_pool)
            .await
            .unwrap();
    assert_eq!(rooms.last().unwrap(), &("spectator".to_string(), "hi all".to_string()));
    let r =
        post_form(&app, Some(&bob.token), &format!("/api/board/game/{id}/chat"), &[("room", "lobby"), ("text", "x")])
            .await;
    assert_eq!(r.status().as_u16(), 400);
    // The players' room as lichess's chat history: oldest first, without the spectators' line.
    let history: Value = get(&app, Some(&bob.token), &format!("/api/board/game/{id}/chat")).await.json().await.unwrap();
    let texts: Vec<&str> = history.as_array().unwrap().iter().map(|l| l["text"].as_str().unwrap()).collect();
    assert_eq!(texts, ["hello", "line 0", "line 1", "line 2", "line 3"]);
    assert_eq!(history[0]["user"], "alice");
    let r =
        post_form(&app, Some(&alice.token), &format!("/api/board/game/{id}/move/e2e4?offeringDraw=true"), &[]).await;
    assert_eq!(r.status().as_u16(), 200);
    let offered = loop {
        let s = b_game.until("gameState").await;
        if s["wdraw"] == true {
            break s;
        }
    };
    assert_eq!(offered["moves"], "e2e4");
    // Declining clears it.
    let r = post_form(&app, Some(&bob.token), &format!("/api/board/game/{id}/draw/no"), &[]).await;
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(b_game.until("gameState").await["wdraw"], false);
    assert_eq!(
        post_form(&app, Some(&bob.token), &format!("/api/board/game/{id}/draw/maybe"), &[]).await.status().as_u16(),
        400
    );
    let r = post_form(&app, Some(&bob.token), &format!("/api/board/game/{id}/resign"), &[]).await;
    assert_eq!(r.status().as_u16(), 200);
    let end = loop {
        let s = b_game.until("gameState").await;
        if s["status"] != "started" {
            break s;
        }
    };
    assert_eq!(end["status"], "resign");
    assert_eq!(end["winner"], "white");
    // Playing after the end is refused.
    let r = post_form(&app, Some(&bob.token), &format!("/api/board/game/{id}/move/e7e5"), &[]).await;
    assert_eq!(r.status().as_u16(), 400);
}

/// A player already in a clocked game cannot start another: the accept is refused (409, in
/// words, with the way back to the running game), the challenge stays open, and once the game is
/// over it can be accepted.
#[tokio::test]
async fn a_busy_player_accepts_a_challenge_only_after_the_game() {
    let app = spawn_app().await;
    let alice = player(&app, "alice", ALL).await;
    let bob = player(&app, "bob", ALL).await;
    let carol = player(&app, "carol", ALL).await;
    let mut a_events = Ndjson::open(&app, &alice.token, "/api/stream/event").await;
    let mut b_events = Ndjson::open(&app, &bob.token, "/api/stream/event").await;
    // Carol's challenge comes while bob is free (sent to a busy player, it would be refused).
    let r =
        post_form(&app, Some(&carol.token), "/api/challenge/bob", &[("clock.limit", "180"), ("clock.increment", "2")])
            .await;
    let id = r.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    b_events.until("challenge").await;
    let first = challenge_accepted(&app, &alice, &bob, &mut a_events, &mut b_events).await;
    let r = post_form(&app, Some(&bob.token), &format!("/api/challenge/{id}/accept"), &[]).await;
    assert_eq!(r.status().as_u16(), 409);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["code"], "already_playing");
    assert_eq!(body["url"], format!("/{first}").as_str());
    assert!(body["error"].as_str().unwrap().starts_with("You are playing a game with a clock"), "{body}");
    let games: (i64,) = sqlx::query_as("SELECT count(*) FROM games").fetch_one(&app.db_pool).await.unwrap();
    assert_eq!(games.0, 1, "no second game");
    assert_eq!(
        post_form(&app, Some(&bob.token), &format!("/api/board/game/{first}/resign"), &[]).await.status().as_u16(),
        200
    );
    let r = post_form(&app, Some(&bob.token), &format!("/api/challenge/{id}/accept"), &[]).await;
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
    assert_eq!(b_events.until("gameStart").await["game"]["gameId"], id.as_str());
}

#[tokio::test]
async fn a_declined_challenge_tells_the_challenger_and_a_cancelled_one_the_challenged() {
    let app = spawn_app().await;
    let alice = player(&app, "alice", ALL).await;
    let bob = player(&app, "bob", ALL).await;
    let mut a_events = Ndjson::open(&app, &alice.token, "/api/stream/event").await;
    let mut b_events = Ndjson::open(&app, &bob.token, "/api/stream/event").await;
    // JSON bodies are accepted as well as forms.
    let r = send(
        client()
            .post(app.url("/api/challenge/BOB"))
            .bearer_auth(&alice.token)
            .json(&serde_json::json!({"rated": false, "variant": "gold", "color": "black"})),
    )
    .await;
    assert_eq!(r.status().as_u16(), 200);
    let c: Value = r.json().await.unwrap();
    assert_eq!(c["timeControl"]["type"], "unlimited");
    assert_eq!(c["variant"]["key"], "gold");
    let id = c["id"].as_str().unwrap().to_string();
    b_events.until("challenge").await;
    let r = post_form(&app, Some(&bob.token), &format!("/api/challenge/{id}/decline"), &[("reason", "later")]).await;
    assert_eq!(r.status().as_u16(), 200);
    let d = a_events.until("challengeDeclined").await;
    assert_eq!(d["challenge"]["id"], id.as_str());
    assert_eq!(d["challenge"]["status"], "declined");
    assert_eq!(d["challenge"]["declineReasonKey"], "later");
    // Answering again: the challenge is gone.
    let r = post_form(&app, Some(&bob.token), &format!("/api/challenge/{id}/accept"), &[]).await;
    assert_eq!(r.status().as_u16(), 404);

    let r = post_form(&app, Some(&alice.token), "/api/challenge/bob", &[]).await;
    let id = r.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    b_events.until("challenge").await;
    // Only the challenger cancels.
    let r = post_form(&app, Some(&bob.token), &format!("/api/challenge/{id}/cancel"), &[]).await;
    assert_eq!(r.status().as_u16(), 404);
    let r = post_form(&app, Some(&alice.token), &format!("/api/challenge/{id}/cancel"), &[]).await;
    assert_eq!(r.status().as_u16(), 200);
    let c = b_events.until("challengeCanceled").await;
    assert_eq!(c["challenge"]["id"], id.as_str());
}

#[tokio::test]
async fn board_seeks_pair_two_token_users() {
    let app = spawn_app().await;
    let alice = player(&app, "alice", ALL).await;
    let bob = player(&app, "bob", ALL).await;
    let mut a_events = Ndjson::open(&app, &alice.token, "/api/stream/event").await;
    let mut b_events = Ndjson::open(&app, &bob.token, "/api/stream/event").await;
    // One seeks with a form, the other with JSON.
    let form = client()
        .post(app.url("/api/board/seek"))
        .bearer_auth(&alice.token)
        .form(&[("time", "3"), ("increment", "2"), ("rated", "true"), ("variant", "standard")])
        .send();
    let json = client()
        .post(app.url("/api/board/seek"))
        .bearer_auth(&bob.token)
        .json(&serde_json::json!({"time": 3, "increment": 2, "rated": true, "color": "random"}))
        .send();
    let (ra, rb) = tokio::join!(form, json);
    let (mut sa, mut sb) = (Ndjson::from("POST", ra.unwrap()), Ndjson::from("POST", rb.unwrap()));
    // Both seeks end once paired.
    let (ea, eb) = tokio::join!(sa.next(), sb.next());
    assert!(ea.is_none() && eb.is_none());
    let ga = a_events.until("gameStart").await;
    let gb = b_events.until("gameStart").await;
    assert_eq!(ga["game"]["gameId"], gb["game"]["gameId"]);
    assert_ne!(ga["game"]["color"], gb["game"]["color"]);
    assert_eq!(ga["game"]["speed"], "blitz");
    assert_eq!((ga["game"]["source"].as_str(), gb["game"]["source"].as_str()), (Some("pool"), Some("pool")));
    assert!(app.state_pools_empty().await);
    // A time control the pools do not offer is refused.
    let r = post_form(&app, Some(&alice.token), "/api/board/seek", &[("time", "7"), ("increment", "1")]).await;
    assert_eq!(r.status().as_u16(), 400);
    // So is a colour: the pools draw colours.
    let r = post_form(
        &app,
        Some(&alice.token),
        "/api/board/seek",
        &[("time", "3"), ("increment", "2"), ("color", "white")],
    )
    .await;
    assert_eq!(r.status().as_u16(), 400);
    assert!(r.text().await.unwrap().contains("color=random"));
    // A good seek while the game with a clock goes on: refused with the way back to it.
    let r = post_form(&app, Some(&alice.token), "/api/board/seek", &[("time", "3"), ("increment", "2")]).await;
    assert_eq!(r.status().as_u16(), 409);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["code"], "already_playing");
    assert_eq!(body["game"], ga["game"]["gameId"]);
    assert!(app.state_pools_empty().await);
}

#[tokio::test]
async fn bad_requests_get_the_right_4xx() {
    let app = spawn_app().await;
    let alice = player(&app, "alice", ALL).await;
    let bob = player(&app, "bob", ALL).await;
    let reader = player(&app, "reader", &["challenge:read"]).await;
    // 401: no token, a wrong token, a malformed header.
    let r = get(&app, None, "/api/account").await;
    assert_eq!(r.status().as_u16(), 401);
    assert!(r.json::<Value>().await.unwrap()["error"].is_string());
    assert_eq!(get(&app, Some("cgp_nope"), "/api/account").await.status().as_u16(), 401);
    let r = send(client().get(app.url("/api/account")).header("Authorization", "Basic abc")).await;
    assert_eq!(r.status().as_u16(), 401);
    let r = get(&app, Some(&alice.token), "/api/account").await;
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(r.json::<Value>().await.unwrap()["username"], "alice");
    // 403: a scope the token lacks.
    let r = post_form(&app, Some(&reader.token), "/api/challenge/alice", &[]).await;
    assert_eq!(r.status().as_u16(), 403);
    assert!(r.json::<Value>().await.unwrap()["error"].as_str().unwrap().contains("challenge:write"));
    // 404: unknown user, game, challenge.
    assert_eq!(get(&app, None, "/api/user/nobody").await.status().as_u16(), 404);
    assert_eq!(post_form(&app, Some(&alice.token), "/api/challenge/nobody", &[]).await.status().as_u16(), 404);
    assert_eq!(
        post_form(&app, Some(&alice.token), "/api/board/game/zzzzzzzz/move/e2e4", &[]).await.status().as_u16(),
        404
    );
    assert_eq!(get(&app, Some(&alice.token), "/api/board/game/stream/zzzzzzzz").await.status().as_u16(), 404);
    assert_eq!(post_form(&app, Some(&alice.token), "/api/challenge/zzzzzzzz/accept", &[]).await.status().as_u16(), 404);
    // 400: bad terms, bad move text, an illegal move, not one's turn.
    let r = post_form(&app, Some(&alice.token), "/api/challenge/bob", &[("clock.limit", "x")]).await;
    assert_eq!(r.status().as_u16(), 400);
    let r = post_form(&app, Some(&alice.token), "/api/challenge/bob", &[("variant", "nope")]).await;
    assert_eq!(r.status().as_u16(), 400);
    let mut a_events = Ndjson::open(&app, &alice.token, "/api/stream/event").await;
    let mut b_events = Ndjson::open(&app, &bob.token, "/api/stream/event").await;
    let id = challenge_accepted(&app, &alice, &bob, &mut a_events, &mut b_events).await;
    for (who, action, code) in
        [(&alice, "zz9", "malformed_action"), (&alice, "e2e5", "illegal_action"), (&bob, "e7e5", "not_your_turn")]
    {
        let r = post_form(&app, Some(&who.token), &format!("/api/board/game/{id}/move/{action}"), &[]).await;
        assert_eq!(r.status().as_u16(), 400, "{action}");
        assert_eq!(r.json::<Value>().await.unwrap()["code"], code, "{action}");
    }
    // A player of another game is not a player of this one.
    let carol = player(&app, "carol", ALL).await;
    assert_eq!(
        post_form(&app, Some(&carol.token), &format!("/api/board/game/{id}/resign"), &[]).await.status().as_u16(),
        404
    );
    // Tokens work from any origin (no cookie, so no cross-site forgery).
    let r = send(
        client()
            .post(app.url(&format!("/api/board/game/{id}/move/e2e4")))
            .bearer_auth(&alice.token)
            .header("Origin", "https://elsewhere.example"),
    )
    .await;
    assert_eq!(r.status().as_u16(), 200);
    // Errors the framework answers are lichess's JSON too: a body over the size limit, an
    // export of no game, a route that does not exist; the status stays and CORS is there.
    // 300 KiB is over the route's limit; one byte over the 1 MiB every request is read up to
    // is refused before (one byte over, so that the server has read the whole body when it
    // answers, and the client is not cut off writing).
    for size in [300 * 1024, chessgold::middleware::MAX_CHECKED_BODY + 1] {
        let r = send(
            client()
                .post(app.url(&format!("/api/board/game/{id}/chat")))
                .bearer_auth(&alice.token)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .body("x".repeat(size)),
        )
        .await;
        assert_eq!(r.status().as_u16(), 413, "{size}");
        assert_eq!(r.headers().get("access-control-allow-origin").unwrap(), "*");
        assert!(r.headers().contains_key("x-request-id"));
        let e: Value = r.json().await.unwrap();
        assert_eq!(e["code"], "too_large", "{size}: {e}");
        assert!(e["error"].as_str().is_some_and(|t| !t.is_empty()));
    }
    // Paths the description does not have (no route, or not under /api): unchecked.
    for path in ["/game/export/zzzzzzzz", "/api/no/such/thing", "/game/export/short"] {
        let r = request(reqwest::Method::GET, &app, None, path).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 404, "{path}");
        assert_eq!(r.json::<Value>().await.unwrap()["code"], "not_found", "{path}");
    }
}

/// One event stream per token, as on lichess: opening a second one with the same token ends the
/// first; a stream of another token of the same account stays open.
#[tokio::test]
async fn a_second_event_stream_of_a_token_closes_the_first() {
    let app = spawn_app().await;
    let alice = player(&app, "alice", ALL).await;
    let user = chessgold::db::users::find_by_name(&app.db_pool, "alice").await.unwrap().unwrap();
    let (other, hash) = chessgold::api::auth::new_token().unwrap();
    chessgold::db::tokens::insert(&app.db_pool, user.id, "second", &["challenge:read".to_string()], &hash)
        .await
        .unwrap();
    let mut first = Ndjson::open(&app, &alice.token, "/api/stream/event").await;
    let mut elsewhere = Ndjson::open(&app, &other, "/api/stream/event").await;
    let mut second = Ndjson::open(&app, &alice.token, "/api/stream/event").await;
    assert!(first.next().await.is_none(), "the first stream of the token ends");
    // The others go on: a challenge reaches both.
    let bob = player(&app, "bob", ALL).await;
    let r = post_form(&app, Some(&bob.token), "/api/challenge/alice", &[]).await;
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(second.until("challenge").await["challenge"]["challenger"]["name"], "bob");
    assert_eq!(elsewhere.until("challenge").await["challenge"]["challenger"]["name"], "bob");
}

#[tokio::test]
async fn each_token_has_its_rate_limit() {
    let app = spawn_app_with(|s| s.rate_limit.api_per_minute = 3).await;
    let alice = player(&app, "alice", ALL).await;
    let bob = player(&app, "bob", ALL).await;
    for _ in 0..3 {
        assert_eq!(get(&app, Some(&alice.token), "/api/account").await.status().as_u16(), 200);
    }
    let r = get(&app, Some(&alice.token), "/api/account").await;
    assert_eq!(r.status().as_u16(), 429);
    assert!(r.headers().get("retry-after").is_some());
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "rate_limited");
    // Another token is not affected.
    assert_eq!(get(&app, Some(&bob.token), "/api/account").await.status().as_u16(), 200);
    tokio::time::sleep(Duration::from_millis(10)).await;
}

/// The site's open challenge link (its maker plays): a guest accepts it on its page, and the
/// maker's event stream tells of the game.
#[tokio::test]
async fn an_open_challenge_link_is_accepted_by_a_guest() {
    let app = spawn_app().await;
    let alice = player(&app, "alice", ALL).await;
    let mut a_events = Ndjson::open(&app, &alice.token, "/api/stream/event").await;
    let link = |time: &'static str, mode: &'static str| {
        let b = alice.browser.clone();
        async move {
            let r = b
                .post_form(
                    "/@/alice",
                    "/challenge/open",
                    &[("variant", "standard"), ("time", time), ("mode", mode), ("color", "random")],
                )
                .await;
            assert_eq!(r.status().as_u16(), 303);
            let to = r.headers()["location"].to_str().unwrap().to_string();
            to.strip_prefix("/challenge/").unwrap().to_string()
        }
    };
    let id = link("10+5", "casual").await;
    let c: Value = get(&app, Some(&alice.token), &format!("/api/challenge/{id}/show")).await.json().await.unwrap();
    assert!(c["destUser"].is_null() && c.get("urlWhite").is_none(), "{c}");
    assert_eq!(c["challenger"]["name"], "alice");
    assert!(c["url"].as_str().unwrap().ends_with(&format!("/challenge/{id}")));
    let guest = Browser::new(&app.address);
    let page = guest.html(&format!("/challenge/{id}")).await;
    assert!(page.contains("id=\"accept-form\""), "{page}");
    let r = guest.post_form(&format!("/challenge/{id}"), &format!("/challenge/{id}/accept"), &[]).await;
    assert_eq!(r.status().as_u16(), 303);
    assert_eq!(r.headers().get("location").unwrap(), &format!("/{id}"));
    let start = a_events.until("gameStart").await;
    assert_eq!(start["game"]["gameId"], id.as_str());
    assert_eq!(start["game"]["opponent"]["username"], "Anonymous");
    let (status, _, _) = crate::round::stored_result(&app.db_pool, &id).await;
    assert_eq!(status, 20);
    // The link now leads to the game; a second visitor cannot accept it again.
    let other = Browser::new(&app.address);
    let r = other.http.get(app.url(&format!("/challenge/{id}"))).send().await.unwrap();
    assert_eq!(r.headers().get("location").unwrap(), &format!("/{id}"));
    let r = post_form(&app, Some(&alice.token), &format!("/api/board/game/{id}/resign"), &[]).await;
    assert_eq!(r.status().as_u16(), 200);
    // A rated link needs an account.
    let id = link("5+0", "rated").await;
    let page = other.html(&format!("/challenge/{id}")).await;
    assert!(!page.contains("id=\"accept-form\""));
    let r = other.post_form("/game/new", &format!("/challenge/{id}/accept"), &[]).await;
    assert_eq!(r.status().as_u16(), 400);
}

/// Lichess's open challenge (`POST /api/challenge/open`): made for two others, who take White
/// and Black by its links or with `color` on the API; the first to take a seat is an account,
/// and becomes the challenger; a guest may take the second seat of a casual one on its page.
#[tokio::test]
async fn an_open_challenge_is_played_by_the_two_who_take_its_seats() {
    let app = spawn_app().await;
    let alice = player(&app, "alice", ALL).await;
    let bob = player(&app, "bob", ALL).await;
    let carol = player(&app, "carol", ALL).await;
    let r = post_form(&app, Some(&alice.token), "/api/challenge/open", &[("color", "white")]).await;
    assert_eq!(r.status().as_u16(), 400, "the players choose their colours");
    let terms = [("clock.limit", "300"), ("clock.increment", "3"), ("rated", "true")];
    let r = post_form(&app, Some(&alice.token), "/api/challenge/open", &terms).await;
    assert_eq!(r.status().as_u16(), 200);
    let c: Value = r.json().await.unwrap();
    let id = c["id"].as_str().unwrap().to_string();
    assert!(c["challenger"].is_null() && c["destUser"].is_null() && c.get("finalColor").is_none(), "{c}");
    assert_eq!(c["open"], serde_json::json!({}));
    for (key, color) in [("urlWhite", "white"), ("urlBlack", "black")] {
        assert!(c[key].as_str().unwrap().ends_with(&format!("/challenge/{id}?color={color}")), "{c}");
    }
    // A guest cannot take the first seat; a colour must be one.
    let guest = Browser::new(&app.address);
    let page = guest.html(&format!("/challenge/{id}?color=white")).await;
    assert!(page.contains("Open challenge for two players") && page.contains("to take a seat"), "{page}");
    let r = guest.post_form("/game/new", &format!("/challenge/{id}/accept"), &[]).await;
    assert_eq!(r.status().as_u16(), 400);
    let r = post_form(&app, Some(&bob.token), &format!("/api/challenge/{id}/accept?color=purple"), &[]).await;
    assert_eq!(r.status().as_u16(), 400);
    let mut b_events = Ndjson::open(&app, &bob.token, "/api/stream/event").await;
    let mut c_events = Ndjson::open(&app, &carol.token, "/api/stream/event").await;
    let r = post_form(&app, Some(&bob.token), &format!("/api/challenge/{id}/accept?color=black"), &[]).await;
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
    let seated = b_events.until("challenge").await;
    assert_eq!(
        (seated["challenge"]["challenger"]["name"].as_str(), seated["challenge"]["finalColor"].as_str()),
        (Some("bob"), Some("black")),
        "{seated}"
    );
    assert_eq!(seated["challenge"]["direction"], "out");
    let r = post_form(&app, Some(&bob.token), &format!("/api/challenge/{id}/accept"), &[]).await;
    assert_eq!(r.status().as_u16(), 400, "one seat each");
    let r = post_form(&app, Some(&carol.token), &format!("/api/challenge/{id}/accept?color=black"), &[]).await;
    assert_eq!(r.status().as_u16(), 400);
    assert!(r.text().await.unwrap().contains("black is taken"));
    let r = post_form(&app, Some(&carol.token), &format!("/api/challenge/{id}/accept"), &[]).await;
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
    for (events, color, opponent) in [(&mut b_events, "black", "carol"), (&mut c_events, "white", "bob")] {
        let start = events.until("gameStart").await;
        assert_eq!(start["game"]["gameId"], id.as_str());
        assert_eq!((start["game"]["color"].as_str(), start["game"]["rated"].as_bool()), (Some(color), Some(true)));
        assert_eq!(start["game"]["opponent"]["username"], opponent);
    }
    let g: Value = send(
        request(reqwest::Method::GET, &app, None, &format!("/game/export/{id}")).header("accept", "application/json"),
    )
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(
        (g["players"]["white"]["user"]["name"].as_str(), g["players"]["black"]["user"]["name"].as_str()),
        (Some("carol"), Some("bob")),
        "the maker does not play: {g}"
    );

    // On the site: an account takes White by its link, a guest takes Black.
    let r = post_form(&app, Some(&alice.token), "/api/challenge/open", &[]).await;
    let id = r.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    let dana = player(&app, "dana", ALL).await;
    let page = dana.browser.html(&format!("/challenge/{id}?color=white")).await;
    assert!(page.contains("id=\"take-white\"") && !page.contains("id=\"take-black\""), "{page}");
    let r = dana
        .browser
        .post_form(&format!("/challenge/{id}"), &format!("/challenge/{id}/accept"), &[("color", "white")])
        .await;
    assert_eq!(r.status().as_u16(), 303);
    assert_eq!(r.headers()["location"], format!("/challenge/{id}").as_str());
    let page = dana.browser.html(&format!("/challenge/{id}")).await;
    assert!(page.contains("id=\"challenge-waiting\""), "the taker waits: {page}");
    let page = guest.html(&format!("/challenge/{id}")).await;
    assert!(page.contains("id=\"accept-form\"") && page.contains("dana plays"), "{page}");
    let r = guest.post_form(&format!("/challenge/{id}"), &format!("/challenge/{id}/accept"), &[]).await;
    assert_eq!(r.status().as_u16(), 303);
    assert_eq!(r.headers()["location"], format!("/{id}").as_str());
    let (status, _, _) = crate::round::stored_result(&app.db_pool, &id).await;
    assert_eq!(status, 20);

    // For two named accounts (lichess's `users`): the first is White, the second Black, and
    // nobody else may take a seat.
    let r = post_form(&app, Some(&alice.token), "/api/challenge/open", &[("users", "bob")]).await;
    assert_eq!(r.status().as_u16(), 400);
    let r = post_form(&app, Some(&alice.token), "/api/challenge/open", &[("users", "bob,nobody-here")]).await;
    assert_eq!(r.status().as_u16(), 404);
    let r = post_form(&app, Some(&alice.token), "/api/challenge/open", &[("users", "Bob,carol")]).await;
    assert_eq!(r.status().as_u16(), 200);
    let c: Value = r.json().await.unwrap();
    assert_eq!(c["open"], serde_json::json!({"userIds": ["bob", "carol"]}), "{c}");
    let id = c["id"].as_str().unwrap().to_string();
    let r = post_form(&app, Some(&dana.token), &format!("/api/challenge/{id}/accept"), &[]).await;
    assert_eq!(r.status().as_u16(), 403, "not one of the two");
    let r = post_form(&app, Some(&carol.token), &format!("/api/challenge/{id}/accept?color=white"), &[]).await;
    assert_eq!(r.status().as_u16(), 400, "carol's seat is Black");
    let mut b_events = Ndjson::open(&app, &bob.token, "/api/stream/event").await;
    let r = post_form(&app, Some(&carol.token), &format!("/api/challenge/{id}/accept"), &[]).await;
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
    let told = b_events.until("challenge").await;
    assert_eq!(
        (told["challenge"]["id"].as_str(), told["challenge"]["direction"].as_str()),
        (Some(id.as_str()), Some("in")),
        "bob is told his seat waits: {told}"
    );
    let r = post_form(&app, Some(&dana.token), &format!("/api/challenge/{id}/accept"), &[]).await;
    assert_eq!(r.status().as_u16(), 404, "the other seat is bob's");
    let r = post_form(&app, Some(&bob.token), &format!("/api/challenge/{id}/accept"), &[]).await;
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
    let live = chessgold::game::store::load(&app.db_pool, &chessgold::game::GameId::parse(&id).unwrap())
        .await
        .unwrap()
        .unwrap();
    let names: Vec<&str> = live.seats.iter().map(|s| s.as_ref().unwrap().name.as_str()).collect();
    assert_eq!(names, ["bob", "carol"]);
}

#[tokio::test]
async fn a_challenge_from_the_profile_page_is_accepted_on_its_page() {
    let app = spawn_app().await;
    let alice = Browser::new(&app.address);
    alice.signup("alice").await;
    let bob = Browser::new(&app.address);
    bob.signup("bob").await;
    let profile = alice.html("/@/bob").await;
    assert!(profile.contains("action=\"/@/bob/challenge\""));
    let r = alice
        .post_form(
            "/@/bob",
            "/@/bob/challenge",
            &[("variant", "standard"), ("time", "5+3"), ("mode", "rated"), ("color", "white")],
        )
        .await;
    assert_eq!(r.status().as_u16(), 303);
    let at = r.headers().get("location").unwrap().to_str().unwrap().to_string();
    let id = at.trim_start_matches("/challenge/").to_string();
    assert!(alice.html(&at).await.contains("id=\"challenge-waiting\""));
    // Every page of bob's carries the notification area fed by the event stream.
    assert!(bob.html("/").await.contains("id=\"notifications\""));
    let page = bob.html(&at).await;
    assert!(page.contains("id=\"accept-form\"") && page.contains("id=\"decline-form\""));
    let r = bob.post_form(&at, &format!("{at}/accept"), &[]).await;
    assert_eq!(r.status().as_u16(), 303);
    assert_eq!(r.headers().get("location").unwrap(), &format!("/{id}"));
    // The challenger's page now leads to the game too.
    let r = alice.http.get(format!("{}{at}", app.address)).send().await.unwrap();
    assert_eq!(r.headers().get("location").unwrap(), &format!("/{id}"));
}

#[tokio::test]
async fn tokens_are_created_and_revoked_on_the_account_page() {
    let app = spawn_app().await;
    let alice = Browser::new(&app.address);
    alice.signup("alice").await;
    let r = alice
        .post_form("/account/tokens", "/account/tokens", &[("description", "my board"), ("board:play", "on")])
        .await;
    assert_eq!(r.status().as_u16(), 200);
    let html = r.text().await.unwrap();
    let at = html.find("<code class=\"token-value\">").unwrap() + "<code class=\"token-value\">".len();
    let token = html[at..at + html[at..].find('<').unwrap()].to_string();
    assert!(token.starts_with("cgp_"));
    assert!(html.contains("my board"));
    assert_eq!(get(&app, Some(&token), "/api/account").await.status().as_u16(), 200);
    // Only board:play was granted.
    assert_eq!(post_form(&app, Some(&token), "/api/challenge/open", &[]).await.status().as_u16(), 403);
    // The token itself is stored only as a hash.
    let stored: Vec<String> = sqlx::query_scalar("SELECT hash FROM api_tokens").fetch_all(&app.db_pool).await.unwrap();
    assert_eq!(stored.len(), 1);
    assert_ne!(stored[0], token);
    let page = alice.html("/account/tokens").await;
    assert!(!page.contains(&token), "the token is shown only once");
    let at = page.find("action=\"/account/tokens/").unwrap() + "action=\"".len();
    let revoke = page[at..at + page[at..].find('"').unwrap()].to_string();
    let r = alice.post_form("/account/tokens", &revoke, &[]).await;
    assert_eq!(r.status().as_u16(), 303);
    assert_eq!(get(&app, Some(&token), "/api/account").await.status().as_u16(), 401);
    // Without the CSRF token the form is refused.
    let r = alice
        .http
        .post(app.url("/account/tokens"))
        .header("Origin", &app.address)
        .form(&[("description", "x")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 403);
}

#[tokio::test]
async fn challenges_events_and_board_games_cross_instances() {
    let one = crate::helpers::spawn_app_with_redis().await;
    let two = crate::round::instances::second_instance(&one).await;
    let alice = player(&one, "alice", ALL).await;
    let bob = player(&one, "bob", ALL).await;
    let mut a_events = Ndjson::open(&one, &alice.token, "/api/stream/event").await;
    let mut b_events = Ndjson::open(&two, &bob.token, "/api/stream/event").await;
    // A declined challenge: sent on one, declined on two, heard on one.
    let r = post_form(&one, Some(&alice.token), "/api/challenge/bob", &[]).await;
    let id = r.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    assert_eq!(b_events.until("challenge").await["challenge"]["id"], id.as_str());
    let r = post_form(&two, Some(&bob.token), &format!("/api/challenge/{id}/decline"), &[("reason", "tooFast")]).await;
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(a_events.until("challengeDeclined").await["challenge"]["declineReasonKey"], "tooFast");
    // An accepted one, played with a stream and the moves on each instance.
    let id = challenge_accepted(&one, &alice, &bob, &mut a_events, &mut b_events).await;
    let mut a_game = Ndjson::open(&one, &alice.token, &format!("/api/board/game/stream/{id}")).await;
    let mut b_game = Ndjson::open(&two, &bob.token, &format!("/api/board/game/stream/{id}")).await;
    a_game.until("gameFull").await;
    b_game.until("gameFull").await;
    for (i, action) in ["f2f3", "e7e5", "g2g4", "d8h4"].iter().enumerate() {
        let (app, p) = if i % 2 == 0 { (&one, &alice) } else { (&two, &bob) };
        play(app, p, &id, action).await;
    }
    for s in [&mut a_game, &mut b_game] {
        let mut st = s.until("gameState").await;
        while st["status"] == "started" {
            st = s.until("gameState").await;
        }
        assert_eq!((st["status"].as_str(), st["winner"].as_str()), (Some("mate"), Some("black")));
        assert_eq!(st["moves"], "f2f3 e7e5 g2g4 d8h4");
    }
    assert_eq!(a_events.until("gameFinish").await["game"]["gameId"], id.as_str());
    assert_eq!(b_events.until("gameFinish").await["game"]["gameId"], id.as_str());
}

#[tokio::test]
async fn an_unanswered_challenge_lapses_and_both_sides_hear_it() {
    let app = spawn_app().await;
    let alice = player(&app, "alice", ALL).await;
    let bob = player(&app, "bob", ALL).await;
    let mut a_events = Ndjson::open(&app, &alice.token, "/api/stream/event").await;
    let mut b_events = Ndjson::open(&app, &bob.token, "/api/stream/event").await;
    let r = post_form(&app, Some(&alice.token), "/api/challenge/bob", &[]).await;
    let id = r.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    b_events.until("challenge").await;
    sqlx::query("UPDATE challenges SET expires_at = now() - interval '1 second' WHERE id = $1")
        .bind(&id)
        .execute(&app.db_pool)
        .await
        .unwrap();
    for events in [&mut a_events, &mut b_events] {
        let c = events.until("challengeCanceled").await;
        assert_eq!(c["challenge"]["id"], id.as_str());
        assert_eq!(c["challenge"]["status"], "canceled");
    }
    assert_eq!(
        post_form(&app, Some(&bob.token), &format!("/api/challenge/{id}/accept"), &[]).await.status().as_u16(),
        404
    );
}

/// `POST /api/token/test` as lichess answers it (what lichess-bot asks first), with lichess's
/// scopes recognised and unknown ones refused, then `DELETE /api/token` revoking the token of
/// the request.
#[tokio::test]
async fn tokens_are_tested_and_revoked_as_on_lichess() {
    let app = spawn_app().await;
    let alice = player(&app, "Alice", &["bot:play", "board:play", "preference:read", "email:read"]).await;
    let bob = player(&app, "bob", &["challenge:read"]).await;
    let body = format!("{}, {},cgp_nonsense", alice.token, bob.token);
    let r = send(client().post(app.url("/api/token/test")).body(body)).await;
    assert_eq!(r.status().as_u16(), 200);
    let tested: Value = r.json().await.unwrap();
    assert_eq!(
        tested,
        serde_json::json!({
            alice.token.as_str(): {"scopes": "bot:play,board:play,preference:read,email:read", "userId": "alice", "expires": null},
            bob.token.as_str(): {"scopes": "challenge:read", "userId": "bob", "expires": null},
            "cgp_nonsense": null,
        })
    );
    for bad in ["", " , ", "\u{0}"] {
        let r = send(client().post(app.url("/api/token/test")).body(bad.to_string())).await;
        let status = r.status().as_u16();
        let answer: Value = r.json().await.unwrap();
        if bad == "\u{0}" {
            // A token that is no token: simply unknown.
            assert_eq!((status, answer), (200, serde_json::json!({"\u{0}": null})));
        } else {
            assert_eq!((status, answer["code"].as_str()), (400, Some("bad_body")), "{bad:?}");
        }
    }

    // Lichess's scopes are offered on the account page; an unknown one is refused in words.
    let page = Browser::new(&app.address);
    page.signup("carol").await;
    let html = page.html("/account/tokens").await;
    for scope in ["bot:play", "email:read", "preference:read", "tournament:write"] {
        assert!(html.contains(scope), "{scope} is offered");
    }
    assert!(chessgold::api::auth::parse_scopes("bot:play,web:mod").unwrap_err().contains("unknown scope 'web:mod'"));

    // Revoking needs the token itself; afterwards it is gone, and the others stay.
    let r = send(client().delete(app.url("/api/token"))).await;
    assert_eq!(r.status().as_u16(), 401);
    let r = send(client().delete(app.url("/api/token")).bearer_auth(&alice.token)).await;
    assert_eq!(r.status().as_u16(), 204);
    assert_eq!(get(&app, Some(&alice.token), "/api/account").await.status().as_u16(), 401);
    assert_eq!(client().delete(app.url("/api/token")).bearer_auth(&alice.token).send().await.unwrap().status(), 401);
    let r = send(client().post(app.url("/api/token/test")).body(alice.token.clone())).await;
    assert_eq!(r.json::<Value>().await.unwrap()[alice.token.as_str()], Value::Null);
    assert_eq!(get(&app, Some(&bob.token), "/api/account").await.status().as_u16(), 200);
}

/// The API answers pages of any origin as lichess's does: `Access-Control-Allow-Origin: *` on
/// every answer under `/api/` (errors too), and preflights answered with the methods and headers
/// allowed. The site's pages get no such header.
#[tokio::test]
async fn the_api_allows_any_origin_and_answers_preflights() {
    let app = spawn_app().await;
    let alice = player(&app, "alice", ALL).await;
    let preflight = client()
        .request(reqwest::Method::OPTIONS, app.url("/api/account"))
        .header("Origin", "https://example.org")
        .header("Access-Control-Request-Method", "GET")
        .header("Access-Control-Request-Headers", "authorization")
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status().as_u16(), 204);
    let h = preflight.headers();
    assert_eq!(h["access-control-allow-origin"], "*");
    assert!(h["access-control-allow-methods"].to_str().unwrap().contains("DELETE"));
    assert!(h["access-control-allow-headers"].to_str().unwrap().contains("Authorization"));
    assert_eq!(h["access-control-max-age"], "1728000");
    // The call itself, with a token from another origin; an error answer too.
    let r =
        send(client().get(app.url("/api/account")).header("Origin", "https://example.org").bearer_auth(&alice.token))
            .await;
    assert_eq!((r.status().as_u16(), r.headers()["access-control-allow-origin"].to_str().unwrap()), (200, "*"));
    let r = send(client().get(app.url("/api/account")).header("Origin", "https://example.org")).await;
    assert_eq!((r.status().as_u16(), r.headers()["access-control-allow-origin"].to_str().unwrap()), (401, "*"));
    let r = send(client().get(app.url("/api/nothing-here"))).await;
    assert_eq!((r.status().as_u16(), r.headers()["access-control-allow-origin"].to_str().unwrap()), (404, "*"));
    // A token's POST from another origin passes; the site's own pages carry no CORS header.
    let r = send(
        client().post(app.url("/api/challenge/open")).header("Origin", "https://example.org").bearer_auth(&alice.token),
    )
    .await;
    assert_eq!(r.status().as_u16(), 200, "{:?}", r.text().await);
    let page = send(client().get(app.url("/")).header("Origin", "https://example.org")).await;
    assert!(page.headers().get("access-control-allow-origin").is_none());
}

/// A fresh account upgrades itself to a BOT and plays a challenge through the BOT API: titled BOT
/// everywhere, listed online while its event stream is open, kept out of the board API and the
/// lobby; a human account is kept out of the BOT API, and an account with games cannot upgrade.
#[tokio::test]
async fn a_bot_account_plays_a_challenge_through_the_bot_api() {
    let app = spawn_app().await;
    let alice = player(&app, "alice", &["board:play", "challenge:read", "challenge:write", "bot:play"]).await;
    let robo = player(&app, "robo", &["bot:play", "board:play", "challenge:read", "challenge:write"]).await;
    let me: Value = get(&app, Some(&robo.token), "/api/account").await.json().await.unwrap();
    assert!(me.get("title").is_none(), "{me}");
    // The upgrade needs bot:play.
    let plain = player(&app, "plain", &["challenge:read"]).await;
    assert_eq!(post_form(&app, Some(&plain.token), "/api/bot/account/upgrade", &[]).await.status().as_u16(), 403);
    let r = post_form(&app, Some(&robo.token), "/api/bot/account/upgrade", &[]).await;
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
    let me: Value = get(&app, Some(&robo.token), "/api/account").await.json().await.unwrap();
    assert_eq!(me["title"], "BOT");
    let again = post_form(&app, Some(&robo.token), "/api/bot/account/upgrade", &[]).await;
    assert_eq!(again.status().as_u16(), 400);
    assert!(again.text().await.unwrap().contains("already a BOT"));
    let public: Value = get(&app, None, "/api/user/robo").await.json().await.unwrap();
    assert_eq!(public["title"], "BOT");

    // Each API for its own accounts.
    let r = post_form(&app, Some(&robo.token), "/api/board/seek", &[("time", "5"), ("increment", "0")]).await;
    assert_eq!(r.status().as_u16(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "not_for_bots");
    let r = post_form(&app, Some(&alice.token), "/api/bot/game/abcdefgh/move/e2e4", &[]).await;
    assert_eq!(r.status().as_u16(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "bot_only");
    // Nor does a BOT seek in the lobby or start a game by the site's forms.
    let r = robo
        .browser
        .post_json("/api/lobby/seek", &serde_json::json!({"sri": "robosri0001", "variant": "standard", "time": "5+0"}))
        .await;
    assert_eq!(r.status().as_u16(), 403);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "bot_account");
    let r = robo
        .browser
        .post_json(
            "/api/lobby/pool/join",
            &serde_json::json!({"sri": "robosri0001", "variant": "standard", "time": "5+0"}),
        )
        .await;
    assert_eq!(r.status().as_u16(), 403);
    let r = robo
        .browser
        .post_form(
            "/game/new",
            "/game/new",
            &[("variant", "standard"), ("time", "5+0"), ("mode", "casual"), ("color", "white")],
        )
        .await;
    assert_eq!(r.status().as_u16(), 422);
    assert!(r.text().await.unwrap().contains("BOT account plays only through the BOT API"));
    let r = robo
        .browser
        .post_form(
            "/game/computer",
            "/game/computer",
            &[("variant", "standard"), ("level", "1"), ("time", "5+0"), ("color", "white")],
        )
        .await;
    assert_eq!(r.status().as_u16(), 422);

    // Online while its event stream is open.
    let mut r_events = Ndjson::open(&app, &robo.token, "/api/stream/event").await;
    let deadline = tokio::time::Instant::now() + WAIT;
    let online = loop {
        let text = get(&app, None, "/api/bot/online").await.text().await.unwrap();
        if !text.trim().is_empty() {
            break text;
        }
        assert!(tokio::time::Instant::now() < deadline, "the BOT never showed online");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let bots: Vec<Value> = online.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(bots.len(), 1, "{online}");
    assert_eq!((bots[0]["username"].as_str(), bots[0]["title"].as_str()), (Some("robo"), Some("BOT")));

    // Alice challenges the BOT; it accepts and plays Black through the BOT API.
    let mut a_events = Ndjson::open(&app, &alice.token, "/api/stream/event").await;
    let r = post_form(
        &app,
        Some(&alice.token),
        "/api/challenge/robo",
        &[("rated", "true"), ("clock.limit", "180"), ("clock.increment", "2"), ("color", "white")],
    )
    .await;
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
    let cid = r.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    let seen = r_events.until("challenge").await;
    assert_eq!(seen["challenge"]["destUser"]["title"], "BOT", "{seen}");
    let r = post_form(&app, Some(&robo.token), &format!("/api/challenge/{cid}/accept"), &[]).await;
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
    let start = r_events.until("gameStart").await;
    assert_eq!(start["game"]["compat"]["bot"], true);
    let id = start["game"]["gameId"].as_str().unwrap().to_string();
    assert_eq!(a_events.until("gameStart").await["game"]["opponent"]["title"], "BOT");
    // The BOT's game is not on the board API, nor alice's on the BOT API.
    let r = get(&app, Some(&robo.token), &format!("/api/board/game/stream/{id}")).await;
    assert_eq!(r.status().as_u16(), 400);
    let mut r_game = Ndjson::open(&app, &robo.token, &format!("/api/bot/game/stream/{id}")).await;
    let full = r_game.next().await.unwrap();
    assert_eq!(full["type"], "gameFull");
    assert_eq!((full["black"]["name"].as_str(), full["black"]["title"].as_str()), (Some("robo"), Some("BOT")));
    assert_eq!(full["white"]["title"], Value::Null);
    let line = ["f2f3", "e7e5", "g2g4", "d8h4"];
    let mut end = Value::Null;
    for (i, action) in line.iter().enumerate() {
        let path = if i % 2 == 0 {
            format!("/api/board/game/{id}/move/{action}")
        } else {
            format!("/api/bot/game/{id}/move/{action}")
        };
        let token = if i % 2 == 0 { &alice.token } else { &robo.token };
        let r = post_form(&app, Some(token), &path, &[]).await;
        assert_eq!(r.status().as_u16(), 200, "{action}: {}", r.text().await.unwrap());
        let want = line[..=i].join(" ");
        end = loop {
            let s = r_game.until("gameState").await;
            if s["moves"] == want.as_str() {
                break s;
            }
        };
        if i == 1 {
            // The BOT greets both rooms.
            for (room, text) in [("player", "good luck"), ("spectator", "hello, spectators")] {
                let r = post_form(
                    &app,
                    Some(&robo.token),
                    &format!("/api/bot/game/{id}/chat"),
                    &[("room", room), ("text", text)],
                )
                .await;
                assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
            }
            let heard = r_game.until("chatLine").await;
            assert_eq!((heard["username"].as_str(), heard["text"].as_str()), (Some("robo"), Some("good luck")));
        }
    }
    // The mating move's state is the result.
    assert_eq!((end["status"].as_str(), end["winner"].as_str()), (Some("mate"), Some("black")), "{end}");
    let history: Value = get(&app, Some(&robo.token), &format!("/api/bot/game/{id}/chat")).await.json().await.unwrap();
    assert_eq!(history, serde_json::json!([{"text": "good luck", "user": "robo"}]));
    // BOT shows on its profile and on the game's page.
    let profile = Browser::new(&app.address).html("/@/robo").await;
    assert!(profile.contains(r#"<span class="title""#) && profile.contains("id=\"bot-note\""), "{profile}");
    let page = Browser::new(&app.address).html(&format!("/{id}")).await;
    assert!(
        page.contains(
            r#"<span class="title" title="A program playing through the BOT API">BOT</span> <a href="/@/robo">"#
        ),
        "{page}"
    );
    // Its browser watches its games, as a spectator: it plays through the BOT API only.
    let mut sock = robo.browser.socket(&id, None).await;
    let full = sock.until("full").await;
    assert_eq!(full["d"]["you"], Value::Null, "{full}");
    let listed = get(&app, None, "/api/games/user/robo").await.text().await.unwrap();
    let g: Value = serde_json::from_str(listed.lines().next().unwrap()).unwrap();
    assert_eq!(g["players"]["black"]["user"]["title"], "BOT", "{g}");
    assert!(g["players"]["white"]["user"].get("title").is_none(), "{g}");
    // Alice has played a game now: she cannot become a BOT.
    let r = post_form(&app, Some(&alice.token), "/api/bot/account/upgrade", &[]).await;
    assert_eq!(r.status().as_u16(), 400);
    assert!(r.text().await.unwrap().contains("has played games"));
    let me: Value = get(&app, Some(&alice.token), "/api/account").await.json().await.unwrap();
    assert!(me.get("title").is_none());
}

/// berserk 0.14.0 (lichess's Python client, from PyPI; `scripts/test` installs it with
/// python-chess and sets `CHESSGOLD_TEST_PYTHON`) plays a BOT game as a lichess program would:
/// `tests/clients/berserk_bot.py` upgrades an account, finds it online, challenges it with a
/// random colour and plays the game on both APIs to its end, Stockfish answering for the BOT;
/// then reads the accounts and the games, plays the computer and pairs two seeks. The stored
/// game ends as the script saw it.
#[tokio::test]
async fn berserk_plays_a_bot_game_as_a_lichess_program_would() {
    let python = std::env::var("CHESSGOLD_TEST_PYTHON")
        .expect("CHESSGOLD_TEST_PYTHON: the Python with berserk 0.14.0 that scripts/test installs");
    let app = spawn_app().await;
    let carl = player(&app, "carl", ALL).await;
    // bot:play alone, as lichess-bot asks for: it reads events and answers challenges too.
    let robo = player(&app, "robo", &["bot:play"]).await;
    let dana = player(&app, "dana", ALL).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/clients/berserk_bot.py");
    let mut child = tokio::process::Command::new(&python)
        .args([script, app.address.as_str(), "carl", &carl.token, "robo", &robo.token, "dana", &dana.token])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("starting {python}: {e}"));
    let (mut out, mut err) = (String::new(), String::new());
    let (mut so, mut se) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let status = tokio::time::timeout(Duration::from_secs(420), async {
        use tokio::io::AsyncReadExt;
        let (a, b) = tokio::join!(so.read_to_string(&mut out), se.read_to_string(&mut err));
        a.unwrap();
        b.unwrap();
        child.wait().await.unwrap()
    })
    .await
    .expect("the berserk script ends");
    assert!(status.success(), "berserk_bot.py failed:\n{out}\n{err}");
    let seen: Vec<&str> = out
        .lines()
        .last()
        .and_then(|l| l.strip_prefix("game "))
        .unwrap_or_else(|| panic!("{out}"))
        .split(' ')
        .collect();
    let [id, seen_status, seen_winner] = seen[..] else { panic!("{out}") };
    let (status, winner, _) = crate::round::stored_result(&app.db_pool, id).await;
    let status = chessgold::game::Status::from_id(status).map(chessgold::game::view::status_name);
    assert_eq!(
        (status, winner.as_deref().unwrap_or("-")),
        (Some(seen_status), seen_winner),
        "stored as the script saw it"
    );
    assert!(
        chessgold::db::users::is_bot(
            &app.db_pool,
            chessgold::db::users::find_by_name(&app.db_pool, "robo").await.unwrap().unwrap().id
        )
        .await
        .unwrap()
    );
}

/// Lichess's challenge terms: a random colour is drawn when the challenge is made (both sides see
/// `finalColor`); `days` and `fen`, which cannot be honoured yet, are refused by name rather
/// than dropped; the body may be multipart; one challenge can be read back; `ai` and `open` are
/// route words, not names; and `POST /api/challenge/ai` starts a game the computer answers.
#[tokio::test]
async fn challenge_terms_are_honoured_or_refused_by_name() {
    let app = spawn_app().await;
    let alice = player(&app, "alice", ALL).await;
    let bob = player(&app, "bob", ALL).await;
    let r =
        post_form(&app, Some(&alice.token), "/api/challenge/bob", &[("clock.limit", "300"), ("color", "random")]).await;
    assert_eq!(r.status().as_u16(), 200);
    let c: Value = r.json().await.unwrap();
    assert_eq!(c["color"], "random");
    let drawn = c["finalColor"].as_str().unwrap().to_string();
    assert!(drawn == "white" || drawn == "black", "{c}");
    let cid = c["id"].as_str().unwrap().to_string();
    let shown: Value = get(&app, Some(&bob.token), &format!("/api/challenge/{cid}/show")).await.json().await.unwrap();
    assert_eq!((shown["id"].as_str(), shown["finalColor"].as_str()), (Some(cid.as_str()), Some(drawn.as_str())));
    assert_eq!(shown["direction"], "in");
    let carol = player(&app, "carol", ALL).await;
    assert_eq!(get(&app, Some(&carol.token), &format!("/api/challenge/{cid}/show")).await.status().as_u16(), 404);
    // The colour drawn is the colour played.
    let r = post_form(&app, Some(&bob.token), &format!("/api/challenge/{cid}/accept"), &[]).await;
    assert_eq!(r.status().as_u16(), 200);
    let live = chessgold::game::store::load(&app.db_pool, &chessgold::game::GameId::parse(&cid).unwrap())
        .await
        .unwrap()
        .unwrap();
    let alice_seat = if drawn == "white" { 0 } else { 1 };
    assert_eq!(live.seats[alice_seat].as_ref().unwrap().name, "alice");
    let r = post_form(&app, Some(&bob.token), &format!("/api/board/game/{cid}/abort"), &[]).await;
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());

    // Terms that cannot be honoured, by name; nothing is made.
    let before = get(&app, Some(&alice.token), "/api/challenge").await.json::<Value>().await.unwrap()["out"].clone();
    for (term, value) in [("days", "3"), ("keepAliveStream", "true"), ("users", "alice,carol")] {
        let r = post_form(&app, Some(&alice.token), "/api/challenge/bob", &[(term, value)]).await;
        assert_eq!(r.status().as_u16(), 400, "{term}");
        let e: Value = r.json().await.unwrap();
        assert_eq!(e["code"], "unsupported_term");
        assert!(e["error"].as_str().unwrap().starts_with(&format!("{term}:")), "{e}");
    }
    // JSON as berserk sends it: nulls are absent terms.
    let r = send(client()
        .post(app.url("/api/challenge/bob"))
        .bearer_auth(&alice.token)
        .json(&serde_json::json!({"rated": false, "clock.limit": 60, "clock.increment": 1, "days": null, "fen": null, "color": "black"}))
        ).await;
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
    let json_made: Value = r.json().await.unwrap();
    assert_eq!(
        (json_made["finalColor"].as_str(), json_made["timeControl"]["increment"].as_i64()),
        (Some("black"), Some(1))
    );
    // Multipart, as some clients send forms.
    let boundary = "----chessgold7MA4YWxk";
    let body: String = [("rated", "true"), ("clock.limit", "180"), ("clock.increment", "2")]
        .iter()
        .map(|(k, v)| format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n"))
        .chain([format!("--{boundary}--\r\n")])
        .collect();
    let r = client()
        .post(app.url("/api/challenge/carol"))
        .bearer_auth(&alice.token)
        .header("Content-Type", format!("multipart/form-data; boundary={boundary}"))
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
    let multi: Value = r.json().await.unwrap();
    assert_eq!((multi["rated"].as_bool(), multi["timeControl"]["limit"].as_i64()), (Some(true), Some(180)));
    let after = get(&app, Some(&alice.token), "/api/challenge").await.json::<Value>().await.unwrap()["out"].clone();
    assert_eq!(
        after.as_array().unwrap().len(),
        before.as_array().unwrap().len() + 2,
        "only the two good ones were made"
    );

    // Route words are not names.
    for name in ["ai", "Open"] {
        let b = Browser::new(&app.address);
        let r = b.post_form("/signup", "/signup", &[("username", name), ("password", "password123")]).await;
        assert_eq!(r.status().as_u16(), 422, "{name}");
        assert!(r.text().await.unwrap().contains("is reserved"));
    }

    // The computer: a casual game at once, which it answers on the board stream; the event
    // stream tells of its start and its end, as for any game.
    let mut events = Ndjson::open(&app, &carol.token, "/api/stream/event").await;
    let r = post_form(&app, Some(&carol.token), "/api/challenge/ai", &[("level", "9")]).await;
    assert_eq!(r.status().as_u16(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "bad_level");
    let r = post_form(
        &app,
        Some(&carol.token),
        "/api/challenge/ai",
        &[("level", "1"), ("color", "white"), ("rated", "true")],
    )
    .await;
    assert_eq!(r.status().as_u16(), 400, "the computer plays casual games only");
    let r = post_form(
        &app,
        Some(&carol.token),
        "/api/challenge/ai",
        &[("level", "1"), ("color", "white"), ("clock.limit", "300"), ("clock.increment", "3")],
    )
    .await;
    assert_eq!(r.status().as_u16(), 201, "{}", r.text().await.unwrap());
    let g: Value = r.json().await.unwrap();
    assert_eq!(
        (g["source"].as_str(), g["player"].as_str(), g["rated"].as_bool()),
        (Some("ai"), Some("white"), Some(false))
    );
    let gid = g["id"].as_str().unwrap().to_string();
    let started = events.until("gameStart").await;
    assert_eq!(
        (started["game"]["id"].as_str(), started["game"]["source"].as_str(), started["game"]["color"].as_str()),
        (Some(gid.as_str()), Some("ai"), Some("white")),
        "{started}"
    );
    assert_eq!(started["game"]["opponent"]["ai"], 1, "{started}");
    let mut stream = Ndjson::open(&app, &carol.token, &format!("/api/board/game/stream/{gid}")).await;
    let full = stream.next().await.unwrap();
    assert_eq!(full["black"]["aiLevel"], 1, "{full}");
    play(&app, &carol, &gid, "e2e4").await;
    loop {
        let s = stream.until("gameState").await;
        if s["moves"].as_str().unwrap().split(' ').count() == 2 {
            break;
        }
    }
    let r = post_form(&app, Some(&carol.token), &format!("/api/board/game/{gid}/resign"), &[]).await;
    assert_eq!(r.status().as_u16(), 200);
    let finished = events.until("gameFinish").await;
    assert_eq!(
        (finished["game"]["id"].as_str(), finished["game"]["source"].as_str(), finished["game"]["winner"].as_str()),
        (Some(gid.as_str()), Some("ai"), Some("black")),
        "{finished}"
    );
}

/// Lichess's `fen`: a challenge from a position (casual, a variant without random events, a
/// position the variant reads where the game is not over), whose game starts there and says so
/// on every stream, in its record and in its PGN.
#[tokio::test]
async fn a_challenge_from_a_position_is_played_from_it() {
    let app = spawn_app().await;
    let alice = player(&app, "alice", ALL).await;
    let bob = player(&app, "bob", ALL).await;
    let fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";
    for (terms, why) in [
        (vec![("fen", "nonsense")], "a text the variant does not read"),
        (vec![("fen", fen), ("rated", "true"), ("clock.limit", "300")], "rated"),
        (vec![("fen", fen), ("variant", "lootbox")], "a variant with random events"),
        (vec![("fen", "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")], "a mate on the board"),
    ] {
        let r = post_form(&app, Some(&alice.token), "/api/challenge/bob", &terms).await;
        assert_eq!(r.status().as_u16(), 400, "{why}");
        let e: Value = r.json().await.unwrap();
        assert!(e["error"].as_str().unwrap().starts_with("fen: "), "{why}: {e}");
    }
    let terms = [("fen", fen), ("color", "white"), ("clock.limit", "300"), ("clock.increment", "2")];
    let r = post_form(&app, Some(&alice.token), "/api/challenge/bob", &terms).await;
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
    let c: Value = r.json().await.unwrap();
    assert_eq!(c["initialFen"], fen, "{c}");
    let id = c["id"].as_str().unwrap().to_string();
    let r = post_form(&app, Some(&bob.token), &format!("/api/challenge/{id}/accept"), &[]).await;
    assert_eq!(r.status().as_u16(), 200);
    let mut b_game = Ndjson::open(&app, &bob.token, &format!("/api/board/game/stream/{id}")).await;
    let full = b_game.next().await.unwrap();
    assert_eq!((full["initialFen"].as_str(), full["state"]["moves"].as_str()), (Some(fen), Some("")), "{full}");
    let r = post_form(&app, Some(&alice.token), &format!("/api/board/game/{id}/move/g1f3"), &[]).await;
    assert_eq!(r.status().as_u16(), 400, "no knight in this position");
    play(&app, &alice, &id, "e2e4").await;
    let state = b_game.until("gameState").await;
    assert_eq!(state["moves"], "e2e4");
    let watch = request(reqwest::Method::GET, &app, None, &format!("/api/stream/game/{id}")).send().await.unwrap();
    let first = Ndjson::from("GET", watch).next().await.unwrap();
    assert_eq!(first["initialFen"], fen);
    assert_eq!(first["fen"].as_str().unwrap().split(' ').next(), Some("4k3/8/8/8/4P3/8/8/4K3"), "{first}");
    let record: Value = get(&app, None, &format!("/api/game/{id}")).await.json().await.unwrap();
    assert_eq!(record["initial_fen"], fen);
    let listed = get(&app, None, "/api/games/user/bob?ongoing=true").await.text().await.unwrap();
    let g: Value = serde_json::from_str(listed.lines().next().unwrap()).unwrap();
    assert_eq!(g["initialFen"], fen, "{g}");
    let pgn = client().get(app.url(&format!("/game/export/{id}"))).send().await.unwrap().text().await.unwrap();
    assert!(pgn.contains(&format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n")) && pgn.contains("\n1. e2e4 *"), "{pgn}");
    // The page's replay asks for earlier positions from the game's own start.
    let r = client()
        .post(app.url("/api/local"))
        .json(&serde_json::json!({"variant": "standard", "fen": fen, "actions": ["e2e4"]}))
        .send()
        .await
        .unwrap();
    let local: Value = r.json().await.unwrap();
    assert_eq!(local["fen"], first["fen"], "{local}");
}

/// `from` challenges `to` with `terms` and `to` accepts: the game's id.
async fn game_between(app: &TestApp, from: &Player, to: &Player, terms: &[(&str, &str)]) -> String {
    let r = post_form(app, Some(&from.token), &format!("/api/challenge/{}", to.name), terms).await;
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
    let id = r.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    let r = post_form(app, Some(&to.token), &format!("/api/challenge/{id}/accept"), &[]).await;
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
    id
}

/// The ids of an NDJSON list of games.
async fn listed(app: &TestApp, path: &str) -> Vec<String> {
    let r = get(app, None, path).await;
    assert_eq!(r.status().as_u16(), 200, "{path}");
    let text = r.text().await.unwrap();
    text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].as_str().unwrap().to_string()).collect()
}

/// `GET /api/games/user` with lichess's filters and output options, PGN on request, and
/// `POST /api/games/export/_ids`; standard chess's perfs under the speeds.
#[tokio::test]
async fn games_of_an_account_are_filtered_and_exported_as_on_lichess() {
    let app = spawn_app().await;
    let alice = player(&app, "alice", ALL).await;
    let bob = player(&app, "bob", ALL).await;
    let carol = player(&app, "carol", ALL).await;
    // g1: rated blitz (5+0), alice White, mated; g2: casual bullet (1+0), alice Black, bob
    // resigns; g3: alice against carol, being played.
    let g1 = game_between(&app, &alice, &bob, &[("rated", "true"), ("clock.limit", "300"), ("color", "white")]).await;
    for (i, m) in ["f2f3", "e7e5", "g2g4", "d8h4"].iter().enumerate() {
        play(&app, if i % 2 == 0 { &alice } else { &bob }, &g1, m).await;
    }
    let g2 = game_between(&app, &alice, &bob, &[("clock.limit", "60"), ("color", "black")]).await;
    play(&app, &bob, &g2, "e2e4").await;
    play(&app, &alice, &g2, "e7e5").await;
    let r = post_form(&app, Some(&bob.token), &format!("/api/board/game/{g2}/resign"), &[]).await;
    assert_eq!(r.status().as_u16(), 200);
    let g3 = game_between(&app, &carol, &alice, &[("clock.limit", "600"), ("color", "white")]).await;
    play(&app, &carol, &g3, "d2d4").await;

    let base = "/api/games/user/alice";
    assert_eq!(listed(&app, base).await, [g2.as_str(), g1.as_str()], "finished games, newest first");
    assert_eq!(listed(&app, &format!("{base}?ongoing=true")).await, [g3.as_str(), g2.as_str(), g1.as_str()]);
    assert_eq!(listed(&app, &format!("{base}?ongoing=true&finished=false")).await, [g3.as_str()]);
    assert_eq!(listed(&app, &format!("{base}?max=1")).await, [g2.as_str()]);
    assert_eq!(listed(&app, &format!("{base}?sort=dateAsc")).await, [g1.as_str(), g2.as_str()]);
    assert_eq!(listed(&app, &format!("{base}?rated=true")).await, [g1.as_str()]);
    assert_eq!(listed(&app, &format!("{base}?rated=False")).await, [g2.as_str()]);
    assert_eq!(listed(&app, &format!("{base}?perfType=blitz")).await, [g1.as_str()]);
    assert_eq!(listed(&app, &format!("{base}?perfType=bullet,rapid&ongoing=true")).await, [g3.as_str(), g2.as_str()]);
    assert_eq!(listed(&app, &format!("{base}?perfType=gold")).await, Vec::<&str>::new());
    assert_eq!(listed(&app, &format!("{base}?color=black")).await, [g2.as_str()]);
    assert_eq!(listed(&app, &format!("{base}?vs=carol&ongoing=true")).await, [g3.as_str()]);
    let first: Value = serde_json::from_str(
        get(&app, None, &format!("{base}?sort=dateAsc&max=1")).await.text().await.unwrap().lines().next().unwrap(),
    )
    .unwrap();
    assert_eq!(first["perf"], "blitz", "standard chess's perf is its speed, as on lichess");
    let after = first["createdAt"].as_i64().unwrap() + 1;
    assert_eq!(listed(&app, &format!("{base}?since={after}")).await, [g2.as_str()]);
    assert_eq!(listed(&app, &format!("{base}?until={after}")).await, [g1.as_str()]);
    // Output options.
    let text =
        get(&app, None, &format!("{base}?max=1&moves=false&pgnInJson=true&clocks=true")).await.text().await.unwrap();
    let g: Value = serde_json::from_str(text.trim()).unwrap();
    assert!(g.get("moves").is_none(), "{g}");
    assert!(g["pgn"].as_str().unwrap().starts_with("[Event \"Casual Bullet game\"]"), "{g}");
    assert_eq!(g["clocks"].as_array().unwrap().len(), 2, "one reading per move: {g}");
    let r = send(client().get(app.url(base)).header("Accept", "application/x-chess-pgn")).await;
    assert_eq!(r.headers().get("content-type").unwrap(), "application/x-chess-pgn");
    let pgn = r.text().await.unwrap();
    assert_eq!(pgn.matches("[Event ").count(), 2, "{pgn}");
    // Games are apart by two blank lines, as lichess writes them (berserk splits on them).
    let games: Vec<&str> = pgn.split("\n\n\n").filter(|g| !g.trim().is_empty()).collect();
    assert_eq!(games.len(), 2, "{pgn}");
    assert!(games.iter().all(|g| g.starts_with("[Event ") && g.contains("[Variant \"Standard\"]")), "{pgn}");
    assert!(pgn.contains("f2f3") && pgn.ends_with("\n\n\n"), "{pgn}");
    let r =
        send(client().get(app.url(&format!("{base}?tags=false"))).header("Accept", "application/x-chess-pgn")).await;
    let bare = r.text().await.unwrap();
    assert!(!bare.contains('[') && bare.contains("e2e4"), "{bare}");
    for (bad, code) in [
        ("color=red", "bad_query"),
        ("max=0", "bad_query"),
        ("sort=up", "bad_query"),
        ("since=soon", "bad_query"),
        ("perfType=Blitz", "bad_query"),
        ("rated=maybe", "bad_flag"),
        // Lichess's options this server cannot honour, refused by name when asked for.
        ("opening=true", "unsupported_term"),
        ("evals=true", "unsupported_term"),
        ("accuracy=true", "unsupported_term"),
        ("analysed=true", "unsupported_term"),
        ("division=true", "unsupported_term"),
        ("literate=true", "unsupported_term"),
        ("players=https://example.org/names.txt", "unsupported_term"),
        ("opening=perhaps", "bad_flag"),
    ] {
        let r = get(&app, None, &format!("{base}?{bad}")).await;
        assert_eq!(r.status().as_u16(), 400, "{bad}");
        assert_eq!(r.json::<Value>().await.unwrap()["code"], code, "{bad}");
    }
    // Not asked for is no refusal: the list as without them.
    assert_eq!(listed(&app, &format!("{base}?opening=false&evals=false&analysed=false")).await.len(), 2);
    // By ids, in the order given.
    let r = send(client().post(app.url("/api/games/export/_ids")).body(format!("{g1},zzzzzzzz,{g2}"))).await;
    let ids: Vec<String> = r
        .text()
        .await
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, [g1.as_str(), g2.as_str()]);
    // Standard's one Elo under every speed's key.
    let u: Value = get(&app, None, "/api/user/alice").await.json().await.unwrap();
    for speed in ["bullet", "blitz", "rapid", "classical", "correspondence"] {
        assert_eq!(u["perfs"][speed], u["perfs"]["standard"], "{speed}");
    }
}

/// A board stream tells its player when the opponent leaves (`opponentGone` with the seconds
/// before a claim, then `claimWinInSeconds: 0`), and the claim is made on the API.
#[tokio::test]
async fn an_opponent_gone_is_told_on_the_stream_and_the_win_claimed() {
    let app = spawn_app_with(|s| s.game.claim_after_secs = 2).await;
    let alice = player(&app, "alice", ALL).await;
    let bob = player(&app, "bob", ALL).await;
    let id = game_between(&app, &alice, &bob, &[("clock.limit", "600"), ("color", "white")]).await;
    let mut a_game = Ndjson::open(&app, &alice.token, &format!("/api/board/game/stream/{id}")).await;
    let mut b_game = Ndjson::open(&app, &bob.token, &format!("/api/board/game/stream/{id}")).await;
    assert_eq!(b_game.next().await.unwrap()["type"], "gameFull");
    play(&app, &alice, &id, "e2e4").await;
    play(&app, &bob, &id, "e7e5").await;
    // Alice's stream may have told her bob was gone before his stream opened; it tells her
    // he is back before anything else about him. Read until both moves, and until bob is
    // present as far as her stream said.
    let mut told_gone = false;
    let mut both_moves = false;
    while !both_moves || told_gone {
        let l = a_game.next_within(Duration::from_secs(40)).await.expect("the stream goes on");
        match l["type"].as_str() {
            Some("opponentGone") => told_gone = l["gone"] == true,
            Some("gameState") => both_moves |= l["moves"] == "e2e4 e7e5",
            _ => {}
        }
    }
    // Too early: bob is there.
    let r = post_form(&app, Some(&alice.token), &format!("/api/board/game/{id}/claim-victory"), &[]).await;
    assert_eq!(r.status().as_u16(), 400, "{}", r.text().await.unwrap());
    // The server notices the closed stream when a keep-alive write fails (every 7 s), and the
    // seat counts as away 6 s after its last sign of life.
    drop(b_game);
    let mut gone = Value::Null;
    while gone["claimWinInSeconds"] != 0 {
        let l = a_game.next_within(Duration::from_secs(40)).await.expect("the stream goes on");
        if l["type"] == "opponentGone" {
            assert_eq!(l["gone"], true, "{l}");
            assert!((0..=2).contains(&l["claimWinInSeconds"].as_i64().unwrap()), "{l}");
            gone = l;
        }
    }
    let r = post_form(&app, Some(&alice.token), &format!("/api/board/game/{id}/claim-victory"), &[]).await;
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
    let end = loop {
        let s = a_game.until("gameState").await;
        if s["status"] != "started" {
            break s;
        }
    };
    assert_eq!(end["winner"], "white", "{end}");
}

/// `GET /api/stream/game/{id}`: a spectator (no token) gets the game, a line per move with the
/// position and both clocks (the mating move too, as berserk's readers expect), and the game
/// again at its end.
#[tokio::test]
async fn a_spectator_stream_follows_a_game_to_its_end() {
    let app = spawn_app().await;
    let alice = player(&app, "alice", ALL).await;
    let bob = player(&app, "bob", ALL).await;
    let id =
        game_between(&app, &alice, &bob, &[("clock.limit", "300"), ("clock.increment", "2"), ("color", "white")]).await;
    let resp = request(reqwest::Method::GET, &app, None, &format!("/api/stream/game/{id}")).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let mut watch = Ndjson::from("GET", resp);
    let first = watch.next().await.unwrap();
    assert_eq!((first["id"].as_str(), first["status"]["name"].as_str()), (Some(id.as_str()), Some("started")));
    assert_eq!(first["players"]["white"]["user"]["name"], "alice");
    assert_eq!(first["turns"], 0);
    play(&app, &alice, &id, "e2e4").await;
    let moved = watch.next().await.unwrap();
    assert_eq!(moved["lm"], "e2e4", "{moved}");
    assert!(moved["fen"].as_str().unwrap().contains("4P3"), "{moved}");
    assert!(moved["wc"].as_i64().unwrap() > 0 && moved["bc"].as_i64().unwrap() > 0, "{moved}");
    for (who, mv) in [(&bob, "f7f6"), (&alice, "d2d4"), (&bob, "g7g5"), (&alice, "d1h5")] {
        play(&app, who, &id, mv).await;
        let moved = watch.next().await.unwrap();
        assert_eq!(moved["lm"], mv, "{moved}");
    }
    let end = watch.next().await.unwrap();
    assert_eq!((end["status"]["name"].as_str(), end["winner"].as_str()), (Some("mate"), Some("white")), "{end}");
    assert_eq!(end["lastMove"], "d1h5", "{end}");
    assert!(watch.next().await.is_none(), "the stream ends with the game");
    assert_eq!(get(&app, None, "/api/stream/game/zzzzzzzz").await.status().as_u16(), 404);
}

/// The game commands of the BOT API and the board API that the other tests leave out (draw and
/// takeback answers, claims, abort, resign) and the block calls, each answered as
/// `docs/openapi.yaml` describes it (the helpers check every answer) and as lichess would.
#[tokio::test]
async fn every_game_command_answers_as_described() {
    let app = spawn_app().await;
    let alice = player(&app, "alice", &["board:play", "challenge:read", "challenge:write", "follow:write"]).await;
    let robo = player(&app, "robo", &["bot:play"]).await;
    assert_eq!(post_form(&app, Some(&robo.token), "/api/bot/account/upgrade", &[]).await.status().as_u16(), 200);
    let id = game_between(&app, &alice, &robo, &[("clock.limit", "300"), ("clock.increment", "2"), ("color", "white")])
        .await;
    let board = |what: &str| format!("/api/board/game/{id}/{what}");
    let bot = |what: &str| format!("/api/bot/game/{id}/{what}");
    let status = |r: reqwest::Response| r.status().as_u16();
    play(&app, &alice, &id, "e2e4").await;
    let r = post_form(&app, Some(&robo.token), &bot("move/e7e5"), &[]).await;
    assert_eq!(status(r), 200);
    // A draw offered by the BOT, declined on the board; a takeback asked on the board, refused
    // by the BOT.
    assert_eq!(status(post_form(&app, Some(&robo.token), &bot("draw/yes"), &[]).await), 200);
    assert_eq!(status(post_form(&app, Some(&alice.token), &board("draw/no"), &[]).await), 200);
    assert_eq!(status(post_form(&app, Some(&alice.token), &board("takeback/yes"), &[]).await), 200);
    assert_eq!(status(post_form(&app, Some(&robo.token), &bot("takeback/no"), &[]).await), 200);
    assert_eq!(status(post_form(&app, Some(&robo.token), &bot("draw/maybe"), &[]).await), 400);
    // Nothing to claim while both are here and no draw rule applies.
    for (token, path) in
        [(&robo.token, bot("claim-draw")), (&robo.token, bot("claim-victory")), (&alice.token, board("claim-draw"))]
    {
        let r = post_form(&app, Some(token), &path, &[]).await;
        assert_eq!(status(r), 400, "{path}");
    }
    assert_eq!(status(post_form(&app, Some(&robo.token), &bot("resign"), &[]).await), 200);
    let (stored, winner, _) = crate::round::stored_result(&app.db_pool, &id).await;
    assert_eq!((stored, winner.as_deref()), (31, Some("white")), "resigned");
    // A new game aborted by the BOT before it moves.
    let id = game_between(&app, &alice, &robo, &[("clock.limit", "300"), ("clock.increment", "2"), ("color", "white")])
        .await;
    let r = post_form(&app, Some(&robo.token), &format!("/api/bot/game/{id}/abort"), &[]).await;
    assert_eq!(status(r), 200);
    assert_eq!(crate::round::stored_result(&app.db_pool, &id).await.0, 25, "aborted");
    // Blocks, as lichess's relations API.
    assert_eq!(status(post_form(&app, Some(&alice.token), "/api/rel/block/robo", &[]).await), 200);
    let r = post_form(&app, Some(&alice.token), "/api/challenge/robo", &[]).await;
    assert_eq!(status(r), 403, "a blocked account cannot be challenged");
    assert_eq!(status(post_form(&app, Some(&alice.token), "/api/rel/unblock/robo", &[]).await), 200);
    assert_eq!(status(post_form(&app, Some(&alice.token), "/api/rel/block/nobody", &[]).await), 404);
}
