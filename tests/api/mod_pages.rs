//! The moderation pages through the real app: every `/mod` route guarded (read from the route
//! table), CSRF on every mod form, the report flow from a profile and a game, blocks from the
//! profile and the account page, a chat timeout given from the mod view, the role form.
#![expect(clippy::unwrap_used, reason = "test code: a failed step should fail the test loudly")]

use chessgold::domain::Role;
use chessgold::moderation::{Reason, roles};
use serde_json::{Value, json};
use sqlx::PgPool;

use crate::helpers::{TestApp, location, spawn_app};
use crate::round::{Browser, Sock};

/// Signs up `name` and gives it `role` from the command line's path.
async fn with_role(app: &TestApp, name: &str, role: Role) -> Browser {
    let b = Browser::new(&app.address);
    b.signup(name).await;
    if role != Role::User {
        roles::set_role(&app.db_pool, None, name, role, &Reason::parse("test").unwrap()).await.unwrap();
    }
    b
}

/// A request of `method` to `path` without a CSRF token (same origin).
async fn bare(b: &Browser, method: &str, path: &str) -> reqwest::Response {
    let url = format!("{}{path}", b.base);
    let req = if method == "post" {
        b.http.post(url).header("Origin", &b.base).form(&[("reason", "x")])
    } else {
        b.http.get(url)
    };
    req.send().await.unwrap()
}

async fn count(pool: &PgPool, sql: &'static str) -> i64 {
    sqlx::query_as::<_, (i64,)>(sql).fetch_one(pool).await.unwrap().0
}

#[tokio::test]
async fn every_mod_route_is_guarded_and_every_mod_form_needs_its_token() {
    let app = spawn_app().await;
    let guest = Browser::new(&app.address);
    let player = with_role(&app, "player", Role::User).await;
    let moderator = with_role(&app, "judge", Role::Moderator).await;
    let admin = with_role(&app, "boss", Role::Admin).await;
    let routes = chessgold::routes::mod_routes();
    assert!(routes.len() >= 9, "{routes:?}");
    for (method, pattern) in routes {
        let path = pattern.replace("{username}", "player");
        assert!(!path.contains('{'), "{pattern}: a parameter this test does not fill");
        let r = bare(&guest, method, &path).await;
        assert_eq!(r.status().as_u16(), 303, "{method} {path} as a guest");
        assert!(location(&r).starts_with("/login?next=%2Fmod"), "{method} {path}: {}", location(&r));
        let r = bare(&player, method, &path).await;
        assert_eq!(r.status().as_u16(), 403, "{method} {path} as a player");
        let body = r.text().await.unwrap();
        assert!(body.contains("This page is for moderators"), "{method} {path}: {body}");
        // With the player's own token too.
        if method == "post" {
            let r = player.post_form("/", &path, &[("reason", "x")]).await;
            assert_eq!(r.status().as_u16(), 403, "{method} {path} as a player with a token");
            // A moderator's (an admin's) form without its token is refused.
            let r = bare(&admin, method, &path).await;
            assert_eq!(r.status().as_u16(), 403, "{method} {path} without a token");
            assert!(r.text().await.unwrap().contains("Form expired"), "{method} {path}");
        } else {
            let r = bare(&moderator, method, &path).await;
            assert_eq!(r.status().as_u16(), 200, "{method} {path} as a moderator");
        }
    }
    // The role form is the admins'.
    let r = moderator.post_form("/mod", "/mod/@/player/role", &[("role", "moderator"), ("reason", "x")]).await;
    assert_eq!(r.status().as_u16(), 403);
    assert_eq!(count(&app.db_pool, "SELECT count(*) FROM mod_log").await, 2, "only the test's role changes");
}

/// Posts a report of `target` by `b` from its profile.
async fn report(b: &Browser, target: &str, reason: &str, text: &str, game: Option<&str>) -> reqwest::Response {
    let mut fields = vec![("reason", reason), ("text", text)];
    if let Some(g) = game {
        fields.push(("game", g));
    }
    b.post_form(&format!("/@/{target}"), &format!("/@/{target}/report"), &fields).await
}

