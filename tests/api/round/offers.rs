//! Offers that end unaccepted say how, and who ended them, so that the one who made the offer can
//! be told: declined by the opponent, withdrawn by the one who made it, or lapsed because the
//! opponent played on.

use serde_json::json;

use super::{Sock, play_line, two_guests};
use crate::helpers::spawn_app;

/// The next `offers` event on a socket.
async fn offers(s: &mut Sock) -> serde_json::Value {
    s.until("offers").await["d"].clone()
}

#[tokio::test]
async fn an_offer_that_ends_unaccepted_says_how_and_by_whom() {
    let app = spawn_app().await;
    let (_id, _w, _b, mut ws, mut bs) = two_guests(&app.address, "standard", "unlimited").await;
    play_line(&mut ws, &mut bs, 0, &["e2e4", "e7e5"]).await;

    // Declined.
    assert_eq!(ws.command("draw_yes").await["t"], "ack");
    offers(&mut ws).await;
    assert_eq!(offers(&mut bs).await["draw"], "white");
    assert_eq!(bs.command("draw_no").await["t"], "ack");
    let declined = json!([{"offer": "draw", "by": "black", "how": "declined"}]);
    for s in [&mut ws, &mut bs] {
        let d = offers(s).await;
        assert_eq!((d["draw"].clone(), d["closed"].clone()), (json!(null), declined.clone()));
    }
    assert_eq!(ws.command("takeback_yes").await["t"], "ack");
    offers(&mut ws).await;
    offers(&mut bs).await;
    assert_eq!(bs.command("takeback_no").await["t"], "ack");
    assert_eq!(offers(&mut ws).await["closed"], json!([{"offer": "takeback", "by": "black", "how": "declined"}]));
    offers(&mut bs).await;

    // Withdrawn.
    assert_eq!(ws.command("draw_yes").await["t"], "ack");
    offers(&mut ws).await;
    offers(&mut bs).await;
    assert_eq!(ws.command("draw_no").await["t"], "ack");
    assert_eq!(offers(&mut bs).await["closed"], json!([{"offer": "draw", "by": "white", "how": "withdrawn"}]));
    offers(&mut ws).await;

    // Lapsed: White offers a draw and asks for a takeback, then plays; Black plays on.
    assert_eq!(ws.command("draw_yes").await["t"], "ack");
    offers(&mut ws).await;
    offers(&mut bs).await;
    play_line(&mut ws, &mut bs, 2, &["g1f3"]).await;
    assert_eq!(ws.command("takeback_yes").await["t"], "ack");
    offers(&mut ws).await;
    offers(&mut bs).await;
    play_line(&mut ws, &mut bs, 3, &["b8c6"]).await;
    let lapsed = offers(&mut ws).await;
    assert_eq!(
        lapsed["closed"],
        json!([
            {"offer": "draw", "by": "black", "how": "lapsed"},
            {"offer": "takeback", "by": "black", "how": "lapsed"}
        ])
    );
    assert_eq!((lapsed["draw"].clone(), lapsed["takeback"].clone()), (json!(null), json!(null)));
    // Nothing to answer any more: refused in words, nothing changes.
    let refused = bs.command("draw_no").await;
    assert_eq!((refused["t"].clone(), refused["d"]["code"].clone()), (json!("error"), json!("no_offer")));
    assert!(refused["d"]["message"].as_str().unwrap().contains("no draw offer"), "{refused}");
}
