//! The HTTP side of live games: the "play with a friend" form, joining, the game page
//! `/{gameId}` and the game record as JSON.

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use chessgold_engine::Color;
use chessgold_engine::registry::{variant, variants};
use serde::Deserialize;
use serde_json::Value;
use time::OffsetDateTime;

use super::identity::Identity;
use super::model::{CreateGame, Game, Seat};
use super::round::commit_and_announce;
use super::store::{self, CommitError, CreateError};
use super::{GameId, Reason, Status, TIME_CONTROLS, TimeControl, random_base62};
use crate::auth::csrf::CsrfForm;
use crate::db;
use crate::error::{ApiError, PageError};
use crate::pages::{PageCtx, render, render_status};
use crate::rating::Perf;
use crate::startup::AppState;

/// The "play with a friend online" form.
#[derive(Debug, Template)]
#[template(path = "game/new.html")]
pub struct NewGamePage {
    /// Layout.
    pub ctx: PageCtx,
    /// (id, name) of every variant.
    pub variants: Vec<(&'static str, &'static str)>,
    /// `3+2`, ...
    pub times: Vec<String>,
    /// The form as sent, after an error.
    pub form: NewGameForm,
    /// What is wrong.
    pub error: Option<String>,
}

/// The form's fields.
#[derive(Debug, Clone, Deserialize)]
pub struct NewGameForm {
    #[serde(default)]
    csrf_token: String,
    /// Variant id.
    #[serde(default)]
    pub variant: String,
    /// `3+2` or `unlimited`.
    #[serde(default)]
    pub time: String,
    /// `casual` or `rated`.
    #[serde(default)]
    pub mode: String,
    /// `white`, `black` or `random`.
    #[serde(default)]
    pub color: String,
}

impl Default for NewGameForm {
    fn default() -> NewGameForm {
        NewGameForm {
            csrf_token: String::new(),
            variant: "gold".into(),
            time: "5+3".into(),
            mode: "casual".into(),
            color: "random".into(),
        }
    }
}

fn new_page(ctx: PageCtx, form: NewGameForm, error: Option<String>) -> NewGamePage {
    NewGamePage {
        ctx,
        variants: variants().iter().map(|v| (v.id, v.name)).collect(),
        times: TIME_CONTROLS.iter().map(|(m, s)| format!("{m}+{s}")).collect(),
        form,
        error,
    }
}

#[derive(Debug, Deserialize)]
pub(crate) struct NewQuery {
    variant: Option<String>,
}

#[tracing::instrument(skip_all)]
pub(crate) async fn new_form(session: Session, query: web::Query<NewQuery>) -> Result<HttpResponse, PageError> {
    let mut form = NewGameForm::default();
    if let Some(v) = query.variant.as_deref().and_then(variant) {
        form.variant = v.id.to_string();
    }
    render(&new_page(PageCtx::new(&session)?, form, None))
}

fn see_other(to: &str) -> HttpResponse {
    HttpResponse::SeeOther().insert_header((header::LOCATION, to.to_string())).finish()
}

