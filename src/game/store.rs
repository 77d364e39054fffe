//! Making games durable: creating them, loading them (replaying their actions through the
//! engine), and committing a [`Step`] in one transaction guarded by the game's version.

use anyhow::Context;
use chessgold_engine::Color;
use chessgold_engine::registry::variant;
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use time::OffsetDateTime;

use super::model::{ActionRec, CreateGame, Game, Offers, PlayerRef, Seat, Step, hex, replay};
use super::view::{self, Event};
use super::{GameId, Status, TimeControl, parse_color, random_base62};
use crate::db;
use crate::db::games::{ActionRow, GameRow, PlayerRow};
use crate::rating::{self, Perf};
use crate::settings::GameSettings;

/// Why a commit did not happen.
#[derive(Debug, thiserror::Error)]
pub enum CommitError {
    /// Someone else changed the game first (another tab, another instance, the sweeper).
    #[error("the game changed meanwhile")]
    Conflict,
    /// The step would start a game with a clock while one of its players is in another
    /// (nothing was written).
    #[error("{} is playing another game with a clock", .0.name)]
    Busy(Busy),
    /// Infrastructure failure.
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

/// Why a game could not be created.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    /// A bad request, with a sentence.
    #[error("{0}")]
    Invalid(String),
    /// A player is in another started game with a clock: nobody plays two at a time.
    #[error("{} is already playing a game", .0.name)]
    Busy(Busy),
    /// Infrastructure failure.
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

/// A player in a started game with a clock, and that game: what stops a new clocked game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Busy {
    /// The busy player.
    pub player: PlayerRef,
    /// Their name as shown (`Anonymous` for a guest).
    pub name: String,
    /// The game they play.
    pub game: GameId,
}

/// The first of `players` (bots aside) found in a started game with a clock.
///
/// # Errors
/// Database failures.
pub async fn busy(db: impl sqlx::PgExecutor<'_>, players: &[PlayerRef]) -> anyhow::Result<Option<Busy>> {
    let users: Vec<uuid::Uuid> =
        players.iter().filter_map(|p| if let PlayerRef::User(u) = p { Some(*u) } else { None }).collect();
    let guests: Vec<String> =
        players.iter().filter_map(|p| if let PlayerRef::Guest(g) = p { Some(g.clone()) } else { None }).collect();
    if users.is_empty() && guests.is_empty() {
        return Ok(None);
    }
    let Some(row) = db::games::playing_clocked(db, &users, &guests).await? else { return Ok(None) };
    let player = match (row.user_id, row.guest_id) {
        (Some(u), _) => PlayerRef::User(u),
        (None, Some(g)) => PlayerRef::Guest(g),
        (None, None) => anyhow::bail!("a seat of game {} has no player", row.game_id),
    };
    let game = GameId::parse(&row.game_id).ok_or_else(|| anyhow::anyhow!("bad game id {}", row.game_id))?;
    Ok(Some(Busy { player, name: row.name, game }))
}

fn color_text(c: Option<Color>) -> Option<String> {
    c.map(|c| c.name().to_string())
}

/// A new seat for a player, with the rating shown before the game (rated or casual).
async fn new_seat(pool: &PgPool, who: &PlayerRef, variant_id: &str, cfg: &GameSettings) -> anyhow::Result<Seat> {
    let (user_id, guest_id, bot, name, account_bot) = match who {
        PlayerRef::User(id) => {
            let user = db::users::find_by_id(pool, *id).await?.ok_or_else(|| anyhow::anyhow!("no such user"))?;
            (Some(*id), None, None, user.username, user.bot)
        }
        PlayerRef::Guest(g) => (None, Some(g.clone()), None, "Anonymous".to_string(), false),
        PlayerRef::Bot(level) => (None, None, Some(*level), crate::bots::display_name(*level), false),
    };
    // An account's rating shows in casual games too (as on lichess); only rated games change it.
    let perf = match user_id {
        Some(id) => Some(db::ratings::perf(pool, id, variant_id).await?),
        None => None,
    };
    // A bot shows the estimated rating of its level (bot games are casual: it never changes).
    let shown = perf.map(|p| p.rating).or_else(|| bot.map(|l| l.spec().rating as i32));
    Ok(Seat {
        player_id: random_base62(4)?,
        user_id,
        guest_id,
        bot,
        name,
        rating_before: shown,
        rating_after: None,
        provisional: perf.is_some_and(Perf::provisional),
        lag_quota: cfg.lag_quota_cs,
        last_seen: None,
        account_bot,
    })
}

