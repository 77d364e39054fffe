//! The game page's title: lichess's "White vs Black in Variant", the same for everyone who looks,
//! with the site's name once at most.
#![expect(clippy::unwrap_used, reason = "tests")]

use super::Browser;
use crate::helpers::spawn_app;

/// The text of the page's `<title>`.
fn title(html: &str) -> String {
    let start = html.find("<title>").unwrap() + "<title>".len();
    let end = html[start..].find("</title>").unwrap() + start;
    html[start..end].to_string()
}

#[tokio::test]
async fn a_game_page_title_names_white_then_black_then_the_variant() {
    let app = spawn_app().await;
    let (alice, bob, guest) = (Browser::new(&app.address), Browser::new(&app.address), Browser::new(&app.address));
    alice.signup("alice").await;
    bob.signup("bob").await;
    for (variant, expected) in [
        ("standard", "alice vs bob in Standard · Chess Gold"),
        ("gold", "alice vs bob in Chess Gold"),
        ("lootbox", "alice vs bob in Chess Gold: Loot Boxes"),
    ] {
        let id = alice.create(variant, "5+3", "casual", "white").await;
        let in_variant = expected.strip_prefix("alice vs bob").unwrap();
        assert_eq!(title(&alice.html(&format!("/{id}")).await), format!("alice vs (waiting){in_variant}"));
        bob.join(&id).await;
        for (who, viewer) in [("White", &alice), ("Black", &bob), ("a spectator", &guest)] {
            assert_eq!(title(&viewer.html(&format!("/{id}")).await), expected, "the title {who} sees");
        }
        // The game is aborted so that alice may start the next one.
        let mut sock = alice.socket(&id, None).await;
        sock.until("full").await;
        assert_eq!(sock.command("abort").await["t"], "ack");
    }
}
