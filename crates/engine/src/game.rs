//! A game: a start position, the actions played, the current position and its result.
//!
//! The game applies the rule book's end rules: wins produced by an action first, then the
//! automatic draws judged at the start of a turn (stalemate, material, threefold repetition over
//! the whole game, the no-progress rule).

use crate::action::{ActionError, ActionText, Move, MoveKind, MoveList};
use crate::explain::explain;
use crate::geometry::Geometry;
use crate::movegen::legal_moves;
use crate::outcome::{EndReason, Outcome};
use crate::pieces::Role;
use crate::position::Position;
use crate::variant::Variant;

/// The text of a move in the variant's notation.
pub fn move_text<V: Variant>(m: Move) -> String {
    let sq = |s| V::Geo::name(s).to_string();
    let letter = |r: Role| V::PIECES.get(r.idx()).map_or('?', |d| d.letter);
    match m.kind {
        MoveKind::Normal | MoveKind::EnPassant if m.aux != Move::NO_SQUARE => {
            format!("{}{}/{}", sq(m.from), sq(m.to), sq(m.aux))
        }
        MoveKind::Promotion if m.aux != Move::NO_SQUARE => {
            format!("{}{}{}/{}", sq(m.from), sq(m.to), letter(m.role).to_ascii_lowercase(), sq(m.aux))
        }
        MoveKind::Normal | MoveKind::EnPassant | MoveKind::Castle => format!("{}{}", sq(m.from), sq(m.to)),
        MoveKind::Promotion => format!("{}{}{}", sq(m.from), sq(m.to), letter(m.role).to_ascii_lowercase()),
        MoveKind::Place => format!("{}@{}", letter(m.role), sq(m.to)),
        MoveKind::PromoteInPlace => format!("{}={}", sq(m.to), letter(m.role)),
        MoveKind::Equip => V::equip_text(m),
    }
}

/// A game of variant `V`.
#[derive(Clone, Debug)]
pub struct Game<V: Variant> {
    start: Position<V>,
    pos: Position<V>,
    history: Vec<u64>,
    actions: Vec<Move>,
    legal: MoveList,
    equips: MoveList,
    outcome: Option<Outcome>,
    seed: Option<u64>,
}

impl<V: Variant> Default for Game<V> {
    fn default() -> Self {
        Game::from_position(Position::start())
    }
}

impl<V: Variant> Game<V> {
    /// A game from the variant's start position.
    pub fn new() -> Game<V> {
        Game::default()
    }

    /// A game starting from `pos`.
    pub fn from_position(pos: Position<V>) -> Game<V> {
        Game::from_position_seeded(pos, None)
    }

    /// A game starting from `pos` whose random events (if the variant has any) come from `seed`.
    pub fn from_position_seeded(mut pos: Position<V>, seed: Option<u64>) -> Game<V> {
        let seed = V::SEEDED.then(|| seed.unwrap_or(0));
        if let Some(s) = seed {
            V::set_seed(&mut pos, s);
        }
        let mut game = Game {
            start: pos.clone(),
            pos,
            history: Vec::new(),
            actions: Vec::new(),
            legal: Vec::new(),
            equips: Vec::new(),
            outcome: None,
            seed,
        };
        game.refresh();
        game
    }

    /// The seed of a variant with random events.
    pub fn seed(&self) -> Option<u64> {
        self.seed
    }

    /// The current position.
    pub fn position(&self) -> &Position<V> {
        &self.pos
    }

    /// The position the game started from.
    pub fn start_position(&self) -> &Position<V> {
        &self.start
    }

    /// Repetition keys of the positions at the start of every earlier turn of the game.
    pub fn history(&self) -> &[u64] {
        &self.history
    }

    /// The actions played so far.
    pub fn actions(&self) -> &[Move] {
        &self.actions
    }

    /// The result, once the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// The legal actions now (none once the game is over).
    pub fn legal(&self) -> &[Move] {
        &self.legal
    }

    /// The equips available now (actions that do not end the turn; none once the game is over).
    pub fn equips(&self) -> &[Move] {
        &self.equips
    }

    /// The equips as sorted text.
    pub fn equip_texts(&self) -> Vec<String> {
        let mut texts: Vec<String> = self.equips.iter().map(|m| move_text::<V>(*m)).collect();
        texts.sort();
        texts
    }

    /// The legal actions as sorted text.
    pub fn legal_texts(&self) -> Vec<String> {
        let mut texts: Vec<String> = self.legal.iter().map(|m| move_text::<V>(*m)).collect();
        texts.sort();
        texts
    }

    fn refresh(&mut self) {
        legal_moves(&self.pos, &mut self.legal);
        self.equips.clear();
        V::gen_equips(&self.pos, &mut self.equips);
        self.outcome = self.judge();
        if self.outcome.is_some() {
            self.legal.clear();
            self.equips.clear();
        }
    }

