//! The `chessgold` command line: engine tools (`perft`, `state`), bot matches (`bot-match`) and
//! the service (`serve`, `migrate`, `user create`).

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use chessgold_engine::registry::{AnyGame, variant, variant_ids};
use clap::{Args, Parser, Subcommand};

/// Deepest perft the command accepts.
pub const MAX_PERFT_DEPTH: u32 = 15;

/// Chess Gold: a lichess-style platform for chess variants with an economy.
#[derive(Debug, Parser)]
#[command(name = "chessgold", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count the leaves of the legal-action tree (move generator test and benchmark).
    Perft(PerftArgs),
    /// Print a position's state as one JSON object.
    State(PositionArgs),
    /// Play a match between two bot levels (or a level and Stockfish) and estimate the Elo
    /// difference.
    BotMatch(BotMatchArgs),
    /// Run the web service (settings: config/, CHESSGOLD__SECTION__KEY, DATABASE_URL).
    Serve,
    /// Apply the pending database migrations.
    Migrate,
    /// Manage accounts.
    #[command(subcommand)]
    User(UserCommand),
    /// Manage personal API tokens.
    #[command(subcommand)]
    Token(TokenCommand),
    /// Play many games over the real game sockets at a set rate and measure (docs/benchmarks.md).
    Load(LoadArgs),
    /// Ask a running instance's `/healthz` (the container image's health check): exit status 0
    /// when it answers 200, 1 otherwise.
    Health(HealthArgs),
}

/// Arguments of `health`.
#[derive(Debug, Args)]
pub struct HealthArgs {
    /// The address to ask; default: `/healthz` on this machine at the configured port.
    #[arg(long)]
    pub url: Option<String>,
    /// Seconds to wait for the answer.
    #[arg(long, default_value_t = 3)]
    pub timeout: u64,
}

/// Arguments of `load`.
#[derive(Debug, Args)]
pub struct LoadArgs {
    /// An instance to play on (repeat for several: white on one, black on the next).
    #[arg(long = "url", required = true)]
    pub urls: Vec<String>,
    /// Games played at once.
    #[arg(long, default_value_t = 50)]
    pub games: usize,
    /// Total moves per second to aim at; 0: as fast as the acknowledgements come.
    #[arg(long, default_value_t = 500.0)]
    pub rate: f64,
    /// Seconds to play.
    #[arg(long, default_value_t = 20)]
    pub seconds: u64,
    /// The variant.
    #[arg(long, default_value = "standard")]
    pub variant: String,
    /// Check afterwards that every acknowledged move is stored (a PostgreSQL URL; default
    /// DATABASE_URL when set).
    #[arg(long)]
    pub database_url: Option<String>,
    /// Idle games held besides the playing ones (two sockets each, pinging), e.g. 5000 for
    /// 10,000 idle sockets.
    #[arg(long, default_value_t = 0)]
    pub idle_games: usize,
    /// A server process whose CPU time over the run is reported per move (repeat for several).
    #[arg(long = "server-pid")]
    pub server_pids: Vec<u32>,
    /// Report the CPU time of this machine's PostgreSQL processes per move.
    #[arg(long)]
    pub database_cpu: bool,
    /// How the players of each game are paired: a friend's game, a lobby seek, a quick-pairing
    /// pool, or an open challenge from a signed-up player.
    #[arg(long, value_enum, default_value = "friend")]
    pub pairing: crate::load::Pairing,
}

/// `chessgold token ...`.
#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Create a personal API token for an account and print it (once: only its hash is kept).
    Create(CreateTokenArgs),
}

/// Arguments of `token create`.
#[derive(Debug, Args)]
pub struct CreateTokenArgs {
    /// The account's name.
    pub username: String,
    /// What the token is for.
    pub name: String,
    /// Scopes, comma separated (board:play, challenge:read, challenge:write, follow:write).
    #[arg(long, default_value = "board:play,challenge:read,challenge:write")]
    pub scopes: String,
}

/// `chessgold user ...`.
#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Create an account.
    Create(CreateUserArgs),
    /// Change an account's role (written to the mod log).
    Role(RoleArgs),
}

