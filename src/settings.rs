//! Typed, layered configuration: `config/default.toml`, then `config/{CHESSGOLD_ENV}.toml`, then
//! environment variables `CHESSGOLD__SECTION__KEY`, then `DATABASE_URL`.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;

/// Every setting of the service.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The HTTP side.
    pub application: ApplicationSettings,
    /// PostgreSQL.
    pub database: DatabaseSettings,
    /// Redis (optional).
    pub redis: RedisSettings,
    /// Rate limits of the account forms.
    pub rate_limit: RateLimitSettings,
    /// Logging.
    pub log: LogSettings,
    /// Live games: clocks, sockets, chat, the sweeper.
    pub game: GameSettings,
    /// The moderators' engine analysis.
    pub analysis: AnalysisSettings,
}

/// The HTTP side.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApplicationSettings {
    /// Address to bind.
    pub host: String,
    /// Port to bind; 0 picks a free one.
    pub port: u16,
    /// Origins besides the request's own that may send unsafe requests.
    pub public_origins: Vec<String>,
    /// Mark the session cookie `Secure`.
    pub secure_cookies: bool,
    /// Signs the session cookie and the guests' seats; empty means the key of
    /// `session_key_file`.
    pub session_key: SecretString,
    /// Where the key is kept when `session_key` is empty: read from this file, or made once and
    /// written there (readable by the owner only). Empty means a random key per start.
    pub session_key_file: PathBuf,
    /// Refuse to start without `session_key` (production: instances share one key).
    pub session_key_required: bool,
    /// Folder of static files.
    pub static_dir: PathBuf,
    /// `Cache-Control: max-age` of static files.
    pub static_max_age_secs: u32,
    /// Grace period for running requests at shutdown.
    pub shutdown_timeout_secs: u64,
    /// Read the client address from `X-Forwarded-For`.
    pub trust_forwarded_for: bool,
    /// Addresses that may read `/metrics` without a token (loopback by default).
    pub metrics_from: Vec<IpAddr>,
    /// A bearer token that opens `/metrics` from anywhere; empty means none.
    pub metrics_token: SecretString,
    /// Cap on the actions of one local-play request.
    pub max_local_actions: usize,
}

/// PostgreSQL.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatabaseSettings {
    /// Connection URL, `postgres://user@host:port/database`.
    pub url: SecretString,
    /// Pool size.
    pub max_connections: u32,
    /// How long a request waits for a pooled connection.
    pub acquire_timeout_secs: u64,
    /// Apply `migrations/` when the service starts.
    pub migrate_on_start: bool,
}

impl DatabaseSettings {
    /// How long a request waits for a connection.
    pub fn acquire_timeout(&self) -> Duration {
        Duration::from_secs(self.acquire_timeout_secs)
    }
}

/// Redis.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedisSettings {
    /// `redis://...`; empty means no Redis.
    pub url: SecretString,
    /// Prefix of every key and channel.
    pub key_prefix: String,
}

impl RedisSettings {
    /// The URL when Redis is configured.
    pub fn url(&self) -> Option<&str> {
        let url = self.url.expose_secret().trim();
        (!url.is_empty()).then_some(url)
    }
}

/// Rate limits: attempts per window, replenished gradually.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateLimitSettings {
    /// Window length.
    pub window_secs: u64,
    /// Log-in attempts per client address.
    pub login_per_ip: u32,
    /// Log-in attempts per account name.
    pub login_per_account: u32,
    /// Sign-up attempts per client address.
    pub signup_per_ip: u32,
    /// Sign-up attempts per requested name.
    pub signup_per_account: u32,
    /// API requests per personal token (or per logged-in account) and minute.
    pub api_per_minute: u32,
    /// Requests per client address and minute to the lobby's JSON requests and to the API
    /// without a token or session.
    pub api_per_ip_per_minute: u32,
}

/// Logging.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogSettings {
    /// `RUST_LOG`-style filter; `RUST_LOG` itself wins when set.
    pub filter: String,
    /// `pretty` or `json`.
    pub format: String,
}

