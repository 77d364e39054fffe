//! The board API (lichess's `/api/board/...`) and the BOT API (`/api/bot/game/...`): stream a
//! game being played, and play it over HTTP. The two are the same calls for two kinds of account
//! (each handler is generic over its [`Scope`], which says which accounts it serves); every
//! action goes to the game's round, exactly like a socket's: judged by the engine, committed,
//! then announced.

use std::sync::Arc;
use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::{Value, json};
use time::OffsetDateTime;
use tokio::sync::mpsc;

use super::auth::{ApiUser, Scope, Scoped};
use super::lichess::{self, BoardState, internal, line, ndjson, not_found, parse_body};
use crate::error::ApiError;
use crate::game::model::{Game, PlayerRef};
use crate::game::protocol::{Command, Room};
use crate::game::refusal::RefusalCode;
use crate::game::round::{ApiOp, ApiRefusal, JoinRequest, Msg};
use crate::game::{GameId, store};
use crate::startup::AppState;

/// Seconds between keep-alive newlines of a stream.
pub const KEEP_ALIVE: Duration = Duration::from_secs(7);
/// How often a board stream tells the round its player is still there.
const ALIVE_EVERY: Duration = Duration::from_secs(3);

fn game_id(text: &str) -> Result<GameId, ApiError> {
    GameId::parse(text).ok_or_else(|| not_found("No such game"))
}

/// A round's refusal as an HTTP answer.
fn refused(e: ApiRefusal) -> ApiError {
    let status = match e.code {
        RefusalCode::NotFound | RefusalCode::NotAPlayer => StatusCode::NOT_FOUND,
        RefusalCode::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::BAD_REQUEST,
    };
    ApiError::new(status, e.code.as_str(), e.message)
}

async fn run(state: &AppState, user: &ApiUser, id: &str, op: ApiOp) -> Result<HttpResponse, ApiError> {
    let id = game_id(id)?;
    state
        .rounds
        .api(&id, vec![PlayerRef::User(user.id)], user.name.clone(), Some(user.id), op)
        .await
        .map_err(refused)?;
    Ok(HttpResponse::Ok().json(json!({"ok": true})))
}

/// The query of a move.
#[derive(Debug, Deserialize)]
struct MoveQuery {
    /// Offer (or accept) a draw with the move, as lichess's `offeringDraw=true`.
    #[serde(default, rename = "offeringDraw")]
    offering_draw: Option<String>,
}

/// `POST /api/{board|bot}/game/{id}/move/{action}[?offeringDraw=true]`.
#[tracing::instrument(skip_all, fields(game.id = %path.0))]
pub(crate) async fn play<A: Scope>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
    user: Scoped<A>,
) -> Result<HttpResponse, ApiError> {
    let (id, action) = path.into_inner();
    if action.len() > 32 {
        return Err(ApiError::bad_request(RefusalCode::MalformedAction.as_str(), "an action has at most 32 bytes"));
    }
    let query = web::Query::<MoveQuery>::from_query(req.query_string())
        .map_err(|e| ApiError::bad_request("bad_query", e.to_string()))?;
    let offering_draw = lichess::flag(query.offering_draw.as_deref(), "offeringDraw", false)?;
    let answer = run(&state, &user, &id, ApiOp::Action(action)).await?;
    if offering_draw {
        // The move stands whatever becomes of the offer (a move that ends the game leaves
        // nothing to offer a draw in), so the answer is the move's.
        if let Err(e) = run(&state, &user, &id, ApiOp::Command(Command::DrawYes)).await {
            tracing::info!(game.id = %id, error = %e.message, "a draw offer with a move was not made");
        }
    }
    Ok(answer)
}

async fn command(state: &AppState, user: &ApiUser, id: &str, command: Command) -> Result<HttpResponse, ApiError> {
    run(state, user, id, ApiOp::Command(command)).await
}

