//! The round: one task per live game per instance, owning the game (record and engine) and the
//! sockets of this instance that watch it. It takes commands over a channel, judges them with the
//! engine, commits each change to PostgreSQL (under the game's version check) before it
//! acknowledges or announces it, and publishes a notice on the broker channel `game:{id}` so the
//! rounds of other instances reload and tell their sockets. Rounds start lazily, from the
//! database, when a socket joins; they stop when no socket has been there for a while.
//!
//! A round also plays for the bots seated in its game: whenever a bot is to move (at start, after
//! any commit, after a reload) it asks [`Thinkers`] for the bot's action, off the async threads,
//! and plays it through the same path as a human's action; it answers the opponent's offers for
//! the bot (draws declined, takebacks and rematches accepted).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chessgold_engine::Color;
use serde_json::{Value, json};
use sqlx::PgPool;
use time::OffsetDateTime;
use tokio::sync::{mpsc, oneshot};

use super::clock::cs_between;
use super::live::{Event, Live, PlayerRef, Refusal, Step, replay};
use super::protocol::{self, ClientMsg, Command, Room};
use super::refusal::RefusalCode;
use super::store::{self, CommitError};
use super::{GameId, parse_color};
use crate::bots::{self, Thinkers};
use crate::broker::{Broker, Subscription};
use crate::db;
use crate::db::games::{ChatRow, EventRow};
use crate::settings::GameSettings;

/// Chat lines sent to a joining client.
const CHAT_HISTORY: i64 = 50;
/// How often a round records and reads signs of life.
const PRESENCE_EVERY: Duration = Duration::from_secs(2);
/// A seat counts as connected while its last sign of life is this recent (seconds).
const CONNECTED_WITHIN_SECS: i64 = 6;

/// The broker channel of a game.
pub fn channel(id: &GameId) -> String {
    format!("game:{id}")
}

/// What a socket needs to join a round.
#[derive(Debug, Clone)]
pub struct JoinRequest {
    /// The players the client may be (account, guest).
    pub who: Vec<PlayerRef>,
    /// Name for chat lines.
    pub name: String,
    /// The account, for chat lines.
    pub user_id: Option<uuid::Uuid>,
    /// The room version the client has.
    pub since: Option<i32>,
    /// Where the round sends the client's messages.
    pub tx: mpsc::Sender<String>,
}

/// Why joining failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinError {
    /// No such game.
    NotFound,
    /// The round stopped meanwhile: ask again.
    Gone,
}

/// A command to a round.
#[derive(Debug)]
pub enum Cmd {
    /// A socket joins.
    Join {
        /// Connection id.
        conn: u64,
        /// Details.
        req: JoinRequest,
        /// The seat, or why not.
        reply: oneshot::Sender<Result<Option<Color>, JoinError>>,
    },
    /// A socket left.
    Leave {
        /// Connection id.
        conn: u64,
    },
    /// A socket pinged.
    Alive {
        /// Connection id.
        conn: u64,
    },
    /// A parsed client message.
    Client {
        /// Connection id.
        conn: u64,
        /// The message.
        msg: ClientMsg,
    },
    /// A request of the HTTP board API, answered once committed (or refused).
    Api {
        /// The players the requester may be.
        who: Vec<PlayerRef>,
        /// Name for chat lines.
        name: String,
        /// The account, for chat lines.
        user_id: Option<uuid::Uuid>,
        /// What to do.
        op: ApiOp,
        /// The answer.
        reply: oneshot::Sender<Result<(), ApiRefusal>>,
    },
}

/// What the board API asks a round to do.
#[derive(Debug, Clone)]
pub enum ApiOp {
    /// Play an action at the current ply.
    Action(String),
    /// A player command.
    Command(Command),
    /// A chat line.
    Chat(Room, String),
}

/// Why a board-API request was refused: a socket error code and a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiRefusal {
    /// The socket protocol's code.
    pub code: RefusalCode,
    /// What is wrong.
    pub message: String,
}

impl ApiRefusal {
    fn new(code: RefusalCode, message: impl Into<String>) -> ApiRefusal {
        ApiRefusal { code, message: message.into() }
    }
}

/// A player's game command on the game. `away` is how long the opponent has been away
/// (centiseconds) for claims; `None` where claims are not offered (the board API).
fn run_command(
    live: &mut Live,
    command: Command,
    seat: Color,
    away: Option<i64>,
    now: OffsetDateTime,
    cfg: &GameSettings,
) -> Result<Step, Refusal> {
    match (command, away) {
        (Command::Abort, _) => live.abort(now, cfg),
        (Command::Resign, _) => live.resign(seat, now, cfg),
        (Command::DrawYes, _) => live.draw_yes(seat, now, cfg),
        (Command::DrawNo, _) => live.draw_no(seat),
        (Command::TakebackYes, _) => live.takeback_yes(seat, now, cfg),
        (Command::TakebackNo, _) => live.takeback_no(seat),
        (Command::RematchYes, _) => live.rematch_yes(seat),
        (Command::RematchNo, _) => live.rematch_no(seat),
        (Command::ClaimVictory, Some(away)) => live.claim(seat, true, away, now, cfg),
        (Command::ClaimDraw, Some(away)) => live.claim(seat, false, away, now, cfg),
        (Command::ClaimVictory | Command::ClaimDraw, None) => {
            Err(Refusal::Code(RefusalCode::ClaimNotOffered, "claims are not offered by the board API".into()))
        }
    }
}