/// Live games: clocks, sockets, chat, the sweeper (`[game]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameSettings {
    /// Seconds each side has for its first turn before the game is aborted.
    pub first_move_secs: u32,
    /// Seconds an opponent must be disconnected before victory or a draw can be claimed.
    pub claim_after_secs: u32,
    /// Most lag credited on one move, centiseconds.
    pub lag_per_move_cs: i32,
    /// Lag credit each player has for a whole game, centiseconds.
    pub lag_quota_cs: i32,
    /// How often the sweeper looks for games to end (milliseconds).
    pub sweeper_interval_ms: u64,
    /// How often the lobby's matcher pairs the pools (milliseconds).
    pub matcher_interval_ms: u64,
    /// How often this instance records that it is alive (milliseconds).
    pub heartbeat_interval_ms: u64,
    /// A round with no socket stops after this many seconds.
    pub round_idle_secs: u64,
    /// A socket that sends nothing for this long is closed.
    pub socket_idle_secs: u64,
    /// Largest text message accepted (bytes); larger ones get `too_large`.
    pub max_message_bytes: usize,
    /// Largest frame read at all (bytes); larger ones close the socket.
    pub max_frame_bytes: usize,
    /// Messages per second a connection may send ...
    pub messages_per_second: u32,
    /// ... with bursts of this many.
    pub messages_burst: u32,
    /// Longest chat line, characters.
    pub chat_max_chars: usize,
    /// Chat lines a connection may send per window ...
    pub chat_lines_per_window: usize,
    /// ... of this many seconds.
    pub chat_window_secs: u64,
    /// Most missed events sent to a reconnecting client before a full resync instead.
    pub max_replay_events: i32,
    /// Bot searches that may run at once on this instance (0: one per CPU).
    pub bot_max_searches: usize,
    /// A bot's time per move in unlimited games, milliseconds (each level uses its share).
    pub bot_movetime_ms: u64,
}

/// The moderators' engine analysis (`[analysis]`): its search budgets, how many games, and the
/// reference games of the bot levels.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalysisSettings {
    /// How many of the user's latest rated games a job analyses.
    pub games: u32,
    /// Nodes of level 8's search per analysed position.
    pub nodes: u64,
    /// The bot levels whose figures are shown beside the user's.
    pub levels: Vec<u8>,
    /// Nodes per move in the reference games (smaller than `nodes`, so that the analysis sees
    /// further than the players, as it does a person's games).
    pub reference_nodes: u64,
    /// Reference games per level and variant.
    pub reference_games: u32,
    /// Bot moves per reference game, at most (after the random opening).
    pub reference_plies: u32,
    /// Random legal actions that open each reference game (seeded, one seed per game).
    pub opening_plies: u32,
    /// How often a worker looks for jobs queued on another instance (seconds).
    pub poll_secs: u64,
    /// How long a claim on a running job lasts unrenewed (seconds): a job whose server died is
    /// claimed again after this.
    pub lease_secs: u64,
}

impl GameSettings {
    /// The first-move allowance in centiseconds.
    pub fn first_move_cs(&self) -> i64 {
        i64::from(self.first_move_secs) * 100
    }

    /// The claim delay in centiseconds.
    pub fn claim_after_cs(&self) -> i64 {
        i64::from(self.claim_after_secs) * 100
    }
}

/// The shortest session key accepted.
pub const MIN_SESSION_KEY: usize = 64;

impl ApplicationSettings {
    /// The key that signs sessions and guests' seats: `session_key`, else the one kept in
    /// `session_key_file` (made and written there the first time), else a random one for this
    /// start only (sessions and guests' seats then end at every restart).
    ///
    /// # Errors
    /// The key file cannot be read or written, or holds a key that is too short.
    pub fn resolved_session_key(&self) -> anyhow::Result<SecretString> {
        let given = self.session_key.expose_secret();
        if !given.is_empty() {
            return Ok(self.session_key.clone());
        }
        if self.session_key_file.as_os_str().is_empty() {
            tracing::warn!(
                "application.session_key is empty and no key file is set: a random key, sessions end at restart"
            );
            return Ok(SecretString::from(new_session_key()?));
        }
        let path = &self.session_key_file;
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let key = text.trim();
                if key.len() < MIN_SESSION_KEY {
                    anyhow::bail!("the session key in {} is shorter than {MIN_SESSION_KEY} characters", path.display());
                }
                Ok(SecretString::from(key.to_string()))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let key = new_session_key()?;
                write_private(path, &key)
                    .with_context(|| format!("keeping a new session key in {}", path.display()))?;
                tracing::info!(file = %path.display(), "made a session key and kept it for the next starts");
                Ok(SecretString::from(key))
            }
            Err(e) => Err(e).with_context(|| format!("reading the session key in {}", path.display())),
        }
    }
}

