//! Every route of the service, in one table, in the order the router tries them.
//!
//! Actix tries routes in the order they are registered and takes the first whose path (and
//! method) matches, so the order here is part of the behaviour: literal paths come before the
//! patterns that could also match them, and the game pages `/{id}` (eight or twelve letters and
//! digits) come last of all, so that no named page can be taken for a game. The tests below check
//! both: that nothing follows the catch-alls, and that no first segment of a named route has the
//! shape of a game id. See `docs/architecture.md`, "Routing".

use actix_web::web;

use crate::{api, assets, auth, bots, game, lobby, metrics, pages, startup};

/// Declares a table: `fn add` registers its routes in order, `const TABLE` lists them for the
/// tests.
macro_rules! table {
    ($( $method:ident $path:literal => $handler:path ),* $(,)?) => {
        /// The routes of this table, in order: (method, path).
        pub(crate) const TABLE: &[(&str, &str)] = &[$((stringify!($method), $path)),*];

        /// Registers the routes of this table, in order.
        pub(crate) fn add(cfg: &mut web::ServiceConfig) {
            $(cfg.route($path, web::$method().to($handler));)*
        }
    };
}

/// The JSON API, under `/api` (its JSON body and query errors, and a JSON 404).
mod under_api {
    use super::{api, game, lobby, web};
    use crate::api::auth::{BoardPlay, BotPlay};

    table! {
        post "/local" => api::local::play,
        get "/game/{id}" => game::http::export,
        // The lobby.
        post "/lobby/seek" => lobby::http::create_seek,
        post "/lobby/seek/{id}/cancel" => lobby::http::cancel_seek,
        post "/lobby/seek/{id}/accept" => lobby::http::accept_seek,
        post "/lobby/pool/join" => lobby::http::join_pool,
        post "/lobby/pool/leave" => lobby::http::leave_pool,
        // The board API (lichess's), for accounts that are not BOTs, and the same calls as the
        // BOT API, for BOT accounts: the scope type says which.
        get "/board/game/stream/{id}" => api::board::stream::<BoardPlay>,
        post "/board/game/{id}/move/{action}" => api::board::play::<BoardPlay>,
        post "/board/game/{id}/resign" => api::board::resign::<BoardPlay>,
        post "/board/game/{id}/abort" => api::board::abort::<BoardPlay>,
        post "/board/game/{id}/draw/{answer}" => api::board::draw::<BoardPlay>,
        post "/board/game/{id}/takeback/{answer}" => api::board::takeback::<BoardPlay>,
        post "/board/game/{id}/claim-victory" => api::board::claim_victory::<BoardPlay>,
        post "/board/game/{id}/claim-draw" => api::board::claim_draw::<BoardPlay>,
        post "/board/game/{id}/chat" => api::board::chat::<BoardPlay>,
        get "/board/game/{id}/chat" => api::board::chat_history::<BoardPlay>,
        post "/bot/account/upgrade" => api::bot::upgrade,
        get "/bot/online" => api::bot::online,
        get "/bot/game/stream/{id}" => api::board::stream::<BotPlay>,
        post "/bot/game/{id}/move/{action}" => api::board::play::<BotPlay>,
        post "/bot/game/{id}/resign" => api::board::resign::<BotPlay>,
        post "/bot/game/{id}/abort" => api::board::abort::<BotPlay>,
        post "/bot/game/{id}/draw/{answer}" => api::board::draw::<BotPlay>,
        post "/bot/game/{id}/takeback/{answer}" => api::board::takeback::<BotPlay>,
        post "/bot/game/{id}/claim-victory" => api::board::claim_victory::<BotPlay>,
        post "/bot/game/{id}/claim-draw" => api::board::claim_draw::<BotPlay>,
        post "/bot/game/{id}/chat" => api::board::chat::<BotPlay>,
        get "/bot/game/{id}/chat" => api::board::chat_history::<BotPlay>,
        post "/board/seek" => api::seek::seek,
        // Challenges: `open` and `ai` before `{username}` (both are reserved as user names).
        get "/challenge" => api::challenge::list,
        post "/challenge/open" => api::challenge::open,
        post "/challenge/ai" => api::challenge::ai,
        get "/challenge/{id}/show" => api::challenge::show,
        post "/challenge/{id}/accept" => api::challenge::accept,
        post "/challenge/{id}/decline" => api::challenge::decline,
        post "/challenge/{id}/cancel" => api::challenge::cancel,
        post "/challenge/{username}" => api::challenge::create,
        // Tokens.
        post "/token/test" => api::token::test,
        delete "/token" => api::token::revoke,
        // Accounts.
        get "/account" => api::users::account,
        get "/account/playing" => api::users::playing,
        get "/user/{username}" => api::users::user,
        get "/user/{username}/rating-history" => api::users::rating_history,
        get "/user/{username}/current-game" => api::users::current_game,
        get "/user/{username}/perf/{perf}" => api::users::perf,
        get "/users/status" => api::users::status,
        post "/users" => api::users::many,
        get "/crosstable/{user1}/{user2}" => api::users::crosstable,
        get "/player/autocomplete" => api::users::autocomplete,
        get "/games/user/{username}" => api::users::games,
        post "/games/export/_ids" => api::users::export_ids,
        get "/stream/event" => api::events::stream,
        get "/stream/game/{id}" => api::spectate::stream,
        // Blocks (lichess's relations API).
        post "/rel/block/{username}" => api::rel::block,
        post "/rel/unblock/{username}" => api::rel::unblock,
    }
}