    fn judge(&self) -> Option<Outcome> {
        if let Some(o) = V::variant_outcome(&self.pos) {
            return Some(o);
        }
        // Equips are legal only when a turn action remains after them, so a player with an
        // equip available is neither mated nor stalemated.
        if self.legal.is_empty() && self.equips.is_empty() {
            return Some(V::no_moves_outcome(&self.pos));
        }
        if V::insufficient_material(&self.pos) {
            return Some(Outcome::draw(EndReason::InsufficientMaterial));
        }
        let key = self.pos.hash();
        if V::REPETITION && self.history.iter().filter(|h| **h == key).count() >= 2 {
            return Some(Outcome::draw(EndReason::Repetition));
        }
        if V::NO_PROGRESS_PLIES.is_some_and(|n| self.pos.halfmoves() >= n) {
            return Some(Outcome::draw(EndReason::NoProgress));
        }
        None
    }

    /// Plays a legal action.
    ///
    /// # Errors
    /// [`ActionError::GameOver`] after the end, [`ActionError::Illegal`] for an action not in
    /// [`Game::legal`]; the game is unchanged.
    pub fn play(&mut self, m: Move) -> Result<(), ActionError> {
        if let Some(o) = self.outcome {
            return Err(ActionError::GameOver(format!("the game is over ({})", o.reason)));
        }
        if m.kind == MoveKind::Equip {
            if !self.equips.contains(&m) {
                return Err(ActionError::Illegal(format!("{} is not legal here", move_text::<V>(m))));
            }
            V::apply_equip(&mut self.pos, m);
            self.actions.push(m);
            self.refresh();
            return Ok(());
        }
        if !self.legal.contains(&m) {
            return Err(ActionError::Illegal(format!("{} is not legal here", move_text::<V>(m))));
        }
        self.history.push(self.pos.hash());
        self.pos.play_unchecked(m);
        self.actions.push(m);
        self.refresh();
        Ok(())
    }

    /// Parses an action in the notation and plays it.
    ///
    /// # Errors
    /// An [`ActionError`] that says why the text is malformed or the action illegal; the game
    /// is unchanged.
    pub fn play_text(&mut self, text: &str) -> Result<Move, ActionError> {
        let m = self.parse(text)?;
        self.play(m)?;
        Ok(m)
    }

    /// Finds the legal action written as `text`.
    ///
    /// # Errors
    /// An [`ActionError`] that says why it is not a legal action here.
    pub fn parse(&self, text: &str) -> Result<Move, ActionError> {
        let syntax = ActionText::parse(text)?;
        if let Some(o) = self.outcome {
            return Err(ActionError::GameOver(format!("the game is over ({}); no action is legal", o.reason)));
        }
        if let Some(m) = find_legal::<V>(&self.legal, &syntax) {
            return Ok(m);
        }
        if let ActionText::Equip { .. } = syntax
            && let Some(m) = self.equips.iter().find(|m| move_text::<V>(**m) == text)
        {
            return Ok(*m);
        }
        Err(explain(&self.pos, &self.legal, text, &syntax))
    }
}

fn role_of_letter<V: Variant>(letter: char) -> Option<Role> {
    V::PIECES.iter().position(|d| d.letter == letter).map(|i| Role(i as u8))
}

/// The legal move written as `syntax`, if any (without formatting every legal move).
fn find_legal<V: Variant>(legal: &[Move], syntax: &ActionText) -> Option<Move> {
    let sq = |s: &str| V::Geo::parse_square(s);
    match syntax {
        ActionText::Move { from, to, promotion, landing } => {
            let (from, to) = (sq(from)?, sq(to)?);
            let landing = match landing {
                Some(l) => sq(l)?,
                None => Move::NO_SQUARE,
            };
            // A castling move keeps its rook in `aux`; it is never written with a landing.
            let lands =
                |m: &Move| if m.kind == MoveKind::Castle { landing == Move::NO_SQUARE } else { m.aux == landing };
            match promotion {
                Some(p) => {
                    let role = role_of_letter::<V>(p.to_ascii_uppercase())?;
                    legal.iter().copied().find(|m| {
                        m.kind == MoveKind::Promotion && m.from == from && m.to == to && m.role == role && lands(m)
                    })
                }
                None => legal.iter().copied().find(|m| {
                    matches!(m.kind, MoveKind::Normal | MoveKind::EnPassant | MoveKind::Castle)
                        && m.from == from
                        && m.to == to
                        && lands(m)
                }),
            }
        }
        ActionText::Place { letter, to } => {
            let (role, to) = (role_of_letter::<V>(*letter)?, sq(to)?);
            legal.iter().copied().find(|m| m.kind == MoveKind::Place && m.to == to && m.role == role)
        }
        ActionText::Promote { square, letter } => {
            let (role, to) = (role_of_letter::<V>(*letter)?, sq(square)?);
            legal.iter().copied().find(|m| m.kind == MoveKind::PromoteInPlace && m.to == to && m.role == role)
        }
        ActionText::Equip { .. } => None,
    }
}
