//! A site with a page of every kind, for the style and accessibility tests: two accounts with a
//! rated game (a profile with a rating chart, a leaderboard, a finished game), a game to watch,
//! an open challenge, and for the browser's own account a challenge, a notification and a token.

use super::*;
use crate::round::{Browser as Http, Sock, play_line, two_guests};

const FOOLS_MATE: [&str; 4] = ["f2f3", "e7e5", "g2g4", "d8h4"];

/// A page to look at: where it is, what it is, and what shows it is ready.
#[derive(Debug, Clone)]
pub(super) struct Page {
    /// What the page is ("profile", "live game as a player").
    pub kind: &'static str,
    pub path: String,
    /// A JavaScript expression that holds once the page has drawn what it is about.
    pub ready: String,
}

impl Page {
    fn new(kind: &'static str, path: impl Into<String>, ready: &str) -> Page {
        Page { kind, path: path.into(), ready: ready.to_string() }
    }
}

/// Drawn by the board's script.
const BOARD_READY: &str = "document.querySelector('#board-app .cg-board .piece')";
/// A live game page connected to its socket.
const LIVE_READY: &str = "document.querySelector('#board-app.cg-live .cg-board .piece')";
/// The player's own running Chess Gold game, with its shop.
pub(super) const PLAYING: &str =
    "document.querySelector('#board-app[data-live=\"started\"] .cg-shop .shop-item[data-piece=\"N\"]')";

/// The site's data, made through the app as players make it.
pub(super) struct Site {
    pub app: TestApp,
    /// The rated game between bob (White) and carol, over by mate.
    pub finished: String,
    /// A running game between two guests (30+20, two moves played), for spectators.
    pub watched: String,
    /// bob's open challenge link.
    pub open_challenge: String,
    /// bob's open challenge for two others, by its White seat's link.
    pub open_for_two: String,
    bob: Http,
}

impl Site {
    /// Builds the data on a fresh app.
    pub async fn build() -> Site {
        let app = spawn_app().await;
        let bob = Http::new(&app.address);
        let carol = Http::new(&app.address);
        bob.signup("bob").await;
        carol.signup("carol").await;
        let finished = bob.create("standard", "5+0", "rated", "white").await;
        carol.join(&finished).await;
        let mut ws = bob.socket(&finished, None).await;
        let mut bs = carol.socket(&finished, None).await;
        ws.until("full").await;
        bs.until("full").await;
        play_line(&mut ws, &mut bs, 0, &FOOLS_MATE).await;
        bs.until("end").await;
        // Ten rated games make a leaderboard line; playing them all would take minutes.
        sqlx::query("UPDATE user_ratings SET games = 12").execute(&app.db_pool).await.expect("ratings updated");
        // A long game with both first moves made: it is neither aborted nor lost on time while
        // the tests look at it.
        let (watched, _, _, mut white, mut black) = two_guests(&app.address, "gold", "30+20").await;
        play_line(&mut white, &mut black, 0, &["e1d1", "e8d8"]).await;
        let fields = [("variant", "gold"), ("time", "10+5"), ("mode", "casual"), ("color", "random")];
        let open = bob.post_form("/@/bob", "/challenge/open", &fields).await;
        assert_eq!(open.status().as_u16(), 303, "an open challenge");
        let open_challenge = location_of(&open);
        // Lichess's open challenge, for two others, made on the API with a token of bob's.
        let user = chessgold::db::users::find_by_name(&app.db_pool, "bob").await.expect("bob").expect("bob");
        let (token, hash) = chessgold::api::auth::new_token().expect("a token");
        let scopes = ["challenge:write".to_string()];
        chessgold::db::tokens::insert(&app.db_pool, user.id, "walk", &scopes, &hash).await.expect("a token stored");
        let made = reqwest::Client::new()
            .post(app.url("/api/challenge/open"))
            .bearer_auth(&token)
            .form(&[("clock.limit", "300"), ("clock.increment", "3")])
            .send()
            .await
            .expect("an open challenge for two");
        let made: serde_json::Value = made.json().await.expect("its JSON");
        let open_for_two = format!("/challenge/{}?color=white", made["id"].as_str().expect("its id"));
        Site { app, finished, watched, open_challenge, open_for_two, bob }
    }

    /// bob challenges `name` (an account); returns the challenge page's path.
    pub async fn challenge(&self, name: &str) -> String {
        let fields = [("variant", "gold"), ("time", "5+3"), ("mode", "casual"), ("color", "white")];
        let r = self.bob.post_form(&format!("/@/{name}"), &format!("/@/{name}/challenge"), &fields).await;
        assert_eq!(r.status().as_u16(), 303, "bob challenges {name}");
        location_of(&r)
    }

    /// Pages that look the same to everyone, and those of a signed-out visitor.
    pub fn pages(&self) -> Vec<Page> {
        let done = "document.readyState === 'complete'";
        vec![
            Page::new("home", "/", "document.querySelector('[data-lobby]').dataset.connected === 'true'"),
            Page::new("sign in", "/login", done),
            Page::new("sign up", "/signup", done),
            Page::new("variant rules", "/variant/gold", done),
            Page::new("pass and play", "/local/gold", BOARD_READY),
            Page::new("play with a friend", "/game/new", done),
            Page::new("play with the computer", "/game/computer", done),
            Page::new("profile", "/@/bob", "document.querySelector('.rating-chart')"),
            Page::new("leaderboards", "/player", done),
            Page::new("leaderboard", "/player/standard", "document.querySelector('.leaders-table')"),
            Page::new("challenge", self.open_challenge.clone(), done),
            Page::new("open challenge for two", self.open_for_two.clone(), done),
            Page::new("live game as a spectator", format!("/{}", self.watched), LIVE_READY),
            Page::new("finished game", format!("/{}", self.finished), LIVE_READY),
            Page::new("error 404", "/@/nobody-here", done),
            Page::new("error 400", "/@/bob?page=first", done),
        ]
    }

