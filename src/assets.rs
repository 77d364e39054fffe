//! Static files, read from `application.static_dir` once at start-up and served from memory.
//!
//! Each file gets a content-hashed name (`js/live.js` is also `js/live.3f9a2c1be04d.js`, twelve
//! hex digits of its SHA-256): the pages link the hashed names, which browsers may keep for a
//! year (`immutable`), since a changed file gets a new name. The plain names keep working with the
//! short `application.static_max_age_secs` cache, for links from outside and old pages.
//!
//! The ES modules import each other by relative paths (`./view.js`), which resolve to plain names.
//! Every page carries an import map ([`Assets::import_map`]) that maps each plain URL to its
//! hashed one, so the imports land on the hashed files too; scripts find other files the same way
//! (`import.meta.resolve("/static/css/live.css")`).
//!
//! A page's entry script ([`Assets::module`]) is loaded as one bundle of its whole module graph,
//! joined at start-up from the import statements: the game page's twenty modules would otherwise
//! cost four round trips even when all are requested at once, since a browser opens six
//! connections to a site over HTTP/1.1. The bundler handles the forms this code uses (named
//! imports of relative paths, `export` of functions, classes and constants); a graph using any
//! other form is loaded module by module instead, each module preloaded
//! (`<link rel="modulepreload">`), so the browser still fetches the whole graph at once.
//!
//! The piece images are also served as one sprite (`SPRITES`), so that a board costs one
//! request for all its pieces.
//!
//! Text files of [`MIN_SIZE`](crate::compress::MIN_SIZE) and more are compressed once here, with
//! brotli and gzip at their best settings, and served in the coding the request prefers.
//!
//! Pages reach the loaded files through [`PageCtx`](crate::pages::PageCtx), which takes them from
//! the request being served ([`scope`] keeps them beside each request).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::Next;
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, web};
use anyhow::Context;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use sha2::{Digest, Sha256};

use crate::compress::{self, Coding, Effort};
use crate::error::PageError;

/// Where the static files are served.
pub const PREFIX: &str = "/static/";

/// `Cache-Control` of a hashed name: a year, never revalidated.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// Hex digits of the content hash in a hashed name.
const HASH_LEN: usize = 12;

/// One static file and its compressed forms.
struct Asset {
    /// `js/live.js`.
    path: String,
    /// `js/live.3f9a2c1be04d.js`.
    hashed: String,
    /// `3f9a2c1be04d`.
    hash: String,
    /// The whole SHA-256 of the body (the key of its compressed forms).
    digest: [u8; 32],
    content_type: HeaderValue,
    body: Bytes,
    brotli: Option<Bytes>,
    gzip: Option<Bytes>,
    /// The paths of the modules a script imports statically, in source order.
    imports: Vec<String>,
}

/// A module rewritten for a bundle: its body, with its imports read from the bundle's registry
/// and its `export` keywords dropped, and the names it exports.
struct Wrapped {
    body: String,
    exports: Vec<String>,
}

/// Whether a name is a plain JavaScript identifier.
fn identifier(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// `import { a, b as c } from "./x.js";` (or `import "./x.js";`) of the module at `path` as a
/// line of its bundle: `const { a, b: c } = __cg["js/x.js"];`. `None` for other forms (default
/// and namespace imports, bare specifiers).
fn import_binding(path: &str, statement: &str) -> Option<String> {
    let s = statement.split_whitespace().collect::<Vec<_>>().join(" ");
    let s = s.strip_prefix("import")?.trim_start().strip_suffix(';')?.trim_end();
    let (names, spec) = if let Some(rest) = s.strip_prefix('{') {
        let (names, rest) = rest.split_once('}')?;
        (Some(names), rest.trim_start().strip_prefix("from")?.trim())
    } else {
        (None, s)
    };
    let quote = spec.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let spec = spec.strip_prefix(quote)?.strip_suffix(quote)?;
    let target = resolve(path, spec)?;
    let Some(names) = names else { return Some(String::new()) };
    let mut bindings = Vec::new();
    for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        match name.split_once(" as ") {
            Some((from, to)) if identifier(from.trim()) && identifier(to.trim()) => {
                bindings.push(format!("{}: {}", from.trim(), to.trim()));
            }
            None if identifier(name) => bindings.push(name.to_string()),
            _ => return None,
        }
    }
    Some(format!("const {{ {} }} = __cg[\"{target}\"];", bindings.join(", ")))
}

