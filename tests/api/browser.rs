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

impl Browser {
    /// Starts chromedriver on a free port and opens a headless Chromium session.
    async fn start(app: &TestApp) -> Browser {
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
        // chromedriver needs a moment before it answers.
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let connector = hyper_util::client::legacy::connect::HttpConnector::new();
            match ClientBuilder::new(connector).capabilities(capabilities.clone()).connect(&webdriver).await {
                Ok(client) => {
                    driver.session = client.session_id().await.ok().flatten();
                    return Browser { client, base: app.address.clone(), _driver: driver };
                }
                Err(_) if Instant::now() < deadline => tokio::time::sleep(Duration::from_millis(150)).await,
                Err(e) => panic!("no WebDriver session from {chromedriver} on port {port}: {e}"),
            }
        }
    }

    /// Opens a path of the app and waits until the board has drawn its first state.
    async fn open(&self, path: &str) {
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

/// Chess Gold: buy a knight in the shop, place it, move both kings, drag a pawn from the shop;
/// the gold counters follow the rules (income +1 at the start of each turn, the knight costs 3,
/// the pawn 1) and the move list grows.
#[tokio::test]
async fn gold_buy_and_place_a_knight_then_move_the_kings() {
    let (_app, b, _permit) = session().await;
    b.open("/local/gold").await;
    b.wait_for("the shop", "document.querySelector('.cg-shop .shop-item[data-piece=\"N\"]') !== null").await;
    assert_eq!(b.gold("white").await, "4", "White starts with 3 gold plus the first turn's income");
    assert_eq!(b.gold("black").await, "3");
    assert!(b.text(".cg-player[data-color=\"white\"] .cg-gold").await.contains("+1"), "the income is shown");
    // The queen costs 8: unaffordable, dimmed and not clickable.
    let queen = b.find(r#".shop-item[data-piece="Q"]"#).await;
    assert!(queen.attr("class").await.expect("class").unwrap_or_default().contains("unaffordable"));
    assert!(!queen.is_enabled().await.expect("enabled state"));

    // Choose the knight: exactly the squares the server lists for N@.. light up.
    b.click(r#".shop-item[data-piece="N"]"#).await;
    let lit = b.marked("drop").await;
    let mut expected: Vec<String> =
        b.server_legal().await.iter().filter_map(|a| a.strip_prefix("N@").map(str::to_string)).collect();
    expected.sort();
    assert!(!expected.is_empty());
    assert_eq!(lit, expected, "lit squares are the server's legal placements");
    assert!(lit.contains(&"c3".to_string()));

    b.click_square("c3").await;
    b.wait_for(
        "the knight on c3",
        r#"document.querySelector('.piece[data-square="c3"][data-kind="knight"][data-color="white"]')"#,
    )
    .await;
    assert_eq!(b.gold("white").await, "1", "4 - 3 for the knight");
    assert_eq!(b.gold("black").await, "4", "Black's income for its turn");
    assert_eq!(b.move_list().await, ["N@c3"]);
    assert_eq!(b.marked("last").await, ["c3"]);

    b.click_move("e8", "d7").await;
    assert_eq!(b.piece_on("d7").await.as_deref(), Some("black king"));
    assert_eq!(b.gold("white").await, "2");
    assert_eq!(b.gold("black").await, "4");

    b.click_move("e1", "e2").await;
    assert_eq!(b.piece_on("e2").await.as_deref(), Some("white king"));
    assert_eq!(b.gold("white").await, "2");
    assert_eq!(b.gold("black").await, "5");
    assert_eq!(b.move_list().await, ["N@c3", "e8d7", "e1e2"]);

    // Black drags a pawn from the shop onto the board.
    b.drag(r#".shop-item[data-piece="P"]"#, r#".sq[data-square="e6"]"#).await;
    b.wait_for(
        "the dragged pawn",
        r#"document.querySelector('.piece[data-square="e6"][data-kind="pawn"][data-color="black"]')"#,
    )
    .await;
    assert_eq!(b.gold("black").await, "4");
    assert_eq!(b.gold("white").await, "3");
    assert_eq!(b.move_list().await, ["N@c3", "e8d7", "e1e2", "P@e6"]);
}

/// Standard chess: the fool's mate with mouse clicks ends in a banner that names the reason and
/// the winner; the checked king is marked and nothing more can be played.
#[tokio::test]
async fn standard_fools_mate_by_clicks_shows_the_game_over_banner() {
    let (_app, b, _permit) = session().await;
    b.open("/local/standard").await;

    // Legal destinations come from the server's list only.
    b.click_square("g1").await;
    assert_eq!(b.marked("dest").await, ["f3", "h3"]);
    b.click_square("g1").await;
    assert!(b.marked("dest").await.is_empty(), "a second click puts the knight down");

    b.click_move("f2", "f3").await;
    b.click_move("e7", "e5").await;
    b.click_move("g2", "g4").await;
    b.click_move("d8", "h4").await;

    b.wait_for("the game-over banner", "!document.querySelector('.cg-banner').hidden").await;
    let banner = b.text(".cg-banner").await;
    assert!(banner.contains("Checkmate"), "banner: {banner}");
    assert!(banner.contains("Black wins"), "banner: {banner}");
    assert!(banner.contains("0\u{2013}1"), "banner: {banner}");
    let result = b.text(".cg-result").await;
    assert!(result.contains("Checkmate") && result.contains("Black wins"), "result: {result}");
    assert_eq!(b.marked("check").await, ["e1"]);
    assert_eq!(b.marked("last").await, ["d8", "h4"]);
    assert_eq!(b.move_list().await, ["f2f3", "e7e5", "g2g4", "d8h4"]);
    assert!(b.marked("movable").await.is_empty(), "a finished game offers no action");

    // Looking back: the left arrow shows the position before the mate, End returns.
    b.press(Key::Left).await;
    b.wait_for(
        "the earlier position",
        "document.querySelector('.cg-status').textContent.includes('Viewing move 3 of 4')",
    )
    .await;
    assert_eq!(b.piece_on("d8").await.as_deref(), Some("black queen"));
    assert!(b.marked("check").await.is_empty());
    assert_eq!(b.move_list().await, ["f2f3", "e7e5", "g2g4", "d8h4"], "the whole game stays listed");
    b.press(Key::End).await;
    b.wait_for("the final position", "!document.querySelector('.cg-banner').hidden").await;
    assert_eq!(b.piece_on("h4").await.as_deref(), Some("black queen"));
}

/// Drag and drop, the typed-action box with the server's error, the promotion chooser, undo.
#[tokio::test]
async fn drag_and_drop_typed_actions_promotion_and_undo() {
    let (_app, b, _permit) = session().await;
    b.open("/local/standard").await;

    b.drag(r#".sq[data-square="e2"]"#, r#".sq[data-square="e4"]"#).await;
    b.wait_for("e2e4 by drag", "document.querySelector('#board-app').dataset.ply === '1'").await;
    assert_eq!(b.piece_on("e4").await.as_deref(), Some("white pawn"));
    assert_eq!(b.piece_on("e2").await, None);

    // A drop on a square that is not a legal destination plays nothing.
    b.drag(r#".sq[data-square="d7"]"#, r#".sq[data-square="d4"]"#).await;
    assert_eq!(b.ply().await, 1);
    assert_eq!(b.piece_on("d7").await.as_deref(), Some("black pawn"));

    b.type_action("e7e5").await;
    b.wait_for("e7e5 by typing", "document.querySelector('#board-app').dataset.ply === '2'").await;
    assert_eq!(b.piece_on("e5").await.as_deref(), Some("black pawn"));
    assert_eq!(b.find(".cg-typed input").await.prop("value").await.expect("value").as_deref(), Some(""));

    // An illegal typed action: the server's error is shown and nothing changes.
    b.type_action("e1e3").await;
    b.wait_for("the server's error", "document.querySelector('.cg-error').textContent.length > 0").await;
    let error = b.text(".cg-error").await;
    assert!(error.contains("e1e3"), "the error names the action: {error}");
    assert_eq!(b.ply().await, 2);
    assert_eq!(b.move_list().await, ["e2e4", "e7e5"]);

    // A pawn reaches the last rank: the chooser offers the four pieces, queen first; pick the
    // knight.
    b.open("/local/standard#a2a4,b7b5,a4b5,a7a6,b5a6,c8b7,a6b7,b8c6").await;
    b.wait_for("the game in the address", "document.querySelector('#board-app').dataset.ply === '8'").await;
    b.click_square("b7").await;
    b.click_square("a8").await;
    let choices =
        b.js("return [...document.querySelectorAll('.cg-chooser .choice')].map(c => c.dataset.action);").await;
    assert_eq!(choices, json!(["b7a8q", "b7a8r", "b7a8b", "b7a8n"]));
    b.click(r#".cg-chooser .choice[data-action="b7a8n"]"#).await;
    b.wait_for("the promotion", "document.querySelector('#board-app').dataset.ply === '9'").await;
    assert_eq!(b.piece_on("a8").await.as_deref(), Some("white knight"));
    assert_eq!(b.move_list().await.last().map(String::as_str), Some("b7a8n"));

    // Undo replays one action fewer.
    b.click(r#".cg-controls [data-control="undo"]"#).await;
    b.wait_for("the undo", "document.querySelector('#board-app').dataset.ply === '8'").await;
    assert_eq!(b.piece_on("b7").await.as_deref(), Some("white pawn"));
    assert_eq!(b.piece_on("a8").await.as_deref(), Some("black rook"));
}

/// Flipping the board puts Black at the bottom; the mute switch is remembered across a reload.
#[tokio::test]
async fn flip_and_a_remembered_mute_switch() {
    let (_app, b, _permit) = session().await;
    b.open("/local/standard").await;
    let bottom_left = "return document.querySelector('.cg-squares').children[56].dataset.square;";
    assert_eq!(b.js(bottom_left).await, json!("a1"));
    b.click(r#".cg-controls [data-control="flip"]"#).await;
    assert_eq!(b.js(bottom_left).await, json!("h8"));
    assert_eq!(b.js("return document.querySelector('.cg-player.bottom').dataset.color;").await, json!("black"));

    b.click(r#".cg-controls [data-control="sound"]"#).await;
    assert_eq!(b.js("return localStorage.getItem('chessgold.muted');").await, json!("1"));
    b.open("/local/standard").await;
    assert_eq!(
        b.find(r#".cg-controls [data-control="sound"]"#)
            .await
            .attr("aria-pressed")
            .await
            .expect("attribute")
            .as_deref(),
        Some("true")
    );
}

/// Chess Gold: a pawn on the seventh rank may promote at once or stay and wait ("wait" in the
/// chooser, `a7a8`); the waiting pawn is marked and is promoted later in place (`a8=Q`, 1 gold).
#[tokio::test]
async fn gold_pawn_waits_on_the_last_rank_and_promotes_in_place() {
    let (_app, b, _permit) = session().await;
    b.open("/local/gold#P@a2,e8d8,a2a4,d8e8,a4a5,e8d8,a5a6,d8e8,a6a7,e8d8").await;
    b.wait_for("the game in the address", "document.querySelector('#board-app').dataset.ply === '10'").await;
    b.click_square("a7").await;
    b.click_square("a8").await;
    let choices =
        b.js("return [...document.querySelectorAll('.cg-chooser .choice')].map(c => c.dataset.action);").await;
    assert_eq!(choices, json!(["a7a8q", "a7a8r", "a7a8b", "a7a8n", "a7a8"]));
    b.click(r#".cg-chooser .choice[data-action="a7a8"]"#).await;
    b.wait_for("the pawn to wait", "document.querySelector('#board-app').dataset.ply === '11'").await;
    assert_eq!(b.piece_on("a8").await.as_deref(), Some("white pawn"));
    assert!(
        b.find(r#".piece[data-square="a8"]"#)
            .await
            .attr("class")
            .await
            .expect("class")
            .unwrap_or_default()
            .contains("waiting")
    );

    b.click_move("d8", "e8").await;
    let gold_before: f64 = b.gold("white").await.parse().expect("gold is a number");
    b.click_square("a8").await;
    let choices =
        b.js("return [...document.querySelectorAll('.cg-chooser .choice')].map(c => c.dataset.action);").await;
    assert_eq!(choices, json!(["a8=Q", "a8=R", "a8=B", "a8=N"]));
    b.click(r#".cg-chooser .choice[data-action="a8=Q"]"#).await;
    b.wait_for("the promotion in place", "document.querySelector('#board-app').dataset.ply === '13'").await;
    assert_eq!(b.piece_on("a8").await.as_deref(), Some("white queen"));
    let gold_after: f64 = b.gold("white").await.parse().expect("gold is a number");
    assert_eq!(gold_after, gold_before - 1.0, "the promotion costs 1 gold");
    assert_eq!(b.move_list().await.last().map(String::as_str), Some("a8=Q"));
}

/// The board's notation module reads every action form of the rule books the same way the
/// server writes them (what it highlights, and what it offers from a legal list).
#[tokio::test]
async fn the_board_reads_every_action_form() {
    let (_app, b, _permit) = session().await;
    b.open("/local/standard").await;
    let result = b
        .client
        .execute_async(
            r#"const done = arguments[arguments.length - 1];
            import("/static/js/notation.js").then((n) => {
              const forms = ["e2e4", "e7e8q", "e7e8", "e1g1", "N@c3", "e8=Q", "d4=N", "crossbow@d4", "crown@d4=R", "d1d5/c6", "i9f9", "E2E4", "n@c3x", ""];
              const parsed = Object.fromEntries(forms.map((f) => [f, n.parseAction(f)]));
              const lit = Object.fromEntries(forms.map((f) => [f, n.highlightSquares(f)]));
              const index = new n.LegalIndex(["e7e8", "e7e8q", "e7e8n", "N@c3", "N@d3", "a8=Q", "d1d5/c6", "d1d5/d5", "crossbow@d4"]);
              done({
                parsed, lit,
                dests: index.destinations("e7"),
                promos: index.movesBetween("e7", "e8").map((m) => m.text),
                drops: index.drops.get("N"),
                inPlace: index.promotions.get("a8").map((p) => p.text),
                landings: index.movesBetween("d1", "d5").map((m) => m.landing),
                equips: index.equips.map((e) => e.text),
                canAct: [index.canAct("a8"), index.canAct("e7"), index.canAct("c3")],
              });
            }).catch((e) => done(String(e)));"#,
            vec![],
        )
        .await
        .expect("the notation module runs");
    assert_eq!(
        result["parsed"]["e2e4"],
        json!({"type": "move", "from": "e2", "to": "e4", "promo": null, "landing": null, "text": "e2e4"})
    );
    assert_eq!(result["parsed"]["e7e8q"]["promo"], "q");
    assert_eq!(result["parsed"]["e7e8"]["promo"], Value::Null);
    assert_eq!(result["parsed"]["N@c3"], json!({"type": "drop", "letter": "N", "square": "c3", "text": "N@c3"}));
    assert_eq!(result["parsed"]["e8=Q"], json!({"type": "promote", "square": "e8", "letter": "Q", "text": "e8=Q"}));
    assert_eq!(result["parsed"]["crown@d4=R"]["type"], "equip");
    assert_eq!(result["parsed"]["crown@d4=R"]["letter"], "R");
    assert_eq!(result["parsed"]["d1d5/c6"]["landing"], "c6");
    assert_eq!(result["parsed"]["i9f9"]["from"], "i9");
    for bad in ["E2E4", "n@c3x", ""] {
        assert_eq!(result["parsed"][bad], Value::Null, "{bad} is no action");
    }
    assert_eq!(result["lit"]["e1g1"], json!(["e1", "g1"]));
    assert_eq!(result["lit"]["N@c3"], json!(["c3"]));
    assert_eq!(result["lit"]["e8=Q"], json!(["e8"]));
    assert_eq!(result["lit"]["d1d5/c6"], json!(["d1", "d5", "c6"]));
    assert_eq!(result["dests"], json!(["e8"]));
    assert_eq!(result["promos"], json!(["e7e8", "e7e8q", "e7e8n"]));
    assert_eq!(result["drops"], json!(["c3", "d3"]));
    assert_eq!(result["inPlace"], json!(["a8=Q"]));
    assert_eq!(result["landings"], json!(["c6", "d5"]));
    assert_eq!(result["equips"], json!(["crossbow@d4"]));
    assert_eq!(result["canAct"], json!([true, true, false]));
}

/// Loot boxes: the box the server spawned is drawn on its square with its hits; a knight hits it
/// three times and opens it; the contents go to the inventory shown in the player bar; the item
/// is equipped by clicking it and then the lit piece, and the piece wears its badge. (Local games
/// replay with the engine's default seed, whose first box stands on a4 and holds a crossbow.)
#[tokio::test]
async fn lootbox_open_a_box_and_equip_what_it_held() {
    let (_app, b, _permit) = session().await;
    b.open("/local/lootbox#N@b1,e8e7,e1e2,e7e6,e2e1,e6e7,b1a3,e7e6").await;
    b.wait_for("the game in the address", "document.querySelector('#board-app').dataset.ply === '8'").await;
    let boxes = b.js("return window.chessgold.state.boxes;").await;
    assert_eq!(boxes, json!([{"square": "a4", "hits": 1}]), "the default seed's first box, hit once by b1a3");
    b.wait_for("the box on a4", r#"document.querySelector('.cg-objects .loot-box[data-square="a4"]')"#).await;
    let title = b.find(r#".loot-box[data-square="a4"]"#).await.attr("title").await.expect("title").unwrap_or_default();
    assert!(title.contains("1 of 3"), "the hits are shown: {title}");

    b.click_move("a3", "b5").await;
    b.click_move("e6", "e7").await;
    b.click_move("b5", "a3").await;
    let opened = b.text(".cg-loot-opened").await;
    assert!(opened.contains("White opened the box on a4") && opened.contains("Crossbow"), "opened: {opened}");
    assert!(b.marked("drop").await.is_empty());
    assert_eq!(b.js("return document.querySelectorAll('.cg-objects .loot-box').length;").await, json!(0));
    let inventory = b.find(r#".cg-inventory[data-owner="white"]"#).await.html(true).await.expect("html");
    assert!(inventory.contains("Crossbow"), "the crossbow is in White's inventory: {inventory}");

    b.click_move("e7", "e6").await;
    let gold_before: f64 = b.gold("white").await.parse().expect("gold is a number");
    b.click(r#".cg-equip button[data-item="crossbow"]"#).await;
    let mut expected: Vec<String> =
        serde_json::from_value::<Vec<String>>(b.js("return window.chessgold.state.equips;").await)
            .expect("equips")
            .iter()
            .filter_map(|e| e.strip_prefix("crossbow@").map(str::to_string))
            .collect();
    expected.sort();
    assert_eq!(b.marked("drop").await, expected, "lit pieces are the server's legal equips");
    b.click_square("a3").await;
    b.wait_for("the equip", "document.querySelector('#board-app').dataset.ply === '13'").await;
    b.wait_for(
        "the badge",
        r#"document.querySelector('.piece[data-square="a3"] .cg-item-badge[data-item="crossbow"]')"#,
    )
    .await;
    let gold_after: f64 = b.gold("white").await.parse().expect("gold is a number");
    assert_eq!(gold_after, gold_before - 2.0, "a crossbow costs 2 gold to equip");
    assert_eq!(
        b.js("return document.querySelector('#board-app').dataset.side;").await,
        json!("white"),
        "an equip is not a turn"
    );
    let last_cell = b.js("return [...document.querySelectorAll('.cg-moves .move')].at(-1).textContent;").await;
    assert_eq!(last_cell, json!("crossbow@a3"));
}

/// The actions of the open chooser, in order.
async fn chooser_actions(b: &Browser) -> Vec<String> {
    let v = b.js("return [...document.querySelectorAll('.cg-chooser .choice')].map(c => c.dataset.action);").await;
    serde_json::from_value(v).expect("a list of actions")
}

/// The names the open chooser shows on its choices, in order.
async fn chooser_names(b: &Browser) -> Vec<String> {
    let v = b
        .js("return [...document.querySelectorAll('.cg-chooser .choice')].map(c => c.querySelector('.name')?.textContent ?? '');")
        .await;
    serde_json::from_value(v).expect("a list of names")
}

/// Electrum Chess: the 9x9 board with its coordinates; a pawn reaching the last rank on a square
/// where an enemy Silver piece started is offered the four Silver pieces by name (on a Gold
/// piece's square the four Gold pieces, on the king's square all eight); the chosen one appears.
#[tokio::test]
async fn electrum_promotion_chooser_offers_the_squares_pieces_by_name() {
    let (_app, b, _permit) = session().await;
    b.open("/local/electrum#h2h4,a8a7,h4h5,a7a6,h5h6,a6a5,h6h7,a5a4,h7i8,b8b7").await;
    b.wait_for("the game in the address", "document.querySelector('#board-app').dataset.ply === '10'").await;
    assert_eq!(b.js("return document.querySelectorAll('.cg-squares .sq').length;").await, json!(81));
    assert_eq!(b.js("return document.querySelector('.cg-squares').children[72].dataset.square;").await, json!("a1"));
    assert_eq!(b.js("return document.querySelector('.cg-squares').children[8].dataset.square;").await, json!("i9"));
    let coords =
        b.js("return [...document.querySelectorAll('.cg-board .coord.file')].map(c => c.textContent).join('');").await;
    assert_eq!(coords, json!("abcdefghi"));
    let ranks =
        b.js("return [...document.querySelectorAll('.cg-board .coord.rank')].map(c => c.textContent).join('');").await;
    assert_eq!(ranks, json!("987654321"));
    let shape = b
        .js("const r = document.querySelector('.cg-board').getBoundingClientRect(); return Math.abs(r.width - r.height) < 2;")
        .await;
    assert_eq!(shape, json!(true), "the 9x9 board is square");
    assert_eq!(b.piece_on("e9").await.as_deref(), Some("black king"));
    assert_eq!(b.piece_on("h9").await.as_deref(), Some("black nitan"));

    // h9 is the square of Black's Nitan, a Gold piece: the four Gold pieces, named.
    b.click_square("i8").await;
    b.click_square("h9").await;
    let mut gold = chooser_actions(&b).await;
    let mut names = chooser_names(&b).await;
    gold.sort();
    names.sort();
    assert_eq!(gold, ["i8h9g", "i8h9m", "i8h9n", "i8h9r"]);
    assert_eq!(names, ["Goldmitre", "Goldrider", "Goldrook", "Nitan"]);
    b.press(Key::Escape).await;
    assert!(chooser_actions(&b).await.is_empty(), "Escape closes the chooser");
    assert_eq!(b.ply().await, 10);

    // e9 is the enemy king's square: all eight pieces.
    b.open("/local/electrum#c2c4,e8e6,c4c5,e9e8,c5c6,e8e7,c6c7,f9e9,c7d8,a8a7").await;
    b.wait_for("the game in the address", "document.querySelector('#board-app').dataset.ply === '10'").await;
    b.click_square("d8").await;
    b.click_square("e9").await;
    let mut names = chooser_names(&b).await;
    names.sort();
    assert_eq!(
        names,
        ["Caman", "Goldmitre", "Goldrider", "Goldrook", "Nitan", "Silverbishop", "Silverrider", "Silverwing"]
    );

    // b9 is the square of Black's Caman, a Silver piece: the four Silver pieces.
    b.open("/local/electrum#b2b4,i8i7,b4b5,i7i6,b5b6,i6i5,b6b7,i5i4,b7a8,h8h7").await;
    b.wait_for("the game in the address", "document.querySelector('#board-app').dataset.ply === '10'").await;
    b.click_square("a8").await;
    b.click_square("b9").await;
    let mut silver = chooser_actions(&b).await;
    silver.sort();
    let mut expected: Vec<String> = b.server_legal().await.into_iter().filter(|a| a.starts_with("a8b9")).collect();
    expected.sort();
    assert_eq!(silver, expected, "the chooser offers exactly the server's choices");
    assert_eq!(silver, ["a8b9b", "a8b9c", "a8b9s", "a8b9w"]);
    let mut names = chooser_names(&b).await;
    names.sort();
    assert_eq!(names, ["Caman", "Silverbishop", "Silverrider", "Silverwing"]);
    let kinds = b
        .js("return [...document.querySelectorAll('.cg-chooser .choice .choice-piece')].map(p => p.dataset.kind).sort();")
        .await;
    assert_eq!(kinds, json!(["caman", "silverbishop", "silverrider", "silverwing"]));
    b.click(r#".cg-chooser .choice[data-action="a8b9c"]"#).await;
    b.wait_for("the promotion", "document.querySelector('#board-app').dataset.ply === '11'").await;
    assert_eq!(b.piece_on("b9").await.as_deref(), Some("white caman"));
    assert_eq!(b.move_list().await.last().map(String::as_str), Some("a8b9c"));
}

/// Class Warfare Chess: the 8x4 board, Black (the proletariat) first with 50 moves left; every
/// factory runs at the start; when a4 empties the rook factory's markers on a4 and h4 turn to
/// stopped, the rooks wear the pawn badge and move like pawns, and the moves left count down.
#[tokio::test]
async fn class_warfare_factory_empties_and_its_markers_change() {
    let (_app, b, _permit) = session().await;
    b.open("/local/class-warfare").await;
    assert_eq!(b.js("return document.querySelectorAll('.cg-squares .sq').length;").await, json!(32));
    let shape =
        b.js("const r = document.querySelector('.cg-board').getBoundingClientRect(); return r.width / r.height;").await;
    let ratio = shape.as_f64().expect("a ratio");
    assert!((ratio - 2.0).abs() < 0.02, "the 8x4 board is twice as wide as high: {ratio}");
    assert_eq!(b.js("return document.querySelector('#board-app').dataset.side;").await, json!("black"));
    assert_eq!(b.text(r#".cg-moves-left[data-owner="black"]"#).await, "50 moves left");
    let markers = "return [...document.querySelectorAll('.cg-objects .factory')].map(f => f.dataset.square + ':' + f.dataset.piece + ':' + (f.classList.contains('running') ? 'running' : 'stopped')).sort();";
    assert_eq!(
        b.js(markers).await,
        json!([
            "a4:R:running",
            "b4:N:running",
            "c4:B:running",
            "d4:Q:running",
            "e4:Q:running",
            "f4:B:running",
            "g4:N:running",
            "h4:R:running"
        ])
    );
    assert_eq!(b.js("return document.querySelectorAll('.piece .cg-stopped').length;").await, json!(0));

    b.click_move("a4", "a3").await;
    assert_eq!(
        b.js(markers).await,
        json!([
            "a4:R:stopped",
            "b4:N:running",
            "c4:B:running",
            "d4:Q:running",
            "e4:Q:running",
            "f4:B:running",
            "g4:N:running",
            "h4:R:stopped"
        ])
    );
    let badges = b.js("return [...document.querySelectorAll('.piece .cg-stopped')].map(s => s.parentElement.dataset.square).sort();").await;
    assert_eq!(badges, json!(["a1", "h1"]), "the rooks move like pawns now");
    let list = b.js("return [...document.querySelectorAll('.cg-factory-list li')].map(l => l.dataset.piece + ':' + l.className);").await;
    assert_eq!(list, json!(["R:stopped", "N:running", "B:running", "Q:running"]));
    assert_eq!(b.text(r#".cg-moves-left[data-owner="black"]"#).await, "49 moves left");

    // The rook on h1 only has the pawn step the server allows.
    b.click_square("h1").await;
    assert_eq!(b.marked("dest").await, ["h2"]);
    b.click_square("h2").await;
    b.wait_for("h1h2 to be played", "document.querySelector('#board-app').dataset.ply === '2'").await;
    assert_eq!(b.piece_on("h2").await.as_deref(), Some("white rook"));
}

/// Grunt Chess: the XP counters start at 0 and 1 (Black's komi, marked); a capture earns the
/// capturer 2 XP and the loser 1; after the rule book's example White has 5 XP, clicks a pawn
/// and promotes it in place to a Grunt from the chooser (3 XP shown); with fewer than 10 pieces
/// the muster control lights the squares next to the king and a click musters a Grunt for 5 XP.
#[tokio::test]
async fn grunt_xp_counters_promotion_in_place_and_muster() {
    let (_app, b, _permit) = session().await;
    b.open("/local/grunt").await;
    b.wait_for("the XP counters", r#"document.querySelector('[data-xp="white"]')"#).await;
    assert_eq!(b.text(r#"[data-xp="white"]"#).await, "0");
    assert_eq!(b.text(r#"[data-xp="black"]"#).await, "1");
    assert_eq!(b.text(r#".cg-xp[data-owner="black"] .komi"#).await, "komi +1");

    b.click_move("e2", "e4").await;
    b.click_move("d7", "d5").await;
    b.click_move("e4", "d5").await;
    assert_eq!(b.text(r#"[data-xp="white"]"#).await, "2", "a pawn captured earns 2");
    assert_eq!(b.text(r#"[data-xp="black"]"#).await, "2", "1 komi + 1 consolation");
    assert_eq!(
        b.js(r#"return document.querySelector('.cg-xp[data-owner="black"] .komi').textContent;"#).await,
        json!("")
    );
    b.click_move("e7", "e6").await;
    b.click_move("d5", "e6").await;
    b.click_move("f7", "e6").await;
    assert_eq!(b.text(r#"[data-xp="white"]"#).await, "5");
    assert_eq!(b.text(r#"[data-xp="black"]"#).await, "5");

    // Promotion in place: the pawn's chooser holds its next rung with the cost.
    assert!(b.find(r#".piece[data-square="a2"] .cg-rung"#).await.is_displayed().await.expect("displayed"));
    b.click_square("a2").await;
    assert_eq!(chooser_actions(&b).await, ["a2=G"]);
    let note = b.text(r#".cg-chooser .choice[data-action="a2=G"] .note"#).await;
    assert_eq!(note, "3 XP");
    let panel = b.text(".cg-promote-now").await;
    assert!(panel.contains("Grunt") && panel.contains("3 XP"), "the side panel offers it too: {panel}");
    b.click(r#".cg-chooser .choice[data-action="a2=G"]"#).await;
    b.wait_for("the promotion in place", "document.querySelector('#board-app').dataset.ply === '7'").await;
    assert_eq!(b.piece_on("a2").await.as_deref(), Some("white grunt"));
    assert_eq!(b.text(r#"[data-xp="white"]"#).await, "2", "5 - 3 for the promotion");
    assert_eq!(b.move_list().await.last().map(String::as_str), Some("a2=G"));

    // Muster: White has 9 pieces and 5 XP.
    b.open("/local/grunt#b1a3,e7e5,g2g3,f8a3,f2f4,e5f4,b2b4,a3b4,f1g2,b4d2,e1f2,d2c1").await;
    b.wait_for("the game in the address", "document.querySelector('#board-app').dataset.ply === '12'").await;
    let button = b.find(r#".cg-muster button[data-piece="G"]"#).await;
    assert!(button.is_enabled().await.expect("enabled state"));
    assert!(button.text().await.expect("text").contains("5 XP"));
    button.click().await.expect("muster clicked");
    let mut expected: Vec<String> =
        b.server_legal().await.iter().filter_map(|a| a.strip_prefix("G@").map(str::to_string)).collect();
    expected.sort();
    assert_eq!(expected, ["e1", "e3", "f1", "f3"]);
    assert_eq!(b.marked("drop").await, expected, "lit squares are the server's musters");
    b.click_square("e3").await;
    b.wait_for("the muster", "document.querySelector('#board-app').dataset.ply === '13'").await;
    assert_eq!(b.piece_on("e3").await.as_deref(), Some("white grunt"));
    assert_eq!(b.text(r#"[data-xp="white"]"#).await, "0");
    assert_eq!(b.move_list().await.last().map(String::as_str), Some("G@e3"));
}

/// Chessception: every piece carries its HP bar (kings and their neighbours a shield); the
/// bishop's attack from f1 (doubled by the knight on g1) kills the knight on a6 and, by area
/// damage, the pawn on b7, so the player picks the landing among the lit squares; the damage
/// numbers float over both squares; a later attack that does not kill leaves a shorter bar.
#[tokio::test]
async fn chessception_hp_bars_damage_numbers_and_a_landing_chosen_by_click() {
    let (_app, b, _permit) = session().await;
    b.open("/local/chessception").await;
    b.wait_for("the HP bars", "document.querySelectorAll('.piece .cg-hp').length === 32").await;
    let bar = |sq: &str| {
        format!(
            r#"return (() => {{ const h = document.querySelector('.piece[data-square="{sq}"] .cg-hp'); return h ? h.dataset.hp + '/' + h.dataset.max + ':' + h.querySelectorAll('.seg.on').length : null; }})();"#
        )
    };
    assert_eq!(b.js(&bar("a2")).await, json!("2/2:2"));
    assert_eq!(b.js(&bar("b8")).await, json!("4/4:4"));
    let shields = b.js("return [...document.querySelectorAll('.piece .cg-shield')].map(s => s.parentElement.dataset.square).sort();").await;
    assert_eq!(shields, json!(["d1", "d2", "d7", "d8", "e1", "e2", "e7", "e8", "f1", "f2", "f7", "f8"]));
    assert_eq!(b.text(r#"[data-king-hp="white"]"#).await, "4/4");

    b.click_move("e2", "e4").await;
    b.click_move("b8", "a6").await;
    b.click_square("f1").await;
    b.click_square("a6").await;
    assert_eq!(b.ply().await, 2, "nothing is played before the landing is chosen");
    assert_eq!(b.marked("drop").await, ["a6", "b7"], "the kill squares are lit");
    assert_eq!(b.marked("pending").await, ["a6", "f1"]);
    assert!(b.text(".cg-hint").await.contains("lands"));
    b.click_square("b7").await;
    b.wait_for("the attack", "document.querySelector('#board-app').dataset.ply === '3'").await;
    assert_eq!(b.move_list().await.last().map(String::as_str), Some("f1a6/b7"));
    assert_eq!(b.piece_on("b7").await.as_deref(), Some("white bishop"));
    assert_eq!(b.piece_on("a6").await, None);
    assert_eq!(b.piece_on("f1").await, None);
    let floats = "return [...document.querySelectorAll('.cg-floats .cg-float')].map(f => f.dataset.square + ' ' + f.textContent.trim()).sort();";
    assert_eq!(b.js(floats).await, json!(["a6 \u{2212}4", "b7 \u{2212}2"]));
    let combat = b.text(".cg-combat-last").await;
    assert!(combat.contains("a6 \u{2212}4 (killed)") && combat.contains("\u{2212}2 (killed)"), "combat: {combat}");
    assert_eq!(b.js(&bar("b7")).await, json!("4/4:4"), "the landed bishop is unhurt");
    assert_eq!(b.marked("drop").await, Vec::<String>::new());

    // Black's bishop attacks it: 2 damage, no kill, the attacker stays on c8.
    b.click_move("c8", "b7").await;
    assert_eq!(b.piece_on("c8").await.as_deref(), Some("black bishop"));
    assert_eq!(b.piece_on("b7").await.as_deref(), Some("white bishop"));
    assert_eq!(b.js(&bar("b7")).await, json!("2/4:2"));
    assert_eq!(b.js(floats).await, json!(["b7 \u{2212}2"]));
}

// ---------------------------------------------------------------- live games

impl Browser {
    /// Opens a path of the app without waiting for anything.
    async fn goto(&self, path: &str) {
        self.client.goto(&format!("{}{path}", self.base)).await.expect("page opens");
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

/// The live page of `b` shows the game over with `reason` and `winner` in its banner.
async fn assert_live_banner(b: &Browser, who: &str, reason: &str, winner: &str) {
    b.wait_for(&format!("{who}'s result banner"), "!document.querySelector('.cg-banner').hidden").await;
    let banner = b.text(".cg-banner").await;
    assert!(banner.contains(reason) && banner.contains(winner), "{who}'s banner: {banner}");
}

/// Two browsers (two profiles, two guests) play Chess Gold on one game page: White creates the
/// game with the "play with a friend" form and copies the invite link, Black opens it and joins;
/// a knight bought in White's shop appears on Black's board, Black's king move on White's; the
/// clock of the side to move runs; a chat line arrives as text; a draw offer is declined; Black
/// reloads mid-game and continues; Black resigns (after confirming) and both see the result;
/// a rematch accepted on both sides sends both players to the new game with colours swapped.
#[tokio::test]
async fn live_gold_two_browsers_play_to_a_resignation() {
    let (app, white, _permit) = session().await;
    let black = Browser::start(&app).await;

    white.goto("/game/new?variant=gold").await;
    white.wait_for("the friend form", "document.querySelector('form.new-game')").await;
    assert_eq!(white.js("return document.getElementById('variant').value;").await, json!("gold"));
    white.click(r#"input[name="color"][value="white"]"#).await;
    white.click(r#"form.new-game button[type="submit"]"#).await;
    white.wait_for("the live board", "document.querySelector('#board-app.cg-live .cg-board .piece')").await;
    assert_eq!(white.js("return document.querySelector('#board-app').dataset.live;").await, json!("created"));
    let invite = white.js("return document.getElementById('invite-link').value;").await;
    let invite = invite.as_str().expect("an invite link").to_string();
    let path = invite.strip_prefix(&white.base).expect("the invite link points to this site").to_string();
    let id = path.trim_start_matches('/').to_string();
    assert_eq!(id.len(), 8, "the invite is /{{gameId}}: {invite}");
    white.click(".invite-copy").await;
    white
        .wait_for(
            "the copy button's answer",
            "/Copied|Select/.test(document.querySelector('.invite-copy').textContent)",
        )
        .await;
    assert!(white.text(".cg-status").await.contains("Waiting"), "the status says the game waits");
    assert!(
        white.js("return !!document.querySelector('[data-live=\"abort\"]');").await == json!(true),
        "the creator may cancel"
    );

    black.goto(&path).await;
    black.wait_for("the join button", "document.querySelector('#join-form button')").await;
    black.click("#join-form button").await;
    black
        .wait_for(
            "Black's live board",
            "document.querySelector('#board-app.cg-live[data-live=\"started\"] .cg-board .piece')",
        )
        .await;
    white
        .wait_for(
            "the start on White's page",
            "document.querySelector('#board-app').dataset.live === 'started' && !document.getElementById('invite')",
        )
        .await;
    assert_eq!(black.js("return document.querySelector('.cg-board').dataset.orientation;").await, json!("black"));
    assert_eq!(white.js("return document.querySelector('.cg-board').dataset.orientation;").await, json!("white"));
    assert_eq!(white.text(".cg-status").await, "Your turn");
    assert_eq!(black.text(".cg-status").await, "Your opponent\u{2019}s turn");
    white
        .wait_for(
            "Black's connection dot",
            r#"document.querySelector('.cg-player[data-color="black"]').dataset.connected === 'true'"#,
        )
        .await;
    assert!(black.marked("movable").await.is_empty(), "Black cannot act on White's turn");
    assert_eq!(white.gold("white").await, "4");

    // White buys a knight; it appears on Black's board with the gold counters.
    white.click(r#".shop-item[data-piece="N"]"#).await;
    white.click_square("c3").await;
    white.wait_ply("White", 1).await;
    black.wait_ply("Black", 1).await;
    assert_eq!(black.piece_on("c3").await.as_deref(), Some("white knight"));
    assert_eq!(black.gold("white").await, "1");
    assert_eq!(black.move_list().await, ["N@c3"]);
    assert_eq!(black.marked("last").await, ["c3"]);
    assert_eq!(black.text(".cg-status").await, "Your turn");

    black.click_move("e8", "d7").await;
    white.wait_ply("White", 2).await;
    assert_eq!(white.piece_on("d7").await.as_deref(), Some("black king"));
    assert_eq!(white.move_list().await, ["N@c3", "e8d7"]);

    // Both sides have moved: White's clock runs on both pages, Black's stands.
    for (b, who) in [(&white, "White"), (&black, "Black")] {
        b.wait_for(
            &format!("the running clock on {who}'s page"),
            r#"document.querySelector('.cg-clock[data-clock="white"]').classList.contains('running')"#,
        )
        .await;
    }
    let before = black.clock("white").await;
    let black_before = black.clock("black").await;
    tokio::time::sleep(Duration::from_millis(1600)).await;
    let after = black.clock("white").await;
    assert_ne!(before, after, "White's clock ticks on Black's page");
    assert_eq!(black.clock("black").await, black_before, "Black's clock stands");
    assert!(before.starts_with("5:") || before.starts_with("4:"), "a 5+3 clock: {before}");

    // Chat: the line arrives as text, never as HTML.
    let line = "good luck <b>friend</b>";
    let input = white.find(".cg-chat input").await;
    input.send_keys(&format!("{line}\u{E007}")).await.expect("typed");
    black
        .wait_for(
            "the chat line",
            &format!(
                "[...document.querySelectorAll('.cg-chat-line .text')].some(t => t.textContent === {})",
                json!(line)
            ),
        )
        .await;
    assert_eq!(black.js("return document.querySelectorAll('.cg-chat-line b:not(.author)').length;").await, json!(0));
    assert_eq!(
        white.js("return document.querySelector('.cg-chat input').value;").await,
        json!(""),
        "the box empties once sent"
    );

    // A draw offer, declined.
    white.click(r#".cg-live-actions [data-live="draw_yes"]"#).await;
    white.wait_for("the sent offer", r#"document.querySelector('[data-prompt="draw-sent"]')"#).await;
    black.wait_for("the draw offer", r#"document.querySelector('[data-prompt="draw-offer"]')"#).await;
    black.click(r#"[data-prompt="draw-offer"] [data-live="draw_no"]"#).await;
    white.wait_for("the offer gone", r#"!document.querySelector('[data-prompt="draw-sent"]')"#).await;
    black.wait_for("the prompt gone", r#"!document.querySelector('[data-prompt="draw-offer"]')"#).await;

    // Black reloads mid-game: the same game comes back, and it goes on live.
    black.client.refresh().await.expect("reload");
    black.wait_ply("Black after the reload", 2).await;
    assert_eq!(black.move_list().await, ["N@c3", "e8d7"]);
    assert_eq!(black.piece_on("d7").await.as_deref(), Some("black king"));
    black
        .wait_for(
            "the chat history",
            &format!(
                "[...document.querySelectorAll('.cg-chat-line .text')].some(t => t.textContent === {})",
                json!(line)
            ),
        )
        .await;
    white.click_move("e1", "e2").await;
    black.wait_ply("Black", 3).await;
    assert_eq!(black.piece_on("e2").await.as_deref(), Some("white king"));
    assert_eq!(black.text(".cg-status").await, "Your turn");

    // Black resigns, after confirming.
    black.click(r#".cg-live-actions [data-live="resign"]"#).await;
    black.wait_for("the confirmation", r#"document.querySelector('[data-prompt="resign-confirm"]')"#).await;
    assert_eq!(
        black.js("return document.querySelector('#board-app').dataset.live;").await,
        json!("started"),
        "nothing happens before confirming"
    );
    black.click(r#"[data-live="resign-yes"]"#).await;
    assert_live_banner(&black, "Black", "Black resigned", "White wins").await;
    assert_live_banner(&white, "White", "Black resigned", "White wins").await;
    assert!(white.text(".cg-banner").await.contains("1\u{2013}0"));
    assert!(white.text(".cg-result").await.contains("Black resigned"));
    assert!(
        white.js("return document.querySelectorAll('.cg-clock.running').length;").await == json!(0),
        "the clocks stop"
    );
    assert!(white.marked("movable").await.is_empty(), "nothing more can be played");
    let api = app.client.get(app.url(&format!("/api/game/{id}"))).send().await.expect("GET sent");
    let record: Value = api.json().await.expect("the game record");
    assert_eq!(
        (&record["status"]["id"], &record["winner"], &record["reason"]),
        (&json!(31), &json!("white"), &json!("resign"))
    );

    // A rematch: offered by White in the banner, accepted by Black; both go to the new game.
    white.click(r#".cg-banner-actions [data-live="rematch_yes"]"#).await;
    black.wait_for("the rematch offer", r#"document.querySelector('[data-prompt="rematch-offer"]')"#).await;
    black.click(r#"[data-prompt="rematch-offer"] [data-live="rematch_yes"]"#).await;
    for (b, who, color) in [(&white, "White", "black"), (&black, "Black", "white")] {
        b.wait_for(
            &format!("{who} on the rematch"),
            &format!("!location.pathname.endsWith('{id}') && document.querySelector('#board-app.cg-live[data-live=\"started\"]') && window.chessgold && window.chessgold.you === '{color}'"),
        )
        .await;
    }
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

/// A spectator watches two players (socket clients) on the game page: it offers them nothing to
/// play, the players' moves appear live, and after its socket drops it reconnects with the
/// version it holds and gets the move it missed.
#[tokio::test]
async fn live_spectator_sees_moves_live_and_catches_up_after_a_reconnect() {
    let (app, viewer, _permit) = session().await;
    let (id, mut white, mut black) = two_socket_players(&app).await;
    viewer.open(&format!("/{id}")).await;
    viewer.wait_for("the spectator's page", "document.querySelector('#board-app.cg-live.spectator')").await;
    viewer.wait_for("the socket", "document.querySelector('#board-app').dataset.connection === 'open'").await;
    assert!(viewer.text(".cg-chat h2").await.to_lowercase().contains("spectators"));
    assert_eq!(viewer.js("return getComputedStyle(document.querySelector('.cg-typed')).display;").await, json!("none"));
    assert_eq!(viewer.js("return document.querySelectorAll('.cg-live-actions [data-live]').length;").await, json!(0));
    assert!(viewer.text(".cg-status").await.contains("White to move"));

    let answer = white.act("N@c3", 0).await;
    assert_eq!(answer["t"], "ack", "{answer}");
    viewer.wait_ply("the spectator", 1).await;
    assert_eq!(viewer.piece_on("c3").await.as_deref(), Some("white knight"));
    assert_eq!(viewer.move_list().await, ["N@c3"]);
    assert!(viewer.marked("movable").await.is_empty(), "a spectator cannot act");

    // The socket drops; Black moves meanwhile; the page reconnects with its version.
    let v = viewer.js("return Number(document.querySelector('#board-app').dataset.v);").await;
    viewer.js("const s = window.chessgold.socket; s.stopped = true; s.ws.close();").await;
    viewer.wait_for("the closed socket", "document.querySelector('#board-app').dataset.connection === 'closed'").await;
    let answer = black.act("e8d7", 1).await;
    assert_eq!(answer["t"], "ack", "{answer}");
    assert_eq!(viewer.ply().await, 1, "the page has not heard of the move");
    viewer.js("const s = window.chessgold.socket; s.stopped = false; s.connect();").await;
    viewer.wait_ply("the spectator after reconnecting", 2).await;
    assert_eq!(viewer.piece_on("d7").await.as_deref(), Some("black king"));
    assert_eq!(viewer.js("return window.chessgold.socket.connections;").await, json!(2));
    let received = viewer.js("return window.chessgold.received;").await;
    assert_eq!(received, json!({"move": 2}), "two moves, and no full resync: the page asked from its version");
    let v_after = viewer.js("return Number(document.querySelector('#board-app').dataset.v);").await;
    assert!(v_after.as_i64() > v.as_i64(), "the version moved on: {v} -> {v_after}");
}

/// A finished game's page replays it: the replay buttons, the arrow keys and a click in the move
/// list step through the positions, each drawn from the engine's state at that point.
#[tokio::test]
async fn a_finished_game_replays_with_buttons_keys_and_the_move_list() {
    let (app, viewer, _permit) = session().await;
    let (id, _w, _b, mut white, mut black) = crate::round::two_guests(&app.address, "standard", "5+0").await;
    crate::round::play_line(&mut white, &mut black, 0, &["f2f3", "e7e5", "g2g4", "d8h4"]).await;
    black.until("end").await;

    viewer.open(&format!("/{id}")).await;
    viewer.wait_for("the finished game", "document.querySelector('#board-app').dataset.shown === '4'").await;
    let fen = || viewer.js("return window.chessgold.view.state.fen;");
    let shown = |n: u32| format!("document.querySelector('#board-app').dataset.shown === '{n}'");
    assert_eq!(viewer.js("return document.querySelector('.cg-replay').hidden;").await, json!(false));
    assert_eq!(viewer.js("return document.querySelector('[data-replay=\"next\"]').disabled;").await, json!(true));
    let end = fen().await;
    assert_eq!(viewer.piece_on("h4").await.as_deref(), Some("black queen"));

    viewer.click("[data-replay=\"first\"]").await;
    viewer.wait_for("the start position", &shown(0)).await;
    assert_eq!(fen().await, json!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"));
    assert_eq!(viewer.js("return document.querySelector('[data-replay=\"prev\"]').disabled;").await, json!(true));

    viewer.click("[data-replay=\"next\"]").await;
    viewer.wait_for("the first move", &shown(1)).await;
    assert_eq!(fen().await, json!("rnbqkbnr/pppppppp/8/8/8/5P2/PPPPP1PP/RNBQKBNR b KQkq - 0 1"));
    assert_eq!(viewer.piece_on("f3").await.as_deref(), Some("white pawn"));
    assert!(viewer.text(".cg-status").await.contains("Viewing move 1 of 4"));

    viewer.press(Key::Right).await;
    viewer.wait_for("the second move", &shown(2)).await;
    assert_eq!(viewer.piece_on("e5").await.as_deref(), Some("black pawn"));
    viewer.press(Key::Left).await;
    viewer.wait_for("back to the first move", &shown(1)).await;
    assert_eq!(viewer.piece_on("e5").await, None);

    viewer.click(".cg-moves .move[data-ply=\"3\"]").await;
    viewer.wait_for("the clicked move", &shown(3)).await;
    assert_eq!(viewer.piece_on("g4").await.as_deref(), Some("white pawn"));
    assert_eq!(viewer.piece_on("d8").await.as_deref(), Some("black queen"));

    viewer.press(Key::End).await;
    viewer.wait_for("the last position", &shown(4)).await;
    assert_eq!(fen().await, end);
    viewer.press(Key::Home).await;
    viewer.wait_for("the start again", &shown(0)).await;
    viewer.click("[data-replay=\"last\"]").await;
    viewer.wait_for("the last position again", &shown(4)).await;
    assert_eq!(viewer.move_list().await, ["f2f3", "e7e5", "g2g4", "d8h4"]);
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

/// The lobby on the home page: one browser creates a seek with the form, the other sees it
/// appear without reloading, clicks it, and both land on the same live game; quick pairing of
/// two guests in one pool does the same.
#[tokio::test]
async fn lobby_a_seek_clicked_and_a_pool_pairing_send_both_browsers_to_one_game() {
    let (app, one, _permit) = session().await;
    let two = Browser::start(&app).await;
    for b in [&one, &two] {
        b.goto("/").await;
        b.wait_for("the lobby socket", "document.querySelector('[data-lobby]').dataset.connected === 'true'").await;
    }
    one.click(r#"[data-tab="seeks"]"#).await;
    one.js("const f = document.querySelector('[data-seek-form]'); f.variant.value = 'grunt'; f.time.value = '10+5'; f.color.value = 'white'; return null;").await;
    one.click(r#"[data-seek-form] button[type="submit"]"#).await;
    one.wait_for("the own seek listed", "document.querySelector('tr.own[data-seek]')").await;
    two.click(r#"[data-tab="seeks"]"#).await;
    two.wait_for("the seek arriving live", "document.querySelector('tr[data-seek]:not(.own)')").await;
    assert_eq!(two.text("[data-seek-count]").await, "1");
    let row = two.text("tr[data-seek]").await;
    assert!(
        row.contains("Anonymous") && row.contains("Grunt") && row.contains("10+5") && row.contains("Casual"),
        "{row}"
    );
    two.click("tr[data-seek] button").await;
    for (b, who) in [(&one, "the seeker"), (&two, "the accepter")] {
        b.wait_for(
            &format!("{who} on the game page"),
            "document.querySelector('#board-app.cg-live[data-live=\"started\"] .cg-board .piece')",
        )
        .await;
    }
    let url_one = one.js("return location.pathname;").await;
    assert_eq!(url_one, two.js("return location.pathname;").await, "both on one game");
    assert_eq!(one.js("return document.querySelector('.cg-board').dataset.orientation;").await, json!("white"));
    assert_eq!(two.js("return document.querySelector('.cg-board').dataset.orientation;").await, json!("black"));
    // A player in a game with a clock is not paired again: White cancels this one first.
    one.click(r#"[data-live="abort"]"#).await;
    for b in [&one, &two] {
        b.wait_for("the game cancelled", "document.querySelector('#board-app').dataset.live === 'aborted'").await;
    }

    // A pool joined, then another variant chosen: the page leaves that pool on the server.
    one.goto("/").await;
    one.wait_for("the lobby socket", "document.querySelector('[data-lobby]').dataset.connected === 'true'").await;
    one.js("const s = document.querySelector('[data-pool-variant]'); s.value = 'gold'; s.dispatchEvent(new Event('change')); return null;").await;
    one.click(r#"[data-pool="5+3"]"#).await;
    one.wait_for(
        "the pool pressed",
        r#"document.querySelector('[data-pool="5+3"]').getAttribute('aria-pressed') === 'true'"#,
    )
    .await;
    assert!(wait_until(|| async { !app.state_pools_empty().await }).await, "the server has the player in the pool");
    one.js("const s = document.querySelector('[data-pool-variant]'); s.value = 'grunt'; s.dispatchEvent(new Event('change')); return null;").await;
    assert!(wait_until(|| async { app.state_pools_empty().await }).await, "changing the variant left the pool");
    assert_eq!(
        one.js(r#"return document.querySelector('[data-pool="5+3"]').getAttribute('aria-pressed');"#).await,
        json!("false")
    );

    // Quick pairing: both guests click the same pool.
    for b in [&one, &two] {
        b.goto("/").await;
        b.wait_for("the lobby socket", "document.querySelector('[data-lobby]').dataset.connected === 'true'").await;
        b.js("const s = document.querySelector('[data-pool-variant]'); s.value = 'standard'; s.dispatchEvent(new Event('change')); return null;").await;
        b.click(r#"[data-pool="3+0"]"#).await;
    }
    for (b, who) in [(&one, "the first"), (&two, "the second")] {
        b.wait_for(
            &format!("{who} paired"),
            "document.querySelector('#board-app.cg-live[data-live=\"started\"] .cg-board .piece')",
        )
        .await;
    }
    let game = one.js("return location.pathname;").await;
    assert_ne!(game, url_one, "a new game");
    assert_eq!(game, two.js("return location.pathname;").await);
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

/// A challenge from a profile page: the challenged player sees it live in the notification area
/// of the page they are on, accepts it there, and both browsers land on the game.
#[tokio::test]
async fn a_challenge_appears_live_and_accepting_it_sends_both_to_the_game() {
    let (app, alice, _permit) = session().await;
    let bob = Browser::start(&app).await;
    alice.sign_up("alice").await;
    bob.sign_up("bob").await;
    bob.goto("/player").await;
    bob.wait_for("the notification area", "document.getElementById('notifications')").await;

    alice.goto("/@/bob").await;
    alice.wait_for("the challenge form", "document.querySelector('#challenge-box form')").await;
    alice.click("#challenge-box summary").await;
    alice.click("#challenge-box button[type=\"submit\"]").await;
    alice.wait_for("the waiting page", "document.getElementById('challenge-waiting')").await;
    let id = alice.js("return document.getElementById('challenge').dataset.id;").await;
    let id = id.as_str().expect("a challenge id").to_string();

    bob.wait_for("the challenge notification", "document.querySelector('#notifications .challenge-note')").await;
    assert!(bob.text("#notifications .challenge-note a").await.contains("alice challenges you"));
    bob.click("#notifications .challenge-note form[action$=\"/accept\"] button").await;
    let on_game =
        format!("location.pathname === '/{id}' && document.querySelector('#board-app.cg-live .cg-board .piece')");
    bob.wait_for("Bob on the game", &on_game).await;
    alice.wait_for("Alice sent to the game", &on_game).await;
}

/// A guest opens "Play with the computer" from the home page's lobby, starts a standard game as
/// White against level 1, plays e2e4 with two clicks, and sees the bot's answer on the board.
#[tokio::test]
async fn a_guest_starts_a_bot_game_from_the_home_page_and_sees_the_reply() {
    let (_app, b, _permit) = session().await;
    b.goto("/").await;
    b.wait_for("the home page's lobby", "document.getElementById('play-computer')").await;
    b.click("#play-computer").await;
    b.wait_for("the computer form", "document.getElementById('computer-form')").await;
    b.js("document.getElementById('variant').value = 'standard'; document.getElementById('time').value = 'unlimited'; return true;")
        .await;
    b.click(r#"input[name="level"][value="1"]"#).await;
    b.click(r#"input[name="color"][value="white"]"#).await;
    b.click(r#"#computer-form button[type="submit"]"#).await;
    b.wait_for(
        "the live board",
        "document.querySelector('#board-app.cg-live[data-live=\"started\"] .cg-board .piece')",
    )
    .await;
    let bar = b.js(r#"return document.querySelector('.cg-player[data-color="black"]').textContent;"#).await;
    assert!(bar.as_str().is_some_and(|t| t.contains("level 1")), "the bot's bar: {bar}");
    assert_eq!(b.text(".cg-status").await, "Your turn");
    // The bot may answer before the page has drawn e2e4 alone: wait for both actions.
    b.click_square("e2").await;
    b.click_square("e4").await;
    b.wait_ply("White", 2).await;
    assert!(
        b.js("return !document.querySelector('[data-prompt=\"claim\"]');").await == json!(true),
        "the bot never counts as gone"
    );
    let moves = b.move_list().await;
    assert_eq!(moves.len(), 2, "{moves:?}");
    assert_eq!(moves[0], "e2e4");
    let reply = &moves[1];
    let to = &reply[2..4];
    assert_eq!(b.piece_on(to).await.map(|p| p.starts_with("black")), Some(true), "the bot's {reply} is drawn");
    assert_eq!(b.text(".cg-status").await, "Your turn");
}
