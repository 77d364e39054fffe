//! `docs/openapi.yaml` against the server: the paths it describes are the API's routes, and
//! the answers the API tests receive validate against it ([`check`], called by the lichess
//! tests' request helpers on every answer and on every line of every stream they read).
#![expect(clippy::expect_used, reason = "test code: a failed step should fail the test loudly")]

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, LazyLock, Mutex};

use serde_json::{Value, json};

/// The description, read once, as JSON.
static SPEC: LazyLock<Value> = LazyLock::new(|| {
    let text = std::fs::read_to_string(crate::helpers::root().join("docs/openapi.yaml")).expect("docs/openapi.yaml");
    serde_yaml::from_str(&text).expect("docs/openapi.yaml is YAML")
});

/// The methods an OpenAPI path item may hold.
const METHODS: &[&str] = &["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/// A `$ref` inside the description (`#/components/...`), followed; other values as they are.
fn follow(value: &Value) -> &Value {
    match value.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let pointer = r.strip_prefix('#').unwrap_or_else(|| panic!("only local references: {r}"));
            follow(SPEC.pointer(pointer).unwrap_or_else(|| panic!("dangling reference {r}")))
        }
        None => value,
    }
}

/// The path template of the description that `path` (no query) matches: `{x}` stands for one
/// segment; a template with fewer patterns wins (as a literal route comes first in the table).
fn template_of(path: &str) -> Option<&'static str> {
    let segments: Vec<&str> = path.split('/').collect();
    let paths = SPEC["paths"].as_object().expect("paths");
    let matching = paths.keys().filter(|t| {
        let ts: Vec<&str> = t.split('/').collect();
        ts.len() == segments.len() && ts.iter().zip(&segments).all(|(t, s)| t.starts_with('{') || t == s)
    });
    matching.min_by_key(|t| t.matches('{').count()).map(String::as_str)
}

/// Checks one answer of the API against the description: the operation (`method` and the path
/// template that `path` matches), the response of `status` (else `default`), its content type,
/// and the body against the schema: the whole body for JSON, each non-empty line for NDJSON (a
/// stream's lines can be checked one at a time with [`check_line`]).
pub fn check(method: &str, path: &str, status: u16, content_type: Option<&str>, body: &[u8]) -> Result<(), String> {
    let (schema, media) = response_schema(method, path, status, content_type)?;
    let Some(schema) = schema else { return Ok(()) };
    let text = std::str::from_utf8(body).map_err(|_| format!("{method} {path} {status}: the body is not UTF-8"))?;
    match media.as_str() {
        "application/x-ndjson" => {
            text.lines().filter(|l| !l.trim().is_empty()).try_for_each(|l| validate(&schema, l, method, path, status))
        }
        m if m.ends_with("json") => validate(&schema, text, method, path, status),
        _ => Ok(()), // PGN and plain text: the content type was checked
    }
}

/// Checks one line of an NDJSON stream (`method path`, answered 200) against its schema.
pub fn check_line(method: &str, path: &str, line: &str) -> Result<(), String> {
    match response_schema(method, path, 200, Some("application/x-ndjson"))? {
        (Some(schema), _) => validate(&schema, line, method, path, 200),
        (None, _) => Err(format!("{method} {path}: its stream has no schema")),
    }
}

/// The schema (none when the description gives the media type without one) and the media type
/// of an answer, or why the description does not allow it.
fn response_schema(
    method: &str,
    path: &str,
    status: u16,
    content_type: Option<&str>,
) -> Result<(Option<Value>, String), String> {
    let at = format!("{method} {path} {status}");
    let path = path.split('?').next().unwrap_or(path);
    let response = match template_of(path) {
        Some(template) => {
            let op = SPEC["paths"][template]
                .get(method.to_ascii_lowercase())
                .ok_or_else(|| format!("{at}: {template} has no {method} in docs/openapi.yaml"))?;
            let responses = &op["responses"];
            responses
                .get(status.to_string())
                .or_else(|| responses.get(format!("{}XX", status / 100)))
                .or_else(|| responses.get("default"))
                .ok_or_else(|| format!("{at}: {method} {template} describes no {status} (nor a default)"))?
        }
        // A path the API does not have answers its JSON 404, the description's `Error`.
        None if status == 404 => &SPEC["components"]["responses"]["Error"],
        None => return Err(format!("{at}: no path of docs/openapi.yaml matches")),
    };
    let response = follow(response);
    let media = content_type.map(|c| c.split(';').next().unwrap_or(c).trim().to_string());
    let content = response.get("content").and_then(Value::as_object);
    match (content, media) {
        (None, None) => Ok((None, String::new())),
        (Some(c), None) if c.is_empty() => Ok((None, String::new())),
        (None, Some(m)) => Err(format!("{at}: the answer is {m}, the description gives no content")),
        (Some(_), None) => Err(format!("{at}: the answer has no content type, the description gives one")),
        (Some(c), Some(m)) => {
            let entry = c.get(&m).ok_or_else(|| {
                format!("{at}: the answer is {m}, the description gives {:?}", c.keys().collect::<Vec<_>>())
            })?;
            Ok((entry.get("schema").cloned(), m))
        }
    }
}

