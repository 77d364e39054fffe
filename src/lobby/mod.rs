//! Finding a game: the lobby's seeks and quick pairing (issue 6).
//!
//! Seeks live in PostgreSQL (shared by every instance), each held by one lobby socket (its `sri`,
//! a random id the page makes) that renews it while connected. Pools live in a [`pools::Pools`]
//! store. Every change travels as a [`HubMsg`] on the broker channel `lobby`; each instance
//! subscribes once and fans the messages out to its own lobby sockets.

pub mod challenge;
pub mod http;
pub mod pools;
pub mod socket;

use std::sync::Arc;
use std::time::Duration;

use chessgold_engine::Color;
use chessgold_engine::registry::variant;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use time::OffsetDateTime;
use tokio::sync::broadcast;
use uuid::Uuid;

use self::pools::{PoolEntry, Pools, Widening};
use crate::broker::{Broker, Delivery, Feed};
use crate::db;
use crate::db::lobby::SeekRow;
use crate::game::model::{CreateGame, PlayerRef};
use crate::game::store::{self, CreateError};
use crate::game::{GameId, TimeControl};
use crate::settings::GameSettings;

/// The broker channel of the lobby.
pub const CHANNEL: &str = "lobby";
/// How long a seek lives without its socket's renewal.
pub const SEEK_TTL_SECS: i64 = 40;
/// Live seeks one player may hold.
pub const MAX_SEEKS: i64 = 5;
/// The most live seeks from one address (guests behind it, or one guest clearing its cookie).
pub const MAX_SEEKS_PER_ADDRESS: i64 = 20;

/// A seek as it travels between instances (with its owner, never shown to others).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seek {
    /// 8 base62 characters.
    pub id: String,
    /// The owner's account.
    pub user_id: Option<Uuid>,
    /// The owner's guest id.
    pub guest_id: Option<String>,
    /// The holding socket.
    pub sri: String,
    /// The name shown.
    pub name: String,
    /// The owner's rating in the variant.
    pub rating: Option<i32>,
    /// Provisional rating.
    pub provisional: bool,
    /// Variant id.
    pub variant: String,
    /// `3+2`, or `None` for unlimited.
    pub time: Option<String>,
    /// Rated.
    pub rated: bool,
    /// The owner's colour: `white`, `black`, `random`.
    pub color: String,
    /// Rating range of who may accept.
    pub range: Option<(i32, i32)>,
    /// The owner has an engine or booster mark: only marked players may accept it
    /// ([`mark_owners`]).
    #[serde(default)]
    pub owner_marked: bool,
}

impl Seek {
    /// From its stored row.
    pub fn from_row(r: &SeekRow) -> Seek {
        let time = match (r.clock_limit, r.clock_increment) {
            (Some(limit), Some(increment)) => Some(TimeControl { limit, increment }.show()),
            _ => None,
        };
        Seek {
            id: r.id.clone(),
            user_id: r.user_id,
            guest_id: r.guest_id.clone(),
            sri: r.conn.clone(),
            name: r.name.clone(),
            rating: r.rating,
            provisional: r.provisional,
            variant: r.variant.clone(),
            time,
            rated: r.rated,
            color: r.color.clone(),
            range: r.rating_min.zip(r.rating_max),
            owner_marked: false,
        }
    }

    /// Whether the viewer owns it.
    pub fn owned_by(&self, viewer: &Viewer) -> bool {
        self.sri == viewer.sri
            || self.user_id.is_some_and(|u| viewer.user_id == Some(u))
            || self.guest_id.as_ref().is_some_and(|g| viewer.guest_id.as_ref() == Some(g))
    }

    /// Why the viewer may not accept it, if they may not.
    pub fn refusal(&self, viewer: &Viewer) -> Option<&'static str> {
        if self.owned_by(viewer) {
            return Some("this is your own seek");
        }
        if self.rated && viewer.user_id.is_none() {
            return Some("rated games are for registered players");
        }
        if self.user_id.is_some_and(|u| viewer.barred.contains(&u)) {
            return Some("one of you blocks the other");
        }
        // As the pools pair (`BlockedPairs::may_pair`): marked players only with each other.
        if self.owner_marked != viewer.marked {
            return Some("this seek cannot be accepted");
        }
        if let Some((lo, hi)) = self.range {
            let r = viewer.rating(&self.variant);
            if r < lo || r > hi {
                return Some("your rating is outside the seek's range");
            }
        }
        None
    }

    /// Shown to the viewer: their own seeks, and the others they may accept.
    pub fn visible_to(&self, viewer: &Viewer) -> bool {
        self.owned_by(viewer) || self.refusal(viewer).is_none()
    }

    /// The client's view.
    pub fn view(&self, viewer: &Viewer) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "user": self.user_id.is_some(),
            "rating": self.rating,
            "provisional": self.provisional,
            "variant": self.variant,
            "variant_name": variant(&self.variant).map_or(self.variant.as_str(), |v| v.name),
            "time": self.time.as_deref().unwrap_or("unlimited"),
            "rated": self.rated,
            "color": self.color,
            "range": self.range.map(|(a, b)| [a, b]),
            "own": self.owned_by(viewer),
        })
    }
}

