//! The JSON shapes of lichess's API, filled from our records: variants, speeds, statuses,
//! players, games, and the board stream's `gameState`. Times are milliseconds.

use actix_web::{HttpRequest, HttpResponse, web};
use chessgold_engine::Color;
use chessgold_engine::registry::VariantInfo;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use time::OffsetDateTime;
use tokio::sync::mpsc;

use crate::error::ApiError;
use crate::game::model::Game;
use crate::game::{Speed, Status, TimeControl};

/// Clock value lichess gives for unlimited games (ms).
pub const NO_CLOCK_MS: i64 = 2_147_483_647;

pub use crate::domain::unix_ms as ms;
pub use crate::game::view::status_name;

/// `scheme://host` of the request, for the `url` fields.
pub fn base_url(req: &HttpRequest) -> String {
    let info = req.connection_info();
    format!("{}://{}", info.scheme(), info.host())
}

/// A 500 for an infrastructure failure.
pub fn internal(e: &anyhow::Error) -> ApiError {
    ApiError::new(actix_web::http::StatusCode::INTERNAL_SERVER_ERROR, "unavailable", format!("{e:#}"))
}

/// 404 with a sentence.
pub fn not_found(message: &str) -> ApiError {
    ApiError::new(actix_web::http::StatusCode::NOT_FOUND, "not_found", message)
}

/// Reads a POST body sent as JSON (`Content-Type: application/json`), as `multipart/form-data`
/// (text fields) or as a form (anything else, lichess's default); an empty body is an empty
/// form.
///
/// # Errors
/// 400 when the body does not fit `T`.
pub fn parse_body<T: DeserializeOwned>(req: &HttpRequest, body: &web::Bytes) -> Result<T, ApiError> {
    let content_type =
        req.headers().get(actix_web::http::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let kind = content_type.to_ascii_lowercase();
    let json = kind.starts_with("application/json");
    if kind.starts_with("multipart/form-data") && !body.is_empty() {
        let fields = multipart_fields(content_type, body)?;
        serde_json::from_value(Value::Object(fields))
            .map_err(|e| ApiError::bad_request("bad_form", format!("the body is not valid: {e}")))
    } else if json && !body.is_empty() {
        serde_json::from_slice(body)
            .map_err(|e| ApiError::bad_request("bad_json", format!("the body is not valid: {e}")))
    } else {
        serde_urlencoded::from_bytes(body)
            .map_err(|e| ApiError::bad_request("bad_form", format!("the body is not valid: {e}")))
    }
}

/// The text fields of a `multipart/form-data` body (RFC 7578), by name, with the boundary of
/// `content_type`.
fn multipart_fields(content_type: &str, body: &[u8]) -> Result<serde_json::Map<String, Value>, ApiError> {
    let bad = |why: &str| ApiError::bad_request("bad_form", format!("the multipart body is not valid: {why}"));
    let text = std::str::from_utf8(body).map_err(|_| bad("only text fields are read"))?;
    let boundary = content_type
        .split(';')
        .map(str::trim)
        .find_map(|p| p.split_once('=').filter(|(k, _)| k.eq_ignore_ascii_case("boundary")).map(|(_, v)| v))
        .map(|b| b.trim_matches('"'))
        .filter(|b| !b.is_empty())
        .ok_or_else(|| bad("no boundary in the content type"))?;
    let delimiter = format!("--{boundary}");
    let starts: Vec<usize> = text.match_indices(&delimiter).map(|(i, _)| i).collect();
    if starts.is_empty() {
        return Err(bad("the boundary does not occur in the body"));
    }
    let mut fields = serde_json::Map::new();
    for pair in starts.windows(2) {
        let part = &text[pair[0] + delimiter.len()..pair[1]];
        let part = part.strip_prefix("\r\n").unwrap_or(part);
        let (head, value) = part.split_once("\r\n\r\n").ok_or_else(|| bad("a part has no blank line"))?;
        let value = value.strip_suffix("\r\n").unwrap_or(value);
        let name = head
            .split("\r\n")
            .find(|l| l.to_ascii_lowercase().starts_with("content-disposition:"))
            .and_then(|l| l.split(';').map(str::trim).find_map(|p| p.strip_prefix("name=")))
            .map(|n| n.trim_matches('"').to_string())
            .ok_or_else(|| bad("a part has no name"))?;
        if fields.insert(name, Value::String(value.to_string())).is_some() {
            return Err(bad("a field is sent twice"));
        }
    }
    Ok(fields)
}

/// An NDJSON response fed by a channel of lines (each already ending with `\n`).
pub fn ndjson(rx: mpsc::Receiver<String>) -> HttpResponse {
    streamed(rx, "application/x-ndjson")
}

/// A response of `content_type` fed by a channel of texts, each sent as it comes.
pub fn streamed(rx: mpsc::Receiver<String>, content_type: &'static str) -> HttpResponse {
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|line| (Ok::<_, actix_web::Error>(web::Bytes::from(line)), rx))
    });
    HttpResponse::Ok()
        .content_type(content_type)
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-cache"))
        .insert_header(("x-accel-buffering", "no"))
        .streaming(stream)
}

