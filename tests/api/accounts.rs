//! Sign-up, log-in, log-out, password change, and form errors.

use secrecy::SecretString;

use crate::helpers::{TestApp, location, spawn_app, spawn_app_with};

#[tokio::test]
async fn sign_up_creates_the_account_and_logs_in() {
    let app = spawn_app().await;
    let resp = app.post_signup("Alice_1", "correct horse").await;
    assert_eq!(resp.status().as_u16(), 303);
    assert_eq!(location(&resp), "/");
    assert_eq!(app.logged_in_name().await.as_deref(), Some("Alice_1"));
    let row = chessgold::db::users::find_by_name(&app.db_pool, "alice_1").await.unwrap().unwrap();
    assert_eq!(row.username, "Alice_1");
    assert_eq!(row.role, "user");
    assert!(row.password_hash.starts_with("$argon2id$"), "{}", row.password_hash);
    assert!(!row.password_hash.contains("correct horse"));
}

#[tokio::test]
async fn the_session_cookie_is_http_only_and_lax() {
    let app = spawn_app().await;
    let token = app.csrf_token("/signup").await;
    let resp =
        app.post_form("/signup", &[("csrf_token", &token), ("username", "carol"), ("password", "password1")]).await;
    let cookie = resp
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .find(|c| c.starts_with("cg_session="))
        .expect("the session cookie is set");
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("SameSite=Lax"), "{cookie}");
    assert!(!cookie.contains("Secure"), "{cookie}");
}

#[tokio::test]
async fn the_cookie_is_secure_when_configured() {
    let app = crate::helpers::spawn_app_with(|s| s.application.secure_cookies = true).await;
    let resp = app.get("/signup").await;
    let cookie = resp.headers().get("set-cookie").unwrap().to_str().unwrap().to_string();
    assert!(cookie.contains("Secure"), "{cookie}");
}

