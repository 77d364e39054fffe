//! Challenges: an account challenges another by name (who sees it live and accepts or declines
//! with a reason), or creates an open challenge whose link anyone may accept (a guest only when it
//! is casual), or, as lichess's open challenge, one for two others, who take White and Black by
//! its links (the first to take a seat is an account and becomes its challenger). The challenger
//! can cancel; unanswered challenges lapse. Accepting creates the game under the challenge's id
//! and tells both accounts (`gameStart` on their event streams).

use chessgold_engine::Color;
use serde_json::{Value, json};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::db;
use crate::db::challenges::{ChallengeRow, NewChallenge};
use crate::game::store::{self, Busy, CreateError};
use crate::game::{CreateGame, GameId, PlayerRef, TimeControl, parse_color};
use crate::lobby::{LobbyCtx, random_color};
use crate::moderation::blocks;
use crate::notify::{self, UserMsg};

/// Minutes a challenge waits for an answer.
pub const EXPIRES_MINUTES: i64 = 20;

/// Lichess's decline reasons (keys).
pub const DECLINE_REASONS: [&str; 12] = [
    "generic",
    "later",
    "tooFast",
    "tooSlow",
    "timeControl",
    "rated",
    "casual",
    "standard",
    "variant",
    "noBot",
    "onlyBot",
    "notNow",
];

/// The most pending challenges an account may have received, and the most it may have sent.
pub const MAX_PENDING: i64 = 20;

