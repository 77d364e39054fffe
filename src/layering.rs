//! The direction of the service's dependencies, checked: the HTTP adapters (pages, the API, the
//! sockets, sessions and forms, start-up) depend on the domain (games, the lobby, the database,
//! the broker, notices, ratings, moderation), never the reverse. The test reads every source file under
//! `src/`, resolves each `crate::`, `super::` and `self::` path of its code (comments are
//! skipped) and fails, naming the file, the line and the module, when a domain file reaches an
//! adapter or the web framework. See `docs/architecture.md`, "Dependencies".

use std::path::{Path, PathBuf};

/// Top-level modules that are adapters (or the binary around them).
const ADAPTER_ROOTS: &[&str] = &[
    "api",
    "pages",
    "auth",
    "startup",
    "routes",
    "middleware",
    "compress",
    "assets",
    "error",
    "session_store",
    "metrics",
    "telemetry",
    "cli",
    "operator",
    "load",
    "main",
];

/// Adapter modules inside domain modules: a module's HTTP handlers, its socket, the download of
/// a game and the caller's identity read from a request.
const ADAPTER_MODULES: &[&str] =
    &["game::http", "game::socket", "game::export", "game::identity", "lobby::http", "lobby::socket", "bots::http"];

/// Crates a domain module must not use: the web framework and its session and socket parts.
const WEB_CRATES: &[&str] = &["actix_web", "actix_ws", "actix_session", "askama"];

/// The module path of a source file: `src/game/round/mod.rs` is `game::round`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap_or(file).with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

fn is_adapter(module: &[String]) -> bool {
    let path = module.join("::");
    module.first().is_some_and(|root| ADAPTER_ROOTS.contains(&root.as_str()))
        || ADAPTER_MODULES.iter().any(|m| path == *m || path.starts_with(&format!("{m}::")))
}

/// The identifiers of a path starting at `at` in `line`: `crate::game::http::x` gives
/// `["crate", "game", "http", "x"]`.
fn path_at(line: &str, at: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = &line[at..];
    loop {
        let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
        if end == 0 {
            break;
        }
        out.push(rest[..end].to_string());
        rest = &rest[end..];
        match rest.strip_prefix("::") {
            Some(r) => rest = r,
            None => break,
        }
    }
    out
}

/// The absolute module paths a line of `module`'s code names.
fn named_modules(module: &[String], line: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for (at, _) in line.match_indices("::") {
        // The start of the identifier before this `::`.
        let start = line[..at].rfind(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
        if line[..start].ends_with("::") {
            continue; // not the first segment of its path
        }
        let path = path_at(line, start);
        let Some(first) = path.first() else { continue };
        let resolved = match first.as_str() {
            "crate" => path[1..].to_vec(),
            "self" => module.iter().cloned().chain(path[1..].iter().cloned()).collect(),
            "super" => {
                let mut base = module.to_vec();
                let mut rest = &path[..];
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop();
                    rest = &rest[1..];
                }
                base.into_iter().chain(rest.iter().cloned()).collect()
            }
            krate if WEB_CRATES.contains(&krate) => vec![format!("extern {krate}")],
            _ => continue,
        };
        found.push(resolved);
    }
    // `use actix_web;`-style mentions without a `::` are not used in this code base.
    found
}

/// The paths of a `use` tree, one per leaf: `crate::{api::x, game::{a, b}}` gives
/// `crate::api::x`, `crate::game::a` and `crate::game::b`.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        return vec![tree.split(" as ").next().unwrap_or(tree).trim().to_string()];
    };
    let head = &tree[..open];
    let inner = tree[open + 1..].strip_suffix('}').unwrap_or(&tree[open + 1..]);
    let (mut depth, mut from, mut out) = (0, 0, Vec::new());
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.extend(expand(&inner[from..i]).into_iter().map(|leaf| format!("{head}{leaf}")));
                from = i + 1;
            }
            _ => {}
        }
    }
    out.extend(expand(&inner[from..]).into_iter().map(|leaf| format!("{head}{leaf}")));
    out.retain(|p| !p.ends_with("::"));
    out
}

