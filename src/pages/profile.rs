//! Player profiles (`/@/{username}`) and the leaderboards (`/player`, `/player/{variant}`).

use std::fmt::Write as _;

use actix_session::Session;
use actix_web::{HttpResponse, web};
use askama::Template;
use chessgold_engine::registry::{variant, variants};
use serde::Deserialize;
use time::OffsetDateTime;

use super::{PageCtx, render};
use crate::db;
use crate::db::profiles::UserGameRow;
use crate::error::PageError;
use crate::game::{Status, TimeControl};
use crate::rating::{PROVISIONAL_GAMES, START};
use crate::startup::AppState;

/// Games per page of a profile's list.
pub const GAMES_PER_PAGE: i64 = 20;
/// Rated games in a variant an account needs to appear on its leaderboard.
pub const LEADERBOARD_MIN_GAMES: i32 = 10;
/// Lines of a variant's leaderboard.
pub const LEADERBOARD_SIZE: i64 = 100;
/// Lines per variant on the leaderboards' overview.
pub const OVERVIEW_SIZE: i64 = 10;

/// A rating as shown: `1520`, or `1520?` while provisional.
pub fn rating_text(rating: i32, games: i32) -> String {
    if games < PROVISIONAL_GAMES { format!("{rating}?") } else { rating.to_string() }
}

/// `2026-11-29`.
pub fn date_text(at: OffsetDateTime) -> String {
    format!("{:04}-{:02}-{:02}", at.year(), u8::from(at.month()), at.day())
}

/// `5+3`, or `Unlimited`.
fn time_text(limit: Option<i32>, increment: Option<i32>) -> String {
    match (limit, increment) {
        (Some(limit), Some(increment)) => TimeControl { limit, increment }.show(),
        _ => "Unlimited".into(),
    }
}

pub(crate) fn variant_name(id: &str) -> String {
    variant(id).map_or_else(|| id.to_string(), |v| v.name.to_string())
}

/// A rating of the profile's account.
#[derive(Debug, Clone)]
pub struct PerfView {
    /// Variant id.
    pub id: String,
    /// Variant name.
    pub name: String,
    /// `1520?`.
    pub rating: String,
    /// Rated games in the variant.
    pub games: i32,
    /// The rating is provisional.
    pub provisional: bool,
}

/// A rating-history chart.
#[derive(Debug, Clone)]
pub struct ChartView {
    /// Variant id.
    pub id: String,
    /// Variant name.
    pub name: String,
    /// The inline SVG.
    pub svg: String,
}

/// A line of the profile's game list.
#[derive(Debug, Clone)]
pub struct GameLine {
    /// Game id.
    pub id: String,
    /// The opponent's account, `None` for a guest.
    pub opponent: Option<String>,
    /// The opponent's rating before the game, or empty.
    pub opponent_rating: String,
    /// The bot's name when the opponent was the computer, or empty.
    pub bot: String,
    /// `Won`, `Lost`, `Draw`, `Playing`, `Aborted`.
    pub result: &'static str,
    /// `win`, `loss`, `draw`, `none`: a CSS class.
    pub outcome: &'static str,
    /// The account's rating change, `+20` / `-20`, or empty.
    pub diff: String,
    /// The account's colour.
    pub color: String,
    /// Variant name.
    pub variant: String,
    /// `5+3`.
    pub time: String,
    /// Rated.
    pub rated: bool,
    /// `2026-11-29`.
    pub date: String,
}

pub(crate) fn game_line(g: UserGameRow) -> GameLine {
    let status = Status::from_id(g.status);
    let (result, outcome) = match status {
        Some(s) if s.is_live() => ("Playing", "none"),
        Some(s) if !s.has_result() => ("Aborted", "none"),
        _ => match g.winner.as_deref() {
            None => ("Draw", "draw"),
            Some(w) if w == g.color => ("Won", "win"),
            Some(_) => ("Lost", "loss"),
        },
    };
    let diff = match (g.rating_before, g.rating_after) {
        (Some(b), Some(a)) => format!("{:+}", a - b),
        _ => String::new(),
    };
    GameLine {
        id: g.id,
        opponent: g.opponent,
        opponent_rating: g.opponent_rating.map(|r| r.to_string()).unwrap_or_default(),
        bot: g
            .opponent_bot
            .and_then(|n| u8::try_from(n).ok())
            .and_then(chessgold_bot::Level::new)
            .map(crate::bots::display_name)
            .unwrap_or_default(),
        result,
        outcome,
        diff,
        color: g.color,
        variant: variant_name(&g.variant),
        time: time_text(g.clock_limit, g.clock_increment),
        rated: g.rated,
        date: date_text(g.created_at),
    }
}