/// The outcome of running an operation on the game.
#[derive(Debug)]
enum Applied {
    /// Committed, or nothing to commit.
    Done,
    /// Refused; nothing changed.
    Refused(RefusalCode, String),
    /// Someone else changed the game first; it was reloaded.
    Conflict,
    /// The database failed.
    Failed,
}

impl Rounds {
    /// Sends a board-API request to the round of a game and waits for its answer.
    ///
    /// # Errors
    /// `not_found` for an unknown game, `unavailable` when the round could not be reached, or the
    /// round's refusal.
    pub async fn api(
        self: &Arc<Self>,
        id: &GameId,
        who: Vec<PlayerRef>,
        name: String,
        user_id: Option<uuid::Uuid>,
        op: ApiOp,
    ) -> Result<(), ApiRefusal> {
        for _ in 0..3 {
            let tx = self.get(id);
            let (reply, answer) = oneshot::channel();
            let cmd = Cmd::Api { who: who.clone(), name: name.clone(), user_id, op: op.clone(), reply };
            if tx.send(cmd).await.is_err() {
                continue;
            }
            match answer.await {
                Ok(result) => return result,
                // The round stopped before answering: a fresh one is started on the next try;
                // a round that found no game closes at once.
                Err(_) => {
                    if matches!(store::load(&self.ctx.pool, id).await, Ok(None)) {
                        return Err(ApiRefusal::new(RefusalCode::NotFound, "there is no such game"));
                    }
                }
            }
        }
        Err(ApiRefusal::new(RefusalCode::Unavailable, "the game is not available; try again"))
    }
}

/// What rounds share.
#[derive(Debug, Clone)]
pub struct RoundCtx {
    /// PostgreSQL.
    pub pool: PgPool,
    /// Pub/sub between instances.
    pub broker: Arc<dyn Broker>,
    /// Settings.
    pub cfg: Arc<GameSettings>,
    /// Where bot searches run.
    pub thinkers: Thinkers,
}

/// The rounds of this instance.
#[derive(Debug)]
pub struct Rounds {
    ctx: RoundCtx,
    map: Mutex<HashMap<String, (u64, mpsc::Sender<Cmd>)>>,
    next: AtomicU64,
}

impl Rounds {
    /// No rounds yet.
    pub fn new(ctx: RoundCtx) -> Arc<Rounds> {
        Arc::new(Rounds { ctx, map: Mutex::new(HashMap::new()), next: AtomicU64::new(1) })
    }

    /// The shared context.
    pub fn ctx(&self) -> &RoundCtx {
        &self.ctx
    }