fn seat_row(color: Color, s: &Seat) -> PlayerRow {
    PlayerRow {
        color: color.name().to_string(),
        player_id: s.player_id.clone(),
        user_id: s.user_id,
        username: None,
        account_bot: false,
        guest_id: s.guest_id.clone(),
        bot_level: s.bot.map(|l| i16::from(l.number())),
        rating_before: s.rating_before,
        rating_after: s.rating_after,
        provisional: s.provisional,
        lag_quota: s.lag_quota,
        last_seen: s.last_seen,
    }
}

/// Checks a creation request and builds its rows (not yet stored).
async fn prepare(
    pool: &PgPool,
    id: GameId,
    req: &CreateGame,
    now: OffsetDateTime,
    cfg: &GameSettings,
) -> Result<(GameRow, Vec<PlayerRow>), CreateError> {
    let info =
        variant(&req.variant).ok_or_else(|| CreateError::Invalid(format!("unknown variant '{}'", req.variant)))?;
    if req.rated {
        if req.clock.is_none() {
            return Err(CreateError::Invalid("rated games need a time control".into()));
        }
        let users = matches!(req.creator, PlayerRef::User(_))
            && req.opponent.as_ref().is_none_or(|o| matches!(o, PlayerRef::User(_)));
        if !users {
            return Err(CreateError::Invalid("only registered players play rated games".into()));
        }
    }
    let has_bot =
        [Some(&req.creator), req.opponent.as_ref()].into_iter().flatten().any(|p| matches!(p, PlayerRef::Bot(_)));
    if has_bot && !crate::bots::plays(info.id) {
        return Err(CreateError::Invalid(format!("the computer does not play {} yet", info.name)));
    }
    if let Some(fen) = &req.initial_fen {
        super::model::check_start_position(info, fen, req.rated).map_err(CreateError::Invalid)?;
    }
    if req.opponent.as_ref() == Some(&req.creator) {
        return Err(CreateError::Invalid("a player cannot play against themselves".into()));
    }
    if let (PlayerRef::User(a), Some(PlayerRef::User(b))) = (&req.creator, &req.opponent)
        && crate::moderation::blocks::is_blocked(pool, *a, *b).await?
    {
        return Err(CreateError::Invalid("these players cannot play each other: one blocks the other".into()));
    }
    for p in [Some(&req.creator), req.opponent.as_ref()].into_iter().flatten() {
        if let PlayerRef::User(u) = p
            && let Some(ban) = crate::moderation::playban::play_ban(pool, *u).await?
        {
            return Err(CreateError::Invalid(ban.message(now)));
        }
    }
    let (seed, salt, commitment) = if info.seeded {
        let mut bytes = [0u8; 40];
        getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no randomness: {e}"))?;
        // Below 2^53, so JavaScript numbers hold it exactly.
        let mut seed_bytes = [0u8; 8];
        seed_bytes.copy_from_slice(&bytes[..8]);
        let seed = u64::from_be_bytes(seed_bytes) >> 11;
        let salt = bytes[8..].to_vec();
        let mut h = Sha256::new();
        h.update(seed.to_be_bytes());
        h.update(&salt);
        (Some(seed as i64), Some(salt), Some(hex(&h.finalize())))
    } else {
        (None, None, None)
    };
    let started = req.opponent.is_some();
    let game = GameRow {
        id: id.to_string(),
        variant: info.id.to_string(),
        seed,
        salt,
        commitment,
        clock_limit: req.clock.map(|c| c.limit),
        clock_increment: req.clock.map(|c| c.increment),
        rated: req.rated,
        source: req.source,
        initial_fen: req.initial_fen.clone(),
        status: if started { Status::Started.id() } else { Status::Created.id() },
        winner: None,
        reason: None,
        version: 1,
        plies: 0,
        turns: 0,
        white_clock: req.clock.map(|c| c.limit),
        black_clock: req.clock.map(|c| c.limit),
        turn_at: started.then_some(now),
        draw_offer: None,
        takeback_offer: None,
        rematch_offer: None,
        rematch_id: None,
        created_at: now,
        started_at: started.then_some(now),
        finished_at: None,
    };
    let mut players = vec![seat_row(req.creator_color, &new_seat(pool, &req.creator, info.id, cfg).await?)];
    if let Some(o) = &req.opponent {
        players.push(seat_row(!req.creator_color, &new_seat(pool, o, info.id, cfg).await?));
    }
    Ok((game, players))
}