/// The site: pages, forms and sockets.
mod site {
    use super::{auth, bots, game, lobby, metrics, pages, startup, web};

    table! {
        get "/healthz" => startup::healthz,
        get "/metrics" => metrics::metrics,
        // Accounts.
        get "/signup" => auth::handlers::signup_form,
        post "/signup" => auth::handlers::signup,
        get "/login" => auth::handlers::login_form,
        post "/login" => auth::handlers::login,
        post "/logout" => auth::handlers::logout,
        get "/account/password" => auth::handlers::password_form,
        post "/account/password" => auth::handlers::change_password,
        get "/account/tokens" => pages::tokens::list,
        post "/account/tokens" => pages::tokens::create,
        post "/account/tokens/{id}/revoke" => pages::tokens::revoke,
        get "/account/blocks" => pages::moderation::blocks_list,
        get "/account/sessions" => pages::sessions::list,
        post "/account/sessions/end" => pages::sessions::end,
        // Pages.
        get "/" => pages::home,
        get "/variant/{id}" => pages::variant_rules,
        get "/local/{id}" => pages::local,
        get "/@/{username}" => pages::profile::profile,
        get "/player" => pages::profile::leaderboards,
        get "/player/{variant}" => pages::profile::leaderboard,
        // Challenges.
        post "/@/{username}/challenge" => pages::challenge::create,
        // Reports and blocks (a player's), then the moderators' pages: every `/mod` route takes
        // `auth::roles::Moderator` or `Admin` (the test `every_mod_route_is_guarded` of
        // tests/api/mod_pages.rs asks each of `MOD_ROUTES`).
        post "/@/{username}/report" => pages::moderation::report,
        post "/@/{username}/block" => pages::moderation::block,
        post "/@/{username}/unblock" => pages::moderation::unblock,
        get "/mod" => pages::moderation::queue,
        get "/mod/search" => pages::moderation::search,
        get "/mod/log" => pages::moderation::mod_log,
        get "/mod/@/{username}" => pages::moderation::user,
        post "/mod/@/{username}/timeout" => pages::moderation::timeout,
        post "/mod/@/{username}/shadow-mute" => pages::moderation::shadow_mute,
        post "/mod/@/{username}/lift" => pages::moderation::lift,
        post "/mod/@/{username}/mark" => pages::moderation::mark,
        post "/mod/@/{username}/close" => pages::moderation::close,
        post "/mod/@/{username}/dismiss" => pages::moderation::dismiss,
        post "/mod/@/{username}/role" => pages::moderation::set_role,
        get "/mod/@/{username}/analysis" => pages::mod_analysis::page,
        get "/mod/@/{username}/analysis.json" => pages::mod_analysis::progress,
        post "/mod/@/{username}/analysis" => pages::mod_analysis::request,
        post "/challenge/open" => pages::challenge::create_open,
        get "/challenge/{id}" => pages::challenge::show,
        post "/challenge/{id}/accept" => pages::challenge::accept,
        post "/challenge/{id}/decline" => pages::challenge::decline,
        post "/challenge/{id}/cancel" => pages::challenge::cancel,
        // Games: `computer` and `new` before `{id}`.
        get "/game/computer" => bots::http::form,
        post "/game/computer" => bots::http::create,
        get "/game/new" => game::http::new_form,
        post "/game/new" => game::http::create,
        post "/game/{id}/join" => game::http::join,
        get "/game/export/{id}" => game::export::export,
        get "/socket/game/{id}" => game::socket::open,
        get "/socket/lobby" => lobby::socket::open,
        // Last: the catch-alls, a game as a spectator (`/{game id}`) and as a player
        // (`/{game id}{player secret}`). Anything registered after these could be shadowed.
        get "/{id:[0-9A-Za-z]{8}}" => game::http::page,
        get "/{id:[0-9A-Za-z]{12}}" => game::http::player_page,
    }
}