/// Validates one JSON text against `schema`, its references resolved inside the description.
fn validate(schema: &Value, text: &str, method: &str, path: &str, status: u16) -> Result<(), String> {
    let at = format!("{method} {path} {status}");
    let instance: Value = serde_json::from_str(text).map_err(|e| format!("{at}: not JSON ({e}): {text}"))?;
    let validator = validator_for(schema);
    let errors: Vec<String> =
        validator.iter_errors(&instance).map(|e| format!("{} at '{}'", e, e.instance_path())).take(5).collect();
    if errors.is_empty() { Ok(()) } else { Err(format!("{at}: {}\n  the answer: {text}", errors.join("\n  "))) }
}

/// A draft 2020-12 validator of `schema` whose root also holds the description's components, so
/// that `#/components/schemas/...` resolves; compiled once per schema (a stream checks each line).
fn validator_for(schema: &Value) -> Arc<jsonschema::Validator> {
    static COMPILED: LazyLock<Mutex<HashMap<String, Arc<jsonschema::Validator>>>> = LazyLock::new(Default::default);
    let mut compiled = COMPILED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let entry = compiled.entry(schema.to_string()).or_insert_with(|| {
        let root = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "components": SPEC["components"],
            "allOf": [schema],
        });
        let v = jsonschema::draft202012::new(&root);
        Arc::new(v.unwrap_or_else(|e| panic!("a schema of docs/openapi.yaml is invalid: {e}")))
    });
    Arc::clone(entry)
}

/// Reads `resp` (an answer to `method` on its URL's path) whole, checks it against the
/// description ([`assert_valid`]) and hands it back as it came (status, headers, body).
pub async fn checked(method: &str, resp: reqwest::Response) -> reqwest::Response {
    let (status, headers, path) = (resp.status(), resp.headers().clone(), resp.url().path().to_string());
    let body = resp.bytes().await.expect("the answer's body");
    let media = headers.get("content-type").and_then(|v| v.to_str().ok());
    assert_valid(method, &path, status.as_u16(), media, &body);
    let mut back = http::Response::new(body);
    *back.status_mut() = status;
    *back.headers_mut() = headers;
    reqwest::Response::from(back)
}

/// Panics with the reason when an answer does not match the description.
pub fn assert_valid(method: &str, path: &str, status: u16, content_type: Option<&str>, body: &[u8]) {
    if let Err(e) = check(method, path, status, content_type, body) {
        panic!("docs/openapi.yaml does not describe this answer:\n  {e}");
    }
}

#[test]
fn the_description_lists_exactly_the_api_routes() {
    let described: BTreeSet<(String, String)> = SPEC["paths"]
        .as_object()
        .expect("paths")
        .iter()
        .flat_map(|(path, item)| {
            METHODS.iter().filter(|m| item.get(**m).is_some()).map(move |m| (m.to_string(), path.clone()))
        })
        .collect();
    let routed: BTreeSet<(String, String)> = chessgold::routes::all_routes()
        .into_iter()
        .filter(|(_, p)| p.starts_with("/api/"))
        .map(|(m, p)| (m.to_string(), p))
        .collect();
    let missing: Vec<_> = routed.difference(&described).collect();
    let extra: Vec<_> = described.difference(&routed).collect();
    assert!(missing.is_empty() && extra.is_empty(), "not described: {missing:?}\ndescribed, not routed: {extra:?}");
}

#[test]
fn every_operation_has_an_answer_and_every_schema_compiles() {
    for (path, item) in SPEC["paths"].as_object().expect("paths") {
        for method in METHODS.iter().filter(|m| item.get(**m).is_some()) {
            let responses = item[*method]["responses"].as_object().expect("responses");
            assert!(responses.keys().any(|s| s.starts_with('2') || s.starts_with('3')), "{method} {path}: no success");
            for response in responses.values() {
                for media in follow(response).get("content").and_then(Value::as_object).into_iter().flatten() {
                    if let Some(schema) = media.1.get("schema") {
                        validator_for(schema);
                    }
                }
            }
        }
    }
}

/// The checker refuses what the description does not allow: an unknown path, an undescribed
/// status or media type, and a body that breaks its schema (here, lichess's error shape).
#[test]
fn the_checker_refuses_answers_the_description_does_not_allow() {
    let error = br#"{"error": "no such challenge", "code": "not_found"}"#;
    let path = "/api/challenge/abcd1234/show";
    // The same path and method answer a JSON error with their `default` response.
    check("GET", path, 404, Some("application/json"), error).unwrap();
    // A path the API does not have answers the JSON 404, and nothing else.
    check(
        "GET",
        "/api/no/such/route/here",
        404,
        Some("application/json"),
        br#"{"error": "not found", "code": "not_found"}"#,
    )
    .unwrap();
    assert!(check("GET", "/api/no/such/route/here", 404, Some("text/html"), error).is_err());
    assert!(check("GET", "/api/no/such/route/here", 200, Some("application/json"), error).is_err());
    assert!(check("GET", path, 404, Some("text/html"), error).is_err());
    assert!(check("GET", path, 404, Some("application/json"), br#"{"error": 7, "code": "not_found"}"#).is_err());
    assert!(check("GET", path, 404, Some("application/json"), br#"{"error": "no code"}"#).is_err());
    assert!(check("GET", path, 404, Some("application/json"), b"not json").is_err());
    assert!(check("PATCH", path, 404, Some("application/json"), error).is_err());
}
