//! Page speed over a slow link: loads the home page and a live game page of a running server in
//! headless Chromium with the network throttled (150 ms latency, 1.6 Mbit/s each way, Chromium's
//! own emulation through the DevTools protocol) and reports when each was drawn.
//!
//! Every run starts a fresh Chromium with a fresh profile (a first visit: empty cache, no open
//! connection), then loads the same page again in that browser (a repeat visit). Measured in the
//! page from the start of the navigation:
//! - home: first contentful paint, and the end of the `load` event (HTML, styles, scripts and the
//!   hero's piece images all in);
//! - game: "board drawn", when the board's pieces are in the page (a frame after the first piece
//!   element appears) and every piece image requested until the page settled has arrived;
//!   and the end of the `load` event.
//!
//! The game is a guest's unlimited game against the computer (level 1, the guest plays White),
//! started with the site's form, a new one for each run; the browser carries the guest's cookie,
//! so it is the player's own page (board, shop, clocks, chat).
//!
//! ```text
//! scripts/bench-pages                 # builds and starts a server of its own, runs this
//! cargo run --example page_speed -- --base http://127.0.0.1:8080 --runs 5
//! ```
#![expect(clippy::unwrap_used, clippy::expect_used, reason = "a measuring tool: a failed step should stop it loudly")]

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder};
use reqwest::cookie::{CookieStore, Jar};
use serde_json::{Value, json};

/// 150 ms of latency and 1.6 Mbit/s (200,000 bytes/s) down and up.
const LATENCY_MS: u64 = 150;
const BYTES_PER_SEC: u64 = 1_600_000 / 8;

struct Opts {
    base: String,
    runs: usize,
    variant: String,
    /// Print every request of the first visits (start-end ms, bytes, path).
    timeline: bool,
}

fn opts() -> Opts {
    let mut o = Opts { base: "http://127.0.0.1:8080".into(), runs: 5, variant: "gold".into(), timeline: false };
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(at) = args.iter().position(|a| a == "--timeline") {
        args.remove(at);
        o.timeline = true;
    }
    for pair in args.chunks(2) {
        let value = pair.get(1).cloned().unwrap_or_default();
        match pair[0].as_str() {
            "--base" => o.base = value.trim_end_matches('/').to_string(),
            "--runs" => o.runs = value.parse().expect("--runs N"),
            "--variant" => o.variant = value,
            other => panic!("unknown option {other} (--base URL, --runs N, --variant ID, --timeline)"),
        }
    }
    o
}