/// The name an `export` line declares (`function f(`, `async function f(`, `class C`,
/// `const X =`), or `None` for any other form.
fn exported_name(declaration: &str) -> Option<String> {
    let rest = ["async function ", "function ", "class ", "const "]
        .iter()
        .find_map(|k| declaration.strip_prefix(k).map(|r| (*k, r)))?;
    let (keyword, rest) = rest;
    let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$')).unwrap_or(rest.len());
    let (name, after) = rest.split_at(end);
    let after = after.trim_start();
    let fits = match keyword {
        "const " => after.starts_with('=') && !declaration.trim_end().ends_with(','),
        "class " => after.starts_with('{') || after.starts_with("extends "),
        _ => after.starts_with('('),
    };
    (identifier(name) && fits).then(|| name.to_string())
}

/// Rewrites a module for a bundle (see [`Assets::module`]), or `None` when it uses a form this
/// does not handle: then its pages load the modules one by one, preloaded.
fn wrap_module(path: &str, source: &str) -> Option<Wrapped> {
    if source.contains("import(") {
        return None;
    }
    let mut body = String::with_capacity(source.len());
    let mut exports = Vec::new();
    let mut lines = source.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("import ") || line.starts_with("import{") {
            let mut statement = line.to_string();
            while !statement.trim_end().ends_with(';') {
                statement.push('\n');
                statement.push_str(lines.next()?);
            }
            body.push_str(&import_binding(path, &statement)?);
        } else if let Some(declaration) = line.strip_prefix("export ") {
            exports.push(exported_name(declaration)?);
            body.push_str(declaration);
        } else {
            let t = line.trim_start();
            if t.starts_with("export ") || t.starts_with("export{") || t.starts_with("import ") {
                return None;
            }
            body.push_str(line);
        }
        body.push('\n');
    }
    Some(Wrapped { body, exports })
}

/// The modules of `entry`'s graph, each after those it imports; `None` when the graph has a cycle
/// or a missing module.
fn evaluation_order<'a>(files: &'a HashMap<String, Asset>, entry: &'a str) -> Option<Vec<&'a str>> {
    fn visit<'a>(
        files: &'a HashMap<String, Asset>,
        path: &'a str,
        open: &mut Vec<&'a str>,
        done: &mut Vec<&'a str>,
    ) -> Option<()> {
        if done.contains(&path) {
            return Some(());
        }
        if open.contains(&path) {
            return None;
        }
        open.push(path);
        for dep in &files.get(path)?.imports {
            visit(files, dep, open, done)?;
        }
        open.pop();
        done.push(path);
        Some(())
    }
    let mut done = Vec::new();
    visit(files, entry, &mut Vec::new(), &mut done)?;
    Some(done)
}

/// One script of an entry module and every module it imports, each in a function of its own run
/// in import order, their exports kept in a registry on `globalThis` that the importers read (and
/// that makes a module shared by two bundles of a page run once, as a module does).
fn bundle(files: &HashMap<String, Asset>, entry: &str) -> Option<String> {
    let order = evaluation_order(files, entry)?;
    let mut out = format!(
        "// {entry} and the {} modules it imports, joined at start-up (src/assets.rs).\n\
         const __cg = (globalThis.__chessgoldModules ??= {{}});\n",
        order.len() - 1
    );
    for path in order {
        let source = String::from_utf8(files.get(path)?.body.to_vec()).ok()?;
        let Wrapped { body, exports } = wrap_module(path, &source)?;
        out.push_str(&format!(
            "// ---- {path}\n__cg[\"{path}\"] ??= (() => {{\n{body}return {{ {} }};\n}})();\n",
            exports.join(", ")
        ));
    }
    Some(out)
}

impl Asset {
    /// A file, hashed, its imports read when a script; compressed later ([`compress_all`]).
    fn new(path: String, body: Vec<u8>) -> Asset {
        let digest: [u8; 32] = Sha256::digest(&body).into();
        let hash: String = digest.iter().take(HASH_LEN / 2).map(|b| format!("{b:02x}")).collect();
        let imports = if path.ends_with(".js") {
            import_specifiers(&String::from_utf8_lossy(&body)).iter().filter_map(|s| resolve(&path, s)).collect()
        } else {
            Vec::new()
        };
        Asset {
            hashed: hashed_name(&path, &hash),
            content_type: content_type(&path),
            path,
            hash,
            digest,
            body: Bytes::from(body),
            brotli: None,
            gzip: None,
            imports,
        }
    }

