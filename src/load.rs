//! `chessgold load`: a load generator over the real site. Pairs of guests create a friend game
//! with the site's own forms, join it, open the real game sockets and play random legal moves
//! (the engine picks them) at a set total rate, with think times drawn around the mean (or as
//! fast as the acknowledgements come back). A finished game is followed by a new one. It prints a
//! progress line while it runs, then moves per second, the acknowledgement latency
//! (p50/p95/p99/max), the opponent's receive latency, the sockets, the errors, and, given the
//! database, whether every acknowledged move is stored.
//!
//! With several URLs (instances behind one database and Redis) white plays on one and black on
//! the next. Nothing here is timed by a test: speed figures go to `docs/benchmarks.md`.

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
    /// Print the progress line.
    pub progress: bool,
}

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
            "moves {} in {:.1} s: {:.0} moves/s; games {}, sockets {}, errors {}\n{}\n{}\n",
            self.moves,
            self.elapsed.as_secs_f64(),
            self.rate(),
            self.games,
            self.sockets,
            self.errors.len(),
            line("ack", &self.ack_us),
            line("opponent receives", &self.receive_us),
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
    ack_us: Mutex<Vec<u64>>,
    receive_us: Mutex<Vec<u64>>,
    errors: Mutex<Vec<String>>,
    acked: Mutex<HashMap<String, usize>>,
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
            .local_address(from)
            .build()
            .context("an HTTP client")?;
        Ok(Guest { base: base.trim_end_matches('/').to_string(), http, jar, from })
    }

    async fn form(&self, page: &str, path: &str, fields: &[(&str, &str)]) -> anyhow::Result<String> {
        let html = self.http.get(format!("{}{page}", self.base)).send().await?.text().await?;
        let token = csrf(&html)?;
        let mut all = vec![("csrf_token", token.as_str())];
        all.extend_from_slice(fields);
        let r = self.http.post(format!("{}{path}", self.base)).header("Origin", &self.base).form(&all).send().await?;
        if r.status().as_u16() != 303 {
            bail!("{path}: {}", r.status());
        }
        Ok(r.headers().get("location").and_then(|l| l.to_str().ok()).unwrap_or_default().to_string())
    }

    /// Opens the game's socket: its sender, and its messages with the time each arrived.
    async fn socket(&self, id: &str, tally: &Tally) -> anyhow::Result<(WsSink, mpsc::Receiver<(Instant, Value)>)> {
        let url = format!("{}/socket/game/{id}", self.base.replacen("http", "ws", 1));
        let mut req = url.into_client_request()?;
        let base = reqwest::Url::parse(&self.base)?;
        if let Some(cookies) = self.jar.cookies(&base) {
            req.headers_mut().insert("cookie", cookies);
        }
        let (ws, _) = match self.from {
            None => tokio_tungstenite::connect_async(req).await.context("opening a game socket")?,
            Some(from) => {
                let port = base.port_or_known_default().context("a port")?;
                let host = base.host_str().context("a host")?;
                let to = tokio::net::lookup_host((host, port)).await?.find(std::net::SocketAddr::is_ipv4);
                let socket = tokio::net::TcpSocket::new_v4()?;
                socket.bind(std::net::SocketAddr::new(from, 0))?;
                let stream = socket.connect(to.context("an IPv4 address")?).await?;
                let _ = stream.set_nodelay(true);
                let stream = tokio_tungstenite::MaybeTlsStream::Plain(stream);
                tokio_tungstenite::client_async(req, stream).await.context("opening a game socket")?
            }
        };
        tally.sockets.fetch_add(1, Ordering::Relaxed);
        let (sink, mut stream) = ws.split();
        let (tx, rx) = mpsc::channel(1024);
        tokio::spawn(async move {
            while let Some(Ok(msg)) = stream.next().await {
                let Message::Text(text) = msg else { continue };
                let Ok(v) = serde_json::from_str::<Value>(&text) else { continue };
                if tx.send((Instant::now(), v)).await.is_err() {
                    break;
                }
            }
        });
        Ok((sink, rx))
    }
}

type WsSink = futures_util::stream::SplitSink<
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
    Message,
>;

