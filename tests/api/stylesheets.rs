//! Every stylesheet the site serves parses with balanced blocks. CSS forgives an unclosed block
//! (it ends at the end of the file), so a missing `}` silently moves every rule after it into
//! the block: a `@media (max-width: 720px)` left open once made all later rules phone-only.

use cssparser::{Parser, Token};

/// A problem found in a stylesheet: `line:column: what`.
type Problem = String;

/// The problems of one stylesheet's text: blocks never closed, closing brackets without an
/// opening one, bad strings and URLs, and a rule prelude left without its block at the end.
fn problems(css: &str) -> Vec<Problem> {
    let mut parser = Parser::new(css);
    let mut found = Vec::new();
    walk(&mut parser, css.len(), true, &mut found);
    found
}

/// Reads the tokens of one block level (`top`: the stylesheet itself), descending into nested
/// blocks.
fn walk(parser: &mut Parser<'_>, len: usize, top: bool, found: &mut Vec<Problem>) {
    // Where the current statement began, while it is not yet ended by `;` or a block.
    let mut open_prelude: Option<(u32, u32)> = None;
    loop {
        let at = parser.current_source_location();
        let place = (at.line + 1, at.column);
        let token = match parser.next_including_whitespace_and_comments() {
            Ok(token) => token.clone(),
            Err(_) => break,
        };
        let closer = match token {
            Token::CurlyBracketBlock => Some('}'),
            Token::ParenthesisBlock | Token::Function(_) => Some(')'),
            Token::SquareBracketBlock => Some(']'),
            _ => None,
        };
        if token.is_parse_error() {
            found.push(format!("{}:{}: {token:?} has no opening bracket or is malformed", place.0, place.1));
        }
        match token {
            Token::WhiteSpace(_) | Token::Comment(_) => {}
            _ if token.is_parse_error() => {}
            Token::Semicolon | Token::CurlyBracketBlock => open_prelude = None,
            _ => open_prelude = open_prelude.or(Some(place)),
        }
        if let Some(closer) = closer {
            let nested: Result<(), cssparser::ParseError<()>> = parser.parse_nested_block(|inner| {
                walk(inner, len, false, found);
                // A nested parser stops before its closing bracket; at the end of the text
                // there was none.
                if inner.position().byte_index() == len {
                    found.push(format!("{}:{}: this block is never closed (no '{closer}')", place.0, place.1));
                }
                Ok(())
            });
            if let Err(e) = nested {
                found.push(format!("{}:{}: {e:?}", place.0, place.1));
            }
        }
    }
    // In a block the last declaration needs no `;`; at the top, a rule without its block is cut off.
    if let (true, Some((line, column))) = (top, open_prelude) {
        found.push(format!("{line}:{column}: a rule is cut off at the end of the file"));
    }
}

#[test]
fn the_checker_finds_unclosed_and_stray_blocks() {
    assert_eq!(problems("a { color: red }\n@media (max-width: 9px) { b { color: blue } }\n"), Vec::<Problem>::new());
    assert_eq!(problems(".x { color: red; }\n.y { margin: 0 }"), Vec::<Problem>::new());
    // The defect of issue 12: the media block swallows the rules after it.
    let unclosed = problems("@media (max-width: 720px) {\n  .a { color: red; }\n.b { color: blue; }\n");
    assert_eq!(unclosed, ["1:27: this block is never closed (no '}')"]);
    assert_eq!(problems("a { color: red } }\n"), ["1:18: CloseCurlyBracket has no opening bracket or is malformed"]);
    // In an unclosed parenthesis the `}` is an unmatched token, and both blocks run to the end.
    assert_eq!(
        problems("a { width: calc(1px + 2px; }\n"),
        [
            "1:28: CloseCurlyBracket has no opening bracket or is malformed",
            "1:12: this block is never closed (no ')')",
            "1:3: this block is never closed (no '}')"
        ]
    );
    assert_eq!(problems("a { color: red }\nb\n"), ["2:1: a rule is cut off at the end of the file"]);
}

#[test]
fn every_stylesheet_parses_with_balanced_blocks() {
    let dir = crate::helpers::root().join("static/css");
    let mut sheets: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "css"))
        .collect();
    sheets.sort();
    assert!(sheets.len() >= 3, "the site's stylesheets are in {}: {sheets:?}", dir.display());
    let mut report = Vec::new();
    for sheet in &sheets {
        let css = std::fs::read_to_string(sheet).unwrap_or_else(|e| panic!("{}: {e}", sheet.display()));
        let name = sheet.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        report.extend(problems(&css).into_iter().map(|p| format!("static/css/{name}:{p}")));
    }
    assert!(report.is_empty(), "stylesheets with problems:\n{}", report.join("\n"));
}
