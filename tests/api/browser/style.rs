//! Style checks, run by the page walk of `walk.rs` in every page kind: the computed styles of
//! each page's main elements (a stylesheet whose rules never apply fails here), nothing wider
//! than the screen, the navigation reachable, text readable on its background; and a phone
//! player buys from the shop without scrolling.
//!
//! With `CHESSGOLD_SCREENSHOTS=dir` set, each page is also saved there as a PNG to look at.

use super::site::Page;
use super::*;

/// Reads computed styles and colour contrast in the page.
const STYLE_JS: &str = r#"
window.cgStyle = {
  of(selector, prop) {
    const e = document.querySelector(selector);
    return e ? getComputedStyle(e).getPropertyValue(prop) : null;
  },
  rgba(text) {
    const n = (text.match(/[\d.]+/g) || []).map(Number);
    return n.length >= 3 ? [n[0], n[1], n[2], n.length > 3 ? n[3] : 1] : [0, 0, 0, 0];
  },
  // The first opaque-enough background from the element up.
  background(e) {
    for (let p = e; p; p = p.parentElement) {
      const c = this.rgba(getComputedStyle(p).backgroundColor);
      if (c[3] > 0.5) return c;
    }
    return [255, 255, 255, 1];
  },
  luminance([r, g, b]) {
    const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  },
  // Contrast of the element's text (its `color`, or `fill` for SVG text) on its background.
  contrast(selector) {
    const e = document.querySelector(selector);
    if (!e) return null;
    const s = getComputedStyle(e);
    const fg = this.rgba(e instanceof SVGElement ? s.fill : s.color);
    const [a, b] = [this.luminance(fg), this.luminance(this.background(e))].sort((x, y) => y - x);
    return Math.round(((a + 0.05) / (b + 0.05)) * 100) / 100;
  },
  // Elements sticking out of the page's width (outside scrolling boxes), when the page scrolls sideways.
  overflow() {
    const root = document.documentElement;
    const width = root.clientWidth;
    if (root.scrollWidth <= width) return [];
    const out = [];
    for (const e of document.body.querySelectorAll("*")) {
      const r = e.getBoundingClientRect();
      if (r.width === 0 || r.right <= width + 1) continue;
      // A scrolling box clips what it holds, except what is positioned outside its flow.
      let clipped = false;
      const free = ["absolute", "fixed"].includes(getComputedStyle(e).position);
      for (let p = e.parentElement; !free && p && p !== document.body; p = p.parentElement) {
        if (getComputedStyle(p).overflowX !== "visible") { clipped = true; break; }
      }
      if (!clipped) out.push(`${e.tagName.toLowerCase()}.${String(e.className).trim().replace(/\s+/g, ".")} ends at ${Math.round(r.right)}`);
    }
    return [`the page is ${root.scrollWidth} px wide on a ${width} px screen`, ...out.slice(0, 6)];
  },
  // Whether the element is drawn and wholly inside the viewport.
  inView(selector) {
    const e = document.querySelector(selector);
    if (!e) return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
  },
};
return null;"#;

impl Browser {
    pub(super) async fn style_tools(&self) {
        self.js(STYLE_JS).await;
    }

    /// A computed style of the first element matching `selector`.
    pub(super) async fn style(&self, selector: &str, prop: &str) -> String {
        let v = self.js(&format!("return cgStyle.of({selector:?}, {prop:?});")).await;
        match v.as_str() {
            Some(value) => value.to_string(),
            None => panic!("no element {selector} on {}", self.here().await),
        }
    }

    /// The contrast ratio of an element's text on its background.
    async fn contrast(&self, selector: &str) -> f64 {
        let v = self.js(&format!("return cgStyle.contrast({selector:?});")).await;
        v.as_f64().unwrap_or_else(|| panic!("no element {selector}"))
    }

    async fn in_view(&self, selector: &str) -> bool {
        self.js(&format!("return cgStyle.inView({selector:?});")).await == json!(true)
    }

    async fn here(&self) -> String {
        self.js("return location.pathname + location.search;").await.as_str().unwrap_or_default().to_string()
    }