/// A `true`/`false` parameter as lichess's clients send it (`True` and `1` too, as Python
/// writes them; `on` from a form's checkbox), `default` when absent or empty.
///
/// # Errors
/// 400 `bad_flag` for anything else, with the parameter's name.
pub fn flag(v: Option<&str>, name: &str, default: bool) -> Result<bool, ApiError> {
    match v.map(str::trim) {
        None | Some("") => Ok(default),
        Some(t) if t.eq_ignore_ascii_case("true") || t == "1" || t == "on" => Ok(true),
        Some(t) if t.eq_ignore_ascii_case("false") || t == "0" => Ok(false),
        Some(_) => Err(ApiError::bad_request("bad_flag", format!("{name} is true or false"))),
    }
}

/// Refuses the first lichess term asked for that this server cannot honour: `(asked, why)`
/// pairs, `why` starting with the term's name; `400 unsupported_term`.
///
/// # Errors
/// The refusal.
pub fn refuse_terms(terms: impl IntoIterator<Item = (bool, &'static str)>) -> Result<(), ApiError> {
    match terms.into_iter().find(|(asked, _)| *asked) {
        Some((_, why)) => Err(ApiError::bad_request("unsupported_term", why)),
        None => Ok(()),
    }
}

/// One NDJSON line.
pub fn line(v: &Value) -> String {
    format!("{v}\n")
}

/// `{"key", "name", "short"}` of a variant.
pub fn variant_json(info: &VariantInfo) -> Value {
    json!({"key": info.id, "name": info.name, "short": info.name})
}

/// Lichess's status name of a status id.
pub fn status_name_of_id(id: i64) -> &'static str {
    i16::try_from(id).ok().and_then(Status::from_id).map_or("unknown", status_name)
}

/// `{"initial", "increment"}` in ms, or `null`.
pub fn clock_json(clock: Option<TimeControl>) -> Value {
    clock.map_or(Value::Null, |c| {
        json!({"initial": i64::from(c.limit) * 10, "increment": i64::from(c.increment) * 10,
               "totalTime": c.estimate_secs()})
    })
}

/// A seat as lichess's game player: `{"id", "name", "title", "rating", "provisional"}`.
pub fn seat_json(live: &Game, color: Color) -> Value {
    match &live.seats[color.index()] {
        Some(s) if s.user_id.is_some() => {
            let mut v = json!({"id": s.name.to_lowercase(), "name": s.name, "title": s.title(),
                               "provisional": s.provisional});
            if let (Some(obj), Some(r)) = (v.as_object_mut(), s.rating_before) {
                obj.insert("rating".into(), Value::from(r));
            }
            v
        }
        Some(s) if s.bot.is_some() => json!({"aiLevel": s.bot.map(chessgold_bot::Level::number)}),
        Some(_) => json!({"id": null, "name": "Anonymous", "title": null}),
        None => Value::Null,
    }
}

