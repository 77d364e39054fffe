//! Accessibility: axe-core (vendored in `axe/`, see its README) runs in every page kind, signed
//! out and signed in, in the light and the dark theme, on a desktop and on a phone. Any critical
//! or serious violation fails the test, listed with its page, rule, help text and elements.

use super::site::{PLAYING, Page, Site};
use super::*;

/// axe-core's browser build, unchanged (MPL-2.0, `axe/LICENSE`).
const AXE: &str = include_str!("axe/axe.min.js");

/// Runs every axe rule on the page and answers its critical and serious violations as
/// `{id, impact, help, nodes: [target...]}`.
const RUN_AXE: &str = r#"
const done = arguments[arguments.length - 1];
axe.run(document, { resultTypes: ["violations"] })
  .then((r) => done(r.violations
    .filter((v) => v.impact === "critical" || v.impact === "serious")
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(" ")) }))))
  .catch((e) => done({ error: String(e) }));"#;

impl Browser {
    /// The page's critical and serious axe violations, one readable line each.
    async fn axe_violations(&self, label: &str) -> Vec<String> {
        self.js(&format!("{AXE}\nreturn typeof axe;")).await;
        let found = self.client.execute_async(RUN_AXE, vec![]).await.unwrap_or_else(|e| panic!("axe on {label}: {e}"));
        let list = found.as_array().unwrap_or_else(|| panic!("axe failed on {label}: {found}"));
        list.iter()
            .map(|v| {
                let nodes: Vec<&str> = v["nodes"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
                format!("{label}: {} ({}): {} [{}]", v["id"], v["impact"], v["help"], nodes.join(", "))
            })
            .collect()
    }
}

async fn check(b: &Browser, screen: Screen, pages: &[Page], who: &str, found: &mut Vec<String>, runs: &mut usize) {
    for theme in Theme::ALL {
        b.set_theme(theme).await;
        for page in pages {
            b.visit(page).await;
            let label = format!("{} ({}) on a {screen}, {}, {who}", page.kind, page.path, theme.name());
            found.extend(b.axe_violations(&label).await);
            *runs += 1;
        }
    }
}

async fn no_serious_violations_on(screen: Screen, name: &str) {
    let _permit = ONE_BROWSER.acquire().await.expect("the browser semaphore is never closed");
    let site = Site::build().await;
    let b = Browser::start_on(&site.app, screen).await;
    let timeouts = fantoccini::wd::TimeoutConfiguration::new(
        Some(Duration::from_secs(120)),
        Some(Duration::from_secs(60)),
        Some(Duration::ZERO),
    );
    b.client.update_timeouts(timeouts).await.expect("timeouts set");
    let (mut found, mut runs) = (Vec::new(), 0);
    b.goto("/").await;

    // A game long enough to outlast the test, its first moves made so that it is not aborted.
    let mut pages = site.pages();
    let (game, opponent) = b.play_gold_as_white(&site.app, "30+20").await;
    b.make_first_moves(&opponent).await;
    pages.insert(0, Page { kind: "live game as a player", path: game, ready: PLAYING.to_string() });
    check(&b, screen, &pages, "signed out", &mut found, &mut runs).await;
    opponent.resign().await;

    b.sign_up(name).await;
    let challenge = site.challenge(name).await;
    b.create_token().await;
    let mut pages = site.pages();
    let (game, opponent) = b.play_gold_as_white(&site.app, "30+20").await;
    b.make_first_moves(&opponent).await;
    pages.insert(0, Page { kind: "live game as a player", path: game, ready: PLAYING.to_string() });
    pages.extend(Site::account_pages(&challenge));
    check(&b, screen, &pages, "signed in", &mut found, &mut runs).await;

    assert!(runs >= 60, "axe ran on {runs} pages");
    assert!(found.is_empty(), "{} critical or serious accessibility violations:\n{}", found.len(), found.join("\n"));
}

#[tokio::test]
async fn axe_finds_no_serious_violation_on_any_page_on_a_desktop() {
    no_serious_violations_on(Screen::Desktop, "alice").await;
}

#[tokio::test]
async fn axe_finds_no_serious_violation_on_any_page_on_a_phone() {
    no_serious_violations_on(Screen::Phone, "anna").await;
}
