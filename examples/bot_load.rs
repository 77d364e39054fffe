//! Load test: many bot games at once against a running server, and the page latency meanwhile.
//!
//! Each of the N players is a guest who starts a game against the computer with the real form and
//! plays over the real game socket (a random legal action, as soon as it is its turn), and starts
//! a new game when one ends, so N bot games run at once and the server's bots search all the
//! time. Meanwhile `GET /` and one game page are requested one after the other,
//! and their latency is reported (before the games start, then during them).
//!
//! ```text
//! cargo run --example bot_load -- --base http://127.0.0.1:8099 --games 50 --level 8 \
//!     --time unlimited --seconds 60 --think-ms 1000
//! ```
#![expect(clippy::unwrap_used, clippy::expect_used, reason = "a measuring tool: a failed step should stop it loudly")]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use reqwest::cookie::{CookieStore, Jar};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

struct Opts {
    base: String,
    games: usize,
    level: String,
    variant: String,
    time: String,
    seconds: u64,
    think_ms: u64,
}

fn opts() -> Opts {
    let mut o = Opts {
        base: "http://127.0.0.1:8099".into(),
        games: 50,
        level: "8".into(),
        variant: "standard".into(),
        time: "unlimited".into(),
        seconds: 60,
        think_ms: 1000,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = pair.get(1).cloned().unwrap_or_default();
        match pair[0].as_str() {
            "--base" => o.base = value,
            "--games" => o.games = value.parse().expect("--games N"),
            "--level" => o.level = value,
            "--variant" => o.variant = value,
            "--time" => o.time = value,
            "--seconds" => o.seconds = value.parse().expect("--seconds N"),
            "--think-ms" => o.think_ms = value.parse().expect("--think-ms N"),
            other => panic!("unknown option {other}"),
        }
    }
    o
}