/// Declares handlers that run one fixed command (`POST /api/{board|bot}/game/{id}/...`).
macro_rules! command_routes {
    ($( $(#[$doc:meta])* $name:ident => $command:expr; )*) => {$(
        $(#[$doc])*
        pub(crate) async fn $name<A: Scope>(
            state: web::Data<AppState>,
            path: web::Path<String>,
            user: Scoped<A>,
        ) -> Result<HttpResponse, ApiError> {
            command(&state, &user, &path, $command).await
        }
    )*};
}

command_routes! {
    /// `POST /api/{board|bot}/game/{id}/resign`.
    resign => Command::Resign;
    /// `POST /api/{board|bot}/game/{id}/abort`.
    abort => Command::Abort;
    /// `POST /api/{board|bot}/game/{id}/claim-victory`: the opponent left and did not come back
    /// in time (`opponentGone` with `claimWinInSeconds: 0`).
    claim_victory => Command::ClaimVictory;
    /// `POST /api/{board|bot}/game/{id}/claim-draw`: call a draw with an opponent who left.
    claim_draw => Command::ClaimDraw;
}

fn yes_no(answer: &str) -> Result<bool, ApiError> {
    match answer {
        "yes" | "true" => Ok(true),
        "no" | "false" => Ok(false),
        _ => Err(ApiError::bad_request("bad_answer", "answer yes or no")),
    }
}

/// `POST /api/{board|bot}/game/{id}/draw/{yes|no}`.
pub(crate) async fn draw<A: Scope>(
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
    user: Scoped<A>,
) -> Result<HttpResponse, ApiError> {
    let (id, answer) = path.into_inner();
    let c = if yes_no(&answer)? { Command::DrawYes } else { Command::DrawNo };
    command(&state, &user, &id, c).await
}

/// `POST /api/{board|bot}/game/{id}/takeback/{yes|no}`.
pub(crate) async fn takeback<A: Scope>(
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
    user: Scoped<A>,
) -> Result<HttpResponse, ApiError> {
    let (id, answer) = path.into_inner();
    let c = if yes_no(&answer)? { Command::TakebackYes } else { Command::TakebackNo };
    command(&state, &user, &id, c).await
}

#[derive(Debug, Deserialize)]
struct ChatBody {
    room: String,
    text: String,
}

/// `POST /api/{board|bot}/game/{id}/chat` with `room` (`player` or `spectator`) and `text`: a
/// player may write to the opponent or, as on lichess, to the spectators.
pub(crate) async fn chat<A: Scope>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
    body: web::Bytes,
    user: Scoped<A>,
) -> Result<HttpResponse, ApiError> {
    let b: ChatBody = parse_body(&req, &body)?;
    let room = match b.room.as_str() {
        "player" => Room::Player,
        "spectator" => Room::Spectator,
        _ => return Err(ApiError::bad_request("bad_room", "the room is 'player' or 'spectator'")),
    };
    if let Err(wait) = state.limiters.api_chat(user.id) {
        let mut e = ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            RefusalCode::ChatFlood.as_str(),
            format!("at most 5 lines per 10 s; wait {wait} s"),
        );
        e.retry_after = Some(wait);
        return Err(e);
    }
    run(&state, &user, &path, ApiOp::Chat(room, b.text)).await
}

/// A game the caller plays in; `404` for any other.
async fn game_of(state: &AppState, id: &str, user: &ApiUser) -> Result<Game, ApiError> {
    let id = game_id(id)?;
    let live =
        store::load(&state.pool, &id).await.map_err(|e| internal(&e))?.ok_or_else(|| not_found("No such game"))?;
    if live.seat_of(&PlayerRef::User(user.id)).is_none() {
        return Err(not_found("No such game of yours"));
    }
    Ok(live)
}

/// Most lines `GET /api/{board|bot}/game/{id}/chat` answers.
const CHAT_HISTORY: i64 = 200;