async fn insert(db: &mut sqlx::PgConnection, game: &GameRow, players: &[PlayerRow]) -> anyhow::Result<()> {
    db::games::insert_game(db, game).await?;
    for p in players {
        db::games::upsert_player(db, &game.id, p).await?;
    }
    Ok(())
}

/// Creates a game: waiting for an opponent (status 10), or started at once when the opponent is
/// known (status 20). Used by the "play with a friend" form, rematches, and the lobby (issue 6).
///
/// # Errors
/// [`CreateError::Invalid`] for an unknown variant, a rated game without a clock or with a
/// guest, a player against themselves, two accounts one of which blocks the other;
/// infrastructure failures.
pub async fn create_game(pool: &PgPool, req: CreateGame, cfg: &GameSettings) -> Result<GameId, CreateError> {
    create_game_with_id(pool, GameId::random()?, req, cfg).await
}

/// [`create_game`] under a chosen id (an accepted challenge becomes the game of its id, as on
/// lichess).
///
/// # Errors
/// As [`create_game`]; an id in use is an infrastructure failure.
pub async fn create_game_with_id(
    pool: &PgPool,
    id: GameId,
    req: CreateGame,
    cfg: &GameSettings,
) -> Result<GameId, CreateError> {
    let (game, players) = prepare(pool, id.clone(), &req, OffsetDateTime::now_utc(), cfg).await?;
    let mut tx = pool.begin().await.context("starting a transaction")?;
    if req.clock.is_some()
        && let Some(opponent) = &req.opponent
        && let Some(b) = lock_and_check_free(&mut tx, &[req.creator.clone(), opponent.clone()]).await?
    {
        // A game that starts at once with a clock (a pairing, an accepted seek or challenge).
        return Err(CreateError::Busy(b));
    }
    insert(&mut tx, &game, &players).await?;
    tx.commit().await.context("committing a new game")?;
    tracing::info!(game.id = %id, game.variant = %game.variant, rated = game.rated, "game created");
    Ok(id)
}

/// Nobody plays two started games with a clock at a time: locks the players (bots aside) in a
/// fixed order, so racing starts of one player wait for each other and the second one sees the
/// first, then returns the first of them already in such a game.
async fn lock_and_check_free(tx: &mut sqlx::PgConnection, players: &[PlayerRef]) -> anyhow::Result<Option<Busy>> {
    let people: Vec<PlayerRef> = players.iter().filter(|p| !matches!(p, PlayerRef::Bot(_))).cloned().collect();
    let mut keys: Vec<String> = people.iter().map(player_lock_key).collect();
    keys.sort();
    for key in &keys {
        db::games::lock_player(&mut *tx, key).await?;
    }
    busy(&mut *tx, &people).await
}

/// The advisory-lock key of a player.
fn player_lock_key(p: &PlayerRef) -> String {
    match p {
        PlayerRef::User(u) => format!("player:u:{u}"),
        PlayerRef::Guest(g) => format!("player:g:{g}"),
        PlayerRef::Bot(l) => format!("player:bot:{}", l.number()),
    }
}