/// The profile page.
#[derive(Debug, Template)]
#[template(path = "profile/profile.html")]
pub struct ProfilePage {
    /// Layout.
    pub ctx: PageCtx,
    /// The account's name as stored.
    pub username: String,
    /// A BOT account: titled BOT, played by a program through the BOT API.
    pub bot: bool,
    /// Member since.
    pub since: String,
    /// Ratings by variant.
    pub perfs: Vec<PerfView>,
    /// Counts.
    pub total: i64,
    /// Rated games with a result.
    pub rated: i64,
    /// Won.
    pub wins: i64,
    /// Drawn.
    pub draws: i64,
    /// Lost.
    pub losses: i64,
    /// Rating charts, one per variant with rated games.
    pub charts: Vec<ChartView>,
    /// This page of games.
    pub games: Vec<GameLine>,
    /// 1-based page number.
    pub page: i64,
    /// Number of pages (at least 1).
    pub pages: i64,
    /// The viewer's own profile.
    pub own: bool,
    /// Variants of the challenge form: (id, name).
    pub variants: Vec<(&'static str, &'static str)>,
    /// Time controls of the challenge form (`3+2`).
    pub times: Vec<String>,
    /// Why the challenge form was refused (shown in the open form).
    pub challenge_error: Option<String>,
    /// The viewer's running game, when that is what refused the challenge.
    pub busy_game: Option<String>,
    /// The viewer blocks this account (the block button says "Unblock").
    pub blocking: bool,
    /// The account's marks, shown to moderators only ("Engine mark").
    pub marks: Vec<&'static str>,
    /// The reasons of the report form: (key, label).
    pub report_reasons: Vec<(&'static str, &'static str)>,
}

/// The profile's query string.
#[derive(Debug, Deserialize)]
pub struct ProfileQuery {
    /// 1-based page of the game list.
    page: Option<String>,
}

/// Reads `?page=`: a positive integer; anything else is a bad request.
fn parse_page(text: Option<&str>) -> Result<i64, PageError> {
    let Some(text) = text else { return Ok(1) };
    match text.parse::<i64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(PageError::BadRequest(format!(
            "the page number '{}' is not a whole number from 1 up",
            text.chars().take(20).collect::<String>()
        ))),
    }
}

#[tracing::instrument(skip(state, session, query))]
pub(crate) async fn profile(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
    query: web::Query<ProfileQuery>,
) -> Result<HttpResponse, PageError> {
    let asked = parse_page(query.page.as_deref())?;
    render(&profile_page(&state, &session, &path, asked).await?)
}