#[tokio::test]
async fn a_report_is_received_merged_rate_limited_queued_and_dismissed() {
    let app = spawn_app().await;
    let alice = with_role(&app, "alice", Role::User).await;
    let bob = with_role(&app, "bob", Role::User).await;
    let judge = with_role(&app, "judge", Role::Moderator).await;
    let pool = &app.db_pool;
    // The profile has the form; a guest's has none.
    assert!(alice.html("/@/bob").await.contains(r#"action="/@/bob/report""#));
    assert!(!Browser::new(&app.address).html("/@/bob").await.contains("/report"));

    // From a game: the game is kept with the note.
    let game = alice.create("standard", "5+0", "casual", "white").await;
    bob.join(&game).await;
    // The game page offers alice a report of bob with the game, and none of herself.
    let page = alice.html(&format!("/{game}")).await;
    assert!(page.contains(r#"action="/@/bob/report""#) && page.contains(&format!(r#"name="game" value="{game}""#)));
    assert!(!page.contains(r#"action="/@/alice/report""#));
    let r = report(&alice, "bob", "comm", "insults in the chat", Some(&game)).await;
    assert_eq!(r.status().as_u16(), 200);
    let body = r.text().await.unwrap();
    assert!(body.contains("your report about bob was received"), "{body}");
    assert!(!body.contains("closed") && !body.contains("sanction"));
    // Again: added to the open report.
    for i in 0..9 {
        let r = report(&alice, "bob", "cheat", &format!("more {i}"), None).await;
        assert_eq!(r.status().as_u16(), 200);
    }
    assert_eq!(count(pool, "SELECT count(*) FROM reports").await, 1);
    assert_eq!(count(pool, "SELECT count(*) FROM report_notes").await, 10);
    let with_game: (Option<String>,) =
        sqlx::query_as("SELECT game_id FROM report_notes ORDER BY id LIMIT 1").fetch_one(pool).await.unwrap();
    assert_eq!(with_game.0.as_deref(), Some(game.as_str()));
    // The eleventh in the hour: refused in words.
    let r = report(&alice, "bob", "other", "once more", None).await;
    assert_eq!(r.status().as_u16(), 429);
    assert!(r.text().await.unwrap().contains("Wait"));
    assert_eq!(count(pool, "SELECT count(*) FROM report_notes").await, 10);
    // Bad input is refused with words: oneself, an unknown reason, an empty text.
    let r = bob.post_form("/@/bob", "/@/bob/report", &[("reason", "cheat"), ("text", "me")]).await;
    assert_eq!(r.status().as_u16(), 400);
    let r = report(&bob, "alice", "rude", "x", None).await;
    assert_eq!(r.status().as_u16(), 400);
    let r = report(&bob, "alice", "other", "", None).await;
    assert_eq!(r.status().as_u16(), 400);

    // The queue: one chat-abuse report (its first reason), ten notes.
    let q = judge.html("/mod").await;
    assert!(q.contains(r#"<span class="mod-count" data-room="comm">1</span>"#), "{q}");
    assert!(q.contains(r#"<span class="mod-count" data-room="cheat">0</span>"#));
    assert!(q.contains(r#"href="/mod/@/bob""#));
    // The mod view lists it; dismissing needs a reason, then closes it with one log row.
    let v = judge.html("/mod/@/bob").await;
    assert!(v.contains("Chat abuse") && v.contains(">open<"), "{v}");
    let r = judge.post_form("/mod/@/bob", "/mod/@/bob/dismiss", &[("reports", "all"), ("reason", "")]).await;
    assert_eq!(r.status().as_u16(), 422);
    let r = judge.post_form("/mod/@/bob", "/mod/@/bob/dismiss", &[("reports", "all"), ("reason", "banter")]).await;
    assert_eq!(r.status().as_u16(), 200);
    assert!(r.text().await.unwrap().contains("1 report(s) dismissed."));
    assert_eq!(count(pool, "SELECT count(*) FROM reports WHERE closed_at IS NULL").await, 0);
    assert_eq!(count(pool, "SELECT count(*) FROM mod_log WHERE action = 'close_reports'").await, 1);
    assert!(judge.html("/mod").await.contains(r#"data-room="comm">0<"#));
    assert!(judge.html("/mod/log").await.contains("banter"));
}

#[tokio::test]
async fn a_block_from_the_profile_refuses_a_challenge_and_is_undone_on_the_account_page() {
    let app = spawn_app().await;
    let alice = with_role(&app, "alice", Role::User).await;
    let bob = with_role(&app, "bob", Role::User).await;
    assert!(alice.html("/account/blocks").await.contains("You block nobody."));
    let r = alice.post_form("/@/bob", "/@/bob/block", &[]).await;
    assert_eq!((r.status().as_u16(), location(&r).as_str()), (303, "/@/bob"));
    assert!(alice.html("/@/bob").await.contains("Unblock bob"));
    let list = alice.html("/account/blocks").await;
    assert!(list.contains(r#"data-name="bob""#), "{list}");
    // Bob's challenge is refused.
    let form = [("variant", "standard"), ("time", "5+3"), ("mode", "casual"), ("color", "random")];
    let r = bob.post_form("/@/alice", "/@/alice/challenge", &form).await;
    assert_eq!(r.status().as_u16(), 400);
    assert!(r.text().await.unwrap().contains("alice does not accept challenges from you"));
    // Blocking oneself is refused; a guest is sent to log in.
    let r = alice.post_form("/@/alice", "/@/alice/block", &[]).await;
    assert_eq!(r.status().as_u16(), 409);
    // Undone from the account page, back to it.
    let r = alice.post_form("/account/blocks", "/@/bob/unblock", &[("back", "account")]).await;
    assert_eq!((r.status().as_u16(), location(&r).as_str()), (303, "/account/blocks"));
    assert!(alice.html("/account/blocks").await.contains("You block nobody."));
    let r = bob.post_form("/@/alice", "/@/alice/challenge", &form).await;
    assert_eq!(r.status().as_u16(), 303);
}

async fn say(sock: &mut Sock, text: &str) -> Value {
    let ack = sock.ack_id();
    sock.send(json!({"t": "chat", "d": {"room": "player", "text": text, "ack": ack}})).await;
    sock.answer(ack).await
}

#[tokio::test]
async fn a_timeout_given_on_the_mod_view_refuses_the_players_next_line_and_is_lifted_there() {
    let app = spawn_app().await;
    let alice = with_role(&app, "alice", Role::User).await;
    let bob = with_role(&app, "bob", Role::User).await;
    let judge = with_role(&app, "judge", Role::Moderator).await;
    let id = alice.create("standard", "5+0", "casual", "white").await;
    bob.join(&id).await;
    let mut a = alice.socket(&id, None).await;
    a.until("full").await;
    assert_eq!(say(&mut a, "hello").await["t"], "ack");
    // The mod view shows the line with its game.
    let v = judge.html("/mod/@/alice").await;
    assert!(v.contains("hello") && v.contains(&format!(r#"href="/{id}""#)), "{v}");
    // Out of range and without a reason: refused in words, nothing logged.
    let r = judge.post_form("/mod/@/alice", "/mod/@/alice/timeout", &[("minutes", "5"), ("reason", "spam")]).await;
    assert_eq!(r.status().as_u16(), 422);
    assert!(r.text().await.unwrap().contains("10 to 1440"));
    let r = judge.post_form("/mod/@/alice", "/mod/@/alice/timeout", &[("minutes", "10"), ("reason", " ")]).await;
    assert_eq!(r.status().as_u16(), 422);
    assert_eq!(count(&app.db_pool, "SELECT count(*) FROM mod_log WHERE action = 'chat_timeout'").await, 0);
    let r = judge.post_form("/mod/@/alice", "/mod/@/alice/timeout", &[("minutes", "10"), ("reason", "spam")]).await;
    assert_eq!(r.status().as_u16(), 200);
    let body = r.text().await.unwrap();
    assert!(body.contains("Chat timeout until") && body.contains(r#"data-kind="chat_timeout""#), "{body}");
    let refused = say(&mut a, "still here").await;
    assert_eq!(refused["d"]["code"], "chat_timed_out", "{refused}");
    // Lifted: the line goes.
    let r =
        judge.post_form("/mod/@/alice", "/mod/@/alice/lift", &[("kind", "chat_timeout"), ("reason", "served")]).await;
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(say(&mut a, "back").await["t"], "ack");
    let log = judge.html("/mod/log").await;
    assert!(log.contains(r#"data-action="chat_timeout""#) && log.contains(r#"data-action="lift_chat_timeout""#));
}

#[tokio::test]
async fn an_admin_grants_and_revokes_the_moderator_role_on_the_mod_view() {
    let app = spawn_app().await;
    let admin = with_role(&app, "boss", Role::Admin).await;
    let carol = with_role(&app, "carol", Role::User).await;
    assert_eq!(bare(&carol, "get", "/mod").await.status().as_u16(), 403);
    // The search finds her by a prefix in any case; a bad prefix is refused in words.
    let found = admin.html("/mod/search?q=CA").await;
    assert!(found.contains(r#"href="/mod/@/carol""#), "{found}");
    assert!(admin.html("/mod/search?q=a%25").await.contains("names have only letters"));
    let r = admin.post_form("/mod/@/carol", "/mod/@/carol/role", &[("role", "moderator"), ("reason", "trusted")]).await;
    assert_eq!(r.status().as_u16(), 200);
    assert!(r.text().await.unwrap().contains("carol is now moderator (was user)."));
    assert_eq!(bare(&carol, "get", "/mod").await.status().as_u16(), 200, "at once");
    let r = admin.post_form("/mod/@/carol", "/mod/@/carol/role", &[("role", "moderator"), ("reason", "again")]).await;
    assert_eq!(r.status().as_u16(), 422);
    let r = admin.post_form("/mod/@/carol", "/mod/@/carol/role", &[("role", "user"), ("reason", "stepped down")]).await;
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(bare(&carol, "get", "/mod").await.status().as_u16(), 403);
    let log = admin.html("/mod/log").await;
    assert!(log.contains("trusted") && log.contains("stepped down"));
    assert_eq!(count(&app.db_pool, "SELECT count(*) FROM mod_log WHERE action = 'set_role'").await, 3);
}

/// A token of `b` with the one scope `scope`, made on the account page.
async fn token(b: &Browser, scope: &str) -> String {
    let r = b.post_form("/account/tokens", "/account/tokens", &[("description", "a script"), (scope, "on")]).await;
    let html = r.text().await.unwrap();
    let at = html.find(r#"<code class="token-value">"#).unwrap() + r#"<code class="token-value">"#.len();
    html[at..at + html[at..].find('<').unwrap()].to_string()
}

async fn api_post(app: &TestApp, token: &str, path: &str) -> reqwest::Response {
    reqwest::Client::new().post(app.url(path)).bearer_auth(token).send().await.unwrap()
}

#[tokio::test]
async fn the_block_api_needs_follow_write_and_blocks_as_the_profile_does() {
    let app = spawn_app().await;
    let alice = with_role(&app, "alice", Role::User).await;
    with_role(&app, "bob", Role::User).await;
    let follow = token(&alice, "follow:write").await;
    let board = token(&alice, "board:play").await;
    assert_eq!(api_post(&app, &board, "/api/rel/block/bob").await.status().as_u16(), 403);
    assert_eq!(api_post(&app, "cgp_nonsense", "/api/rel/block/bob").await.status().as_u16(), 401);
    assert_eq!(api_post(&app, &follow, "/api/rel/block/nobody").await.status().as_u16(), 404);
    assert_eq!(api_post(&app, &follow, "/api/rel/block/alice").await.status().as_u16(), 400);
    let r = api_post(&app, &follow, "/api/rel/block/bob").await;
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(r.json::<Value>().await.unwrap(), json!({"ok": true}));
    assert!(alice.html("/account/blocks").await.contains(r#"data-name="bob""#));
    assert!(alice.html("/@/bob").await.contains("Unblock bob"));
    assert_eq!(api_post(&app, &follow, "/api/rel/unblock/bob").await.status().as_u16(), 200);
    assert!(alice.html("/account/blocks").await.contains("You block nobody."));
}

/// The name the page header shows as signed in, if any.
async fn signed_in_as(b: &Browser) -> Option<String> {
    let html = b.html("/").await;
    let at = html.find(r#"<span class="user-name">"#)? + r#"<span class="user-name">"#.len();
    Some(html[at..at + html[at..].find('<').unwrap()].to_string())
}

#[tokio::test]
async fn a_moderator_marks_closes_and_reopens_an_account_from_the_mod_view() {
    let app = spawn_app().await;
    let judge = with_role(&app, "judge", Role::Moderator).await;
    let alice = with_role(&app, "alice", Role::User).await;
    let view = judge.html("/mod/@/alice").await;
    assert!(view.contains(r#"id="form-mark""#) && view.contains(r#"id="form-close""#), "{view}");
    assert!(!view.contains(r#"id="form-lift""#), "nothing to lift");
    // A bad kind or no reason: refused in words, nothing logged.
    let r = judge.post_form("/mod/@/alice", "/mod/@/alice/mark", &[("kind", "saint"), ("reason", "x")]).await;
    assert_eq!(r.status().as_u16(), 422);
    assert!(r.text().await.unwrap().contains("choose engine or booster"));
    let r = judge.post_form("/mod/@/alice", "/mod/@/alice/mark", &[("kind", "engine"), ("reason", "")]).await;
    assert_eq!(r.status().as_u16(), 422);
    assert_eq!(count(&app.db_pool, "SELECT count(*) FROM mod_log").await, 1, "the test's role change only");
    // The engine mark: no rated game, so nothing to refund; in force, and offered to lift.
    let r =
        judge.post_form("/mod/@/alice", "/mod/@/alice/mark", &[("kind", "engine"), ("reason", "engine moves")]).await;
    assert_eq!(r.status().as_u16(), 200);
    let body = r.text().await.unwrap();
    assert!(body.contains("Engine mark given; no rating to refund; 0 report(s) closed."), "{body}");
    assert!(body.contains(r#"data-kind="engine_mark""#) && body.contains(r#"<option value="engine_mark">"#));
    // "Marked" on the profile, for moderators only.
    assert!(judge.html("/@/alice").await.contains(r#"Marked: <strong class="mark">Engine mark</strong>"#));
    assert!(!alice.html("/@/alice").await.contains("Marked:"));
    assert!(!Browser::new(&app.address).html("/@/alice").await.contains("Marked:"));
    let r = judge.post_form("/mod/@/alice", "/mod/@/alice/mark", &[("kind", "engine"), ("reason", "again")]).await;
    assert_eq!(r.status().as_u16(), 422);
    assert!(r.text().await.unwrap().contains("has that mark already"));
    let r =
        judge.post_form("/mod/@/alice", "/mod/@/alice/lift", &[("kind", "engine_mark"), ("reason", "appeal")]).await;
    assert!(r.text().await.unwrap().contains("Lifted: engine mark."));
    // Closing: alice's open session is signed out at once and her log-in refused.
    assert_eq!(signed_in_as(&alice).await.as_deref(), Some("alice"));
    let r = judge.post_form("/mod/@/alice", "/mod/@/alice/close", &[("reason", "ban evasion")]).await;
    assert_eq!(r.status().as_u16(), 200);
    let body = r.text().await.unwrap();
    assert!(body.contains("Account closed: 1 session(s) ended, 0 token(s) revoked"), "{body}");
    assert!(body.contains(r#"id="form-reopen""#) && !body.contains(r#"id="form-close""#));
    assert_eq!(signed_in_as(&alice).await, None);
    let login = |b: &Browser| {
        let b = b.clone();
        async move { b.post_form("/login", "/login", &[("username", "alice"), ("password", "password123")]).await }
    };
    assert_eq!(login(&alice).await.status().as_u16(), 401);
    let r = judge.post_form("/mod/@/alice", "/mod/@/alice/close", &[("reason", "twice")]).await;
    assert_eq!(r.status().as_u16(), 422);
    // Reopened: log-in works again.
    let r =
        judge.post_form("/mod/@/alice", "/mod/@/alice/lift", &[("kind", "account_closed"), ("reason", "appeal")]).await;
    assert!(r.text().await.unwrap().contains("Account reopened"));
    assert_eq!(login(&alice).await.status().as_u16(), 303);
    let actions: Vec<String> =
        sqlx::query_scalar("SELECT action FROM mod_log ORDER BY id").fetch_all(&app.db_pool).await.unwrap();
    assert_eq!(actions, ["set_role", "engine_mark", "lift_engine_mark", "close_account", "reopen_account"]);
}
