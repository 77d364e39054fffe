//! Building and running the application: `Application::build(settings)` binds the listener
//! (port 0 picks a free one), reports the real port, and runs until stopped.

use crate::lobby::pools::{MemoryPools, Pools, RedisPools};
use crate::lobby::{Lobby, LobbyCtx};
use std::net::{IpAddr, Ipv4Addr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use actix_session::SessionMiddleware;
use actix_session::config::{CookieContentSecurity, PersistentSession};
use actix_web::cookie::{Key, SameSite};
use actix_web::dev::Server;
use actix_web::middleware::from_fn;
use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use anyhow::Context;
use secrecy::ExposeSecret;
use sqlx::PgPool;
use tracing_actix_web::TracingLogger;

use crate::assets::Assets;
use crate::auth::rate_limit::Limiters;
use crate::broker::Broker;
use crate::broker::memory::MemoryBroker;
use crate::broker::redis::RedisBroker;
use crate::error::PageError;
use crate::game::identity::GuestKey;
use crate::game::round::{RoundCtx, Rounds};
use crate::metrics::Metrics;
use crate::session_store::PgSessionStore;
use crate::settings::GameSettings;
use crate::settings::Settings;
use crate::{assets, compress, db, game, metrics, middleware, telemetry};

/// Name of the session cookie.
pub const SESSION_COOKIE: &str = "cg_session";

/// What every request handler can reach.
#[derive(Debug)]
pub struct AppState {
    /// PostgreSQL pool.
    pub pool: PgPool,
    /// Publish/subscribe.
    pub broker: Arc<dyn Broker>,
    /// Rate limits of the account forms.
    pub limiters: Limiters,
    /// Prometheus metrics.
    pub metrics: Metrics,
    /// Who may read them.
    pub metrics_access: crate::metrics::MetricsAccess,
    /// The open sockets per client address (capped per instance).
    pub sockets: crate::game::socket::SocketsPerAddress,
    /// Read client addresses from `X-Forwarded-For`.
    pub trust_forwarded_for: bool,
    /// Extra origins allowed to send unsafe requests.
    pub public_origins: Vec<String>,
    /// Cap on local-play actions per request.
    pub max_local_actions: usize,
    /// Live-game settings.
    pub game: Arc<GameSettings>,
    /// The live games of this instance.
    pub rounds: Arc<Rounds>,
    /// Signs guest cookies.
    pub guest_key: GuestKey,
    /// Mark cookies `Secure`.
    pub secure_cookies: bool,
    /// Seeks and quick pairing.
    pub lobby: Arc<Lobby>,
    /// Account news for this instance's event streams.
    pub users: Arc<crate::notify::UserHub>,
    /// The moderators' engine analysis: its settings and the worker's wake-up.
    pub analysis: crate::moderation::analysis_jobs::AnalysisCtx,
}

impl AppState {
    /// What the lobby's functions need.
    pub fn lobby_ctx(&self) -> LobbyCtx {
        LobbyCtx { pool: self.pool.clone(), lobby: self.lobby.clone(), cfg: self.game.clone() }
    }
}

/// The client's address: the peer, or the first `X-Forwarded-For` entry when trusted.
pub fn client_ip(req: &HttpRequest, trust_forwarded_for: bool) -> IpAddr {
    if trust_forwarded_for
        && let Some(ip) = req
            .connection_info()
            .realip_remote_addr()
            .and_then(|a| a.parse::<IpAddr>().ok().or_else(|| a.parse::<std::net::SocketAddr>().ok().map(|s| s.ip())))
    {
        return ip;
    }
    req.peer_addr().map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |a| a.ip())
}

/// A bound, ready-to-run application.
pub struct Application {
    port: u16,
    server: Server,
    state: web::Data<AppState>,
    /// Whether start-up gave the downtime back to running games (it retries in the background
    /// when the database did not answer then).
    downtime_forgiven: bool,
}

impl std::fmt::Debug for Application {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Application").field("port", &self.port).finish_non_exhaustive()
    }
}

