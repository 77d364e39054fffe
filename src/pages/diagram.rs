//! Small server-rendered SVG board diagrams for the rules pages and variant cards.

use std::fmt::Write;

use chessgold_engine::pieces::PieceDef;

/// Side of one square in SVG units.
const SQ: u32 = 40;

/// A diagram: a board text (the first field of a position text; `*` is a loot box) and marks.
#[derive(Debug, Clone, Copy)]
pub struct Diagram<'a> {
    /// Board text, rank `ranks` first, like a FEN's first field.
    pub board: &'a str,
    /// Files.
    pub files: u32,
    /// Ranks.
    pub ranks: u32,
    /// Squares with a dot (`e3 e4`).
    pub dots: &'static str,
    /// Tinted rectangles (`a1:h3 a6:h8`).
    pub zones: &'static str,
    /// Arrows (`e2e4 g1f3`).
    pub arrows: &'static str,
    /// Draw every piece as its letter in a disc (fairy pieces), not as a chess glyph.
    pub letters: bool,
    /// Caption under the board.
    pub caption: &'static str,
}

impl<'a> Diagram<'a> {
    /// An 8x8 diagram with a caption and nothing else.
    pub const fn new(board: &'a str, caption: &'static str) -> Diagram<'a> {
        Diagram { board, files: 8, ranks: 8, dots: "", zones: "", arrows: "", letters: false, caption }
    }

    /// With dots on these squares.
    pub const fn dots(mut self, dots: &'static str) -> Diagram<'a> {
        self.dots = dots;
        self
    }

    /// With these tinted zones.
    pub const fn zones(mut self, zones: &'static str) -> Diagram<'a> {
        self.zones = zones;
        self
    }

    /// With these arrows.
    pub const fn arrows(mut self, arrows: &'static str) -> Diagram<'a> {
        self.arrows = arrows;
        self
    }

    /// On another board size.
    pub const fn size(mut self, files: u32, ranks: u32) -> Diagram<'a> {
        self.files = files;
        self.ranks = ranks;
        self
    }

    /// Pieces drawn as letters.
    pub const fn letters(mut self) -> Diagram<'a> {
        self.letters = true;
        self
    }
}

/// Why a diagram cannot be drawn.
#[derive(Debug, PartialEq, Eq)]
pub struct DiagramError(pub String);

fn square(name: &str, files: u32, ranks: u32) -> Result<(u32, u32), DiagramError> {
    let bytes = name.as_bytes();
    let bad = || DiagramError(format!("bad square '{name}'"));
    let (&f, rank) = bytes.split_first().ok_or_else(bad)?;
    if !f.is_ascii_lowercase() {
        return Err(bad());
    }
    let file = u32::from(f - b'a');
    let rank: u32 = std::str::from_utf8(rank).map_err(|_| bad())?.parse().map_err(|_| bad())?;
    if file >= files || rank == 0 || rank > ranks {
        return Err(bad());
    }
    Ok((file, rank - 1))
}

/// Top-left corner of a square in SVG units (White at the bottom).
fn xy(file: u32, rank: u32, ranks: u32) -> (u32, u32) {
    (file * SQ, (ranks - 1 - rank) * SQ)
}

