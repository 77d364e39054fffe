//! Live games over real sockets: two (or more) clients play through the real application.
#![expect(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "test support code: a failed setup step should fail the test loudly"
)]

mod bots;
mod chat;
mod clocks;
mod first_move;
pub mod instances;
mod join;
mod offers;
mod page;
mod play;
mod protocol;
mod ratings;
mod restart;

use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use reqwest::cookie::{CookieStore, Jar};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use crate::helpers::scrape_csrf;

/// How long a test waits for a message it expects.
pub const WAIT: Duration = Duration::from_secs(15);

/// A browser: a cookie jar and an HTTP client against one instance.
#[derive(Debug, Clone)]
pub struct Browser {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// The client.
    pub http: reqwest::Client,
    jar: Arc<Jar>,
}

impl Browser {
    /// A browser with an empty jar.
    pub fn new(base: &str) -> Browser {
        let jar = Arc::new(Jar::default());
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .cookie_provider(jar.clone())
            .build()
            .unwrap();
        Browser { base: base.to_string(), http, jar }
    }

    /// The same cookies against another instance (a load balancer sends the player elsewhere).
    pub fn on(&self, base: &str) -> Browser {
        let b = Browser::new(base);
        let from = reqwest::Url::parse(&self.base).unwrap();
        let to = reqwest::Url::parse(base).unwrap();
        if let Some(h) = self.jar.cookies(&from) {
            for c in h.to_str().unwrap().split("; ") {
                b.jar.add_cookie_str(c, &to);
            }
        }
        b
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// GET a page's text.
    pub async fn html(&self, path: &str) -> String {
        self.http.get(self.url(path)).send().await.unwrap().text().await.unwrap()
    }

    /// POST a form with the CSRF token of `token_page`.
    pub async fn post_form(&self, token_page: &str, path: &str, fields: &[(&str, &str)]) -> reqwest::Response {
        let html = self.html(token_page).await;
        let token = scrape_csrf(&html).expect("a CSRF token");
        let mut all = vec![("csrf_token", token.as_str())];
        all.extend_from_slice(fields);
        self.http.post(self.url(path)).header("Origin", &self.base).form(&all).send().await.unwrap()
    }

    /// Signs up (and stays logged in).
    pub async fn signup(&self, name: &str) {
        let r = self.post_form("/signup", "/signup", &[("username", name), ("password", "password123")]).await;
        assert_eq!(r.status().as_u16(), 303, "sign-up of {name}");
    }

    /// Creates a game with the friend form; returns its id.
    pub async fn create(&self, variant: &str, time: &str, mode: &str, color: &str) -> String {
        let r = self
            .post_form(
                "/game/new",
                "/game/new",
                &[("variant", variant), ("time", time), ("mode", mode), ("color", color)],
            )
            .await;
        assert_eq!(r.status().as_u16(), 303, "{}", r.text().await.unwrap());
        let loc = r.headers().get("location").unwrap().to_str().unwrap().to_string();
        loc.trim_start_matches('/').to_string()
    }

    /// Joins a waiting game with the page's button.
    pub async fn join(&self, id: &str) {
        let r = self.post_form(&format!("/{id}"), &format!("/game/{id}/join"), &[]).await;
        assert_eq!(r.status().as_u16(), 303, "{}", r.text().await.unwrap());
        assert_eq!(r.headers().get("location").unwrap().to_str().unwrap(), format!("/{id}"));
    }

    /// Opens the game socket (with `?v=` when given).
    pub async fn socket(&self, id: &str, v: Option<i64>) -> Sock {
        let query = v.map(|v| format!("?v={v}")).unwrap_or_default();
        self.ws(&format!("/socket/game/{id}{query}")).await
    }

    /// POSTs JSON from this site's pages (with their Origin); an answer of the API is checked
    /// against `docs/openapi.yaml`.
    pub async fn post_json(&self, path: &str, body: &Value) -> reqwest::Response {
        let resp = self.http.post(self.url(path)).header("Origin", &self.base).json(body).send().await.unwrap();
        if path.starts_with("/api/") { crate::openapi::checked("POST", resp).await } else { resp }
    }

    /// Opens a WebSocket at `path` with this browser's cookies.
    pub async fn ws(&self, path: &str) -> Sock {
        let ws_base = self.base.replacen("http://", "ws://", 1);
        let mut req = format!("{ws_base}{path}").into_client_request().unwrap();
        if let Some(cookies) = self.jar.cookies(&reqwest::Url::parse(&self.base).unwrap()) {
            req.headers_mut().insert("cookie", cookies);
        }
        let (ws, _) = tokio_tungstenite::connect_async(req).await.expect("the socket opens");
        Sock { ws, seen: Vec::new(), backlog: std::collections::VecDeque::new(), next_ack: 0, state: None }
    }
}

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A game socket with its received messages.
#[derive(Debug)]
pub struct Sock {
    ws: Ws,
    /// Every message received so far.
    pub seen: Vec<Value>,
    /// Messages received but passed over by `until_match`, still to be read in order.
    backlog: std::collections::VecDeque<Value>,
    next_ack: u64,
    /// The engine's state as a client holds it: from the last `full`, then each `move` and
    /// `takeback` (whole, or its `patch` applied).
    state: Option<Value>,
}

impl Sock {
    /// Sends a JSON message.
    pub async fn send(&mut self, v: Value) {
        self.ws.send(Message::text(v.to_string())).await.unwrap();
    }

