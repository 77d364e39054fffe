//! `GET /socket/game/{id}?v=N`: the WebSocket of a game page. Each connection parses its frames
//! strictly, answers pings, limits its rate and chat flood, and passes everything else to the
//! game's round (`docs/api.md`, WebSocket).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use actix_web::{HttpRequest, HttpResponse, web};
use actix_ws::{CloseCode, CloseReason, Message};
use serde::Deserialize;
use tokio::sync::mpsc;

use super::GameId;
use super::identity::Identity;
use super::protocol::{self, ClientMsg};
use super::refusal::RefusalCode;
use super::round::{JoinError, JoinRequest, Msg};
use crate::broker::redis::SharedCounts;
use crate::db;
use crate::error::PageError;
use crate::middleware::origin_allowed_headers;
use crate::startup::AppState;

/// Messages queued for one socket before it counts as too slow and is dropped.
const SOCKET_QUEUE: usize = 512;

/// The query of the socket URL.
#[derive(Debug, Deserialize)]
pub struct SocketQuery {
    /// The room version the client has.
    #[serde(default)]
    v: Option<i32>,
}

/// Opens a game socket.
///
/// # Errors
/// 404 for a malformed id, 403 for another site's page, 400 for a request that is not a
/// WebSocket upgrade.
#[tracing::instrument(skip_all, fields(game.id = %path))]
pub async fn open(
    req: HttpRequest,
    body: web::Payload,
    path: web::Path<String>,
    query: web::Query<SocketQuery>,
    state: web::Data<AppState>,
    identity: Identity,
) -> Result<HttpResponse, actix_web::Error> {
    let id = GameId::parse(&path).ok_or(PageError::NotFound)?;
    if !origin_allowed_headers(&req, &state.public_origins) {
        return Err(PageError::CrossOrigin.into());
    }
    let slot = state.sockets.take(&req, state.trust_forwarded_for).await?;
    let (response, ws, stream) = actix_ws::handle(&req, body)?;
    let stream = stream.max_frame_size(state.game.max_frame_bytes);
    let serving = serve(state.into_inner(), id, identity, query.v, ws, stream);
    actix_web::rt::spawn(async move {
        serving.await;
        drop(slot);
    });
    Ok(response)
}

/// The most sockets (game and lobby) one client address holds open on an instance.
pub const SOCKETS_PER_ADDRESS: u64 = 100;

/// The open sockets per client address, to cap them ([`SOCKETS_PER_ADDRESS`]): this instance's,
/// and with Redis configured the other instances' too ([`SharedCounts`]).
#[derive(Debug, Default, Clone)]
pub struct SocketsPerAddress {
    open: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, u64>>>,
    shared: Option<SharedCounts>,
}

/// A socket's place among its address's: given back when dropped (the socket closed).
#[derive(Debug)]
pub struct SocketSlot {
    open: SocketsPerAddress,
    ip: std::net::IpAddr,
}

