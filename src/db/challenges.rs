//! The `challenges` table.

use anyhow::Context;
use sqlx::PgExecutor;
use time::OffsetDateTime;
use uuid::Uuid;

/// A stored challenge with its players' names.
#[derive(Debug, Clone)]
pub struct ChallengeRow {
    /// Id (also the id of the game it becomes).
    pub id: String,
    /// The account that challenges.
    pub challenger_id: Uuid,
    /// Its name.
    pub challenger_name: String,
    /// The challenged account; `None` for an open challenge.
    pub dest_id: Option<Uuid>,
    /// Its name.
    pub dest_name: Option<String>,
    /// The challenger is a BOT account.
    pub challenger_bot: bool,
    /// The challenged account is a BOT.
    pub dest_bot: Option<bool>,
    /// The challenger's rating in the variant (none before a rated game).
    pub challenger_rating: Option<i32>,
    /// The challenger's rated games in the variant.
    pub challenger_games: Option<i32>,
    /// The challenged account's rating in the variant.
    pub dest_rating: Option<i32>,
    /// The challenged account's rated games in the variant.
    pub dest_games: Option<i32>,
    /// Variant id.
    pub variant: String,
    /// Centiseconds.
    pub clock_limit: Option<i32>,
    /// Centiseconds.
    pub clock_increment: Option<i32>,
    /// Rated.
    pub rated: bool,
    /// The challenger's colour: `white`, `black`, `random`.
    pub color: String,
    /// The challenger's colour as drawn at creation (`None` for challenges made before it was).
    pub final_color: Option<String>,
    /// Made for two others (lichess's open challenge): nobody has taken a seat yet, and the
    /// challenger is only its maker.
    pub for_two: bool,
    /// The only account that may take White's seat (lichess's `users`; with `open_black`).
    pub open_white: Option<Uuid>,
    /// The only account that may take Black's seat.
    pub open_black: Option<Uuid>,
    /// Their names (lichess's `open.userIds`).
    pub open_white_name: Option<String>,
    /// Its name.
    pub open_black_name: Option<String>,
    /// The position text its game starts from; `None`: the variant's start.
    pub initial_fen: Option<String>,
    /// `created`, `accepted`, `declined`, `canceled`.
    pub status: String,
    /// Why it was declined (a lichess reason key).
    pub decline_reason: Option<String>,
    /// Creation.
    pub created_at: OffsetDateTime,
    /// Unanswered until then, it lapses.
    pub expires_at: OffsetDateTime,
}

impl ChallengeRow {
    /// The only accounts that may take its seats, White's and Black's (lichess's `users`).
    pub fn open_users(&self) -> Option<(Uuid, Uuid)> {
        self.open_white.zip(self.open_black)
    }
}

/// What a new challenge is.
#[derive(Debug, Clone)]
pub struct NewChallenge {
    /// Id.
    pub id: String,
    /// The account that challenges.
    pub challenger_id: Uuid,
    /// The challenged account, or `None` for an open challenge.
    pub dest_id: Option<Uuid>,
    /// Variant id.
    pub variant: String,
    /// Centiseconds.
    pub clock_limit: Option<i32>,
    /// Centiseconds.
    pub clock_increment: Option<i32>,
    /// Rated.
    pub rated: bool,
    /// `white`, `black`, `random`.
    pub color: String,
    /// The challenger's colour, drawn when `color` is `random`.
    pub final_color: String,
    /// For two others to play.
    pub for_two: bool,
    /// The only accounts that may take its seats, White's and Black's.
    pub open_users: Option<(Uuid, Uuid)>,
    /// The position text its game starts from.
    pub initial_fen: Option<String>,
    /// Lapses then.
    pub expires_at: OffsetDateTime,
}

/// Stores a challenge.
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip(db, c), fields(challenge.id = %c.id))]
pub async fn insert(db: impl PgExecutor<'_>, c: &NewChallenge) -> anyhow::Result<()> {
    sqlx::query!(
        r#"INSERT INTO challenges (id, challenger_id, dest_id, variant, clock_limit, clock_increment, rated, color,
                                   final_color, expires_at, for_two, open_white, open_black, initial_fen)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)"#,
        c.id,
        c.challenger_id,
        c.dest_id,
        c.variant,
        c.clock_limit,
        c.clock_increment,
        c.rated,
        c.color,
        c.final_color,
        c.expires_at,
        c.for_two,
        c.open_users.map(|u| u.0),
        c.open_users.map(|u| u.1),
        c.initial_fen
    )
    .execute(db)
    .await
    .context("inserting a challenge")?;
    Ok(())
}

/// A challenge by id.
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip(db))]
pub async fn find(db: impl PgExecutor<'_>, id: &str) -> anyhow::Result<Option<ChallengeRow>> {
    sqlx::query_as!(
        ChallengeRow,
        r#"SELECT c.id, c.challenger_id, u.username AS challenger_name, c.dest_id, d.username AS "dest_name?",
                  u.bot AS challenger_bot, d.bot AS "dest_bot?",
                  cr.rating AS "challenger_rating?", cr.games AS "challenger_games?",
                  dr.rating AS "dest_rating?", dr.games AS "dest_games?",
                  c.variant, c.clock_limit, c.clock_increment, c.rated, c.color, c.final_color, c.for_two, c.open_white, c.open_black,
                  ow.username AS "open_white_name?", ob.username AS "open_black_name?", c.initial_fen, c.status, c.decline_reason,
                  c.created_at, c.expires_at
           FROM challenges c JOIN users u ON u.id = c.challenger_id LEFT JOIN users d ON d.id = c.dest_id
           LEFT JOIN user_ratings cr ON cr.user_id = c.challenger_id AND cr.variant = c.variant
           LEFT JOIN user_ratings dr ON dr.user_id = c.dest_id AND dr.variant = c.variant
           LEFT JOIN users ow ON ow.id = c.open_white LEFT JOIN users ob ON ob.id = c.open_black
           WHERE c.id = $1"#,
        id
    )
    .fetch_optional(db)
    .await
    .context("reading a challenge")
}

