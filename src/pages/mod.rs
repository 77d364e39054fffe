//! Server-rendered pages (askama): home, rules, local play, profiles and leaderboards, the account
//! forms, errors.

pub mod challenge;
pub mod diagram;
pub mod mod_analysis;
pub mod moderation;
pub mod profile;
pub mod rules;
pub mod sessions;
pub mod tokens;

use actix_session::Session;
use actix_web::http::StatusCode;
use actix_web::http::header::ContentType;
use actix_web::{HttpResponse, web};
use anyhow::Context;
use askama::Template;
use chessgold_engine::registry::{VariantInfo, variant, variants};

use std::sync::Arc;

use crate::assets::{self, Assets};
use crate::auth::{SessionUser, csrf, current_user};
use crate::error::PageError;
use crate::game::identity::Identity;
use crate::startup::AppState;

/// What the base layout needs on every page.
#[derive(Debug, Clone, Default)]
pub struct PageCtx {
    /// The logged-in user.
    pub user: Option<SessionUser>,
    /// The session's CSRF token, for the forms of the page (log-out in the header).
    pub csrf: String,
    /// The server's static files, for their hashed URLs (none outside a request).
    pub assets: Option<Arc<Assets>>,
}

impl PageCtx {
    /// The context of a page with a state-changing form: creates the CSRF token when the session
    /// has none.
    ///
    /// # Errors
    /// The session cannot be written.
    pub fn new(session: &Session) -> Result<PageCtx, PageError> {
        Ok(PageCtx { user: current_user(session), csrf: csrf::token(session)?, assets: assets::current() })
    }

    /// The context of a reading page, whose only form is the header's log-out button: the token is
    /// made only for a logged-in user, so anonymous readers get no session (and no session storage).
    ///
    /// # Errors
    /// The session cannot be written.
    pub fn reading(session: &Session) -> Result<PageCtx, PageError> {
        let user = current_user(session);
        let csrf = if user.is_some() { csrf::token(session)? } else { String::new() };
        Ok(PageCtx { user, csrf, assets: assets::current() })
    }

    /// A context without a session (error pages).
    pub fn anonymous() -> PageCtx {
        PageCtx { assets: assets::current(), ..PageCtx::default() }
    }

    /// The URL of a static file (`css/site.css`), content-hashed so browsers keep it for a year:
    /// every page links its styles, icons and images through this.
    pub fn asset(&self, path: &str) -> String {
        self.assets.as_ref().map_or_else(|| format!("{}{path}", assets::PREFIX), |a| a.url(path))
    }

    /// The import map of the static files (HTML), which sends the scripts' imports to the hashed
    /// URLs; in the head of every page, before any script.
    pub fn import_map(&self) -> &str {
        self.assets.as_ref().map_or("", |a| a.import_map())
    }