    /// A fresh id for a connection or a round.
    pub fn next_id(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// The round of a game, started when there is none.
    pub fn get(self: &Arc<Self>, id: &GameId) -> mpsc::Sender<Cmd> {
        let mut map = match self.map.lock() {
            Ok(m) => m,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some((_, tx)) = map.get(id.as_str())
            && !tx.is_closed()
        {
            return tx.clone();
        }
        let (tx, rx) = mpsc::channel(1024);
        let token = self.next_id();
        map.insert(id.to_string(), (token, tx.clone()));
        tokio::spawn(run(self.clone(), id.clone(), token, rx));
        tx
    }

    fn remove(&self, id: &GameId, token: u64) {
        let mut map = match self.map.lock() {
            Ok(m) => m,
            Err(poisoned) => poisoned.into_inner(),
        };
        if map.get(id.as_str()).is_some_and(|(t, _)| *t == token) {
            map.remove(id.as_str());
        }
    }

    /// Joins the round of a game (starting it when needed): returns its sender and the seat.
    ///
    /// # Errors
    /// [`JoinError::NotFound`] for an unknown game.
    pub async fn join(
        self: &Arc<Self>,
        id: &GameId,
        conn: u64,
        req: JoinRequest,
    ) -> Result<(mpsc::Sender<Cmd>, Option<Color>), JoinError> {
        // A round that is stopping answers `Gone`: the next `get` starts a fresh one.
        for _ in 0..3 {
            let tx = self.get(id);
            let (reply, answer) = oneshot::channel();
            if tx.send(Cmd::Join { conn, req: req.clone(), reply }).await.is_err() {
                continue;
            }
            match answer.await {
                Ok(Ok(seat)) => return Ok((tx, seat)),
                Ok(Err(JoinError::NotFound)) => return Err(JoinError::NotFound),
                Ok(Err(JoinError::Gone)) | Err(_) => {}
            }
        }
        Err(JoinError::Gone)
    }
}

/// Tells every instance's rounds that a game changed (after a commit).
pub async fn announce(broker: &dyn Broker, id: &GameId, v: i32) {
    let notice = json!({"kind": "event", "v": v}).to_string();
    if let Err(e) = broker.publish(&channel(id), &notice).await {
        tracing::warn!(game.id = %id, error = %e, "could not announce a game change");
    }
}

/// Commits what the sweeper or an HTTP handler did to a game outside any round, and announces it.
///
/// # Errors
/// A conflict (someone else changed the game first) or an infrastructure failure.
pub async fn commit_and_announce(ctx: &RoundCtx, live: &mut Live, step: &mut Step) -> Result<(), CommitError> {
    store::commit(&ctx.pool, live, step, &ctx.cfg).await?;
    announce(ctx.broker.as_ref(), &live.id, live.version).await;
    crate::notify::after_step(ctx.broker.as_ref(), live, step).await;
    Ok(())
}

struct Conn {
    tx: mpsc::Sender<String>,
    seat: Option<Color>,
    name: String,
    user_id: Option<uuid::Uuid>,
    last_alive: Instant,
}

impl Conn {
    fn room(&self) -> Room {
        if self.seat.is_some() { Room::Player } else { Room::Spectator }
    }
}

struct Round {
    ctx: RoundCtx,
    live: Live,
    conns: HashMap<u64, Conn>,
    /// Room version last sent to this instance's sockets.
    forwarded: i32,
    /// Connection state last sent: (connected, away seconds) per seat.
    crowd: Option<Value>,
    last_seen: [Option<OffsetDateTime>; 2],
    empty_since: Option<Instant>,
    /// The bot's search under way, if any.
    thinking: Option<Thinking>,
    /// No new bot search before this (after a failed bot move).
    bot_pause_until: Option<Instant>,
}

/// A bot search under way: the position it was asked about and where its answer comes.
struct Thinking {
    plies: usize,
    fen: String,
    answer: oneshot::Receiver<Option<String>>,
}

/// The answer of the search under way (pending forever when there is none).
async fn next_thought(thinking: &mut Option<Thinking>) -> Option<String> {
    match thinking {
        Some(t) => (&mut t.answer).await.ok().flatten(),
        None => std::future::pending().await,
    }
}

async fn next_broker(sub: &mut Option<Subscription>) -> Option<String> {
    match sub {
        Some(s) => s.recv().await,
        None => std::future::pending().await,
    }
}

async fn run(rounds: Arc<Rounds>, id: GameId, token: u64, mut rx: mpsc::Receiver<Cmd>) {
    let ctx = rounds.ctx.clone();
    // Subscribe before loading, so no change between the two is missed.
    let mut sub = match ctx.broker.subscribe(&channel(&id)).await {
        Ok(s) => Some(s),
        Err(e) => {
            tracing::warn!(game.id = %id, error = %e, "round without broker subscription");
            None
        }
    };
    let live = match store::load(&ctx.pool, &id).await {
        Ok(Some(live)) => live,
        other => {
            if let Err(e) = other {
                tracing::error!(game.id = %id, error = format!("{e:#}"), "could not load a game");
            }
            rounds.remove(&id, token);
            rx.close();
            while let Some(cmd) = rx.recv().await {
                if let Cmd::Join { reply, .. } = cmd {
                    let _ = reply.send(Err(JoinError::NotFound));
                }
            }
            return;
        }
    };
    let mut round = Round {
        forwarded: live.version,
        live,
        ctx: ctx.clone(),
        conns: HashMap::new(),
        crowd: None,
        last_seen: [None, None],
        empty_since: Some(Instant::now()),
        thinking: None,
        bot_pause_until: None,
    };
    let mut presence = tokio::time::interval(PRESENCE_EVERY);
    let idle = Duration::from_secs(ctx.cfg.round_idle_secs);
    loop {
        round.bot_turn().await;
        let wait = round.until_deadline();
        tokio::select! {
            cmd = rx.recv() => match cmd {
                Some(cmd) => round.handle(cmd).await,
                None => break,
            },
            msg = next_broker(&mut sub) => match msg {
                Some(m) => round.on_broker(&m).await,
                None => {
                    tracing::warn!(game.id = %id, "broker subscription ended");
                    sub = None;
                }
            },
            () = tokio::time::sleep(wait) => round.on_deadline().await,
            answer = next_thought(&mut round.thinking) => round.on_thought(answer).await,
            _ = presence.tick() => {
                round.presence().await;
                // A bot that is thinking finishes its move first.
                if round.empty_since.is_some_and(|t| t.elapsed() >= idle) && round.thinking.is_none() {
                    break;
                }
            }
        }
    }
    rounds.remove(&id, token);
    rx.close();
    while let Some(cmd) = rx.recv().await {
        if let Cmd::Join { reply, .. } = cmd {
            let _ = reply.send(Err(JoinError::Gone));
        }
    }
}

impl Round {
    fn cfg(&self) -> &GameSettings {
        &self.ctx.cfg
    }

    fn until_deadline(&self) -> Duration {
        match self.live.deadline(self.cfg()) {
            Some(d) => {
                let ms = (d - OffsetDateTime::now_utc()).whole_milliseconds().max(0) as u64;
                Duration::from_millis(ms).max(Duration::from_millis(20))
            }
            None => Duration::from_secs(3600),
        }
    }

    fn send(&mut self, conn: u64, text: String) {
        let drop = match self.conns.get(&conn) {
            Some(c) => c.tx.try_send(text).is_err(),
            None => false,
        };
        if drop {
            self.conns.remove(&conn);
        }
    }

    fn send_all(&mut self, text: &str, only: Option<Room>) {
        let slow: Vec<u64> = self
            .conns
            .iter()
            .filter(|(_, c)| only.is_none_or(|r| c.room() == r))
            .filter(|(_, c)| c.tx.try_send(text.to_string()).is_err())
            .map(|(id, _)| *id)
            .collect();
        for id in slow {
            self.conns.remove(&id);
        }
    }

    fn full(&self, seat: Option<Color>) -> String {
        let d = self.live.full_view(seat, OffsetDateTime::now_utc(), self.cfg());
        protocol::event("full", self.live.version, &d)
    }

    fn send_full_to_all(&mut self) {
        let ids: Vec<(u64, Option<Color>)> = self.conns.iter().map(|(id, c)| (*id, c.seat)).collect();
        for (id, seat) in ids {
            let text = self.full(seat);
            self.send(id, text);
        }
    }

    /// Renders stored events for clients, with the state after each `move`; `None` when a full
    /// resync is needed instead (a gap, or a takeback among several events).
    fn render(&self, since: i32, events: &[EventRow]) -> Option<Vec<String>> {
        let Some(last) = events.last() else { return Some(Vec::new()) };
        if last.v - since != events.len() as i32 || last.v != self.live.version {
            return None;
        }
        if events.len() > 1 && events.iter().any(|e| e.t == "takeback") {
            return None;
        }
        let mut replayed: Option<(Box<dyn chessgold_engine::AnyGame>, usize)> = None;
        let mut out = Vec::with_capacity(events.len());
        for e in events {
            let mut d = e.d.clone();
            if e.t == "move" || e.t == "takeback" {
                let plies = if e.t == "move" {
                    let seq = d.get("seq").and_then(Value::as_u64)? as usize;
                    let stored = self.live.actions.get(seq.checked_sub(1)?)?;
                    if d.get("action").and_then(Value::as_str) != Some(stored.action.as_str()) {
                        return None;
                    }
                    seq
                } else {
                    self.live.actions.len()
                };
                let state = if plies == self.live.actions.len() {
                    self.live.snapshot()
                } else {
                    if replayed.is_none() {
                        replayed = Some((replay(self.live.info, self.live.seed, &[]).ok()?.0, 0));
                    }
                    let (game, at) = replayed.as_mut()?;
                    while *at < plies {
                        game.play(&self.live.actions[*at].action).ok()?;
                        *at += 1;
                    }
                    game.snapshot()
                };
                if let Some(obj) = d.as_object_mut() {
                    obj.insert("state".into(), serde_json::to_value(state).ok()?);
                }
            }
            out.push(protocol::event(&e.t, e.v, &d));
        }
        Some(out)
    }

    async fn handle(&mut self, cmd: Cmd) {
        match cmd {
            Cmd::Join { conn, req, reply } => {
                let seat = req.who.iter().find_map(|p| self.live.seat_of(p));
                let _ = reply.send(Ok(seat));
                self.conns.insert(
                    conn,
                    Conn { tx: req.tx, seat, name: req.name, user_id: req.user_id, last_alive: Instant::now() },
                );
                self.empty_since = None;
                self.sync(conn, req.since).await;
            }
            Cmd::Leave { conn } => {
                self.conns.remove(&conn);
                if self.conns.is_empty() {
                    self.empty_since = Some(Instant::now());
                }
            }
            Cmd::Alive { conn } => {
                if let Some(c) = self.conns.get_mut(&conn) {
                    c.last_alive = Instant::now();
                }
            }
            Cmd::Client { conn, msg } => {
                if let Some(c) = self.conns.get_mut(&conn) {
                    c.last_alive = Instant::now();
                }
                self.on_client(conn, msg).await;
            }
            Cmd::Api { who, name, user_id, op, reply } => {
                let answer = self.on_api(&who, name, user_id, op).await;
                let _ = reply.send(answer);
            }
        }
    }

    /// A board-API request: the same judgement and commit as a socket's message.
    async fn on_api(
        &mut self,
        who: &[PlayerRef],
        name: String,
        user_id: Option<uuid::Uuid>,
        op: ApiOp,
    ) -> Result<(), ApiRefusal> {
        let Some(seat) = who.iter().find_map(|p| self.live.seat_of(p)) else {
            return Err(ApiRefusal::new(RefusalCode::NotAPlayer, "you do not play in this game"));
        };
        // Another instance may have committed a change whose notice has not arrived yet: an HTTP
        // client, unlike a socket, would not hear of it and resend, so catch up first.
        match db::games::find(&self.ctx.pool, self.live.id.as_str()).await {
            Ok(Some(row)) if row.version > self.live.version => self.reload().await,
            Ok(_) => {}
            Err(e) => tracing::warn!(game.id = %self.live.id, error = format!("{e:#}"), "reading the game's version"),
        }
        let text = match op {
            ApiOp::Chat(room, text) => return self.chat_line(room, Some(seat), name, user_id, &text).await,
            other => other,
        };
        // A conflict means another instance committed first; the round has reloaded: try again
        // on the current state, as the client meant.
        for _ in 0..3 {
            let now = OffsetDateTime::now_utc();
            let cfg = self.ctx.cfg.clone();
            self.on_deadline().await;
            let applied = match &text {
                ApiOp::Action(action) => {
                    let ply = self.live.actions.len();
                    self.commit_op(None, |live| live.play(seat, action, ply, None, now, &cfg)).await
                }
                ApiOp::Command(command) => {
                    let command = *command;
                    self.commit_op(None, |live| run_command(live, command, seat, None, now, &cfg)).await
                }
                ApiOp::Chat(..) => Applied::Done,
            };
            match applied {
                Applied::Done => return Ok(()),
                Applied::Refused(code, message) => return Err(ApiRefusal::new(code, message)),
                Applied::Conflict => {}
                Applied::Failed => {
                    return Err(ApiRefusal::new(RefusalCode::Unavailable, "the game could not be saved; try again"));
                }
            }
        }
        Err(ApiRefusal::new(RefusalCode::Stale, "the game kept changing meanwhile; try again"))
    }

    /// Brings a joining client up to date: missed events or a full resync, then its chat room,
    /// the connection state and the clocks.
    async fn sync(&mut self, conn: u64, since: Option<i32>) {
        let Some(seat_room) = self.conns.get(&conn).map(|c| (c.seat, c.room())) else { return };
        let (seat, room) = seat_room;
        let v = self.live.version;
        let max = self.cfg().max_replay_events;
        match since {
            Some(s) if s == v => {}
            Some(s) if s >= 1 && s < v && v - s <= max => {
                let rendered = match db::games::events_since(&self.ctx.pool, self.live.id.as_str(), s).await {
                    Ok(events) => self.render(s, &events),
                    Err(e) => {
                        tracing::warn!(error = format!("{e:#}"), "loading missed events");
                        None
                    }
                };
                match rendered {
                    Some(list) => {
                        for text in list {
                            self.send(conn, text);
                        }
                        let clocks = self.live.clocks_view(OffsetDateTime::now_utc(), self.cfg());
                        self.send(conn, protocol::msg("clocks", clocks));
                    }
                    None => {
                        let full = self.full(seat);
                        self.send(conn, full);
                    }
                }
            }
            _ => {
                let full = self.full(seat);
                self.send(conn, full);
            }
        }
        match db::games::recent_chat(&self.ctx.pool, self.live.id.as_str(), room.as_str(), CHAT_HISTORY).await {
            Ok(lines) => {
                let lines: Vec<Value> = lines.iter().map(chat_line).collect();
                self.send(conn, protocol::msg("chat_history", json!({"room": room.as_str(), "lines": lines})));
            }
            Err(e) => tracing::warn!(error = format!("{e:#}"), "loading chat"),
        }
        let crowd = self.crowd_view();
        self.send(conn, protocol::msg("crowd", crowd));
    }

    async fn on_client(&mut self, conn: u64, msg: ClientMsg) {
        let ack = msg.ack();
        let Some(seat) = self.conns.get(&conn).map(|c| c.seat) else { return };
        let now = OffsetDateTime::now_utc();
        match msg {
            ClientMsg::Ping => {}
            ClientMsg::Chat { room, text, .. } => self.chat(conn, room, &text, ack).await,
            ClientMsg::Action { action, ply, lag, .. } => {
                let Some(seat) = seat else {
                    return self.send(conn, protocol::error(RefusalCode::NotAPlayer, "spectators cannot play", ack));
                };
                self.on_deadline().await;
                let cfg = self.ctx.cfg.clone();
                self.apply(conn, ack, |live| live.play(seat, &action, ply, lag, now, &cfg)).await;
            }
            ClientMsg::Command { command, .. } => {
                let Some(seat) = seat else {
                    return self.send(conn, protocol::error(RefusalCode::NotAPlayer, "spectators cannot do that", ack));
                };
                self.on_deadline().await;
                let cfg = self.ctx.cfg.clone();
                let away = if matches!(command, Command::ClaimVictory | Command::ClaimDraw) {
                    self.away_cs(!seat, now).await
                } else {
                    0
                };
                self.apply(conn, ack, |live| run_command(live, command, seat, Some(away), now, &cfg)).await;
            }
        }
    }

    /// Runs an operation of a socket's player on a copy of the game, commits it, then
    /// acknowledges and announces it.
    async fn apply(&mut self, conn: u64, ack: Option<u64>, op: impl FnOnce(&mut Live) -> Result<Step, Refusal>) {
        match self.commit_op(ack.map(|a| (conn, a)), op).await {
            Applied::Done => {}
            Applied::Refused(code, message) => self.send(conn, protocol::error(code, &message, ack)),
            Applied::Conflict => {
                // Another tab or instance changed the game first: this one is refused and
                // gets the current state.
                self.send(
                    conn,
                    protocol::error(RefusalCode::Stale, "the game changed meanwhile; here is its state", ack),
                );
                let seat = self.conns.get(&conn).and_then(|c| c.seat);
                let full = self.full(seat);
                self.send(conn, full);
            }
            Applied::Failed => self
                .send(conn, protocol::error(RefusalCode::Unavailable, "the game could not be saved; try again", ack)),
        }
    }

    /// Runs an operation on a copy of the game and commits it; once committed, acknowledges
    /// `ack` (connection, id) when given, then announces the events and tells the players'
    /// accounts.
    async fn commit_op(
        &mut self,
        ack: Option<(u64, u64)>,
        op: impl FnOnce(&mut Live) -> Result<Step, Refusal>,
    ) -> Applied {
        let mut next = self.live.clone();
        let acknowledge = |round: &mut Round| {
            if let Some((conn, a)) = ack {
                round.send(conn, protocol::ack(a));
            }
        };
        match op(&mut next) {
            Err(Refusal::Duplicate) => {
                acknowledge(self);
                Applied::Done
            }
            Err(Refusal::Code(code, message)) => Applied::Refused(code, message),
            Ok(step) if step.events.is_empty() => {
                acknowledge(self);
                Applied::Done
            }
            Ok(mut step) => match store::commit(&self.ctx.pool, &mut next, &mut step, self.cfg()).await {
                Ok(events) => {
                    self.live = next;
                    acknowledge(self);
                    self.publish_local(&events);
                    announce(self.ctx.broker.as_ref(), &self.live.id, self.live.version).await;
                    crate::notify::after_step(self.ctx.broker.as_ref(), &self.live, &step).await;
                    Applied::Done
                }
                // A step of a running game never starts one, so `Busy` means as little as a
                // conflict: nothing was written.
                Err(CommitError::Conflict | CommitError::Busy(_)) => {
                    self.reload().await;
                    Applied::Conflict
                }
                Err(CommitError::Other(e)) => {
                    tracing::error!(game.id = %self.live.id, error = format!("{e:#}"), "commit failed");
                    Applied::Failed
                }
            },
        }
    }

    /// Plays for the bots of the game: answers the opponent's offers, and starts a search when a
    /// bot is to move and none runs for this position.
    async fn bot_turn(&mut self) {
        let bots: Vec<(Color, chessgold_bot::Level)> = self.live.bots().collect();
        if bots.is_empty() || self.bot_pause_until.is_some_and(|t| Instant::now() < t) {
            return;
        }
        let now = OffsetDateTime::now_utc();
        let cfg = self.ctx.cfg.clone();
        for (seat, _) in bots {
            let offers = self.live.offers;
            // The bot plays every game to its end: it declines draws. It grants takebacks (casual
            // games only, as every game against it is), as lichess's AI does.
            let result = if offers.draw == Some(!seat) {
                self.commit_op(None, |live| live.draw_no(seat)).await
            } else if offers.takeback == Some(!seat) {
                self.commit_op(None, |live| live.takeback_yes(seat, now, &cfg)).await
            } else if offers.rematch == Some(!seat) && self.live.rematch_id.is_none() {
                self.commit_op(None, |live| live.rematch_yes(seat)).await
            } else {
                continue;
            };
            if !matches!(result, Applied::Done) {
                tracing::warn!(game.id = %self.live.id, result = ?result, "a bot could not answer an offer");
                self.bot_pause_until = Some(Instant::now() + Duration::from_secs(1));
            }
        }
        let Some((_, level)) = self.live.bot_to_move() else {
            self.thinking = None;
            return;
        };
        let plies = self.live.actions.len();
        let fen = self.live.engine.fen();
        if self.thinking.as_ref().is_some_and(|t| t.plies == plies && t.fen == fen) {
            return;
        }
        let view = match bots::bot_view(self.live.engine.as_ref(), bots::move_seed()) {
            Ok(v) => v,
            Err(e) => {
                tracing::error!(game.id = %self.live.id, error = format!("{e:#}"), "no bot view");
                return self.bot_fallback().await;
            }
        };
        // No first move is due in a game with a bot, and the clocks start after both first
        // turns: the bot's first turn is planned on its whole clock, which does not run yet.
        let clock = match (self.live.clocks_at(now), self.live.clock) {
            (Some(c), Some(tc)) => {
                let side = self.live.engine.turn().index();
                Some((i64::from(c[side]) * 10, i64::from(tc.increment) * 10))
            }
            _ => None,
        };
        let limits = bots::limits(clock, &cfg);
        // A quarter of the time left on the running clock may go on waiting for a search slot;
        // where nothing runs (unlimited games, the first turns) the wait costs nothing.
        let max_wait = self.live.deadline(&cfg).map(|d| {
            let left = (d - now).whole_milliseconds().max(0);
            Duration::from_millis(u64::try_from(left / 4).unwrap_or(0))
        });
        let (tx, answer) = oneshot::channel();
        let thinkers = self.ctx.thinkers.clone();
        let seed = bots::move_seed();
        tokio::spawn(async move {
            let action = thinkers.think(view, level, limits, seed, max_wait).await;
            let _ = tx.send(action);
        });
        self.thinking = Some(Thinking { plies, fen, answer });
    }

    /// The bot's search answered: plays the action if the position is still the one it was asked
    /// about.
    async fn on_thought(&mut self, answer: Option<String>) {
        let Some(asked) = self.thinking.take() else { return };
        // A clock that ran out meanwhile ends the game first.
        self.on_deadline().await;
        let Some((seat, _)) = self.live.bot_to_move() else { return };
        let plies = self.live.actions.len();
        if asked.plies != plies || asked.fen != self.live.engine.fen() {
            // The game moved on meanwhile (a reload): `bot_turn` asks again.
            return;
        }
        let Some(action) = answer else {
            tracing::warn!(game.id = %self.live.id, "the bot's search gave no action");
            return self.bot_fallback().await;
        };
        let now = OffsetDateTime::now_utc();
        let cfg = self.ctx.cfg.clone();
        match self.commit_op(None, |live| live.play(seat, &action, plies, None, now, &cfg)).await {
            Applied::Done | Applied::Conflict => {}
            Applied::Failed => self.bot_pause_until = Some(Instant::now() + Duration::from_secs(1)),
            Applied::Refused(code, message) => {
                tracing::error!(game.id = %self.live.id, code = %code, message, action, "the bot's action was refused");
                self.bot_fallback().await;
            }
        }
    }

    /// When the search fails: the bot plays a random legal action rather than stall (its clock
    /// would run out anyway).
    async fn bot_fallback(&mut self) {
        let Some((seat, _)) = self.live.bot_to_move() else { return };
        let legal = self.live.engine.legal_actions();
        if legal.is_empty() {
            return;
        }
        let pick = legal[(bots::move_seed() % legal.len() as u64) as usize].clone();
        let plies = self.live.actions.len();
        let now = OffsetDateTime::now_utc();
        let cfg = self.ctx.cfg.clone();
        let result = self.commit_op(None, |live| live.play(seat, &pick, plies, None, now, &cfg)).await;
        if !matches!(result, Applied::Done) {
            tracing::error!(game.id = %self.live.id, result = ?result, "the bot's fallback action failed");
            self.bot_pause_until = Some(Instant::now() + Duration::from_secs(1));
        }
    }

    /// Sends freshly committed events to this instance's sockets.
    fn publish_local(&mut self, events: &[(i32, Event)]) {
        let state = serde_json::to_value(self.live.snapshot()).unwrap_or(Value::Null);
        for (v, ev) in events {
            let mut d = ev.d.clone();
            if (ev.t == "move" || ev.t == "takeback")
                && let Some(obj) = d.as_object_mut()
            {
                obj.insert("state".into(), state.clone());
            }
            let text = protocol::event(ev.t, *v, &d);
            self.send_all(&text, None);
        }
        self.forwarded = self.live.version;
    }

    /// Reloads the game from the database and forwards what this instance's sockets missed.
    async fn reload(&mut self) {
        match store::load(&self.ctx.pool, &self.live.id).await {
            Ok(Some(live)) => self.live = live,
            Ok(None) => return,
            Err(e) => {
                tracing::error!(game.id = %self.live.id, error = format!("{e:#}"), "reload failed");
                return;
            }
        }
        if self.live.version <= self.forwarded {
            return;
        }
        let since = self.forwarded;
        let rendered = match db::games::events_since(&self.ctx.pool, self.live.id.as_str(), since).await {
            Ok(events) => self.render(since, &events),
            Err(_) => None,
        };
        match rendered {
            Some(list) => {
                for text in list {
                    self.send_all(&text, None);
                }
            }
            None => self.send_full_to_all(),
        }
        self.forwarded = self.live.version;
    }

    async fn on_broker(&mut self, text: &str) {
        let Ok(msg) = serde_json::from_str::<Value>(text) else { return };
        match msg.get("kind").and_then(Value::as_str) {
            Some("event") => {
                let v = msg.get("v").and_then(Value::as_i64).unwrap_or(0) as i32;
                if v > self.live.version {
                    self.reload().await;
                }
            }
            Some("chat") => {
                let room = match msg.get("room").and_then(Value::as_str) {
                    Some("player") => Room::Player,
                    Some("spectator") => Room::Spectator,
                    _ => return,
                };
                let line = msg.get("line").cloned().unwrap_or(Value::Null);
                let out = protocol::msg("chat", json!({"room": room.as_str(), "line": line}));
                self.send_all(&out, Some(room));
            }
            _ => {}
        }
    }

    /// Ends the game when its deadline has passed (first move overdue, a flag).
    async fn on_deadline(&mut self) {
        let now = OffsetDateTime::now_utc();
        let mut next = self.live.clone();
        let Some(mut step) = next.tick(now, self.cfg()) else { return };
        match store::commit(&self.ctx.pool, &mut next, &mut step, self.cfg()).await {
            Ok(events) => {
                self.live = next;
                self.publish_local(&events);
                announce(self.ctx.broker.as_ref(), &self.live.id, self.live.version).await;
                crate::notify::after_step(self.ctx.broker.as_ref(), &self.live, &step).await;
            }
            Err(CommitError::Conflict | CommitError::Busy(_)) => self.reload().await,
            Err(CommitError::Other(e)) => {
                tracing::error!(game.id = %self.live.id, error = format!("{e:#}"), "could not end a game");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    }

    async fn chat(&mut self, conn: u64, room: Room, text: &str, ack: Option<u64>) {
        let Some(c) = self.conns.get(&conn) else { return };
        if c.room() != room {
            let why = if room == Room::Player {
                "only players write in the players' chat"
            } else {
                "players do not write in the spectators' chat"
            };
            return self.send(conn, protocol::error(RefusalCode::WrongChatRoom, why, ack));
        }
        let (seat, name, user_id) = (c.seat, c.name.clone(), c.user_id);
        match self.chat_line(room, seat, name, user_id, text).await {
            Ok(()) => {
                if let Some(a) = ack {
                    self.send(conn, protocol::ack(a));
                }
            }
            Err(e) => self.send(conn, protocol::error(e.code, &e.message, ack)),
        }
    }

    /// Checks, stores and announces a chat line of a room's member.
    async fn chat_line(
        &mut self,
        room: Room,
        seat: Option<Color>,
        name: String,
        user_id: Option<uuid::Uuid>,
        text: &str,
    ) -> Result<(), ApiRefusal> {
        let clean: String = text.chars().filter(|ch| !ch.is_control()).collect::<String>().trim().to_string();
        if clean.is_empty() {
            return Err(ApiRefusal::new(RefusalCode::ChatEmpty, "the line is empty"));
        }
        let max = self.cfg().chat_max_chars;
        if clean.chars().count() > max {
            return Err(ApiRefusal::new(RefusalCode::ChatTooLong, format!("a line has at most {max} characters")));
        }
        let line = ChatRow {
            room: room.as_str().to_string(),
            author: name,
            color: seat.map(|s| s.name().to_string()),
            text: clean,
            at: OffsetDateTime::now_utc(),
        };
        if let Err(e) = db::games::insert_chat(&self.ctx.pool, self.live.id.as_str(), &line, user_id).await {
            tracing::error!(error = format!("{e:#}"), "storing a chat line");
            return Err(ApiRefusal::new(RefusalCode::Unavailable, "the line could not be saved"));
        }
        let notice = json!({"kind": "chat", "room": room.as_str(), "line": chat_line(&line)}).to_string();
        if self.ctx.broker.publish(&channel(&self.live.id), &notice).await.is_err() {
            // Without the broker at least this instance's sockets hear it.
            self.on_broker(&notice).await;
        }
        Ok(())
    }

    /// Centiseconds since the seat's socket was last seen anywhere (0 while connected here).
    async fn away_cs(&mut self, seat: Color, now: OffsetDateTime) -> i64 {
        if self.locally_alive(seat) {
            return 0;
        }
        if let Ok(rows) = db::games::touch_seats(&self.ctx.pool, self.live.id.as_str(), &[]).await {
            self.store_last_seen(rows);
        }
        let since = self.last_seen[seat.index()].or(self.live.started_at).unwrap_or(now);
        cs_between(since, now)
    }

    fn locally_alive(&self, seat: Color) -> bool {
        // A bot is always there: no claims against it, no "away" for it.
        if self.live.seats[seat.index()].as_ref().is_some_and(|s| s.bot.is_some()) {
            return true;
        }
        let idle = Duration::from_secs(self.cfg().socket_idle_secs);
        self.conns.values().any(|c| c.seat == Some(seat) && c.last_alive.elapsed() < idle)
    }

    fn store_last_seen(&mut self, rows: Vec<(String, Option<OffsetDateTime>)>) {
        for (color, at) in rows {
            if let Some(c) = parse_color(&color) {
                self.last_seen[c.index()] = at;
            }
        }
    }

    fn crowd_view(&self) -> Value {
        let now = OffsetDateTime::now_utc();
        let mut away = serde_json::Map::new();
        let mut on = [false; 2];
        for c in Color::ALL {
            let seen_recently =
                self.last_seen[c.index()].is_some_and(|t| (now - t).whole_seconds() < CONNECTED_WITHIN_SECS);
            on[c.index()] = self.locally_alive(c) || seen_recently;
            if !on[c.index()] && self.live.seats[c.index()].is_some() {
                let since = self.last_seen[c.index()].or(self.live.started_at).unwrap_or(self.live.created_at);
                away.insert(c.name().into(), Value::from((now - since).whole_seconds().max(0)));
            }
        }
        json!({"white": on[0], "black": on[1], "away": away})
    }

    /// Records this instance's live seats, reads everyone's, and tells the sockets when the
    /// connection state changed.
    async fn presence(&mut self) {
        let idle = Duration::from_secs(self.cfg().socket_idle_secs);
        if self.conns.is_empty() {
            if self.empty_since.is_none() {
                self.empty_since = Some(Instant::now());
            }
            return;
        }
        let stale: Vec<u64> =
            self.conns.iter().filter(|(_, c)| c.last_alive.elapsed() >= idle).map(|(id, _)| *id).collect();
        for id in stale {
            self.conns.remove(&id);
        }
        if !self.live.status.is_live() && self.live.offers.rematch.is_none() && self.crowd.is_some() {
            return;
        }
        let alive: Vec<String> =
            Color::ALL.into_iter().filter(|c| self.locally_alive(*c)).map(|c| c.name().to_string()).collect();
        match db::games::touch_seats(&self.ctx.pool, self.live.id.as_str(), &alive).await {
            Ok(rows) => self.store_last_seen(rows),
            Err(e) => tracing::warn!(error = format!("{e:#}"), "recording presence"),
        }
        let view = self.crowd_view();
        let flags = |v: &Value| (v.get("white").cloned(), v.get("black").cloned());
        let changed = self.crowd.as_ref().is_none_or(|old| flags(old) != flags(&view));
        let someone_away = view.get("away").and_then(Value::as_object).is_some_and(|m| !m.is_empty());
        if changed || someone_away {
            self.send_all(&protocol::msg("crowd", view.clone()), None);
        }
        self.crowd = Some(view);
    }
}

fn chat_line(line: &ChatRow) -> Value {
    let at = line.at.format(&time::format_description::well_known::Rfc3339).unwrap_or_default();
    json!({"author": line.author, "color": line.color, "text": line.text, "at": at})
}