#[tracing::instrument(skip_all)]
pub(crate) async fn create(
    state: web::Data<AppState>,
    session: Session,
    form: CsrfForm<NewGameForm>,
    identity: Identity,
) -> Result<HttpResponse, PageError> {
    let form = form.into_inner();
    let invalid = |msg: String| -> Result<HttpResponse, PageError> {
        render_status(&new_page(PageCtx::new(&session)?, form.clone(), Some(msg)), StatusCode::UNPROCESSABLE_ENTITY)
    };
    let Some(info) = variant(&form.variant) else {
        return invalid("Choose one of the listed variants.".into());
    };
    let clock = match TimeControl::parse_offer(&form.time) {
        Ok(c) => c,
        Err(e) => return invalid(format!("The time control is not offered: {e}.")),
    };
    let rated = match form.mode.as_str() {
        "rated" => true,
        "casual" => false,
        _ => return invalid("Choose casual or rated.".into()),
    };
    if rated && identity.user.is_none() {
        return invalid("Rated games are for registered players: sign in, or play a casual game.".into());
    }
    if rated && clock.is_none() {
        return invalid("Rated games need a time control; unlimited games are casual.".into());
    }
    let color = match form.color.as_str() {
        "white" => Color::White,
        "black" => Color::Black,
        "random" => {
            let mut b = [0u8; 1];
            getrandom::fill(&mut b).map_err(|e| anyhow::anyhow!("no randomness: {e}"))?;
            if b[0] & 1 == 0 { Color::White } else { Color::Black }
        }
        _ => return invalid("Choose white, black or random.".into()),
    };
    let (player, cookie) = identity.player(&state.guest_key, state.secure_cookies)?;
    if crate::api::bot::is_bot_account(&state, &player).await? {
        return invalid(crate::api::bot::PEOPLE_ONLY.into());
    }
    let request = CreateGame {
        variant: info.id.to_string(),
        clock,
        rated,
        source: crate::game::Source::Friend,
        initial_fen: None,
        creator: player,
        creator_color: color,
        opponent: None,
    };
    let id = match store::create_game(&state.pool, request, &state.game).await {
        Ok(id) => id,
        // A game waiting for its opponent is never refused as busy; the words are there all the same.
        Err(e @ (CreateError::Invalid(_) | CreateError::Busy(_))) => return invalid(e.to_string()),
        Err(CreateError::Other(e)) => return Err(PageError::Internal(e)),
    };
    let mut resp = see_other(&format!("/{id}"));
    if let Some(c) = cookie {
        resp.add_cookie(&c).map_err(|e| anyhow::anyhow!("setting the guest cookie: {e}"))?;
    }
    Ok(resp)
}

/// A form with only the CSRF token.
#[derive(Debug, Deserialize)]
pub struct TokenForm {
    #[serde(default)]
    csrf_token: String,
}

crate::csrf_field!(NewGameForm, TokenForm);

#[tracing::instrument(skip_all, fields(game.id = %path))]
pub(crate) async fn join(
    state: web::Data<AppState>,
    path: web::Path<String>,
    _checked: CsrfForm<TokenForm>,
    identity: Identity,
) -> Result<HttpResponse, PageError> {
    let id = GameId::parse(&path).ok_or(PageError::NotFound)?;
    let mut live = store::load(&state.pool, &id).await?.ok_or(PageError::NotFound)?;
    if identity.candidates().iter().any(|p| live.seat_of(p).is_some()) {
        return Ok(see_other(&format!("/{id}")));
    }
    if live.rated && identity.user.is_none() {
        return Ok(see_other(&format!("/login?next=/{id}")));
    }
    let (player, cookie) = identity.player(&state.guest_key, state.secure_cookies)?;
    let (user_id, guest_id, name) = match &player {
        super::PlayerRef::User(uid) => {
            (Some(*uid), None, identity.user.as_ref().map_or_else(String::new, |u| u.name.clone()))
        }
        super::PlayerRef::Guest(g) => (None, Some(g.clone()), "Anonymous".to_string()),
        super::PlayerRef::Bot(_) => return Err(PageError::BadRequest("a bot does not join games by a form".into())),
    };
    // The checks of a game made any other way (`store::create_game`): a play ban, a block
    // between the two accounts; and a BOT account does not join by the site's link.
    if crate::api::bot::is_bot_account(&state, &player).await? {
        return Err(PageError::Conflict(crate::api::bot::PEOPLE_ONLY.into()));
    }
    if let Some(uid) = user_id {
        if let Some(ban) = crate::moderation::playban::play_ban(&state.pool, uid).await? {
            return Err(PageError::Conflict(ban.message(OffsetDateTime::now_utc())));
        }
        for other in live.seats.iter().flatten().filter_map(|s| s.user_id) {
            if crate::moderation::blocks::is_blocked(&state.pool, uid, other).await? {
                return Err(PageError::Conflict("You cannot join this game: one of you blocks the other.".into()));
            }
        }
    }
    // Shown in casual games too; only rated games change it.
    let perf = match user_id {
        Some(uid) => Some(db::ratings::perf(&state.pool, uid, live.info.id).await?),
        None => None,
    };
    let seat = Seat {
        player_id: random_base62(4)?,
        user_id,
        guest_id,
        bot: None,
        name,
        rating_before: perf.map(|p| p.rating),
        rating_after: None,
        provisional: perf.is_some_and(Perf::provisional),
        lag_quota: state.game.lag_quota_cs,
        last_seen: None,
        account_bot: false,
    };
    let ctx = state.rounds.ctx().clone();
    let mut step = match live.join(seat, OffsetDateTime::now_utc(), &state.game) {
        Ok((_, step)) => step,
        Err(_) => {
            return Err(PageError::Conflict(
                "This game is no longer waiting for an opponent: someone else took the seat, or it was cancelled."
                    .into(),
            ));
        }
    };
    match commit_and_announce(&ctx, &mut live, &mut step).await {
        Ok(()) => {}
        Err(CommitError::Conflict) => {
            return Err(PageError::Conflict("Someone else joined this game a moment before you.".into()));
        }
        Err(CommitError::Busy(b)) => {
            let who = if identity.candidates().contains(&b.player) {
                "You are playing another game with a clock: finish it before you join this one.".to_string()
            } else {
                format!("{} is playing another game with a clock right now, so this game cannot start yet.", b.name)
            };
            return Err(PageError::Conflict(who));
        }
        Err(CommitError::Other(e)) => return Err(PageError::Internal(e)),
    }
    tracing::info!(game.id = %id, "game joined");
    let players: Vec<_> = live.seats.iter().flatten().filter_map(Seat::player).collect();
    let lobby = state.lobby_ctx();
    if let Err(e) = crate::lobby::players_started(&lobby, &players).await {
        tracing::warn!(error = format!("{e:#}"), "clearing the players' seeks failed");
    }
    let mut resp = see_other(&format!("/{id}"));
    if let Some(c) = cookie {
        resp.add_cookie(&c).map_err(|e| anyhow::anyhow!("setting the guest cookie: {e}"))?;
    }
    Ok(resp)
}