/// Loads a game and replays its actions through the engine.
///
/// # Errors
/// Database failures or a corrupt record.
pub async fn load(pool: &PgPool, id: &GameId) -> anyhow::Result<Option<Game>> {
    let Some(g) = db::games::find(pool, id.as_str()).await? else {
        return Ok(None);
    };
    let players = db::games::players(pool, id.as_str()).await?;
    let actions = db::games::actions(pool, id.as_str()).await?;
    let info = variant(&g.variant).ok_or_else(|| anyhow::anyhow!("game {id} has unknown variant {}", g.variant))?;
    let seed = g.seed.map(|s| s as u64);
    let texts: Vec<String> = actions.iter().map(|a| a.action.clone()).collect();
    let (engine, _) =
        replay(info, seed, g.initial_fen.as_deref(), &texts).with_context(|| format!("replaying game {id}"))?;
    let mut seats: [Option<Seat>; 2] = [None, None];
    for p in players {
        let Some(c) = parse_color(&p.color) else { continue };
        let bot = p.bot_level.and_then(|n| u8::try_from(n).ok()).and_then(chessgold_bot::Level::new);
        seats[c.index()] = Some(Seat {
            player_id: p.player_id,
            user_id: p.user_id,
            guest_id: p.guest_id,
            bot,
            name: match (p.username, bot) {
                (Some(name), _) => name,
                (None, Some(level)) => crate::bots::display_name(level),
                (None, None) => "Anonymous".to_string(),
            },
            rating_before: p.rating_before,
            rating_after: p.rating_after,
            provisional: p.provisional,
            lag_quota: p.lag_quota,
            last_seen: p.last_seen,
            account_bot: p.account_bot,
        });
    }
    let clocks = match (g.white_clock, g.black_clock) {
        (Some(w), Some(b)) => Some([w, b]),
        _ => None,
    };
    Ok(Some(Game {
        id: id.clone(),
        info,
        seed,
        salt: g.salt,
        commitment: g.commitment,
        clock: match (g.clock_limit, g.clock_increment) {
            (Some(l), Some(i)) => TimeControl::new(l, i),
            _ => None,
        },
        rated: g.rated,
        source: g.source,
        initial_fen: g.initial_fen.clone(),
        status: Status::from_id(g.status).ok_or_else(|| anyhow::anyhow!("game {id} has status {}", g.status))?,
        winner: g.winner.as_deref().and_then(parse_color),
        reason: g.reason,
        version: g.version,
        turns: g.turns,
        clocks,
        turn_at: g.turn_at,
        offers: Offers {
            draw: g.draw_offer.as_deref().and_then(parse_color),
            takeback: g.takeback_offer.as_deref().and_then(parse_color),
            rematch: g.rematch_offer.as_deref().and_then(parse_color),
        },
        rematch_id: g.rematch_id,
        created_at: g.created_at,
        started_at: g.started_at,
        finished_at: g.finished_at,
        stored_seats: seats.clone(),
        seats,
        actions: actions
            .into_iter()
            .map(|a| ActionRec {
                seq: a.seq,
                action: a.action,
                color: parse_color(&a.color).unwrap_or(Color::White),
                clocks: match (a.white_clock, a.black_clock) {
                    (Some(w), Some(b)) => Some([w, b]),
                    _ => None,
                },
            })
            .collect(),
        engine,
    }))
}

fn game_row(live: &Game) -> GameRow {
    GameRow {
        id: live.id.to_string(),
        variant: live.info.id.to_string(),
        seed: live.seed.map(|s| s as i64),
        salt: live.salt.clone(),
        commitment: live.commitment.clone(),
        clock_limit: live.clock.map(|c| c.limit),
        clock_increment: live.clock.map(|c| c.increment),
        rated: live.rated,
        source: live.source,
        initial_fen: live.initial_fen.clone(),
        status: live.status.id(),
        winner: color_text(live.winner),
        reason: live.reason,
        version: live.version,
        plies: live.actions.len() as i32,
        turns: live.turns,
        white_clock: live.clocks.map(|c| c[0]),
        black_clock: live.clocks.map(|c| c[1]),
        turn_at: live.turn_at,
        draw_offer: color_text(live.offers.draw),
        takeback_offer: color_text(live.offers.takeback),
        rematch_offer: color_text(live.offers.rematch),
        rematch_id: live.rematch_id.clone(),
        created_at: live.created_at,
        started_at: live.started_at,
        finished_at: live.finished_at,
    }
}

/// Commits a step of `live` (already applied to it in memory, with `live.version` still the
/// version it was loaded at): the game row under the version check, the new action (unique per
/// `seq`), the seats that changed, the ratings of a finished rated game, the room events. On success
/// `live.version` is the new version and the returned events carry their versions (a rated
/// game's `end` event has the rating changes filled in).
///
/// # Errors
/// [`CommitError::Conflict`] when the game changed meanwhile (nothing was written);
/// infrastructure failures.
pub async fn commit(
    pool: &PgPool,
    live: &mut Game,
    step: &mut Step,
    cfg: &GameSettings,
) -> Result<Vec<(i32, Event)>, CommitError> {
    let old = live.version;
    let new = old + step.events.len() as i32;
    // Most steps (a move) write only the game, the action and the events: one statement.
    let seats_unchanged = Color::ALL.into_iter().all(|c| live.seats[c.index()] == live.stored_seats[c.index()]);
    if seats_unchanged
        && !(step.finished && live.rated && live.status.has_result())
        && !(step.starts && live.clock.is_some())
        && !step.truncated
        && step.rematch.is_none()
    {
        return commit_in_one(pool, live, step, old, new).await;
    }
    let mut tx = pool.begin().await.context("starting a transaction")?;
    if step.finished && live.rated && live.status.has_result() {
        rate(&mut tx, live, step, cfg).await?;
    }
    if step.starts && live.clock.is_some() {
        let players: Vec<PlayerRef> = live.seats.iter().flatten().filter_map(Seat::player).collect();
        if let Some(b) = lock_and_check_free(&mut tx, &players).await? {
            return Err(CommitError::Busy(b));
        }
    }
    if step.truncated {
        db::games::delete_actions_after(&mut tx, live.id.as_str(), live.actions.len() as i32).await?;
    }
    let out = write_step(&mut *tx, live, step, old, new).await?;
    // Only the seats that changed since the version loaded: a move usually changes none.
    for c in Color::ALL {
        if let Some(s) = &live.seats[c.index()]
            && live.stored_seats[c.index()].as_ref() != Some(s)
        {
            db::games::upsert_player(&mut tx, live.id.as_str(), &seat_row(c, s)).await?;
        }
    }
    if let Some((id, req)) = &step.rematch {
        let (game, players) = prepare(pool, id.clone(), req, OffsetDateTime::now_utc(), cfg)
            .await
            .map_err(|e| CommitError::Other(anyhow::anyhow!("preparing the rematch: {e}")))?;
        insert(&mut tx, &game, &players).await?;
    }
    tx.commit().await.context("committing a game step")?;
    live.version = new;
    live.stored_seats = live.seats.clone();
    Ok(out)
}

