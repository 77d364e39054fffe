//! The rules of every variant of the rule books, in the site's own words, keyed by variant id.
//!
//! Text uses a tiny markup: `**bold**`, `` `code` `` and `(decided)` or `(decided: why)`, which
//! mark a point the rule book settled and are shown as a badge. Only registered variants are served; the others wait
//! here until the engine registers them.

use super::diagram::{self, Diagram, escape};

#[path = "rules_text.rs"]
mod text;

/// A block of a section.
#[derive(Debug)]
pub enum Block {
    /// A paragraph.
    P(&'static str),
    /// A bulleted list.
    List(&'static [&'static str]),
    /// A table: the first row is the header.
    Table(&'static [&'static [&'static str]]),
    /// A board diagram.
    Board(Diagram<'static>),
}

/// A titled part of the rules.
#[derive(Debug)]
pub struct Section {
    /// Heading.
    pub heading: &'static str,
    /// Content.
    pub blocks: &'static [Block],
}

/// The rules of one variant.
#[derive(Debug)]
pub struct RuleBook {
    /// Variant id.
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// One line for cards.
    pub tagline: &'static str,
    /// The rules are provisional.
    pub provisional: bool,
    /// First paragraph.
    pub intro: &'static str,
    /// The rules.
    pub sections: &'static [Section],
}

/// Every rule book entry, in the site's order.
pub static BOOKS: &[RuleBook] = text::BOOKS;

/// The rules of a variant id.
pub fn book(id: &str) -> Option<&'static RuleBook> {
    BOOKS.iter().find(|b| b.id == id)
}

/// A section ready for the template.
#[derive(Debug)]
pub struct RenderedSection {
    /// Heading text.
    pub heading: &'static str,
    /// Fragment id.
    pub anchor: String,
    /// Content as HTML.
    pub html: String,
}

/// A rule book ready for the template.
#[derive(Debug)]
pub struct RenderedBook {
    /// Display name.
    pub name: &'static str,
    /// One line.
    pub tagline: &'static str,
    /// Provisional rules.
    pub provisional: bool,
    /// First paragraph as HTML.
    pub intro: String,
    /// Sections.
    pub sections: Vec<RenderedSection>,
}

const DECIDED_BADGE: &str = r#"<span class="decided" title="A point the rule book settled">decided</span>"#;

/// Turns the markup of one line into HTML (the text is escaped first).
pub fn inline(text: &str) -> String {
    let escaped = escape(text);
    let mut out = String::with_capacity(escaped.len() + 32);
    let mut bold = false;
    let mut code = false;
    let mut rest = escaped.as_str();
    while let Some(c) = rest.chars().next() {
        if !code && rest.starts_with("**") {
            out.push_str(if bold { "</strong>" } else { "<strong>" });
            bold = !bold;
            rest = &rest[2..];
        } else if c == '`' {
            out.push_str(if code { "</code>" } else { "<code>" });
            code = !code;
            rest = &rest[1..];
        } else if !code && rest.starts_with("(decided)") {
            out.push_str(DECIDED_BADGE);
            rest = &rest["(decided)".len()..];
        } else if !code && rest.starts_with("(decided: ") {
            // "(decided: why)" becomes the badge followed by "(why)".
            out.push_str(DECIDED_BADGE);
            out.push_str(" (");
            rest = &rest["(decided: ".len()..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    if code {
        out.push_str("</code>");
    }
    if bold {
        out.push_str("</strong>");
    }
    out
}

fn anchor(heading: &str) -> String {
    let mut a = String::new();
    for c in heading.chars() {
        if c.is_ascii_alphanumeric() {
            a.push(c.to_ascii_lowercase());
        } else if !a.ends_with('-') {
            a.push('-');
        }
    }
    a.trim_matches('-').to_string()
}

impl RuleBook {
    /// The book as HTML fragments; diagrams use the site's images of `pieces` (the variant's table).
    pub fn render(&self, pieces: Option<&[chessgold_engine::pieces::PieceDef]>) -> RenderedBook {
        let sections = self
            .sections
            .iter()
            .map(|s| {
                let mut html = String::new();
                for block in s.blocks {
                    match block {
                        Block::P(t) => {
                            html.push_str("<p>");
                            html.push_str(&inline(t));
                            html.push_str("</p>");
                        }
                        Block::List(items) => {
                            html.push_str("<ul>");
                            for item in *items {
                                html.push_str("<li>");
                                html.push_str(&inline(item));
                                html.push_str("</li>");
                            }
                            html.push_str("</ul>");
                        }
                        Block::Table(rows) => {
                            html.push_str(r#"<div class="table-wrap"><table>"#);
                            for (i, row) in rows.iter().enumerate() {
                                html.push_str("<tr>");
                                let cell = if i == 0 { "th" } else { "td" };
                                for c in *row {
                                    html.push_str(&format!("<{cell}>{}</{cell}>", inline(c)));
                                }
                                html.push_str("</tr>");
                            }
                            html.push_str("</table></div>");
                        }
                        Block::Board(d) => {
                            html.push_str(r#"<figure class="diagram-fig">"#);
                            html.push_str(&diagram::svg_with(d, pieces));
                            if !d.caption.is_empty() {
                                html.push_str("<figcaption>");
                                html.push_str(&inline(d.caption));
                                html.push_str("</figcaption>");
                            }
                            html.push_str("</figure>");
                        }
                    }
                }
                RenderedSection { heading: s.heading, anchor: anchor(s.heading), html }
            })
            .collect();
        RenderedBook {
            name: self.name,
            tagline: self.tagline,
            provisional: self.provisional,
            intro: inline(self.intro),
            sections,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registered_variant_has_rules() {
        for v in chessgold_engine::registry::variants() {
            let b =
                book(v.id).unwrap_or_else(|| panic!("variant {} has no rules page (src/pages/rules_text.rs)", v.id));
            assert!(!b.sections.is_empty(), "{}", v.id);
        }
        for b in BOOKS {
            assert!(chessgold_engine::registry::variant(b.id).is_some(), "rules of {}, which is not registered", b.id);
        }
        assert_eq!(BOOKS.len(), chessgold_engine::registry::variants().len());
    }

    #[test]
    fn every_rules_page_says_what_running_out_of_time_does() {
        // The flag rule is the engine's `can_win`, stated per variant; each page says it.
        for b in BOOKS {
            let r = b.render(chessgold_engine::registry::variant(b.id).map(|v| v.pieces));
            let html: String = r.sections.iter().map(|s| s.html.as_str()).collect();
            assert_eq!(html.matches("<strong>Out of time</strong>").count(), 1, "{}: the out-of-time rule", b.id);
        }
    }

    #[test]
    fn every_diagram_draws() {
        for b in BOOKS {
            for s in b.sections {
                for block in s.blocks {
                    if let Block::Board(d) = block {
                        assert!(diagram::try_svg(d).is_ok(), "{}: {:?}", b.id, diagram::try_svg(d));
                    }
                }
            }
            let r = b.render(chessgold_engine::registry::variant(b.id).map(|v| v.pieces));
            assert!(r.sections.iter().all(|s| !s.html.contains("invalid diagram")), "{}", b.id);
        }
    }

    #[test]
    fn markup_is_escaped_then_formatted() {
        assert_eq!(inline("a **b** `c<d` (decided)").matches("<strong>b</strong>").count(), 1);
        assert!(inline("`c<d`").contains("<code>c&lt;d</code>"));
        assert!(inline("(decided)").contains(r#"class="decided""#));
        let why = inline("x (decided: the reason).");
        assert!(why.contains(r#"decided</span> (the reason)."#), "{why}");
        assert_eq!(inline("<script>"), "&lt;script&gt;");
    }

    #[test]
    fn anchors_are_slugs() {
        assert_eq!(anchor("End of the game"), "end-of-the-game");
        assert_eq!(anchor("Loot boxes: spawning"), "loot-boxes-spawning");
    }
}
