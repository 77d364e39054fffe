//! The apps and their players: instances of the real application built in this process on the
//! private services, and browsers (a cookie jar, the friend form, the game socket).

use std::sync::Arc;
use std::time::Duration;

use chessgold::settings::Settings;
use chessgold::startup::Application;
use futures_util::{SinkExt, StreamExt};
use reqwest::cookie::{CookieStore, Jar};
use secrecy::SecretString;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use crate::services::{Postgres, Redis};

/// How long a test waits for a message it expects (an outage drill included).
pub const WAIT: Duration = Duration::from_secs(30);

/// An instance of the application on the private services; `http://127.0.0.1:PORT`.
pub async fn instance(pg: &Postgres, redis: &Redis, adjust: impl FnOnce(&mut Settings)) -> String {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut s = Settings::load_from(&root.join("config"), Some("test")).expect("test settings load");
    s.database.url = SecretString::from(pg.url());
    s.redis.url = SecretString::from(redis.url());
    s.redis.key_prefix = "cgfaults:".into();
    s.application.port = 0;
    s.application.static_dir = root.join("static");
    adjust(&mut s);
    let app = Application::build(s).await.expect("the app builds");
    let port = app.port();
    tokio::spawn(app.run_until_stopped());
    format!("http://127.0.0.1:{port}")
}

/// A browser: a cookie jar against one instance.
#[derive(Debug, Clone)]
pub struct Browser {
    base: String,
    http: reqwest::Client,
    jar: Arc<Jar>,
}

fn csrf(html: &str) -> String {
    let key = r#"name="csrf_token" value=""#;
    let at = html.find(key).expect("a CSRF token") + key.len();
    html[at..at + html[at..].find('"').expect("its end")].to_string()
}

impl Browser {
    /// A browser with an empty jar.
    pub fn new(base: &str) -> Browser {
        let jar = Arc::new(Jar::default());
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .cookie_provider(jar.clone())
            .build()
            .expect("a client");
        Browser { base: base.to_string(), http, jar }
    }

    async fn post_form(&self, token_page: &str, path: &str, fields: &[(&str, &str)]) -> reqwest::Response {
        let html = self.http.get(format!("{}{token_page}", self.base)).send().await.expect("GET").text().await;
        let token = csrf(&html.expect("a page"));
        let mut all = vec![("csrf_token", token.as_str())];
        all.extend_from_slice(fields);
        self.http
            .post(format!("{}{path}", self.base))
            .header("Origin", &self.base)
            .form(&all)
            .send()
            .await
            .expect("POST")
    }

    /// The same cookies against another instance (a load balancer sends the player elsewhere).
    pub fn on(&self, base: &str) -> Browser {
        let b = Browser::new(base);
        let from = reqwest::Url::parse(&self.base).expect("a URL");
        let to = reqwest::Url::parse(base).expect("a URL");
        if let Some(h) = self.jar.cookies(&from) {
            for c in h.to_str().expect("cookies are text").split("; ") {
                b.jar.add_cookie_str(c, &to);
            }
        }
        b
    }

    /// Signs up (and stays signed in).
    pub async fn signup(&self, name: &str) {
        let r = self.post_form("/signup", "/signup", &[("username", name), ("password", "password123")]).await;
        assert_eq!(r.status().as_u16(), 303, "sign-up of {name}");
    }

    /// Challenges `name` from their profile (standard, 5+3, casual).
    pub async fn challenge(&self, name: &str) -> reqwest::Response {
        let fields = [("variant", "standard"), ("time", "5+3"), ("mode", "casual"), ("color", "white")];
        self.post_form(&format!("/@/{name}"), &format!("/@/{name}/challenge"), &fields).await
    }

    /// Opens the account's event stream (`/api/stream/event`, with the session).
    pub async fn event_stream(&self) -> Events {
        let resp = self.http.get(format!("{}/api/stream/event", self.base)).send().await.expect("the stream opens");
        assert_eq!(resp.status().as_u16(), 200, "the event stream");
        Events { resp, buf: String::new() }
    }

    /// Creates a friend game as white; returns its id.
    pub async fn create(&self, time: &str) -> String {
        let fields = [("variant", "standard"), ("time", time), ("mode", "casual"), ("color", "white")];
        let r = self.post_form("/game/new", "/game/new", &fields).await;
        assert_eq!(r.status().as_u16(), 303, "the game is created");
        let loc = r.headers().get("location").expect("a location").to_str().expect("text");
        loc.trim_start_matches('/').to_string()
    }

    /// Joins a waiting game.
    pub async fn join(&self, id: &str) {
        let r = self.post_form(&format!("/{id}"), &format!("/game/{id}/join"), &[]).await;
        assert_eq!(r.status().as_u16(), 303, "joined");
    }

    /// A page's HTML.
    pub async fn page(&self, path: &str) -> String {
        let r = self.http.get(format!("{}{path}", self.base)).send().await.expect("GET");
        r.text().await.expect("a page")
    }