/// A player as the page shows them.
#[derive(Debug, Clone)]
pub struct PlayerView {
    /// `white` / `black`.
    pub color: &'static str,
    /// Name, or empty for a free seat.
    pub name: String,
    /// Registered.
    pub user: bool,
    /// The title (`BOT`), or empty.
    pub title: &'static str,
    /// `1500?`, or empty.
    pub rating: String,
    /// `+20`, or empty.
    pub diff: String,
    /// `5:00`, or empty for unlimited games.
    pub clock: String,
}

/// A chat line as the page shows it.
#[derive(Debug, Clone)]
pub struct ChatView {
    /// Author.
    pub author: String,
    /// Raw text (askama escapes it).
    pub text: String,
}

/// The game page.
#[derive(Debug, Template)]
#[template(path = "game/live.html")]
pub struct GamePage {
    /// Layout.
    pub ctx: PageCtx,
    /// Game id.
    pub id: String,
    /// Variant id.
    pub variant_id: &'static str,
    /// Variant name.
    pub variant_name: &'static str,
    /// `5+3 · Rated` etc.
    pub summary: String,
    /// The viewer's seat: `white`, `black`, or empty.
    pub you: &'static str,
    /// Status id.
    pub status_id: i16,
    /// Status name.
    pub status_name: &'static str,
    /// Waiting for an opponent.
    pub waiting: bool,
    /// The viewer may take the free seat.
    pub can_join: bool,
    /// The free seat needs an account (rated).
    pub join_needs_login: bool,
    /// Absolute invite link.
    pub invite: String,
    /// The top and bottom players (the viewer at the bottom).
    pub players: Vec<PlayerView>,
    /// `White wins by checkmate`, or empty while live.
    pub result: String,
    /// Seed and salt of a finished random game.
    pub seed: Option<String>,
    /// Hex salt.
    pub salt: Option<String>,
    /// Hex commitment.
    pub commitment: Option<String>,
    /// Room version of the page.
    pub version: i32,
    /// The `full` data as JSON, escaped for a script element.
    pub initial: String,
    /// Chat room of the viewer.
    pub chat_room: &'static str,
    /// Its last lines.
    pub chat: Vec<ChatView>,
    /// The rematch's id, once created.
    pub rematch: Option<String>,
    /// The page's title: "White vs Black in Variant".
    pub title: String,
    /// The accounts of the game a signed-in viewer may report from it (every account but theirs).
    pub reportable: Vec<String>,
    /// The reasons of the report form: (key, label).
    pub report_reasons: Vec<(&'static str, &'static str)>,
}

