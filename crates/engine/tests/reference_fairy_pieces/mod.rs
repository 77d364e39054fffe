//! An independent reference for `electrum`, `grunt` and `class-warfare`, written from the
//! rule book (`rules-seed-variants.md`, the general rules of `rules-chess-gold.md`) and the FIDE laws
//! only, for differential testing of the engine.
//!
//! Deliberately plain: a mailbox of `files * ranks` squares (`rank * files + file`), every piece
//! described by a list of steps and slides written out from the rule book, pseudo-legal actions
//! generated from those, and legality decided by playing the action on a copy and looking for any
//! enemy piece that reaches the mover's king (Electrum and Grunt; Class Warfare has no check).

mod rules;
mod text;

/// The variants this reference knows.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Var {
    Electrum,
    Grunt,
    ClassWarfare,
}

impl Var {
    pub fn id(self) -> &'static str {
        match self {
            Var::Electrum => "electrum",
            Var::Grunt => "grunt",
            Var::ClassWarfare => "class-warfare",
        }
    }

    pub fn start_fen(self) -> &'static str {
        match self {
            Var::Electrum => "wcbskgmnr/ppppppppp/9/9/9/9/9/PPPPPPPPP/RNMGKSBCW w Qk - 0 1",
            Var::Grunt => "1nbgkbn1/pppppppp/8/8/8/8/PPPPPPPP/1NBGKBN1 w - - 0 1 xp=0/1",
            Var::ClassWarfare => "pppppppp/8/8/RNBQKBNR b - - 0 1",
        }
    }

    pub fn files(self) -> i32 {
        match self {
            Var::Electrum => 9,
            Var::Grunt | Var::ClassWarfare => 8,
        }
    }

    pub fn ranks(self) -> i32 {
        match self {
            Var::Electrum => 9,
            Var::Grunt => 8,
            Var::ClassWarfare => 4,
        }
    }

    pub fn squares(self) -> usize {
        (self.files() * self.ranks()) as usize
    }

    /// Whether kings are royal (check exists and legality is make-and-test).
    pub fn has_check(self) -> bool {
        !matches!(self, Var::ClassWarfare)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Color {
    White,
    Black,
}

impl Color {
    pub fn idx(self) -> usize {
        match self {
            Color::White => 0,
            Color::Black => 1,
        }
    }

    pub fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// Rank step towards the opponent.
    pub fn forward(self) -> i32 {
        match self {
            Color::White => 1,
            Color::Black => -1,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

/// Every piece type of the three variants.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Pawn,
    King,
    // FIDE pieces (Grunt, Class Warfare).
    Knight,
    Bishop,
    Rook,
    Queen,
    // Grunt Chess.
    Grunt,
    // Electrum Chess.
    Goldrook,
    Nitan,
    Goldmitre,
    Goldrider,
    Silverrider,
    Silverbishop,
    Caman,
    Silverwing,
}

impl Kind {
    /// The Gold pieces of Electrum, in the rule book's order.
    pub const GOLD: [Kind; 4] = [Kind::Goldrook, Kind::Nitan, Kind::Goldmitre, Kind::Goldrider];
    /// The Silver pieces of Electrum.
    pub const SILVER: [Kind; 4] = [Kind::Silverrider, Kind::Silverbishop, Kind::Caman, Kind::Silverwing];
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Piece {
    pub color: Color,
    pub kind: Kind,
}

/// A turn action.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Action {
    /// A move (castling is the king's move; `promo` for Electrum's compulsory promotion).
    Move { from: usize, to: usize, promo: Option<Kind> },
    /// Grunt: a piece climbs one step of the ladder in place.
    Promote { sq: usize, kind: Kind },
    /// Grunt: a new Grunt next to the own king.
    Muster { sq: usize },
}

/// Everything the position text holds.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Pos {
    pub var: Var,
    pub board: Vec<Option<Piece>>,
    pub side: Color,
    /// Electrum: White's `Q` (Goldrook a1), Black's `k` (Goldrook i9).
    pub castle: [bool; 2],
    /// The square a pawn just skipped with a double step (whether or not a capture is legal).
    pub ep: Option<usize>,
    pub halfmove: u32,
    pub fullmove: u32,
    /// Grunt: experience points of White and Black.
    pub xp: [u32; 2],
}

/// How a game ended: winner (if any) and reason.
pub type Outcome = (Option<Color>, &'static str);

/// The engine's `status` word for an end reason.
pub fn status_of(reason: &str) -> &'static str {
    match reason {
        "checkmate" => "checkmate",
        "stalemate" => "stalemate",
        "repetition" | "no-progress" | "insufficient-material" => "draw",
        _ => "variant_end",
    }
}

/// A game: a position plus the history needed for repetition.
#[derive(Clone, Debug)]
pub struct RefGame {
    pub pos: Pos,
    /// Repetition keys of the positions at the start of every turn so far, current included.
    keys: Vec<String>,
    /// The position's legal actions with their texts, sorted.
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
        if let Some(end) = pos.variant_end() {
            self.outcome = Some(end);
            return;
        }
        let repeated = self.keys.iter().filter(|k| Some(*k) == self.keys.last()).count() >= 3;
        self.outcome = match pos.var {
            Var::ClassWarfare => {
                if self.actions.is_empty() {
                    Some((Some(pos.side.other()), "no-move"))
                } else {
                    None
                }
            }
            Var::Electrum | Var::Grunt => {
                if self.actions.is_empty() {
                    Some(if pos.in_check() { (Some(pos.side.other()), "checkmate") } else { (None, "stalemate") })
                } else if pos.var == Var::Electrum && pos.bare_kings() {
                    Some((None, "insufficient-material"))
                } else if repeated {
                    Some((None, "repetition"))
                } else if pos.halfmove >= 100 {
                    Some((None, "no-progress"))
                } else {
                    None
                }
            }
        };
    }

    pub fn fen(&self) -> String {
        self.pos.fen()
    }

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

/// Leaf count of the legal-action tree (position rules only: repetition and the no-progress rule
/// do not cut it; Class Warfare's own ends do).
pub fn perft(pos: &Pos, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if pos.variant_end().is_some() {
        return 0;
    }
    let moves = pos.legal();
    if depth == 1 {
        return moves.len() as u64;
    }
    moves.iter().map(|a| perft(&pos.after(*a), depth - 1)).sum()
}