/// `GET /api/{board|bot}/game/{id}/chat`: the players' room of a game of the caller, oldest line
/// first, as lichess's `[{"text", "user"}]` (without the lines of players the caller blocks, and
/// shadow-muted lines only to their author).
pub(crate) async fn chat_history<A: Scope>(
    state: web::Data<AppState>,
    path: web::Path<String>,
    user: Scoped<A>,
) -> Result<HttpResponse, ApiError> {
    let live = game_of(&state, &path, &user).await?;
    let lines =
        crate::db::games::recent_chat_for(&state.pool, live.id.as_str(), Room::Player.as_str(), CHAT_HISTORY, user.id)
            .await
            .map_err(|e| internal(&e))?;
    let out: Vec<Value> = lines.iter().map(|l| json!({"text": l.text, "user": l.author})).collect();
    Ok(HttpResponse::Ok().json(out))
}

/// `GET /api/{board|bot}/game/stream/{id}`: `gameFull`, then a `gameState` per change and
/// `chatLine`s, until the game ends.
#[tracing::instrument(skip_all, fields(game.id = %path))]
pub(crate) async fn stream<A: Scope>(
    state: web::Data<AppState>,
    path: web::Path<String>,
    user: Scoped<A>,
) -> Result<HttpResponse, ApiError> {
    let live = game_of(&state, &path, &user).await?;
    let (tx, rx) = mpsc::channel::<String>(256);
    tokio::spawn(follow(state.into_inner(), user.user, live, tx));
    Ok(ndjson(rx))
}

async fn follow(state: Arc<AppState>, user: ApiUser, live: Game, out: mpsc::Sender<String>) {
    let now = OffsetDateTime::now_utc();
    if out.send(line(&lichess::game_full(&live, now))).await.is_err() {
        return;
    }
    let mut board = BoardState::of(&live, now);
    if board.over() {
        return;
    }
    let mut gone = Gone::new(live.seat_of(&PlayerRef::User(user.id)), state.game.claim_after_secs);
    let conn = state.rounds.next_id();
    let (tx, mut rx) = mpsc::channel::<String>(256);
    let request = JoinRequest {
        who: vec![PlayerRef::User(user.id)],
        name: user.name.clone(),
        user_id: Some(user.id),
        since: Some(live.version),
        tx,
    };
    let Ok((round, _)) = state.rounds.join(&live.id, conn, request).await else { return };
    let mut keep_alive = tokio::time::interval(KEEP_ALIVE);
    keep_alive.tick().await;
    let mut alive = tokio::time::interval(ALIVE_EVERY);
    loop {
        let claimable = gone.claimable_at;
        tokio::select! {
            msg = rx.recv() => {
                let Some(text) = msg else { break };
                let Ok(msg) = serde_json::from_str::<RoundMsg>(&text) else { continue };
                let lines = match msg {
                    RoundMsg::Crowd(d) => gone.update(&d, board.over()).into_iter().collect(),
                    other => translate(&mut board, other),
                };
                let mut gone = false;
                for l in lines {
                    if out.send(line(&l)).await.is_err() {
                        gone = true;
                        break;
                    }
                }
                if gone || board.over() {
                    break;
                }
            }
            () = sleep_until(claimable) => {
                gone.claimable_at = None;
                if !board.over() && out.send(line(&gone_line(true, Some(0)))).await.is_err() { break }
            }
            _ = keep_alive.tick() => if out.send("\n".to_string()).await.is_err() { break },
            _ = alive.tick() => if round.send(Msg::Alive { conn }).await.is_err() { break },
            () = out.closed() => break,
        }
    }
    let _ = round.send(Msg::Leave { conn }).await;
}

/// Sleeps until `at`, or forever without one.
async fn sleep_until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// Lichess's `opponentGone` line.
fn gone_line(gone: bool, claim_in: Option<i64>) -> Value {
    match claim_in {
        Some(s) if gone => json!({"type": "opponentGone", "gone": true, "claimWinInSeconds": s}),
        _ => json!({"type": "opponentGone", "gone": gone}),
    }
}

/// Seconds an opponent must have been away before a stream says they are gone: a player whose
/// stream is just opening (at the start of a game, or reconnecting) is not gone.
const GONE_AFTER_SECS: i64 = 5;