/// Why a challenge request failed.
#[derive(Debug, thiserror::Error)]
pub enum ChallengeError {
    /// No such (pending) challenge, or no such user.
    #[error("{0}")]
    NotFound(String),
    /// Not the caller's to answer or cancel.
    #[error("{0}")]
    Forbidden(String),
    /// A bad request.
    #[error("{0}")]
    Invalid(String),
    /// A player of a challenge with a clock is in another started game with a clock, so its game
    /// cannot start now (nobody plays two at a time).
    #[error("{message}")]
    Busy {
        /// Who, and in which game.
        busy: Busy,
        /// The asking player is the busy one (a page links to their game).
        yours: bool,
        /// Plain words for the asking player.
        message: String,
    },
    /// Infrastructure failure.
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

impl From<CreateError> for ChallengeError {
    fn from(e: CreateError) -> Self {
        match e {
            CreateError::Invalid(m) => ChallengeError::Invalid(m),
            CreateError::Busy(b) => ChallengeError::Busy {
                message: format!(
                    "{} is playing another game with a clock right now, so this game cannot start.",
                    b.name
                ),
                busy: b,
                yours: false,
            },
            CreateError::Other(e) => ChallengeError::Other(e),
        }
    }
}

/// Refuses to send a challenge with a clock that could not start: the challenger, or the
/// challenged account, is in a started game with a clock. (Lichess's challenge is answered when
/// it is sent, not when it is accepted.)
async fn check_free(ctx: &LobbyCtx, challenger: Uuid, dest: Option<(Uuid, &str)>) -> Result<(), ChallengeError> {
    if let Some(busy) = store::busy(&ctx.pool, &[PlayerRef::User(challenger)]).await? {
        return Err(ChallengeError::Busy {
            busy,
            yours: true,
            message: "You are playing a game with a clock: finish it before you send a challenge with a clock, \
                      or send one without a clock."
                .into(),
        });
    }
    if let Some((id, name)) = dest
        && let Some(busy) = store::busy(&ctx.pool, &[PlayerRef::User(id)]).await?
    {
        return Err(ChallengeError::Busy {
            busy,
            yours: false,
            message: format!(
                "{name} is playing a game with a clock right now: challenge them when it is over, \
                 or send a challenge without a clock."
            ),
        });
    }
    Ok(())
}

/// The settings of a new challenge.
#[derive(Debug, Clone)]
pub struct Terms {
    /// Variant id.
    pub variant: String,
    /// `None`: unlimited.
    pub clock: Option<TimeControl>,
    /// Rated.
    pub rated: bool,
    /// The challenger's colour: `white`, `black`, `random`.
    pub color: String,
    /// The position text the game starts from (lichess's `fen`); `None`: the variant's start.
    pub initial_fen: Option<String>,
}

/// Checks terms against the registry and the rules of rated games.
///
/// # Errors
/// [`ChallengeError::Invalid`] with a sentence.
pub fn check_terms(t: &Terms) -> Result<(), ChallengeError> {
    let Some(info) = chessgold_engine::registry::variant(&t.variant) else {
        return Err(ChallengeError::Invalid(format!(
            "unknown variant '{}'",
            t.variant.chars().take(30).collect::<String>()
        )));
    };
    if let Some(fen) = &t.initial_fen {
        crate::game::model::check_start_position(info, fen, t.rated).map_err(ChallengeError::Invalid)?;
    }
    if t.rated && t.clock.is_none() {
        return Err(ChallengeError::Invalid("rated games need a time control".into()));
    }
    if !matches!(t.color.as_str(), "white" | "black" | "random") {
        return Err(ChallengeError::Invalid("color is white, black or random".into()));
    }
    Ok(())
}

/// Who a challenge is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dest<'a> {
    /// The account of that name.
    User(&'a str),
    /// Whoever opens its link and accepts first plays the challenger.
    Anyone,
    /// Two others, who take White and Black by its links (lichess's open challenge); its maker
    /// does not play unless they take a seat too. With names (lichess's `users`), only those
    /// two accounts may, the first White and the second Black.
    TwoOthers(Option<(&'a str, &'a str)>),
}

/// The account named `name`, or `NotFound` saying so.
async fn account(ctx: &LobbyCtx, name: &str) -> Result<db::users::UserRow, ChallengeError> {
    db::users::find_by_name(&ctx.pool, name).await?.ok_or_else(|| {
        ChallengeError::NotFound(format!("no user named '{}'", name.chars().take(30).collect::<String>()))
    })
}

/// Creates a challenge from an account to `dest`, and tells both accounts.
///
/// # Errors
/// Unknown destination, a challenge to oneself, bad terms, infrastructure failures.
pub async fn create(
    ctx: &LobbyCtx,
    challenger: Uuid,
    dest: Dest<'_>,
    terms: &Terms,
) -> Result<ChallengeRow, ChallengeError> {
    check_terms(terms)?;
    let for_two = matches!(dest, Dest::TwoOthers(_));
    if for_two && terms.color != "random" {
        return Err(ChallengeError::Invalid(
            "color: the two players of an open challenge choose theirs by its links".into(),
        ));
    }
    if let Some(ban) = crate::moderation::playban::play_ban(&ctx.pool, challenger).await? {
        return Err(ChallengeError::Invalid(ban.message(OffsetDateTime::now_utc())));
    }
    let dest_names = if let Dest::TwoOthers(names) = dest { names } else { None };
    let dest = match dest {
        Dest::User(name) => {
            let u = account(ctx, name).await?;
            if u.id == challenger {
                return Err(ChallengeError::Invalid("you cannot challenge yourself".into()));
            }
            if blocks::blocks(&ctx.pool, u.id, challenger).await? {
                return Err(ChallengeError::Forbidden(format!("{} does not accept challenges from you", u.username)));
            }
            if blocks::blocks(&ctx.pool, challenger, u.id).await? {
                return Err(ChallengeError::Forbidden(format!(
                    "you block {}: unblock them to challenge them",
                    u.username
                )));
            }
            // Nobody is flooded with challenges: a few dozen wait at most (they lapse or are
            // answered; the database counts them, so every instance agrees).
            if db::challenges::pending_counts(&ctx.pool, u.id).await?.0 >= MAX_PENDING {
                return Err(ChallengeError::Forbidden(format!(
                    "{} has {MAX_PENDING} challenges waiting already: try again in a few minutes",
                    u.username
                )));
            }
            Some((u.id, u.username))
        }
        Dest::Anyone | Dest::TwoOthers(_) => None,
    };
    let open_users = match dest_names {
        Some((white, black)) => {
            let (w, b) = (account(ctx, white).await?.id, account(ctx, black).await?.id);
            if w == b {
                return Err(ChallengeError::Invalid("users: two different players".into()));
            }
            Some((w, b))
        }
        None => None,
    };
    if db::challenges::pending_counts(&ctx.pool, challenger).await?.1 >= MAX_PENDING {
        return Err(ChallengeError::Forbidden(format!(
            "you have {MAX_PENDING} challenges waiting for an answer: cancel one or wait for them to lapse"
        )));
    }
    if terms.clock.is_some() && !for_two {
        check_free(ctx, challenger, dest.as_ref().map(|(id, name)| (*id, name.as_str()))).await?;
    }
    let dest_id = dest.map(|(id, _)| id);
    let id = GameId::random()?.to_string();
    let row = NewChallenge {
        id: id.clone(),
        challenger_id: challenger,
        dest_id,
        variant: terms.variant.clone(),
        clock_limit: terms.clock.map(|c| c.limit),
        clock_increment: terms.clock.map(|c| c.increment),
        rated: terms.rated,
        color: terms.color.clone(),
        final_color: match parse_color(&terms.color) {
            Some(c) => c,
            None => random_color()?,
        }
        .name()
        .to_string(),
        for_two,
        open_users,
        initial_fen: terms.initial_fen.clone(),
        expires_at: OffsetDateTime::now_utc() + time::Duration::minutes(EXPIRES_MINUTES),
    };
    db::challenges::insert(&ctx.pool, &row).await?;
    let stored =
        db::challenges::find(&ctx.pool, &id).await?.ok_or_else(|| anyhow::anyhow!("challenge {id} vanished"))?;
    let broker = ctx.lobby.broker();
    notify::send(broker, challenger, &UserMsg::Challenge { id: id.clone() }).await;
    if let Some(d) = dest_id {
        notify::send(broker, d, &UserMsg::Challenge { id }).await;
    }
    tracing::info!(challenge.id = %stored.id, open = dest_id.is_none(), "challenge created");
    Ok(stored)
}

/// A pending challenge, or `NotFound`.
async fn pending(ctx: &LobbyCtx, id: &str) -> Result<ChallengeRow, ChallengeError> {
    let row = match GameId::parse(id) {
        Some(_) => db::challenges::find(&ctx.pool, id).await?,
        None => None,
    };
    match row {
        Some(c) if c.status == "created" && c.expires_at > OffsetDateTime::now_utc() => Ok(c),
        Some(_) => Err(ChallengeError::NotFound("the challenge is no longer open".into())),
        None => Err(ChallengeError::NotFound("no such challenge".into())),
    }
}

/// What accepting a challenge did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Accepted {
    /// The game started, under the challenge's id.
    Started(GameId),
    /// The first seat of a challenge for two was taken: the challenge waits for the second
    /// player, with the taker as its challenger.
    Seated,
}