/// The site's name, as the page titles end.
const SITE_NAME: &str = "Chess Gold";

/// A game page's title as lichess writes it, "White vs Black in Variant", whoever looks: the site's
/// name is added once, unless the variant's name already says it ("Chess Gold: Loot Boxes").
pub fn game_title(white: &str, black: &str, variant: &str) -> String {
    let seat = |name: &str| if name.is_empty() { "(waiting)".to_string() } else { name.to_string() };
    let mut title = format!("{} vs {} in {variant}", seat(white), seat(black));
    if !variant.contains(SITE_NAME) {
        title.push_str(" · ");
        title.push_str(SITE_NAME);
    }
    title
}

fn clock_text(cs: i32) -> String {
    let secs = cs.max(0) / 100;
    format!("{}:{:02}", secs / 60, secs % 60)
}

/// The result as a sentence.
pub fn result_text(live: &Game) -> String {
    let who = |c: Color| if c == Color::White { "White" } else { "Black" };
    let reason = live.reason.map_or("", Reason::as_str).replace('-', " ");
    match (live.status, live.winner) {
        (Status::Created | Status::Started, _) => String::new(),
        (Status::Aborted, _) => "Game aborted".into(),
        (Status::NoStart, _) => "Game aborted: the first move did not come in time".into(),
        (Status::Resign, Some(w)) => format!("{} resigned: {} wins", who(!w), who(w)),
        (Status::Outoftime, Some(w)) => format!("{} ran out of time: {} wins", who(!w), who(w)),
        (Status::Outoftime, None) => "Draw: a clock ran out, but the opponent could not have won".into(),
        (Status::Timeout, Some(w)) => format!("{} left the game: {} wins", who(!w), who(w)),
        (Status::Mate, Some(w)) => format!("Checkmate: {} wins", who(w)),
        (Status::Stalemate, _) => "Draw by stalemate".into(),
        (Status::Draw, _) => format!("Draw ({reason})"),
        (_, Some(w)) => format!("{} wins ({reason})", who(w)),
        (_, None) => format!("Game over ({reason})"),
    }
}

/// JSON for a `<script type="application/json">` element.
fn script_json(v: &Value) -> String {
    v.to_string().replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026")
}

