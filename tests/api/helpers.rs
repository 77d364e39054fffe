//! The test harness: the real application on a random port, a fresh migrated database per test,
//! a cookie-keeping client and typed helpers. Public so that other test modules of this binary
//! (browser tests too) can use it.
#![expect(clippy::expect_used, reason = "test support code: a failed setup step should fail the test loudly")]

use std::path::{Path, PathBuf};

use chessgold::settings::Settings;
use chessgold::startup::Application;
use secrecy::SecretString;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{ConnectOptions, PgPool};
use tokio::sync::OnceCell;
use uuid::Uuid;

/// Prefix of the databases the tests create.
const DB_PREFIX: &str = "cgtest_";

/// A running application and a client for it.
#[derive(Debug)]
pub struct TestApp {
    /// `http://127.0.0.1:PORT`.
    pub address: String,
    /// The bound port.
    pub port: u16,
    /// A pool on the test's own database.
    pub db_pool: PgPool,
    /// The URL of the test's own database.
    pub db_url: String,
    /// A client that keeps cookies and does not follow redirects.
    pub client: reqwest::Client,
    /// The settings the app was built with.
    pub settings: Settings,
    /// The application's shared state.
    pub state: actix_web::web::Data<chessgold::startup::AppState>,
}

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The server every test database lives on: `DATABASE_URL` with its database replaced, or the
/// local PostgreSQL as user `postgres`.
pub fn server_options() -> PgConnectOptions {
    let url = std::env::var("DATABASE_URL")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "postgres://postgres@127.0.0.1:5432/postgres".to_string());
    url.parse::<PgConnectOptions>().expect("DATABASE_URL is a PostgreSQL URL").database("postgres")
}