fn csrf(html: &str) -> String {
    let at = html.find(r#"name="csrf_token" value=""#).expect("a CSRF token") + r#"name="csrf_token" value=""#.len();
    html[at..].split('"').next().unwrap().to_string()
}

/// Starts an unlimited game against the computer as a new guest; returns its path and the
/// guest's cookies (`name=value` pairs).
async fn start_game(o: &Opts) -> (String, Vec<(String, String)>) {
    let jar = std::sync::Arc::new(Jar::default());
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
            ("level", "1"),
            ("time", "unlimited"),
            ("color", "white"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 303, "the game starts");
    let path = r.headers()["location"].to_str().unwrap().to_string();
    let url = reqwest::Url::parse(&o.base).unwrap();
    let cookies = jar
        .cookies(&url)
        .map(|h| {
            h.to_str()
                .unwrap()
                .split("; ")
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .unwrap_or_default();
    (path, cookies)
}

/// A headless Chromium on its own chromedriver and fresh profile; both end on drop.
struct Browser {
    client: Client,
    driver: Child,
    port: u16,
    session: String,
    profile: std::path::PathBuf,
    http: reqwest::Client,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.driver.kill();
        let _ = self.driver.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

impl Browser {
    async fn start() -> Browser {
        let chromedriver = std::env::var("CHESSGOLD_CHROMEDRIVER").unwrap_or_else(|_| "/usr/bin/chromedriver".into());
        let chromium = std::env::var("CHESSGOLD_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
        let port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).unwrap().port();
        let driver = Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {chromedriver}: {e}"));
        let profile = std::env::temp_dir().join(format!("chessgold-speed-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&profile).unwrap();
        let caps: serde_json::Map<String, Value> = json!({
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": [
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-dev-shm-usage",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--no-first-run",
                    "--mute-audio",
                    format!("--user-data-dir={}", profile.display()),
                    "--window-size=1440,900",
                ],
            },
        })
        .as_object()
        .cloned()
        .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        let client = loop {
            let connector = hyper_util::client::legacy::connect::HttpConnector::new();
            match ClientBuilder::new(connector)
                .capabilities(caps.clone())
                .connect(&format!("http://127.0.0.1:{port}"))
                .await
            {
                Ok(c) => break c,
                Err(_) if Instant::now() < deadline => tokio::time::sleep(Duration::from_millis(150)).await,
                Err(e) => panic!("no WebDriver session: {e}"),
            }
        };
        let session = client.session_id().await.unwrap().unwrap();
        Browser { client, driver, port, session, profile, http: reqwest::Client::new() }
    }

    /// A DevTools protocol command through chromedriver.
    async fn cdp(&self, cmd: &str, params: Value) -> Value {
        let url = format!("http://127.0.0.1:{}/session/{}/goog/cdp/execute", self.port, self.session);
        let r = self.http.post(url).json(&json!({"cmd": cmd, "params": params})).send().await.unwrap();
        let status = r.status();
        let v: Value = r.json().await.unwrap();
        assert!(status.is_success(), "{cmd}: {v}");
        v["value"].clone()
    }

    /// Throttles the network and installs the in-page probe before any page loads.
    async fn prepare(&self, base: &str, cookies: &[(String, String)]) {
        self.cdp("Network.enable", json!({})).await;
        self.cdp(
            "Network.emulateNetworkConditions",
            json!({
                "offline": false,
                "latency": LATENCY_MS,
                "downloadThroughput": BYTES_PER_SEC,
                "uploadThroughput": BYTES_PER_SEC,
            }),
        )
        .await;
        for (name, value) in cookies {
            self.cdp("Network.setCookie", json!({"name": name, "value": value, "url": base})).await;
        }
        self.cdp("Page.addScriptToEvaluateOnNewDocument", json!({"source": PROBE})).await;
    }

    /// Loads a URL and returns what the probe and the performance timeline measured once the page
    /// settled (no new resource for a second after the load event and, on a game page, the board).
    async fn measure(&self, url: &str, board: bool) -> Value {
        self.client.goto(url).await.unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        let script = format!("return {SETTLED}({board});");
        loop {
            let v = self.client.execute(&script, vec![]).await.unwrap();
            if v != Value::Null {
                return v;
            }
            assert!(Instant::now() < deadline, "{url} did not settle");
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }
}

/// Runs in every document before its scripts: notes when the board's first piece is in the page
/// (and a frame has passed, so it was laid out and painted).
const PROBE: &str = r##"
(() => {
  window.__cgSpeed = {};
  const seen = () => document.querySelector("#board-app .cg-board .piece");
  const watch = new MutationObserver(() => {
    if (window.__cgSpeed.board || !seen()) return;
    watch.disconnect();
    requestAnimationFrame(() => { window.__cgSpeed.board = performance.now(); });
  });
  watch.observe(document, { subtree: true, childList: true });
})();
"##;

/// A function of the page: null until settled, then the figures (ms from the navigation's start).
const SETTLED: &str = r#"((board) => {
  const nav = performance.getEntriesByType("navigation")[0];
  if (!nav || nav.loadEventEnd === 0) return null;
  if (board && !window.__cgSpeed.board) return null;
  const res = performance.getEntriesByType("resource");
  const last = Math.max(0, ...res.map((r) => r.responseEnd));
  if (performance.now() - Math.max(last, nav.loadEventEnd) < 1000) return null;
  const pieces = res.filter((r) => r.name.includes("/static/pieces")).map((r) => r.responseEnd);
  const fcp = performance.getEntriesByName("first-contentful-paint")[0];
  const all = [nav, ...res];
  return {
    fcp: fcp ? fcp.startTime : null,
    load: nav.loadEventEnd,
    board: board ? Math.max(window.__cgSpeed.board, ...pieces) : null,
    requests: all.length,
    network: all.filter((r) => r.transferSize > 0).length,
    bytes: all.reduce((n, r) => n + r.transferSize, 0),
    html: nav.transferSize,
    timeline: [nav, ...res].map((r) => `${Math.round(r.startTime)}-${Math.round(r.responseEnd)} ${r.transferSize} ${new URL(r.name).pathname}`),
  };
})"#;

#[derive(Default)]
struct Series {
    rows: Vec<Value>,
}

impl Series {
    fn median(&self, key: &str) -> f64 {
        let mut v: Vec<f64> = self.rows.iter().filter_map(|r| r[key].as_f64()).collect();
        v.sort_by(f64::total_cmp);
        if v.is_empty() { f64::NAN } else { v[v.len() / 2] }
    }

    fn all(&self, key: &str) -> String {
        self.rows
            .iter()
            .map(|r| r[key].as_f64().map_or("-".into(), |x| format!("{x:.0}")))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[tokio::main]
async fn main() {
    let o = opts();
    println!(
        "page speed of {} ({} runs; latency {LATENCY_MS} ms, {} kbit/s each way)",
        o.base,
        o.runs,
        BYTES_PER_SEC * 8 / 1000
    );
    let pages = [("home", false), ("game", true)];
    let mut first: Vec<Series> = pages.iter().map(|_| Series::default()).collect();
    let mut repeat: Vec<Series> = pages.iter().map(|_| Series::default()).collect();
    for _ in 0..o.runs {
        for (i, (_, board)) in pages.iter().enumerate() {
            // A new game each run, so every run sees a game in progress (an untouched game
            // ends after the first-move time).
            let (path, cookies) = if *board { start_game(&o).await } else { ("/".to_string(), Vec::new()) };
            let browser = Browser::start().await;
            browser.prepare(&o.base, &cookies).await;
            let url = format!("{}{path}", o.base);
            first[i].rows.push(browser.measure(&url, *board).await);
            repeat[i].rows.push(browser.measure(&url, *board).await);
            let _ = browser.client.clone().close().await;
        }
    }
    println!(
        "| page | visit | FCP ms | load ms | board drawn ms | requests (from network) | bytes transferred | HTML bytes |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (i, (name, board)) in pages.iter().enumerate() {
        for (visit, s) in [("first", &first[i]), ("repeat", &repeat[i])] {
            let board_ms = if *board { format!("{:.0}", s.median("board")) } else { "-".into() };
            println!(
                "| {name} | {visit} | {:.0} | {:.0} | {board_ms} | {:.0} ({:.0}) | {:.0} | {:.0} |",
                s.median("fcp"),
                s.median("load"),
                s.median("requests"),
                s.median("network"),
                s.median("bytes"),
                s.median("html"),
            );
        }
    }
    if o.timeline {
        for (i, (name, _)) in pages.iter().enumerate() {
            println!("{name}, first visit of the first run:");
            for line in first[i].rows[0]["timeline"].as_array().into_iter().flatten() {
                println!("  {}", line.as_str().unwrap_or_default());
            }
        }
    }
    println!("medians; every run (first visits):");
    for (i, (name, board)) in pages.iter().enumerate() {
        let key = if *board { "board" } else { "load" };
        println!("  {name} {key}: {}", first[i].all(key));
    }
}