/// The code of a file as (line number, paths): each `use` statement, possibly over several lines,
/// expanded to its leaves at the line it starts on; every other line as it is.
fn statements(code: &[&str]) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    let mut n = 0;
    while n < code.len() {
        let line = code[n].trim_start();
        let line = line.strip_prefix("pub ").or_else(|| line.strip_prefix("pub(crate) ")).unwrap_or(line);
        if let Some(rest) = line.strip_prefix("use ") {
            let (start, mut text) = (n, rest.to_string());
            while !text.contains(';') && n + 1 < code.len() {
                n += 1;
                text.push_str(code[n]);
            }
            let tree = text.split(';').next().unwrap_or("");
            out.push((start, expand(tree)));
        } else {
            out.push((n, vec![code[n].to_string()]));
        }
        n += 1;
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("src/ is readable").flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every place where a domain file reaches an adapter: `file:line: module`.
fn violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut found = Vec::new();
    for file in files {
        let module = module_of(src, &file);
        if is_adapter(&module) || module.is_empty() || module == ["layering"] {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("a source file is readable");
        let code: Vec<&str> = text.lines().map(|line| line.split("//").next().unwrap_or("")).collect();
        for (n, paths) in statements(&code) {
            for target in paths.iter().flat_map(|p| named_modules(&module, p)) {
                let web = target.first().is_some_and(|t| t.starts_with("extern "));
                if web || is_adapter(&target) {
                    found.push(format!("{}:{}: {}", file.display(), n + 1, target.join("::")));
                }
            }
        }
    }
    found
}

#[test]
fn domain_modules_never_import_http_adapters() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = violations(&src);
    assert!(found.is_empty(), "domain modules reaching adapters:\n{}", found.join("\n"));
}

#[test]
fn the_check_resolves_paths_and_sees_a_domain_file_reaching_an_adapter() {
    let game = ["game".to_string(), "round".to_string()];
    // `super::` from src/game/round/mod.rs is `game`; from src/game/round/chat.rs it is `game::round`.
    assert_eq!(named_modules(&game, "use super::http::page;"), vec![vec!["game", "http", "page"]]);
    assert_eq!(
        named_modules(&["game".into(), "round".into(), "chat".into()], "use super::Round;"),
        vec![vec!["game", "round", "Round"]]
    );
    assert!(is_adapter(&["game".into(), "http".into(), "page".into()]));
    assert!(is_adapter(&["api".into(), "lichess".into()]));
    assert!(!is_adapter(&["game".into(), "model".into()]));
    assert!(!is_adapter(&["game".into(), "httpx".into()]));

    let dir = std::env::temp_dir().join(format!("chessgold-layering-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("lobby")).expect("a scratch directory");
    std::fs::write(dir.join("lobby/mod.rs"), "// crate::api::x in a comment is fine\nfn f() {}\n").expect("write");
    std::fs::write(
        dir.join("lobby/pools.rs"),
        "use crate::api::lichess::ms;\nuse actix_web::web;\nuse crate::{\n    game::model,\n    pages::{render, PageCtx},\n};\n",
    )
    .expect("write");
    std::fs::write(dir.join("lobby/http.rs"), "use crate::pages::render;\n").expect("write");
    let found = violations(&dir);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(found.len(), 4, "{found:?}");
    assert!(found[0].ends_with("lobby/pools.rs:1: api::lichess::ms"), "{found:?}");
    assert!(found[1].ends_with("lobby/pools.rs:2: extern actix_web"), "{found:?}");
    assert!(found[2].ends_with("lobby/pools.rs:3: pages::render"), "{found:?}");
    assert!(found[3].ends_with("lobby/pools.rs:3: pages::PageCtx"), "{found:?}");
}