    /// Whether the file is compressed: text of [`compress::MIN_SIZE`] and more.
    fn packs(&self) -> bool {
        self.body.len() >= compress::MIN_SIZE && self.content_type.to_str().is_ok_and(compress::compressible)
    }
}

/// Compresses every file that [`Asset::packs`], on all cores (brotli's best setting is slow).
fn compress_all(files: &mut HashMap<String, Asset>) -> anyhow::Result<()> {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let mut todo: Vec<&mut Asset> = files.values_mut().filter(|a| a.packs()).collect();
    todo.sort_by_key(|a| std::cmp::Reverse(a.body.len()));
    let mut shares: Vec<Vec<&mut Asset>> = (0..threads).map(|_| Vec::new()).collect();
    for (i, asset) in todo.into_iter().enumerate() {
        shares[i % threads].push(asset);
    }
    std::thread::scope(|scope| {
        let workers: Vec<_> = shares
            .into_iter()
            .map(|share| {
                scope.spawn(move || -> anyhow::Result<()> {
                    for asset in share {
                        (asset.brotli, asset.gzip) = packed(&asset.digest, &asset.body)?;
                    }
                    Ok(())
                })
            })
            .collect();
        for worker in workers {
            worker.join().map_err(|_| anyhow::anyhow!("compressing the static files failed"))??;
        }
        Ok(())
    })
}

/// The static files of a running server (see the module's notes).
pub struct Assets {
    files: HashMap<String, Asset>,
    /// Entry module -> its bundle (`js/live.js` -> `js/live.bundle.js`).
    bundles: HashMap<String, String>,
    /// `<script type="importmap">` of every file.
    import_map: String,
    /// The import map's script hash for the Content-Security-Policy.
    import_map_hash: String,
    /// `Cache-Control` of the plain names.
    short_cache: HeaderValue,
}

impl std::fmt::Debug for Assets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Assets").field("files", &self.files.len()).finish_non_exhaustive()
    }
}

/// The hashed form of a relative path: the hash goes before the file's extension.
fn hashed_name(path: &str, hash: &str) -> String {
    let (dir, name) = path.rsplit_once('/').map_or(("", path), |(d, n)| (d, n));
    let name = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => format!("{stem}.{hash}.{ext}"),
        _ => format!("{name}.{hash}"),
    };
    if dir.is_empty() { name } else { format!("{dir}/{name}") }
}

/// The plain path and hash of a hashed name, when it has the shape of one.
fn split_hashed(path: &str) -> Option<(String, &str)> {
    let (dir, name) = path.rsplit_once('/').map_or(("", path), |(d, n)| (d, n));
    let (rest, ext) = match name.rsplit_once('.') {
        Some((rest, ext)) if rest.rsplit_once('.').is_some() => (rest, Some(ext)),
        _ => (name, None),
    };
    let (stem, hash) = rest.rsplit_once('.')?;
    if stem.is_empty() || hash.len() != HASH_LEN || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let plain = match ext {
        Some(ext) => format!("{stem}.{ext}"),
        None => stem.to_string(),
    };
    Some((if dir.is_empty() { plain } else { format!("{dir}/{plain}") }, hash))
}

/// The media type of a file, by its extension.
fn content_type(path: &str) -> HeaderValue {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e).to_ascii_lowercase();
    HeaderValue::from_static(match ext.as_str() {
        "html" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "txt" => "text/plain; charset=utf-8",
        "mp3" => "audio/mpeg",
        "ogg" => "audio/ogg",
        _ => "application/octet-stream",
    })
}

/// Resolves an import specifier of the module at `from` (a relative path) to a relative path:
/// `./x.js` and `../x.js` against the module's folder, `/static/x.js` from the root. Bare
/// specifiers and other URLs are not files of ours.
fn resolve(from: &str, specifier: &str) -> Option<String> {
    let mut parts: Vec<&str> = if let Some(abs) = specifier.strip_prefix(PREFIX) {
        return normalize(Vec::new(), abs);
    } else if specifier.starts_with("./") || specifier.starts_with("../") {
        from.split('/').collect()
    } else {
        return None;
    };
    parts.pop();
    normalize(parts, specifier)
}

fn normalize<'a>(mut parts: Vec<&'a str>, rel: &'a str) -> Option<String> {
    for seg in rel.split(['?', '#']).next().unwrap_or("").split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