/// The profile of `username` at page `asked` of its games (the challenge form's refusals show it
/// again with their message).
///
/// # Errors
/// [`PageError::NotFound`] for an unknown name; database failures.
pub async fn profile_page(
    state: &AppState,
    session: &Session,
    username: &str,
    asked: i64,
) -> Result<ProfilePage, PageError> {
    let user = db::users::find_by_name(&state.pool, username).await?.ok_or(PageError::NotFound)?;
    let since = db::users::created_at(&state.pool, user.id).await?.map(date_text).unwrap_or_default();
    let perfs = db::profiles::perfs(&state.pool, user.id)
        .await?
        .into_iter()
        .map(|p| PerfView {
            name: variant_name(&p.variant),
            rating: rating_text(p.rating, p.games),
            games: p.games,
            provisional: p.games < PROVISIONAL_GAMES,
            id: p.variant,
        })
        .collect::<Vec<_>>();
    let record = db::profiles::record(&state.pool, user.id).await?;
    let history = db::profiles::rating_history(&state.pool, user.id).await?;
    let mut charts = Vec::new();
    for p in &perfs {
        let points: Vec<i32> = history.iter().filter(|h| h.variant == p.id).map(|h| h.rating).collect();
        if !points.is_empty() {
            charts.push(ChartView { id: p.id.clone(), name: p.name.clone(), svg: rating_chart(&p.name, &points) });
        }
    }
    // A page past the end shows the last page.
    let pages = ((record.total + GAMES_PER_PAGE - 1) / GAMES_PER_PAGE).max(1);
    let page = asked.min(pages);
    let games = db::profiles::games(&state.pool, user.id, GAMES_PER_PAGE, (page - 1) * GAMES_PER_PAGE)
        .await?
        .into_iter()
        .map(game_line)
        .collect();
    let ctx = PageCtx::reading(session)?;
    let own = ctx.user.as_ref().is_some_and(|u| u.id == user.id);
    let blocking = match &ctx.user {
        Some(viewer) if !own => crate::moderation::blocks::blocks(&state.pool, viewer.id, user.id).await?,
        _ => false,
    };
    let moderates = match &ctx.user {
        Some(viewer) => {
            crate::moderation::roles::role_of(&state.pool, viewer.id).await?.is_some_and(crate::domain::Role::moderates)
        }
        None => false,
    };
    let marks = if moderates {
        crate::moderation::marks::of_user(&state.pool, user.id).await?.into_iter().map(|m| m.kind().label()).collect()
    } else {
        Vec::new()
    };
    Ok(ProfilePage {
        ctx,
        own,
        marks,
        variants: variants().iter().map(|v| (v.id, v.name)).collect(),
        times: crate::game::TIME_CONTROLS.iter().map(|(m, s)| format!("{m}+{s}")).collect(),
        username: user.username,
        bot: user.bot,
        since,
        perfs,
        total: record.total,
        rated: record.rated,
        wins: record.wins,
        draws: record.draws,
        losses: record.losses,
        charts,
        games,
        page,
        pages,
        challenge_error: None,
        busy_game: None,
        blocking,
        report_reasons: crate::moderation::reports::ReportReason::ALL.iter().map(|r| (r.as_str(), r.label())).collect(),
    })
}

/// Chart size in SVG units.
const CHART_W: f64 = 600.0;
const CHART_H: f64 = 180.0;
/// Room for the axis labels on the left, and margins.
const CHART_LEFT: f64 = 46.0;
const CHART_PAD: f64 = 12.0;

/// A rating-history line chart as inline SVG: the start rating, then the rating after each rated
/// game, evenly spaced; the lowest and highest ratings are labelled.
pub fn rating_chart(title: &str, ratings: &[i32]) -> String {
    let mut points = vec![START];
    points.extend_from_slice(ratings);
    let lo = points.iter().copied().min().unwrap_or(START);
    let hi = points.iter().copied().max().unwrap_or(START);
    // At least 40 points of height, centred, so a flat line sits in the middle.
    let span = (hi - lo).max(40);
    let mid = f64::from(lo + hi) / 2.0;
    let (y_lo, y_hi) = (mid - f64::from(span) / 2.0, mid + f64::from(span) / 2.0);
    let plot_w = CHART_W - CHART_LEFT - CHART_PAD;
    let plot_h = CHART_H - 2.0 * CHART_PAD;
    let n = points.len();
    let x = |i: usize| {
        // n >= 1; one game gives two points.
        let step = if n > 1 { plot_w / (n - 1) as f64 } else { 0.0 };
        CHART_LEFT + step * i as f64
    };
    let y = |r: i32| CHART_PAD + plot_h * (y_hi - f64::from(r)) / (y_hi - y_lo);
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg class="rating-chart" viewBox="0 0 {CHART_W} {CHART_H}" role="img" aria-label="{title} rating history: {n} points from {first} to {last}" data-points="{count}"><title>{title} rating history</title>"#,
        first = START,
        last = points[n - 1],
        count = n,
    );
    for r in [hi, lo] {
        let _ = write!(
            svg,
            r#"<line class="grid" x1="{CHART_LEFT}" x2="{x2}" y1="{yy:.1}" y2="{yy:.1}"/><text class="axis" x="{tx}" y="{ty:.1}" text-anchor="end">{r}</text>"#,
            x2 = CHART_W - CHART_PAD,
            yy = y(r),
            tx = CHART_LEFT - 6.0,
            ty = y(r) + 4.0,
        );
        if hi == lo {
            break;
        }
    }
    let line: Vec<String> = points.iter().enumerate().map(|(i, r)| format!("{:.1},{:.1}", x(i), y(*r))).collect();
    let _ = write!(svg, r#"<polyline class="line" points="{}"/>"#, line.join(" "));
    for (i, r) in points.iter().enumerate() {
        let label = if i == 0 { "start".to_string() } else { format!("after game {i}") };
        let _ = write!(
            svg,
            r#"<circle class="dot" cx="{:.1}" cy="{:.1}" r="3"><title>{r} ({label})</title></circle>"#,
            x(i),
            y(*r)
        );
    }
    svg.push_str("</svg>");
    svg
}

