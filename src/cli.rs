//! The `chessgold` command line: engine tools (`perft`, `state`) and the service (`serve`,
//! `migrate`, `user create`).

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
    /// Scopes, comma separated (board:play, challenge:read, challenge:write).
    #[arg(long, default_value = "board:play,challenge:read,challenge:write")]
    pub scopes: String,
}

/// `chessgold user ...`.
#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Create an account.
    Create(CreateUserArgs),
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

/// Runs the command line and returns the process exit code.
pub fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            if !e.use_stderr() {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("error: bad arguments");
            eprintln!("{first}");
            return ExitCode::from(2);
        }
    };
    let result = match &cli.command {
        Command::Perft(args) => perft(args),
        Command::State(args) => state(args),
        Command::Serve => return service_exit(crate::operator::serve()),
        Command::Migrate => return service_exit(crate::operator::migrate()),
        Command::User(UserCommand::Create(args)) => return service_exit(create_user(args)),
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

fn service_exit(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