/// The specifiers of a script's static imports and re-exports (`import x from "s"`,
/// `import "s"`, `export {x} from "s"`), comments skipped. Dynamic `import("s")` is left out:
/// such a module is loaded on demand, not up front.
fn import_specifiers(source: &str) -> Vec<String> {
    let code = strip_comments(source);
    let mut found: Vec<(usize, String)> = Vec::new();
    for keyword in ["from", "import"] {
        for (start, _) in code.match_indices(keyword) {
            if start > 0 && is_ident(code.as_bytes()[start - 1]) {
                continue;
            }
            let rest = code[start + keyword.len()..].trim_start();
            let Some(quote) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else { continue };
            if let Some(end) = rest[1..].find(quote) {
                found.push((start, rest[1..=end].to_string()));
            }
        }
    }
    found.sort_by_key(|(at, _)| *at);
    let mut out: Vec<String> = Vec::new();
    for (_, s) in found {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'.'
}

/// The source without `//` and `/* */` comments; strings are kept (a quote left open at the end
/// of a line, as a regular expression can make it look, ends there).
fn strip_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            out.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            } else if c == q || (c == '\n' && q != '`') {
                quote = None;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('/', Some('/')) => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for n in chars.by_ref() {
                    if last == '*' && n == '/' {
                        break;
                    }
                    last = n;
                }
                out.push(' ');
            }
            ('"' | '\'' | '`', _) => {
                quote = Some(c);
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Every file under `dir`, as relative paths with `/`.
fn walk(dir: &Path, rel: &str, out: &mut Vec<(String, PathBuf)>) -> anyhow::Result<()> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("reading the folder {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("reading the folder {}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let child = if rel.is_empty() { name } else { format!("{rel}/{name}") };
        if entry.file_type().with_context(|| format!("reading {}", path.display()))?.is_dir() {
            walk(&path, &child, out)?;
        } else {
            out.push((child, path));
        }
    }
    Ok(())
}

/// Folders whose SVG files are also served together as one sprite, `{folder}.svg`, with a
/// `<view>` per file (`pieces.svg#king-white` shows `pieces/king-white.svg`): a board shows a
/// dozen piece images, and one request for all of them saves a round trip or two per page
/// (a browser opens at most six connections to a site over HTTP/1.1).
const SPRITES: [&str; 1] = ["pieces"];

/// A sprite of SVG drawings, `(name, source)`: each drawing in its own nested `<svg>`, one below
/// the other, with a `<view id="{name}">` framing it. `None` when a drawing has no root with a
/// `viewBox`, or has ids of its own (they could clash in one document).
fn sprite(members: &[(String, String)]) -> Option<String> {
    let mut y = 0.0_f64;
    let mut cells = String::new();
    let mut size = None;
    for (name, source) in members {
        let start = source.find("<svg")?;
        let tag_end = start + source[start..].find('>')?;
        let tag = &source[start..tag_end];
        let view_box = tag.split("viewBox=\"").nth(1)?.split('"').next()?;
        let dims: Vec<f64> =
            view_box.split([' ', ',']).filter(|s| !s.is_empty()).filter_map(|n| n.parse().ok()).collect();
        let [_, _, w, h] = dims[..] else { return None };
        let inner = &source[tag_end + 1..source.rfind("</svg>")?];
        if inner.contains(" id=") {
            return None;
        }
        size.get_or_insert((w, h));
        cells.push_str(&format!(
            r#"<view id="{name}" viewBox="0 {y} {w} {h}"/><svg y="{y}" width="{w}" height="{h}" viewBox="{view_box}">{inner}</svg>"#
        ));
        y += h;
    }
    let (w, h) = size?;
    Some(format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}">{cells}</svg>"#
    ))
}

/// The brotli and gzip forms of a file's bytes, by their SHA-256.
type Packs = HashMap<[u8; 32], (Bytes, Bytes)>;

/// The compressed forms of the files compressed so far in this process. Brotli at its best
/// setting takes about a second for the whole folder; a server that starts again in the same
/// process (the tests start hundreds) reuses what it made, which is the same for the same bytes.
static PACKED: std::sync::LazyLock<std::sync::Mutex<Packs>> = std::sync::LazyLock::new(Default::default);

/// The brotli and gzip forms of `body` (whose SHA-256 is `digest`), each only when smaller.
fn packed(digest: &[u8; 32], body: &[u8]) -> anyhow::Result<(Option<Bytes>, Option<Bytes>)> {
    let known = PACKED.lock().ok().and_then(|m| m.get(digest).cloned());
    let (brotli, gzip) = match known {
        Some(p) => p,
        None => {
            let p = (
                compress::encode(Coding::Brotli, body, Effort::Best)?,
                compress::encode(Coding::Gzip, body, Effort::Best)?,
            );
            if let Ok(mut m) = PACKED.lock() {
                m.insert(*digest, p.clone());
            }
            p
        }
    };
    let smaller = |b: Bytes| (b.len() < body.len()).then_some(b);
    Ok((smaller(brotli), smaller(gzip)))
}

