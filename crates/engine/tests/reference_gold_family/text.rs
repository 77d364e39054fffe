//! Position text and action text, as the rule book writes them.

use super::rules::{Action, file_of, rank_of};
use super::{Color, Kind, Piece, Pos, Var};

pub fn square_name(sq: usize) -> String {
    format!("{}{}", (b'a' + file_of(sq) as u8) as char, rank_of(sq) + 1)
}

fn parse_square(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if b.len() != 2 || !(b'a'..=b'h').contains(&b[0]) || !(b'1'..=b'8').contains(&b[1]) {
        return None;
    }
    Some(usize::from(b[1] - b'1') * 8 + usize::from(b[0] - b'a'))
}

/// Half-gold units as a decimal with at most one `.5`.
fn gold_text(halves: u32) -> String {
    if halves.is_multiple_of(2) { format!("{}", halves / 2) } else { format!("{}.5", halves / 2) }
}

fn parse_gold(s: &str) -> Option<u32> {
    let (whole, half) = match s.split_once('.') {
        Some((w, "5")) => (w, 1),
        Some(_) => return None,
        None => (s, 0),
    };
    whole.parse::<u32>().ok().map(|w| w * 2 + half)
}

impl Action {
    pub fn text(self) -> String {
        match self {
            Action::Move { from, to, promo } => {
                let letter = promo.map(|k| k.letter().to_ascii_lowercase().to_string()).unwrap_or_default();
                format!("{}{}{}", square_name(from), square_name(to), letter)
            }
            Action::Place { kind, sq } => format!("{}@{}", kind.letter(), square_name(sq)),
            Action::Promote { sq, kind } => format!("{}={}", square_name(sq), kind.letter()),
        }
    }
}

impl Pos {
    pub fn from_fen(var: Var, fen: &str) -> Result<Pos, String> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.len() < 6 {
            return Err(format!("too few fields in {fen:?}"));
        }
        let mut board = [None; 64];
        let rows: Vec<&str> = fields[0].split('/').collect();
        if rows.len() != 8 {
            return Err(format!("bad board in {fen:?}"));
        }
        for (i, row) in rows.iter().enumerate() {
            let rank = 7 - i;
            let mut file = 0;
            for c in row.chars() {
                if let Some(d) = c.to_digit(10) {
                    file += d as usize;
                    continue;
                }
                let kind = Kind::from_letter(c).ok_or_else(|| format!("bad piece {c} in {fen:?}"))?;
                let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
                if file >= 8 {
                    return Err(format!("row too long in {fen:?}"));
                }
                board[rank * 8 + file] = Some(Piece { color, kind });
                file += 1;
            }
            if file != 8 {
                return Err(format!("row of wrong length in {fen:?}"));
            }
        }
        let side = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(format!("bad side {other}")),
        };
        let mut castle = [false; 4];
        if fields[2] != "-" {
            for c in fields[2].chars() {
                let i = "KQkq".find(c).ok_or_else(|| format!("bad castling {c}"))?;
                castle[i] = true;
            }
        }
        let ep = if fields[3] == "-" { None } else { Some(parse_square(fields[3]).ok_or("bad ep square")?) };
        let halfmove = fields[4].parse().map_err(|_| "bad halfmove")?;
        let fullmove = fields[5].parse().map_err(|_| "bad fullmove")?;
        let mut pos = Pos {
            var,
            board,
            side,
            castle,
            ep,
            halfmove,
            fullmove,
            gold: [0, 0],
            placed: [false, false],
            ended: false,
        };
        for extra in &fields[6..] {
            let (key, value) = extra.split_once('=').ok_or_else(|| format!("bad field {extra}"))?;
            match key {
                "gold" => {
                    let (w, b) = value.split_once('/').ok_or("bad gold")?;
                    pos.gold = [parse_gold(w).ok_or("bad gold")?, parse_gold(b).ok_or("bad gold")?];
                }
                "placed" => {
                    pos.placed = [value.contains('w'), value.contains('b')];
                }
                "ended" if value == "conversion" => pos.ended = true,
                _ => return Err(format!("unknown field {extra}")),
            }
        }
        Ok(pos)
    }

    /// The position text: FEN's six fields, then the variant's own fields.
    pub fn fen(&self) -> String {
        let mut board = String::new();
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match self.board[rank * 8 + file] {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            board.push_str(&empty.to_string());
                            empty = 0;
                        }
                        let c = p.kind.letter();
                        board.push(if p.color == Color::White { c } else { c.to_ascii_lowercase() });
                    }
                }
            }
            if empty > 0 {
                board.push_str(&empty.to_string());
            }
            if rank > 0 {
                board.push('/');
            }
        }
        let side = if self.side == Color::White { "w" } else { "b" };
        let castle: String = "KQkq".chars().zip(self.castle).filter(|(_, on)| *on).map(|(c, _)| c).collect();
        let castle = if castle.is_empty() { "-".to_string() } else { castle };
        let ep = match self.ep {
            Some(sq) if self.ep_capture_legal() => square_name(sq),
            _ => "-".to_string(),
        };
        let mut text = format!("{board} {side} {castle} {ep} {} {}", self.halfmove, self.fullmove);
        if self.var.economy() {
            text.push_str(&format!(" gold={}/{}", gold_text(self.gold[0]), gold_text(self.gold[1])));
        }
        if self.var == Var::ConquerorGold {
            let placed = match self.placed {
                [false, false] => "-",
                [true, false] => "w",
                [false, true] => "b",
                [true, true] => "wb",
            };
            text.push_str(&format!(" placed={placed}"));
        }
        if self.ended {
            text.push_str(" ended=conversion");
        }
        text
    }

    /// What repetition compares: the position text without the two move counters.
    pub fn repetition_key(&self) -> String {
        let fen = self.fen();
        let fields: Vec<&str> = fen.split(' ').collect();
        let mut key: Vec<&str> = fields[..4].to_vec();
        key.extend_from_slice(&fields[6..]);
        key.join(" ")
    }

    /// The legal actions with their texts, sorted by text.
    pub fn legal_texts(&self) -> Vec<(String, Action)> {
        let mut list: Vec<(String, Action)> = self.legal().into_iter().map(|a| (a.text(), a)).collect();
        list.sort_by(|a, b| a.0.cmp(&b.0));
        list
    }
}