/// [`commit`] of a step that changes no seat, no rating, no other game and takes nothing back:
/// [`write_step`] alone is the whole commit.
async fn commit_in_one(
    pool: &PgPool,
    live: &mut Game,
    step: &Step,
    old: i32,
    new: i32,
) -> Result<Vec<(i32, Event)>, CommitError> {
    let events = write_step(pool, live, step, old, new).await?;
    live.version = new;
    live.stored_seats = live.seats.clone();
    Ok(events)
}

/// Writes the game at version `new` under the check that it is still at `old`, with the step's
/// new action and its events, in one statement ([`db::games::commit_move`]); the events with
/// their versions.
async fn write_step(
    db: impl sqlx::PgExecutor<'_>,
    live: &Game,
    step: &Step,
    old: i32,
    new: i32,
) -> Result<Vec<(i32, Event)>, CommitError> {
    let mut row = game_row(live);
    row.version = new;
    let action = if step.new_action { live.actions.last().map(action_row) } else { None };
    let events: Vec<(i32, Event)> =
        step.events.iter().enumerate().map(|(i, ev)| (old + 1 + i as i32, ev.clone())).collect();
    let stored: Vec<(i32, &str, serde_json::Value)> =
        events.iter().map(|(v, ev)| (*v, ev.kind().name(), ev.data())).collect();
    match db::games::commit_move(db, &row, old, action.as_ref(), &stored).await {
        Ok(true) => Ok(events),
        Ok(false) => Err(CommitError::Conflict),
        Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Err(CommitError::Conflict),
        Err(e) => Err(CommitError::Other(anyhow::Error::new(e).context("committing a game step"))),
    }
}

fn action_row(a: &ActionRec) -> ActionRow {
    ActionRow {
        seq: a.seq,
        action: a.action.clone(),
        color: a.color.name().to_string(),
        white_clock: a.clocks.map(|c| c[0]),
        black_clock: a.clocks.map(|c| c[1]),
    }
}

/// Computes and stores the rating changes of a finished rated game, in the result's transaction.
async fn rate(
    tx: &mut sqlx::PgConnection,
    live: &mut Game,
    step: &mut Step,
    cfg: &GameSettings,
) -> Result<(), CommitError> {
    let (Some(w), Some(b)) =
        (live.seats[0].as_ref().and_then(|s| s.user_id), live.seats[1].as_ref().and_then(|s| s.user_id))
    else {
        return Ok(());
    };
    let (pw, pb) = db::ratings::lock_pair(tx, w, b, live.info.id).await?;
    let score_white = match live.winner {
        Some(Color::White) => 1.0,
        Some(Color::Black) => 0.0,
        None => 0.5,
    };
    let (nw, nb) = rating::update(pw, pb, score_white);
    db::ratings::record_game(tx, w, live.info.id, nw).await?;
    db::ratings::record_game(tx, b, live.info.id, nb).await?;
    for (c, before, after) in [(Color::White, pw, nw), (Color::Black, pb, nb)] {
        if let Some(s) = live.seats[c.index()].as_mut() {
            s.rating_before = Some(before.rating);
            s.rating_after = Some(after);
            s.provisional = before.provisional();
        }
    }
    let now = live.finished_at.unwrap_or_else(OffsetDateTime::now_utc);
    if let Some(ev) = step.events.iter_mut().find(|e| matches!(e, Event::End(_))) {
        *ev = Event::End(view::end(live, now, cfg));
    }
    Ok(())
}
