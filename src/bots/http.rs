//! "Play with the computer": the form (variant, level, time control, colour) that starts a
//! casual game against a bot at once.

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpResponse, web};
use askama::Template;
use chessgold_bot::{LEVELS, Level};
use chessgold_engine::Color;
use chessgold_engine::registry::{variant, variants};
use serde::Deserialize;

use crate::auth::csrf::CsrfForm;
use crate::error::PageError;
use crate::game::identity::Identity;
use crate::game::store::CreateError;
use crate::game::{TIME_CONTROLS, TimeControl};
use crate::pages::{PageCtx, render, render_status};
use crate::startup::AppState;

/// A variant in the form's list.
#[derive(Debug, Clone)]
pub struct VariantChoice {
    /// Id.
    pub id: &'static str,
    /// Name.
    pub name: &'static str,
    /// Whether the bot plays it (the others are listed as unavailable).
    pub available: bool,
}

/// A level in the form's list.
#[derive(Debug, Clone)]
pub struct LevelChoice {
    /// 1 to 8.
    pub number: u8,
    /// `Casual`, ...
    pub name: &'static str,
    /// Estimated rating.
    pub rating: u32,
}

/// The "play with the computer" page.
#[derive(Debug, Template)]
#[template(path = "game/computer.html")]
pub struct ComputerPage {
    /// Layout.
    pub ctx: PageCtx,
    /// Every variant, with whether the bot plays it.
    pub variants: Vec<VariantChoice>,
    /// The eight levels.
    pub levels: Vec<LevelChoice>,
    /// `3+2`, ...
    pub times: Vec<String>,
    /// The form as sent, after an error.
    pub form: ComputerForm,
    /// What is wrong.
    pub error: Option<String>,
}

/// The form's fields.
#[derive(Debug, Clone, Deserialize)]
pub struct ComputerForm {
    #[serde(default)]
    csrf_token: String,
    /// Variant id.
    #[serde(default)]
    pub variant: String,
    /// `1` to `8`.
    #[serde(default)]
    pub level: String,
    /// `3+2` or `unlimited`.
    #[serde(default)]
    pub time: String,
    /// `white`, `black` or `random`.
    #[serde(default)]
    pub color: String,
}

crate::csrf_field!(ComputerForm);

impl Default for ComputerForm {
    fn default() -> ComputerForm {
        ComputerForm {
            csrf_token: String::new(),
            variant: "gold".into(),
            level: "3".into(),
            time: "10+5".into(),
            color: "random".into(),
        }
    }
}

fn page(ctx: PageCtx, form: ComputerForm, error: Option<String>) -> ComputerPage {
    ComputerPage {
        ctx,
        variants: variants()
            .iter()
            .map(|v| VariantChoice { id: v.id, name: v.name, available: super::plays(v.id) })
            .collect(),
        levels: LEVELS.iter().map(|l| LevelChoice { number: l.level, name: l.name, rating: l.rating }).collect(),
        times: TIME_CONTROLS.iter().map(|(m, s)| format!("{m}+{s}")).collect(),
        form,
        error,
    }
}

#[derive(Debug, Deserialize)]
pub(crate) struct FormQuery {
    variant: Option<String>,
}

#[tracing::instrument(skip_all)]
pub(crate) async fn form(session: Session, query: web::Query<FormQuery>) -> Result<HttpResponse, PageError> {
    let mut form = ComputerForm::default();
    if let Some(v) = query.variant.as_deref().and_then(variant).filter(|v| super::plays(v.id)) {
        form.variant = v.id.to_string();
    }
    render(&page(PageCtx::new(&session)?, form, None))
}

/// Starts a game of `player` against the computer at `level` on `terms` (its variant, clock and
/// start position): casual, as every game against it, with `player` in `color`; their seeks
/// go, as when any game starts. The site's form and
/// `POST /api/challenge/ai` both start theirs here.
///
/// # Errors
/// As [`crate::game::store::create_game`].
pub(crate) async fn start_game(
    state: &crate::startup::AppState,
    player: crate::game::PlayerRef,
    terms: &crate::lobby::challenge::Terms,
    level: Level,
    color: chessgold_engine::Color,
) -> Result<crate::game::GameId, crate::game::store::CreateError> {
    let request = crate::game::CreateGame {
        variant: terms.variant.clone(),
        clock: terms.clock,
        rated: false,
        source: crate::game::Source::Ai,
        initial_fen: terms.initial_fen.clone(),
        creator: player.clone(),
        creator_color: color,
        opponent: Some(crate::game::PlayerRef::Bot(level)),
    };
    let id = crate::game::store::create_game(&state.pool, request, &state.game).await?;
    tracing::info!(game.id = %id, bot.level = level.number(), "bot game started");
    crate::lobby::game_started(&state.lobby_ctx(), &[player], &id).await;
    Ok(id)
}

#[tracing::instrument(skip_all)]
pub(crate) async fn create(
    state: web::Data<AppState>,
    session: Session,
    form: CsrfForm<ComputerForm>,
    identity: Identity,
) -> Result<HttpResponse, PageError> {
    let form = form.into_inner();
    let invalid = |msg: String| -> Result<HttpResponse, PageError> {
        render_status(&page(PageCtx::new(&session)?, form.clone(), Some(msg)), StatusCode::UNPROCESSABLE_ENTITY)
    };
    let Some(info) = variant(&form.variant) else {
        return invalid("Choose one of the listed variants.".into());
    };
    if !super::plays(info.id) {
        return invalid(format!("The computer does not play {} yet: choose another variant.", info.name));
    }
    let Ok(level) = form.level.parse::<Level>() else {
        return invalid("Choose a level from 1 to 8.".into());
    };
    let clock = match TimeControl::parse_offer(&form.time) {
        Ok(c) => c,
        Err(e) => return invalid(format!("The time control is not offered: {e}.")),
    };
    let color = match form.color.as_str() {
        "white" => Color::White,
        "black" => Color::Black,
        "random" => crate::lobby::random_color()?,
        _ => return invalid("Choose white, black or random.".into()),
    };
    let (player, cookie) = identity.player(&state.guest_key, state.secure_cookies)?;
    if crate::api::bot::is_bot_account(&state, &player).await? {
        return invalid(crate::api::bot::PEOPLE_ONLY.into());
    }
    let terms = crate::lobby::challenge::Terms {
        variant: info.id.to_string(),
        clock,
        rated: false,
        color: color.name().to_string(),
        initial_fen: None,
    };
    let id = match start_game(&state, player, &terms, level, color).await {
        Ok(id) => id,
        Err(CreateError::Invalid(msg)) => return invalid(msg),
        Err(CreateError::Busy(_)) => {
            return invalid(
                "You are playing a game with a clock: finish it before you start another one with a clock \
                 (a game without a clock can start now)."
                    .into(),
            );
        }
        Err(CreateError::Other(e)) => return Err(PageError::Internal(e)),
    };
    let mut resp = HttpResponse::SeeOther().insert_header((header::LOCATION, format!("/{id}"))).finish();
    if let Some(c) = cookie {
        resp.add_cookie(&c).map_err(|e| anyhow::anyhow!("setting the guest cookie: {e}"))?;
    }
    Ok(resp)
}