async fn render_game(
    req: &HttpRequest,
    state: &AppState,
    session: &Session,
    id: &GameId,
) -> Result<HttpResponse, PageError> {
    let live = store::load(&state.pool, id).await?.ok_or(PageError::NotFound)?;
    let identity = Identity::of(req, session, &state.guest_key);
    let you = identity.candidates().iter().find_map(|p| live.seat_of(p));
    let now = OffsetDateTime::now_utc();
    let clocks = live.clocks_at(now);
    let player = |c: Color| {
        let s = live.seats[c.index()].as_ref();
        PlayerView {
            color: c.name(),
            name: s.map_or_else(String::new, |s| s.name.clone()),
            user: s.is_some_and(|s| s.user_id.is_some()),
            title: s.and_then(Seat::title).unwrap_or_default(),
            rating: s
                .and_then(|s| s.rating_before.map(|r| format!("{r}{}", if s.provisional { "?" } else { "" })))
                .unwrap_or_default(),
            diff: s
                .and_then(|s| match (s.rating_before, s.rating_after) {
                    (Some(b), Some(a)) => Some(format!("{:+}", a - b)),
                    _ => None,
                })
                .unwrap_or_default(),
            clock: clocks.map(|c2| clock_text(c2[c.index()])).unwrap_or_default(),
        }
    };
    let seat_name = |c: Color| live.seats[c.index()].as_ref().map_or_else(String::new, |s| s.name.clone());
    let bottom = you.unwrap_or(Color::White);
    let waiting = live.status == Status::Created;
    let can_join = waiting && you.is_none() && !(live.rated && identity.user.is_none());
    let invite = {
        let info = req.connection_info();
        format!("{}://{}/{}", info.scheme(), info.host(), id)
    };
    let room = if you.is_some() { "player" } else { "spectator" };
    // As the socket's history: without the lines of the accounts the viewer blocks.
    let chat = match identity.user.as_ref() {
        Some(viewer) => db::games::recent_chat_for(&state.pool, id.as_str(), room, 50, viewer.id).await?,
        None => db::games::recent_chat(&state.pool, id.as_str(), room, 50).await?,
    };
    let chat = chat.into_iter().map(|l| ChatView { author: l.author, text: l.text }).collect();
    let reportable = match identity.user.as_ref() {
        Some(viewer) => live
            .seats
            .iter()
            .flatten()
            .filter(|s| s.user_id.is_some_and(|u| u != viewer.id))
            .map(|s| s.name.clone())
            .collect(),
        None => Vec::new(),
    };
    let (seed, salt) = live.revealed_seed();
    let time = live.clock.map_or_else(|| "Unlimited".to_string(), |c| c.show());
    let page = GamePage {
        ctx: PageCtx::new(session)?,
        id: id.to_string(),
        variant_id: live.info.id,
        variant_name: live.info.name,
        summary: format!("{time} · {}", if live.rated { "Rated" } else { "Casual" }),
        you: you.map_or("", Color::name),
        status_id: live.status.id(),
        status_name: live.status.name(),
        waiting,
        can_join,
        join_needs_login: waiting && you.is_none() && live.rated && identity.user.is_none(),
        invite,
        players: vec![player(!bottom), player(bottom)],
        result: result_text(&live),
        seed: seed.map(|s| s.to_string()),
        salt,
        commitment: live.commitment.clone(),
        version: live.version,
        initial: script_json(&super::view::value(&super::view::full(&live, you, now, &state.game))),
        chat_room: room,
        chat,
        rematch: live.rematch_id.clone(),
        title: game_title(&seat_name(Color::White), &seat_name(Color::Black), live.info.name),
        reportable,
        report_reasons: crate::moderation::reports::ReportReason::ALL.iter().map(|r| (r.as_str(), r.label())).collect(),
    };
    render(&page)
}

#[tracing::instrument(skip_all, fields(game.id = %path))]
pub(crate) async fn page(
    req: HttpRequest,
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let id = GameId::parse(&path).ok_or(PageError::NotFound)?;
    render_game(&req, &state, &session, &id).await
}

#[tracing::instrument(skip_all)]
pub(crate) async fn player_page(
    req: HttpRequest,
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
    identity: Identity,
) -> Result<HttpResponse, PageError> {
    let (game, player) = path.split_at(8);
    let id = GameId::parse(game).ok_or(PageError::NotFound)?;
    let live = store::load(&state.pool, &id).await?.ok_or(PageError::NotFound)?;
    let mine = identity
        .candidates()
        .iter()
        .find_map(|p| live.seat_of(p))
        .and_then(|c| live.seats[c.index()].as_ref())
        .is_some_and(|s| s.player_id == player);
    if !mine {
        return Ok(see_other(&format!("/{id}")));
    }
    render_game(&req, &state, &session, &id).await
}

/// `GET /api/game/{id}`: the record of a game.
///
/// # Errors
/// 404 for an unknown game.
#[tracing::instrument(skip_all, fields(game.id = %path))]
pub async fn export(state: web::Data<AppState>, path: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let not_found = || ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such game");
    let id = GameId::parse(&path).ok_or_else(not_found)?;
    let live = store::load(&state.pool, &id)
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", format!("{e:#}")))?
        .ok_or_else(not_found)?;
    Ok(HttpResponse::Ok().json(super::view::record(&live)))
}

#[cfg(test)]
mod tests {
    use super::game_title;

    #[test]
    fn a_game_title_names_white_then_black_then_the_variant_and_the_site_once() {
        assert_eq!(game_title("alice", "bob", "Standard"), "alice vs bob in Standard · Chess Gold");
        assert_eq!(game_title("alice", "bob", "Chess Gold"), "alice vs bob in Chess Gold");
        assert_eq!(game_title("alice", "", "Chess Gold: Loot Boxes"), "alice vs (waiting) in Chess Gold: Loot Boxes");
    }
}