/// Accepts a challenge: creates its game (the challenge's id) and tells both accounts; or, for
/// a challenge made for two others, takes its first seat. `color` is the colour the caller asks
/// for: the seat they take first, else it must be the one the challenge leaves them.
///
/// # Errors
/// Not pending, not the caller's to accept (another account's challenge, the challenger's own,
/// a guest and a rated challenge, a guest and a first seat), a colour that is taken,
/// infrastructure failures.
pub async fn accept(
    ctx: &LobbyCtx,
    id: &str,
    who: PlayerRef,
    color: Option<Color>,
) -> Result<Accepted, ChallengeError> {
    let c = pending(ctx, id).await?;
    if c.for_two {
        let PlayerRef::User(user) = who else {
            return Err(ChallengeError::Forbidden(
                "sign in to take the first seat of an open challenge; a guest may take the second one".into(),
            ));
        };
        if let Some(ban) = crate::moderation::playban::play_ban(&ctx.pool, user).await? {
            return Err(ChallengeError::Invalid(ban.message(OffsetDateTime::now_utc())));
        }
        // A challenge for two named accounts: each has their seat, and the other one is the
        // only one who may take the second.
        let (named, other) = match c.open_users() {
            Some((w, b)) if user == w => (Some(Color::White), Some(b)),
            Some((w, b)) if user == b => (Some(Color::Black), Some(w)),
            Some(_) => {
                let name = |n: &Option<String>| n.clone().unwrap_or_default();
                return Err(ChallengeError::Forbidden(format!(
                    "this challenge is for {} and {} only",
                    name(&c.open_white_name),
                    name(&c.open_black_name)
                )));
            }
            None => (None, None),
        };
        if let (Some(seat), Some(asked)) = (named, color)
            && seat != asked
        {
            return Err(ChallengeError::Invalid(format!("color: your seat in this challenge is {}", seat.name())));
        }
        if c.clock_limit.is_some() {
            check_free(ctx, user, None).await?;
        }
        let color = match named.or(color).or_else(|| c.final_color.as_deref().and_then(parse_color)) {
            Some(col) => col,
            None => random_color()?,
        };
        if !db::challenges::take_first_seat(&ctx.pool, &c.id, user, color.name(), other).await? {
            return Err(ChallengeError::NotFound("the challenge is no longer open".into()));
        }
        // The taker follows it as their own challenge, on their event stream and its page; the
        // other named account, if any, now has it to accept, as a challenge sent to them.
        notify::send(ctx.lobby.broker(), user, &UserMsg::Challenge { id: c.id.clone() }).await;
        if let Some(o) = other {
            notify::send(ctx.lobby.broker(), o, &UserMsg::Challenge { id: c.id.clone() }).await;
        }
        tracing::info!(challenge.id = %c.id, "first seat of an open challenge taken");
        return Ok(Accepted::Seated);
    }
    if let Some(asked) = color {
        let theirs = c.final_color.as_deref().or(Some(c.color.as_str())).and_then(parse_color);
        if theirs == Some(asked) {
            return Err(ChallengeError::Invalid(format!(
                "color: {} is taken in this challenge; accept it as {}",
                asked.name(),
                (!asked).name()
            )));
        }
    }
    match (&who, c.dest_id) {
        (PlayerRef::User(u), _) if *u == c.challenger_id => {
            return Err(ChallengeError::Invalid("you cannot accept your own challenge".into()));
        }
        (PlayerRef::User(u), Some(d)) if *u != d => {
            return Err(ChallengeError::NotFound("no such challenge for you".into()));
        }
        (PlayerRef::Guest(_), Some(_)) => return Err(ChallengeError::NotFound("no such challenge for you".into())),
        (PlayerRef::Guest(_), None) if c.rated => {
            return Err(ChallengeError::Forbidden("log in to accept a rated challenge".into()));
        }
        _ => {}
    }
    if !db::challenges::answer(&ctx.pool, &c.id, "accepted", None).await? {
        return Err(ChallengeError::NotFound("the challenge is no longer open".into()));
    }
    let creator_color = match c.final_color.as_deref().or(Some(c.color.as_str())).and_then(parse_color) {
        Some(col) => col,
        None => random_color()?,
    };
    let request = CreateGame {
        variant: c.variant.clone(),
        clock: match (c.clock_limit, c.clock_increment) {
            (Some(l), Some(i)) => TimeControl::new(l, i),
            _ => None,
        },
        rated: c.rated,
        source: crate::game::Source::Friend,
        initial_fen: c.initial_fen.clone(),
        creator: PlayerRef::User(c.challenger_id),
        creator_color,
        opponent: Some(who.clone()),
    };
    let game_id = GameId::parse(&c.id).ok_or_else(|| anyhow::anyhow!("challenge id {} is not a game id", c.id))?;
    let players = vec![PlayerRef::User(c.challenger_id), who];
    let game = match store::create_game_with_id(&ctx.pool, game_id, request, &ctx.cfg).await {
        Ok(game) => game,
        Err(e) => {
            // No game (a player is busy with another one, or the database failed): the
            // challenge stays open for a later answer.
            if let Err(r) = db::challenges::reopen(&ctx.pool, &c.id).await {
                tracing::warn!(error = format!("{r:#}"), "reopening a challenge failed");
            }
            return Err(match e {
                CreateError::Busy(busy) if busy.player == players[1] => ChallengeError::Busy {
                    busy,
                    yours: true,
                    message: "You are playing a game with a clock: finish it, then accept this challenge. \
                              It stays open until then."
                        .into(),
                },
                CreateError::Busy(busy) => ChallengeError::Busy {
                    message: format!(
                        "{} is playing another game with a clock right now, so this game cannot start. \
                         The challenge stays open: accept it when that game is over.",
                        busy.name
                    ),
                    busy,
                    yours: false,
                },
                other => other.into(),
            });
        }
    };
    super::game_started(ctx, &players, &game).await;
    tracing::info!(game.id = %game, "challenge accepted");
    Ok(Accepted::Started(game))
}

