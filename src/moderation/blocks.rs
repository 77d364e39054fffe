//! Blocks, a player's own tool (as on lichess): the blocked player cannot challenge the blocker,
//! the two are never paired in pools or through seeks, and the blocked player's chat lines are
//! hidden from the blocker. A block is not a moderation action: it is not in the mod log.

use std::collections::HashSet;

use anyhow::Context;
use sqlx::PgExecutor;
use time::OffsetDateTime;
use uuid::Uuid;

/// Most accounts one player may block.
pub const MAX_BLOCKS: i64 = 500;

/// Why a block was refused.
#[derive(Debug, thiserror::Error)]
pub enum BlockError {
    /// A player blocking themself.
    #[error("you cannot block yourself")]
    Yourself,
    /// The list is full.
    #[error("you block {MAX_BLOCKS} players already: unblock some first")]
    TooMany,
    /// No such account.
    #[error("no such account")]
    NoSuchUser,
    /// Infrastructure failure.
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

/// An account one blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocked {
    /// The account.
    pub id: Uuid,
    /// Its name.
    pub name: String,
    /// Since when.
    pub since: OffsetDateTime,
}

/// `blocker` blocks `blocked`. Returns whether it is new (blocking twice changes nothing).
///
/// # Errors
/// [`BlockError`]: oneself, a full list, an unknown account; database failures.
pub async fn block(pool: &sqlx::PgPool, blocker: Uuid, blocked: Uuid) -> Result<bool, BlockError> {
    if blocker == blocked {
        return Err(BlockError::Yourself);
    }
    let mut tx = pool.begin().await.context("starting a block")?;
    // One block at a time per blocker, so the count holds.
    let exists = sqlx::query_scalar!("SELECT id FROM users WHERE id = ANY($1) FOR UPDATE", &[blocker, blocked][..])
        .fetch_all(&mut *tx)
        .await
        .context("locking the accounts")?;
    if exists.len() < 2 {
        return Err(BlockError::NoSuchUser);
    }
    let n = sqlx::query_scalar!(r#"SELECT count(*) AS "n!" FROM blocks WHERE blocker_id = $1"#, blocker)
        .fetch_one(&mut *tx)
        .await
        .context("counting blocks")?;
    if n >= MAX_BLOCKS && !blocks(&mut *tx, blocker, blocked).await? {
        return Err(BlockError::TooMany);
    }
    let added = sqlx::query!(
        "INSERT INTO blocks (blocker_id, blocked_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        blocker,
        blocked
    )
    .execute(&mut *tx)
    .await
    .context("storing a block")?
    .rows_affected()
        == 1;
    tx.commit().await.context("committing a block")?;
    Ok(added)
}

/// `blocker` no longer blocks `blocked`. Returns whether there was a block.
///
/// # Errors
/// Database failures.
pub async fn unblock(db: impl PgExecutor<'_>, blocker: Uuid, blocked: Uuid) -> anyhow::Result<bool> {
    let n = sqlx::query!("DELETE FROM blocks WHERE blocker_id = $1 AND blocked_id = $2", blocker, blocked)
        .execute(db)
        .await
        .context("removing a block")?
        .rows_affected();
    Ok(n == 1)
}

/// The accounts `blocker` blocks, by name.
///
/// # Errors
/// Database failures.
pub async fn list(db: impl PgExecutor<'_>, blocker: Uuid) -> anyhow::Result<Vec<Blocked>> {
    sqlx::query_as!(
        Blocked,
        "SELECT u.id, u.username AS name, b.created_at AS since FROM blocks b JOIN users u ON u.id = b.blocked_id \
         WHERE b.blocker_id = $1 ORDER BY lower(u.username)",
        blocker
    )
    .fetch_all(db)
    .await
    .context("listing blocks")
}

/// Whether `blocker` blocks `blocked` (one direction).
///
/// # Errors
/// Database failures.
pub async fn blocks(db: impl PgExecutor<'_>, blocker: Uuid, blocked: Uuid) -> anyhow::Result<bool> {
    sqlx::query_scalar!(
        r#"SELECT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = $1 AND blocked_id = $2) AS "b!""#,
        blocker,
        blocked
    )
    .fetch_one(db)
    .await
    .context("reading a block")
}

/// Whether either of `a` and `b` blocks the other: what keeps them from playing each other.
///
/// # Errors
/// Database failures.
pub async fn is_blocked(db: impl PgExecutor<'_>, a: Uuid, b: Uuid) -> anyhow::Result<bool> {
    sqlx::query_scalar!(
        r#"SELECT EXISTS (SELECT 1 FROM blocks WHERE (blocker_id = $1 AND blocked_id = $2)
                                                OR (blocker_id = $2 AND blocked_id = $1)) AS "b!""#,
        a,
        b
    )
    .fetch_one(db)
    .await
    .context("reading blocks")
}

/// The accounts `user` blocks or is blocked by.
///
/// # Errors
/// Database failures.
pub async fn blocked_with(db: impl PgExecutor<'_>, user: Uuid) -> anyhow::Result<HashSet<Uuid>> {
    let ids = sqlx::query_scalar!(
        r#"SELECT blocked_id AS "id!" FROM blocks WHERE blocker_id = $1
           UNION SELECT blocker_id FROM blocks WHERE blocked_id = $1"#,
        user
    )
    .fetch_all(db)
    .await
    .context("reading an account's blocks")?;
    Ok(ids.into_iter().collect())
}