/// What the board stream tracks to write `gameState` lines.
#[derive(Debug, Clone, Default)]
pub struct BoardState {
    /// Actions so far.
    pub moves: Vec<String>,
    /// Remaining ms (white, black).
    pub times: [i64; 2],
    /// Increments ms.
    pub inc: i64,
    /// Lichess status name.
    pub status: String,
    /// Winner.
    pub winner: Option<String>,
    /// Draw offers (white, black).
    pub draw: [bool; 2],
    /// Takeback requests (white, black).
    pub takeback: [bool; 2],
}

impl BoardState {
    /// The state of a game now.
    pub fn of(live: &Game, now: OffsetDateTime) -> BoardState {
        let mut s = BoardState {
            moves: live.actions.iter().map(|a| a.action.clone()).collect(),
            inc: live.clock.map_or(0, |c| i64::from(c.increment) * 10),
            status: status_name(live.status).to_string(),
            winner: live.winner.map(|c| c.name().to_string()),
            ..BoardState::default()
        };
        s.times = match live.clocks_at(now) {
            Some(c) => [i64::from(c[0]) * 10, i64::from(c[1]) * 10],
            None => [NO_CLOCK_MS; 2],
        };
        for c in Color::ALL {
            s.draw[c.index()] = live.offers.draw == Some(c);
            s.takeback[c.index()] = live.offers.takeback == Some(c);
        }
        s
    }

    /// Takes the clocks of a socket `clocks` object.
    pub fn set_clocks(&mut self, clocks: &Value) {
        for (i, side) in ["white", "black"].into_iter().enumerate() {
            if let Some(cs) = clocks.get(side).and_then(Value::as_i64) {
                self.times[i] = cs * 10;
            }
        }
    }

    /// Takes the offers of a socket `offers` object.
    pub fn set_offers(&mut self, offers: &Value) {
        for (i, side) in ["white", "black"].into_iter().enumerate() {
            self.draw[i] = offers.get("draw").and_then(Value::as_str) == Some(side);
            self.takeback[i] = offers.get("takeback").and_then(Value::as_str) == Some(side);
        }
    }

    /// The `gameState` object.
    pub fn json(&self) -> Value {
        let mut v = json!({
            "type": "gameState",
            "moves": self.moves.join(" "),
            "wtime": self.times[0], "btime": self.times[1],
            "winc": self.inc, "binc": self.inc,
            "status": self.status,
            "wdraw": self.draw[0], "bdraw": self.draw[1],
            "wtakeback": self.takeback[0], "btakeback": self.takeback[1],
        });
        if let (Some(obj), Some(w)) = (v.as_object_mut(), &self.winner) {
            obj.insert("winner".into(), Value::from(w.as_str()));
        }
        v
    }

    /// Whether the game is over.
    pub fn over(&self) -> bool {
        !matches!(self.status.as_str(), "created" | "started")
    }
}

/// The `gameFull` line of the board stream.
pub fn game_full(live: &Game, now: OffsetDateTime) -> Value {
    json!({
        "type": "gameFull",
        "id": live.id.as_str(),
        "variant": variant_json(live.info),
        "speed": Speed::of(live.clock).key(),
        "perf": {"name": live.info.name},
        "rated": live.rated,
        "createdAt": ms(live.created_at),
        "white": seat_json(live, Color::White),
        "black": seat_json(live, Color::Black),
        "initialFen": live.initial_fen.as_deref().unwrap_or("startpos"),
        "clock": clock_json(live.clock),
        "state": BoardState::of(live, now).json(),
    })
}

/// A game just started against the computer, as lichess answers `POST /api/challenge/ai`, for
/// the player of `color`.
pub fn ai_game(live: &Game, color: Color) -> Value {
    let player_id = live.seats[color.index()].as_ref().map_or(String::new(), |s| s.player_id.clone());
    json!({
        "id": live.id.as_str(),
        "fullId": format!("{}{player_id}", live.id),
        "variant": variant_json(live.info),
        "speed": Speed::of(live.clock).key(),
        "perf": crate::game::perf_key(live.info.id, live.clock),
        "rated": false,
        "fen": live.snapshot().fen,
        "turns": live.actions.len(),
        "source": live.source.as_str(),
        "status": {"id": live.status.id(), "name": status_name(live.status)},
        "createdAt": ms(live.created_at),
        "player": color.name(),
    })
}