#[tokio::test]
async fn a_name_taken_in_another_case_is_refused() {
    let app = spawn_app().await;
    assert_eq!(app.post_signup("Magnus", "password1").await.status().as_u16(), 303);
    let other = app.new_browser();
    let resp = other.post_signup("mAGNUS", "password2").await;
    assert_eq!(resp.status().as_u16(), 422);
    let html = resp.text().await.unwrap();
    assert!(html.contains("This name is taken"), "{html}");
    assert!(html.contains(r#"value="mAGNUS""#), "the form keeps the input");
    assert_eq!(app.user_count().await, 1);
}

#[tokio::test]
async fn invalid_sign_up_input_re_renders_the_form_with_messages() {
    let app = spawn_app().await;
    let cases: [(&str, &str, &str); 6] = [
        ("a", "password1", "at least 2"),
        ("abcdefghijklmnopqrstu", "password1", "at most 20"),
        ("bad name", "password1", "not a space"),
        ("émile", "password1", "not &#39;é&#39;"),
        ("goodname", "short", "at least 8"),
        ("goodname2", &"p".repeat(257), "at most 256"),
    ];
    for (name, password, message) in cases {
        let resp = app.post_signup(name, password).await;
        assert_eq!(resp.status().as_u16(), 422, "{name}");
        let html = resp.text().await.unwrap();
        assert!(html.contains(message), "{name}: expected '{message}'");
        assert!(html.contains(r#"class="error""#));
        // The name is kept (HTML-escaped) so the user can fix it.
        assert!(html.contains(&format!(r#"value="{}""#, name.replace('\'', "&#39;"))), "{name}");
    }
    assert_eq!(app.user_count().await, 0);
}

#[tokio::test]
async fn an_over_long_form_is_refused_and_changes_nothing() {
    let app = spawn_app().await;
    let token = app.csrf_token("/signup").await;
    let huge = "x".repeat(40_000);
    let resp =
        app.post_form("/signup", &[("csrf_token", &token), ("username", &huge), ("password", "password1")]).await;
    assert_eq!(resp.status().as_u16(), 413);
    assert!(resp.text().await.unwrap().contains("Request too large"));
    assert_eq!(app.user_count().await, 0);
}

#[tokio::test]
async fn a_malformed_form_body_is_a_readable_400() {
    let app = spawn_app().await;
    let resp = app
        .client
        .post(app.url("/signup"))
        .header("content-type", "application/json")
        .body("{\"username\": \"x\"}")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 400);
    let html = resp.text().await.unwrap();
    assert!(html.contains("Bad request") && html.contains("<html"), "{html}");
    assert_eq!(app.user_count().await, 0);
}

#[tokio::test]
async fn log_in_with_the_right_password_in_any_name_case() {
    let app = spawn_app().await;
    app.post_signup("Bobby", "hunter2hunter2").await;
    app.post_logout().await;
    assert_eq!(app.logged_in_name().await, None);
    let resp = app.post_login("bOBBY", "hunter2hunter2").await;
    assert_eq!(resp.status().as_u16(), 303);
    assert_eq!(app.logged_in_name().await.as_deref(), Some("Bobby"));
}

#[tokio::test]
async fn log_in_returns_to_the_next_page_but_never_off_site() {
    let app = spawn_app().await;
    app.post_signup("nextuser", "password1").await;
    app.post_logout().await;
    let html = app.get_html("/login?next=/variant/standard").await;
    let token = crate::helpers::scrape_csrf(&html).unwrap();
    assert!(html.contains(r#"name="next" value="/variant/standard""#));
    let resp = app
        .post_form(
            "/login",
            &[
                ("csrf_token", &token),
                ("username", "nextuser"),
                ("password", "password1"),
                ("next", "/variant/standard"),
            ],
        )
        .await;
    assert_eq!(location(&resp), "/variant/standard");
    app.post_logout().await;
    let token = app.csrf_token("/login").await;
    let resp = app
        .post_form(
            "/login",
            &[("csrf_token", &token), ("username", "nextuser"), ("password", "password1"), ("next", "//evil.example/")],
        )
        .await;
    assert_eq!(location(&resp), "/");
}

#[tokio::test]
async fn a_wrong_password_is_refused_with_the_name_kept() {
    let app = spawn_app().await;
    app.post_signup("dora", "the-right-one").await;
    app.post_logout().await;
    let resp = app.post_login("dora", "the-wrong-one").await;
    assert_eq!(resp.status().as_u16(), 401);
    let html = resp.text().await.unwrap();
    assert!(html.contains("Wrong user name or password"));
    assert!(html.contains(r#"value="dora""#));
    assert_eq!(app.logged_in_name().await, None);
    // An unknown account gets the same answer.
    let resp = app.post_login("nobody", "the-wrong-one").await;
    assert_eq!(resp.status().as_u16(), 401);
    assert!(resp.text().await.unwrap().contains("Wrong user name or password"));
}

#[tokio::test]
async fn empty_and_over_long_log_in_fields_get_messages() {
    let app = spawn_app().await;
    let resp = app.post_login("", "").await;
    assert_eq!(resp.status().as_u16(), 422);
    let html = resp.text().await.unwrap();
    assert!(html.contains("Enter your user name.") && html.contains("Enter your password."));
    let resp = app.post_login(&"n".repeat(50), &"p".repeat(300)).await;
    assert_eq!(resp.status().as_u16(), 422);
    let html = resp.text().await.unwrap();
    assert!(html.contains("at most 20") && html.contains("at most 256"));
}

#[tokio::test]
async fn log_out_ends_the_session() {
    let app = spawn_app().await;
    app.post_signup("erin", "password1").await;
    assert!(app.logged_in_name().await.is_some());
    let resp = app.post_logout().await;
    assert_eq!(resp.status().as_u16(), 303);
    assert_eq!(app.logged_in_name().await, None);
    // The password page now asks to log in.
    let resp = app.get("/account/password").await;
    assert_eq!(resp.status().as_u16(), 303);
    assert_eq!(location(&resp), "/login?next=/account/password");
}

#[tokio::test]
async fn the_session_key_changes_at_log_in() {
    let app = spawn_app().await;
    app.post_signup("frank", "password1").await;
    app.post_logout().await;
    let before = app.csrf_token("/login").await;
    app.post_login("frank", "password1").await;
    let after = app.csrf_token("/").await;
    assert_ne!(before, after, "the CSRF token is renewed with the session");
}

#[tokio::test]
async fn change_password_then_log_in_with_the_new_one_only() {
    let app = spawn_app().await;
    app.post_signup("grace", "old-password").await;
    let resp = app.post_change_password("old-password", "new-password").await;
    assert_eq!(resp.status().as_u16(), 200);
    assert!(resp.text().await.unwrap().contains("Your password has been changed."));
    app.post_logout().await;
    assert_eq!(app.post_login("grace", "old-password").await.status().as_u16(), 401);
    assert_eq!(app.post_login("grace", "new-password").await.status().as_u16(), 303);
}

#[tokio::test]
async fn change_password_needs_the_current_one_and_a_valid_new_one() {
    let app = spawn_app().await;
    app.post_signup("heidi", "old-password").await;
    let resp = app.post_change_password("not-it", "new-password").await;
    assert_eq!(resp.status().as_u16(), 422);
    assert!(resp.text().await.unwrap().contains("This is not your current password."));
    let resp = app.post_change_password("old-password", "short").await;
    assert_eq!(resp.status().as_u16(), 422);
    assert!(resp.text().await.unwrap().contains("at least 8"));
    app.post_logout().await;
    assert_eq!(app.post_login("heidi", "old-password").await.status().as_u16(), 303);
}

/// No session key configured: the first start makes one in the key file and the next start
/// reads it, so a restart keeps an account signed in and a guest in the seat of their game. An
/// instance with another key file knows neither of them.
#[tokio::test]
async fn a_restart_without_a_configured_key_keeps_players_signed_in_and_seated() {
    let folder = std::env::temp_dir().join(format!("chessgold-key-{}", uuid::Uuid::new_v4().simple()));
    let keyed = |file: std::path::PathBuf, db: Option<String>| {
        move |s: &mut chessgold::settings::Settings| {
            s.application.session_key = SecretString::from(String::new());
            s.application.session_key_file = file;
            if let Some(db) = db {
                s.database.url = SecretString::from(db);
            }
        }
    };
    let key_file = folder.join("session-key");
    let before = spawn_app_with(keyed(key_file.clone(), None)).await;
    before.post_signup("ivan", "password1").await;
    assert_eq!(before.logged_in_name().await.as_deref(), Some("ivan"));
    let mut guest = crate::round::Browser::new(&before.address);
    let game = guest.create("standard", "5+0", "casual", "white").await;

    let after = spawn_app_with(keyed(key_file.clone(), Some(before.db_url.clone()))).await;
    let ivan = TestApp { client: before.client.clone(), ..after.new_browser() };
    assert_eq!(ivan.logged_in_name().await.as_deref(), Some("ivan"), "signed in after the restart");
    guest.base = after.address.clone();
    assert_eq!(guest.socket(&game, None).await.until("full").await["d"]["you"], "white", "seated after the restart");

    let stranger = spawn_app_with(keyed(folder.join("another-key"), Some(before.db_url.clone()))).await;
    let ivan_there = TestApp { client: before.client.clone(), ..stranger.new_browser() };
    assert_eq!(ivan_there.logged_in_name().await, None, "another key does not know the session");
    guest.base = stranger.address.clone();
    assert_ne!(guest.socket(&game, None).await.until("full").await["d"]["you"], "white", "nor the guest");
    let _ = std::fs::remove_dir_all(&folder);
}

/// A signed-in player sent to `/login?next=...` goes on at once: never to another site, with a
/// tab or a line break hidden in the path (browsers drop them), and never to a 500.
#[tokio::test]
async fn a_signed_in_log_in_link_never_leads_off_site() {
    let app = spawn_app().await;
    app.post_signup("nextsigned", "password1").await;
    assert_eq!(location(&app.get("/login?next=/variant/standard").await), "/variant/standard");
    for bypass in
        ["/%09/evil.example", "/%0a/evil.example", "/%0d%0a/evil.example", "/%5Cevil.example", "%2F%2Fevil.example"]
    {
        let resp = app.get(&format!("/login?next={bypass}")).await;
        assert_eq!(resp.status().as_u16(), 303, "{bypass}");
        assert_eq!(location(&resp), "/", "{bypass}");
    }
}
