//! The site's pages.

use chessgold_engine::registry::variants;

use crate::helpers::spawn_app;

#[tokio::test]
async fn home_lists_every_registered_variant_with_play_and_rules_links() {
    let app = spawn_app().await;
    let resp = app.get("/").await;
    assert_eq!(resp.status().as_u16(), 200);
    let html = resp.text().await.unwrap();
    assert!(html.contains("Chess Gold"));
    for v in variants() {
        assert!(html.contains(&format!(r#"href="/local/{}""#, v.id)), "{}", v.id);
        assert!(html.contains(&format!(r#"href="/variant/{}""#, v.id)), "{}", v.id);
    }
    assert!(html.contains(r#"href="/signup""#) && html.contains(r#"href="/login""#));
}

#[tokio::test]
async fn every_registered_variant_has_a_rules_page_with_diagrams() {
    let app = spawn_app().await;
    for v in variants() {
        let resp = app.get(&format!("/variant/{}", v.id)).await;
        assert_eq!(resp.status().as_u16(), 200, "{}", v.id);
        let html = resp.text().await.unwrap();
        assert!(html.contains("<svg class=\"diagram\""), "{}", v.id);
        assert!(!html.contains("invalid diagram"), "{}", v.id);
        assert!(html.contains(&format!(r#"href="/local/{}""#, v.id)), "{}", v.id);
    }
}

#[tokio::test]
async fn rules_pages_show_the_decided_points() {
    let app = spawn_app().await;
    for v in variants() {
        let book = chessgold::pages::rules::book(v.id).unwrap();
        let decided = book
            .sections
            .iter()
            .flat_map(|s| s.blocks.iter())
            .map(|b| format!("{b:?}").matches("(decided").count())
            .sum::<usize>();
        let html = app.get_html(&format!("/variant/{}", v.id)).await;
        // One badge per decided point, plus the legend's.
        assert_eq!(html.matches(r#"<span class="decided""#).count(), decided + 1, "{}", v.id);
    }
}

#[tokio::test]
async fn unregistered_and_unknown_variants_are_404_pages() {
    let app = spawn_app().await;
    for path in ["/variant/no-such-variant", "/local/no-such-variant", "/no/such/page"] {
        let resp = app.get(path).await;
        assert_eq!(resp.status().as_u16(), 404, "{path}");
        let html = resp.text().await.unwrap();
        assert!(html.contains("Page not found") && html.contains(r#"href="/""#), "{path}");
    }
}

#[tokio::test]
async fn the_local_page_mounts_the_board_app() {
    let app = spawn_app().await;
    for v in variants() {
        let html = app.get_html(&format!("/local/{}", v.id)).await;
        // A variant with random events also gets its game's seed (`data-seed`).
        let mount = format!(r#"<div id="board-app" data-variant="{}" data-mode="local" data-api="/api/local""#, v.id);
        let end = if v.seeded { r#" data-seed=""# } else { "></div>" };
        assert!(html.contains(&format!("{mount}{end}")), "{}", v.id);
        // Content-hashed names (tests/api/compression.rs checks them).
        assert!(html.contains(r#"<link rel="stylesheet" href="/static/css/board."#));
        assert!(html.contains(r#"<script type="module" src="/static/js/local."#));
    }
}

#[tokio::test]
async fn pages_are_usable_on_a_phone_and_themed() {
    let app = spawn_app().await;
    let html = app.get_html("/").await;
    assert!(html.contains(r#"name="viewport" content="width=device-width, initial-scale=1""#));
    assert!(html.contains(r#"id="theme-toggle""#));
    let css = app.get("/static/css/site.css").await.text().await.unwrap();
    assert!(css.contains("prefers-color-scheme: dark") && css.contains(r#"[data-theme="dark"]"#));
    assert!(css.contains("@media (max-width"));
}

#[tokio::test]
async fn every_piece_image_the_diagrams_use_exists() {
    let app = spawn_app().await;
    for v in variants() {
        for p in v.pieces {
            for color in ["white", "black"] {
                let path = format!("/static/pieces/{}-{color}.svg", p.kind.slug());
                assert_eq!(app.get(&path).await.status().as_u16(), 200, "{}: {path}", v.id);
            }
        }
    }
}

#[tokio::test]
async fn reading_pages_anonymously_creates_no_session() {
    let app = spawn_app().await;
    for path in ["/", "/variant/standard", "/local/standard", "/no/such/page"] {
        let resp = app.get(path).await;
        assert!(resp.headers().get("set-cookie").is_none(), "{path} set a cookie");
    }
    let resp = app.get("/login").await;
    assert!(resp.headers().get("set-cookie").is_some(), "a form page starts a session for its token");
}
