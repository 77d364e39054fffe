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
//!
//! The round is split by concern: this module is the actor (its commands, its loop, the sockets
//! it serves); `commit` is the one path by which a change is committed, told to this
//! instance's sockets, announced to the other instances and to the players' accounts; `resync`
//! brings a client up to date; `bot` plays for bots; `chat` and `presence` are the rooms' chat
//! and who is connected.

mod bot;
mod chat;
mod commit;
mod presence;
mod resync;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chessgold_engine::Color;
use sqlx::PgPool;
use time::OffsetDateTime;
use tokio::sync::{mpsc, oneshot};

use self::bot::{Thinking, next_thought};
pub use self::commit::{Notice, announce, channel, commit_and_announce};
use self::presence::PRESENCE_EVERY;
use super::GameId;
use super::health::{Availability, DbHealth};
use super::model::{Game, PlayerRef, Refusal, Step};
use super::protocol::{self, ClientMsg, Command, Room};
use super::refusal::RefusalCode;
use super::store;
use super::view;
use crate::bots::Thinkers;
use crate::broker::{Broker, Delivery, Feed};
use crate::db;
use crate::settings::GameSettings;

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

/// A message to a round: a socket joining, leaving, alive or sending a client message, or a
/// request of the board API. (A player's game command, `protocol::Command`, travels inside
/// [`Msg::Client`] and [`Msg::Api`].)
#[derive(Debug)]
pub enum Msg {
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

/// The `service` message: `{"available": false, "since": "..."}` while the database is down,
/// `{"available": true, "clocks": {...}}` once play resumes.
fn service(now: Availability, live: &Game, cfg: &GameSettings) -> String {
    match now {
        Availability::Down { since } => {
            let since = since.format(&time::format_description::well_known::Rfc3339).unwrap_or_default();
            protocol::msg("service", serde_json::json!({"available": false, "since": since}))
        }
        Availability::Up => {
            let clocks = view::clocks(live, OffsetDateTime::now_utc(), cfg);
            protocol::msg("service", serde_json::json!({"available": true, "clocks": view::value(&clocks)}))
        }
    }
}

/// A player's game command on the game. `away` is how long the opponent has been away
/// (centiseconds), which claims read.
fn run_command(
    live: &mut Game,
    command: Command,
    seat: Color,
    away: i64,
    now: OffsetDateTime,
    cfg: &GameSettings,
) -> Result<Step, Refusal> {
    match command {
        Command::Abort => live.abort(now, cfg),
        Command::Resign => live.resign(seat, now, cfg),
        Command::DrawYes => live.draw_yes(seat, now, cfg),
        Command::DrawNo => live.draw_no(seat),
        Command::TakebackYes => live.takeback_yes(seat, now, cfg),
        Command::TakebackNo => live.takeback_no(seat),
        Command::RematchYes => live.rematch_yes(seat),
        Command::RematchNo => live.rematch_no(seat),
        Command::ClaimVictory => live.claim(seat, true, away, now, cfg),
        Command::ClaimDraw => live.claim(seat, false, away, now, cfg),
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
            let cmd = Msg::Api { who: who.clone(), name: name.clone(), user_id, op: op.clone(), reply };
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
    /// Whether PostgreSQL answers, as this instance last found it.
    pub health: Arc<DbHealth>,
}

/// The rounds of this instance.
#[derive(Debug)]
pub struct Rounds {
    ctx: RoundCtx,
    map: Mutex<HashMap<String, (u64, mpsc::Sender<Msg>)>>,
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
    pub fn get(self: &Arc<Self>, id: &GameId) -> mpsc::Sender<Msg> {
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
    ) -> Result<(mpsc::Sender<Msg>, Option<Color>), JoinError> {
        // A round that is stopping answers `Gone`: the next `get` starts a fresh one.
        for _ in 0..3 {
            let tx = self.get(id);
            let (reply, answer) = oneshot::channel();
            if tx.send(Msg::Join { conn, req: req.clone(), reply }).await.is_err() {
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
    live: Game,
    conns: HashMap<u64, Conn>,
    /// Room version last sent to this instance's sockets.
    forwarded: i32,
    /// The engine's state at room version `forwarded`, as this instance's sockets hold it, when
    /// the round knows it: the next `move` is sent to them as a patch of it.
    told: Option<serde_json::Value>,
    /// Connection state last sent: (connected, away seconds) per seat.
    crowd: Option<view::Crowd>,
    last_seen: [Option<OffsetDateTime>; 2],
    /// Alone on the in-process broker: which seats were alive when presence was last written to
    /// the database, and when (see `presence`).
    presence_written: Option<([bool; 2], Instant)>,
    empty_since: Option<Instant>,
    /// The bot's search under way, if any.
    thinking: Option<Thinking>,
    /// No new bot search before this (after a failed bot move).
    bot_pause_until: Option<Instant>,
}

async fn run(rounds: Arc<Rounds>, id: GameId, token: u64, mut rx: mpsc::Receiver<Msg>) {
    let ctx = rounds.ctx.clone();
    // Subscribe before loading, so no change between the two is missed.
    // The feed subscribes again whenever the subscription ends; the round then reloads.
    let mut feed = Feed::open(ctx.broker.clone(), &channel(&id)).await;
    let live = match store::load(&ctx.pool, &id).await {
        Ok(Some(live)) => live,
        other => {
            if let Err(e) = other {
                tracing::error!(game.id = %id, error = format!("{e:#}"), "could not load a game");
            }
            rounds.remove(&id, token);
            rx.close();
            while let Some(cmd) = rx.recv().await {
                if let Msg::Join { reply, .. } = cmd {
                    let _ = reply.send(Err(JoinError::NotFound));
                }
            }
            return;
        }
    };
    let mut round = Round {
        forwarded: live.version,
        told: None,
        live,
        ctx: ctx.clone(),
        conns: HashMap::new(),
        crowd: None,
        last_seen: [None, None],
        presence_written: None,
        empty_since: Some(Instant::now()),
        thinking: None,
        bot_pause_until: None,
    };
    let mut health = ctx.health.watch();
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
            delivery = feed.next() => match delivery {
                Delivery::Message(m) => round.on_broker(&m).await,
                // Notices may have been lost meanwhile: catch up from the database.
                Delivery::Resumed => round.catch_up_after_gap().await,
            },
            () = tokio::time::sleep(wait) => round.on_deadline().await,
            Ok(()) = health.changed() => {
                let now = *health.borrow_and_update();
                round.on_health(now).await;
            }
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
        if let Msg::Join { reply, .. } = cmd {
            let _ = reply.send(Err(JoinError::Gone));
        }
    }
}

impl Round {
    fn cfg(&self) -> &GameSettings {
        &self.ctx.cfg
    }

    fn until_deadline(&self) -> Duration {
        // During an outage no deadline is enforced; the end of the outage wakes the round.
        if self.ctx.health.is_down() {
            return Duration::from_secs(3600);
        }
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

    async fn handle(&mut self, cmd: Msg) {
        match cmd {
            Msg::Join { conn, req, reply } => {
                let seat = req.who.iter().find_map(|p| self.live.seat_of(p));
                let _ = reply.send(Ok(seat));
                self.conns.insert(
                    conn,
                    Conn { tx: req.tx, seat, name: req.name, user_id: req.user_id, last_alive: Instant::now() },
                );
                self.empty_since = None;
                self.sync(conn, req.since).await;
                if self.ctx.health.is_down() {
                    let text = service(self.ctx.health.now(), &self.live, self.cfg());
                    self.send(conn, text);
                }
            }
            Msg::Leave { conn } => {
                self.conns.remove(&conn);
                if self.conns.is_empty() {
                    self.empty_since = Some(Instant::now());
                }
            }
            Msg::Alive { conn } => {
                if let Some(c) = self.conns.get_mut(&conn) {
                    c.last_alive = Instant::now();
                }
            }
            Msg::Client { conn, msg } => {
                if let Some(c) = self.conns.get_mut(&conn) {
                    c.last_alive = Instant::now();
                }
                self.on_client(conn, msg).await;
            }
            Msg::Api { who, name, user_id, op, reply } => {
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
                    let away = self.away_for(command, seat, now).await;
                    self.commit_op(None, |live| run_command(live, command, seat, away, now, &cfg)).await
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
                let away = self.away_for(command, seat, now).await;
                self.apply(conn, ack, |live| run_command(live, command, seat, away, now, &cfg)).await;
            }
        }
    }

    /// Runs an operation of a socket's player on a copy of the game, commits it, then
    /// acknowledges and announces it. When another instance committed first (two players saying
    /// "rematch" at once on two instances), the operation is judged again on the reloaded game,
    /// as the player meant it on the state they will now see.
    async fn apply(&mut self, conn: u64, ack: Option<u64>, op: impl Fn(&mut Game) -> Result<Step, Refusal>) {
        for _ in 0..3 {
            match self.commit_op(ack.map(|a| (conn, a)), &op).await {
                Applied::Done => return,
                Applied::Refused(code, message) => return self.send(conn, protocol::error(code, &message, ack)),
                Applied::Conflict => {}
                Applied::Failed => {
                    return self.send(
                        conn,
                        protocol::error(RefusalCode::Unavailable, "the game could not be saved; try again", ack),
                    );
                }
            }
        }
        // The game kept changing: this one is refused and gets the current state.
        self.send(conn, protocol::error(RefusalCode::Stale, "the game changed meanwhile; here is its state", ack));
        let seat = self.conns.get(&conn).and_then(|c| c.seat);
        let full = self.full(seat);
        self.send(conn, full);
    }

    /// The database went down or came back: the sockets are told; once back, the game is
    /// reloaded (the outage was given back to its clock) and the sockets get the clocks.
    async fn on_health(&mut self, now: Availability) {
        if now == Availability::Up {
            self.reload().await;
        }
        let text = service(now, &self.live, self.cfg());
        self.send_all(&text, None);
    }

    async fn on_broker(&mut self, text: &str) {
        // Anything else on the channel is not for rounds.
        let Ok(notice) = serde_json::from_str::<Notice>(text) else { return };
        self.on_notice(notice).await;
    }

    async fn on_notice(&mut self, notice: Notice) {
        match notice {
            Notice::Event { v } => {
                if v > self.live.version {
                    self.reload().await;
                }
            }
            Notice::Chat { room, line, author, shadow } => self.deliver_chat(room, &line, author, shadow).await,
        }
    }
}
