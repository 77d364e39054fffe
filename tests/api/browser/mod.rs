//! Browser tests: the real app, Debian's Chromium driven through chromedriver (WebDriver) with
//! fantoccini. They use the page as a player does (clicks, drags, typing) and read what the page
//! shows. Chromium and chromedriver must be installed (`.ci/run` installs them); a missing
//! browser fails these tests, it never skips them.
//!
//! `CHESSGOLD_CHROMIUM` and `CHESSGOLD_CHROMEDRIVER` override the binaries' paths.
#![expect(
    clippy::expect_used,
    reason = "browser test support code: a failed WebDriver step should fail the test loudly"
)]

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::actions::{InputSource, MOUSE_BUTTON_LEFT, MouseActions, PointerAction};
use fantoccini::elements::Element;
use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use tokio::sync::Semaphore;

use crate::helpers::{TestApp, spawn_app};

mod a11y;
mod assets;
mod board;
mod game_page;
mod live;
mod lobby;
mod server_pages;
mod site;
mod style;
mod walk;

/// One browser at a time: the machines have two cores.
static ONE_BROWSER: Semaphore = Semaphore::const_new(1);

/// How long a condition may take to hold.
const PATIENCE: Duration = Duration::from_secs(30);

/// A headless Chromium session on its own chromedriver and profile.
struct Browser {
    client: Client,
    base: String,
    _driver: Driver,
}

/// The chromedriver process, its session and the browser profile; all go away on drop, also
/// when a test fails.
struct Driver {
    process: Child,
    port: u16,
    session: Option<String>,
    profile: PathBuf,
}

impl Drop for Driver {
    fn drop(&mut self) {
        // Ending the session makes chromedriver quit Chromium; killing chromedriver alone
        // would leave the browser running.
        if let Some(session) = &self.session {
            end_session(self.port, session);
        }
        let _ = self.process.kill();
        let _ = self.process.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Makes every page the browser opens record the Content-Security-Policy violations it reports
/// (`securitypolicyviolation` events, from before the page's first script) in
/// `window.__cspViolations`, through chromedriver's DevTools command endpoint.
async fn watch_csp(driver: &Driver) {
    const WATCH: &str = "window.__cspViolations = []; document.addEventListener('securitypolicyviolation', (e) => \
        window.__cspViolations.push(`${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} at ${e.sourceFile}:${e.lineNumber}`));";
    let session = driver.session.as_deref().expect("a WebDriver session");
    let answer = reqwest::Client::new()
        .post(format!("http://127.0.0.1:{}/session/{session}/goog/cdp/execute", driver.port))
        .json(&json!({"cmd": "Page.addScriptToEvaluateOnNewDocument", "params": {"source": WATCH}}))
        .send()
        .await
        .expect("chromedriver answers");
    assert!(
        answer.status().is_success(),
        "chromedriver refused the CSP watch: {}",
        answer.text().await.unwrap_or_default()
    );
}

/// `DELETE /session/{id}` without an async runtime (this runs in `drop`).
fn end_session(port: u16, session: &str) {
    use std::io::{Read, Write};
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else { return };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let request = format!(
        "DELETE /session/{session} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    );
    if stream.write_all(request.as_bytes()).is_ok() {
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
    }
}

fn binary(var: &str, default: &str) -> String {
    std::env::var(var).ok().filter(|v| !v.is_empty()).unwrap_or_else(|| default.to_string())
}

/// The screen a browser emulates: its viewport in CSS pixels, touch or mouse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Screen {
    /// A 1440x900 desktop viewport with a mouse.
    Desktop,
    /// A 390x844 phone with touch and the phone's viewport rules (`<meta name="viewport">`).
    Phone,
}

impl Screen {
    /// Both screens, desktop first.
    const ALL: [Screen; 2] = [Screen::Desktop, Screen::Phone];

    /// Width and height of the viewport.
    fn size(self) -> (u32, u32) {
        match self {
            Screen::Desktop => (1440, 900),
            Screen::Phone => (390, 844),
        }
    }

    /// chromedriver's `mobileEmulation` for this screen: the exact viewport (a window size
    /// would include the browser's own frame).
    fn emulation(self) -> Value {
        let (width, height) = self.size();
        let phone = self == Screen::Phone;
        json!({"deviceMetrics": {"width": width, "height": height, "pixelRatio": 1.0, "touch": phone, "mobile": phone}})
    }
}

impl std::fmt::Display for Screen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (width, height) = self.size();
        let name = if *self == Screen::Phone { "phone" } else { "desktop" };
        write!(f, "{name} {width}x{height}")
    }
}