/// Arguments of `user role`.
#[derive(Debug, Args)]
pub struct RoleArgs {
    /// The account's name (any letter case).
    pub name: String,
    /// `user`, `moderator` or `admin`.
    #[arg(value_parser = ["user", "moderator", "admin"])]
    pub role: String,
    /// Why, for the mod log.
    #[arg(long, default_value = "set from the command line")]
    pub reason: String,
}

/// Arguments of `user create`.
#[derive(Debug, Args)]
pub struct CreateUserArgs {
    /// The user name (2-20 of A-Z a-z 0-9 _ -).
    pub name: String,
    /// Read the password from standard input (required: passwords never go on the command line).
    #[arg(long, required = true)]
    pub password_stdin: bool,
    /// `user` or `admin`.
    #[arg(long, default_value = "user", value_parser = ["user", "admin"])]
    pub role: String,
}

/// Which position to look at.
#[derive(Debug, Args)]
pub struct PositionArgs {
    /// Variant id (see `chessgold state --variant list`).
    #[arg(long, default_value = "standard")]
    pub variant: String,
    /// Start from this position text instead of the variant's start position.
    #[arg(long)]
    pub fen: Option<String>,
    /// Actions to play first, separated by spaces.
    #[arg(long, default_value = "")]
    pub moves: String,
    /// Seed of a variant with random events.
    #[arg(long)]
    pub seed: Option<u64>,
}

/// Arguments of `bot-match`.
#[derive(Debug, Args)]
pub struct BotMatchArgs {
    /// Variant id (one the bot plays).
    #[arg(long)]
    pub variant: String,
    /// The first player: a level 1-8, `stockfish`, `stockfish:ELO` or `uci:PROGRAM[:ELO]`.
    /// White in the odd games (colours alternate).
    #[arg(long)]
    pub white: String,
    /// The second player, Black in the odd games.
    #[arg(long)]
    pub black: String,
    /// Number of games (each opening is played once with each colour).
    #[arg(long)]
    pub games: u32,
    /// Time per move in milliseconds (each level uses its share); without it the bots search
    /// their level's node budget, which is reproducible.
    #[arg(long)]
    pub movetime: Option<u64>,
    /// Seed of the openings and of the bots' randomness.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Plies after which a game is adjudicated a draw.
    #[arg(long, default_value_t = 600)]
    pub max_plies: u32,
}

/// Arguments of `perft`.
#[derive(Debug, Args)]
pub struct PerftArgs {
    /// The position.
    #[command(flatten)]
    pub position: PositionArgs,
    /// Print the count below each legal action.
    #[arg(long)]
    pub divide: bool,
    /// Depth in plies.
    pub depth: String,
}

/// An error of the command line, shown as one line; exit code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

/// Builds the game a command looks at.
///
/// # Errors
/// A [`UsageError`] naming the unknown variant, the bad position text or the illegal action.
pub fn load_game(args: &PositionArgs) -> Result<Box<dyn AnyGame>, UsageError> {
    let Some(info) = variant(&args.variant) else {
        return Err(UsageError(format!("unknown variant '{}' (variants: {})", args.variant, variant_ids().join(", "))));
    };
    let mut game = match (&args.fen, args.seed) {
        (Some(fen), Some(seed)) => info.seeded_game_from_fen(fen, seed).map_err(|e| UsageError(format!("{e}")))?,
        (Some(fen), None) => info.game_from_fen(fen).map_err(|e| UsageError(format!("{e}")))?,
        (None, Some(seed)) => info.new_seeded_game(seed),
        (None, None) => info.new_game(),
    };
    for (i, action) in args.moves.split_whitespace().enumerate() {
        game.play(action).map_err(|e| UsageError(format!("action {} ('{action}') refused: {e}", i + 1)))?;
    }
    Ok(game)
}

fn parse_depth(text: &str) -> Result<u32, UsageError> {
    match text.parse::<u32>() {
        Ok(d) if d <= MAX_PERFT_DEPTH => Ok(d),
        Ok(d) => Err(UsageError(format!("depth {d} is out of range (0 to {MAX_PERFT_DEPTH})"))),
        Err(_) => Err(UsageError(format!("depth must be a whole number from 0 to {MAX_PERFT_DEPTH}, not '{text}'"))),
    }
}

