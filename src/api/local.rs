//! `POST /api/local`: replays a local (pass-and-play) game through the engine and returns its
//! state. The browser never judges legality; this endpoint does, with the engine.

use actix_web::{HttpResponse, web};
use chessgold_engine::registry::{variant, variant_ids};
use serde::Deserialize;

use crate::error::ApiError;
use crate::game::refusal::RefusalCode;
use crate::startup::AppState;

/// Longest action text accepted (the longest notation form is well below this).
const MAX_ACTION_LEN: usize = 32;
/// Longest position text accepted.
const MAX_FEN_LEN: usize = 256;

/// The request body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalRequest {
    /// Variant id.
    pub variant: String,
    /// Actions in notation, played in order from the start (or from `fen`).
    #[serde(default)]
    pub actions: Vec<String>,
    /// Optional start position text.
    #[serde(default)]
    pub fen: Option<String>,
    /// Seed of the random events of a variant that has them (loot boxes); 0 when absent.
    /// Ignored by variants without randomness.
    #[serde(default)]
    pub seed: Option<u64>,
}

/// The answer: the engine's snapshot, plus the seed of a game with random events.
#[derive(Debug, serde::Serialize)]
pub struct LocalState {
    /// Everything the board needs.
    #[serde(flatten)]
    pub snapshot: chessgold_engine::registry::Snapshot,
    /// The seed, for variants with random events (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// Replays the actions and answers the engine's snapshot of the resulting game.
///
/// # Errors
/// 422 with `unknown_variant`, `bad_fen`, `too_many_actions`, `malformed_action`,
/// `illegal_action` or `game_over` (these two with the action's `index`).
#[tracing::instrument(skip_all, fields(game.variant = %body.variant, actions = body.actions.len()))]
pub async fn play(state: web::Data<AppState>, body: web::Json<LocalRequest>) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let max = state.max_local_actions;
    if body.actions.len() > max {
        return Err(ApiError::unprocessable(
            "too_many_actions",
            format!("{} actions sent; at most {max} are replayed per request", body.actions.len()),
        ));
    }
    let Some(info) = variant(&body.variant) else {
        let shown: String = body.variant.chars().take(40).collect();
        return Err(ApiError::unprocessable(
            "unknown_variant",
            format!("unknown variant '{shown}' (variants: {})", variant_ids().join(", ")),
        ));
    };
    let mut game = match &body.fen {
        Some(fen) if fen.len() > MAX_FEN_LEN => {
            return Err(ApiError::unprocessable("bad_fen", format!("the position text is over {MAX_FEN_LEN} bytes")));
        }
        Some(fen) => match body.seed {
            Some(seed) => info.seeded_game_from_fen(fen, seed),
            None => info.game_from_fen(fen),
        }
        .map_err(|e| ApiError::unprocessable("bad_fen", e.to_string()))?,
        None => body.seed.map_or_else(|| info.new_game(), |seed| info.new_seeded_game(seed)),
    };
    for (i, action) in body.actions.iter().enumerate() {
        if action.len() > MAX_ACTION_LEN {
            let mut e = ApiError::unprocessable(
                RefusalCode::MalformedAction.as_str(),
                format!("actions[{i}] is {} bytes long; no action is longer than {MAX_ACTION_LEN}", action.len()),
            );
            e.index = Some(i);
            return Err(e);
        }
        if let Err(err) = game.play(action) {
            let mut e = ApiError::unprocessable(
                RefusalCode::of_action(&err).as_str(),
                format!("actions[{i}] '{action}': {}", err.message()),
            );
            e.index = Some(i);
            return Err(e);
        }
    }
    Ok(HttpResponse::Ok().json(LocalState { snapshot: game.snapshot(), seed: game.seed() }))
}