/// 64 random hexadecimal digits (256 bits).
fn new_session_key() -> anyhow::Result<String> {
    let mut bytes = [0u8; MIN_SESSION_KEY / 2];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no randomness for a session key: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Writes a new file (its folder made when missing) that only its owner may read.
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(folder) = path.parent().filter(|f| !f.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder)?;
    }
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)?;
    file.write_all(text.as_bytes())?;
    file.write_all(b"\n")?;
    file.sync_all()
}

/// The folder of `default.toml`: `CHESSGOLD_CONFIG_DIR`, else `./config`.
pub fn config_dir() -> PathBuf {
    std::env::var_os("CHESSGOLD_CONFIG_DIR").map_or_else(|| PathBuf::from("config"), PathBuf::from)
}

impl Settings {
    /// Loads the settings from `config_dir()`, the environment named by `CHESSGOLD_ENV` and the
    /// process environment.
    ///
    /// # Errors
    /// A missing `default.toml`, a malformed file or a value of the wrong type.
    pub fn load() -> anyhow::Result<Settings> {
        let env = std::env::var("CHESSGOLD_ENV").ok().filter(|e| !e.is_empty());
        Settings::load_from(&config_dir(), env.as_deref())
    }

    /// Loads `dir/default.toml`, then `dir/{env}.toml` when `env` is given, then the environment.
    ///
    /// # Errors
    /// A missing `default.toml` or `{env}.toml`, a malformed file or a value of the wrong type.
    pub fn load_from(dir: &Path, env: Option<&str>) -> anyhow::Result<Settings> {
        let mut builder = config::Config::builder().add_source(config::File::from(dir.join("default.toml")));
        if let Some(env) = env {
            builder = builder.add_source(config::File::from(dir.join(format!("{env}.toml"))));
        }
        builder = builder.add_source(
            config::Environment::with_prefix("CHESSGOLD")
                .prefix_separator("__")
                .separator("__")
                .list_separator(",")
                .with_list_parse_key("application.public_origins")
                .with_list_parse_key("application.metrics_from")
                .try_parsing(true),
        );
        if let Ok(url) = std::env::var("DATABASE_URL")
            && !url.is_empty()
        {
            builder = builder.set_override("database.url", url)?;
        }
        let settings: Settings = builder
            .build()
            .with_context(|| format!("reading the configuration in {}", dir.display()))?
            .try_deserialize()
            .context("the configuration has a missing or mistyped value")?;
        settings.check()?;
        Ok(settings)
    }

    /// The defaults alone: `config/default.toml` as it was when the binary was built (unit
    /// tests and tools that need the settings' values without a config folder).
    ///
    /// # Errors
    /// The compiled-in file does not parse (a build from a broken checkout).
    pub fn defaults() -> anyhow::Result<Settings> {
        let settings: Settings = config::Config::builder()
            .add_source(config::File::from_str(include_str!("../config/default.toml"), config::FileFormat::Toml))
            .build()
            .context("reading the compiled-in config/default.toml")?
            .try_deserialize()
            .context("the compiled-in config/default.toml has a missing or mistyped value")?;
        settings.check()?;
        Ok(settings)
    }