impl Assets {
    /// Reads every file under `dir`, hashes it, compresses the text files and reads the import
    /// statements of the scripts. `max_age_secs` is the cache time of the plain names.
    ///
    /// # Errors
    /// The folder or a file cannot be read.
    pub fn load(dir: &Path, max_age_secs: u64) -> anyhow::Result<Assets> {
        let started = std::time::Instant::now();
        let mut listing = Vec::new();
        walk(dir, "", &mut listing)?;
        let mut files = HashMap::new();
        let mut sprites: Vec<Vec<(String, String)>> = SPRITES.iter().map(|_| Vec::new()).collect();
        for (path, full) in listing {
            let body = std::fs::read(&full).with_context(|| format!("reading {}", full.display()))?;
            for (folder, members) in SPRITES.iter().zip(sprites.iter_mut()) {
                if let Some(name) = path.strip_prefix(&format!("{folder}/")).and_then(|n| n.strip_suffix(".svg"))
                    && !name.contains('/')
                {
                    members.push((name.to_string(), String::from_utf8_lossy(&body).into_owned()));
                }
            }
            files.insert(path.clone(), Asset::new(path, body));
        }
        for (folder, mut members) in SPRITES.iter().zip(sprites) {
            members.sort();
            let path = format!("{folder}.svg");
            if members.is_empty() || files.contains_key(&path) {
                continue;
            }
            match sprite(&members) {
                Some(svg) => {
                    files.insert(path.clone(), Asset::new(path, svg.into_bytes()));
                }
                None => tracing::warn!(folder, "the folder's SVG files do not make a sprite"),
            }
        }
        // Entry modules (imported by no other) with imports get a bundle.
        let imported: Vec<&String> = files.values().flat_map(|a| &a.imports).collect();
        let entries: Vec<String> = files
            .values()
            .filter(|a| a.path.ends_with(".js") && !a.imports.is_empty() && !imported.contains(&&a.path))
            .map(|a| a.path.clone())
            .collect();
        let mut bundles = HashMap::new();
        for entry in entries {
            let path = format!("{}.bundle.js", entry.trim_end_matches(".js"));
            if files.contains_key(&path) {
                continue;
            }
            match bundle(&files, &entry) {
                Some(text) => {
                    files.insert(path.clone(), Asset::new(path.clone(), text.into_bytes()));
                    bundles.insert(entry, path);
                }
                None => tracing::warn!(entry, "this module graph is loaded module by module (it cannot be bundled)"),
            }
        }
        compress_all(&mut files)?;
        let map: BTreeMap<String, String> =
            files.values().map(|a| (format!("{PREFIX}{}", a.path), format!("{PREFIX}{}", a.hashed))).collect();
        let json = serde_json::to_string(&serde_json::json!({ "imports": map }))
            .context("writing the import map")?
            .replace('<', "\\u003c");
        let import_map = format!(r#"<script type="importmap">{json}</script>"#);
        let import_map_hash = format!("'sha256-{}'", B64.encode(Sha256::digest(json.as_bytes())));
        let short_cache = HeaderValue::from_str(&format!("public, max-age={max_age_secs}"))
            .context("the static files' cache header")?;
        tracing::info!(
            files = files.len(),
            bytes = files.values().map(|a| a.body.len()).sum::<usize>(),
            ms = started.elapsed().as_millis(),
            "static files loaded"
        );
        Ok(Assets { files, bundles, import_map, import_map_hash, short_cache })
    }

    /// The URL of a static file (`css/site.css`): its hashed name, or the plain one for a path
    /// that is not a file here.
    pub fn url(&self, path: &str) -> String {
        match self.files.get(path) {
            Some(a) => format!("{PREFIX}{}", a.hashed),
            None => format!("{PREFIX}{path}"),
        }
    }

    /// The page's import map (a `<script>` element), for the head of every page.
    pub fn import_map(&self) -> &str {
        &self.import_map
    }

    /// The import map's hash as a Content-Security-Policy source (`'sha256-…'`): the one inline
    /// script the pages have ([`crate::middleware::SecurityHeaders`]).
    pub fn import_map_hash(&self) -> &str {
        &self.import_map_hash
    }

    /// The modules `entry` imports, directly or not, each once, nearest first.
    fn graph(&self, entry: &str) -> Vec<&Asset> {
        let mut seen = vec![entry.to_string()];
        let mut order = Vec::new();
        let mut at = 0;
        let mut queue = vec![entry.to_string()];
        while at < queue.len() {
            let Some(asset) = self.files.get(&queue[at]) else {
                at += 1;
                continue;
            };
            at += 1;
            for dep in &asset.imports {
                if !seen.contains(dep) {
                    seen.push(dep.clone());
                    queue.push(dep.clone());
                    if let Some(d) = self.files.get(dep) {
                        order.push(d);
                    }
                }
            }
        }
        order
    }

    /// The HTML that loads a page's entry module (`js/live.js`): its bundle, one script of the
    /// whole graph made at start-up (`bundle`); or, when the graph cannot be bundled, the module
    /// itself followed by a `modulepreload` link for each module of its graph, nearest first, so
    /// that the browser fetches them all at once.
    pub fn module(&self, entry: &str) -> String {
        if let Some(bundle) = self.bundles.get(entry) {
            return format!(r#"<script type="module" src="{}"></script>"#, self.url(bundle));
        }
        let mut html = format!(r#"<script type="module" src="{}"></script>"#, self.url(entry));
        for dep in self.graph(entry) {
            html.push('\n');
            html.push_str(&format!(r#"<link rel="modulepreload" href="{PREFIX}{}">"#, dep.hashed));
        }
        html
    }

    /// `GET /static/{path}`: the file in the coding the request prefers, with its cache header
    /// (a year for the current hashed name, the short one for the plain name or an old hash), its
    /// `ETag` (304 when the browser has it).
    fn respond(&self, req: &HttpRequest, path: &str) -> Result<HttpResponse, PageError> {
        let (asset, immutable) = match self.files.get(path) {
            Some(a) => (a, false),
            None => {
                let (plain, hash) = split_hashed(path).ok_or(PageError::NotFound)?;
                let a = self.files.get(&plain).ok_or(PageError::NotFound)?;
                (a, a.hash == hash)
            }
        };
        let (coding, body) = match Coding::negotiate(req) {
            Coding::Brotli if asset.brotli.is_some() => (Coding::Brotli, asset.brotli.clone()),
            Coding::Brotli | Coding::Gzip if asset.gzip.is_some() => (Coding::Gzip, asset.gzip.clone()),
            _ => (Coding::Identity, None),
        };
        let etag = match coding {
            Coding::Brotli => format!("\"{}-br\"", asset.hash),
            Coding::Gzip => format!("\"{}-gz\"", asset.hash),
            Coding::Identity => format!("\"{}\"", asset.hash),
        };
        let fresh = req
            .headers()
            .get(header::IF_NONE_MATCH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.split(',').any(|t| t.trim() == "*" || t.trim().trim_start_matches("W/") == etag));
        let mut res = if fresh { HttpResponse::NotModified() } else { HttpResponse::Ok() };
        res.insert_header((
            header::CACHE_CONTROL,
            if immutable { HeaderValue::from_static(IMMUTABLE) } else { self.short_cache.clone() },
        ))
        .insert_header((header::ETAG, etag))
        .insert_header((header::CONTENT_TYPE, asset.content_type.clone()));
        if asset.gzip.is_some() || asset.brotli.is_some() {
            res.insert_header((header::VARY, "accept-encoding"));
        }
        if let Some(value) = coding.header() {
            res.insert_header((header::CONTENT_ENCODING, value.to_header_value()));
        }
        if fresh {
            return Ok(res.finish());
        }
        Ok(res.body(body.unwrap_or_else(|| asset.body.clone())))
    }
}

/// `GET /static/{path:.*}`.
pub async fn serve(req: HttpRequest, assets: web::Data<Assets>) -> Result<HttpResponse, PageError> {
    let path = req.match_info().query("path").to_string();
    assets.respond(&req, &path)
}

tokio::task_local! {
    /// The static files of the server handling the current request.
    static CURRENT: Arc<Assets>;
}

/// Middleware: makes the server's static files reachable from the request's handlers (and so
/// from the pages they render, see [`current`]).
///
/// # Errors
/// Those of the inner service.
pub async fn scope(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    match req.app_data::<web::Data<Assets>>().map(|a| a.clone().into_inner()) {
        Some(assets) => CURRENT.scope(assets, async move { next.call(req).await }).await,
        None => next.call(req).await,
    }
}

/// The static files of the server handling the current request, if any (none outside a request,
/// as in unit tests: pages then link the plain names).
pub fn current() -> Option<Arc<Assets>> {
    CURRENT.try_with(Arc::clone).ok()
}

/// The URL of a static file for the current request: hashed when the server knows the file.
pub fn url(path: &str) -> String {
    current().map_or_else(|| format!("{PREFIX}{path}"), |a| a.url(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hashed_name_puts_the_hash_before_the_extension_and_reads_back() {
        assert_eq!(hashed_name("js/live.js", "0123456789ab"), "js/live.0123456789ab.js");
        assert_eq!(hashed_name("favicon.svg", "0123456789ab"), "favicon.0123456789ab.svg");
        assert_eq!(hashed_name("LICENSE", "0123456789ab"), "LICENSE.0123456789ab");
        assert_eq!(split_hashed("js/live.0123456789ab.js"), Some(("js/live.js".into(), "0123456789ab")));
        assert_eq!(split_hashed("favicon.0123456789ab.svg"), Some(("favicon.svg".into(), "0123456789ab")));
        assert_eq!(split_hashed("LICENSE.0123456789ab"), Some(("LICENSE".into(), "0123456789ab")));
        assert_eq!(split_hashed("js/live.js"), None);
        assert_eq!(split_hashed("js/piece-cap.js"), None);
        assert_eq!(split_hashed("js/x.0123456789zz.js"), None);
    }

    #[test]
    fn imports_are_read_from_statements_not_comments() {
        let src = r#"// A module.
import { a, b } from "./a.js";
import {
  c,
} from '../c.js';
import "./side.js";
export { d } from "./d.js";
// import { old } from "./old.js";
/* import x from "./block.js"; */
const re = /"/; const t = "from nowhere";
const later = await import("./lazy.js");
import * as all from "/static/js/all.js";
"#;
        assert_eq!(import_specifiers(src), ["./a.js", "../c.js", "./side.js", "./d.js", "/static/js/all.js"]);
    }

    #[test]
    fn specifiers_resolve_against_the_importing_module() {
        assert_eq!(resolve("js/live.js", "./view.js").as_deref(), Some("js/view.js"));
        assert_eq!(resolve("js/extras/xp.js", "../pieces.js").as_deref(), Some("js/pieces.js"));
        assert_eq!(resolve("js/live.js", "/static/css/live.css").as_deref(), Some("css/live.css"));
        assert_eq!(resolve("js/live.js", "lodash"), None);
        assert_eq!(resolve("js/live.js", "../../../etc/passwd"), None);
    }

    fn folder(files: &[(&str, &str)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("chessgold-assets-{}", uuid::Uuid::new_v4().simple()));
        for (path, text) in files {
            let full = dir.join(path);
            std::fs::create_dir_all(full.parent().expect("a parent")).expect("a folder");
            std::fs::write(full, text).expect("a file");
        }
        dir
    }

    #[test]
    fn a_changed_file_gets_a_new_url_and_the_others_keep_theirs() {
        let dir = folder(&[("js/a.js", "import { b } from './b.js';\n"), ("js/b.js", "export const b = 1;\n")]);
        let before = Assets::load(&dir, 60).expect("loaded");
        std::fs::write(dir.join("js/b.js"), "export const b = 2;\n").expect("changed");
        let after = Assets::load(&dir, 60).expect("loaded");
        assert_ne!(before.url("js/b.js"), after.url("js/b.js"));
        assert_eq!(before.url("js/a.js"), after.url("js/a.js"));
        assert!(after.url("js/b.js").starts_with("/static/js/b.") && after.url("js/b.js").ends_with(".js"));
        assert!(after.import_map().contains(&format!(r#""/static/js/b.js":"{}""#, after.url("js/b.js"))));
        std::fs::remove_dir_all(dir).expect("cleaned up");
    }

    #[test]
    fn an_entry_preloads_its_whole_graph_once() {
        let dir = folder(&[
            ("js/main.js", "import './a.js';\nimport './b.js';\n"),
            ("js/a.js", "import './c.js';\n"),
            ("js/b.js", "import './c.js';\nimport './main.js';\n"),
            ("js/c.js", "export {};\n"),
        ]);
        let assets = Assets::load(&dir, 60).expect("loaded");
        let html = assets.module("js/main.js");
        let preloads: Vec<_> = html.lines().filter(|l| l.contains("modulepreload")).collect();
        assert_eq!(preloads.len(), 3, "{html}");
        for f in ["js/a.js", "js/b.js", "js/c.js"] {
            assert!(html.contains(&format!(r#"href="{}""#, assets.url(f))), "{f} in {html}");
        }
        assert!(html.starts_with(&format!(r#"<script type="module" src="{}"></script>"#, assets.url("js/main.js"))));
        std::fs::remove_dir_all(dir).expect("cleaned up");
    }

    #[test]
    fn a_sprite_frames_each_drawing_in_a_view_of_its_own() {
        let members = [
            (
                "a".to_string(),
                r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 45 45"><path d="M1 1"/></svg>"#.to_string(),
            ),
            ("b".to_string(), r#"<svg viewBox="0 0 45 45" width="45"><circle r="3"/></svg>"#.to_string()),
        ];
        let svg = sprite(&members).expect("a sprite");
        assert!(svg.contains(r#"<view id="a" viewBox="0 0 45 45"/><svg y="0" width="45" height="45" viewBox="0 0 45 45"><path d="M1 1"/></svg>"#), "{svg}");
        assert!(svg.contains(r#"<view id="b" viewBox="0 45 45 45"/><svg y="45" width="45" height="45" viewBox="0 0 45 45"><circle r="3"/></svg>"#), "{svg}");
        let with_ids = [("c".to_string(), r#"<svg viewBox="0 0 9 9"><g id="x"/></svg>"#.to_string())];
        assert_eq!(sprite(&with_ids), None);
        let dir = folder(&[("pieces/a-white.svg", &members[0].1), ("pieces/b-black.svg", &members[1].1)]);
        let assets = Assets::load(&dir, 60).expect("loaded");
        assert!(assets.url("pieces.svg").starts_with("/static/pieces.") && assets.url("pieces.svg").ends_with(".svg"));
        std::fs::remove_dir_all(dir).expect("cleaned up");
    }

    #[test]
    fn an_entry_is_bundled_with_its_modules_in_import_order() {
        let dir = folder(&[
            (
                "js/main.js",
                "import { a } from './a.js';\nimport {\n  b as bee,\n} from \"./lib/b.js\";\nexport class Main {}\nconsole.log(a, bee);\n",
            ),
            ("js/a.js", "import { b } from './lib/b.js';\nexport const a = b + 1;\n"),
            ("js/lib/b.js", "// b\nexport function b() { return 1; }\nexport async function later() {}\n"),
        ]);
        let assets = Assets::load(&dir, 60).expect("loaded");
        let html = assets.module("js/main.js");
        assert!(
            html.starts_with(r#"<script type="module" src="/static/js/main.bundle."#)
                && !html.contains("modulepreload"),
            "{html}"
        );
        let text = String::from_utf8(assets.files["js/main.bundle.js"].body.to_vec()).expect("text");
        let at = |needle: &str| text.find(needle).unwrap_or_else(|| panic!("{needle} in {text}"));
        assert!(at(r#"__cg["js/lib/b.js"] ??="#) < at(r#"__cg["js/a.js"] ??="#));
        assert!(at(r#"__cg["js/a.js"] ??="#) < at(r#"__cg["js/main.js"] ??="#));
        assert!(text.contains("function b() { return 1; }") && text.contains("return { b, later };"), "{text}");
        assert!(text.contains(r#"const { b: bee } = __cg["js/lib/b.js"];"#), "{text}");
        assert!(text.contains(r#"const { a } = __cg["js/a.js"];"#) && text.contains("return { a };"), "{text}");
        assert!(!text.contains("export ") && !text.contains("import "), "{text}");
        std::fs::remove_dir_all(dir).expect("cleaned up");
    }

    #[test]
    fn a_graph_with_a_form_the_bundler_does_not_handle_is_preloaded_instead() {
        for other in [
            "export default 1;\n",
            "export let x = 1;\n",
            "import * as all from './c.js';\n",
            "const m = await import('./c.js');\n",
        ] {
            let dir = folder(&[
                ("js/main.js", "import { c } from './c.js';\n"),
                ("js/c.js", &format!("export const c = 1;\n{other}")),
            ]);
            let assets = Assets::load(&dir, 60).expect("loaded");
            let html = assets.module("js/main.js");
            assert!(html.contains(r#"<link rel="modulepreload" href="/static/js/c."#), "{other}: {html}");
            assert!(!assets.files.contains_key("js/main.bundle.js"), "{other}");
            std::fs::remove_dir_all(dir).expect("cleaned up");
        }
    }
}
