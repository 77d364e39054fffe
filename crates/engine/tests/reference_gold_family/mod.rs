//! An independent, deliberately naive implementation of the rules of `standard`, `gold`, `sandbox`,
//! `conqueror` and `conqueror-gold`, written from the rule book (`rules-chess-gold.md`) and the
//! FIDE laws only, for differential testing of the engine.
//!
//! Everything here is as plain as possible: a 64-square mailbox (`rank * 8 + file`), pseudo-legal
//! actions generated straight from the rules, and legality decided by playing the action on a copy
//! and walking rays from the mover's king. No bitboards, no pins, no incremental state.

mod rules;
mod text;

pub use rules::Action;

/// The variants this reference knows.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Var {
    Standard,
    Gold,
    Sandbox,
    Conqueror,
    ConquerorGold,
}

impl Var {
    pub fn id(self) -> &'static str {
        match self {
            Var::Standard => "standard",
            Var::Gold => "gold",
            Var::Sandbox => "sandbox",
            Var::Conqueror => "conqueror",
            Var::ConquerorGold => "conqueror-gold",
        }
    }

    pub fn start_fen(self) -> &'static str {
        match self {
            Var::Standard | Var::Conqueror => "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            Var::Sandbox => "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
            Var::Gold => "4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3",
            Var::ConquerorGold => "4k3/8/8/8/8/8/8/4K3 w - - 0 1 gold=4/3 placed=-",
        }
    }

    /// Gold, a shop with prices and zones, promotion fees, waiting pawns.
    fn economy(self) -> bool {
        matches!(self, Var::Gold | Var::ConquerorGold)
    }

    /// Captures convert the captured piece.
    fn converts(self) -> bool {
        matches!(self, Var::Conqueror | Var::ConquerorGold)
    }

    fn castling(self) -> bool {
        matches!(self, Var::Standard | Var::Conqueror)
    }

    /// Pieces can be put on the board.
    fn places(self) -> bool {
        matches!(self, Var::Gold | Var::ConquerorGold | Var::Sandbox)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Color {
    White,
    Black,
}

impl Color {
    fn idx(self) -> usize {
        match self {
            Color::White => 0,
            Color::Black => 1,
        }
    }

    fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// Rank step of this side's pawns.
    fn forward(self) -> i32 {
        match self {
            Color::White => 1,
            Color::Black => -1,
        }
    }

    /// Rank index (0-7) of this side's second rank.
    fn second_rank(self) -> i32 {
        match self {
            Color::White => 1,
            Color::Black => 6,
        }
    }

    /// Rank index (0-7) of this side's last rank.
    fn last_rank(self) -> i32 {
        match self {
            Color::White => 7,
            Color::Black => 0,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Pawn,
    Knight,
    Bishop,
    Rook,
    Queen,
    King,
}

impl Kind {
    /// Shop price in half-gold units (P 1, N 3, B 3, R 5, Q 8 gold).
    fn price_halves(self) -> u32 {
        match self {
            Kind::Pawn => 2,
            Kind::Knight | Kind::Bishop => 6,
            Kind::Rook => 10,
            Kind::Queen => 16,
            Kind::King => 0,
        }
    }

    fn letter(self) -> char {
        match self {
            Kind::Pawn => 'P',
            Kind::Knight => 'N',
            Kind::Bishop => 'B',
            Kind::Rook => 'R',
            Kind::Queen => 'Q',
            Kind::King => 'K',
        }
    }

    fn from_letter(c: char) -> Option<Kind> {
        Some(match c.to_ascii_uppercase() {
            'P' => Kind::Pawn,
            'N' => Kind::Knight,
            'B' => Kind::Bishop,
            'R' => Kind::Rook,
            'Q' => Kind::Queen,
            'K' => Kind::King,
            _ => return None,
        })
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Piece {
    pub color: Color,
    pub kind: Kind,
}

/// A position: everything the position text holds.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Pos {
    pub var: Var,
    pub board: [Option<Piece>; 64],
    pub side: Color,
    /// White king side, white queen side, black king side, black queen side.
    pub castle: [bool; 4],
    /// The square a pawn just skipped with a double step (whether or not a capture is legal).
    pub ep: Option<usize>,
    pub halfmove: u32,
    pub fullmove: u32,
    /// Gold in half units, White and Black; the side to move's includes this turn's income.
    pub gold: [u32; 2],
    /// Conqueror Gold: who placed a piece on their previous turn.
    pub placed: [bool; 2],
    /// The last action converted the opponent's last non-king piece.
    pub ended: bool,
}

/// How a game ended: winner (if any) and reason.
pub type Outcome = (Option<Color>, &'static str);

/// A game: a position plus the history needed for repetition.
#[derive(Clone, Debug)]
pub struct RefGame {
    pub pos: Pos,
    /// Repetition keys of the positions at the start of every turn so far, current included.
    keys: Vec<String>,
    /// The position's legal actions with their texts, sorted (position rules only).
    actions: Vec<(String, Action)>,
    outcome: Option<Outcome>,
}

impl RefGame {
    pub fn new(var: Var) -> RefGame {
        RefGame::from_fen(var, var.start_fen()).unwrap_or_else(|e| panic!("start position of {var:?}: {e}"))
    }

    pub fn from_fen(var: Var, fen: &str) -> Result<RefGame, String> {
        let pos = Pos::from_fen(var, fen)?;
        let keys = vec![pos.repetition_key()];
        let mut game = RefGame { pos, keys, actions: Vec::new(), outcome: None };
        game.judge();
        Ok(game)
    }

    /// Lists the actions and judges the game's end at the start of the turn.
    fn judge(&mut self) {
        let pos = &self.pos;
        self.actions = pos.legal_texts();
        self.outcome = if pos.ended {
            Some((Some(pos.side.other()), "conversion"))
        } else if self.actions.is_empty() {
            Some(if pos.in_check() { (Some(pos.side.other()), "checkmate") } else { (None, "stalemate") })
        // Several draws at once: the order of docs/rules-decisions.md.
        } else if pos.var == Var::Standard && pos.insufficient_material() {
            Some((None, "insufficient-material"))
        } else if self.keys.iter().filter(|k| Some(*k) == self.keys.last()).count() >= 3 {
            Some((None, "repetition"))
        } else if pos.halfmove >= 100 {
            Some((None, "no-progress"))
        } else {
            None
        };
    }

    pub fn fen(&self) -> String {
        self.pos.fen()
    }

    /// The game's end, judged at the start of the turn.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// The legal actions with their texts, sorted by text; none once the game is over.
    pub fn legal(&self) -> &[(String, Action)] {
        if self.outcome.is_some() { &[] } else { &self.actions }
    }

    pub fn legal_texts(&self) -> Vec<String> {
        self.legal().iter().map(|(t, _)| t.clone()).collect()
    }

    pub fn play(&mut self, text: &str) -> Result<(), String> {
        let action = self
            .legal()
            .iter()
            .find(|(t, _)| t == text)
            .map(|(_, a)| *a)
            .ok_or_else(|| format!("{text} is not legal in {}", self.fen()))?;
        self.pos = self.pos.after(action);
        self.keys.push(self.pos.repetition_key());
        self.judge();
        Ok(())
    }
}

/// Leaf count of the legal-action tree of a position (position rules only: no repetition or
/// no-progress, but a conversion win ends the tree).
pub fn perft(pos: &Pos, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal();
    if depth == 1 {
        return moves.len() as u64;
    }
    moves.iter().map(|a| perft(&pos.after(*a), depth - 1)).sum()
}
