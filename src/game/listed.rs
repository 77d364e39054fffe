//! Tests that the closed sets of names a game puts on the wire (refusal codes, end reasons) are
//! listed where people and clients read them: a row of a table in docs/api.md, and words in a
//! table of static/js/format.js. A name added to its enum and not to both lists fails here.
//! (`src/game/refusal.rs` is compiled by the fuzz crate too, so these checks live apart from it.)

use std::path::PathBuf;

use super::reason::Reason;
use super::refusal::RefusalCode;

fn read(path: &str) -> String {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The names of `names` that docs/api.md has no table row for (`| `name` | ...`).
fn missing_from_api_md<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let doc = read("docs/api.md");
    names.into_iter().filter(|n| !doc.lines().any(|l| l.starts_with(&format!("| `{n}` |")))).collect()
}

/// The names of `names` that the object `const {table} = {...};` of static/js/format.js gives no
/// words (a line `name: "..."` or `"name": "..."`).
fn missing_from_format_js<'a>(table: &str, names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let js = read("static/js/format.js");
    let body = js
        .split(&format!("const {table} = {{"))
        .nth(1)
        .and_then(|t| t.split("};").next())
        .unwrap_or_else(|| panic!("static/js/format.js has no `const {table} = {{ ... }};`"));
    let has_words = |n: &str| {
        body.lines()
            .map(str::trim_start)
            .any(|l| l.starts_with(&format!("{n}: \"")) || l.starts_with(&format!("\"{n}\": \"")))
    };
    names.into_iter().filter(|n| !has_words(n)).collect()
}

#[test]
fn a_name_absent_from_the_lists_is_reported() {
    assert_eq!(missing_from_api_md(["malformed", "no-such-name"]), ["no-such-name"]);
    assert_eq!(missing_from_format_js("REFUSALS", ["malformed", "no-such-name"]), ["no-such-name"]);
    assert_eq!(missing_from_format_js("REASONS", ["no-progress", "malformed"]), ["malformed"]);
}

#[test]
fn every_refusal_code_is_documented_in_api_md() {
    let missing = missing_from_api_md(RefusalCode::ALL.iter().map(|c| c.as_str()));
    assert!(
        missing.is_empty(),
        "docs/api.md's table of refusal codes has no row `| `code` | meaning |` for {missing:?}"
    );
}

#[test]
fn every_refusal_code_has_words_in_the_client() {
    let missing = missing_from_format_js("REFUSALS", RefusalCode::ALL.iter().map(|c| c.as_str()));
    assert!(missing.is_empty(), "static/js/format.js's REFUSALS has no words for {missing:?}");
}

#[test]
fn every_end_reason_is_documented_in_api_md() {
    let missing = missing_from_api_md(Reason::ALL.iter().map(|r| r.as_str()));
    assert!(missing.is_empty(), "docs/api.md's table of end reasons has no row `| `reason` | ... |` for {missing:?}");
}

#[test]
fn every_end_reason_has_words_in_the_client() {
    let missing = missing_from_format_js("REASONS", Reason::ALL.iter().map(|r| r.as_str()));
    assert!(missing.is_empty(), "static/js/format.js's REASONS has no words for {missing:?}");
}