    /// Sends raw text.
    pub async fn send_text(&mut self, text: &str) {
        self.ws.send(Message::text(text.to_string())).await.unwrap();
    }

    /// The next JSON message (answering nothing itself).
    pub async fn next(&mut self) -> Value {
        if let Some(v) = self.backlog.pop_front() {
            return v;
        }
        self.read().await
    }

    /// Reads a received text as a client does: a `move` or `takeback` sent as a patch gets the
    /// state it leads to as `d.state` (applied with the `json-patch` crate, an implementation of
    /// RFC 6902 independent of the server's), beside its `patch`.
    fn take(&mut self, text: &str) -> Value {
        let mut v: Value = serde_json::from_str(text).unwrap();
        match v["t"].as_str() {
            Some("full") => self.state = Some(v["d"]["state"].clone()),
            Some("move" | "takeback") => {
                // A socket opened at the current version holds no state (its page has it).
                if let (Some(ops), Some(mut state)) = (v["d"].get("patch"), self.state.take()) {
                    let patch: json_patch::Patch = serde_json::from_value(ops.clone()).expect("a JSON Patch");
                    json_patch::patch(&mut state, &patch).unwrap_or_else(|e| panic!("the patch applies: {e}: {v}"));
                    v["d"]["state"] = state;
                }
                self.state = v["d"].get("state").cloned();
            }
            _ => {}
        }
        self.seen.push(v.clone());
        v
    }

    async fn read(&mut self) -> Value {
        loop {
            let frame = tokio::time::timeout(WAIT, self.ws.next()).await.expect("a message in time");
            match frame.expect("the socket is open").expect("a frame") {
                Message::Text(t) => return self.take(&t),
                Message::Close(c) => panic!("socket closed: {c:?}"),
                _ => {}
            }
        }
    }

    /// The first message of type `t` not yet read.
    pub async fn until(&mut self, t: &str) -> Value {
        self.until_match(|m| m["t"] == t).await
    }

    /// The first message not yet read that satisfies `pred`; the others stay to be read.
    pub async fn until_match(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&pred) {
            return self.backlog.remove(i).unwrap();
        }
        loop {
            let m = self.read().await;
            if pred(&m) {
                return m;
            }
            self.backlog.push_back(m);
        }
    }

    /// Whether the socket gets closed (or errors) within `WAIT`.
    pub async fn closed(&mut self) -> bool {
        loop {
            match tokio::time::timeout(WAIT, self.ws.next()).await {
                Err(_) => return false,
                Ok(None | Some(Err(_)) | Some(Ok(Message::Close(_)))) => return true,
                Ok(Some(Ok(Message::Text(t)))) => {
                    self.take(&t);
                }
                Ok(Some(Ok(_))) => {}
            }
        }
    }