    async fn scroll_y(&self) -> f64 {
        self.js("return scrollY;").await.as_f64().expect("a number")
    }

    /// Saves a screenshot when `CHESSGOLD_SCREENSHOTS` names a folder.
    pub(super) async fn keep_screenshot(&self, name: &str) {
        let Some(dir) = std::env::var_os("CHESSGOLD_SCREENSHOTS") else { return };
        let png = self.client.screenshot().await.expect("a screenshot");
        let file: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
        std::fs::write(std::path::Path::new(&dir).join(format!("{file}.png")), png).expect("screenshot saved");
    }
}

/// The number of columns of a grid, from its computed `grid-template-columns` ("240px 240px").
fn columns(template: &str) -> usize {
    template.split_whitespace().count()
}

fn px(value: &str) -> f64 {
    value.trim_end_matches("px").parse().unwrap_or_else(|_| panic!("not a length in px: {value}"))
}

/// What every page shares: nothing sideways, cards drawn as cards, and the navigation reachable
/// (the links on a desktop, the menu button on a phone).
pub(super) async fn check_every_page(b: &Browser, screen: Screen, label: &str) {
    let overflow = b.js("return cgStyle.overflow();").await;
    assert_eq!(overflow, json!([]), "{label}: wider than the screen");
    if b.js("return !!document.querySelector('main .card');").await == json!(true) {
        assert_eq!(b.style("main .card", "border-top-left-radius").await, "10px", "{label}: a card");
        assert_ne!(b.style("main .card", "background-color").await, "rgba(0, 0, 0, 0)", "{label}: a card");
    }
    let leaderboards = ".main-nav a[href='/player']";
    match screen {
        Screen::Desktop => {
            assert_eq!(b.style("#nav-toggle", "display").await, "none", "{label}: no menu button");
            assert!(b.in_view(leaderboards).await, "{label}: the header's links");
        }
        Screen::Phone => {
            assert!(b.in_view("#nav-toggle").await, "{label}: the menu button");
            assert!(!b.in_view(leaderboards).await, "{label}: the links wait in the menu");
            b.click("#nav-toggle").await;
            b.wait_for("the menu open", "cgStyle.inView(\".main-nav a[href='/player']\")").await;
            assert_eq!(b.js("return document.getElementById('nav-toggle').ariaExpanded;").await, json!("true"));
            b.press(Key::Escape).await;
            b.wait_for("the menu closed", "!cgStyle.inView(\".main-nav a[href='/player']\")").await;
            assert_eq!(b.js("return document.getElementById('nav-toggle').ariaExpanded;").await, json!("false"));
        }
    }
}