/// Declines a challenge sent to the account, with a lichess reason key.
///
/// # Errors
/// Not pending, not the account's, an unknown reason.
pub async fn decline(ctx: &LobbyCtx, id: &str, user: Uuid, reason: Option<&str>) -> Result<(), ChallengeError> {
    let reason = reason.filter(|r| !r.is_empty()).unwrap_or("generic");
    if !DECLINE_REASONS.contains(&reason) {
        return Err(ChallengeError::Invalid(format!("reason is one of {}", DECLINE_REASONS.join(", "))));
    }
    let c = pending(ctx, id).await?;
    if c.dest_id != Some(user) {
        return Err(ChallengeError::NotFound("no such challenge for you".into()));
    }
    if !db::challenges::answer(&ctx.pool, &c.id, "declined", Some(reason)).await? {
        return Err(ChallengeError::NotFound("the challenge is no longer open".into()));
    }
    let msg = UserMsg::ChallengeDeclined { id: c.id.clone() };
    notify::send(ctx.lobby.broker(), c.challenger_id, &msg).await;
    notify::send(ctx.lobby.broker(), user, &msg).await;
    Ok(())
}

/// Cancels a challenge the account sent.
///
/// # Errors
/// Not pending, not the account's.
pub async fn cancel(ctx: &LobbyCtx, id: &str, user: Uuid) -> Result<(), ChallengeError> {
    let c = pending(ctx, id).await?;
    if c.challenger_id != user {
        return Err(ChallengeError::NotFound("no such challenge of yours".into()));
    }
    if !db::challenges::answer(&ctx.pool, &c.id, "canceled", None).await? {
        return Err(ChallengeError::NotFound("the challenge is no longer open".into()));
    }
    let msg = UserMsg::ChallengeCanceled { id: c.id.clone() };
    notify::send(ctx.lobby.broker(), user, &msg).await;
    if let Some(d) = c.dest_id {
        notify::send(ctx.lobby.broker(), d, &msg).await;
    }
    Ok(())
}