/// Waits for the first message that `pred` accepts (the others are dropped).
async fn until(
    rx: &mut mpsc::Receiver<(Instant, Value)>,
    pred: impl Fn(&Value) -> bool,
) -> anyhow::Result<(Instant, Value)> {
    let deadline = tokio::time::Instant::now() + ANSWER_WITHIN;
    loop {
        let got = tokio::time::timeout_at(deadline, rx.recv()).await.context("no answer in time")?;
        let (at, v) = got.context("the socket closed")?;
        if pred(&v) {
            return Ok((at, v));
        }
    }
}

/// One game from creation to its end (or [`MAX_PLIES`], or the end of the run).
async fn play_one(
    cfg: &LoadConfig,
    slot: usize,
    tally: &Tally,
    until_at: Instant,
    rng: &mut Rng,
) -> anyhow::Result<()> {
    let (w_url, b_url) = (&cfg.urls[slot % cfg.urls.len()], &cfg.urls[(slot + 1) % cfg.urls.len()]);
    let white = Guest::new(w_url, source_address(w_url, slot))?;
    let black = Guest::new(b_url, source_address(b_url, slot))?;
    let fields = [("variant", cfg.variant.as_str()), ("time", "10+5"), ("mode", "casual"), ("color", "white")];
    let id = white.form("/game/new", "/game/new", &fields).await?.trim_start_matches('/').to_string();
    black.form(&format!("/{id}"), &format!("/game/{id}/join"), &[]).await?;
    tally.games.fetch_add(1, Ordering::Relaxed);
    let (mut ws, mut wr) = white.socket(&id, tally).await?;
    let (mut bs, mut br) = black.socket(&id, tally).await?;
    until(&mut wr, |m| m["t"] == "full").await?;
    until(&mut br, |m| m["t"] == "full").await?;
    let mut game = variant(&cfg.variant).context("the variant")?.new_game();
    let think = cfg.rate.map(|r| Duration::from_secs_f64(cfg.games as f64 / r.max(0.001)));
    let mut ack = 0u64;
    for ply in 0..MAX_PLIES {
        if game.outcome().is_some() || Instant::now() >= until_at {
            break;
        }
        if let Some(mean) = think {
            tokio::time::sleep(rng.think(mean)).await;
        }
        let legal = game.legal_actions();
        if legal.is_empty() {
            break;
        }
        let action = legal[(rng.next() % legal.len() as u64) as usize].clone();
        ack += 1;
        let (sink, own, other) = if ply % 2 == 0 { (&mut ws, &mut wr, &mut br) } else { (&mut bs, &mut br, &mut wr) };
        let msg = json!({"t": "action", "d": {"action": action, "ply": ply, "ack": ack}});
        let sent = Instant::now();
        sink.send(Message::text(msg.to_string())).await.context("sending a move")?;
        let (acked_at, answer) =
            until(own, |m| (m["t"] == "ack" && m["d"] == ack) || (m["t"] == "error" && m["d"]["ack"] == ack)).await?;
        if answer["t"] != "ack" {
            bail!("{action} at ply {ply} of {id} refused: {answer}");
        }
        tally.ack_us.lock().await.push((acked_at - sent).as_micros() as u64);
        tally.moves.fetch_add(1, Ordering::Relaxed);
        *tally.acked.lock().await.entry(id.clone()).or_insert(0) += 1;
        let seq = ply as u64 + 1;
        let (seen_at, _) = until(other, |m| m["t"] == "move" && m["d"]["seq"] == seq).await?;
        tally.receive_us.lock().await.push((seen_at.saturating_duration_since(sent)).as_micros() as u64);
        game.play(&action).map_err(|e| anyhow::anyhow!("the engine refuses its own move {action}: {e:?}"))?;
    }
    let _ = ws.close().await;
    let _ = bs.close().await;
    Ok(())
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
    for slot in 0..cfg.games {
        let (cfg, tally) = (cfg.clone(), tally.clone());
        tasks.push(tokio::spawn(async move {
            let mut rng = Rng::new();
            while Instant::now() < until_at {
                if let Err(e) = play_one(&cfg, slot, &tally, until_at, &mut rng).await {
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
                eprint!(
                    "\r[{}{}] {t:.0}/{total:.0} s  moves {moves}  {:.0}/s  errors {errors}   ",
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
        errors: std::mem::take(&mut *tally.errors.lock().await),
        acked: std::mem::take(&mut *tally.acked.lock().await),
    };
    if report.games == 0 {
        bail!("no game could be started: {}", report.errors.first().map_or("", String::as_str));
    }
    Ok(report)
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