    /// POSTs JSON from this site's pages (with their Origin).
    pub async fn post_json(&self, path: &str, body: &Value) -> reqwest::Response {
        self.http
            .post(format!("{}{path}", self.base))
            .header("Origin", &self.base)
            .json(body)
            .send()
            .await
            .expect("POST")
    }

    /// Opens the game socket; `v` is the room version the client has.
    pub async fn socket(&self, id: &str, v: Option<i64>) -> Sock {
        let query = v.map(|v| format!("?v={v}")).unwrap_or_default();
        self.ws(&format!("/socket/game/{id}{query}")).await
    }

    /// Opens a socket at `path` (the game's, the lobby's) with this browser's cookies.
    pub async fn ws(&self, path: &str) -> Sock {
        let url = format!("{}{path}", self.base.replacen("http://", "ws://", 1));
        let mut req = url.into_client_request().expect("a socket request");
        let base = reqwest::Url::parse(&self.base).expect("a URL");
        if let Some(cookies) = self.jar.cookies(&base) {
            req.headers_mut().insert("cookie", cookies);
        }
        let (ws, _) = tokio_tungstenite::connect_async(req).await.expect("the socket opens");
        Sock { ws, backlog: std::collections::VecDeque::new(), next_ack: 0 }
    }
}

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A game socket.
#[derive(Debug)]
pub struct Sock {
    ws: Ws,
    backlog: std::collections::VecDeque<Value>,
    next_ack: u64,
}

impl Sock {
    /// Sends a JSON message.
    pub async fn send(&mut self, v: Value) {
        self.ws.send(Message::text(v.to_string())).await.expect("sent");
    }

    async fn read(&mut self) -> Value {
        loop {
            let frame = tokio::time::timeout(WAIT, self.ws.next()).await.expect("a message in time");
            match frame.expect("the socket is open").expect("a frame") {
                Message::Text(t) => return serde_json::from_str(&t).expect("JSON"),
                Message::Close(c) => panic!("socket closed: {c:?}"),
                _ => {}
            }
        }
    }

    /// Forgets the messages not yet read that satisfy `pred` (old news).
    pub fn forget(&mut self, pred: impl Fn(&Value) -> bool) {
        self.backlog.retain(|m| !pred(m));
    }

    /// The first message not yet read that satisfies `pred`; the others stay to be read.
    pub async fn until_match(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&pred) {
            return self.backlog.remove(i).expect("there");
        }
        loop {
            let m = self.read().await;
            if pred(&m) {
                return m;
            }
            self.backlog.push_back(m);
        }
    }

    /// The first message of type `t` not yet read.
    pub async fn until(&mut self, t: &str) -> Value {
        self.until_match(|m| m["t"] == t).await
    }

    /// Sends an action and waits for its ack or error.
    pub async fn act(&mut self, action: &str, ply: usize) -> Value {
        self.next_ack += 1;
        let ack = self.next_ack;
        self.send(json!({"t": "action", "d": {"action": action, "ply": ply, "ack": ack}})).await;
        self.until_match(|m| (m["t"] == "ack" && m["d"] == ack) || (m["t"] == "error" && m["d"]["ack"] == ack)).await
    }

    /// Sends a command (`rematch_yes`, ...) and waits for its ack or error.
    pub async fn command(&mut self, t: &str) -> Value {
        self.next_ack += 1;
        let ack = self.next_ack;
        self.send(json!({"t": t, "d": {"ack": ack}})).await;
        self.until_match(|m| (m["t"] == "ack" && m["d"] == ack) || (m["t"] == "error" && m["d"]["ack"] == ack)).await
    }

    /// Waits for the `move` event of `seq`.
    pub async fn move_event(&mut self, seq: u64) -> Value {
        self.until_match(|m| m["t"] == "move" && m["d"]["seq"] == seq).await
    }
}

/// The actions stored for a game, in order.
pub async fn stored_actions(pool: &sqlx::PgPool, id: &str) -> Vec<String> {
    chessgold::db::games::actions(pool, id).await.expect("the actions read").into_iter().map(|a| a.action).collect()
}

/// An open event stream (NDJSON).
#[derive(Debug)]
pub struct Events {
    resp: reqwest::Response,
    buf: String,
}

impl Events {
    /// The next event (keep-alive newlines skipped), waiting at most [`WAIT`].
    pub async fn next(&mut self) -> Value {
        loop {
            if let Some(at) = self.buf.find('\n') {
                let line: String = self.buf.drain(..=at).collect();
                if line.trim().is_empty() {
                    continue;
                }
                return serde_json::from_str(line.trim()).expect("an event is JSON");
            }
            let chunk = tokio::time::timeout(WAIT, self.resp.chunk()).await.expect("an event in time");
            let chunk = chunk.expect("the stream reads").expect("the stream stays open");
            self.buf.push_str(std::str::from_utf8(&chunk).expect("UTF-8"));
        }
    }
}