/// Cancels the challenges nobody answered in time and tells their accounts
/// (`challengeCanceled`).
///
/// # Errors
/// Database failures.
pub async fn lapse_expired(ctx: &LobbyCtx) -> anyhow::Result<()> {
    for c in db::challenges::lapse_expired(&ctx.pool).await? {
        let msg = UserMsg::ChallengeCanceled { id: c.id.clone() };
        notify::send(ctx.lobby.broker(), c.challenger_id, &msg).await;
        if let Some(d) = c.dest_id {
            notify::send(ctx.lobby.broker(), d, &msg).await;
        }
    }
    Ok(())
}

/// Lichess's challenge JSON; `viewer` sets `direction` (`in` / `out`).
pub fn challenge_json(c: &ChallengeRow, base: &str, viewer: Option<Uuid>) -> Value {
    let info = chessgold_engine::registry::variant(&c.variant);
    let clock = match (c.clock_limit, c.clock_increment) {
        (Some(l), Some(i)) => TimeControl::new(l, i),
        _ => None,
    };
    let time_control = match clock {
        Some(tc) => {
            json!({"type": "clock", "limit": tc.limit / 100, "increment": tc.increment / 100, "show": tc.show()})
        }
        None => json!({"type": "unlimited"}),
    };
    let user = |name: &str, bot: bool, rating: Option<i32>, games: Option<i32>| {
        json!({"id": name.to_lowercase(), "name": name, "title": bot.then_some(crate::domain::BOT_TITLE),
               "rating": rating.unwrap_or(crate::rating::START),
               "provisional": games.unwrap_or(0) < crate::rating::PROVISIONAL_GAMES})
    };
    let status =
        if c.status == "created" && c.expires_at <= OffsetDateTime::now_utc() { "canceled" } else { c.status.as_str() };
    let mut v = json!({
        "id": c.id,
        "url": format!("{base}/challenge/{}", c.id),
        "status": status,
        // A challenge for two others has no challenger until someone takes a seat, as on lichess.
        "challenger": if c.for_two {
            Value::Null
        } else {
            user(&c.challenger_name, c.challenger_bot, c.challenger_rating, c.challenger_games)
        },
        "destUser": c.dest_name.as_deref().map_or(Value::Null, |d| {
            user(d, c.dest_bot.unwrap_or(false), c.dest_rating, c.dest_games)
        }),
        "variant": {"key": c.variant, "name": info.map_or(c.variant.as_str(), |i| i.name), "short": info.map_or(c.variant.as_str(), |i| i.name)},
        "rated": c.rated,
        "speed": crate::game::Speed::of(clock).key(),
        "timeControl": time_control,
        "color": c.color,
        "perf": {"icon": "", "name": info.map_or(c.variant.as_str(), |i| i.name)},
        "createdAt": crate::domain::unix_ms(c.created_at),
        "expiresAt": crate::domain::unix_ms(c.expires_at),
    });
    if let Some(obj) = v.as_object_mut() {
        if let Some(viewer) = viewer {
            let dir = if viewer == c.challenger_id { "out" } else { "in" };
            obj.insert("direction".into(), Value::from(dir));
        }
        let drawn = c.final_color.as_deref().or((c.color != "random").then_some(c.color.as_str()));
        if c.for_two {
            // The seats' links, as lichess gives them.
            let open = match (&c.open_white_name, &c.open_black_name) {
                (Some(w), Some(b)) => json!({"userIds": [w.to_lowercase(), b.to_lowercase()]}),
                _ => json!({}),
            };
            obj.insert("open".into(), open);
            obj.insert("urlWhite".into(), Value::from(format!("{base}/challenge/{}?color=white", c.id)));
            obj.insert("urlBlack".into(), Value::from(format!("{base}/challenge/{}?color=black", c.id)));
        } else if let Some(color) = drawn {
            obj.insert("finalColor".into(), Value::from(color));
        }
        if let Some(fen) = &c.initial_fen {
            obj.insert("initialFen".into(), Value::from(fen.as_str()));
        }
        if let Some(r) = &c.decline_reason {
            obj.insert("declineReasonKey".into(), Value::from(r.as_str()));
            obj.insert("declineReason".into(), Value::from(decline_text(r)));
        }
    }
    v
}

/// The sentence of a decline reason.
pub fn decline_text(key: &str) -> &'static str {
    match key {
        "later" => "I'm not accepting challenges at the moment, please ask again later.",
        "tooFast" => "This time control is too fast for me, please challenge again with a slower game.",
        "tooSlow" => "This time control is too slow for me, please challenge again with a faster game.",
        "timeControl" => "I'm not accepting challenges with this time control.",
        "rated" => "Please send me a rated challenge instead.",
        "casual" => "Please send me a casual challenge instead.",
        "standard" => "I'm not accepting variant challenges right now.",
        "variant" => "I'm not willing to play this variant right now.",
        "noBot" => "I'm not accepting challenges from bots.",
        "onlyBot" => "I'm only accepting challenges from bots.",
        "notNow" => "I'm not accepting challenges right now.",
        _ => "I'm not accepting challenges at the moment.",
    }
}