/// Splits a board text into rows of cells (`None` = empty).
fn parse_board(board: &str, files: u32, ranks: u32) -> Result<Vec<Vec<Option<char>>>, DiagramError> {
    let rows: Vec<&str> = board.split('/').collect();
    if rows.len() != ranks as usize {
        return Err(DiagramError(format!("{} ranks in '{board}', expected {ranks}", rows.len())));
    }
    let mut out = Vec::new();
    for row in rows {
        let mut cells = Vec::new();
        let mut digits = String::new();
        for c in row.chars() {
            if c.is_ascii_digit() {
                digits.push(c);
                continue;
            }
            if !digits.is_empty() {
                let n: usize = digits.parse().map_err(|_| DiagramError(format!("bad count in '{row}'")))?;
                cells.extend(std::iter::repeat_n(None, n));
                digits.clear();
            }
            if !(c.is_ascii_alphabetic() || c == '*') {
                return Err(DiagramError(format!("bad piece '{c}' in '{row}'")));
            }
            cells.push(Some(c));
        }
        if !digits.is_empty() {
            let n: usize = digits.parse().map_err(|_| DiagramError(format!("bad count in '{row}'")))?;
            cells.extend(std::iter::repeat_n(None, n));
        }
        if cells.len() != files as usize {
            return Err(DiagramError(format!("rank '{row}' has {} squares, expected {files}", cells.len())));
        }
        out.push(cells);
    }
    Ok(out)
}

fn glyph(c: char) -> Option<&'static str> {
    // The solid chess glyphs for both colours (filled white or black by CSS), each followed by
    // U+FE0E so that no platform draws the pawn as an emoji.
    Some(match c.to_ascii_uppercase() {
        'K' => "\u{265A}\u{FE0E}",
        'Q' => "\u{265B}\u{FE0E}",
        'R' => "\u{265C}\u{FE0E}",
        'B' => "\u{265D}\u{FE0E}",
        'N' => "\u{265E}\u{FE0E}",
        'P' => "\u{265F}\u{FE0E}",
        _ => return None,
    })
}

/// Draws a diagram as inline SVG with glyphs and letter discs.
///
/// # Errors
/// A malformed board text, square or arrow.
pub fn try_svg(d: &Diagram) -> Result<String, DiagramError> {
    try_svg_with(d, None)
}

/// The image of a piece letter in a variant's piece table: the board UI's piece set.
fn piece_image(c: char, pieces: Option<&[PieceDef]>) -> Option<String> {
    let def = pieces?.iter().find(|p| p.letter == c.to_ascii_uppercase())?;
    let color = if c.is_ascii_uppercase() { "white" } else { "black" };
    // The sprite of all piece images (one request for every diagram of a page).
    Some(format!("{}#{}-{color}", crate::assets::url("pieces.svg"), def.kind.slug()))
}

