//! `GET /game/export/{gameId}`: a game as PGN-style text with our tags and action notation
//! (`docs/notation.md`, "Game export").

use std::fmt::Write as _;

use actix_web::http::StatusCode;
use actix_web::http::header::{ContentDisposition, DispositionParam, DispositionType};
use actix_web::{HttpRequest, HttpResponse, web};
use chessgold_engine::Color;

use super::model::Game;
use super::{GameId, store};
use crate::error::PageError;
use crate::startup::AppState;

/// The media type of the export.
pub const PGN_CONTENT_TYPE: &str = "application/x-chess-pgn; charset=utf-8";

/// Movetext lines are wrapped before this many characters.
const LINE_WIDTH: usize = 80;

/// The PGN result: `1-0`, `0-1`, `1/2-1/2`, or `*` for a game without a result (being played,
/// aborted).
pub fn result_tag(live: &Game) -> &'static str {
    if !live.status.has_result() {
        return "*";
    }
    match live.winner {
        Some(Color::White) => "1-0",
        Some(Color::Black) => "0-1",
        None => "1/2-1/2",
    }
}

/// Lichess's time control tag: seconds `+` increment seconds, or `-` for an unlimited game.
fn time_control_tag(live: &Game) -> String {
    live.clock.map_or_else(|| "-".to_string(), |c| format!("{}+{}", c.limit / 100, c.increment / 100))
}

/// Lichess's `Termination`: `Normal` for an end on the board or by the players (mate, resignation,
/// agreement, the variants' own ends), `Time forfeit`, `Abandoned` (a player left, or the game
/// was aborted), `Unterminated` while it is played. The exact reason is the API's `reason`.
fn termination_tag(live: &Game) -> &'static str {
    use super::Reason as R;
    if live.status.is_live() {
        return "Unterminated";
    }
    match live.reason {
        Some(R::Timeout | R::TimeoutDraw) => "Time forfeit",
        Some(R::Abandoned | R::AbandonedDraw | R::Aborted | R::NoStart) => "Abandoned",
        _ => "Normal",
    }
}