/// The site's two colour themes (`localStorage["cg-theme"]`, read by `base.html` before the
/// first paint).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Theme {
    Light,
    Dark,
}

impl Theme {
    /// Both themes, light first.
    const ALL: [Theme; 2] = [Theme::Light, Theme::Dark];

    fn name(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}

impl Browser {
    /// Starts chromedriver on a free port and opens a headless Chromium session.
    async fn start(app: &TestApp) -> Browser {
        Browser::launch(app, None).await
    }

    /// Starts a browser that emulates `screen`.
    async fn start_on(app: &TestApp, screen: Screen) -> Browser {
        Browser::launch(app, Some(screen)).await
    }

    async fn launch(app: &TestApp, screen: Option<Screen>) -> Browser {
        let chromedriver = binary("CHESSGOLD_CHROMEDRIVER", "/usr/bin/chromedriver");
        let chromium = binary("CHESSGOLD_CHROMIUM", "/usr/bin/chromium");
        let port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
        let process = Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {chromedriver} ({e}): install chromium and chromium-driver"));
        let profile = std::env::temp_dir().join(format!("chessgold-browser-{}", uuid::Uuid::new_v4().simple()));
        let mut driver = Driver { process, port, session: None, profile: profile.clone() };
        std::fs::create_dir_all(&profile).expect("profile folder");
        let webdriver = format!("http://127.0.0.1:{port}");
        let capabilities: serde_json::Map<String, Value> = json!({
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
                    "--window-size=1280,900",
                ],
            },
        })
        .as_object()
        .cloned()
        .expect("capabilities are an object");
        let mut capabilities = capabilities;
        if let Some(screen) = screen {
            capabilities["goog:chromeOptions"]["mobileEmulation"] = screen.emulation();
        }
        // chromedriver needs a moment before it answers.
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let connector = hyper_util::client::legacy::connect::HttpConnector::new();
            match ClientBuilder::new(connector).capabilities(capabilities.clone()).connect(&webdriver).await {
                Ok(client) => {
                    driver.session = client.session_id().await.ok().flatten();
                    watch_csp(&driver).await;
                    return Browser { client, base: app.address.clone(), _driver: driver };
                }
                Err(_) if Instant::now() < deadline => tokio::time::sleep(Duration::from_millis(150)).await,
                Err(e) => panic!("no WebDriver session from {chromedriver} on port {port}: {e}"),
            }
        }
    }

    /// Opens a path of the app and waits until the board has drawn its first state.
    async fn open(&self, path: &str) {
        self.assert_no_csp_violation().await;
        self.client.goto(&format!("{}{path}", self.base)).await.expect("page opens");
        self.wait_for("the board shows a state", "document.querySelector('#board-app .cg-board .piece') !== null")
            .await;
    }

    /// Runs a script (a function body) and returns its value.
    async fn js(&self, script: &str) -> Value {
        self.client.execute(script, vec![]).await.unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
    }

    /// Waits until a JavaScript expression is true; panics with what was expected and what the
    /// page shows.
    async fn wait_for(&self, what: &str, expression: &str) {
        let deadline = Instant::now() + PATIENCE;
        let script = format!("return !!({expression});");
        loop {
            if self.client.execute(&script, vec![]).await.ok() == Some(Value::Bool(true)) {
                return;
            }
            if Instant::now() > deadline {
                let page = self.js(PAGE_SUMMARY).await;
                panic!("timed out waiting for {what} ({expression}); the page shows: {page:#}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn find(&self, css: &str) -> Element {
        self.client.find(Locator::Css(css)).await.unwrap_or_else(|e| panic!("no element {css}: {e}"))
    }

    async fn text(&self, css: &str) -> String {
        self.find(css).await.text().await.expect("element text")
    }

    /// Waits until the element's text (its `textContent`, whatever its fade-in) contains every
    /// one of `parts`, and returns it. WebDriver's visible text of an element that is still
    /// fading in is empty: wait for the words themselves.
    async fn wait_text(&self, what: &str, css: &str, parts: &[&str]) -> String {
        let selector = json!(css);
        let checks: Vec<String> = parts.iter().map(|p| format!("t.includes({})", json!(p))).collect();
        let checks = if checks.is_empty() { "true".to_string() } else { checks.join(" && ") };
        self.wait_for(
            what,
            &format!("(() => {{ const e = document.querySelector({selector}); const t = e ? e.textContent : null; return t !== null && {checks}; }})()"),
        )
        .await;
        let text = self.js(&format!("return document.querySelector({selector}).textContent;")).await;
        text.as_str().unwrap_or_default().to_string()
    }

    async fn click(&self, css: &str) {
        self.find(css).await.click().await.unwrap_or_else(|e| panic!("cannot click {css}: {e}"));
    }

    async fn click_square(&self, square: &str) {
        self.click(&format!(r#".cg-board .sq[data-square="{square}"]"#)).await;
    }

    /// Plays a move with two clicks and waits until the server's answer is drawn.
    async fn click_move(&self, from: &str, to: &str) {
        let ply = self.ply().await;
        self.click_square(from).await;
        self.click_square(to).await;
        self.wait_for(
            &format!("{from}{to} to be played"),
            &format!("Number(document.querySelector('#board-app').dataset.ply) === {}", ply + 1),
        )
        .await;
    }

    /// Presses the mouse on one element, moves it over another and releases it there.
    async fn drag(&self, from_css: &str, to_css: &str) {
        let from = self.find(from_css).await;
        let to = self.find(to_css).await;
        let steps = MouseActions::new("mouse".to_string())
            .then(PointerAction::MoveToElement { element: from, duration: None, x: 0.0, y: 0.0 })
            .then(PointerAction::Down { button: MOUSE_BUTTON_LEFT })
            .then(PointerAction::MoveBy { duration: Some(Duration::from_millis(60)), x: 6.0, y: -6.0 })
            .then(PointerAction::MoveToElement {
                element: to,
                duration: Some(Duration::from_millis(200)),
                x: 0.0,
                y: 0.0,
            })
            .then(PointerAction::Up { button: MOUSE_BUTTON_LEFT });
        self.client.perform_actions(steps).await.expect("drag performed");
        self.client.release_actions().await.expect("actions released");
    }

    /// Presses a key on the page (not in a text box).
    async fn press(&self, key: Key) {
        let body = self.find("body").await;
        body.send_keys(&char::from(key).to_string()).await.expect("key pressed");
    }

    /// Types into the action box and submits it with Enter.
    async fn type_action(&self, text: &str) {
        let input = self.find(".cg-typed input").await;
        input.clear().await.expect("input cleared");
        input.send_keys(&format!("{text}\u{E007}")).await.expect("typed");
    }

    /// Number of actions the page shows as played.
    async fn ply(&self) -> u64 {
        self.js("return Number(document.querySelector('#board-app').dataset.ply || 0);").await.as_u64().unwrap_or(0)
    }

    /// The piece on a square as "color kind", or None.
    async fn piece_on(&self, square: &str) -> Option<String> {
        let v = self
            .js(&format!(
                r#"const p = document.querySelector('.cg-board .piece[data-square="{square}"]');
                   return p ? p.dataset.color + " " + p.dataset.kind : null;"#
            ))
            .await;
        v.as_str().map(str::to_string)
    }

    /// The move list as the player reads it: the action texts in order.
    async fn move_list(&self) -> Vec<String> {
        let v = self
            .js("return [...document.querySelectorAll('.cg-moves .move:not(.empty)')].map(m => m.textContent);")
            .await;
        serde_json::from_value(v).expect("a list of moves")
    }

    /// The squares with a given mark (`dest`, `drop`, `last`, `check`), sorted.
    async fn marked(&self, class: &str) -> Vec<String> {
        let v = self
            .js(&format!(
                "return [...document.querySelectorAll('.cg-board .sq.{class}')].map(s => s.dataset.square).sort();"
            ))
            .await;
        serde_json::from_value(v).expect("a list of squares")
    }

    /// The legal actions of the state the page last received from the server.
    async fn server_legal(&self) -> Vec<String> {
        let v = self.js("return window.chessgold.state.legal;").await;
        serde_json::from_value(v).expect("a list of actions")
    }

    async fn gold(&self, color: &str) -> String {
        self.text(&format!(r#"[data-gold="{color}"]"#)).await
    }
}

const PAGE_SUMMARY: &str = r#"
const q = (s) => document.querySelector(s);
return {
  url: location.href,
  status: q('.cg-status')?.textContent ?? null,
  result: q('.cg-result')?.textContent ?? null,
  error: q('.cg-error')?.textContent ?? null,
  ply: q('#board-app')?.dataset.ply ?? null,
  moves: [...document.querySelectorAll('.cg-moves .move')].map(m => m.textContent),
  body: document.body.innerText.slice(0, 600),
};"#;

async fn session() -> (TestApp, Browser, tokio::sync::SemaphorePermit<'static>) {
    let permit = ONE_BROWSER.acquire().await.expect("the browser semaphore is never closed");
    let app = spawn_app().await;
    let browser = Browser::start(&app).await;
    (app, browser, permit)
}

// ---------------------------------------------------------------- helpers shared by the test files

impl Browser {
    /// Opens a path of the app without waiting for anything.
    async fn goto(&self, path: &str) {
        self.assert_no_csp_violation().await;
        self.client.goto(&format!("{}{path}", self.base)).await.expect("page opens");
    }

    /// Fails if the page shown broke the site's Content-Security-Policy since it opened
    /// ([`watch_csp`]); every test checks it before leaving a page.
    async fn assert_no_csp_violation(&self) {
        let seen = self.js("return window.__cspViolations || [];").await;
        let url = self.client.current_url().await.map(|u| u.to_string()).unwrap_or_default();
        assert_eq!(seen, json!([]), "{url} broke the Content-Security-Policy");
    }

    /// Waits until the live board has drawn a state with `ply` actions.
    async fn wait_ply(&self, who: &str, ply: usize) {
        self.wait_for(
            &format!("{who} to show {ply} actions"),
            &format!("document.querySelector('#board-app.cg-live') && document.querySelector('#board-app').dataset.ply === '{ply}'"),
        )
        .await;
    }

    /// The text of a player's clock.
    async fn clock(&self, color: &str) -> String {
        self.text(&format!(r#".cg-clock[data-clock="{color}"]"#)).await
    }
}

/// The live page of `b` shows the game over with `reason` and `winner` (and every one of `more`)
/// in its open banner. It waits for those words, not for the banner to be shown: a banner can be
/// shown (and fading in) before a check reads it.
async fn assert_live_banner(b: &Browser, who: &str, reason: &str, winner: &str, more: &[&str]) {
    let mut parts = vec![reason, winner];
    parts.extend_from_slice(more);
    let checks: Vec<String> = parts.iter().map(|p| format!("t.includes({})", json!(p))).collect();
    b.wait_for(
        &format!("{who}'s result banner saying {parts:?}"),
        &format!(
            "(() => {{ const e = document.querySelector('.cg-banner'); const t = e.textContent; return !e.hidden && {}; }})()",
            checks.join(" && ")
        ),
    )
    .await;
}

/// A player without a browser: a cookie jar for the HTTP side and the game socket, as in
/// `docs/api.md` (for the spectator test, whose players need no page).
struct SocketPlayer {
    base: String,
    http: reqwest::Client,
    jar: std::sync::Arc<reqwest::cookie::Jar>,
    ws: Option<tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>>,
    next_ack: u64,
}

impl SocketPlayer {
    fn new(app: &TestApp) -> SocketPlayer {
        let jar = std::sync::Arc::new(reqwest::cookie::Jar::default());
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .cookie_provider(jar.clone())
            .build()
            .expect("a client");
        SocketPlayer { base: app.address.clone(), http, jar, ws: None, next_ack: 0 }
    }

    /// Posts a form of this site with the CSRF token of the page `token_page`; returns the
    /// redirect's target.
    async fn post_form(&self, token_page: &str, path: &str, fields: &[(&str, &str)]) -> String {
        let page = self.http.get(format!("{}{token_page}", self.base)).send().await.expect("GET sent");
        let html = page.text().await.expect("a page");
        let token = crate::helpers::scrape_csrf(&html).expect("a CSRF token");
        let mut form = vec![("csrf_token", token.as_str())];
        form.extend_from_slice(fields);
        let answer = self
            .http
            .post(format!("{}{path}", self.base))
            .header("Origin", &self.base)
            .form(&form)
            .send()
            .await
            .expect("POST sent");
        assert_eq!(answer.status().as_u16(), 303, "{path} redirects");
        answer.headers()["location"].to_str().expect("a location").to_string()
    }

    async fn connect(&mut self, id: &str) {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let url = format!("{}/socket/game/{id}", self.base.replacen("http://", "ws://", 1));
        let mut request = url.into_client_request().expect("a socket request");
        let base = reqwest::Url::parse(&self.base).expect("base URL");
        if let Some(cookies) = reqwest::cookie::CookieStore::cookies(self.jar.as_ref(), &base) {
            request.headers_mut().insert("cookie", cookies);
        }
        let (ws, _) = tokio_tungstenite::connect_async(request).await.expect("the socket opens");
        self.ws = Some(ws);
    }

    /// Sends an action and returns the server's answer to it (`ack` or `error`).
    async fn act(&mut self, action: &str, ply: usize) -> Value {
        use futures_util::{SinkExt, StreamExt};
        use tokio_tungstenite::tungstenite::Message;
        self.next_ack += 1;
        let ack = self.next_ack;
        let ws = self.ws.as_mut().expect("connected");
        let text = json!({"t": "action", "d": {"action": action, "ply": ply, "ack": ack}}).to_string();
        ws.send(Message::text(text)).await.expect("sent");
        loop {
            let frame = tokio::time::timeout(PATIENCE, ws.next()).await.expect("an answer in time");
            if let Some(Ok(Message::Text(t))) = frame {
                let m: Value = serde_json::from_str(&t).expect("JSON");
                if (m["t"] == "ack" && m["d"] == ack) || (m["t"] == "error" && m["d"]["ack"] == ack) {
                    return m;
                }
            } else {
                panic!("the socket ended: {frame:?}");
            }
        }
    }
}

/// Two guests without browsers: one creates a Chess Gold game (5+3, White), the other joins;
/// both connect their sockets.
async fn two_socket_players(app: &TestApp) -> (String, SocketPlayer, SocketPlayer) {
    let mut white = SocketPlayer::new(app);
    let mut black = SocketPlayer::new(app);
    let fields = [("variant", "gold"), ("time", "5+3"), ("mode", "casual"), ("color", "white")];
    let id = white.post_form("/game/new", "/game/new", &fields).await.trim_start_matches('/').to_string();
    black.post_form(&format!("/{id}"), &format!("/game/{id}/join"), &[]).await;
    white.connect(&id).await;
    black.connect(&id).await;
    (id, white, black)
}

/// Polls `check` until it holds, for up to the browser tests' patience.
async fn wait_until<F: std::future::Future<Output = bool>>(check: impl Fn() -> F) -> bool {
    let deadline = Instant::now() + PATIENCE;
    while Instant::now() < deadline {
        if check().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

impl Browser {
    /// Signs up through the form.
    async fn sign_up(&self, name: &str) {
        self.goto("/signup").await;
        self.wait_for("the sign-up form", "document.getElementById('username')").await;
        self.js(&format!(
            "document.getElementById('username').value = '{name}'; document.getElementById('password').value = 'password123'; return true;"
        ))
        .await;
        self.js("document.getElementById('username').form.submit(); return true;").await;
        self.wait_for("the logged-in header", "document.querySelector('.user-name')").await;
    }
}
