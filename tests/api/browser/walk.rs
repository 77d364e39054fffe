//! The page walk: every page kind of a site built by `site.rs` (the player's own running game
//! included), signed out and signed in, in the light and the dark theme, on a desktop and on a
//! phone. Each page is opened once per combination and checked twice: by axe-core for
//! accessibility (`a11y.rs`; every rule in the light theme, the colour rules in the dark one)
//! and for its styles (`style.rs`). One walk per screen shares the site, the browser and each
//! page's load between both kinds of check.

use super::a11y::Rules;
use super::site::{PLAYING, Page, Site};
use super::style::{check_every_page, check_page_kind, check_signed_in_header};
use super::*;

/// Which visitor walks the pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Visitor {
    SignedOut,
    SignedIn,
}

impl std::fmt::Display for Visitor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Visitor::SignedOut => "signed out",
            Visitor::SignedIn => "signed in",
        })
    }
}

/// What the walk found: accessibility violations (all reported together at the end) and how
/// many pages axe looked at.
#[derive(Default)]
struct Findings {
    violations: Vec<String>,
    axe_runs: usize,
}

async fn walk(b: &Browser, screen: Screen, pages: &[Page], visitor: Visitor, findings: &mut Findings) {
    for theme in Theme::ALL {
        b.set_theme(theme).await;
        let rules = if theme == Theme::Light { Rules::All } else { Rules::Colours };
        for page in pages {
            let label = format!("{} ({}) on a {screen}, {}, {visitor}", page.kind, page.path, theme.name());
            b.visit(page).await;
            // axe first, on the page as it was opened; the style checks then click tabs and menus.
            findings.violations.extend(b.axe_violations(&label, rules).await);
            findings.axe_runs += 1;
            b.style_tools().await;
            b.keep_screenshot(&label).await;
            check_every_page(b, screen, &label).await;
            check_page_kind(b, screen, page, &label).await;
            if visitor == Visitor::SignedIn {
                check_signed_in_header(b, &label).await;
            }
            // The page ran under the site's Content-Security-Policy: nothing it loads or draws
            // was blocked.
            b.assert_no_csp_violation().await;
        }
    }
}

/// The player's own Chess Gold game (30+20, long enough to outlast the walk) with both first
/// moves made, so that it is not aborted, first in the list of pages.
async fn with_own_game(b: &Browser, site: &Site, mut pages: Vec<Page>) -> (Vec<Page>, super::site::Opponent) {
    let (game, opponent) = b.play_gold_as_white(&site.app, "30+20").await;
    b.make_first_moves(&opponent).await;
    pages.insert(0, Page { kind: "live game as a player", path: game, ready: PLAYING.to_string() });
    (pages, opponent)
}

async fn every_page_kind_on(screen: Screen, name: &str) {
    let _permit = ONE_BROWSER.acquire().await.expect("the browser semaphore is never closed");
    let site = Site::build().await;
    let b = Browser::start_on(&site.app, screen).await;
    // axe takes a while on a busy machine: a generous script timeout.
    let timeouts = fantoccini::wd::TimeoutConfiguration::new(
        Some(Duration::from_secs(120)),
        Some(Duration::from_secs(60)),
        Some(Duration::ZERO),
    );
    b.client.update_timeouts(timeouts).await.expect("timeouts set");
    let mut findings = Findings::default();
    b.goto("/").await;
    let (pages, opponent) = with_own_game(&b, &site, site.pages()).await;
    walk(&b, screen, &pages, Visitor::SignedOut, &mut findings).await;
    opponent.resign().await;

    b.sign_up(name).await;
    let challenge = site.challenge(name).await;
    b.create_token().await;
    b.style_tools().await;
    // The new token, shown once, wraps on a phone.
    assert_eq!(b.style(".token-value", "word-break").await, "break-all", "the new token on a {screen}");
    assert_eq!(b.js("return cgStyle.overflow();").await, json!([]), "the new token on a {screen}");
    let (mut pages, _opponent) = with_own_game(&b, &site, site.pages()).await;
    pages.extend(Site::account_pages(&challenge));
    let why = chessgold::moderation::Reason::parse("the page walk").expect("a reason");
    chessgold::moderation::roles::set_role(&site.app.db_pool, None, name, chessgold::domain::Role::Moderator, &why)
        .await
        .expect("the walker moderates");
    // Reports in the queue, so that its tables are walked filled.
    {
        use chessgold::moderation::reports::{self, NewReport, ReportReason, ReportText};
        let pool = &site.app.db_pool;
        for (reporter, target, reason, text) in [
            (name, "bob", ReportReason::Cheat, "every move is the engine's first choice"),
            ("carol", "bob", ReportReason::Cheat, "too strong for a 1500"),
            (name, "carol", ReportReason::Comm, "insults in the game chat"),
        ] {
            let id = |n| async move {
                chessgold::db::users::find_by_name(pool, n).await.expect("read").expect("an account").id
            };
            let new = NewReport {
                reporter: id(reporter).await,
                target: id(target).await,
                reason,
                text: ReportText::parse(text).expect("a report text"),
                game: None,
            };
            reports::submit(pool, &new).await.expect("a report");
        }
    }
    pages.extend(Site::mod_pages());
    walk(&b, screen, &pages, Visitor::SignedIn, &mut findings).await;

    let Findings { violations, axe_runs } = findings;
    assert!(axe_runs >= 60, "axe ran on {axe_runs} pages");
    assert!(
        violations.is_empty(),
        "{} critical or serious accessibility violations:\n{}",
        violations.len(),
        violations.join("\n")
    );
}

#[tokio::test]
async fn every_page_kind_is_styled_and_accessible_on_a_desktop() {
    every_page_kind_on(Screen::Desktop, "alice").await;
}

#[tokio::test]
async fn every_page_kind_is_styled_and_accessible_on_a_phone() {
    every_page_kind_on(Screen::Phone, "anna").await;
}
