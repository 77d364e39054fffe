//! Position text and action text.

use super::{Action, Color, Kind, Piece, Pos, Var};

/// The variant's upper-case letter of a piece type.
pub fn letter(var: Var, kind: Kind) -> char {
    match (var, kind) {
        (_, Kind::Pawn) => 'P',
        (_, Kind::King) => 'K',
        (_, Kind::Knight) => 'N',
        (_, Kind::Bishop) => 'B',
        (_, Kind::Rook) => 'R',
        (_, Kind::Queen) => 'Q',
        (_, Kind::Grunt) => 'G',
        (_, Kind::Goldrook) => 'R',
        (_, Kind::Nitan) => 'N',
        (_, Kind::Goldmitre) => 'M',
        (_, Kind::Goldrider) => 'G',
        (_, Kind::Silverrider) => 'S',
        (_, Kind::Silverbishop) => 'B',
        (_, Kind::Caman) => 'C',
        (_, Kind::Silverwing) => 'W',
    }
}

/// The piece type a letter (either case) names in the variant.
pub fn kind_of(var: Var, c: char) -> Option<Kind> {
    let c = c.to_ascii_uppercase();
    let kinds: &[Kind] = match var {
        Var::Electrum => &[
            Kind::Pawn,
            Kind::King,
            Kind::Goldrook,
            Kind::Nitan,
            Kind::Goldmitre,
            Kind::Goldrider,
            Kind::Silverrider,
            Kind::Silverbishop,
            Kind::Caman,
            Kind::Silverwing,
        ],
        Var::Grunt => &[Kind::Pawn, Kind::King, Kind::Knight, Kind::Bishop, Kind::Rook, Kind::Queen, Kind::Grunt],
        Var::ClassWarfare => &[Kind::Pawn, Kind::King, Kind::Knight, Kind::Bishop, Kind::Rook, Kind::Queen],
    };
    kinds.iter().copied().find(|k| letter(var, *k) == c)
}

impl Pos {
    pub fn square_name(&self, sq: usize) -> String {
        let files = self.var.files() as usize;
        format!("{}{}", (b'a' + (sq % files) as u8) as char, sq / files + 1)
    }

    fn square_of(&self, name: &str) -> Option<usize> {
        let mut chars = name.chars();
        let file = chars.next()?;
        let rank: i32 = chars.as_str().parse().ok()?;
        let f = file as i32 - 'a' as i32;
        if f < 0 || f >= self.var.files() || rank < 1 || rank > self.var.ranks() {
            return None;
        }
        Some(((rank - 1) * self.var.files() + f) as usize)
    }

