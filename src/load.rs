//! `chessgold load`: a load generator over the real site. Pairs of guests create a friend game
//! with the site's own forms, join it, open the real game sockets and play random legal moves
//! (the engine picks them) at a set total rate, with think times drawn around the mean (or as
//! fast as the acknowledgements come back). A finished game is followed by a new one. It prints a
//! progress line while it runs, then moves per second, the acknowledgement latency
//! (p50/p95/p99/max), the opponent's receive latency, the sockets, the errors, and, given the
//! database, whether every acknowledged move is stored.
//!
//! With several URLs (instances behind one database and Redis) white plays on one and black on
//! the next; a socket that closes (an instance restarted) is opened again, on the next instance
//! while its own does not answer, and a move whose answer was lost is sent again unless the game
//! shows it played, so a rolling restart can be played through. Idle games (`idle_games`) hold
//! their sockets and ping beside the playing ones. Nothing here is timed by a test: speed figures
//! go to `docs/benchmarks.md`.

use std::collections::HashMap;
use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use chessgold_engine::registry::variant;
use futures_util::{SinkExt, StreamExt};
use reqwest::cookie::{CookieStore, Jar};
use serde_json::{Value, json};
use tokio::sync::{Mutex, mpsc};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// How long the tool waits for any one answer of the server.
const ANSWER_WITHIN: Duration = Duration::from_secs(30);
/// A game longer than this many plies is left for a new one.
const MAX_PLIES: usize = 160;

/// What to run.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    /// The instances (`http://127.0.0.1:8080`); white plays on one, black on the next.
    pub urls: Vec<String>,
    /// Games played at once (two players, two sockets each).
    pub games: usize,
    /// The total moves per second to aim at; `None`: as fast as the acknowledgements come.
    pub rate: Option<f64>,
    /// How long to play.
    pub duration: Duration,
    /// The variant played.
    pub variant: String,
    /// Idle games held besides: each is created, both players make their first move, then they
    /// keep their two sockets open and ping (as an idle browser does) until the end of the run.
    pub idle_games: usize,
    /// How the two players of a game find each other.
    pub pairing: Pairing,
    /// Print the progress line.
    pub progress: bool,
}

/// How the players of a game are paired: each way goes through the site's own requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Pairing {
    /// A guest creates a game for a friend with the form and the other joins it by its link.
    #[default]
    Friend,
    /// A guest posts a seek in the lobby (its lobby socket open) and the other accepts it.
    Seek,
    /// Both guests wait in a quick-pairing pool, their lobby sockets open, until the matcher
    /// pairs them (one pair per pool at a time, so that each pair meets as it came).
    Pool,
    /// A signed-up player (one account per game slot, kept for the run) sends an open challenge
    /// and a guest accepts it on the challenge's page.
    Challenge,
}

/// The clocks of the pools the tool waits in: long enough that no random game runs out of time.
const POOL_CLOCKS: [&str; 7] = ["5+0", "5+3", "10+0", "10+5", "15+10", "30+0", "30+20"];

/// What a run measured.
#[derive(Debug, Clone, Default)]
pub struct LoadReport {
    /// Moves acknowledged.
    pub moves: u64,
    /// Over how long.
    pub elapsed: Duration,
    /// Acknowledgement latencies, microseconds, sorted.
    pub ack_us: Vec<u64>,
    /// From sending a move to the opponent's socket receiving it, microseconds, sorted.
    pub receive_us: Vec<u64>,
    /// Games started.
    pub games: u64,
    /// Sockets opened.
    pub sockets: u64,
    /// Sockets opened again after they closed (an instance restarted).
    pub reconnects: u64,
    /// `move` events received by the players' sockets.
    pub move_events: u64,
    /// Their bytes (the text as sent: with the state's patch, or the whole state).
    pub move_bytes: u64,
    /// Idle sockets held until the end of the run (of `2 x idle_games`).
    pub idle_held: u64,
    /// Errors (refusals, lost connections, answers that did not come), with a sample.
    pub errors: Vec<String>,
    /// The acknowledged moves per game, for [`verify`].
    pub acked: HashMap<String, usize>,
}

