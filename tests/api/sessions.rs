//! Sessions on the server (PostgreSQL): log-out ends every copy of the cookie, a password change
//! ends the account's other sessions, the sessions page lists and ends them, and the moderators'
//! search finds accounts by the address or the session of their log-ins.
#![expect(clippy::unwrap_used, reason = "test code: a failed step should fail the test loudly")]

use chessgold::domain::Role;
use chessgold::moderation::{Reason, roles};

use crate::helpers::{location, spawn_app};
use crate::round::Browser;

/// The name the page header shows as signed in, if any.
async fn signed_in_as(b: &Browser) -> Option<String> {
    let html = b.html("/").await;
    let at = html.find(r#"<span class="user-name">"#)? + r#"<span class="user-name">"#.len();
    Some(html[at..at + html[at..].find('<').unwrap()].to_string())
}

async fn log_in(b: &Browser, name: &str, password: &str) {
    let r = b.post_form("/login", "/login", &[("username", name), ("password", password)]).await;
    assert_eq!(r.status().as_u16(), 303, "log-in of {name}");
}

/// The public ids of the sessions the page lists, and which is "this one".
async fn listed(b: &Browser) -> (Vec<String>, Option<String>) {
    let html = b.html("/account/sessions").await;
    let mut all = Vec::new();
    let mut current = None;
    for (at, _) in html.match_indices(r#"<tr class="session"#) {
        let row = &html[at..at + html[at..].find("</tr>").unwrap()];
        let s = row.find(r#"data-sid=""#).unwrap() + r#"data-sid=""#.len();
        let sid = row[s..s + row[s..].find('"').unwrap()].to_string();
        if row.contains("(this one)") {
            current = Some(sid.clone());
        }
        all.push(sid);
    }
    (all, current)
}

#[tokio::test]
async fn log_out_signs_out_every_copy_of_the_cookie() {
    let app = spawn_app().await;
    let alice = Browser::new(&app.address);
    alice.signup("alice").await;
    let copy = alice.on(&alice.base);
    assert_eq!(signed_in_as(&copy).await.as_deref(), Some("alice"));
    let mut tab = copy.ws("/socket/lobby?sri=alicetab01").await;
    tab.until("seeks").await;
    let r = alice.post_form("/", "/logout", &[]).await;
    assert_eq!(r.status().as_u16(), 303);
    assert_eq!(signed_in_as(&copy).await, None, "the copied cookie is signed out too");
    assert!(tab.closed().await, "and the socket it opened is closed");
    assert_eq!(signed_in_as(&alice).await, None);
    let left: i64 = sqlx::query_scalar("SELECT count(*) FROM sessions WHERE user_id IS NOT NULL")
        .fetch_one(&app.db_pool)
        .await
        .unwrap();
    assert_eq!(left, 0);
}

#[tokio::test]
async fn a_password_change_ends_the_other_sessions_and_keeps_this_one() {
    let app = spawn_app().await;
    let laptop = Browser::new(&app.address);
    laptop.signup("bob").await;
    let phone = Browser::new(&app.address);
    log_in(&phone, "bob", "password123").await;
    let stolen = phone.on(&phone.base);
    assert_eq!(listed(&laptop).await.0.len(), 2);
    // Each has a lobby socket open.
    let mut phone_lobby = phone.ws("/socket/lobby?sri=phonesri01").await;
    phone_lobby.until("seeks").await;
    let mut laptop_lobby = laptop.ws("/socket/lobby?sri=laptopsri1").await;
    laptop_lobby.until("seeks").await;
    let r = laptop
        .post_form(
            "/account/password",
            "/account/password",
            &[("current_password", "password123"), ("new_password", "a-new-password")],
        )
        .await;
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(signed_in_as(&laptop).await.as_deref(), Some("bob"));
    assert_eq!(signed_in_as(&phone).await, None);
    // The phone's socket is closed; the laptop's still answers.
    assert!(phone_lobby.closed().await, "the ended session's socket closes");
    laptop_lobby.send(serde_json::json!({"t": "ping"})).await;
    assert_eq!(laptop_lobby.until("pong").await["t"], "pong");
    assert_eq!(signed_in_as(&stolen).await, None);
    let (all, current) = listed(&laptop).await;
    assert_eq!(all.len(), 1);
    assert_eq!(current.as_ref(), all.first());
}

#[tokio::test]
async fn the_sessions_page_lists_the_browsers_and_ends_one() {
    let app = spawn_app().await;
    let guest = Browser::new(&app.address);
    let r = guest.http.get(format!("{}/account/sessions", guest.base)).send().await.unwrap();
    assert_eq!(location(&r), "/login?next=%2Faccount%2Fsessions");
    let home = Browser::new(&app.address);
    home.signup("carol").await;
    let work = Browser::new(&app.address);
    log_in(&work, "carol", "password123").await;
    let (all, current) = listed(&home).await;
    assert_eq!(all.len(), 2);
    let here = current.unwrap();
    let other = all.iter().find(|s| **s != here).unwrap().clone();
    let page = home.html("/account/sessions").await;
    assert!(page.contains("127.0.0.1") && page.contains("End every other session"), "{page}");
    // Bad and unknown ids are refused and change nothing; so is a form without its token.
    let r = home.post_form("/account/sessions", "/account/sessions/end", &[("sid", "nope")]).await;
    assert_eq!(r.status().as_u16(), 400);
    let r = home
        .post_form("/account/sessions", "/account/sessions/end", &[("sid", &uuid::Uuid::new_v4().to_string())])
        .await;
    assert_eq!(r.status().as_u16(), 404);
    let r = home
        .http
        .post(format!("{}/account/sessions/end", home.base))
        .header("Origin", &home.base)
        .form(&[("sid", other.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 403);
    // Another account cannot end it either.
    let dave = Browser::new(&app.address);
    dave.signup("dave").await;
    let r = dave.post_form("/account/sessions", "/account/sessions/end", &[("sid", &other)]).await;
    assert_eq!(r.status().as_u16(), 404);
    assert_eq!(signed_in_as(&work).await.as_deref(), Some("carol"));
    // Ended from home: work is signed out at once, its socket closed and its event stream ended.
    let mut work_lobby = work.ws("/socket/lobby?sri=worksri001").await;
    work_lobby.until("seeks").await;
    let mut events = work.http.get(format!("{}/api/stream/event", work.base)).send().await.unwrap();
    assert_eq!(events.status().as_u16(), 200);
    assert_eq!(events.chunk().await.unwrap().as_deref(), Some(&b"\n"[..]), "the stream is open");
    let r = home.post_form("/account/sessions", "/account/sessions/end", &[("sid", &other)]).await;
    assert_eq!(location(&r), "/account/sessions");
    assert_eq!(signed_in_as(&work).await, None);
    assert!(work_lobby.closed().await);
    let wait = crate::round::WAIT;
    while tokio::time::timeout(wait, events.chunk()).await.expect("the stream ends").unwrap().is_some() {}
    assert_eq!(listed(&home).await.0, std::slice::from_ref(&here));
    // Ending this one is a log-out.
    let r = home.post_form("/account/sessions", "/account/sessions/end", &[("sid", &here)]).await;
    assert_eq!(location(&r), "/");
    assert_eq!(signed_in_as(&home).await, None);
}

#[tokio::test]
async fn moderators_find_accounts_by_the_address_or_session_of_their_log_ins() {
    let app = spawn_app().await;
    let judge = Browser::new(&app.address);
    judge.signup("judge").await;
    roles::set_role(&app.db_pool, None, "judge", Role::Moderator, &Reason::parse("test").unwrap()).await.unwrap();
    let erin = Browser::new(&app.address);
    erin.signup("erin").await;
    let alt = Browser::new(&app.address);
    alt.signup("erinalt").await;
    // Every account here came from 127.0.0.1.
    let found = judge.html("/mod/search?q=127.0.0.1").await;
    for name in ["judge", "erin", "erinalt"] {
        assert!(found.contains(&format!(r#"class="seen-account">{name}<"#)), "{name}: {found}");
    }
    assert!(judge.html("/mod/search?q=203.0.113.7").await.contains("Nobody signed up or logged in with"));
    // The mod view lists erin's sign-up with its session; that session finds erin alone.
    let view = judge.html("/mod/@/erin").await;
    let at = view.find("/mod/search?q=").unwrap();
    let links: Vec<&str> = view[at..]
        .split("/mod/search?q=")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .filter(|s| uuid::Uuid::parse_str(s).is_ok())
        .collect();
    assert_eq!(links.len(), 1, "one sign-up: {view}");
    let by_session = judge.html(&format!("/mod/search?q={}", links[0])).await;
    assert!(by_session.contains(r#"class="seen-account">erin<"#), "{by_session}");
    assert!(!by_session.contains(r#"class="seen-account">erinalt<"#));
    // Players cannot search.
    let r = erin.http.get(format!("{}/mod/search?q=127.0.0.1", erin.base)).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 403);
}