/// The `game` object of `gameStart` / `gameFinish` events, seen from `color`.
pub fn event_game(live: &Game, color: Color, now: OffsetDateTime) -> Value {
    let snapshot = live.snapshot();
    let opponent = match &live.seats[(!color).index()] {
        Some(s) if s.user_id.is_some() => {
            let mut o = json!({"id": s.name.to_lowercase(), "username": s.name, "rating": s.rating_before,
                               "title": s.title()});
            if let (Some(obj), Some(b), Some(a)) = (o.as_object_mut(), s.rating_before, s.rating_after) {
                obj.insert("ratingDiff".into(), Value::from(a - b));
            }
            o
        }
        Some(s) if s.bot.is_some() => json!({"id": null, "username": s.name, "rating": s.rating_before,
                                             "ai": s.bot.map(chessgold_bot::Level::number)}),
        Some(_) => json!({"id": null, "username": "Anonymous", "rating": null}),
        None => Value::Null,
    };
    let player_id = live.seats[color.index()].as_ref().map_or(String::new(), |s| s.player_id.clone());
    let seconds_left = live.clocks_at(now).map(|c| c[color.index()] / 100);
    let mut game = json!({
        "gameId": live.id.as_str(),
        "fullId": format!("{}{player_id}", live.id),
        "id": live.id.as_str(),
        "color": color.name(),
        "fen": snapshot.fen,
        "hasMoved": live.actions.iter().any(|a| a.color == color),
        "isMyTurn": live.status == Status::Started && live.engine.turn() == color,
        "lastMove": live.actions.last().map_or("", |a| a.action.as_str()),
        "opponent": opponent,
        "perf": crate::game::perf_key(live.info.id, live.clock),
        "rated": live.rated,
        "secondsLeft": seconds_left,
        "source": live.source.as_str(),
        "status": {"id": live.status.id(), "name": status_name(live.status)},
        "speed": Speed::of(live.clock).key(),
        "variant": {"key": live.info.id, "name": live.info.name},
        "compat": {"bot": true, "board": true},
    });
    if let Some(obj) = game.as_object_mut() {
        if let Some(w) = live.winner {
            obj.insert("winner".into(), Value::from(w.name()));
        }
        if let Some(s) = &live.seats[color.index()]
            && let (Some(b), Some(a)) = (s.rating_before, s.rating_after)
        {
            obj.insert("ratingDiff".into(), Value::from(a - b));
        }
    }
    game
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_follow_lichess() {
        assert_eq!(status_name(Status::NoStart), "noStart");
        assert_eq!(status_name_of_id(31), "resign");
    }

    #[test]
    fn multipart_text_fields_are_read_and_bad_ones_refused() {
        let ct = "multipart/form-data; Boundary=XyZzY";
        let body = "--XyZzY\r\nContent-Disposition: form-data; name=\"rated\"\r\n\r\ntrue\r\n\
                    --XyZzY\r\ncontent-disposition: form-data; name=\"clock.limit\"\r\n\r\n300\r\n--XyZzY--\r\n";
        let fields = multipart_fields(ct, body.as_bytes()).unwrap();
        assert_eq!(fields["rated"], "true");
        assert_eq!(fields["clock.limit"], "300");
        assert_eq!(fields.len(), 2);
        assert!(multipart_fields("multipart/form-data", body.as_bytes()).is_err(), "no boundary");
        assert!(multipart_fields("multipart/form-data; boundary=xyzzy", body.as_bytes()).is_err(), "case matters");
        let nameless = "--b\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b--";
        assert!(multipart_fields("multipart/form-data; boundary=b", nameless.as_bytes()).is_err());
        assert!(multipart_fields(ct, &[0xff, 0xfe]).is_err());
        let twice = "--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n1\r\n\
                     --b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n2\r\n--b--";
        assert!(multipart_fields("multipart/form-data; boundary=b", twice.as_bytes()).is_err());
    }
}