impl LoadReport {
    /// Moves per second over the run.
    pub fn rate(&self) -> f64 {
        self.moves as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// The summary lines.
    pub fn summary(&self) -> String {
        let ms = |v: &[u64], q: f64| -> String {
            if v.is_empty() {
                return "-".into();
            }
            let i = ((v.len() as f64 - 1.0) * q).round() as usize;
            format!("{:.1}", v[i.min(v.len() - 1)] as f64 / 1000.0)
        };
        let line = |name: &str, v: &[u64]| {
            format!("{name} ms: p50 {} p95 {} p99 {} max {}", ms(v, 0.5), ms(v, 0.95), ms(v, 0.99), ms(v, 1.0))
        };
        let mut out = format!(
            "moves {} in {:.1} s: {:.0} moves/s; games {}, sockets {} ({} reopened, {} idle held to the end), errors {}\n{}\n{}\nmove events received {}, {:.0} bytes each on average\n",
            self.moves,
            self.elapsed.as_secs_f64(),
            self.rate(),
            self.games,
            self.sockets,
            self.reconnects,
            self.idle_held,
            self.errors.len(),
            line("ack", &self.ack_us),
            line("opponent receives", &self.receive_us),
            self.move_events,
            self.move_bytes as f64 / self.move_events.max(1) as f64,
        );
        for e in self.errors.iter().take(5) {
            out.push_str(&format!("error: {e}\n"));
        }
        out
    }
}

/// The shared tallies of a run.
#[derive(Debug, Default)]
struct Tally {
    moves: AtomicU64,
    games: AtomicU64,
    sockets: AtomicU64,
    idle_held: AtomicU64,
    idle_open: AtomicU64,
    reconnects: AtomicU64,
    /// `move` events received, and their bytes (shared with the sockets' reading tasks).
    move_events: Arc<(AtomicU64, AtomicU64)>,
    ack_us: Mutex<Vec<u64>>,
    receive_us: Mutex<Vec<u64>>,
    errors: Mutex<Vec<String>>,
    acked: Mutex<HashMap<String, usize>>,
    /// One pair at a time in each of [`POOL_CLOCKS`]' pools.
    pools: [Mutex<()>; POOL_CLOCKS.len()],
}

/// A small random number generator (xorshift), seeded from the system.
struct Rng(u64);

impl Rng {
    fn new() -> Rng {
        let mut b = [0u8; 8];
        let _ = getrandom::fill(&mut b);
        Rng(u64::from_le_bytes(b) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A think time around `mean` (exponential).
    fn think(&mut self, mean: Duration) -> Duration {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        mean.mul_f64(-(1.0 - u).ln().min(8.0))
    }
}

/// A guest's browser: a cookie jar against one instance.
struct Guest {
    base: String,
    http: reqwest::Client,
    jar: Arc<Jar>,
    from: Option<std::net::IpAddr>,
    /// The account it is signed in as, if any.
    name: Option<String>,
}

fn csrf(html: &str) -> anyhow::Result<String> {
    let key = r#"name="csrf_token" value=""#;
    let at = html.find(key).context("no CSRF token on the page")? + key.len();
    let end = html[at..].find('"').context("a CSRF token without its end")?;
    Ok(html[at..at + end].to_string())
}

/// The address a game slot's players connect from: against a loopback server, each slot its own
/// `127.x.y.z` (Linux answers the whole 127/8), so that the site's limits per address (100
/// sockets) are not what the run measures; elsewhere the system's choice.
fn source_address(base: &str, slot: usize) -> Option<std::net::IpAddr> {
    let host = reqwest::Url::parse(base).ok()?.host_str()?.to_string();
    if host != "127.0.0.1" && host != "localhost" {
        return None;
    }
    let n = u32::try_from(slot).ok()? + 2;
    Some(std::net::IpAddr::V4(std::net::Ipv4Addr::from(0x7f00_0000 | (n & 0x00ff_ffff))))
}

impl Guest {
    fn new(base: &str, from: Option<std::net::IpAddr>) -> anyhow::Result<Guest> {
        let jar = Arc::new(Jar::default());
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .cookie_provider(jar.clone())
            .timeout(ANSWER_WITHIN)
            // An idle game's guests hold only their socket: their HTTP connection is let go
            // (thousands of idle games would otherwise hold twice the connections).
            .pool_idle_timeout(Duration::from_secs(5))
            .local_address(from)
            .build()
            .context("an HTTP client")?;
        Ok(Guest { base: base.trim_end_matches('/').to_string(), http, jar, from, name: None })
    }

    /// Sends a form of `page` (its CSRF token read first) to `path` on `base`; the redirect.
    async fn form_on(&self, base: &str, page: &str, path: &str, fields: &[(&str, &str)]) -> Result<String, FormError> {
        let html = self.http.get(format!("{base}{page}")).send().await?.text().await?;
        let token = csrf(&html).map_err(FormError::Refused)?;
        let mut all = vec![("csrf_token", token.as_str())];
        all.extend_from_slice(fields);
        let r = self.http.post(format!("{base}{path}")).header("Origin", base).form(&all).send().await?;
        if r.status().as_u16() != 303 {
            return Err(FormError::Refused(anyhow::anyhow!("{path}: {}", r.status())));
        }
        Ok(r.headers().get("location").and_then(|l| l.to_str().ok()).unwrap_or_default().to_string())
    }

    /// Sends a form on this guest's instance, or on the others in turn while an instance does not
    /// answer (one being restarted): the answer's redirect.
    async fn form(&self, urls: &[String], page: &str, path: &str, fields: &[(&str, &str)]) -> anyhow::Result<String> {
        let deadline = Instant::now() + ANSWER_WITHIN;
        let mut at = urls.iter().position(|u| u.trim_end_matches('/') == self.base).unwrap_or(0);
        loop {
            let base = urls.get(at).map_or(self.base.as_str(), |u| u.trim_end_matches('/'));
            match self.form_on(base, page, path, fields).await {
                Ok(location) => return Ok(location),
                Err(FormError::Refused(e)) => return Err(e),
                Err(FormError::Unreachable(e)) if Instant::now() >= deadline => {
                    return Err(anyhow::Error::new(e).context(format!("{path}: no instance answers")));
                }
                Err(FormError::Unreachable(_)) => {
                    at = (at + 1) % urls.len().max(1);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    }

    /// Opens the game's socket on `base`: its sender, and its messages with the time each
    /// arrived.
    async fn socket(
        &self,
        base: &str,
        id: &str,
        tally: &Tally,
    ) -> anyhow::Result<(WsSink, mpsc::Receiver<(Instant, Value)>)> {
        self.ws(base, &format!("/socket/game/{id}"), tally).await
    }

    /// Opens the WebSocket at `path` on `base`, with this guest's cookies and address.
    async fn ws(
        &self,
        base: &str,
        path: &str,
        tally: &Tally,
    ) -> anyhow::Result<(WsSink, mpsc::Receiver<(Instant, Value)>)> {
        let url = format!("{}{path}", base.replacen("http", "ws", 1));
        let mut req = url.into_client_request()?;
        let base = reqwest::Url::parse(base)?;
        if let Some(cookies) = self.jar.cookies(&base) {
            req.headers_mut().insert("cookie", cookies);
        }
        let (ws, _) = match self.from {
            None => tokio_tungstenite::connect_async(req).await.context("opening a socket")?,
            Some(from) => {
                let port = base.port_or_known_default().context("a port")?;
                let host = base.host_str().context("a host")?;
                let to = tokio::net::lookup_host((host, port)).await?.find(std::net::SocketAddr::is_ipv4);
                let socket = tokio::net::TcpSocket::new_v4()?;
                socket.bind(std::net::SocketAddr::new(from, 0))?;
                let stream = socket.connect(to.context("an IPv4 address")?).await?;
                let _ = stream.set_nodelay(true);
                let stream = tokio_tungstenite::MaybeTlsStream::Plain(stream);
                tokio_tungstenite::client_async(req, stream).await.context("opening a socket")?
            }
        };
        tally.sockets.fetch_add(1, Ordering::Relaxed);
        let (sink, mut stream) = ws.split();
        let (tx, rx) = mpsc::channel(1024);
        let moves = tally.move_events.clone();
        tokio::spawn(async move {
            while let Some(Ok(msg)) = stream.next().await {
                let Message::Text(text) = msg else { continue };
                let Some(v) = light(&text) else { continue };
                if v["t"] == "move" {
                    moves.0.fetch_add(1, Ordering::Relaxed);
                    moves.1.fetch_add(text.len() as u64, Ordering::Relaxed);
                }
                if tx.send((Instant::now(), v)).await.is_err() {
                    break;
                }
            }
        });
        Ok((sink, rx))
    }
}

impl Guest {
    /// Opens this guest's lobby socket on its instance (after a first page, which gives it its
    /// cookies): the socket id (`sri`), its sender and its messages.
    async fn lobby(&self, tally: &Tally) -> anyhow::Result<(String, WsSink, mpsc::Receiver<(Instant, Value)>)> {
        self.http.get(format!("{}/", self.base)).send().await?.error_for_status()?;
        let sri = format!("load{:016x}", Rng::new().next());
        let (sink, rx) = self.ws(&self.base, &format!("/socket/lobby?sri={sri}"), tally).await?;
        Ok((sri, sink, rx))
    }

    /// POSTs JSON to a lobby request of this guest's instance, as the home page does; the answer.
    async fn lobby_post(&self, path: &str, body: &Value) -> anyhow::Result<Value> {
        let r = self.http.post(format!("{}{path}", self.base)).header("Origin", &self.base).json(body).send().await?;
        let status = r.status();
        let answer: Value = r.json().await.with_context(|| format!("{path}: {status}, not JSON"))?;
        if !status.is_success() {
            bail!("{path}: {status} {answer}");
        }
        Ok(answer)
    }

    /// Signs up a new account with the site's form: this client is signed in as it afterwards.
    async fn sign_up(&mut self, urls: &[String], name: &str) -> anyhow::Result<()> {
        let password = format!("load-{:016x}", Rng::new().next());
        self.form(urls, "/signup", "/signup", &[("username", name), ("password", &password)]).await?;
        self.name = Some(name.to_string());
        Ok(())
    }
}

/// The game a lobby socket is sent to (`redirect`).
async fn redirected(rx: &mut mpsc::Receiver<(Instant, Value)>) -> anyhow::Result<String> {
    match until(rx, |m| m["t"] == "redirect").await? {
        Wait::Got(_, m) => m["d"]["id"].as_str().map(str::to_string).context("a redirect without its game"),
        Wait::Closed => bail!("the lobby socket closed before its game started"),
    }
}

/// Pairs two players the way `cfg.pairing` says (for a challenge, `first` is the slot's account):
/// the game's id, and whether the colours were drawn (else `first` has white).
async fn pair(
    cfg: &LoadConfig,
    first: &Guest,
    second: &Guest,
    slot: usize,
    tally: &Tally,
) -> anyhow::Result<(String, bool)> {
    let urls = &cfg.urls;
    let variant = cfg.variant.as_str();
    Ok(match cfg.pairing {
        Pairing::Friend => {
            let fields = [("variant", variant), ("time", "10+5"), ("mode", "casual"), ("color", "white")];
            let id = first.form(urls, "/game/new", "/game/new", &fields).await?.trim_start_matches('/').to_string();
            second.form(urls, &format!("/{id}"), &format!("/game/{id}/join"), &[]).await?;
            (id, false)
        }
        Pairing::Seek => {
            let (sri, _sink, mut rx) = first.lobby(tally).await?;
            let seek = json!({"sri": sri, "variant": variant, "time": "10+5", "mode": "casual", "color": "white"});
            let seek = first.lobby_post("/api/lobby/seek", &seek).await?;
            let seek_id = seek["id"].as_str().context("a seek without its id")?;
            let (sri2, _sink2, _rx2) = second.lobby(tally).await?;
            let accepted =
                second.lobby_post(&format!("/api/lobby/seek/{seek_id}/accept"), &json!({"sri": sri2})).await?;
            let id = accepted["game"].as_str().context("an accepted seek without its game")?.to_string();
            // The seek's owner is sent to the game too.
            if redirected(&mut rx).await? != id {
                bail!("the seek's owner was sent to another game than {id}");
            }
            (id, false)
        }
        Pairing::Pool => {
            // One pair at a time in a pool: a free one if any, else this slot's.
            let locks = &tally.pools;
            let mut held = None;
            for i in 0..locks.len() {
                let at = (slot + i) % locks.len();
                if let Ok(guard) = locks[at].try_lock() {
                    held = Some((at, guard));
                    break;
                }
            }
            let (at, _guard) = match held {
                Some(h) => h,
                None => (slot % locks.len(), locks[slot % locks.len()].lock().await),
            };
            let (sri, _sink, mut rx) = first.lobby(tally).await?;
            let (sri2, _sink2, mut rx2) = second.lobby(tally).await?;
            let time = POOL_CLOCKS[at];
            first.lobby_post("/api/lobby/pool/join", &json!({"sri": sri, "variant": variant, "time": time})).await?;
            second.lobby_post("/api/lobby/pool/join", &json!({"sri": sri2, "variant": variant, "time": time})).await?;
            let (a, b) = (redirected(&mut rx).await?, redirected(&mut rx2).await?);
            if a != b {
                bail!("the pool paired the two players into different games ({a}, {b})");
            }
            // The pool draws the colours.
            (a, true)
        }
        Pairing::Challenge => {
            let fields = [("variant", variant), ("time", "10+5"), ("mode", "casual"), ("color", "white")];
            // The open challenge's form is on the player's profile.
            let profile = format!("/@/{}", first.name.as_deref().context("a challenge from a guest")?);
            let at = first.form(urls, &profile, "/challenge/open", &fields).await?;
            let challenge = at.trim_start_matches("/challenge/").to_string();
            let page = format!("/challenge/{challenge}");
            let id =
                second.form(urls, &page, &format!("{page}/accept"), &[]).await?.trim_start_matches('/').to_string();
            (id, false)
        }
    })
}

/// What the tool reads of a server message, without building the whole position of a `move` or
/// `full` (the tool shares the machine it measures): `t` and `v`; a move's `seq`; a full game's
/// clock history (its length is the number of actions); the whole of anything else.
fn light(text: &str) -> Option<Value> {
    #[derive(serde::Deserialize)]
    struct Head {
        t: String,
        #[serde(default)]
        v: Option<i64>,
    }
    #[derive(serde::Deserialize)]
    struct Seq {
        seq: u64,
    }
    #[derive(serde::Deserialize)]
    struct History {
        clock_history: Option<Vec<serde::de::IgnoredAny>>,
        you: Option<String>,
    }
    #[derive(serde::Deserialize)]
    struct Data<T> {
        d: T,
    }
    let head: Head = serde_json::from_str(text).ok()?;
    match head.t.as_str() {
        "move" => {
            let m: Data<Seq> = serde_json::from_str(text).ok()?;
            Some(json!({"t": "move", "v": head.v, "d": {"seq": m.d.seq}}))
        }
        "full" => {
            let f: Data<History> = serde_json::from_str(text).ok()?;
            let history = f.d.clock_history.map(|h| vec![Value::Null; h.len()]);
            Some(json!({"t": "full", "v": head.v, "d": {"clock_history": history, "you": f.d.you}}))
        }
        _ => serde_json::from_str(text).ok(),
    }
}

/// Why a form failed: the instance did not answer (try another), or it answered no.
#[derive(Debug)]
enum FormError {
    Unreachable(reqwest::Error),
    Refused(anyhow::Error),
}

impl From<reqwest::Error> for FormError {
    fn from(e: reqwest::Error) -> FormError {
        FormError::Unreachable(e)
    }
}

type WsSink = futures_util::stream::SplitSink<
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
    Message,
>;

/// What waiting for a message came to.
enum Wait {
    Got(Instant, Value),
    /// The socket closed (its instance stopped, say).
    Closed,
}

/// Waits for the first message that `pred` accepts (the others are dropped).
///
/// # Errors
/// No such message in [`ANSWER_WITHIN`].
async fn until(rx: &mut mpsc::Receiver<(Instant, Value)>, pred: impl Fn(&Value) -> bool) -> anyhow::Result<Wait> {
    let deadline = tokio::time::Instant::now() + ANSWER_WITHIN;
    loop {
        match tokio::time::timeout_at(deadline, rx.recv()).await.context("no answer in time")? {
            None => return Ok(Wait::Closed),
            Some((at, v)) if pred(&v) => return Ok(Wait::Got(at, v)),
            Some(_) => {}
        }
    }
}

/// A player in one game: its socket, on one of the instances, and the means to open it again on
/// any of them when it closes.
struct Seat<'a> {
    guest: &'a Guest,
    urls: &'a [String],
    /// The instance (index into `urls`) the socket is open on.
    at: usize,
    sink: WsSink,
    rx: mpsc::Receiver<(Instant, Value)>,
}

/// The number of actions a `full` message shows (the games the tool plays have clocks, whose
/// history has one entry per action).
fn actions_in_full(full: &Value) -> anyhow::Result<usize> {
    full["d"]["clock_history"]
        .as_array()
        .map(Vec::len)
        .with_context(|| format!("a full game without its history: {full}"))
}

impl<'a> Seat<'a> {
    /// Opens the socket on the guest's own instance (or, while it does not answer, on the next)
    /// and waits for the game; the seat, the number of actions played and the guest's colour.
    async fn open(
        guest: &'a Guest,
        urls: &'a [String],
        id: &str,
        tally: &Tally,
    ) -> anyhow::Result<(Seat<'a>, usize, Option<String>)> {
        let at = urls.iter().position(|u| u.trim_end_matches('/') == guest.base).unwrap_or(0);
        let (at, sink, rx, full) = Self::connect(guest, urls, at, id, tally).await?;
        let you = full["d"]["you"].as_str().map(str::to_string);
        Ok((Seat { guest, urls, at, sink, rx }, actions_in_full(&full)?, you))
    }

    /// Opens the socket again after it closed: on the same instance or, while it does not answer,
    /// on the next. The number of actions the game has now.
    async fn reconnect(&mut self, id: &str, tally: &Tally) -> anyhow::Result<usize> {
        tally.reconnects.fetch_add(1, Ordering::Relaxed);
        let (at, sink, rx, full) = Self::connect(self.guest, self.urls, self.at, id, tally).await?;
        (self.at, self.sink, self.rx) = (at, sink, rx);
        actions_in_full(&full)
    }

    /// Opens the game's socket on `urls[at]` or, while that instance does not answer, on the
    /// next, and waits for the game: the instance, the socket and the `full` game.
    async fn connect(
        guest: &Guest,
        urls: &[String],
        mut at: usize,
        id: &str,
        tally: &Tally,
    ) -> anyhow::Result<(usize, WsSink, mpsc::Receiver<(Instant, Value)>, Value)> {
        let deadline = Instant::now() + ANSWER_WITHIN;
        loop {
            let base = urls[at % urls.len()].trim_end_matches('/').to_string();
            if let Ok((sink, mut rx)) = guest.socket(&base, id, tally).await
                && let Ok(Wait::Got(_, full)) = until(&mut rx, |m| m["t"] == "full").await
            {
                return Ok((at, sink, rx, full));
            }
            if Instant::now() >= deadline {
                bail!("no instance takes the game's socket");
            }
            at = (at + 1) % urls.len();
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Sends a move and waits for its answer; `None` when the socket closed first.
    async fn act(&mut self, msg: &Value, ack: u64) -> anyhow::Result<Option<(Instant, Value)>> {
        if self.sink.send(Message::text(msg.to_string())).await.is_err() {
            return Ok(None);
        }
        let answer =
            until(&mut self.rx, |m| (m["t"] == "ack" && m["d"] == ack) || (m["t"] == "error" && m["d"]["ack"] == ack))
                .await?;
        Ok(match answer {
            Wait::Got(at, v) => Some((at, v)),
            Wait::Closed => None,
        })
    }
}

/// A game slot: its number (its players' address), random numbers, and when its next move falls
/// due.
struct Slot {
    n: usize,
    rng: Rng,
    due: Instant,
    /// The slot's signed-up player, for challenges (made on first use, kept for the run).
    account: Option<Guest>,
}

/// One game from creation to its end (or [`MAX_PLIES`], or the end of the run). `idle` holds a
/// place among the idle games being set up: such a game makes its first two moves, gives the
/// place back and then holds its sockets until the end of the run.
///
/// A socket that closes (its instance stopped) is opened again, on another instance while that
/// one is down; a move whose answer was lost is sent again unless the game shows it played.
async fn play_one(
    cfg: &LoadConfig,
    slot: &mut Slot,
    tally: &Tally,
    until_at: Instant,
    idle: Option<tokio::sync::OwnedSemaphorePermit>,
) -> anyhow::Result<()> {
    let Slot { n: slot, rng, due, account } = slot;
    let slot = *slot;
    let urls = &cfg.urls;
    let (w_url, b_url) = (&urls[slot % urls.len()], &urls[(slot + 1) % urls.len()]);
    let mut fresh = Guest::new(w_url, source_address(w_url, slot))?;
    let black = Guest::new(b_url, source_address(b_url, slot))?;
    let white = match cfg.pairing {
        Pairing::Challenge => {
            if account.is_none() {
                fresh.sign_up(urls, &format!("load{slot}x{:08x}", rng.next() as u32)).await?;
                *account = Some(fresh);
            }
            account.as_ref().context("the slot's account")?
        }
        _ => &fresh,
    };
    let (id, drawn) = pair(cfg, white, &black, slot, tally).await?;
    tally.games.fetch_add(1, Ordering::Relaxed);
    let (mut w, _, you) = Seat::open(white, urls, &id, tally).await?;
    let (mut b, _, _) = Seat::open(&black, urls, &id, tally).await?;
    if drawn && you.as_deref() == Some("black") {
        std::mem::swap(&mut w, &mut b);
    } else if you.as_deref() != Some("white") {
        bail!("{id}: the first player is {you:?}, not white");
    }
    let mut game = variant(&cfg.variant).context("the variant")?.new_game();
    let think = if idle.is_some() {
        None
    } else {
        cfg.rate.map(|r| Duration::from_secs_f64(cfg.games.max(1) as f64 / r.max(0.001)))
    };
    let mut ack = 0u64;
    // An idle game makes each side's first move (so that it is not aborted) and then waits.
    let plies = if idle.is_some() { 2 } else { MAX_PLIES };
    let mut ply = 0;
    let mut action = None;
    // Sends of the current move whose answer was lost or unsure.
    let mut tries = 0;
    while ply < plies {
        if game.outcome().is_some() || Instant::now() >= until_at {
            break;
        }
        // A move sent again (its answer was lost) goes at once, with no new think time.
        if action.is_none()
            && let Some(mean) = think
        {
            // Each slot's moves fall due on its own schedule (think times drawn around the mean,
            // counted from when the previous move fell due, not from its answer), so the total
            // rate is the target whenever the server keeps up. A slot more than a second behind
            // (a slow game creation) starts again from now rather than sending a burst.
            let now = Instant::now();
            *due = (*due).max(now.checked_sub(Duration::from_secs(1)).unwrap_or(now)) + rng.think(mean);
            tokio::time::sleep_until((*due).into()).await;
        }
        let chosen = match action.take() {
            Some(a) => a,
            None => {
                let legal = game.legal_actions();
                if legal.is_empty() {
                    break;
                }
                legal[(rng.next() % legal.len() as u64) as usize].clone()
            }
        };
        ack += 1;
        let (mover, other) = if ply % 2 == 0 { (&mut w, &mut b) } else { (&mut b, &mut w) };
        let msg = json!({"t": "action", "d": {"action": chosen, "ply": ply, "ack": ack}});
        let sent = Instant::now();
        let seq = ply as u64 + 1;
        let answer = mover.act(&msg, ack).await?;
        // Around a restart a move can be refused because the game moved on meanwhile (an earlier
        // send of it landed after all) or the instance is stopping: the game itself says which.
        let unsure = answer.as_ref().is_some_and(|(_, a)| {
            a["t"] == "error" && ["stale", "not_your_turn", "unavailable"].iter().any(|c| a["d"]["code"] == *c)
        });
        let answer = if unsure && tries < 5 { None } else { answer };
        match answer {
            Some((acked_at, answer)) => {
                if answer["t"] != "ack" {
                    bail!("{chosen} at ply {ply} of {id} refused: {answer}");
                }
                tries = 0;
                tally.ack_us.lock().await.push((acked_at - sent).as_micros() as u64);
                tally.moves.fetch_add(1, Ordering::Relaxed);
                *tally.acked.lock().await.entry(id.clone()).or_insert(0) += 1;
                match until(&mut other.rx, |m| m["t"] == "move" && m["d"]["seq"] == seq).await? {
                    Wait::Got(seen_at, _) => {
                        tally.receive_us.lock().await.push(seen_at.saturating_duration_since(sent).as_micros() as u64);
                    }
                    Wait::Closed => {
                        let n = other.reconnect(&id, tally).await?;
                        if n < ply + 1 {
                            bail!(
                                "{id}: the acknowledged move {chosen} (ply {ply}) is not in the game after a reconnect"
                            );
                        }
                    }
                }
            }
            None => {
                // The answer was lost with the socket (or was unsure): the game shows whether the
                // move was played.
                let n = mover.reconnect(&id, tally).await?;
                if n == ply {
                    tries += 1;
                    action = Some(chosen);
                    continue;
                }
                tries = 0;
                if n != ply + 1 {
                    bail!("{id}: {n} actions after a reconnect at ply {ply}");
                }
            }
        }
        game.play(&chosen).map_err(|e| anyhow::anyhow!("the engine refuses its own move {chosen}: {e:?}"))?;
        ply += 1;
    }
    if let Some(place) = idle {
        drop(place);
        hold(&mut w, &mut b, tally, until_at, rng).await?;
    } else if cfg.pairing == Pairing::Challenge && ply >= plies && game.outcome().is_none() {
        // Left for a new one: resigned, so that the slot's account is free to challenge again
        // (a player in a game with a clock is not). The other pairings use new guests.
        ack += 1;
        match w.act(&json!({"t": "resign", "d": {"ack": ack}}), ack).await? {
            Some((_, a)) if a["t"] == "ack" => {}
            other => bail!("{id}: resigning after {ply} plies: {other:?}"),
        }
    }
    let _ = w.sink.close().await;
    let _ = b.sink.close().await;
    Ok(())
}

/// Keeps an idle game's two sockets open until `until_at`: a ping from each every 5 s or so (as
/// the site's pages send them), everything received read and dropped.
async fn hold(
    w: &mut Seat<'_>,
    b: &mut Seat<'_>,
    tally: &Tally,
    until_at: Instant,
    rng: &mut Rng,
) -> anyhow::Result<()> {
    tally.idle_open.fetch_add(2, Ordering::Relaxed);
    let held = async {
        let ping = Message::text(json!({"t": "ping"}).to_string());
        while Instant::now() < until_at {
            let pause = Duration::from_millis(4000 + rng.next() % 2000);
            tokio::time::sleep_until(tokio::time::Instant::from(until_at).min(tokio::time::Instant::now() + pause))
                .await;
            while w.rx.try_recv().is_ok() || b.rx.try_recv().is_ok() {}
            if Instant::now() >= until_at {
                break;
            }
            w.sink.send(ping.clone()).await.context("pinging (white)")?;
            b.sink.send(ping.clone()).await.context("pinging (black)")?;
            if w.rx.is_closed() || b.rx.is_closed() {
                bail!("an idle socket was closed");
            }
        }
        Ok(())
    }
    .await;
    tally.idle_open.fetch_sub(2, Ordering::Relaxed);
    if held.is_ok() {
        tally.idle_held.fetch_add(2, Ordering::Relaxed);
    }
    held
}

/// Runs the load and returns what it measured.
///
/// # Errors
/// No URL, or no game at all could be started.
pub async fn run(cfg: LoadConfig) -> anyhow::Result<LoadReport> {
    if cfg.urls.is_empty() {
        bail!("give at least one --url");
    }
    if variant(&cfg.variant).is_none() {
        bail!("unknown variant '{}'", cfg.variant);
    }
    let tally = Arc::new(Tally::default());
    let started = Instant::now();
    let until_at = started + cfg.duration;
    let mut tasks = Vec::new();
    // Idle games are set up a few at a time (a burst of thousands of sign-ins is not what is
    // measured); the playing slots come after them and play on the same addresses' neighbours.
    let setting_up = Arc::new(tokio::sync::Semaphore::new(32));
    for slot in 0..cfg.games + cfg.idle_games {
        let idle = slot >= cfg.games;
        let (cfg, tally, setting_up) = (cfg.clone(), tally.clone(), setting_up.clone());
        tasks.push(tokio::spawn(async move {
            let mut slot = Slot { n: slot, rng: Rng::new(), due: Instant::now(), account: None };
            while Instant::now() < until_at {
                let place = if idle { setting_up.clone().acquire_owned().await.ok() } else { None };
                let played = play_one(&cfg, &mut slot, &tally, until_at, place).await;
                if let Err(e) = played {
                    tally.errors.lock().await.push(format!("{e:#}"));
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }
        }));
    }
    let progress = cfg.progress.then(|| {
        let tally = tally.clone();
        tokio::spawn(async move {
            let total = cfg.duration.as_secs_f64();
            loop {
                tokio::time::sleep(Duration::from_secs(1)).await;
                let t = started.elapsed().as_secs_f64().min(total);
                let done = ((t / total.max(1e-9)) * 30.0) as usize;
                let moves = tally.moves.load(Ordering::Relaxed);
                let errors = tally.errors.lock().await.len();
                let idle = tally.idle_open.load(Ordering::Relaxed);
                eprint!(
                    "\r[{}{}] {t:.0}/{total:.0} s  moves {moves}  {:.0}/s  idle sockets {idle}  errors {errors}   ",
                    "=".repeat(done),
                    " ".repeat(30 - done.min(30)),
                    moves as f64 / t.max(1e-9),
                );
                let _ = std::io::stderr().flush();
            }
        })
    });
    for t in tasks {
        let _ = t.await;
    }
    if let Some(p) = progress {
        p.abort();
        eprintln!();
    }
    let elapsed = started.elapsed();
    let mut ack_us = std::mem::take(&mut *tally.ack_us.lock().await);
    let mut receive_us = std::mem::take(&mut *tally.receive_us.lock().await);
    ack_us.sort_unstable();
    receive_us.sort_unstable();
    let report = LoadReport {
        moves: tally.moves.load(Ordering::Relaxed),
        elapsed,
        ack_us,
        receive_us,
        games: tally.games.load(Ordering::Relaxed),
        sockets: tally.sockets.load(Ordering::Relaxed),
        idle_held: tally.idle_held.load(Ordering::Relaxed),
        reconnects: tally.reconnects.load(Ordering::Relaxed),
        move_events: tally.move_events.0.load(Ordering::Relaxed),
        move_bytes: tally.move_events.1.load(Ordering::Relaxed),
        errors: std::mem::take(&mut *tally.errors.lock().await),
        acked: std::mem::take(&mut *tally.acked.lock().await),
    };
    if report.games == 0 {
        bail!("no game could be started: {}", report.errors.first().map_or("", String::as_str));
    }
    Ok(report)
}

/// CPU time of the server's processes and of PostgreSQL's over a run, from `/proc` (Linux).
#[derive(Debug)]
pub struct CpuMeter {
    pids: Vec<u32>,
    database: bool,
    server_at_start: Duration,
    database_at_start: Duration,
}

/// Linux reports CPU times in `/proc/{pid}/stat` in ticks of 1/100 s on every architecture it
/// runs this on (`USER_HZ`).
const TICKS_PER_SECOND: u64 = 100;

/// A process's name and its CPU time: its own (user and system) and that of the children it
/// has waited for (PostgreSQL's ended backends count in the postmaster's).
fn proc_cpu(pid: u32) -> Option<(String, Duration)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let name = stat[open + 1..close].to_string();
    // After the name: state, ppid, ... utime is field 14 of the line, i.e. index 11 here.
    let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
    let ticks: u64 = fields.get(11..15)?.iter().filter_map(|f| f.parse::<u64>().ok()).sum();
    Some((name, Duration::from_millis(ticks * 1000 / TICKS_PER_SECOND)))
}

fn database_cpu() -> Duration {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Duration::ZERO };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(proc_cpu)
        .filter(|(name, _)| name == "postgres")
        .map(|(_, t)| t)
        .sum()
}

impl CpuMeter {
    /// Starts measuring the processes `pids` and, when `database`, every process named
    /// `postgres`.
    ///
    /// # Errors
    /// A process that does not exist.
    pub fn start(pids: &[u32], database: bool) -> anyhow::Result<CpuMeter> {
        Ok(CpuMeter {
            pids: pids.to_vec(),
            database,
            server_at_start: Self::server(pids)?,
            database_at_start: if database { database_cpu() } else { Duration::ZERO },
        })
    }

    fn server(pids: &[u32]) -> anyhow::Result<Duration> {
        pids.iter()
            .map(|&pid| proc_cpu(pid).map(|(_, t)| t).with_context(|| format!("no process {pid} to measure")))
            .sum()
    }

    /// The lines reporting CPU time per move since the start (nothing when nothing is measured).
    ///
    /// # Errors
    /// A measured process that has gone.
    pub fn per_move(&self, moves: u64) -> anyhow::Result<String> {
        let per = |t: Duration| format!("{:.3} ms", t.as_secs_f64() * 1000.0 / moves.max(1) as f64);
        let mut out = String::new();
        if !self.pids.is_empty() {
            let used = Self::server(&self.pids)?.saturating_sub(self.server_at_start);
            out.push_str(&format!("server CPU: {:.1} s, {} per move\n", used.as_secs_f64(), per(used)));
        }
        if self.database {
            let used = database_cpu().saturating_sub(self.database_at_start);
            out.push_str(&format!("database CPU: {:.1} s, {} per move\n", used.as_secs_f64(), per(used)));
        }
        Ok(out)
    }
}

/// The acknowledged moves not found in the database: (game, acknowledged, stored) for each game
/// with fewer stored than acknowledged.
///
/// # Errors
/// Database failures.
pub async fn verify(pool: &sqlx::PgPool, report: &LoadReport) -> anyhow::Result<Vec<(String, usize, usize)>> {
    let mut lost = Vec::new();
    for (game, &acked) in &report.acked {
        let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM game_actions WHERE game_id = $1")
            .bind(game)
            .fetch_one(pool)
            .await
            .context("counting a game's stored moves")?;
        let stored = usize::try_from(stored).unwrap_or(0);
        if stored < acked {
            lost.push((game.clone(), acked, stored));
        }
    }
    lost.sort();
    Ok(lost)
}
