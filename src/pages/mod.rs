//! Server-rendered pages (askama): home, rules, local play, profiles and leaderboards, the account
//! forms, errors.

pub mod challenge;
pub mod diagram;
pub mod profile;
pub mod rules;
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

/// Registers the page routes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(home))
        .route("/variant/{id}", web::get().to(variant_rules))
        .route("/local/{id}", web::get().to(local))
        .configure(profile::routes)
        .configure(challenge::routes)
        .configure(tokens::routes);
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
}

/// Lichess's speed of a time control (by the estimated game length, limit + 40 increments).
pub fn speed(minutes: i32, increment: i32) -> &'static str {
    match minutes * 60 + 40 * increment {
        ..29 => "UltraBullet",
        29..179 => "Bullet",
        179..479 => "Blitz",
        479..1499 => "Rapid",
        _ => "Classical",
    }
}

/// A Chess Gold middlegame for the home page: armies bought and placed on both sides.
const HERO_BOARD: &str = "r3k3/ppq2p2/2n1b3/8/4P3/2N2N2/PP1B4/3QK2R";

#[tracing::instrument(skip_all)]
async fn home(session: Session) -> Result<HttpResponse, PageError> {
    let coming = rules::BOOKS.iter().filter(|b| variant(b.id).is_none()).map(|b| (b.name, b.tagline)).collect();
    let pieces = variant("gold").or_else(|| variant("standard")).map(|v| v.pieces);
    let hero =
        diagram::svg_with(&diagram::Diagram::new(HERO_BOARD, "A Chess Gold game in progress").arrows("c3d5"), pieces);
    render(&HomePage {
        ctx: PageCtx::reading(&session)?,
        variants: variants().iter().map(card).collect(),
        coming,
        hero,
        times: crate::game::TIME_CONTROLS.iter().map(|&(m, s)| (format!("{m}+{s}"), speed(m, s))).collect(),
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
async fn variant_rules(session: Session, id: web::Path<String>) -> Result<HttpResponse, PageError> {
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
}

#[tracing::instrument(skip(session))]
async fn local(session: Session, id: web::Path<String>) -> Result<HttpResponse, PageError> {
    let info = variant(&id).ok_or(PageError::NotFound)?;
    render(&LocalPage { ctx: PageCtx::reading(&session)?, variant: card(info) })
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
