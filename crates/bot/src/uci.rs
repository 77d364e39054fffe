//! A minimal UCI client: another engine (Debian's `stockfish`) run as a subprocess, for
//! measuring strength. The only I/O of the crate; the search never uses it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::Duration;

/// A failure talking to the engine.
#[derive(Debug)]
pub enum UciError {
    /// The program could not be started.
    Spawn(String, std::io::Error),
    /// Writing to the engine failed.
    Io(std::io::Error),
    /// The engine closed its output or did not answer in time.
    NoAnswer(String),
}

impl core::fmt::Display for UciError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            UciError::Spawn(p, e) => write!(f, "cannot start UCI engine '{p}': {e}"),
            UciError::Io(e) => write!(f, "UCI engine I/O: {e}"),
            UciError::NoAnswer(what) => write!(f, "UCI engine gave no answer: {what}"),
        }
    }
}

impl std::error::Error for UciError {}

/// A running UCI engine.
#[derive(Debug)]
pub struct UciEngine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// The `id name` the engine reported.
    pub name: String,
}

fn reader(stdout: ChildStdout) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

impl UciEngine {
    /// Starts `program` and completes the UCI handshake.
    ///
    /// # Errors
    /// [`UciError`] if it cannot be started or does not speak UCI.
    pub fn start(program: &str) -> Result<UciEngine, UciError> {
        let mut child = Command::new(program)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| UciError::Spawn(program.to_string(), e))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(UciError::NoAnswer("no pipes".into()));
        };
        let mut engine = UciEngine { child, stdin, lines: reader(stdout), name: program.to_string() };
        engine.send("uci")?;
        loop {
            let line = engine.next_line("uciok")?;
            if let Some(name) = line.strip_prefix("id name ") {
                engine.name = name.trim().to_string();
            }
            if line.trim() == "uciok" {
                break;
            }
        }
        Ok(engine)
    }

    fn next_line(&mut self, waiting_for: &str) -> Result<String, UciError> {
        match self.lines.recv_timeout(ANSWER_TIMEOUT) {
            Ok(l) => Ok(l),
            Err(RecvTimeoutError::Timeout) => Err(UciError::NoAnswer(format!("timed out waiting for {waiting_for}"))),
            Err(RecvTimeoutError::Disconnected) => Err(UciError::NoAnswer(format!("closed before {waiting_for}"))),
        }
    }

    /// Sends one command line.
    ///
    /// # Errors
    /// [`UciError::Io`] if the pipe is closed.
    pub fn send(&mut self, line: &str) -> Result<(), UciError> {
        writeln!(self.stdin, "{line}").and_then(|()| self.stdin.flush()).map_err(UciError::Io)
    }

    /// Sets an option.
    ///
    /// # Errors
    /// [`UciError::Io`] if the pipe is closed.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), UciError> {
        self.send(&format!("setoption name {name} value {value}"))
    }

    /// Waits until the engine is ready.
    ///
    /// # Errors
    /// [`UciError`] if it does not answer.
    pub fn sync(&mut self) -> Result<(), UciError> {
        self.send("isready")?;
        while self.next_line("readyok")?.trim() != "readyok" {}
        Ok(())
    }

    /// Plays at a limited strength (`UCI_LimitStrength`, `UCI_Elo`).
    ///
    /// # Errors
    /// [`UciError`] if it does not answer.
    pub fn limit_strength(&mut self, elo: u32) -> Result<(), UciError> {
        self.set_option("UCI_LimitStrength", "true")?;
        self.set_option("UCI_Elo", &elo.to_string())?;
        self.sync()
    }

    /// Starts a new game.
    ///
    /// # Errors
    /// [`UciError`] if it does not answer.
    pub fn new_game(&mut self) -> Result<(), UciError> {
        self.send("ucinewgame")?;
        self.sync()
    }

    /// The engine's move (UCI long algebraic, the same text as the engine's standard
    /// notation) after `moves` from `fen` (`None`: the start position), thinking `movetime_ms`.
    ///
    /// # Errors
    /// [`UciError`] if it does not answer.
    pub fn best_move(&mut self, fen: Option<&str>, moves: &[String], movetime_ms: u64) -> Result<String, UciError> {
        let mut cmd = match fen {
            None => "position startpos".to_string(),
            Some(f) => format!("position fen {f}"),
        };
        if !moves.is_empty() {
            cmd.push_str(" moves ");
            cmd.push_str(&moves.join(" "));
        }
        self.send(&cmd)?;
        self.send(&format!("go movetime {movetime_ms}"))?;
        loop {
            let line = self.next_line("bestmove")?;
            if let Some(rest) = line.strip_prefix("bestmove ") {
                return Ok(rest.split_whitespace().next().unwrap_or("").to_string());
            }
        }
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let _ = self.child.wait();
    }
}
