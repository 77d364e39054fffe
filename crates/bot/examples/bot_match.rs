//! Plays a match between two bot levels or a level and a UCI engine, with the match code of the
//! `chessgold bot-match` command (plus `--openings` and `--moves`):
//!
//! ```text
//! cargo run --release -p chessgold-bot --example bot_match -- \
//!     --variant standard --white 8 --black stockfish:1500 --games 40 --movetime 200 --seed 1
//! ```
//!
//! Prints one line per game, then wins/draws/losses of the `--white` player (who has White in
//! the odd games; colours alternate) and the Elo difference with its 95% interval.

use std::process::ExitCode;

use chessgold_bot::matches::Score;
use chessgold_bot::{MatchConfig, Player, play_match};

fn usage() -> ExitCode {
    eprintln!(
        "usage: bot_match --variant ID --white LEVEL|stockfish:ELO --black LEVEL|stockfish:ELO --games N \
         [--movetime MS] [--seed S] [--openings PLIES] [--max-plies N] [--moves]"
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut variant = None;
    let mut white = None;
    let mut black = None;
    let mut games = None;
    let mut movetime = None;
    let mut seed = 1u64;
    let mut openings = None;
    let mut max_plies = 600u32;
    let mut show_moves = false;
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).cloned();
        let flag = args[i].as_str();
        if flag == "--moves" {
            show_moves = true;
            i += 1;
            continue;
        }
        let Some(value) = value else { return usage() };
        let bad = |what: &str| {
            eprintln!("{flag}: {what}");
            usage()
        };
        match flag {
            "--variant" => variant = Some(value),
            "--white" => match value.parse::<Player>() {
                Ok(p) => white = Some(p),
                Err(e) => return bad(&e),
            },
            "--black" => match value.parse::<Player>() {
                Ok(p) => black = Some(p),
                Err(e) => return bad(&e),
            },
            "--games" => match value.parse::<u32>() {
                Ok(n) if n > 0 => games = Some(n),
                _ => return bad("a positive number"),
            },
            "--movetime" => match value.parse::<u64>() {
                Ok(n) => movetime = Some(n),
                Err(_) => return bad("milliseconds"),
            },
            "--seed" => match value.parse::<u64>() {
                Ok(n) => seed = n,
                Err(_) => return bad("a number"),
            },
            "--openings" => match value.parse::<u32>() {
                Ok(n) => openings = Some(n),
                Err(_) => return bad("a number of plies"),
            },
            "--max-plies" => match value.parse::<u32>() {
                Ok(n) => max_plies = n,
                Err(_) => return bad("a number of plies"),
            },
            _ => return usage(),
        }
        i += 2;
    }
    let (Some(variant), Some(white), Some(black), Some(games)) = (variant, white, black, games) else {
        return usage();
    };
    let mut cfg = MatchConfig::new(&variant, white.clone(), black.clone(), games);
    cfg.movetime_ms = movetime;
    cfg.seed = seed;
    cfg.opening_plies = openings;
    cfg.max_plies = max_plies;
    println!("{variant}: {white} vs {black}, {games} games, movetime {movetime:?} ms, seed {seed}");
    let started = std::time::Instant::now();
    let result = play_match(cfg, |p| {
        let r = p.last;
        let mark = match r.score {
            Score::Win => "1-0",
            Score::Draw => "½-½",
            Score::Loss => "0-1",
        };
        println!(
            "game {:>3}/{}: first player {} {mark} ({}, {} plies)  total +{} ={} -{}",
            p.played,
            p.total,
            if r.first_is_white { "white" } else { "black" },
            r.reason,
            r.actions.len(),
            p.wdl.0,
            p.wdl.1,
            p.wdl.2
        );
        if show_moves {
            println!("  {}", r.actions.join(" "));
        }
    });
    match result {
        Ok(r) => {
            let n = r.wins + r.draws + r.losses;
            let score = f64::from(r.wins) + f64::from(r.draws) / 2.0;
            println!(
                "{white} vs {black}: +{} ={} -{} score {score}/{n} ({:.1}%), Elo {}  [{:.0} s]",
                r.wins,
                r.draws,
                r.losses,
                100.0 * score / f64::from(n.max(1)),
                r.elo.map_or_else(|| "-".to_string(), |e| e.to_text()),
                started.elapsed().as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