    fn check(&self) -> anyhow::Result<()> {
        let key = self.application.session_key.expose_secret();
        if !key.is_empty() && key.len() < MIN_SESSION_KEY {
            anyhow::bail!("application.session_key must have at least {MIN_SESSION_KEY} characters (or be empty)");
        }
        if key.is_empty() && self.application.session_key_required {
            anyhow::bail!(
                "application.session_key is required here (set CHESSGOLD__APPLICATION__SESSION_KEY to at least {MIN_SESSION_KEY} characters, the same on every instance)"
            );
        }
        let r = &self.rate_limit;
        if r.window_secs == 0
            || [
                r.login_per_ip,
                r.login_per_account,
                r.signup_per_ip,
                r.signup_per_account,
                r.api_per_minute,
                r.api_per_ip_per_minute,
            ]
            .contains(&0)
        {
            anyhow::bail!("rate_limit values must be positive");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("config")
    }

    #[test]
    fn default_and_test_files_parse() {
        let s = Settings::load_from(&dir(), Some("test")).unwrap();
        assert_eq!(s.application.port, 0);
        assert_eq!(s.application.max_local_actions, 2000);
        let d = Settings::load_from(&dir(), None).unwrap();
        assert_eq!(d.application.port, 8080);
    }

    #[test]
    fn compiled_in_defaults_are_the_default_file() {
        let d = Settings::defaults().unwrap();
        assert_eq!(d.application.port, 8080);
        assert_eq!(d.game.first_move_secs, 30);
    }

    /// A folder with `default.toml` and a `local.toml` holding `extra`.
    fn with_local(extra: &str) -> tempdir::Dir {
        let folder = tempdir::Dir::new();
        std::fs::copy(dir().join("default.toml"), folder.path().join("default.toml")).unwrap();
        std::fs::write(folder.path().join("local.toml"), extra).unwrap();
        folder
    }

    #[test]
    fn a_misspelt_key_stops_the_start_with_its_name() {
        for (extra, name) in [
            ("[game]\nfirst_move_sec = 10\n", "first_move_sec"),
            ("[aplication]\nport = 1\n", "aplication"),
            ("[redis]\nurl = \"\"\nkey_prefx = \"x\"\n", "key_prefx"),
        ] {
            let dir = with_local(extra);
            let err = format!("{:#}", Settings::load_from(dir.path(), Some("local")).unwrap_err());
            assert!(err.contains(name), "{extra:?}: {err}");
        }
        let dir = with_local("[game]\nfirst_move_secs = 10\n");
        assert_eq!(Settings::load_from(dir.path(), Some("local")).unwrap().game.first_move_secs, 10);
    }

    /// A temporary folder removed on drop.
    mod tempdir {
        use std::path::{Path, PathBuf};

        pub struct Dir(PathBuf);

        impl Dir {
            pub fn new() -> Dir {
                let path = std::env::temp_dir().join(format!("chessgold-settings-{}", uuid::Uuid::new_v4().simple()));
                std::fs::create_dir_all(&path).unwrap();
                Dir(path)
            }

            pub fn path(&self) -> &Path {
                &self.0
            }
        }

        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    #[test]
    fn production_refuses_to_start_without_a_session_key() {
        let folder = with_local("");
        std::fs::copy(dir().join("production.toml"), folder.path().join("production.toml")).unwrap();
        let err = format!("{:#}", Settings::load_from(folder.path(), Some("production")).unwrap_err());
        assert!(err.contains("CHESSGOLD__APPLICATION__SESSION_KEY"), "{err}");
        let key = "k".repeat(MIN_SESSION_KEY);
        let mut production = std::fs::read_to_string(folder.path().join("production.toml")).unwrap();
        production = production.replace("[application]\n", &format!("[application]\nsession_key = \"{key}\"\n"));
        std::fs::write(folder.path().join("production.toml"), production).unwrap();
        let s = Settings::load_from(folder.path(), Some("production")).unwrap();
        assert_eq!(s.application.resolved_session_key().unwrap().expose_secret(), key);
        assert!(s.application.secure_cookies);
    }

    fn app_with_key_file(file: &Path) -> ApplicationSettings {
        let mut app = Settings::defaults().unwrap().application;
        app.session_key_file = file.to_path_buf();
        app
    }

    #[test]
    fn a_session_key_is_made_once_in_its_file_and_read_back_at_every_start() {
        use std::os::unix::fs::PermissionsExt;
        let folder = tempdir::Dir::new();
        let file = folder.path().join("data").join("session-key");
        let first = app_with_key_file(&file).resolved_session_key().unwrap();
        assert_eq!(first.expose_secret().len(), MIN_SESSION_KEY);
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600, "owner-only");
        let again = app_with_key_file(&file).resolved_session_key().unwrap();
        assert_eq!(again.expose_secret(), first.expose_secret(), "the next start reads the same key");
        let elsewhere = folder.path().join("other-key");
        let other = app_with_key_file(&elsewhere).resolved_session_key().unwrap();
        assert_ne!(other.expose_secret(), first.expose_secret(), "each key file its own key");
    }

    #[test]
    fn a_short_key_in_the_key_file_is_refused_with_the_file_named() {
        let folder = tempdir::Dir::new();
        let file = folder.path().join("session-key");
        std::fs::write(&file, "short\n").unwrap();
        let err = format!("{:#}", app_with_key_file(&file).resolved_session_key().unwrap_err());
        assert!(err.contains("shorter than 64") && err.contains("session-key"), "{err}");
    }

    #[test]
    fn without_a_key_or_a_key_file_each_start_has_its_own_random_key() {
        let none = app_with_key_file(Path::new(""));
        let (a, b) = (none.resolved_session_key().unwrap(), none.resolved_session_key().unwrap());
        assert_ne!(a.expose_secret(), b.expose_secret());
    }

    #[test]
    fn unknown_environment_file_is_an_error() {
        assert!(Settings::load_from(&dir(), Some("no-such-env")).is_err());
    }
}
