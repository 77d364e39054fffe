//! Matches between two players (bot levels or UCI engines) for measuring strength: alternating
//! colours, varied openings from the seed, results adjudicated by the engine's end rules.

use core::fmt;
use core::str::FromStr;

use chessgold_engine::game::move_text;
use chessgold_engine::movegen::legal_moves;
use chessgold_engine::{Color, Game, Move, Position};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

use crate::bot::Bot;
use crate::dispatch::{WithVariant, dispatch};
use crate::elo::{EloEstimate, elo_estimate};
use crate::eval::BotVariant;
use crate::levels::{Level, Limits};
use crate::search::{SearchOptions, Searcher, mix64};
use crate::uci::{UciEngine, UciError};

/// Where Debian installs Stockfish.
pub const STOCKFISH: &str = "/usr/games/stockfish";

/// One side of a match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Player {
    /// A bot level.
    Bot(Level),
    /// A UCI engine, optionally limited to an Elo (`UCI_LimitStrength`).
    Uci {
        /// The program to run.
        program: String,
        /// `UCI_Elo`, if limited.
        elo: Option<u32>,
    },
}

impl FromStr for Player {
    type Err = String;

    /// `1`..`8`, `stockfish`, `stockfish:ELO`, `uci:PROGRAM` or `uci:PROGRAM:ELO`.
    fn from_str(s: &str) -> Result<Player, String> {
        if let Ok(level) = s.parse::<Level>() {
            return Ok(Player::Bot(level));
        }
        let parse_elo = |e: &str| e.parse::<u32>().map_err(|_| format!("'{e}' is not an Elo number"));
        if s == "stockfish" {
            return Ok(Player::Uci { program: stockfish_program(), elo: None });
        }
        if let Some(elo) = s.strip_prefix("stockfish:") {
            return Ok(Player::Uci { program: stockfish_program(), elo: Some(parse_elo(elo)?) });
        }
        if let Some(rest) = s.strip_prefix("uci:") {
            return Ok(match rest.rsplit_once(':') {
                Some((p, e)) if e.chars().all(|c| c.is_ascii_digit()) && !e.is_empty() => {
                    Player::Uci { program: p.to_string(), elo: Some(parse_elo(e)?) }
                }
                _ => Player::Uci { program: rest.to_string(), elo: None },
            });
        }
        Err(format!("a player is a level 1-8, stockfish[:ELO] or uci:PROGRAM[:ELO], not '{s}'"))
    }
}

fn stockfish_program() -> String {
    if std::path::Path::new(STOCKFISH).exists() { STOCKFISH.to_string() } else { "stockfish".to_string() }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Player::Bot(l) => write!(f, "level {l}"),
            Player::Uci { program, elo: Some(e) } => write!(f, "{program} (Elo {e})"),
            Player::Uci { program, elo: None } => write!(f, "{program}"),
        }
    }
}

/// A match to play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchConfig {
    /// Variant id.
    pub variant: String,
    /// The first player, White in the first game (colours alternate).
    pub white: Player,
    /// The second player, Black in the first game.
    pub black: Player,
    /// Number of games (each opening is played twice, once with each colour, when even).
    pub games: u32,
    /// Time per move, ms. Bots use their level's share of it; without it bots search their
    /// level's node budget (reproducible) and UCI engines get 100 ms.
    pub movetime_ms: Option<u64>,
    /// Seed of the openings and of the bots' randomness.
    pub seed: u64,
    /// Random plies before the players take over (`None`: 4 in chess, 2 in the gold modes).
    pub opening_plies: Option<u32>,
    /// Plies after which a game is adjudicated a draw.
    pub max_plies: u32,
}

impl MatchConfig {
    /// A match with the defaults: no move time, seed 1, default openings, 600 plies.
    pub fn new(variant: &str, white: Player, black: Player, games: u32) -> MatchConfig {
        MatchConfig {
            variant: variant.to_string(),
            white,
            black,
            games,
            movetime_ms: None,
            seed: 1,
            opening_plies: None,
            max_plies: 600,
        }
    }
}

/// How one game ended, for the first player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// The first player won.
    Win,
    /// Drawn.
    Draw,
    /// The second player won.
    Loss,
}

/// One played game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// Whether the first player had White.
    pub first_is_white: bool,
    /// Random opening plies at the start.
    pub opening_plies: u32,
    /// Every action, opening included.
    pub actions: Vec<String>,
    /// The result for the first player.
    pub score: Score,
    /// The engine's end reason, or `ply-limit` / `illegal-action` / `no-answer` by adjudication.
    pub reason: String,
}