/// Draws a diagram as inline SVG; pieces of `pieces` (a variant's table) are drawn with the
/// site's piece images, others with glyphs and letter discs.
///
/// # Errors
/// A malformed board text, square or arrow.
pub fn try_svg_with(d: &Diagram, pieces: Option<&[PieceDef]>) -> Result<String, DiagramError> {
    let rows = parse_board(d.board, d.files, d.ranks)?;
    let margin = 14;
    let (w, h) = (d.files * SQ, d.ranks * SQ);
    let mut s = String::new();
    let label = if d.caption.is_empty() { "Board diagram".to_string() } else { escape(d.caption) };
    let _ = write!(
        s,
        r#"<svg class="diagram" viewBox="-{margin} 0 {} {}" role="img" aria-label="{label}" xmlns="http://www.w3.org/2000/svg">"#,
        w + margin,
        h + margin
    );
    for rank in 0..d.ranks {
        for file in 0..d.files {
            let (x, y) = xy(file, rank, d.ranks);
            let class = if (file + rank) % 2 == 0 { "sq-d" } else { "sq-l" };
            let _ = write!(s, r#"<rect class="{class}" x="{x}" y="{y}" width="{SQ}" height="{SQ}"/>"#);
        }
    }
    for zone in d.zones.split_whitespace() {
        let (a, b) = zone.split_once(':').ok_or_else(|| DiagramError(format!("bad zone '{zone}'")))?;
        let (f1, r1) = square(a, d.files, d.ranks)?;
        let (f2, r2) = square(b, d.files, d.ranks)?;
        let (x, y) = xy(f1.min(f2), r1.max(r2), d.ranks);
        let zw = (f1.abs_diff(f2) + 1) * SQ;
        let zh = (r1.abs_diff(r2) + 1) * SQ;
        let _ = write!(s, r#"<rect class="zone" x="{x}" y="{y}" width="{zw}" height="{zh}"/>"#);
    }
    for (i, row) in rows.iter().enumerate() {
        let rank = d.ranks - 1 - i as u32;
        for (file, cell) in row.iter().enumerate() {
            let Some(c) = cell else { continue };
            let (x, y) = xy(file as u32, rank, d.ranks);
            let (cx, cy) = (x + SQ / 2, y + SQ / 2);
            if *c == '*' {
                let _ = write!(
                    s,
                    r#"<g class="box"><rect x="{}" y="{}" width="26" height="22" rx="3"/><path d="M{} {}h26M{} {}v22"/></g>"#,
                    cx - 13,
                    cy - 10,
                    cx - 13,
                    cy - 2,
                    cx,
                    cy - 10
                );
                continue;
            }
            let side = if c.is_ascii_uppercase() { "pw" } else { "pb" };
            if let Some(href) = piece_image(*c, pieces) {
                let _ = write!(s, r#"<image href="{href}" x="{}" y="{}" width="36" height="36"/>"#, x + 2, y + 2);
                continue;
            }
            match glyph(*c).filter(|_| !d.letters) {
                Some(g) => {
                    let _ = write!(s, r#"<text class="pc {side}" x="{cx}" y="{}">{g}</text>"#, cy + 13);
                }
                None => {
                    let _ = write!(
                        s,
                        r#"<g class="pl {side}"><circle cx="{cx}" cy="{cy}" r="15"/><text x="{cx}" y="{}">{}</text></g>"#,
                        cy + 6,
                        c.to_ascii_uppercase()
                    );
                }
            }
        }
    }
    for dot in d.dots.split_whitespace() {
        let (f, r) = square(dot, d.files, d.ranks)?;
        let (x, y) = xy(f, r, d.ranks);
        let _ = write!(s, r#"<circle class="dot" cx="{}" cy="{}" r="6"/>"#, x + SQ / 2, y + SQ / 2);
    }
    for arrow in d.arrows.split_whitespace() {
        let split = arrow.char_indices().skip(1).find(|(_, c)| c.is_ascii_lowercase()).map(|(i, _)| i);
        let (a, b) = split.map(|i| arrow.split_at(i)).ok_or_else(|| DiagramError(format!("bad arrow '{arrow}'")))?;
        let (f1, r1) = square(a, d.files, d.ranks)?;
        let (f2, r2) = square(b, d.files, d.ranks)?;
        let (x1, y1) = xy(f1, r1, d.ranks);
        let (x2, y2) = xy(f2, r2, d.ranks);
        let (x1, y1, x2, y2) =
            (f64::from(x1 + SQ / 2), f64::from(y1 + SQ / 2), f64::from(x2 + SQ / 2), f64::from(y2 + SQ / 2));
        let len = ((x2 - x1).powi(2) + (y2 - y1).powi(2)).sqrt().max(1.0);
        let (ux, uy) = ((x2 - x1) / len, (y2 - y1) / len);
        // Stop the shaft short of the centre so the head ends on the square.
        let (ex, ey) = (x2 - ux * 10.0, y2 - uy * 10.0);
        let (px, py) = (-uy, ux);
        let _ = write!(
            s,
            r#"<g class="arrow"><line x1="{x1:.1}" y1="{y1:.1}" x2="{ex:.1}" y2="{ey:.1}"/><path d="M{:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}Z"/></g>"#,
            x2 - ux * 2.0,
            y2 - uy * 2.0,
            ex - ux * 4.0 + px * 8.0,
            ey - uy * 4.0 + py * 8.0,
            ex - ux * 4.0 - px * 8.0,
            ey - uy * 4.0 - py * 8.0
        );
    }
    for file in 0..d.files {
        let _ = write!(
            s,
            r#"<text class="coord" x="{}" y="{}">{}</text>"#,
            file * SQ + SQ / 2,
            h + 11,
            char::from(b'a' + file as u8)
        );
    }
    for rank in 0..d.ranks {
        let (_, y) = xy(0, rank, d.ranks);
        let _ = write!(s, r#"<text class="coord" x="-7" y="{}">{}</text>"#, y + SQ / 2 + 4, rank + 1);
    }
    s.push_str("</svg>");
    Ok(s)
}

/// Draws a diagram, or a visible note when it is malformed (caught by the tests).
pub fn svg(d: &Diagram) -> String {
    svg_with(d, None)
}

/// [`try_svg_with`], or a visible note when the diagram is malformed (caught by the tests).
pub fn svg_with(d: &Diagram, pieces: Option<&[PieceDef]>) -> String {
    try_svg_with(d, pieces)
        .unwrap_or_else(|e| format!(r#"<p class="diagram-error">invalid diagram: {}</p>"#, escape(&e.0)))
}

/// A small picture of a position text's board, for the variant cards, in the variant's pieces.
pub fn preview(fen: &str, files: u32, ranks: u32, pieces: &[PieceDef]) -> String {
    let board = fen.split_whitespace().next().unwrap_or("");
    let letters = board.chars().any(|c| c.is_ascii_alphabetic() && glyph(c).is_none());
    let d = Diagram::new(board, "").size(files, ranks);
    svg_with(&if letters { d.letters() } else { d }, Some(pieces))
}

/// Escapes text for HTML and SVG.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_position_draws_32_pieces() {
        let d = Diagram::new("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "start");
        let s = try_svg(&d).unwrap();
        assert_eq!(s.matches(r#"class="pc "#).count(), 32);
        assert_eq!(s.matches(r#"class="sq-"#).count(), 64);
    }

    #[test]
    fn nine_by_nine_and_eight_by_four_boards_draw() {
        let e = Diagram::new("wcbskgmnr/ppppppppp/9/9/9/9/9/PPPPPPPPP/RNMGKSBCW", "").size(9, 9).letters();
        assert_eq!(try_svg(&e).unwrap().matches(r#"class="pl "#).count(), 36);
        let c = Diagram::new("pppppppp/8/8/RNBQKBNR", "").size(8, 4);
        assert!(try_svg(&c).is_ok());
    }

    #[test]
    fn malformed_diagrams_are_reported() {
        assert!(try_svg(&Diagram::new("8/8", "")).is_err());
        assert!(try_svg(&Diagram::new("9/8/8/8/8/8/8/8", "")).is_err());
        assert!(try_svg(&Diagram::new("8/8/8/8/8/8/8/8", "").dots("i9")).is_err());
        assert!(try_svg(&Diagram::new("8/8/8/8/8/8/8/8", "").arrows("e2")).is_err());
        assert!(svg(&Diagram::new("x", "")).contains("invalid diagram"));
    }

    #[test]
    fn a_piece_table_draws_the_site_piece_images() {
        let info = chessgold_engine::registry::variant("standard").unwrap();
        let s = try_svg_with(&Diagram::new("4k3/8/8/8/8/8/8/4K3", ""), Some(info.pieces)).unwrap();
        assert!(s.contains(r#"href="/static/pieces.svg#king-white""#), "{s}");
        assert!(s.contains(r#"href="/static/pieces.svg#king-black""#), "{s}");
        assert!(!s.contains(r#"class="pc "#));
    }

    #[test]
    fn marks_draw() {
        let d = Diagram::new("4k3/8/8/8/8/8/8/4K3", "").dots("e2 d2").zones("a1:h3").arrows("e1e2");
        let s = try_svg(&d).unwrap();
        assert_eq!(s.matches(r#"class="dot""#).count(), 2);
        assert!(s.contains(r#"class="zone" x="0" y="200" width="320" height="120""#));
        assert!(s.contains(r#"class="arrow""#));
    }
}
