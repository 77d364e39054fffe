//! The pages load their scripts, styles and images through the hashed static URLs: every
//! import of every module resolves (in the bundles and in the modules on their own), nothing
//! fails, nothing is loaded twice.
#![expect(clippy::expect_used, reason = "browser test: a failed WebDriver step should fail the test loudly")]

use serde_json::{Value, json};

use super::{Browser, session, two_socket_players};

/// Installed before each document's own scripts: records uncaught errors, rejected promises,
/// `console.error` calls and elements whose resource failed (a `<script>`, `<link>` or image).
const PROBE: &str = r#"
(() => {
  const problems = (window.__cgProblems = []);
  const note = (what) => problems.push(String(what).slice(0, 300));
  window.addEventListener("error", (e) => {
    const t = e.target;
    if (t && t !== window && (t.src || t.href)) note(`failed to load ${t.src || t.href}`);
    else note(`error: ${e.message}`);
  }, true);
  window.addEventListener("unhandledrejection", (e) => note(`rejection: ${e.reason}`));
  const error = console.error.bind(console);
  console.error = (...args) => { note(`console.error: ${args.join(" ")}`); error(...args); };
})();
"#;

/// What went wrong on the page: the probe's notes and every resource answered with an error.
const PROBLEMS: &str = r#"
const failed = performance.getEntriesByType("resource")
  .filter((r) => r.responseStatus >= 400)
  .map((r) => `${r.responseStatus} ${r.name}`);
return [...(window.__cgProblems || ["the probe did not run"]), ...failed];
"#;

/// The static files the page fetched (path only).
const STATIC_URLS: &str = r#"
return performance.getEntriesByType("resource")
  .map((r) => new URL(r.name).pathname)
  .filter((p) => p.startsWith("/static/"));
"#;

impl Browser {
    /// A DevTools command through chromedriver.
    async fn cdp(&self, cmd: &str, params: Value) {
        let url = format!(
            "http://127.0.0.1:{}/session/{}/goog/cdp/execute",
            self._driver.port,
            self._driver.session.as_deref().expect("a session")
        );
        let resp = reqwest::Client::new()
            .post(url)
            .json(&json!({"cmd": cmd, "params": params}))
            .send()
            .await
            .expect("chromedriver answers");
        assert!(resp.status().is_success(), "{cmd}: {}", resp.text().await.unwrap_or_default());
    }
}

/// Whether a static path has a content-hashed file name (`board.0123456789ab.css`).
fn hashed(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or("");
    let parts: Vec<&str> = name.split('.').collect();
    parts.len() >= 3
        && parts[parts.len() - 2].len() == 12
        && parts[parts.len() - 2].bytes().all(|b| b.is_ascii_hexdigit())
}

#[tokio::test]
async fn every_page_kind_loads_its_modules_through_hashed_urls_without_a_failure() {
    let (app, b, _permit) = session().await;
    b.cdp("Page.addScriptToEvaluateOnNewDocument", json!({"source": PROBE})).await;
    // Logged in, so the header's notification script loads too.
    b.sign_up("alice").await;
    let (id, _white, _black) = two_socket_players(&app).await;
    for (path, board) in [("/".to_string(), false), ("/local/gold".to_string(), true), (format!("/{id}"), true)] {
        if board {
            b.open(&path).await;
        } else {
            b.goto(&path).await;
        }
        b.wait_for(&format!("{path} to finish loading"), "document.readyState === 'complete'").await;
        if path.starts_with("/local") || path == format!("/{id}") {
            // The board's piece images are in too.
            b.wait_for(
                "the piece images",
                "performance.getEntriesByType('resource').some((r) => r.name.includes('/static/pieces.'))",
            )
            .await;
        }
        let problems = b.js(PROBLEMS).await;
        assert_eq!(problems, json!([]), "{path}");
        let urls: Vec<String> = serde_json::from_value(b.js(STATIC_URLS).await).expect("a list of paths");
        let scripts: Vec<&String> = urls.iter().filter(|u| u.ends_with(".js")).collect();
        assert!(!scripts.is_empty(), "{path} loads scripts");
        let plain: Vec<&String> = urls.iter().filter(|u| !hashed(u)).collect();
        assert!(plain.is_empty(), "{path} fetched plain (unhashed) names: {plain:?}");
        // One module, one instance: no file fetched under two names.
        let mut names: Vec<String> =
            scripts.iter().map(|u| u.rsplit_once('.').map_or(u.as_str(), |(s, _)| s).to_string()).collect();
        names.sort();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before, "{path}: a module was fetched twice: {scripts:?}");
    }
    // The live page's script is one bundle of its module graph (board, view, the gold variant's
    // extras...): the live board above was drawn by it.
    let live: Vec<String> = serde_json::from_value(b.js(STATIC_URLS).await).expect("a list of paths");
    // The layout's own scripts (the theme, the header, the account's notifications) aside.
    let layout = ["/js/notify.", "/js/theme.", "/js/site."];
    let scripts: Vec<&String> =
        live.iter().filter(|u| u.ends_with(".js") && !layout.iter().any(|l| u.contains(l))).collect();
    assert!(scripts.len() == 1 && scripts[0].starts_with("/static/js/live.bundle."), "{live:?}");
}