/// Progress after each game.
#[derive(Debug)]
pub struct MatchProgress<'a> {
    /// Games played.
    pub played: u32,
    /// Games in the match.
    pub total: u32,
    /// Wins, draws, losses of the first player so far.
    pub wdl: (u32, u32, u32),
    /// The game just finished.
    pub last: &'a GameRecord,
}

/// A finished match.
#[derive(Clone, Debug)]
pub struct MatchResult {
    /// First player's wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// First player's losses.
    pub losses: u32,
    /// The Elo difference (first minus second), if any game was played.
    pub elo: Option<EloEstimate>,
    /// Every game.
    pub games: Vec<GameRecord>,
}

/// Why a match could not be played.
#[derive(Debug)]
pub enum MatchError {
    /// No such variant (or no bot for it).
    UnknownVariant(String),
    /// A UCI engine plays only standard chess from the start position.
    UciVariant(String),
    /// The UCI engine failed.
    Uci(UciError),
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MatchError::UnknownVariant(v) => write!(f, "no bot for variant '{v}'"),
            MatchError::UciVariant(v) => write!(f, "UCI engines play only standard chess, not '{v}'"),
            MatchError::Uci(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for MatchError {}

impl From<UciError> for MatchError {
    fn from(e: UciError) -> Self {
        MatchError::Uci(e)
    }
}

/// Plays the match, calling `progress` after each game.
///
/// # Errors
/// [`MatchError`] for an unknown variant or a failing UCI engine.
pub fn play_match(cfg: MatchConfig, progress: impl FnMut(&MatchProgress<'_>)) -> Result<MatchResult, MatchError> {
    struct Run<F> {
        cfg: MatchConfig,
        progress: F,
    }
    impl<F: FnMut(&MatchProgress<'_>)> WithVariant for Run<F> {
        type Output = Result<MatchResult, MatchError>;
        fn run<V: BotVariant>(self) -> Self::Output {
            run_match::<V>(&self.cfg, self.progress)
        }
    }
    let id = cfg.variant.clone();
    dispatch(&id, Run { cfg, progress }).unwrap_or(Err(MatchError::UnknownVariant(id)))
}

/// A player ready to move.
enum Seat<V: BotVariant> {
    Bot(Level, Box<Bot<V>>),
    Uci(Box<UciEngine>),
}

impl<V: BotVariant> Seat<V> {
    fn new(p: &Player) -> Result<Seat<V>, MatchError> {
        match p {
            Player::Bot(level) => Ok(Seat::Bot(*level, Box::new(Bot::new(*level)))),
            Player::Uci { program, elo } => {
                if V::ID != "standard" {
                    return Err(MatchError::UciVariant(V::ID.to_string()));
                }
                let mut e = UciEngine::start(program)?;
                if let Some(elo) = elo {
                    e.limit_strength(*elo)?;
                }
                Ok(Seat::Uci(Box::new(e)))
            }
        }
    }

    fn new_game(&mut self) -> Result<(), MatchError> {
        match self {
            Seat::Bot(_, b) => b.new_game(),
            Seat::Uci(e) => e.new_game()?,
        }
        Ok(())
    }

    /// The chosen move, or an adjudication reason.
    fn choose(&mut self, game: &Game<V>, movetime: Option<u64>, seed: u64) -> Result<Move, &'static str> {
        match self {
            Seat::Bot(level, bot) => {
                let limits = movetime.map_or_else(Limits::default, Limits::movetime);
                bot.think(game, *level, limits, seed).and_then(|r| r.best).ok_or("no-answer")
            }
            Seat::Uci(e) => {
                let moves: Vec<String> = game.actions().iter().map(|m| move_text::<V>(*m)).collect();
                let text = e.best_move(None, &moves, movetime.unwrap_or(100)).map_err(|_| "no-answer")?;
                game.parse(&text).map_err(|_| "illegal-action")
            }
        }
    }
}

/// Random opening plies from `seed`, kept only if a short search judges the position roughly
/// level (at most 30 tries).
fn opening<V: BotVariant>(seed: u64, opening_seed: u64, plies: u32) -> Vec<Move> {
    let mut judge = Searcher::<V>::new(4);
    let mut best = Vec::new();
    let mut best_abs = i32::MAX;
    for attempt in 0..30u64 {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        bytes[8..16].copy_from_slice(&attempt.to_le_bytes());
        let mut rng = ChaCha20Rng::from_seed(bytes);
        let mut game = Game::<V>::from_position_seeded(Position::start(), Some(opening_seed));
        let mut moves = Vec::new();
        let mut list = Vec::new();
        for _ in 0..plies {
            legal_moves(game.position(), &mut list);
            if game.outcome().is_some() || list.is_empty() {
                break;
            }
            let m = list[(rng.next_u64() % list.len() as u64) as usize];
            if game.play(m).is_err() {
                break;
            }
            moves.push(m);
        }
        if game.outcome().is_some() {
            continue;
        }
        let history = crate::bot::game_history(&game);
        let opts = SearchOptions { nodes: Some(20_000), ..SearchOptions::default() };
        let score = judge.search(game.position(), &history, opts).score.abs();
        if score < best_abs {
            best_abs = score;
            best = moves;
        }
        if best_abs <= 80 {
            break;
        }
    }
    best
}

fn run_match<V: BotVariant>(
    cfg: &MatchConfig,
    mut progress: impl FnMut(&MatchProgress<'_>),
) -> Result<MatchResult, MatchError> {
    let mut first = Seat::<V>::new(&cfg.white)?;
    let mut second = Seat::<V>::new(&cfg.black)?;
    let plies = cfg.opening_plies.unwrap_or(if V::ECONOMY || V::has_placements() { 2 } else { 4 });
    let mut result = MatchResult { wins: 0, draws: 0, losses: 0, elo: None, games: Vec::new() };
    let mut openings: Vec<Vec<Move>> = Vec::new();
    for g in 0..cfg.games {
        let pair = (g / 2) as usize;
        if openings.len() <= pair {
            openings.push(opening::<V>(
                mix64(cfg.seed ^ (pair as u64 + 1).wrapping_mul(0x9E37)),
                mix64(cfg.seed ^ pair as u64),
                plies,
            ));
        }
        let first_is_white = g % 2 == 0;
        first.new_game()?;
        second.new_game()?;
        let game_seed = mix64(cfg.seed ^ u64::from(g).wrapping_mul(0xA24B_AED4_963E_E407));
        // Both games of a pair share the opening and the random events (loot boxes).
        let mut game = Game::<V>::from_position_seeded(Position::start(), Some(mix64(cfg.seed ^ pair as u64)));
        for &m in &openings[pair] {
            let _ = game.play(m);
        }
        let mut reason = None;
        let mut forfeit: Option<Color> = None;
        while game.outcome().is_none() {
            if game.actions().len() as u32 >= cfg.max_plies {
                reason = Some("ply-limit".to_string());
                break;
            }
            let turn = game.position().turn();
            let seat = if (turn == Color::White) == first_is_white { &mut first } else { &mut second };
            let seed = game_seed ^ game.actions().len() as u64;
            match seat.choose(&game, cfg.movetime_ms, seed) {
                Ok(m) => {
                    if game.play(m).is_err() {
                        forfeit = Some(turn);
                        reason = Some("illegal-action".to_string());
                        break;
                    }
                }
                Err(why) => {
                    forfeit = Some(turn);
                    reason = Some(why.to_string());
                    break;
                }
            }
        }
        let winner = match (game.outcome(), forfeit) {
            (Some(o), _) => o.winner,
            (None, Some(loser)) => Some(!loser),
            (None, None) => None,
        };
        let reason = reason.or_else(|| game.outcome().map(|o| o.reason.as_str().to_string())).unwrap_or_default();
        let first_color = if first_is_white { Color::White } else { Color::Black };
        let score = match winner {
            None => Score::Draw,
            Some(c) if c == first_color => Score::Win,
            Some(_) => Score::Loss,
        };
        match score {
            Score::Win => result.wins += 1,
            Score::Draw => result.draws += 1,
            Score::Loss => result.losses += 1,
        }
        let record = GameRecord {
            first_is_white,
            opening_plies: openings[pair].len() as u32,
            actions: game.actions().iter().map(|m| move_text::<V>(*m)).collect(),
            score,
            reason,
        };
        progress(&MatchProgress {
            played: g + 1,
            total: cfg.games,
            wdl: (result.wins, result.draws, result.losses),
            last: &record,
        });
        result.games.push(record);
    }
    result.elo = elo_estimate(result.wins, result.draws, result.losses);
    Ok(result)
}