fn perft(args: &PerftArgs) -> Result<(), UsageError> {
    let depth = parse_depth(&args.depth)?;
    let game = load_game(&args.position)?;
    let started = Instant::now();
    let mut out = std::io::stdout().lock();
    let total = if args.divide {
        let split = game.divide(depth);
        for (action, n) in &split {
            let _ = writeln!(out, "{action}: {n}");
        }
        split.iter().map(|(_, n)| n).sum::<u64>()
    } else {
        game.perft(depth)
    };
    let _ = writeln!(out, "{total}");
    let secs = started.elapsed().as_secs_f64();
    let nps = if secs > 0.0 { total as f64 / secs } else { 0.0 };
    eprintln!("{total} nodes in {secs:.3} s: {nps:.0} nodes/s");
    Ok(())
}

fn state(args: &PositionArgs) -> Result<(), UsageError> {
    let game = load_game(args)?;
    let mut value =
        serde_json::to_value(game.snapshot()).map_err(|e| UsageError(format!("cannot encode state: {e}")))?;
    if let (Some(seed), Some(obj)) = (args.seed, value.as_object_mut())
        && game.info().seeded
    {
        obj.insert("seed".into(), seed.into());
    }
    // A closed pipe (`chessgold state | head`) is not an error worth a panic.
    let _ = writeln!(std::io::stdout().lock(), "{value}");
    Ok(())
}

/// The match a `bot-match` command asks for.
///
/// # Errors
/// A [`UsageError`] for an unknown variant, a variant without a bot, a bad player or no games.
pub fn match_config(args: &BotMatchArgs) -> Result<chessgold_bot::MatchConfig, UsageError> {
    let Some(info) = variant(&args.variant) else {
        return Err(UsageError(format!("unknown variant '{}' (variants: {})", args.variant, variant_ids().join(", "))));
    };
    if !crate::bots::plays(info.id) {
        let known: Vec<&str> = variant_ids().into_iter().filter(|v| crate::bots::plays(v)).collect();
        return Err(UsageError(format!("the bot does not play '{}' yet (it plays: {})", info.id, known.join(", "))));
    }
    let player = |flag: &str, text: &str| {
        text.parse::<chessgold_bot::Player>().map_err(|e| UsageError(format!("--{flag}: {e}")))
    };
    let white = player("white", &args.white)?;
    let black = player("black", &args.black)?;
    if args.games == 0 {
        return Err(UsageError("--games: play at least one game".into()));
    }
    if args.movetime == Some(0) {
        return Err(UsageError("--movetime: at least 1 ms".into()));
    }
    let mut cfg = chessgold_bot::MatchConfig::new(info.id, white, black, args.games);
    cfg.movetime_ms = args.movetime;
    cfg.seed = args.seed;
    cfg.max_plies = args.max_plies;
    Ok(cfg)
}

/// A progress bar line: `[#####.....] 5/10  +3 =1 -1`.
pub fn progress_line(played: u32, total: u32, wdl: (u32, u32, u32)) -> String {
    const WIDTH: u32 = 30;
    let filled = (played.min(total) * WIDTH).checked_div(total).unwrap_or(WIDTH);
    let bar: String = (0..WIDTH).map(|i| if i < filled { '#' } else { '.' }).collect();
    format!("[{bar}] {played}/{total}  +{} ={} -{}", wdl.0, wdl.1, wdl.2)
}