fn csrf(html: &str) -> String {
    let at = html.find(r#"name="csrf_token" value=""#).expect("a CSRF token") + r#"name="csrf_token" value=""#.len();
    html[at..].split('"').next().unwrap().to_string()
}

/// Starts a bot game as the guest of `jar` (a new guest when empty); returns the game id.
async fn start_game(o: &Opts, jar: Arc<Jar>) -> String {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .cookie_provider(jar.clone())
        .build()
        .unwrap();
    let html = http.get(format!("{}/game/computer", o.base)).send().await.unwrap().text().await.unwrap();
    let token = csrf(&html);
    let r = http
        .post(format!("{}/game/computer", o.base))
        .header("Origin", &o.base)
        .form(&[
            ("csrf_token", token.as_str()),
            ("variant", o.variant.as_str()),
            ("level", o.level.as_str()),
            ("time", o.time.as_str()),
            ("color", "random"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 303, "the game starts");
    r.headers()["location"].to_str().unwrap().trim_start_matches('/').to_string()
}

/// One player: games against the bot, one after the other, until `until`.
async fn player(o: Arc<Opts>, until: Instant, bot_moves: Arc<AtomicU64>, games: Arc<AtomicU64>, seed: u64) {
    let jar = Arc::new(Jar::default());
    let mut rng = seed | 1;
    while Instant::now() < until {
        let id = start_game(&o, jar.clone()).await;
        games.fetch_add(1, Ordering::Relaxed);
        play(&o.base, &id, &jar, until, &bot_moves, &mut rng, o.think_ms).await;
    }
}

/// Plays a game over its socket until `until`: the first legal action whenever it is our turn.
async fn play(base: &str, id: &str, jar: &Jar, until: Instant, bot_moves: &AtomicU64, rng: &mut u64, think_ms: u64) {
    let ws_base = base.replacen("http://", "ws://", 1);
    let mut req = format!("{ws_base}/socket/game/{id}").into_client_request().unwrap();
    if let Some(c) = jar.cookies(&reqwest::Url::parse(base).unwrap()) {
        req.headers_mut().insert("cookie", c);
    }
    req.headers_mut().insert("origin", base.parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(req).await.expect("the socket opens");
    let mut me = String::new();
    let mut ping = tokio::time::interval(Duration::from_secs(2));
    let mut ack = 0u64;
    let mut held = Value::Null;
    loop {
        let msg = tokio::select! {
            m = ws.next() => m,
            _ = ping.tick() => {
                if Instant::now() > until { break; }
                let _ = ws.send(Message::text(json!({"t": "ping"}).to_string())).await;
                continue;
            }
        };
        let Some(Ok(Message::Text(text))) = msg else {
            if matches!(msg, None | Some(Err(_)) | Some(Ok(Message::Close(_)))) {
                break;
            }
            continue;
        };
        let v: Value = serde_json::from_str(&text).unwrap();
        let state = match v["t"].as_str() {
            Some("full") => {
                me = v["d"]["you"].as_str().unwrap_or("").to_string();
                held = v["d"]["state"].clone();
                held.clone()
            }
            Some("move") => {
                if v["d"]["by"] != me.as_str() {
                    bot_moves.fetch_add(1, Ordering::Relaxed);
                }
                // The state after the move comes whole or as a patch of the one held.
                match v["d"].get("patch") {
                    Some(ops) => {
                        let patch: json_patch::Patch = serde_json::from_value(ops.clone()).unwrap();
                        json_patch::patch(&mut held, &patch).unwrap();
                    }
                    None => held = v["d"]["state"].clone(),
                }
                held.clone()
            }
            Some("end") => break,
            _ => continue,
        };
        if state["status"] == "ongoing" && state["side"] == me.as_str() && Instant::now() < until {
            let ply = state["actions"].as_array().map_or(0, Vec::len);
            let legal = state["legal"].as_array().map_or(&[][..], Vec::as_slice);
            // xorshift: a random legal action.
            *rng ^= *rng << 13;
            *rng ^= *rng >> 7;
            *rng ^= *rng << 17;
            if let Some(a) = legal.get((*rng % legal.len().max(1) as u64) as usize).and_then(Value::as_str) {
                // "Thinks" half to one and a half times --think-ms (pings go on meanwhile).
                let pause = think_ms / 2 + *rng % (think_ms + 1);
                let wake = tokio::time::Instant::now() + Duration::from_millis(pause);
                while tokio::time::Instant::now() < wake {
                    tokio::select! {
                        () = tokio::time::sleep_until(wake) => {}
                        _ = ping.tick() => {
                            let _ = ws.send(Message::text(json!({"t": "ping"}).to_string())).await;
                        }
                    }
                }
                ack += 1;
                let cmd = json!({"t": "action", "d": {"action": a, "ply": ply, "ack": ack}});
                let _ = ws.send(Message::text(cmd.to_string())).await;
            }
        }
    }
    let _ = ws.close(None).await;
}

/// Requests `path` one after the other for `dur`; returns the sorted latencies in ms.
async fn latencies(http: &reqwest::Client, url: &str, dur: Duration) -> Vec<f64> {
    let stop = Instant::now() + dur;
    let mut out = Vec::new();
    while Instant::now() < stop {
        let t = Instant::now();
        let r = http.get(url).send().await.unwrap();
        assert!(r.status().is_success(), "{url}: {}", r.status());
        let _ = r.bytes().await.unwrap();
        out.push(t.elapsed().as_secs_f64() * 1000.0);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    out.sort_by(f64::total_cmp);
    out
}

fn report(what: &str, v: &[f64]) {
    let pct = |p: f64| v[((v.len() as f64 - 1.0) * p).round() as usize];
    println!(
        "{what:<28} n={:<4} p50 {:>7.1} ms  p95 {:>7.1} ms  p99 {:>7.1} ms  max {:>7.1} ms",
        v.len(),
        pct(0.5),
        pct(0.95),
        pct(0.99),
        v[v.len() - 1]
    );
}

#[tokio::main]
async fn main() {
    let o = Arc::new(opts());
    let http = reqwest::Client::new();
    let window = Duration::from_secs(o.seconds / 2);
    // A game page to measure: the first game's.
    let probe = start_game(&o, Arc::new(Jar::default())).await;
    let home = format!("{}/", o.base);
    let game = format!("{}/{probe}", o.base);
    println!("{} bot games, level {}, {} {}, {} s", o.games, o.level, o.variant, o.time, o.seconds);
    report("idle  GET /", &latencies(&http, &home, Duration::from_secs(10)).await);
    report("idle  GET /{gameId}", &latencies(&http, &game, Duration::from_secs(10)).await);
    let until = Instant::now() + Duration::from_secs(o.seconds + 5);
    let bot_moves = Arc::new(AtomicU64::new(0));
    let games = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for i in 0..o.games {
        let seed = 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(i as u64 + 1);
        tasks.push(tokio::spawn(player(o.clone(), until, bot_moves.clone(), games.clone(), seed)));
    }
    // Let the bots get busy.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let started = Instant::now();
    let moves_before = bot_moves.load(Ordering::Relaxed);
    report("load  GET /", &latencies(&http, &home, window).await);
    report("load  GET /{gameId}", &latencies(&http, &game, window).await);
    let moves = bot_moves.load(Ordering::Relaxed) - moves_before;
    println!(
        "bot moves during the measurement: {moves} ({:.1}/s); games started: {}",
        moves as f64 / started.elapsed().as_secs_f64().max(0.001),
        games.load(Ordering::Relaxed)
    );
    for t in tasks {
        let _ = t.await;
    }
}