/// The Redis the Redis tests use.
pub fn redis_url() -> String {
    std::env::var("CHESSGOLD_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_string())
}

static CLEANED: OnceCell<()> = OnceCell::const_new();

/// Databases of earlier runs older than this are dropped.
const STALE_AFTER_SECS: u64 = 3 * 3600;

fn now_secs() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Creates an empty database `cgtest_<unix seconds>_<random>` and returns its URL. The first
/// call of a test process drops test databases older than a few hours (left by earlier runs;
/// younger ones may belong to a test run going on beside this one).
pub async fn create_database() -> String {
    CLEANED
        .get_or_init(|| async {
            let server = server_options();
            let names = chessgold::db::databases_with_prefix(&server, DB_PREFIX).await.expect("databases listed");
            for name in names {
                let born = name[DB_PREFIX.len()..].split('_').next().and_then(|s| s.parse::<u64>().ok());
                if born.is_none_or(|t| now_secs().saturating_sub(t) > STALE_AFTER_SECS) {
                    chessgold::db::drop_database(&server, &name).await.expect("old test database dropped");
                }
            }
        })
        .await;
    let name = format!("{DB_PREFIX}{}_{}", now_secs(), &Uuid::new_v4().simple().to_string()[..16]);
    chessgold::db::create_database(&server_options(), &name).await.expect("database created");
    server_options().database(&name).to_url_lossy().to_string()
}

/// The test settings (`config/default.toml` + `config/test.toml`).
pub fn test_settings() -> Settings {
    Settings::load_from(&root().join("config"), Some("test")).expect("test settings load")
}

/// Spawns the app with the test settings on a fresh database.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// Spawns the app using Redis for sessions and the broker, with keys under a unique prefix.
pub async fn spawn_app_with_redis() -> TestApp {
    spawn_app_with(|s| {
        s.redis.url = SecretString::from(redis_url());
        s.redis.key_prefix = format!("cgtest:{}:", Uuid::new_v4().simple());
    })
    .await
}

/// Spawns the app with the test settings changed by `adjust`.
pub async fn spawn_app_with(adjust: impl FnOnce(&mut Settings)) -> TestApp {
    if std::env::var_os("TEST_LOG").is_some() {
        chessgold::telemetry::init(&chessgold::settings::LogSettings {
            filter: "info".into(),
            format: "pretty".into(),
        });
    }
    let db_url = create_database().await;
    let mut settings = test_settings();
    settings.database.url = SecretString::from(db_url.clone());
    settings.application.port = 0;
    settings.application.static_dir = root().join("static");
    adjust(&mut settings);
    let app = Application::build(settings.clone()).await.expect("the app builds");
    let port = app.port();
    let state = app.state();
    tokio::spawn(app.run_until_stopped());
    let db_pool = PgPoolOptions::new().max_connections(2).connect(&db_url).await.expect("test pool connects");
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .cookie_store(true)
        .build()
        .expect("client builds");
    TestApp { address: format!("http://127.0.0.1:{port}"), port, db_pool, db_url, client, settings, state }
}

/// Finds the CSRF token in a page.
pub fn scrape_csrf(html: &str) -> Option<String> {
    let at = html.find(r#"name="csrf_token" value=""#)?;
    let rest = &html[at + r#"name="csrf_token" value=""#.len()..];
    Some(rest[..rest.find('"')?].to_string())
}

impl TestApp {
    /// Whether nobody waits in the lobby's pools (of this instance's store).
    pub async fn state_pools_empty(&self) -> bool {
        self.state.lobby.pools.entries().await.expect("the pools answer").is_empty()
    }

    /// Absolute URL of a path.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    /// GET; an answer of the API is checked against `docs/openapi.yaml`.
    pub async fn get(&self, path: &str) -> reqwest::Response {
        let resp = self.client.get(self.url(path)).send().await.expect("GET sent");
        if path.starts_with("/api/") { crate::openapi::checked("GET", resp).await } else { resp }
    }

    /// GET, returning the body.
    pub async fn get_html(&self, path: &str) -> String {
        self.get(path).await.text().await.expect("body read")
    }

    /// The CSRF token of the form on a page.
    pub async fn csrf_token(&self, path: &str) -> String {
        let html = self.get_html(path).await;
        scrape_csrf(&html).unwrap_or_else(|| panic!("no CSRF token on {path}"))
    }

    /// POSTs a form as a same-origin browser would (with an Origin header).
    pub async fn post_form(&self, path: &str, fields: &[(&str, &str)]) -> reqwest::Response {
        self.client.post(self.url(path)).header("Origin", &self.address).form(fields).send().await.expect("POST sent")
    }

    /// Signs up through the form (fetching its token first).
    pub async fn post_signup(&self, username: &str, password: &str) -> reqwest::Response {
        let token = self.csrf_token("/signup").await;
        self.post_form("/signup", &[("csrf_token", &token), ("username", username), ("password", password)]).await
    }

    /// Logs in through the form.
    pub async fn post_login(&self, username: &str, password: &str) -> reqwest::Response {
        let token = self.csrf_token("/login").await;
        self.post_form("/login", &[("csrf_token", &token), ("username", username), ("password", password)]).await
    }

    /// Logs out with the header's form.
    pub async fn post_logout(&self) -> reqwest::Response {
        let token = self.csrf_token("/").await;
        self.post_form("/logout", &[("csrf_token", &token)]).await
    }

    /// Changes the password through the form.
    pub async fn post_change_password(&self, current: &str, new: &str) -> reqwest::Response {
        let token = self.csrf_token("/account/password").await;
        self.post_form(
            "/account/password",
            &[("csrf_token", &token), ("current_password", current), ("new_password", new)],
        )
        .await
    }

    /// POSTs to the local-play API; the answer is checked against `docs/openapi.yaml`.
    pub async fn post_local(&self, body: &serde_json::Value) -> reqwest::Response {
        let resp = self.client.post(self.url("/api/local")).json(body).send().await.expect("POST sent");
        crate::openapi::checked("POST", resp).await
    }

    /// The name shown in the header when logged in.
    pub async fn logged_in_name(&self) -> Option<String> {
        let html = self.get_html("/").await;
        let at = html.find(r#"<span class="user-name">"#)?;
        let rest = &html[at + r#"<span class="user-name">"#.len()..];
        Some(rest[..rest.find('<')?].to_string())
    }

    /// A new client without cookies, as another browser.
    pub fn new_browser(&self) -> TestApp {
        TestApp {
            address: self.address.clone(),
            port: self.port,
            db_pool: self.db_pool.clone(),
            db_url: self.db_url.clone(),
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .cookie_store(true)
                .build()
                .expect("client builds"),
            settings: self.settings.clone(),
            state: self.state.clone(),
        }
    }

    /// Number of accounts.
    pub async fn user_count(&self) -> i64 {
        chessgold::db::users::count(&self.db_pool).await.expect("count")
    }
}

/// The `location` header of a redirect.
pub fn location(resp: &reqwest::Response) -> String {
    resp.headers().get("location").and_then(|v| v.to_str().ok()).unwrap_or("").to_string()
}

/// Path of the `chessgold` binary built for the tests.
pub fn binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_chessgold"))
}