/// The page's own main elements.
pub(super) async fn check_page_kind(b: &Browser, screen: Screen, page: &Page, label: &str) {
    match page.kind {
        "home" => {
            assert_eq!(b.style(".pool-grid", "display").await, "grid", "{label}");
            if screen == Screen::Phone {
                // Pairing first: the hero used to fill the phone's first screen.
                assert!(b.in_view("[data-pool]").await, "{label}: a pool button on the first screen");
            }
            // The seek count on the selected Lobby tab (it was white on white).
            b.click(r#"[data-tab="seeks"]"#).await;
            b.wait_for("the Lobby tab", "document.querySelector('[data-tab=seeks]').ariaSelected === 'true'").await;
            let count = b.contrast("[data-seek-count]").await;
            assert!(count >= 4.5, "{label}: the seek count's contrast is {count}");
            let tab = b.contrast(r#"[data-tab="seeks"]"#).await;
            assert!(tab >= 4.5, "{label}: the selected tab's contrast is {tab}");
        }
        "profile" => {
            assert_eq!(b.style(".profile-counts", "display").await, "flex", "{label}: the counts in a row");
            assert_eq!(b.style(".profile-counts dt", "text-transform").await, "uppercase", "{label}");
            assert_eq!(b.style(".perfs", "display").await, "grid", "{label}: the ratings");
            assert_eq!(b.style(".rating-chart", "border-top-left-radius").await, "8px", "{label}: the chart");
            assert_eq!(b.style(".rating-chart .line", "fill").await, "none", "{label}: the chart's line");
            let labels = b.contrast(".rating-chart .axis").await;
            assert!(labels >= 4.5, "{label}: the chart's labels have a contrast of {labels}");
            assert_eq!(px(&b.style(".games-table td", "padding-left").await), 10.0, "{label}: the games table");
        }
        "leaderboards" => {
            assert_eq!(b.style(".leader-grid", "display").await, "grid", "{label}");
            let n = columns(&b.style(".leader-grid", "grid-template-columns").await);
            let wanted = if screen == Screen::Phone { 1 } else { 4 };
            assert_eq!(n, wanted, "{label}: leaderboards side by side on a desktop, one on a phone");
            assert_eq!(b.style(".leaders .leader-rating", "float").await, "right", "{label}");
        }
        "leaderboard" => {
            assert_eq!(px(&b.style(".leaders-table td", "padding-left").await), 10.0, "{label}");
            assert_eq!(b.style(".leaders-table td", "border-bottom-style").await, "solid", "{label}");
        }
        "challenge" | "challenge to the player" => {
            assert_eq!(b.style(".challenge-terms", "display").await, "grid", "{label}: the terms");
        }
        "API tokens" => {
            assert_eq!(px(&b.style("table.tokens td", "padding-left").await), 8.0, "{label}: the token table");
        }
        "live game as a spectator" | "finished game" | "pass and play" => {
            assert_eq!(b.style(".cg-app", "display").await, "grid", "{label}: the game screen");
            assert!(b.in_view(".cg-board").await, "{label}: the board in view");
        }
        _ => {}
    }
}

/// A page rendered for the signed-in player (error pages were not, issue 12's second defect)
/// announces the challenge to them in a styled, readable notification, beside their avatar.
pub(super) async fn check_signed_in_header(b: &Browser, label: &str) {
    if b.js("return !!document.querySelector('.user-menu');").await != json!(true) {
        return;
    }
    b.wait_for("the challenge notification", "document.querySelector('#notifications .notification')").await;
    assert_eq!(b.style("#notifications", "position").await, "fixed", "{label}: the notifications");
    assert_eq!(b.style(".notification", "border-top-left-radius").await, "8px", "{label}");
    let text = b.contrast(".notification a").await;
    assert!(text >= 4.5, "{label}: the notification's contrast is {text}");
    assert_eq!(b.text(".avatar").await.to_lowercase(), "a", "{label}: the avatar is the first letter");
}

/// During a Chess Gold game, both player bars, the board and the shop are on the first screen,
/// on a phone as on a desktop: the player buys a knight and places it without scrolling.
#[tokio::test]
async fn a_player_buys_from_the_shop_without_scrolling_on_a_phone_and_a_desktop() {
    let _permit = ONE_BROWSER.acquire().await.expect("the browser semaphore is never closed");
    let app = spawn_app().await;
    for screen in Screen::ALL {
        let b = Browser::start_on(&app, screen).await;
        let (_game, _opponent) = b.play_gold_as_white(&app, "5+3").await;
        b.style_tools().await;
        b.keep_screenshot(&format!("gold game as White on a {screen}")).await;
        assert_eq!(b.scroll_y().await, 0.0);
        for part in [
            r#".cg-player[data-color="black"]"#,
            ".cg-board",
            r#".cg-player[data-color="white"]"#,
            ".cg-shop-items",
            r#".cg-shop .shop-item[data-piece="N"]"#,
        ] {
            assert!(b.in_view(part).await, "{screen}: {part} is on the first screen");
        }
        assert_eq!(b.js("return cgStyle.overflow();").await, json!([]), "{screen}: wider than the screen");
        b.click(r#".cg-shop .shop-item[data-piece="N"]"#).await;
        b.wait_for("the lit squares", r#"document.querySelector('.cg-board .sq.drop[data-square="c3"]')"#).await;
        b.click_square("c3").await;
        b.wait_ply("White", 1).await;
        assert_eq!(b.piece_on("c3").await.as_deref(), Some("white knight"), "{screen}");
        assert_eq!(b.scroll_y().await, 0.0, "{screen}: nothing scrolled");
        b.abort_game().await;
    }
}
