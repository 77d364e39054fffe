//! Joining a friend's game with a clock: nobody plays two started clocked games at a time, also
//! by the invite link (the lobby, challenges and pools check it when the game is created).
#![expect(clippy::unwrap_used, reason = "test code: a failed step should fail the test loudly")]

use super::{Browser, stored_result};
use crate::helpers::spawn_app;

/// Posts the join form of `id` and returns the status and the page.
async fn try_join(who: &Browser, id: &str) -> (u16, String) {
    let r = who.post_form(&format!("/{id}"), &format!("/game/{id}/join"), &[]).await;
    (r.status().as_u16(), r.text().await.unwrap())
}

#[tokio::test]
async fn a_player_in_a_clocked_game_cannot_join_another_and_the_invite_stays_open() {
    let app = spawn_app().await;
    let (alice, bob, carol) = (Browser::new(&app.address), Browser::new(&app.address), Browser::new(&app.address));
    for (b, name) in [(&alice, "alice"), (&bob, "bob"), (&carol, "carol")] {
        b.signup(name).await;
    }
    // Bob plays Carol with a clock.
    let running = carol.create("standard", "5+3", "casual", "white").await;
    bob.join(&running).await;

    // Alice's invite: Bob's join is refused in words, and the game still waits.
    let invite = alice.create("gold", "3+2", "casual", "white").await;
    let (status, page) = try_join(&bob, &invite).await;
    assert_eq!(status, 409, "{page}");
    assert!(page.contains("You are playing another game with a clock"), "{page}");
    assert_eq!(stored_result(&app.db_pool, &invite).await.0, 10, "still waiting");

    // Without a clock nothing stops him.
    let slow = alice.create("gold", "unlimited", "casual", "white").await;
    bob.join(&slow).await;
    assert_eq!(stored_result(&app.db_pool, &slow).await.0, 20);

    // Once his clocked game is over, the invite can be taken.
    let mut sock = bob.socket(&running, None).await;
    sock.until("full").await;
    assert_eq!(sock.command("resign").await["t"], "ack");
    bob.join(&invite).await;
    assert_eq!(stored_result(&app.db_pool, &invite).await.0, 20);
}

#[tokio::test]
async fn an_invite_whose_creator_started_another_clocked_game_cannot_be_joined() {
    let app = spawn_app().await;
    let (alice, bob, carol) = (Browser::new(&app.address), Browser::new(&app.address), Browser::new(&app.address));
    for (b, name) in [(&alice, "alice"), (&bob, "bob"), (&carol, "carol")] {
        b.signup(name).await;
    }
    let invite = alice.create("standard", "5+0", "casual", "white").await;
    // Meanwhile Alice starts another clocked game by joining Carol's.
    let other = carol.create("standard", "3+2", "casual", "black").await;
    alice.join(&other).await;

    let (status, page) = try_join(&bob, &invite).await;
    assert_eq!(status, 409, "{page}");
    assert!(page.contains("alice is playing another game with a clock right now"), "{page}");
    assert_eq!(stored_result(&app.db_pool, &invite).await.0, 10, "still waiting");
}