    pub fn from_fen(var: Var, fen: &str) -> Result<Pos, String> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let expected = if var == Var::Grunt { 7 } else { 6 };
        if fields.len() != expected {
            return Err(format!("{} fields, expected {expected}", fields.len()));
        }
        let files = var.files();
        let mut board = vec![None; var.squares()];
        let rows: Vec<&str> = fields[0].split('/').collect();
        if rows.len() != var.ranks() as usize {
            return Err(format!("{} rows", rows.len()));
        }
        for (i, row) in rows.iter().enumerate() {
            let rank = var.ranks() - 1 - i as i32;
            let mut file = 0;
            for c in row.chars() {
                if let Some(d) = c.to_digit(10) {
                    if d == 0 {
                        return Err("digit 0".into());
                    }
                    file += d as i32;
                } else {
                    let kind = kind_of(var, c).ok_or_else(|| format!("unknown piece {c}"))?;
                    if file >= files {
                        return Err(format!("row {row} too long"));
                    }
                    let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
                    board[(rank * files + file) as usize] = Some(Piece { color, kind });
                    file += 1;
                }
            }
            if file != files {
                return Err(format!("row {row} has {file} files"));
            }
        }
        let side = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            s => return Err(format!("side {s}")),
        };
        let mut castle = [false; 2];
        if fields[2] != "-" {
            for c in fields[2].chars() {
                match (var, c) {
                    (Var::Electrum, 'Q') => castle[0] = true,
                    (Var::Electrum, 'k') => castle[1] = true,
                    _ => return Err(format!("castling {c}")),
                }
            }
        }
        let mut pos = Pos { var, board, side, castle, ep: None, halfmove: 0, fullmove: 1, xp: [0, 0] };
        if fields[3] != "-" {
            pos.ep = Some(pos.square_of(fields[3]).ok_or("en passant square")?);
        }
        pos.halfmove = fields[4].parse().map_err(|_| "halfmove")?;
        pos.fullmove = fields[5].parse().map_err(|_| "fullmove")?;
        if var == Var::Grunt {
            let xp = fields[6].strip_prefix("xp=").ok_or("xp field")?;
            let (w, b) = xp.split_once('/').ok_or("xp field")?;
            pos.xp = [w.parse().map_err(|_| "xp")?, b.parse().map_err(|_| "xp")?];
        }
        // A castling right needs the king and the Goldrook on their squares.
        let white_ok = pos.piece_is(4, Color::White, Kind::King) && pos.piece_is(0, Color::White, Kind::Goldrook);
        if pos.castle[0] && !white_ok {
            return Err("castling right Q without king e1 and Goldrook a1".into());
        }
        let black_ok = pos.piece_is(76, Color::Black, Kind::King) && pos.piece_is(80, Color::Black, Kind::Goldrook);
        if pos.castle[1] && !black_ok {
            return Err("castling right k without king e9 and Goldrook i9".into());
        }
        Ok(pos)
    }

    fn piece_is(&self, sq: usize, color: Color, kind: Kind) -> bool {
        self.board.get(sq).copied().flatten() == Some(Piece { color, kind })
    }

    fn placement(&self) -> String {
        let files = self.var.files();
        let mut rows = Vec::new();
        for rank in (0..self.var.ranks()).rev() {
            let mut row = String::new();
            let mut empty = 0;
            for file in 0..files {
                match self.board[(rank * files + file) as usize] {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            row.push_str(&empty.to_string());
                            empty = 0;
                        }
                        let l = letter(self.var, p.kind);
                        row.push(if p.color == Color::White { l } else { l.to_ascii_lowercase() });
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

    /// Side, castling, en passant (only when a capture is legal) and the variant's state.
    fn state_fields(&self) -> (String, String, String) {
        let side = if self.side == Color::White { "w" } else { "b" }.to_string();
        let mut castle = String::new();
        if self.castle[0] {
            castle.push('Q');
        }
        if self.castle[1] {
            castle.push('k');
        }
        if castle.is_empty() {
            castle.push('-');
        }
        let ep = match self.ep {
            Some(sq) if self.en_passant_legal() => self.square_name(sq),
            _ => "-".to_string(),
        };
        (side, castle, ep)
    }

    pub fn fen(&self) -> String {
        let (side, castle, ep) = self.state_fields();
        let mut fen = format!("{} {side} {castle} {ep} {} {}", self.placement(), self.halfmove, self.fullmove);
        if self.var == Var::Grunt {
            fen.push_str(&format!(" xp={}/{}", self.xp[0], self.xp[1]));
        }
        fen
    }

    /// The position as repetition compares it: no clocks.
    pub fn repetition_key(&self) -> String {
        let (side, castle, ep) = self.state_fields();
        format!("{} {side} {castle} {ep} {:?}", self.placement(), self.xp)
    }

    pub fn action_text(&self, action: Action) -> String {
        match action {
            Action::Move { from, to, promo } => {
                let mut s = format!("{}{}", self.square_name(from), self.square_name(to));
                if let Some(k) = promo {
                    s.push(letter(self.var, k).to_ascii_lowercase());
                }
                s
            }
            Action::Promote { sq, kind } => format!("{}={}", self.square_name(sq), letter(self.var, kind)),
            Action::Muster { sq } => format!("G@{}", self.square_name(sq)),
        }
    }

    /// Legal actions with their texts, sorted by text.
    pub fn legal_texts(&self) -> Vec<(String, Action)> {
        let mut list: Vec<(String, Action)> = self.legal().into_iter().map(|a| (self.action_text(a), a)).collect();
        list.sort_by(|a, b| a.0.cmp(&b.0));
        list
    }
}