fn tag_value(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The movetext: the actions grouped by turn (a turn is one side's consecutive actions, so a Loot
/// Boxes equip stands with the action it precedes), a move number before each White turn, then
/// the result.
pub fn movetext(live: &Game) -> String {
    let mut tokens: Vec<String> = Vec::new();
    // A game from a position counts its moves on from the position's move number, as PGN does.
    let first: u32 = live
        .initial_fen
        .as_deref()
        .and_then(|f| f.split_ascii_whitespace().nth(5))
        .and_then(|n| n.parse().ok())
        .filter(|n| *n >= 1)
        .unwrap_or(1);
    let mut number = first - 1;
    let mut previous: Option<Color> = None;
    for a in &live.actions {
        if previous != Some(a.color) {
            match a.color {
                Color::White => {
                    number += 1;
                    tokens.push(format!("{number}."));
                }
                Color::Black if previous.is_none() => {
                    number += 1;
                    tokens.push(format!("{number}..."));
                }
                Color::Black => {}
            }
        }
        tokens.push(a.action.clone());
        previous = Some(a.color);
    }
    tokens.push(result_tag(live).to_string());
    let mut out = String::new();
    let mut line_len = 0;
    for t in tokens {
        if line_len > 0 && line_len + 1 + t.len() > LINE_WIDTH {
            out.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        line_len += t.len();
        out.push_str(&t);
    }
    out
}

/// The whole export: the tag pairs, an empty line, the movetext and a final newline. `site` is the
/// game's absolute address.
pub fn pgn(live: &Game, site: &str) -> String {
    let mut tags: Vec<(&str, String)> = Vec::new();
    let seat = |c: Color| live.seats[c.index()].as_ref();
    let name = |c: Color| seat(c).map_or_else(|| "?".to_string(), |s| s.name.clone());
    let elo = |c: Color| seat(c).and_then(|s| s.rating_before).map_or_else(|| "?".to_string(), |r| r.to_string());
    let diff = |c: Color| seat(c).and_then(|s| Some(s.rating_after? - s.rating_before?));
    let at = live.created_at.to_offset(time::UtcOffset::UTC);
    let date = format!("{:04}.{:02}.{:02}", at.year(), u8::from(at.month()), at.day());
    // Lichess names a standard game by its speed ("Rated Blitz game"), a variant's by the variant.
    let kind = if live.info.id == "standard" { super::Speed::of(live.clock).name() } else { live.info.name };
    tags.push(("Event", format!("{} {kind} game", if live.rated { "Rated" } else { "Casual" })));
    tags.push(("Site", site.to_string()));
    tags.push(("Date", date.clone()));
    tags.push(("White", name(Color::White)));
    tags.push(("Black", name(Color::Black)));
    tags.push(("Result", result_tag(live).to_string()));
    tags.push(("WhiteElo", elo(Color::White)));
    tags.push(("BlackElo", elo(Color::Black)));
    if let (Some(w), Some(b)) = (diff(Color::White), diff(Color::Black)) {
        tags.push(("WhiteRatingDiff", format!("{w:+}")));
        tags.push(("BlackRatingDiff", format!("{b:+}")));
    }
    tags.push(("UTCDate", date));
    tags.push(("UTCTime", format!("{:02}:{:02}:{:02}", at.hour(), at.minute(), at.second())));
    tags.push(("GameId", live.id.to_string()));
    tags.push(("Variant", live.info.name.to_string()));
    tags.push(("TimeControl", time_control_tag(live)));
    tags.push(("Termination", termination_tag(live).to_string()));
    if let Some(fen) = &live.initial_fen {
        // PGN's tags of a game from a position.
        tags.push(("SetUp", "1".to_string()));
        tags.push(("FEN", fen.clone()));
    }
    if let Some(c) = &live.commitment {
        tags.push(("SeedCommitment", c.clone()));
    }
    let (seed, salt) = live.revealed_seed();
    if let Some(s) = seed {
        tags.push(("Seed", s.to_string()));
    }
    if let Some(s) = salt {
        tags.push(("Salt", s));
    }
    let mut out = String::new();
    for (k, v) in tags {
        let _ = writeln!(out, "[{k} \"{}\"]", tag_value(&v));
    }
    out.push('\n');
    out.push_str(&movetext(live));
    out.push('\n');
    out
}

/// A file-name part: ASCII letters, digits, `-` and `_`; every other run of characters becomes
/// one `-` (a bot's "Chess Gold bot · level 3" is `Chess-Gold-bot-level-3`).
fn file_part(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_matches('-');
    if out.is_empty() { "unknown".to_string() } else { out.to_string() }
}

/// The download's name, as lichess names its exports:
/// `chessgold_{variant}_{white}_vs_{black}_{YYYY.MM.DD}_{gameId}.pgn`, safe characters only.
pub fn file_name(live: &Game) -> String {
    let name = |c: Color| live.seats[c.index()].as_ref().map_or("unknown", |s| s.name.as_str());
    let d = live.created_at.date();
    format!(
        "chessgold_{}_{}_vs_{}_{:04}.{:02}.{:02}_{}.pgn",
        file_part(live.info.id),
        file_part(name(Color::White)),
        file_part(name(Color::Black)),
        d.year(),
        u8::from(d.month()),
        d.day(),
        live.id
    )
}

/// `GET /game/export/{gameId}`: PGN-style text, or lichess's game JSON with
/// `Accept: application/json`.
///
/// # Errors
/// 404 (plain text) for an unknown id; database failures.
#[tracing::instrument(skip_all, fields(game.id = %path))]
pub async fn export(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    // Lichess's JSON error, whatever format was asked for: a client reads the status first.
    let not_found = || {
        HttpResponse::build(StatusCode::NOT_FOUND)
            .json(serde_json::json!({"error": "No such game", "code": "not_found"}))
    };
    let Some(id) = GameId::parse(&path) else { return Ok(not_found()) };
    let Some(live) = store::load(&state.pool, &id).await? else { return Ok(not_found()) };
    let wants_json = req
        .headers()
        .get(actix_web::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("application/json"));
    if wants_json {
        return Ok(HttpResponse::Ok().json(super::view::game_json(&live)));
    }
    let site = {
        let info = req.connection_info();
        format!("{}://{}/{}", info.scheme(), info.host(), id)
    };
    // A download with its name (a link or curl -OJ saves `chessgold_..._{id}.pgn`).
    let disposition = ContentDisposition {
        disposition: DispositionType::Attachment,
        parameters: vec![DispositionParam::Filename(file_name(&live))],
    };
    Ok(HttpResponse::Ok().content_type(PGN_CONTENT_TYPE).insert_header(disposition).body(pgn(&live, &site)))
}

#[cfg(test)]
mod tests {
    use chessgold_engine::registry::variant;
    use time::OffsetDateTime;

    use super::*;
    use crate::game::model::{ActionRec, Offers};
    use crate::game::{Reason, Status};

    fn finished(variant_id: &str, actions: &[(&str, Color)]) -> Game {
        let info = variant(variant_id).unwrap();
        Game {
            id: GameId::parse("abcdefgh").unwrap(),
            info,
            seed: None,
            salt: None,
            commitment: None,
            clock: None,
            rated: false,
            source: crate::game::Source::Friend,
            initial_fen: None,
            status: Status::Resign,
            winner: Some(Color::Black),
            reason: Some(Reason::Resign),
            version: 1,
            turns: 0,
            clocks: None,
            turn_at: None,
            offers: Offers::default(),
            rematch_id: None,
            created_at: OffsetDateTime::UNIX_EPOCH,
            started_at: None,
            finished_at: None,
            seats: [None, None],
            stored_seats: [None, None],
            actions: actions
                .iter()
                .enumerate()
                .map(|(i, (a, c))| ActionRec {
                    seq: i32::try_from(i).unwrap() + 1,
                    action: (*a).to_string(),
                    color: *c,
                    clocks: None,
                })
                .collect(),
            engine: info.new_game(),
        }
    }

    #[test]
    fn equips_stand_in_the_turn_of_the_action_they_precede() {
        use Color::{Black as B, White as W};
        let live = finished(
            "lootbox",
            &[("N@c3", W), ("e8e7", B), ("crossbow@c3", W), ("c3d5", W), ("shield@e7", B), ("e7e6", B), ("d5f6", W)],
        );
        assert_eq!(movetext(&live), "1. N@c3 e8e7 2. crossbow@c3 c3d5 shield@e7 e7e6 3. d5f6 0-1");
    }

    #[test]
    fn long_games_wrap_at_eighty_characters() {
        let moves: Vec<(&str, Color)> =
            (0..40).map(|i| if i % 2 == 0 { ("g1f3", Color::White) } else { ("g8f6", Color::Black) }).collect();
        let text = movetext(&finished("standard", &moves));
        assert!(text.lines().count() > 2);
        assert!(text.lines().all(|l| l.len() <= LINE_WIDTH && !l.starts_with(' ') && !l.ends_with(' ')));
        assert_eq!(text.split_whitespace().count(), 20 + 40 + 1);
        assert!(text.ends_with(" 0-1"));
    }

    #[test]
    fn file_names_keep_only_safe_characters() {
        assert_eq!(file_part("alice_B-2"), "alice_B-2");
        assert_eq!(file_part("Chess Gold bot · level 3"), "Chess-Gold-bot-level-3");
        assert_eq!(file_part("../\\x\"y"), "x-y");
        assert_eq!(file_part("··"), "unknown");
        let live = finished("lootbox", &[]);
        assert_eq!(file_name(&live), "chessgold_lootbox_unknown_vs_unknown_1970.01.01_abcdefgh.pgn");
    }

    #[test]
    fn the_tags_of_an_unlimited_casual_game_between_guests() {
        let live = finished("standard", &[("e2e4", Color::White)]);
        let text = pgn(&live, "http://x/abcdefgh");
        assert!(
            text.starts_with(
                "[Event \"Casual Correspondence game\"]\n[Site \"http://x/abcdefgh\"]\n[Date \"1970.01.01\"]\n"
            ),
            "{text}"
        );
        assert!(text.contains("[White \"?\"]\n[Black \"?\"]\n[Result \"0-1\"]\n[WhiteElo \"?\"]\n[BlackElo \"?\"]\n"));
        assert!(text.contains("[UTCDate \"1970.01.01\"]\n[UTCTime \"00:00:00\"]\n[GameId \"abcdefgh\"]\n"), "{text}");
        assert!(
            text.contains("[Variant \"Standard\"]\n[TimeControl \"-\"]\n[Termination \"Normal\"]\n\n1. e2e4 0-1\n"),
            "{text}"
        );
        assert!(!text.contains("RatingDiff") && !text.contains("Seed"));
        assert_eq!(tag_value(r#"a "b" \c"#), r#"a \"b\" \\c"#);
    }

    #[test]
    fn a_game_from_a_position_says_so_and_counts_on_from_it() {
        let mut live = finished("standard", &[("e8d8", Color::Black), ("e1e2", Color::White)]);
        live.initial_fen = Some("4k3/8/8/8/8/8/4P3/4K3 b - - 0 12".into());
        let text = pgn(&live, "s");
        assert!(text.contains("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 12\"]\n"), "{text}");
        assert_eq!(movetext(&live), "12... e8d8 13. e1e2 0-1");
    }

    #[test]
    fn terminations_take_lichess_words() {
        let mut live = finished("gold", &[]);
        assert!(pgn(&live, "s").contains("[Event \"Casual Chess Gold game\"]\n"));
        assert!(pgn(&live, "s").contains("[Variant \"Chess Gold\"]\n"));
        for (reason, word) in [
            (Reason::Checkmate, "Normal"),
            (Reason::KingKilled, "Normal"),
            (Reason::Agreement, "Normal"),
            (Reason::Timeout, "Time forfeit"),
            (Reason::TimeoutDraw, "Time forfeit"),
            (Reason::Abandoned, "Abandoned"),
            (Reason::Aborted, "Abandoned"),
        ] {
            live.reason = Some(reason);
            assert_eq!(termination_tag(&live), word, "{reason}");
        }
        live.status = crate::game::Status::Started;
        assert_eq!(termination_tag(&live), "Unterminated");
    }
}