/// Sets [`Seek::owner_marked`] of each seek from the marks in force.
///
/// # Errors
/// Database failures.
pub async fn mark_owners(pool: &sqlx::PgPool, seeks: &mut [Seek]) -> anyhow::Result<()> {
    let owners: Vec<Uuid> = seeks.iter().filter_map(|s| s.user_id).collect();
    let marked = crate::moderation::marks::marked_among(pool, &owners).await?;
    for s in seeks {
        s.owner_marked = s.user_id.is_some_and(|u| marked.contains(&u));
    }
    Ok(())
}

/// Who looks at the lobby: the socket and the player behind it.
#[derive(Debug, Clone, Default)]
pub struct Viewer {
    /// The socket id.
    pub sri: String,
    /// The account.
    pub user_id: Option<Uuid>,
    /// The guest id.
    pub guest_id: Option<String>,
    /// Ratings by variant (1500 where none).
    pub ratings: Vec<(String, i32)>,
    /// The accounts the viewer blocks or is blocked by: their seeks are neither shown nor
    /// accepted.
    pub barred: std::collections::HashSet<Uuid>,
    /// The viewer has an engine or booster mark.
    pub marked: bool,
}

impl Viewer {
    /// Reads the viewer's blocks and mark (a guest has neither).
    ///
    /// # Errors
    /// Database failures.
    pub async fn read_standing(&mut self, pool: &sqlx::PgPool) -> anyhow::Result<()> {
        if let Some(u) = self.user_id {
            self.barred = crate::moderation::blocks::blocked_with(pool, u).await?;
            self.marked = !crate::moderation::marks::marked_among(pool, &[u]).await?.is_empty();
        }
        Ok(())
    }

    /// The rating in a variant.
    pub fn rating(&self, variant_id: &str) -> i32 {
        self.ratings.iter().find(|(v, _)| v == variant_id).map_or(crate::rating::START, |(_, r)| *r)
    }
}

/// What the lobby's instances tell each other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", content = "d", rename_all = "snake_case")]
pub enum HubMsg {
    /// A new seek.
    SeekAdd(Seek),
    /// Seeks gone (accepted, cancelled, expired, their owner left or started a game).
    SeekRemove(Vec<String>),
    /// This instance's lobby missed messages (its broker subscription was lost and restored):
    /// its sockets get the whole seek list again. Never sent between instances.
    Resync,
    /// A game started for the sockets listed.
    Redirect {
        /// The sockets to send there.
        sris: Vec<String>,
        /// The game id.
        game: String,
    },
}

/// The lobby of this instance.
#[derive(Debug)]
pub struct Lobby {
    broker: Arc<dyn Broker>,
    /// The pool store.
    pub pools: Arc<dyn Pools>,
    local: broadcast::Sender<HubMsg>,
}

impl Lobby {
    /// Starts the lobby: subscribes to the broker channel (retrying while the broker is away)
    /// and fans its messages out to this instance's sockets.
    pub fn start(broker: Arc<dyn Broker>, pools: Arc<dyn Pools>) -> Arc<Lobby> {
        let (local, _) = broadcast::channel(1024);
        let lobby = Arc::new(Lobby { broker: broker.clone(), pools, local: local.clone() });
        tokio::spawn(async move {
            let mut feed = Feed::open(broker, CHANNEL).await;
            loop {
                match feed.next().await {
                    Delivery::Message(text) => match serde_json::from_str::<HubMsg>(&text) {
                        Ok(m) => {
                            let _ = local.send(m);
                        }
                        Err(e) => tracing::warn!(error = %e, "a lobby message could not be read"),
                    },
                    // Seeks added or removed meanwhile were not heard: the sockets get the list.
                    Delivery::Resumed => {
                        let _ = local.send(HubMsg::Resync);
                    }
                }
            }
        });
        lobby
    }

    /// The broker the lobby speaks through.
    pub fn broker(&self) -> &dyn Broker {
        self.broker.as_ref()
    }

