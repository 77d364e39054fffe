//! An independent implementation of two intricate variants, `chessception` and `lootbox`
//! (with all of `gold` under it), written from the rule books only (`rules-seed-variants.md`,
//! `rules-chess-gold.md`) for differential testing of the engine.
//!
//! As plain as possible: a 64-square mailbox (`rank * 8 + file`), actions generated straight from
//! the rules, every effect of an action played out on a copy of the position, and legality judged
//! on the result. No bitboards, no incremental state, nothing cached between positions.

pub mod chessception;
pub mod lootbox;

/// A side.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
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

    pub fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// Rank step of this side's pawns.
    pub fn forward(self) -> i32 {
        match self {
            Color::White => 1,
            Color::Black => -1,
        }
    }

    /// Rank (0-7) of this side's second rank, where pawns may double-step.
    pub fn second_rank(self) -> i32 {
        match self {
            Color::White => 1,
            Color::Black => 6,
        }
    }

    /// Rank (0-7) of this side's last rank.
    pub fn last_rank(self) -> i32 {
        match self {
            Color::White => 7,
            Color::Black => 0,
        }
    }
}

/// A piece type; both variants use the FIDE set.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub enum Kind {
    Pawn,
    Knight,
    Bishop,
    Rook,
    Queen,
    King,
}

impl Kind {
    pub fn letter(self) -> char {
        match self {
            Kind::Pawn => 'P',
            Kind::Knight => 'N',
            Kind::Bishop => 'B',
            Kind::Rook => 'R',
            Kind::Queen => 'Q',
            Kind::King => 'K',
        }
    }

    pub fn from_letter(c: char) -> Option<Kind> {
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

    /// How the piece moves: (vector, slides).
    pub fn steps(self) -> (&'static [(i32, i32)], bool) {
        match self {
            Kind::Knight => (&KNIGHT, false),
            Kind::Bishop => (&DIAGONAL, true),
            Kind::Rook => (&ORTHOGONAL, true),
            Kind::Queen => (&ALL_DIRECTIONS, true),
            Kind::King => (&ALL_DIRECTIONS, false),
            Kind::Pawn => (&[], false),
        }
    }
}

pub const KNIGHT: [(i32, i32); 8] = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
pub const DIAGONAL: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, -1), (-1, 1)];
pub const ORTHOGONAL: [(i32, i32); 4] = [(1, 0), (0, -1), (-1, 0), (0, 1)];
pub const ALL_DIRECTIONS: [(i32, i32); 8] = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)];

pub fn file_of(sq: usize) -> i32 {
    (sq % 8) as i32
}

pub fn rank_of(sq: usize) -> i32 {
    (sq / 8) as i32
}

/// The square at (file, rank), if on the board.
pub fn at(file: i32, rank: i32) -> Option<usize> {
    if (0..8).contains(&file) && (0..8).contains(&rank) { Some((rank * 8 + file) as usize) } else { None }
}

/// The square `(df, dr)` away from `sq`, if on the board.
pub fn step(sq: usize, df: i32, dr: i32) -> Option<usize> {
    at(file_of(sq) + df, rank_of(sq) + dr)
}

/// King distance.
pub fn distance(a: usize, b: usize) -> i32 {
    (file_of(a) - file_of(b)).abs().max((rank_of(a) - rank_of(b)).abs())
}

pub fn square_name(sq: usize) -> String {
    format!("{}{}", (b'a' + file_of(sq) as u8) as char, rank_of(sq) + 1)
}

pub fn parse_square(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if b.len() != 2 || !(b'a'..=b'h').contains(&b[0]) || !(b'1'..=b'8').contains(&b[1]) {
        return None;
    }
    Some(usize::from(b[1] - b'1') * 8 + usize::from(b[0] - b'a'))
}

/// Reads the board field of a position text.
pub fn parse_board(field: &str) -> Result<[Option<(Color, Kind)>; 64], String> {
    let mut board = [None; 64];
    let rows: Vec<&str> = field.split('/').collect();
    if rows.len() != 8 {
        return Err(format!("board needs 8 ranks: {field}"));
    }
    for (i, row) in rows.iter().enumerate() {
        let rank = 7 - i as i32;
        let mut file = 0;
        for c in row.chars() {
            if let Some(d) = c.to_digit(10) {
                file += d as i32;
            } else {
                let kind = Kind::from_letter(c).ok_or_else(|| format!("unknown piece {c}"))?;
                let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
                let sq = at(file, rank).ok_or_else(|| format!("rank too long: {row}"))?;
                board[sq] = Some((color, kind));
                file += 1;
            }
        }
        if file != 8 {
            return Err(format!("rank of wrong length: {row}"));
        }
    }
    Ok(board)
}

/// Writes the board field of a position text.
pub fn board_text(piece: impl Fn(usize) -> Option<(Color, Kind)>) -> String {
    let mut rows = Vec::new();
    for rank in (0..8).rev() {
        let mut row = String::new();
        let mut empty = 0;
        for file in 0..8 {
            match piece((rank * 8 + file) as usize) {
                None => empty += 1,
                Some((color, kind)) => {
                    if empty > 0 {
                        row.push_str(&empty.to_string());
                        empty = 0;
                    }
                    let c = kind.letter();
                    row.push(if color == Color::White { c } else { c.to_ascii_lowercase() });
                }
            }
        }
        if empty > 0 {
            row.push_str(&empty.to_string());
        }
        rows.push(row);
    }
    rows.join("/")
}

pub fn parse_side(field: &str) -> Result<Color, String> {
    match field {
        "w" => Ok(Color::White),
        "b" => Ok(Color::Black),
        _ => Err(format!("bad side {field}")),
    }
}

pub fn side_text(side: Color) -> &'static str {
    match side {
        Color::White => "w",
        Color::Black => "b",
    }
}

/// Reads `name=value` from a position text field.
pub fn named<'a>(field: Option<&&'a str>, name: &str) -> Result<&'a str, String> {
    field.and_then(|f| f.strip_prefix(name)).and_then(|f| f.strip_prefix('=')).ok_or_else(|| format!("missing {name}="))
}

/// How a game ended: winner (if any) and reason.
pub type Outcome = (Option<Color>, &'static str);