impl SocketsPerAddress {
    /// Counted across the instances that share this Redis.
    pub fn shared(counts: SharedCounts) -> SocketsPerAddress {
        SocketsPerAddress { open: Default::default(), shared: Some(counts) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<std::net::IpAddr, u64>> {
        self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A place for a socket of the request's address.
    ///
    /// # Errors
    /// 429 when the address holds [`SOCKETS_PER_ADDRESS`] sockets already (on every instance).
    pub async fn take(&self, req: &HttpRequest, trust_forwarded_for: bool) -> Result<SocketSlot, PageError> {
        let ip = crate::startup::client_ip(req, trust_forwarded_for);
        let elsewhere = match &self.shared {
            Some(s) => s.others(&ip.to_string()).await,
            None => 0,
        };
        let count = {
            let mut open = self.lock();
            let n = open.entry(ip).or_insert(0);
            if *n + elsewhere >= SOCKETS_PER_ADDRESS {
                if *n == 0 {
                    open.remove(&ip);
                }
                tracing::warn!(%ip, "socket refused: too many from one address");
                return Err(PageError::TooManyRequests { retry_after: 10 });
            }
            *n += 1;
            *n
        };
        self.publish(ip, count);
        Ok(SocketSlot { open: self.clone(), ip })
    }

    /// Writes this instance's count of `ip` to Redis, off the caller's path.
    fn publish(&self, ip: std::net::IpAddr, count: u64) {
        if let Some(s) = self.shared.clone() {
            tokio::spawn(async move { s.set(&ip.to_string(), count).await });
        }
    }

    /// Writes every count again (the housekeeping task, well within [`crate::broker::redis::STALE_MS`]).
    pub async fn refresh(&self) {
        let Some(s) = &self.shared else { return };
        let counts: Vec<_> = self.lock().iter().map(|(ip, n)| (*ip, *n)).collect();
        for (ip, n) in counts {
            s.set(&ip.to_string(), n).await;
        }
    }

    /// How many sockets the address holds open on this instance.
    pub fn of(&self, ip: std::net::IpAddr) -> u64 {
        self.lock().get(&ip).copied().unwrap_or(0)
    }
}

impl Drop for SocketSlot {
    fn drop(&mut self) {
        let left = {
            let mut open = self.open.lock();
            let Some(n) = open.get_mut(&self.ip) else { return };
            *n = n.saturating_sub(1);
            let left = *n;
            if left == 0 {
                open.remove(&self.ip);
            }
            left
        };
        self.open.publish(self.ip, left);
    }
}

async fn serve(
    state: std::sync::Arc<AppState>,
    id: GameId,
    identity: Identity,
    since: Option<i32>,
    mut ws: actix_ws::Session,
    mut stream: actix_ws::MessageStream,
) {
    let cfg = state.game.clone();
    let conn = state.rounds.next_id();
    let (tx, mut rx) = mpsc::channel::<String>(SOCKET_QUEUE);
    // A BOT account plays through the BOT API only: its browser watches, as a spectator.
    let bot = match &identity.user {
        Some(u) => db::users::is_bot(&state.pool, u.id).await.unwrap_or_else(|e| {
            tracing::warn!(error = format!("{e:#}"), "reading whether a socket's account is a BOT");
            false
        }),
        None => false,
    };
    let request = JoinRequest {
        who: if bot { Vec::new() } else { identity.candidates() },
        name: identity.user.as_ref().map_or_else(|| "Anonymous".to_string(), |u| u.name.clone()),
        user_id: identity.user.as_ref().map(|u| u.id),
        since,
        tx,
    };
    let (round, _seat) = match state.rounds.join(&id, conn, request).await {
        Ok(joined) => joined,
        Err(e) => {
            let (code, text) = match e {
                JoinError::NotFound => (RefusalCode::NotFound, "there is no such game"),
                JoinError::Gone => (RefusalCode::Unavailable, "the game is not available; reconnect"),
            };
            let _ = ws.text(protocol::error(code, text, None)).await;
            let _ = ws.close(Some(CloseReason { code: CloseCode::Normal, description: None })).await;
            return;
        }
    };
    let mut limiter = Bucket::new(cfg.messages_per_second, cfg.messages_burst);
    let mut chat_times: VecDeque<Instant> = VecDeque::new();
    let chat_window = Duration::from_secs(cfg.chat_window_secs);
    let idle = Duration::from_secs(cfg.socket_idle_secs);
    let mut last_heard = Instant::now();
    let mut check = tokio::time::interval(Duration::from_secs(1));
    let mut close: Option<CloseReason> = None;
    let mut news = state.users.listen();
    let account = identity.user.as_ref().map(|u| u.id);
    loop {
        tokio::select! {
            why = crate::notify::signed_out(&mut news, account, identity.session) => {
                close = Some(CloseReason { code: CloseCode::Policy, description: Some(why.into()) });
                break;
            }
            out = rx.recv() => match out {
                Some(text) => if ws.text(text).await.is_err() { break },
                // The round dropped this connection (too slow) or stopped.
                None => { close = Some(CloseReason { code: CloseCode::Again, description: None }); break }
            },
            frame = stream.recv() => match incoming(&mut ws, frame, &mut last_heard).await {
                Incoming::End(reason) => { close = reason; break }
                Incoming::Handled => {}
                Incoming::Text(text) => {
                    if !limiter.take() {
                        // Answer the action's ack, so its sender knows to resend it later.
                        let ack = if text.len() <= cfg.max_message_bytes { protocol::parse(&text).ok().and_then(|m| m.ack()) } else { None };
                        if ws.text(protocol::error(RefusalCode::RateLimited, "too many messages; slow down", ack)).await.is_err() { break }
                        continue;
                    }
                    if text.len() > cfg.max_message_bytes {
                        let m = format!("a message has at most {} bytes", cfg.max_message_bytes);
                        if ws.text(protocol::error(RefusalCode::TooLarge, &m, None)).await.is_err() { break }
                        continue;
                    }
                    let msg = match protocol::parse(&text) {
                        Ok(m) => m,
                        Err(e) => {
                            if ws.text(protocol::error(e.code, &e.message, e.ack)).await.is_err() { break }
                            continue;
                        }
                    };
                    if let ClientMsg::Chat { ack, .. } = &msg {
                        while chat_times.front().is_some_and(|t| t.elapsed() >= chat_window) {
                            chat_times.pop_front();
                        }
                        if chat_times.len() >= cfg.chat_lines_per_window {
                            let m = format!("at most {} lines per {} s", cfg.chat_lines_per_window, cfg.chat_window_secs);
                            if ws.text(protocol::error(RefusalCode::ChatFlood, &m, *ack)).await.is_err() { break }
                            continue;
                        }
                        chat_times.push_back(Instant::now());
                    }
                    let cmd = if msg == ClientMsg::Ping {
                        if ws.text(protocol::msg("pong", serde_json::Value::Null)).await.is_err() { break }
                        Msg::Alive { conn }
                    } else {
                        Msg::Client { conn, msg }
                    };
                    if round.send(cmd).await.is_err() {
                        close = Some(CloseReason { code: CloseCode::Again, description: None });
                        break;
                    }
                }
            },
            _ = check.tick() => {
                if last_heard.elapsed() >= idle {
                    close = Some(CloseReason { code: CloseCode::Away, description: Some("idle".into()) });
                    break;
                }
            }
        }
    }
    let _ = round.send(Msg::Leave { conn }).await;
    let _ = ws.close(close).await;
}

/// A received frame after the handling every socket shares.
#[derive(Debug)]
pub enum Incoming {
    /// A text message for the socket to read.
    Text(String),
    /// Nothing more to do with this frame.
    Handled,
    /// The connection ends, with this close reason.
    End(Option<CloseReason>),
}

/// The frame handling of every socket: a protocol error (an oversized or broken frame) is
/// answered and ends the connection, binary frames are refused, pings answered, a close ends it;
/// any frame counts as a sign of life.
pub async fn incoming(
    ws: &mut actix_ws::Session,
    frame: Option<Result<Message, actix_ws::ProtocolError>>,
    last_heard: &mut Instant,
) -> Incoming {
    let message = match frame {
        None => return Incoming::End(None),
        Some(Err(e)) => {
            let overflow = matches!(e, actix_ws::ProtocolError::Overflow);
            let (code, why) = if overflow {
                (RefusalCode::TooLarge, CloseCode::Size)
            } else {
                (RefusalCode::Malformed, CloseCode::Protocol)
            };
            let _ = ws.text(protocol::error(code, &e.to_string(), None)).await;
            return Incoming::End(Some(CloseReason { code: why, description: None }));
        }
        Some(Ok(m)) => m,
    };
    *last_heard = Instant::now();
    let sent = match message {
        Message::Text(text) => return Incoming::Text(text.to_string()),
        Message::Binary(_) => ws.text(protocol::error(RefusalCode::Malformed, "send text frames", None)).await,
        Message::Ping(bytes) => ws.pong(&bytes).await,
        Message::Close(_) => return Incoming::End(None),
        _ => Ok(()),
    };
    if sent.is_err() { Incoming::End(None) } else { Incoming::Handled }
}

/// A token bucket on the monotonic clock: `burst` tokens, refilled at `per_second`.
#[derive(Debug)]
pub struct Bucket {
    tokens: f64,
    burst: f64,
    per_second: f64,
    at: Instant,
}

impl Bucket {
    pub fn new(per_second: u32, burst: u32) -> Bucket {
        let burst = f64::from(burst.max(1));
        Bucket { tokens: burst, burst, per_second: f64::from(per_second.max(1)), at: Instant::now() }
    }

    /// Takes a token when one is there.
    pub fn take(&mut self) -> bool {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.at).as_secs_f64() * self.per_second).min(self.burst);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Bucket;

    #[test]
    fn a_burst_then_nothing_until_refilled() {
        let mut b = Bucket::new(1, 3);
        assert!(b.take() && b.take() && b.take());
        assert!(!b.take());
    }
}