impl Application {
    /// Connects the pool (and Redis when configured), applies migrations when configured, and
    /// binds the listener.
    ///
    /// # Errors
    /// Bad settings, an unreachable database or Redis, a failed migration, a port in use.
    pub async fn build(settings: Settings) -> anyhow::Result<Application> {
        // First: compressing the static files takes a few seconds, which must not fall between
        // giving the downtime back to running clocks (below) and serving.
        let app = &settings.application;
        let assets = web::Data::new(Assets::load(&app.static_dir, u64::from(app.static_max_age_secs))?);
        let pool = db::pool(&settings.database)?;
        if settings.database.migrate_on_start {
            db::migrate(&pool).await?;
        }
        let prefix = settings.redis.key_prefix.clone();
        let (broker, pools, sockets): (Arc<dyn Broker>, Arc<dyn Pools>, _) = match settings.redis.url() {
            Some(url) => {
                let broker = RedisBroker::connect(url, &prefix).await?;
                let pools = RedisPools::connect(url, &prefix).await?;
                let counts = crate::broker::redis::SharedCounts::connect(url, &prefix).await?;
                (Arc::new(broker), Arc::new(pools), crate::game::socket::SocketsPerAddress::shared(counts))
            }
            None => (
                Arc::new(MemoryBroker::new()),
                Arc::new(MemoryPools::default()),
                crate::game::socket::SocketsPerAddress::default(),
            ),
        };
        // Sessions live in PostgreSQL whatever the broker (see src/session_store.rs).
        let store = PgSessionStore::new(pool.clone());
        // The configured key, the one kept in the key file, or (with neither) a random one.
        let session_secret = settings.application.resolved_session_key()?;
        let key = Key::derive_from(session_secret.expose_secret().as_bytes());
        let game_settings = Arc::new(settings.game.clone());
        let thinkers = crate::bots::Thinkers::new(crate::bots::concurrency(&game_settings));
        let rounds = Rounds::new(RoundCtx {
            pool: pool.clone(),
            broker: broker.clone(),
            cfg: game_settings.clone(),
            thinkers,
            health: game::health::DbHealth::new(),
        });
        // A database that is down at start-up does not stop the server (`/healthz` reports it);
        // the time-keeping task retries then.
        let downtime_forgiven = match game::sweeper::forgive_downtime(rounds.ctx()).await {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(error = format!("{e:#}"), "could not give downtime back at start-up");
                false
            }
        };
        // Bots move without anyone watching: after a restart, the rounds of live bot games start
        // (each makes its bot's move if it is to move, then stops when nobody comes).
        match crate::db::games::live_bot_games(&pool).await {
            Ok(ids) => {
                for id in ids.iter().filter_map(|id| game::GameId::parse(id)) {
                    rounds.get(&id);
                }
            }
            Err(e) => tracing::warn!(error = format!("{e:#}"), "could not resume the bot games"),
        }
        let analysis = crate::moderation::analysis_jobs::AnalysisCtx {
            pool: pool.clone(),
            thinkers: rounds.ctx().thinkers.clone(),
            cfg: Arc::new(settings.analysis.clone()),
            wake: Arc::new(tokio::sync::Notify::new()),
        };
        let guest_key = GuestKey::derive(session_secret.expose_secret())?;
        let lobby = Lobby::start(broker.clone(), pools);
        let users = crate::notify::UserHub::start(broker.clone());
        let state = web::Data::new(AppState {
            pool,
            broker,
            limiters: Limiters::new(&settings.rate_limit),
            metrics: Metrics::new()?,
            metrics_access: crate::metrics::MetricsAccess::new(
                settings.application.metrics_from.clone(),
                &settings.application.metrics_token,
            ),
            sockets,
            trust_forwarded_for: settings.application.trust_forwarded_for,
            public_origins: settings.application.public_origins.clone(),
            max_local_actions: settings.application.max_local_actions,
            game: game_settings,
            rounds,
            guest_key,
            secure_cookies: settings.application.secure_cookies,
            lobby,
            users,
            analysis,
        });
        let listener = TcpListener::bind((settings.application.host.as_str(), settings.application.port))
            .with_context(|| format!("binding {}:{}", settings.application.host, settings.application.port))?;
        let port = listener.local_addr().context("reading the bound address")?.port();
        let server = run(listener, state.clone(), assets, store, key, &settings)?;
        tracing::info!(port, broker = state.broker.kind(), "listening");
        Ok(Application { port, server, state, downtime_forgiven })
    }

    /// The port actually bound.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The shared state (tests look into the lobby's pools).
    pub fn state(&self) -> web::Data<AppState> {
        self.state.clone()
    }

    /// Serves until SIGTERM/SIGINT (graceful: running requests get the shutdown timeout), with the
    /// housekeeping tasks beside it: rate-limit pruning, expired sessions, the heartbeat and the
    /// game sweeper, the lobby's matcher, and the moderators' engine-analysis worker.
    ///
    /// # Errors
    /// The server fails.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let state = self.state.clone();
        let housekeeping = async move {
            // Every 20 s: the shared socket counts (they go stale after a minute); every
            // minute: the rest.
            let mut tick = tokio::time::interval(Duration::from_secs(20));
            let mut n = 0u64;
            loop {
                tick.tick().await;
                state.sockets.refresh().await;
                n += 1;
                if n % 3 != 1 {
                    continue;
                }
                state.limiters.prune();
                if let Err(e) = crate::session_store::delete_expired(&state.pool).await {
                    tracing::warn!(error = format!("{e:#}"), "expired sessions stay for now");
                }
            }
        };
        let ctx = self.state.rounds.ctx().clone();
        let lobby = self.state.lobby_ctx();
        let analysis = self.state.analysis.clone();
        tokio::select! {
            result = self.server => result,
            () = housekeeping => Ok(()),
            () = game::sweeper::keep_time(ctx, self.downtime_forgiven) => Ok(()),
            () = crate::lobby::keep_lobby(lobby) => Ok(()),
            () = crate::moderation::analysis_jobs::keep_analysing(analysis) => Ok(()),
        }
    }
}