    /// Closes the socket (as a tab that goes away).
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }

    /// Whether no message satisfying `pred` arrives for `dur` (the others are kept to be read).
    pub async fn none_for(&mut self, dur: Duration, pred: impl Fn(&Value) -> bool) -> bool {
        if self.backlog.iter().any(&pred) {
            return false;
        }
        let until = tokio::time::Instant::now() + dur;
        loop {
            match tokio::time::timeout_at(until, self.ws.next()).await {
                Err(_) => return true,
                Ok(Some(Ok(Message::Text(t)))) => {
                    let v = self.take(&t);
                    if pred(&v) {
                        return false;
                    }
                    self.backlog.push_back(v);
                }
                Ok(Some(Ok(_))) => {}
                Ok(_) => return true,
            }
        }
    }

    /// A new ack id.
    pub fn ack_id(&mut self) -> u64 {
        self.next_ack += 1;
        self.next_ack
    }

    /// Sends an action and waits for its ack (or error): returns the answer.
    pub async fn act(&mut self, action: &str, ply: usize) -> Value {
        let ack = self.ack_id();
        self.send(json!({"t": "action", "d": {"action": action, "ply": ply, "ack": ack}})).await;
        self.answer(ack).await
    }

    /// Sends a command (`resign`, `draw_yes`, ...) and waits for its ack or error.
    pub async fn command(&mut self, t: &str) -> Value {
        let ack = self.ack_id();
        self.send(json!({"t": t, "d": {"ack": ack}})).await;
        self.answer(ack).await
    }

    /// Waits for the ack or error of `ack`.
    pub async fn answer(&mut self, ack: u64) -> Value {
        self.until_match(|m| (m["t"] == "ack" && m["d"] == ack) || (m["t"] == "error" && m["d"]["ack"] == ack)).await
    }

    /// Waits for the `move` event of `seq`.
    pub async fn move_event(&mut self, seq: u64) -> Value {
        self.until_match(|m| m["t"] == "move" && m["d"]["seq"] == seq).await
    }
}

/// Plays `actions` alternately through the two players' sockets (white first), checking every
/// ack and that both sockets see every move.
pub async fn play_line(white: &mut Sock, black: &mut Sock, start_ply: usize, actions: &[&str]) {
    for (i, a) in actions.iter().enumerate() {
        let ply = start_ply + i;
        let (mover, other) =
            if ply.is_multiple_of(2) { (&mut *white, &mut *black) } else { (&mut *black, &mut *white) };
        let ans = mover.act(a, ply).await;
        assert_eq!(ans["t"], "ack", "{a} at ply {ply}: {ans}");
        let ev = mover.move_event(ply as u64 + 1).await;
        assert_eq!(ev["d"]["action"], *a);
        let ev2 = other.move_event(ply as u64 + 1).await;
        assert_eq!(ev2["v"], ev["v"]);
    }
}

/// Two guests: one creates a game with the friend form, the other joins; both open sockets.
pub async fn two_guests(base: &str, variant: &str, time: &str) -> (String, Browser, Browser, Sock, Sock) {
    let w = Browser::new(base);
    let b = Browser::new(base);
    let id = w.create(variant, time, "casual", "white").await;
    b.join(&id).await;
    let mut ws = w.socket(&id, None).await;
    let mut bs = b.socket(&id, None).await;
    let fw = ws.until("full").await;
    assert_eq!(fw["d"]["you"], "white");
    let fb = bs.until("full").await;
    assert_eq!(fb["d"]["you"], "black");
    (id, w, b, ws, bs)
}

/// The stored game row's status and winner.
pub async fn stored_result(pool: &sqlx::PgPool, id: &str) -> (i16, Option<String>, Option<String>) {
    let g = chessgold::db::games::find(pool, id).await.unwrap().unwrap();
    (g.status, g.winner, g.reason.map(|r| r.to_string()))
}
