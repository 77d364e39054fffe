//! The rule texts. See `rules.rs` for the markup.

use super::{Block, RuleBook, Section};
use crate::pages::diagram::Diagram;

use Block::{Board, List, P, Table};

pub static BOOKS: &[RuleBook] = &[STANDARD];

const STANDARD: RuleBook = RuleBook {
    id: "standard",
    name: "Standard chess",
    tagline: "The classic game, by the FIDE rules.",
    provisional: false,
    intro: "Two armies of sixteen, one goal: checkmate the enemy king.",
    sections: &[Section {
        heading: "The board",
        blocks: &[
            P("Eight by eight."),
            List(&["a", "b"]),
            Table(&[&["a", "b"], &["1", "2"]]),
            Board(Diagram::new("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "The start position.")),
        ],
    }],
};