/// Who among `readers` blocks `author`: those who do not see the author's chat lines.
///
/// # Errors
/// Database failures.
pub async fn blockers_among(db: impl PgExecutor<'_>, author: Uuid, readers: &[Uuid]) -> anyhow::Result<HashSet<Uuid>> {
    if readers.is_empty() {
        return Ok(HashSet::new());
    }
    let ids = sqlx::query_scalar!(
        "SELECT blocker_id FROM blocks WHERE blocked_id = $1 AND blocker_id = ANY($2)",
        author,
        readers
    )
    .fetch_all(db)
    .await
    .context("reading who blocks a chat author")?;
    Ok(ids.into_iter().collect())
}

/// The blocks among a set of accounts, read at once, for the pool matcher.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockedPairs {
    /// The accounts whose blocks were read.
    checked: HashSet<Uuid>,
    /// Each block, as (smaller id, larger id): direction does not matter for pairing.
    pairs: HashSet<(Uuid, Uuid)>,
    /// The engine- or booster-marked accounts among them: they meet only each other.
    marked: HashSet<Uuid>,
}

impl BlockedPairs {
    /// An empty set for these accounts: none of them blocks another (for tests and for
    /// matchers that have no database).
    pub fn none_among(users: impl IntoIterator<Item = Uuid>) -> BlockedPairs {
        BlockedPairs { checked: users.into_iter().collect(), pairs: HashSet::new(), marked: HashSet::new() }
    }

    /// Adds a block (either direction) between two checked accounts.
    pub fn add(&mut self, a: Uuid, b: Uuid) {
        self.checked.insert(a);
        self.checked.insert(b);
        self.pairs.insert(if a < b { (a, b) } else { (b, a) });
    }

    /// Marks a checked account ([`super::marks`]): it is paired only with other marked ones.
    pub fn add_marked(&mut self, a: Uuid) {
        self.checked.insert(a);
        self.marked.insert(a);
    }

    /// Whether two players may be paired: guests always (they are never marked); accounts when
    /// both were checked, neither blocks the other, and both or neither are marked. An account that was not checked (it joined after the blocks
    /// were read) waits for the next pass.
    pub fn may_pair(&self, a: Option<Uuid>, b: Option<Uuid>) -> bool {
        let checked = |u: Option<Uuid>| u.is_none_or(|u| self.checked.contains(&u));
        if !checked(a) || !checked(b) {
            return false;
        }
        let marked = |u: Option<Uuid>| u.is_some_and(|u| self.marked.contains(&u));
        if marked(a) != marked(b) {
            return false;
        }
        match (a, b) {
            (Some(a), Some(b)) => !self.pairs.contains(&if a < b { (a, b) } else { (b, a) }),
            _ => true,
        }
    }
}

/// The blocks among `users` (either direction), and which of them are marked.
///
/// # Errors
/// Database failures.
pub async fn pairs_among(db: &sqlx::PgPool, users: &[Uuid]) -> anyhow::Result<BlockedPairs> {
    let mut out = BlockedPairs::none_among(users.iter().copied());
    if users.len() < 2 {
        return Ok(out);
    }
    let rows = sqlx::query!(
        "SELECT blocker_id, blocked_id FROM blocks WHERE blocker_id = ANY($1) AND blocked_id = ANY($1)",
        users
    )
    .fetch_all(db)
    .await
    .context("reading the blocks among pool players")?;
    for r in rows {
        out.add(r.blocker_id, r.blocked_id);
    }
    for u in super::marks::marked_among(db, users).await? {
        out.add_marked(u);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_refused_both_ways_and_unchecked_accounts_wait() {
        let (a, b, c, late) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let mut set = BlockedPairs::none_among([a, b, c]);
        set.add(a, b);
        assert!(!set.may_pair(Some(a), Some(b)));
        assert!(!set.may_pair(Some(b), Some(a)));
        assert!(set.may_pair(Some(a), Some(c)));
        assert!(set.may_pair(Some(a), None), "guests have no blocks");
        assert!(set.may_pair(None, None));
        assert!(!set.may_pair(Some(late), Some(c)), "not read: waits for the next pass");
        assert!(!set.may_pair(None, Some(late)));
    }

    #[test]
    fn marked_accounts_meet_only_marked_ones() {
        let (a, b, c, d) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let mut set = BlockedPairs::none_among([a, b, c, d]);
        set.add_marked(a);
        set.add_marked(b);
        assert!(set.may_pair(Some(a), Some(b)));
        assert!(!set.may_pair(Some(a), Some(c)));
        assert!(!set.may_pair(Some(d), Some(b)));
        assert!(set.may_pair(Some(c), Some(d)));
        assert!(!set.may_pair(Some(a), None), "guests are unmarked");
        set.add(a, b);
        assert!(!set.may_pair(Some(a), Some(b)), "a block still counts between marked accounts");
    }
}