/// The routes under `/mod` (method, path), read from the table: the integration tests ask each
/// of them as a guest, a player and without a CSRF token, so that no mod route slips in
/// unguarded.
pub fn mod_routes() -> Vec<(&'static str, String)> {
    all_routes().into_iter().filter(|(_, p)| p == "/mod" || p.starts_with("/mod/")).collect()
}

/// Every route of the tables (method, full path), the API's with their `/api` prefix.
pub fn all_routes() -> Vec<(&'static str, String)> {
    let api = under_api::TABLE.iter().map(|(m, p)| (*m, format!("/api{p}")));
    api.chain(site::TABLE.iter().map(|(m, p)| (*m, (*p).to_string()))).collect()
}

/// Registers every route: the static files, the API, then the site (its catch-alls last).
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/static/{path:.*}").route(web::get().to(assets::serve)).route(web::head().to(assets::serve)),
    )
    .service(
        web::scope("/api")
            .app_data(api::json_config())
            .app_data(api::query_config())
            .configure(under_api::add)
            .default_service(web::to(api::not_found)),
    )
    .configure(site::add);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether a route's pattern is one of the game catch-alls (`/{id:...}`).
    fn is_catch_all(path: &str) -> bool {
        path.starts_with("/{")
    }

    /// The first segment of a path, when it is literal (not a `{pattern}`).
    fn first_literal(path: &str) -> Option<&str> {
        let first = path.trim_start_matches('/').split('/').next()?;
        (!first.is_empty() && !first.starts_with('{')).then_some(first)
    }

    #[test]
    fn the_catch_alls_come_last() {
        let first = site::TABLE.iter().position(|(_, p)| is_catch_all(p));
        let first = first.unwrap_or(site::TABLE.len());
        let after: Vec<_> = site::TABLE[first..].iter().filter(|(_, p)| !is_catch_all(p)).collect();
        assert!(after.is_empty(), "routes after the game catch-alls would be shadowed: {after:?}");
        assert!(first < site::TABLE.len(), "the table has no game catch-all");
    }

    #[test]
    fn no_named_route_looks_like_a_game() {
        for (method, path) in site::TABLE.iter().filter(|(_, p)| !is_catch_all(p)) {
            let Some(first) = first_literal(path) else { continue };
            assert!(
                game::GameId::parse(first).is_none()
                    && !(first.len() == 12 && first.chars().all(|c| c.is_ascii_alphanumeric())),
                "{method} {path}: its first segment '{first}' has the shape of a game id",
            );
        }
        // The static files and the API are registered before the site: neither prefix is an id.
        for prefix in ["static", "api"] {
            assert!(game::GameId::parse(prefix).is_none());
        }
    }

    #[test]
    fn literal_routes_come_before_the_patterns_that_match_them() {
        for table in [site::TABLE, under_api::TABLE] {
            for (i, (method, path)) in table.iter().enumerate() {
                for (earlier_method, earlier) in &table[..i] {
                    if earlier_method == method && pattern_matches(earlier, path) && earlier != path {
                        panic!("{method} {path} is shadowed by the earlier {earlier}");
                    }
                }
            }
        }
    }

    /// Whether the pattern `pattern` (segments `{name}` match any one segment) matches the literal
    /// segments of `path`; a `{...}` segment of `path` only matches a `{...}` segment.
    fn pattern_matches(pattern: &str, path: &str) -> bool {
        let (a, b): (Vec<_>, Vec<_>) = (pattern.split('/').collect(), path.split('/').collect());
        a.len() == b.len()
            && a.iter().zip(&b).all(|(p, s)| {
                if p.starts_with('{') && p.contains(':') {
                    false // a regex segment: only the catch-alls have one, checked above
                } else {
                    p.starts_with('{') || p == s
                }
            })
    }
}