    /// Pages of a signed-in player, besides [`Site::pages`]: the challenge to them (and its
    /// notification on every page), their token list with a token, and the password form, the sessions.
    pub fn account_pages(challenge: &str) -> Vec<Page> {
        let done = "document.readyState === 'complete'";
        vec![
            Page::new("challenge to the player", challenge, done),
            Page::new("API tokens", "/account/tokens", "document.querySelector('tr.token')"),
            Page::new("change password", "/account/password", done),
            Page::new("blocked players", "/account/blocks", done),
            Page::new("sessions", "/account/sessions", "document.querySelector('tr.session.current')"),
        ]
    }

    /// The moderators' pages (the signed-in player is made a moderator for them).
    pub fn mod_pages() -> Vec<Page> {
        let done = "document.readyState === 'complete'";
        vec![
            Page::new("report queue", "/mod", done),
            Page::new("mod search", "/mod/search?q=b", "document.getElementById('results')"),
            Page::new("mod search by address", "/mod/search?q=127.0.0.1", "document.getElementById('logins')"),
            Page::new("mod view", "/mod/@/bob", done),
            Page::new("mod analysis", "/mod/@/bob/analysis", done),
            Page::new("mod log", "/mod/log", done),
        ]
    }
}

/// The guest who joined the browser's game. Its socket is opened for each command: an idle
/// socket is closed by the server.
pub(super) struct Opponent {
    guest: Http,
    game: String,
}

impl Opponent {
    pub async fn socket(&self) -> Sock {
        let mut socket = self.guest.socket(&self.game, None).await;
        socket.until("full").await;
        socket
    }

    /// Resigns the game.
    pub async fn resign(&self) {
        let answer = self.socket().await.command("resign").await;
        assert_eq!(answer["t"], "ack", "the opponent resigns: {answer}");
    }
}

fn location_of(r: &reqwest::Response) -> String {
    r.headers()["location"].to_str().expect("a location").to_string()
}

impl Browser {
    /// Chooses the colour theme for the pages opened from now on (a page of the site must be
    /// open: the theme is kept in its localStorage, as the header's toggle keeps it).
    pub(super) async fn set_theme(&self, theme: Theme) {
        self.js(&format!(
            "localStorage.setItem('cg-theme', '{0}'); document.documentElement.dataset.theme = '{0}'; return null;",
            theme.name()
        ))
        .await;
    }

    /// Opens a page and waits until it is ready.
    pub(super) async fn visit(&self, page: &Page) {
        self.goto(&page.path).await;
        self.wait_for(&format!("the {} page ({})", page.kind, page.path), &page.ready).await;
        // Colours are read once fades and transitions are over (endless ones aside).
        self.wait_for(
            "the page's animations to end",
            "document.getAnimations().every(a => a.playState !== 'running' || a.effect.getComputedTiming().endTime === Infinity)",
        )
        .await;
    }

    /// Creates a Chess Gold game with the "play with a friend" form, as White, with `time`; a
    /// guest joins it. Returns the game's path, once the page shows the started game with its
    /// shop, and the guest.
    pub(super) async fn play_gold_as_white(&self, app: &TestApp, time: &str) -> (String, Opponent) {
        self.goto("/game/new").await;
        self.wait_for("the new game form", "document.querySelector('form.new-game')").await;
        self.js(&format!(
            "const f = document.querySelector('form.new-game'); f.variant.value = 'gold'; f.time.value = '{time}';
             f.querySelector('[name=color][value=white]').checked = true; f.submit(); return null;"
        ))
        .await;
        self.wait_for("the game page", "document.querySelector('#board-app.cg-live')").await;
        let path = self.js("return location.pathname;").await.as_str().expect("a path").to_string();
        let guest = Http::new(&app.address);
        let game = path.trim_start_matches('/').to_string();
        guest.join(&game).await;
        self.wait_for("the started game with its shop", PLAYING).await;
        (path, Opponent { guest, game })
    }

    /// White buys a knight and places it on c3 with two clicks, then the opponent moves its
    /// king: both first moves are made, so the game is not aborted while the test looks at it.
    pub(super) async fn make_first_moves(&self, opponent: &Opponent) {
        self.click(r#".cg-shop .shop-item[data-piece="N"]"#).await;
        self.wait_for("the lit squares", r#"document.querySelector('.cg-board .sq.drop[data-square="c3"]')"#).await;
        self.click_square("c3").await;
        self.wait_ply("White", 1).await;
        let answer = opponent.socket().await.act("e8d8", 1).await;
        assert_eq!(answer["t"], "ack", "Black's first move: {answer}");
        self.wait_ply("White", 2).await;
    }

    /// Aborts the game the page shows (so that the player may start another one).
    pub(super) async fn abort_game(&self) {
        self.click(r#"[data-live="abort"]"#).await;
        self.wait_for("the game aborted", "document.querySelector('#board-app').dataset.live === 'aborted'").await;
    }

    /// Creates a personal API token with the form.
    pub(super) async fn create_token(&self) {
        self.goto("/account/tokens").await;
        self.wait_for("the token form", "document.getElementById('description')").await;
        self.js(
            "const d = document.getElementById('description'); d.value = 'my board'; d.form.submit(); return null;",
        )
        .await;
        self.wait_for("the new token", "document.getElementById('new-token') && document.querySelector('tr.token')")
            .await;
    }
}