    /// The HTML that loads a page's entry script (`js/live.js`) with its whole module graph
    /// preloaded: every page loads its scripts through this.
    pub fn module(&self, entry: &str) -> String {
        self.assets.as_ref().map_or_else(
            || format!(r#"<script type="module" src="{}{entry}"></script>"#, assets::PREFIX),
            |a| a.module(entry),
        )
    }
}

/// Renders a page with 200.
///
/// # Errors
/// A template failure (a bug).
pub fn render<T: Template>(page: &T) -> Result<HttpResponse, PageError> {
    render_status(page, StatusCode::OK)
}

/// Renders a page with the given status.
///
/// # Errors
/// A template failure (a bug).
pub fn render_status<T: Template>(page: &T, status: StatusCode) -> Result<HttpResponse, PageError> {
    let body = page.render().context("rendering a template")?;
    Ok(HttpResponse::build(status).content_type(ContentType::html()).body(body))
}

/// A variant as the site lists it.
#[derive(Debug, Clone)]
pub struct VariantCard {
    /// Id.
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// One paragraph.
    pub summary: &'static str,
    /// Short tag line from the rules data.
    pub tagline: &'static str,
    /// `8×8`.
    pub board: String,
    /// Has gold and a shop.
    pub economy: bool,
    /// A small picture of the start position.
    pub preview: String,
}

fn card(info: &'static VariantInfo) -> VariantCard {
    let book = rules::book(info.id);
    VariantCard {
        id: info.id,
        name: info.name,
        summary: info.summary,
        tagline: book.map_or("", |b| b.tagline),
        board: format!("{}×{}", info.files, info.ranks),
        economy: info.economy,
        preview: diagram::preview(info.start_fen, info.files, info.ranks, info.pieces),
    }
}

/// The home page.
#[derive(Debug, Template)]
#[template(path = "home.html")]
pub struct HomePage {
    /// Layout.
    pub ctx: PageCtx,
    /// Registered variants.
    pub variants: Vec<VariantCard>,
    /// Variants of the rule books not yet playable: (name, tagline).
    pub coming: Vec<(&'static str, &'static str)>,
    /// The hero picture: a Chess Gold game in progress.
    pub hero: String,
    /// The quick-pairing time controls: (`3+2`, speed name).
    pub times: Vec<(String, &'static str)>,
    /// The visitor's games in play, those with a clock (which stop a new pairing) first.
    pub playing: Vec<PlayingView>,
}

impl HomePage {
    /// Whether one of the visitor's games has a clock (and so stops a new pairing).
    pub fn playing_clocked(&self) -> bool {
        self.playing.iter().any(|g| g.clocked)
    }
}

/// A game the visitor is playing, as the home page shows it.
#[derive(Debug, Clone)]
pub struct PlayingView {
    /// Game id.
    pub id: String,
    /// The opponent: an account name, `Anonymous`, or the bot's name.
    pub opponent: String,
    /// Variant name.
    pub variant: String,
    /// `5+3`, or `Unlimited`.
    pub time: String,
    /// Rated.
    pub rated: bool,
    /// The visitor's colour.
    pub color: String,
    /// Has a clock (and so stops a new pairing until it is over).
    pub clocked: bool,
}

/// Games in play shown on the home page at most.
const PLAYING_SHOWN: i64 = 10;

impl PlayingView {
    fn of(g: crate::db::games::OngoingRow) -> PlayingView {
        let bot = g.opponent_bot.and_then(|n| u8::try_from(n).ok()).and_then(chessgold_bot::Level::new);
        let clock = g.clock_limit.zip(g.clock_increment).and_then(|(l, i)| crate::game::TimeControl::new(l, i));
        PlayingView {
            opponent: match (g.opponent, bot) {
                (Some(name), _) => name,
                (None, Some(level)) => crate::bots::display_name(level),
                (None, None) => "Anonymous".into(),
            },
            variant: variant(&g.variant).map_or_else(|| g.variant.clone(), |v| v.name.to_string()),
            time: clock.map_or_else(|| "Unlimited".to_string(), |c| c.show()),
            clocked: clock.is_some(),
            rated: g.rated,
            color: g.color,
            id: g.id,
        }
    }
}

/// The games in play of the requester: their account's, and those of the guest they are (or
/// were before logging in).
///
/// # Errors
/// Database failures.
pub async fn playing(state: &AppState, identity: &Identity) -> Result<Vec<PlayingView>, PageError> {
    let users: Vec<uuid::Uuid> = identity.user.iter().map(|u| u.id).collect();
    let guests: Vec<String> = identity.guest.iter().cloned().collect();
    if users.is_empty() && guests.is_empty() {
        return Ok(Vec::new());
    }
    let rows = crate::db::games::ongoing_of_players(&state.pool, &users, &guests, PLAYING_SHOWN).await?;
    Ok(rows.into_iter().map(PlayingView::of).collect())
}

/// A Chess Gold middlegame for the home page: armies bought and placed on both sides.
const HERO_BOARD: &str = "r3k3/ppq2p2/2n1b3/8/4P3/2N2N2/PP1B4/3QK2R";

#[tracing::instrument(skip_all)]
pub(crate) async fn home(
    state: web::Data<AppState>,
    session: Session,
    identity: Identity,
) -> Result<HttpResponse, PageError> {
    let playing = playing(&state, &identity).await?;
    let coming = rules::BOOKS.iter().filter(|b| variant(b.id).is_none()).map(|b| (b.name, b.tagline)).collect();
    let pieces = variant("gold").or_else(|| variant("standard")).map(|v| v.pieces);
    let hero =
        diagram::svg_with(&diagram::Diagram::new(HERO_BOARD, "A Chess Gold game in progress").arrows("c3d5"), pieces);
    render(&HomePage {
        ctx: PageCtx::reading(&session)?,
        variants: variants().iter().map(card).collect(),
        coming,
        hero,
        times: crate::game::TIME_CONTROLS
            .iter()
            .map(|&(m, s)| {
                (format!("{m}+{s}"), crate::game::Speed::of(crate::game::TimeControl::new(m * 6000, s * 100)).name())
            })
            .collect(),
        playing,
    })
}

/// A variant's rules page.
#[derive(Debug, Template)]
#[template(path = "rules.html")]
pub struct RulesPage {
    /// Layout.
    pub ctx: PageCtx,
    /// The variant.
    pub variant: VariantCard,
    /// The rules, rendered.
    pub book: rules::RenderedBook,
    /// Other registered variants, for the side menu.
    pub others: Vec<(&'static str, &'static str)>,
}

#[tracing::instrument(skip(session))]
pub(crate) async fn variant_rules(session: Session, id: web::Path<String>) -> Result<HttpResponse, PageError> {
    let info = variant(&id).ok_or(PageError::NotFound)?;
    let book = rules::book(info.id).ok_or(PageError::NotFound)?;
    let others = variants().iter().map(|v| (v.id, v.name)).collect();
    render(&RulesPage {
        ctx: PageCtx::reading(&session)?,
        variant: card(info),
        book: book.render(Some(info.pieces)),
        others,
    })
}

/// The pass-and-play page; the board UI (static/js/local.js) fills `#board-app`.
#[derive(Debug, Template)]
#[template(path = "local.html")]
pub struct LocalPage {
    /// Layout.
    pub ctx: PageCtx,
    /// The variant.
    pub variant: VariantCard,
    /// The seed of a variant with random events (loot boxes): the address's, or a fresh one.
    pub seed: Option<u64>,
}

/// The largest seed a local game takes: the page's JavaScript holds numbers exactly up to 2^53 - 1.
pub const MAX_LOCAL_SEED: u64 = (1 << 53) - 1;

/// The address of a local game: `?seed=` keeps the random events of a game (loot boxes).
#[derive(Debug, serde::Deserialize)]
pub(crate) struct LocalQuery {
    seed: Option<String>,
}

/// Reads a local game's seed as the address writes it.
///
/// # Errors
/// A sentence saying what is wrong.
pub fn parse_local_seed(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(seed) if seed <= MAX_LOCAL_SEED && !text.starts_with('+') => Ok(seed),
        _ => Err(format!("the seed in the address must be a whole number from 0 to {MAX_LOCAL_SEED}")),
    }
}

/// A fresh seed for a local game.
///
/// # Errors
/// No randomness is available.
fn fresh_local_seed() -> anyhow::Result<u64> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no randomness: {e}"))?;
    Ok(u64::from_le_bytes(bytes) & MAX_LOCAL_SEED)
}