    /// Receives what the lobby says from now on.
    pub fn listen(&self) -> broadcast::Receiver<HubMsg> {
        self.local.subscribe()
    }

    /// Tells every instance.
    pub async fn publish(&self, msg: &HubMsg) {
        match serde_json::to_string(msg) {
            Ok(text) => {
                if let Err(e) = self.broker.publish(CHANNEL, &text).await {
                    tracing::warn!(error = %e, "publishing to the lobby failed");
                }
            }
            Err(e) => tracing::warn!(error = %e, "a lobby message could not be written"),
        }
    }

    /// Removes seeks and says so.
    pub async fn removed(&self, ids: Vec<String>) {
        if !ids.is_empty() {
            self.publish(&HubMsg::SeekRemove(ids)).await;
        }
    }
}

/// The player key of the pools: never paired with itself.
pub fn player_key(who: &PlayerRef) -> String {
    match who {
        PlayerRef::User(id) => format!("u:{id}"),
        PlayerRef::Guest(g) => format!("g:{g}"),
        PlayerRef::Bot(level) => format!("b:{level}"),
    }
}

/// What the lobby needs from the application.
#[derive(Debug, Clone)]
pub struct LobbyCtx {
    /// PostgreSQL.
    pub pool: sqlx::PgPool,
    /// The lobby.
    pub lobby: Arc<Lobby>,
    /// Live-game settings.
    pub cfg: Arc<GameSettings>,
}

/// Once players start a game: their seeks and pool entries go.
///
/// # Errors
/// Database or pool-store failures.
pub async fn players_started(ctx: &LobbyCtx, players: &[PlayerRef]) -> anyhow::Result<()> {
    let users: Vec<Uuid> =
        players.iter().filter_map(|p| if let PlayerRef::User(u) = p { Some(*u) } else { None }).collect();
    let guests: Vec<String> =
        players.iter().filter_map(|p| if let PlayerRef::Guest(g) = p { Some(g.clone()) } else { None }).collect();
    let ids = db::lobby::remove_of_players(&ctx.pool, &users, &guests).await?;
    ctx.lobby.removed(ids).await;
    for p in players {
        ctx.lobby.pools.leave_player(&player_key(p)).await?;
    }
    Ok(())
}

/// Starts a game between two players from the lobby, sends both sockets there.
///
/// # Errors
/// The game cannot be created.
pub async fn start_game(ctx: &LobbyCtx, request: CreateGame, sris: Vec<String>) -> Result<GameId, CreateError> {
    let players: Vec<PlayerRef> =
        [Some(request.creator.clone()), request.opponent.clone()].into_iter().flatten().collect();
    // A marked account meets only marked ones in the lobby (the pool matcher already keeps to
    // that; this is for an accepted seek).
    if let (PlayerRef::User(a), Some(PlayerRef::User(b))) = (&request.creator, &request.opponent)
        && !crate::moderation::marks::may_meet(&ctx.pool, *a, *b).await?
    {
        return Err(CreateError::Invalid("this seek cannot be accepted".into()));
    }
    let id = store::create_game(&ctx.pool, request, &ctx.cfg).await?;
    ctx.lobby.publish(&HubMsg::Redirect { sris, game: id.to_string() }).await;
    game_started(ctx, &players, &id).await;
    Ok(id)
}

/// A game of `players` has started at once (a pairing, an accepted seek or challenge, a game
/// against the computer): their seeks and pool places go, and their event streams hear of it
/// (`gameStart`). A failure to clear the seeks is logged: the game is on all the same.
pub async fn game_started(ctx: &LobbyCtx, players: &[PlayerRef], game: &GameId) {
    if let Err(e) = players_started(ctx, players).await {
        tracing::warn!(error = format!("{e:#}"), "clearing the players' seeks failed");
    }
    crate::notify::send_players(
        ctx.lobby.broker(),
        players,
        &crate::notify::UserMsg::GameStart { game: game.to_string() },
    )
    .await;
}

/// A random colour.
///
/// # Errors
/// No randomness.
pub fn random_color() -> anyhow::Result<Color> {
    let mut b = [0u8; 1];
    getrandom::fill(&mut b).map_err(|e| anyhow::anyhow!("no randomness: {e}"))?;
    Ok(if b[0] & 1 == 0 { Color::White } else { Color::Black })
}

fn entry_player(e: &PoolEntry) -> Option<PlayerRef> {
    match (&e.user_id, &e.guest_id) {
        (Some(u), _) => Some(PlayerRef::User(*u)),
        (None, Some(g)) => Some(PlayerRef::Guest(g.clone())),
        _ => None,
    }
}