fn run(
    listener: TcpListener,
    state: web::Data<AppState>,
    assets: web::Data<Assets>,
    store: PgSessionStore,
    key: Key,
    settings: &Settings,
) -> anyhow::Result<Server> {
    let app_settings = settings.application.clone();
    let secure = app_settings.secure_cookies;
    let security = web::Data::new(middleware::SecurityHeaders::new(assets.import_map_hash(), secure)?);
    let server = HttpServer::new(move || {
        let session = SessionMiddleware::builder(store.clone(), key.clone())
            .cookie_name(SESSION_COOKIE.to_string())
            .cookie_http_only(true)
            .cookie_same_site(SameSite::Lax)
            .cookie_secure(secure)
            .cookie_content_security(CookieContentSecurity::Signed)
            .session_lifecycle(PersistentSession::default().session_ttl(actix_web::cookie::time::Duration::days(30)))
            .build();
        App::new()
            .app_data(state.clone())
            .app_data(assets.clone())
            .app_data(security.clone())
            .app_data(web::FormConfig::default().limit(16 * 1024).error_handler(|err, _req| match err {
                actix_web::error::UrlencodedError::Overflow { .. } => PageError::TooLarge.into(),
                other => PageError::BadRequest(other.to_string()).into(),
            }))
            .app_data(
                web::QueryConfig::default().error_handler(|err, _req| PageError::BadRequest(err.to_string()).into()),
            )
            .wrap(from_fn(middleware::check_origin))
            .wrap(from_fn(middleware::refuse_nul))
            // Inside the session: error pages get the signed-in header.
            .wrap(from_fn(crate::error::page_context))
            .wrap(session)
            .wrap(from_fn(middleware::session_client))
            .wrap(from_fn(metrics::track))
            .wrap(from_fn(middleware::request_id_header))
            .wrap(from_fn(assets::scope))
            // Inside the compression, so that it reads the error bodies as they were written.
            .wrap(from_fn(middleware::api_errors_json))
            .wrap(from_fn(compress::compress))
            // Outside the static files' scope, so they carry the headers too.
            .wrap(from_fn(middleware::security_headers))
            // Outside everything that may answer an API request (errors included).
            .wrap(from_fn(middleware::api_cors))
            .wrap(TracingLogger::<telemetry::RequestSpan>::new())
            .configure(crate::routes::configure)
            .default_service(web::to(not_found))
    })
    // A response's head and body go out in separate writes: without TCP_NODELAY the second
    // waits for the client's delayed acknowledgement (about 40 ms per kept-alive request).
    .on_connect(|conn, _| {
        if let Some(tcp) = conn.downcast_ref::<actix_web::rt::net::TcpStream>()
            && let Err(e) = tcp.set_nodelay(true)
        {
            tracing::debug!(error = %e, "TCP_NODELAY could not be set");
        }
    })
    .listen(listener)
    .context("starting the HTTP server")?
    .shutdown_timeout(app_settings.shutdown_timeout_secs)
    .run();
    Ok(server)
}

#[derive(serde::Serialize)]
struct Health {
    status: &'static str,
    database: &'static str,
    broker: &'static str,
    broker_kind: &'static str,
}

/// `GET /healthz`: 200 when the database (and Redis, when used) answer, else 503.
pub(crate) async fn healthz(state: web::Data<AppState>) -> HttpResponse {
    let db_ok = match tokio::time::timeout(Duration::from_secs(3), db::ping(&state.pool)).await {
        Ok(Ok(())) => true,
        Ok(Err(e)) => {
            tracing::warn!(error = format!("{e:#}"), "health check: database down");
            false
        }
        Err(_) => false,
    };
    let broker_ok = matches!(tokio::time::timeout(Duration::from_secs(3), state.broker.ping()).await, Ok(Ok(())));
    let body = Health {
        status: if db_ok && broker_ok { "ok" } else { "unavailable" },
        database: if db_ok { "ok" } else { "down" },
        broker: if broker_ok { "ok" } else { "down" },
        broker_kind: state.broker.kind(),
    };
    if db_ok && broker_ok { HttpResponse::Ok().json(body) } else { HttpResponse::ServiceUnavailable().json(body) }
}

async fn not_found() -> Result<HttpResponse, PageError> {
    Err(PageError::NotFound)
}