#[tracing::instrument(skip(session))]
pub(crate) async fn local(
    session: Session,
    id: web::Path<String>,
    query: web::Query<LocalQuery>,
) -> Result<HttpResponse, PageError> {
    let info = variant(&id).ok_or(PageError::NotFound)?;
    let asked = query.seed.as_deref().map(parse_local_seed).transpose().map_err(PageError::BadRequest)?;
    // Every game with random events gets its own seed; the page keeps it in the address, so a
    // reload or a shared link replays the same game.
    let seed = match (info.seeded, asked) {
        (false, _) => None,
        (true, Some(seed)) => Some(seed),
        (true, None) => Some(fresh_local_seed()?),
    };
    render(&LocalPage { ctx: PageCtx::reading(&session)?, variant: card(info), seed })
}

/// The sign-up form.
#[derive(Debug, Template)]
#[template(path = "auth/signup.html")]
pub struct SignupPage {
    /// Layout.
    pub ctx: PageCtx,
    /// The name as typed.
    pub username: String,
    /// What is wrong with the name.
    pub username_error: Option<String>,
    /// What is wrong with the password.
    pub password_error: Option<String>,
}

impl SignupPage {
    /// An empty form.
    pub fn blank(ctx: PageCtx) -> SignupPage {
        SignupPage { ctx, username: String::new(), username_error: None, password_error: None }
    }
}

/// The log-in form.
#[derive(Debug, Template)]
#[template(path = "auth/login.html")]
pub struct LoginPage {
    /// Layout.
    pub ctx: PageCtx,
    /// The name as typed.
    pub username: String,
    /// Where to go after logging in.
    pub next: String,
    /// Missing name.
    pub username_error: Option<String>,
    /// Missing password.
    pub password_error: Option<String>,
    /// Wrong name or password.
    pub form_error: Option<String>,
}

impl LoginPage {
    /// An empty form.
    pub fn blank(ctx: PageCtx) -> LoginPage {
        LoginPage {
            ctx,
            username: String::new(),
            next: "/".into(),
            username_error: None,
            password_error: None,
            form_error: None,
        }
    }
}

/// The password-change form.
#[derive(Debug, Template)]
#[template(path = "auth/password.html")]
pub struct PasswordPage {
    /// Layout.
    pub ctx: PageCtx,
    /// What is wrong with the current password.
    pub current_error: Option<String>,
    /// What is wrong with the new password.
    pub new_error: Option<String>,
    /// The password was changed.
    pub done: bool,
}

impl PasswordPage {
    /// An empty form.
    pub fn blank(ctx: PageCtx) -> PasswordPage {
        PasswordPage { ctx, current_error: None, new_error: None, done: false }
    }
}

/// The error page (404, 403, 429, 500, ...).
#[derive(Debug, Template)]
#[template(path = "error.html")]
pub struct ErrorPage {
    /// Layout.
    pub ctx: PageCtx,
    /// HTTP status.
    pub status: u16,
    /// Heading.
    pub title: &'static str,
    /// Explanation.
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::{MAX_LOCAL_SEED, parse_local_seed};

    #[test]
    fn a_local_seed_is_a_whole_number_javascript_holds_exactly() {
        assert_eq!(parse_local_seed("0"), Ok(0));
        assert_eq!(parse_local_seed("9007199254740991"), Ok(MAX_LOCAL_SEED));
        for bad in ["9007199254740992", "-1", "+5", "1.5", "", "abc", " 7"] {
            assert!(parse_local_seed(bad).is_err(), "{bad:?}");
        }
    }
}