/// Runs a match: exit code 2 for bad arguments, 1 when an engine fails.
fn bot_match(args: &BotMatchArgs) -> ExitCode {
    let cfg = match match_config(args) {
        Ok(cfg) => cfg,
        Err(UsageError(msg)) => {
            eprintln!("error: {msg}");
            return ExitCode::from(2);
        }
    };
    let (white, black) = (cfg.white.clone(), cfg.black.clone());
    let movetime = cfg.movetime_ms.map_or_else(|| "level node budgets".to_string(), |ms| format!("{ms} ms per move"));
    println!("{}: {white} vs {black}, {} games, {movetime}, seed {}", cfg.variant, cfg.games, cfg.seed);
    let started = Instant::now();
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "\r{}", progress_line(0, cfg.games, (0, 0, 0)));
    let _ = err.flush();
    let result = chessgold_bot::play_match(cfg, |p| {
        let _ = write!(err, "\r{}", progress_line(p.played, p.total, p.wdl));
        let _ = err.flush();
    });
    let _ = writeln!(err);
    drop(err);
    let r = match result {
        Ok(r) => r,
        Err(e @ chessgold_bot::matches::MatchError::Uci(_)) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let n = r.wins + r.draws + r.losses;
    let score = f64::from(r.wins) + f64::from(r.draws) / 2.0;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{white}: +{} ={} -{} (wins, draws, losses)", r.wins, r.draws, r.losses);
    let _ = writeln!(out, "score {score}/{n} ({:.1}%)", 100.0 * score / f64::from(n.max(1)));
    let elo = r.elo.map_or_else(|| "-".to_string(), |e| e.to_text());
    let _ = writeln!(out, "Elo difference ({white} minus {black}), 95% interval: {elo}");
    let _ = writeln!(out, "{:.1} s", started.elapsed().as_secs_f64());
    ExitCode::SUCCESS
}

/// Runs the command line and returns the process exit code.
pub fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            if !e.use_stderr() {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            // One line: clap's message up to its usage part (a missing argument is named on the
            // lines after the first).
            let text = e.to_string();
            let first: Vec<&str> = text.lines().take_while(|l| !l.trim().is_empty()).map(str::trim).collect();
            let line = if first.is_empty() { "error: bad arguments".to_string() } else { first.join(" ") };
            eprintln!("{line}");
            return ExitCode::from(2);
        }
    };
    let result = match &cli.command {
        Command::Perft(args) => perft(args),
        Command::State(args) => state(args),
        Command::BotMatch(args) => return bot_match(args),
        Command::Serve => return service_exit(crate::operator::serve()),
        Command::Migrate => return service_exit(crate::operator::migrate()),
        Command::User(UserCommand::Create(args)) => return service_exit(create_user(args)),
        Command::User(UserCommand::Role(args)) => return service_exit(set_role(args)),
        Command::Load(args) => return service_exit(load(args)),
        Command::Health(args) => return service_exit(crate::operator::health(args.url.as_deref(), args.timeout)),
        Command::Token(TokenCommand::Create(args)) => {
            return service_exit(crate::operator::create_token(&args.username, &args.name, &args.scopes));
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(UsageError(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}

fn create_user(args: &CreateUserArgs) -> anyhow::Result<()> {
    let role = crate::domain::Role::parse(&args.role).map_err(|e| anyhow::anyhow!(e))?;
    let password = crate::operator::read_password(std::io::stdin().lock())?;
    crate::operator::create_user(&args.name, &password, role)
}

fn set_role(args: &RoleArgs) -> anyhow::Result<()> {
    let role = crate::domain::Role::parse(&args.role).map_err(|e| anyhow::anyhow!(e))?;
    crate::operator::set_role(&args.name, role, &args.reason)
}

fn load(args: &LoadArgs) -> anyhow::Result<()> {
    let cfg = crate::load::LoadConfig {
        urls: args.urls.clone(),
        games: if args.idle_games > 0 { args.games } else { args.games.max(1) },
        idle_games: args.idle_games,
        rate: (args.rate > 0.0).then_some(args.rate),
        duration: std::time::Duration::from_secs(args.seconds.max(1)),
        variant: args.variant.clone(),
        pairing: args.pairing,
        progress: true,
    };
    let db = args.database_url.clone().or_else(|| std::env::var("DATABASE_URL").ok()).filter(|u| !u.is_empty());
    let runtime = tokio::runtime::Runtime::new()?;
    let cpu = crate::load::CpuMeter::start(&args.server_pids, args.database_cpu)?;
    runtime.block_on(async move {
        let report = crate::load::run(cfg).await?;
        print!("{}", report.summary());
        print!("{}", cpu.per_move(report.moves)?);
        if let Some(url) = db {
            let pool = sqlx::PgPool::connect(&url).await?;
            let lost = crate::load::verify(&pool, &report).await?;
            println!("durable: {} of {} games lost moves", lost.len(), report.acked.len());
            if !lost.is_empty() {
                anyhow::bail!("acknowledged moves missing from the database: {lost:?}");
            }
        }
        Ok(())
    })
}

fn service_exit(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