/// Whether the stream's player's opponent is gone, from the round's `crowd` messages (sent
/// every second while someone is away): an `opponentGone` line when that changes, with the seconds left before a win may be claimed,
/// and another (`claimWinInSeconds: 0`) once it may.
#[derive(Debug)]
struct Gone {
    /// The opponent's colour (none for a stream of a seatless caller).
    opponent: Option<chessgold_engine::Color>,
    /// Seconds away after which the win may be claimed.
    claim_after: i64,
    /// Whether the opponent was last told gone.
    told_gone: bool,
    /// When the claim becomes possible, while the opponent is away.
    claimable_at: Option<tokio::time::Instant>,
}

impl Gone {
    fn new(me: Option<chessgold_engine::Color>, claim_after_secs: u32) -> Gone {
        Gone {
            opponent: me.map(|c| !c),
            claim_after: i64::from(claim_after_secs),
            told_gone: false,
            claimable_at: None,
        }
    }

    /// The line a `crowd` message calls for, if any.
    fn update(&mut self, crowd: &Value, over: bool) -> Option<Value> {
        let opponent = self.opponent?;
        if over {
            return None;
        }
        let here = crowd.get(opponent.name()).and_then(Value::as_bool).unwrap_or(true);
        let away = crowd.pointer(&format!("/away/{}", opponent.name())).and_then(Value::as_i64).unwrap_or(0);
        let gone = !here && away >= GONE_AFTER_SECS;
        if gone == self.told_gone || (!gone && !here) {
            // No change; or away for too short a time to tell, which is not a return either.
            return None;
        }
        self.told_gone = gone;
        if !gone {
            self.claimable_at = None;
            return Some(gone_line(false, None));
        }
        let left = (self.claim_after - away).max(0);
        self.claimable_at =
            (left > 0).then(|| tokio::time::Instant::now() + Duration::from_secs(u64::try_from(left).unwrap_or(0)));
        Some(gone_line(true, Some(left)))
    }
}

/// The round's socket messages a board stream reads (`docs/api.md`, WebSocket), by their `t`;
/// it skips the others (`chat_history`, `ack`, ...), which do not read as one of these.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "t", content = "d", rename_all = "snake_case")]
enum RoundMsg {
    /// The whole game.
    Full(Value),
    /// The opponent joined.
    Start(Value),
    /// An action.
    Move(Value),
    /// Actions taken back.
    Takeback(Value),
    /// Who offers what.
    Offers(Value),
    /// The end.
    End(Value),
    /// The clocks after replayed events.
    Clocks(Value),
    /// A chat line.
    Chat(Value),
    /// Who is connected (read by [`Gone`]).
    Crowd(Value),
}

/// Whether a `move` event's position (its state, whole or as a patch) is one where the game is
/// over: the engine's `status` is no longer `ongoing`.
fn ends_the_game(d: &Value) -> bool {
    let over = |s: &Value| s.as_str().is_some_and(|s| s != "ongoing");
    if let Some(s) = d.pointer("/state/status") {
        return over(s);
    }
    d.get("patch")
        .and_then(Value::as_array)
        .is_some_and(|ops| ops.iter().any(|op| op["path"] == "/status" && op.get("value").is_some_and(over)))
}