/// Moves a pending, unexpired challenge to `status` (with a decline reason); whether it was
/// pending. Only one of several racing answers wins.
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip(db))]
pub async fn answer(db: impl PgExecutor<'_>, id: &str, status: &str, reason: Option<&str>) -> anyhow::Result<bool> {
    let done = sqlx::query!(
        r#"UPDATE challenges SET status = $2, decline_reason = $3
           WHERE id = $1 AND status = 'created' AND expires_at > now()"#,
        id,
        status,
        reason
    )
    .execute(db)
    .await
    .context("answering a challenge")?;
    Ok(done.rows_affected() == 1)
}

/// The first seat of a challenge made for two others: `user` takes `color` and becomes its
/// challenger, and `dest` (the other named account, if it names them) is the one who may take
/// the other seat; whether the seat was free (only one of several racing takers wins).
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip(db))]
pub async fn take_first_seat(
    db: impl PgExecutor<'_>,
    id: &str,
    user: Uuid,
    color: &str,
    dest: Option<Uuid>,
) -> anyhow::Result<bool> {
    let done = sqlx::query!(
        r#"UPDATE challenges SET challenger_id = $2, color = $3, final_color = $3, for_two = false, dest_id = $4
           WHERE id = $1 AND for_two AND status = 'created' AND expires_at > now()"#,
        id,
        user,
        color,
        dest
    )
    .execute(db)
    .await
    .context("taking the first seat of a challenge")?;
    Ok(done.rows_affected() == 1)
}

/// Opens an accepted challenge again (its game could not be created).
///
/// # Errors
/// Database failures.
pub async fn reopen(db: impl PgExecutor<'_>, id: &str) -> anyhow::Result<()> {
    sqlx::query!(
        "UPDATE challenges SET status = 'created', decline_reason = NULL WHERE id = $1 AND status = 'accepted'",
        id
    )
    .execute(db)
    .await
    .context("reopening a challenge")?;
    Ok(())
}

/// The pending, unexpired challenges an account sent or received, oldest first.
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip(db), fields(user.id = %user_id))]
pub async fn pending_of(db: impl PgExecutor<'_>, user_id: Uuid) -> anyhow::Result<Vec<ChallengeRow>> {
    sqlx::query_as!(
        ChallengeRow,
        r#"SELECT c.id, c.challenger_id, u.username AS challenger_name, c.dest_id, d.username AS "dest_name?",
                  u.bot AS challenger_bot, d.bot AS "dest_bot?",
                  cr.rating AS "challenger_rating?", cr.games AS "challenger_games?",
                  dr.rating AS "dest_rating?", dr.games AS "dest_games?",
                  c.variant, c.clock_limit, c.clock_increment, c.rated, c.color, c.final_color, c.for_two, c.open_white, c.open_black,
                  ow.username AS "open_white_name?", ob.username AS "open_black_name?", c.initial_fen, c.status, c.decline_reason,
                  c.created_at, c.expires_at
           FROM challenges c JOIN users u ON u.id = c.challenger_id LEFT JOIN users d ON d.id = c.dest_id
           LEFT JOIN user_ratings cr ON cr.user_id = c.challenger_id AND cr.variant = c.variant
           LEFT JOIN user_ratings dr ON dr.user_id = c.dest_id AND dr.variant = c.variant
           LEFT JOIN users ow ON ow.id = c.open_white LEFT JOIN users ob ON ob.id = c.open_black
           WHERE (c.challenger_id = $1 OR c.dest_id = $1) AND c.status = 'created' AND c.expires_at > now()
           ORDER BY c.created_at, c.id"#,
        user_id
    )
    .fetch_all(db)
    .await
    .context("listing pending challenges")
}

/// How many pending challenges an account has received, and how many it has sent.
///
/// # Errors
/// Database failures.
pub async fn pending_counts(db: impl PgExecutor<'_>, user_id: Uuid) -> anyhow::Result<(i64, i64)> {
    let row = sqlx::query!(
        r#"SELECT count(*) FILTER (WHERE dest_id = $1) AS "received!", count(*) FILTER (WHERE challenger_id = $1) AS "sent!"
           FROM challenges WHERE (challenger_id = $1 OR dest_id = $1) AND status = 'created' AND expires_at > now()"#,
        user_id
    )
    .fetch_one(db)
    .await
    .context("counting pending challenges")?;
    Ok((row.received, row.sent))
}

/// A challenge that lapsed: its id and its two accounts.
#[derive(Debug, Clone)]
pub struct Lapsed {
    /// Id.
    pub id: String,
    /// The challenger.
    pub challenger_id: Uuid,
    /// The challenged account, if any.
    pub dest_id: Option<Uuid>,
}

/// Marks the unanswered challenges past their expiry as cancelled and returns them (each once,
/// whichever instance asks first).
///
/// # Errors
/// Database failures.
#[tracing::instrument(skip(db))]
pub async fn lapse_expired(db: impl PgExecutor<'_>) -> anyhow::Result<Vec<Lapsed>> {
    sqlx::query_as!(
        Lapsed,
        r#"UPDATE challenges SET status = 'canceled'
           WHERE status = 'created' AND expires_at <= now()
           RETURNING id, challenger_id, dest_id"#
    )
    .fetch_all(db)
    .await
    .context("lapsing expired challenges")
}