/// A line of a leaderboard.
#[derive(Debug, Clone)]
pub struct LeaderLine {
    /// 1-based rank.
    pub rank: usize,
    /// Account name.
    pub username: String,
    /// Elo (never provisional here unless under 30 games: then `?`).
    pub rating: String,
    /// Rated games in the variant.
    pub games: i32,
}

/// A variant's leaderboard.
#[derive(Debug, Clone)]
pub struct Board {
    /// Variant id.
    pub id: &'static str,
    /// Variant name.
    pub name: &'static str,
    /// The best accounts.
    pub lines: Vec<LeaderLine>,
}

async fn board(state: &AppState, id: &'static str, name: &'static str, limit: i64) -> Result<Board, PageError> {
    let lines = db::profiles::leaders(&state.pool, id, LEADERBOARD_MIN_GAMES, limit)
        .await?
        .into_iter()
        .enumerate()
        .map(|(i, r)| LeaderLine {
            rank: i + 1,
            rating: rating_text(r.rating, r.games),
            username: r.username,
            games: r.games,
        })
        .collect();
    Ok(Board { id, name, lines })
}

/// The leaderboards' overview.
#[derive(Debug, Template)]
#[template(path = "profile/leaderboards.html")]
pub struct LeaderboardsPage {
    /// Layout.
    pub ctx: PageCtx,
    /// The top few of every variant.
    pub boards: Vec<Board>,
    /// Rated games needed to appear.
    pub min_games: i32,
}

#[tracing::instrument(skip_all)]
pub(crate) async fn leaderboards(state: web::Data<AppState>, session: Session) -> Result<HttpResponse, PageError> {
    let mut boards = Vec::new();
    for v in variants() {
        boards.push(board(&state, v.id, v.name, OVERVIEW_SIZE).await?);
    }
    render(&LeaderboardsPage { ctx: PageCtx::reading(&session)?, boards, min_games: LEADERBOARD_MIN_GAMES })
}

/// One variant's leaderboard.
#[derive(Debug, Template)]
#[template(path = "profile/leaderboard.html")]
pub struct LeaderboardPage {
    /// Layout.
    pub ctx: PageCtx,
    /// The variant's top 100.
    pub board: Board,
    /// Rated games needed to appear.
    pub min_games: i32,
    /// (id, name) of every variant, for the menu.
    pub others: Vec<(&'static str, &'static str)>,
}

#[tracing::instrument(skip(state, session))]
pub(crate) async fn leaderboard(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<String>,
) -> Result<HttpResponse, PageError> {
    let info = variant(&path).ok_or(PageError::NotFound)?;
    let board = board(&state, info.id, info.name, LEADERBOARD_SIZE).await?;
    render(&LeaderboardPage {
        ctx: PageCtx::reading(&session)?,
        board,
        min_games: LEADERBOARD_MIN_GAMES,
        others: variants().iter().map(|v| (v.id, v.name)).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_positive_integers() {
        assert_eq!(parse_page(None).ok(), Some(1));
        assert_eq!(parse_page(Some("3")).ok(), Some(3));
        for bad in ["0", "-1", "x", "", "1.5", "99999999999999999999"] {
            assert!(parse_page(Some(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn charts_have_one_dot_per_point_and_label_the_extremes() {
        let svg = rating_chart("Standard", &[1520, 1538, 1510]);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches("<circle").count(), 4);
        assert!(svg.contains(">1538</text>") && svg.contains(">1500</text>"));
        assert!(svg.contains(r#"data-points="4""#));
        // A flat history still draws.
        let flat = rating_chart("Standard", &[1500]);
        assert_eq!(flat.matches("<circle").count(), 2);
        assert!(!flat.contains("NaN"));
    }

    #[test]
    fn provisional_ratings_are_marked() {
        assert_eq!(rating_text(1520, 3), "1520?");
        assert_eq!(rating_text(1520, 30), "1520");
    }
}