/// What a socket message of the round means for a board stream: `gameState` and `chatLine`
/// lines.
fn translate(board: &mut BoardState, msg: RoundMsg) -> Vec<Value> {
    match msg {
        RoundMsg::Move(d) | RoundMsg::Takeback(d) => {
            // The state comes whole or as a patch: the moves follow from the event itself (a
            // move's number and action, the actions left after a takeback).
            if let Some(actions) = d.pointer("/state/actions").and_then(Value::as_array) {
                board.moves = actions.iter().filter_map(Value::as_str).map(str::to_string).collect();
            } else if let (Some(seq), Some(action)) =
                (d.get("seq").and_then(Value::as_u64), d.get("action").and_then(Value::as_str))
            {
                board.moves.truncate(usize::try_from(seq).unwrap_or(usize::MAX).saturating_sub(1));
                board.moves.push(action.to_string());
            } else if let Some(plies) = d.get("plies").and_then(Value::as_u64) {
                board.moves.truncate(usize::try_from(plies).unwrap_or(usize::MAX));
            }
            if let Some(c) = d.get("clocks") {
                board.set_clocks(c);
            }
            // A move that ends the game (a mate, a variant's end) is told with the end, which
            // the round sends in the same step: one `gameState` with the result, as on lichess,
            // so that a client never sees a finished position in a game still `started`.
            if ends_the_game(&d) { Vec::new() } else { vec![board.json()] }
        }
        RoundMsg::Offers(d) => {
            board.set_offers(&d);
            vec![board.json()]
        }
        RoundMsg::Start(d) => {
            if let Some(id) = d.pointer("/status/id").and_then(Value::as_i64) {
                board.status = lichess::status_name_of_id(id).to_string();
            }
            if let Some(c) = d.get("clocks") {
                board.set_clocks(c);
            }
            vec![board.json()]
        }
        RoundMsg::End(d) => {
            if let Some(id) = d.pointer("/status/id").and_then(Value::as_i64) {
                board.status = lichess::status_name_of_id(id).to_string();
            }
            board.winner = d.get("winner").and_then(Value::as_str).map(str::to_string);
            if let Some(c) = d.get("clocks") {
                board.set_clocks(c);
            }
            board.draw = [false; 2];
            board.takeback = [false; 2];
            vec![board.json()]
        }
        RoundMsg::Full(d) => {
            if let Some(actions) = d.pointer("/state/actions").and_then(Value::as_array) {
                board.moves = actions.iter().filter_map(Value::as_str).map(str::to_string).collect();
            }
            if let Some(id) = d.pointer("/status/id").and_then(Value::as_i64) {
                board.status = lichess::status_name_of_id(id).to_string();
            }
            board.winner = d.get("winner").and_then(Value::as_str).map(str::to_string);
            if let Some(c) = d.get("clocks") {
                board.set_clocks(c);
            }
            if let Some(o) = d.get("offers") {
                board.set_offers(o);
            }
            vec![board.json()]
        }
        RoundMsg::Clocks(d) => {
            board.set_clocks(&d);
            Vec::new()
        }
        RoundMsg::Crowd(_) => Vec::new(),
        RoundMsg::Chat(d) => {
            let room = d.get("room").cloned().unwrap_or(Value::Null);
            let author = d.pointer("/line/author").cloned().unwrap_or(Value::Null);
            let text = d.pointer("/line/text").cloned().unwrap_or(Value::Null);
            vec![json!({"type": "chatLine", "room": room, "username": author, "text": text})]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opponent_away_is_told_once_with_the_seconds_to_a_claim() {
        let mut g = Gone::new(Some(chessgold_engine::Color::White), 30);
        assert_eq!(g.update(&json!({"white": true, "black": true, "away": {}}), false), None);
        let me_away = g.update(&json!({"white": false, "black": true, "away": {"white": 12}}), false);
        assert_eq!(me_away, None, "white is the stream's player, not the opponent");
        let mut g = Gone::new(Some(chessgold_engine::Color::Black), 30);
        let brief = g.update(&json!({"white": false, "black": true, "away": {"white": 2}}), false);
        assert_eq!(brief, None, "away for two seconds is not gone yet");
        let gone = g.update(&json!({"white": false, "black": true, "away": {"white": 12}}), false).unwrap();
        assert_eq!(gone, json!({"type": "opponentGone", "gone": true, "claimWinInSeconds": 18}));
        assert!(g.claimable_at.is_some());
        assert_eq!(g.update(&json!({"white": false, "black": true, "away": {"white": 14}}), false), None, "told once");
        let back = g.update(&json!({"white": true, "black": true, "away": {}}), false).unwrap();
        assert_eq!(back, json!({"type": "opponentGone", "gone": false}));
        assert!(g.claimable_at.is_none());
        let late = g.update(&json!({"white": false, "black": true, "away": {"white": 45}}), false).unwrap();
        assert_eq!(late["claimWinInSeconds"], 0);
        assert!(g.claimable_at.is_none(), "already claimable: nothing to wait for");
        let mut over = Gone::new(Some(chessgold_engine::Color::Black), 30);
        assert_eq!(over.update(&json!({"white": false, "black": true, "away": {"white": 1}}), true), None);
    }

    #[test]
    fn socket_events_become_game_states() {
        let mut b = BoardState { status: "started".into(), ..BoardState::default() };
        let mv = json!({"t": "move", "v": 4, "d": {"seq": 1, "action": "e2e4", "by": "white",
            "clocks": {"white": 29000, "black": 30000}, "state": {"actions": ["e2e4"]}}});
        let read = |v: Value| serde_json::from_value::<RoundMsg>(v).unwrap();
        let out = translate(&mut b, read(mv));
        assert_eq!(out[0]["moves"], "e2e4");
        assert_eq!(out[0]["wtime"], 290_000);
        // A move sent with a patch of the state, and a takeback.
        let mv = json!({"t": "move", "v": 5, "d": {"seq": 2, "action": "e7e5", "by": "black",
            "clocks": {"white": 29000, "black": 29500}, "patch": [{"op": "add", "path": "/actions/1", "value": "e7e5"}]}});
        assert_eq!(translate(&mut b, read(mv))[0]["moves"], "e2e4 e7e5");
        let tb = json!({"t": "takeback", "v": 6, "d": {"plies": 1, "clocks": {"white": 29000, "black": 29500}, "patch": []}});
        assert_eq!(translate(&mut b, read(tb))[0]["moves"], "e2e4");
        let end = json!({"t": "end", "v": 5, "d": {"status": {"id": 31, "name": "resign"}, "winner": "black"}});
        let out = translate(&mut b, read(end));
        assert_eq!(out[0]["status"], "resign");
        assert_eq!(out[0]["winner"], "black");
        assert!(b.over());
        let chat = json!({"t": "chat", "d": {"room": "player", "line": {"author": "a", "text": "gg"}}});
        assert_eq!(translate(&mut b, read(chat))[0]["type"], "chatLine");
        // A mating move waits for the end of its step: one state, with the result.
        let mut b = BoardState { status: "started".into(), moves: vec!["f2f3".into()], ..BoardState::default() };
        for (mv, patch) in [
            (
                "d8h4",
                json!([{"op": "add", "path": "/actions/3", "value": "d8h4"},
                            {"op": "replace", "path": "/status", "value": "checkmate"}]),
            ),
            ("d8h4", json!([{"op": "add", "path": "/actions/3", "value": "d8h4"}])),
        ] {
            let m = json!({"t": "move", "v": 9, "d": {"seq": 4, "action": mv, "by": "black",
                "clocks": {"white": 29000, "black": 29500}, "patch": patch}});
            let ends = patch.as_array().unwrap().len() == 2;
            assert_eq!(translate(&mut b.clone(), read(m)).is_empty(), ends, "{patch}");
        }
        let whole = json!({"t": "move", "v": 9, "d": {"seq": 2, "action": "d8h4", "by": "black",
            "clocks": {"white": 29000, "black": 29500}, "state": {"actions": ["f2f3", "d8h4"], "status": "checkmate"}}});
        assert!(translate(&mut b, read(whole)).is_empty());
        let end = json!({"t": "end", "v": 10, "d": {"status": {"id": 30, "name": "mate"}, "winner": "black"}});
        let out = translate(&mut b, read(end));
        assert_eq!((out[0]["moves"].as_str(), out[0]["status"].as_str()), (Some("f2f3 d8h4"), Some("mate")));
        // What a board stream does not read is not one of its messages.
        for other in [json!({"t": "pong"}), json!({"t": "ack", "d": 3})] {
            assert!(serde_json::from_value::<RoundMsg>(other.clone()).is_err(), "{other}");
        }
    }
}