/// One matcher pass: pairs from the pools become games. Returns the games started.
///
/// # Errors
/// Pool-store failures.
pub async fn match_once(ctx: &LobbyCtx, now_ms: i64) -> anyhow::Result<Vec<GameId>> {
    // The blocks and marks among the waiting accounts, read before the pass: an account that joins
    // meanwhile waits for the next one (`pools::pair`).
    let mut users: Vec<Uuid> = ctx.lobby.pools.entries().await?.iter().filter_map(|e| e.user_id).collect();
    users.sort_unstable();
    users.dedup();
    // A play-banned account is left unchecked, so it waits in its pool until the ban ends.
    let mut free = Vec::with_capacity(users.len());
    for u in users {
        if crate::moderation::playban::play_ban(&ctx.pool, u).await?.is_none() {
            free.push(u);
        }
    }
    let users = free;
    let blocks = crate::moderation::blocks::pairs_among(&ctx.pool, &users).await?;
    let pairs = ctx.lobby.pools.take_pairs(now_ms, Widening::default(), blocks).await?;
    let mut games = Vec::new();
    for (a, b) in pairs {
        let (Some(pa), Some(pb)) = (entry_player(&a), entry_player(&b)) else { continue };
        let Ok(Some(clock)) = TimeControl::parse_offer(&a.pool.time) else { continue };
        // A player who started a clocked game elsewhere since joining (a challenge, a friend's
        // game, another instance's pairing) cannot start this one: their place goes, and the
        // other player waits on with the place they had.
        let (a_busy, b_busy) = (
            store::busy(&ctx.pool, std::slice::from_ref(&pa)).await?,
            store::busy(&ctx.pool, std::slice::from_ref(&pb)).await?,
        );
        if a_busy.is_some() || b_busy.is_some() {
            requeue(ctx, [(a, a_busy.is_none()), (b, b_busy.is_none())]).await;
            continue;
        }
        let request = CreateGame {
            variant: a.pool.variant.clone(),
            clock: Some(clock),
            rated: a.pool.rated,
            source: crate::game::Source::Pool,
            initial_fen: None,
            creator: pa.clone(),
            creator_color: random_color()?,
            opponent: Some(pb.clone()),
        };
        match start_game(ctx, request, vec![a.conn.clone(), b.conn.clone()]).await {
            Ok(id) => {
                tracing::info!(game.id = %id, pool = ?a.pool, "pool pairing");
                games.push(id);
            }
            // Became busy in between: as above.
            Err(CreateError::Busy(busy)) => {
                let a_free = busy.player != pa;
                let b_free = busy.player != pb;
                requeue(ctx, [(a, a_free), (b, b_free)]).await;
            }
            // Nobody is dropped for the server's failure: both wait for the next pass.
            Err(e) => {
                tracing::warn!(error = ?e, "a pool pairing could not start its game");
                requeue(ctx, [(a, true), (b, true)]).await;
            }
        }
    }
    Ok(games)
}

/// Puts back in their pool, with their place (their joining time), the entries of a pairing that
/// did not start whose flag is true.
async fn requeue(ctx: &LobbyCtx, entries: [(PoolEntry, bool); 2]) {
    for (entry, back) in entries {
        if !back {
            tracing::info!(player = entry.player, pool = ?entry.pool, "a busy player's pool place is dropped");
            continue;
        }
        if let Err(e) = ctx.lobby.pools.join(entry).await {
            tracing::warn!(error = format!("{e:#}"), "a paired player could not be put back in their pool");
        }
    }
}

/// The lobby's housekeeping, forever: the matcher every second, expired seeks removed, unanswered
/// challenges lapsed.
pub async fn keep_lobby(ctx: LobbyCtx) {
    let mut tick = tokio::time::interval(Duration::from_millis(ctx.cfg.matcher_interval_ms.max(100)));
    loop {
        tick.tick().await;
        if let Err(e) = match_once(&ctx, now_ms()).await {
            tracing::warn!(error = format!("{e:#}"), "the matcher failed");
        }
        match db::lobby::purge_expired(&ctx.pool).await {
            Ok(ids) => ctx.lobby.removed(ids).await,
            Err(e) => tracing::warn!(error = format!("{e:#}"), "removing expired seeks failed"),
        }
        if let Err(e) = challenge::lapse_expired(&ctx).await {
            tracing::warn!(error = format!("{e:#}"), "lapsing expired challenges failed");
        }
    }
}

/// Milliseconds since the epoch.
pub fn now_ms() -> i64 {
    (OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000) as i64
}
