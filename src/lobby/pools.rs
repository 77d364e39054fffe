//! Quick pairing: players wait in pools of (variant, time control, rated or casual) and a
//! matcher pairs the closest ratings, widening the allowed gap the longer someone waits.
//!
//! Two stores behind [`Pools`]: [`MemoryPools`] (one process) and [`RedisPools`] (sorted sets
//! shared by every instance, one matcher at a time under a Redis lock with expiry).

use std::collections::{BTreeMap, HashSet};
use std::sync::Mutex;

use redis::AsyncCommands;
use redis::aio::ConnectionManager;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::broker::BoxFuture;
use crate::moderation::blocks::BlockedPairs;

/// A player waiting in one pool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolEntry {
    /// `u:<uuid>` or `g:<guest id>`: never paired with itself.
    pub player: String,
    /// The lobby socket that joined (its entries go when it closes).
    pub conn: String,
    /// The account, for registered players.
    pub user_id: Option<Uuid>,
    /// The guest id, for guests.
    pub guest_id: Option<String>,
    /// The rating used for pairing (1500 for guests).
    pub rating: i32,
    /// The pool: `variant`, `minutes+seconds`, rated.
    pub pool: PoolKey,
    /// Milliseconds since the epoch when the player joined.
    pub joined_ms: i64,
    /// Milliseconds since the epoch of the socket's last sign of life.
    pub seen_ms: i64,
}

impl PoolEntry {
    fn member(&self) -> String {
        format!("{}|{}", self.player, self.conn)
    }
}

/// Which pool.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PoolKey {
    /// Variant id.
    pub variant: String,
    /// `3+2`.
    pub time: String,
    /// Registered players pool rated, guests casual.
    pub rated: bool,
}

impl PoolKey {
    fn name(&self) -> String {
        format!("{}:{}:{}", self.variant, self.time, if self.rated { "rated" } else { "casual" })
    }
}

/// How the allowed rating gap grows: `base` at once, plus `per_sec` for each second waited,
/// never above `max`.
#[derive(Debug, Clone, Copy)]
pub struct Widening {
    /// Gap allowed at once.
    pub base: i32,
    /// Added per second waited.
    pub per_sec: i32,
    /// The widest gap.
    pub max: i32,
    /// Entries not refreshed for this long are dropped (their socket's instance died).
    pub stale_ms: i64,
}

impl Default for Widening {
    fn default() -> Widening {
        Widening { base: 100, per_sec: 50, max: 1000, stale_ms: 30_000 }
    }
}

impl Widening {
    fn allowed(&self, e: &PoolEntry, now_ms: i64) -> i64 {
        let waited = (now_ms - e.joined_ms).max(0) / 1000;
        (i64::from(self.base) + waited * i64::from(self.per_sec)).min(i64::from(self.max))
    }
}

/// Pairs the entries of every pool: closest ratings first, each pair within the gap both
/// players allow after their wait, never a player with themself, never two accounts one of which
/// blocks the other (nor an account whose blocks were not read: it waits for the next pass), and
/// a player at most once (over all pools). Pure: the stores call it under their lock.
pub fn pair(entries: &[PoolEntry], now_ms: i64, w: &Widening, blocks: &BlockedPairs) -> Vec<(PoolEntry, PoolEntry)> {
    let mut by_pool: BTreeMap<&PoolKey, Vec<&PoolEntry>> = BTreeMap::new();
    for e in entries.iter().filter(|e| now_ms - e.seen_ms < w.stale_ms) {
        by_pool.entry(&e.pool).or_default().push(e);
    }
    let mut candidates: Vec<(i64, i64, &PoolEntry, &PoolEntry)> = Vec::new();
    for list in by_pool.values() {
        for (i, a) in list.iter().enumerate() {
            for b in &list[i + 1..] {
                if a.player == b.player || !blocks.may_pair(a.user_id, b.user_id) {
                    continue;
                }
                let gap = i64::from((a.rating - b.rating).abs());
                if gap <= w.allowed(a, now_ms).min(w.allowed(b, now_ms)) {
                    // Closest first; among equals, who waited longest.
                    candidates.push((gap, a.joined_ms.min(b.joined_ms), a, b));
                }
            }
        }
    }
    candidates.sort_by_key(|c| (c.0, c.1));
    let mut used: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    for (_, _, a, b) in candidates {
        if used.contains(a.player.as_str()) || used.contains(b.player.as_str()) {
            continue;
        }
        used.insert(&a.player);
        used.insert(&b.player);
        out.push(((*a).clone(), (*b).clone()));
    }
    out
}

/// Entries to drop: stale ones, and every entry of a paired player.
fn leftovers<'a>(
    entries: &'a [PoolEntry],
    pairs: &[(PoolEntry, PoolEntry)],
    now_ms: i64,
    w: &Widening,
) -> Vec<&'a PoolEntry> {
    let paired: HashSet<&str> = pairs.iter().flat_map(|(a, b)| [a.player.as_str(), b.player.as_str()]).collect();
    entries.iter().filter(|e| paired.contains(e.player.as_str()) || now_ms - e.seen_ms >= w.stale_ms).collect()
}

/// A pool store.
pub trait Pools: Send + Sync + std::fmt::Debug {
    /// Adds (or refreshes) an entry.
    fn join(&self, entry: PoolEntry) -> BoxFuture<'_, anyhow::Result<()>>;
    /// Removes the entry of this socket in a pool.
    fn leave<'a>(&'a self, conn: &'a str, pool: &'a PoolKey) -> BoxFuture<'a, anyhow::Result<()>>;
    /// Removes every entry of a socket.
    fn leave_conn<'a>(&'a self, conn: &'a str) -> BoxFuture<'a, anyhow::Result<()>>;
    /// Removes every entry of a player (they started a game).
    fn leave_player<'a>(&'a self, player: &'a str) -> BoxFuture<'a, anyhow::Result<()>>;
    /// Marks the entries of a socket alive.
    fn refresh<'a>(&'a self, conn: &'a str, now_ms: i64) -> BoxFuture<'a, anyhow::Result<()>>;
    /// One matcher pass: the pairs made (never against `blocks`), their players' entries
    /// removed. Returns nothing when another instance holds the matcher lock.
    fn take_pairs(
        &self,
        now_ms: i64,
        w: Widening,
        blocks: BlockedPairs,
    ) -> BoxFuture<'_, anyhow::Result<Vec<(PoolEntry, PoolEntry)>>>;
    /// Every waiting entry (tests, the pools' counts on the home page).
    fn entries(&self) -> BoxFuture<'_, anyhow::Result<Vec<PoolEntry>>>;
}

/// Pools of one process.
#[derive(Debug, Default)]
pub struct MemoryPools {
    entries: Mutex<Vec<PoolEntry>>,
}

impl MemoryPools {
    fn with<T>(&self, f: impl FnOnce(&mut Vec<PoolEntry>) -> T) -> anyhow::Result<T> {
        let mut guard = self.entries.lock().map_err(|_| anyhow::anyhow!("the pools' lock is poisoned"))?;
        Ok(f(&mut guard))
    }
}

impl Pools for MemoryPools {
    fn join(&self, entry: PoolEntry) -> BoxFuture<'_, anyhow::Result<()>> {
        Box::pin(async move {
            self.with(|v| {
                v.retain(|e| !(e.conn == entry.conn && e.pool == entry.pool));
                v.push(entry);
            })
        })
    }

    fn leave<'a>(&'a self, conn: &'a str, pool: &'a PoolKey) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move { self.with(|v| v.retain(|e| !(e.conn == conn && &e.pool == pool))) })
    }

    fn leave_conn<'a>(&'a self, conn: &'a str) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move { self.with(|v| v.retain(|e| e.conn != conn)) })
    }

    fn leave_player<'a>(&'a self, player: &'a str) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move { self.with(|v| v.retain(|e| e.player != player)) })
    }

    fn refresh<'a>(&'a self, conn: &'a str, now_ms: i64) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move {
            self.with(|v| {
                for e in v.iter_mut().filter(|e| e.conn == conn) {
                    e.seen_ms = now_ms;
                }
            })
        })
    }

    fn take_pairs(
        &self,
        now_ms: i64,
        w: Widening,
        blocks: BlockedPairs,
    ) -> BoxFuture<'_, anyhow::Result<Vec<(PoolEntry, PoolEntry)>>> {
        Box::pin(async move {
            self.with(|v| {
                let pairs = pair(v, now_ms, &w, &blocks);
                let drop: Vec<PoolEntry> = leftovers(v, &pairs, now_ms, &w).into_iter().cloned().collect();
                v.retain(|e| !drop.contains(e));
                pairs
            })
        })
    }

    fn entries(&self) -> BoxFuture<'_, anyhow::Result<Vec<PoolEntry>>> {
        Box::pin(async move { self.with(|v| v.clone()) })
    }
}

/// Pools in Redis: a set of pool names, per pool a sorted set (member `player|conn`, score the
/// rating) and a hash of the entries; per socket a set of its pools.
#[derive(Clone)]
pub struct RedisPools {
    conn: ConnectionManager,
    prefix: String,
    /// Identifies this instance as the lock's holder.
    instance: String,
}

impl std::fmt::Debug for RedisPools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisPools").field("prefix", &self.prefix).finish_non_exhaustive()
    }
}

/// Removes two members of a pool (sorted set `KEYS[1]`, hash `KEYS[2]`) when both are there.
const TAKE_PAIR: &str = "if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 and redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then \
     redis.call('ZREM', KEYS[1], ARGV[1], ARGV[2]); redis.call('HDEL', KEYS[2], ARGV[1], ARGV[2]); return 1 \
     else return 0 end";

/// How long the matcher lock lives without renewal.
const LOCK_MS: u64 = 5000;

impl RedisPools {
    /// Connects; keys get `prefix` in front.
    ///
    /// # Errors
    /// A malformed URL or an unreachable server.
    pub async fn connect(url: &str, prefix: &str) -> anyhow::Result<RedisPools> {
        use anyhow::Context;
        let client = redis::Client::open(url).context("redis.url is not a Redis URL")?;
        let conn = crate::broker::redis::managed_connection(client).await?;
        Ok(RedisPools { conn, prefix: prefix.to_string(), instance: Uuid::new_v4().simple().to_string() })
    }

    fn key(&self, rest: &str) -> String {
        format!("{}pool:{rest}", self.prefix)
    }

    async fn remove(&self, pool: &PoolKey, member: &str) -> anyhow::Result<()> {
        let name = pool.name();
        let mut c = self.conn.clone();
        let _: () = redis::pipe()
            .zrem(self.key(&format!("z:{name}")), member)
            .hdel(self.key(&format!("h:{name}")), member)
            .query_async(&mut c)
            .await?;
        Ok(())
    }

    async fn conn_pools(&self, conn: &str) -> anyhow::Result<Vec<PoolKey>> {
        let mut c = self.conn.clone();
        let raw: Vec<String> = c.smembers(self.key(&format!("c:{conn}"))).await?;
        Ok(raw.iter().filter_map(|s| serde_json::from_str(s).ok()).collect())
    }

    async fn conn_entries(&self, conn: &str) -> anyhow::Result<Vec<PoolEntry>> {
        let mut c = self.conn.clone();
        let mut out = Vec::new();
        for pool in self.conn_pools(conn).await? {
            let map: Vec<(String, String)> = c.hgetall(self.key(&format!("h:{}", pool.name()))).await?;
            out.extend(
                map.iter().filter_map(|(_, v)| serde_json::from_str::<PoolEntry>(v).ok()).filter(|e| e.conn == conn),
            );
        }
        Ok(out)
    }

    async fn all(&self) -> anyhow::Result<Vec<PoolEntry>> {
        let mut c = self.conn.clone();
        let names: Vec<String> = c.smembers(self.key("names")).await?;
        let mut out = Vec::new();
        for name in names {
            let map: Vec<(String, String)> = c.hgetall(self.key(&format!("h:{name}"))).await?;
            out.extend(map.iter().filter_map(|(_, v)| serde_json::from_str::<PoolEntry>(v).ok()));
        }
        Ok(out)
    }
}

impl Pools for RedisPools {
    fn join(&self, entry: PoolEntry) -> BoxFuture<'_, anyhow::Result<()>> {
        Box::pin(async move {
            let name = entry.pool.name();
            let mut c = self.conn.clone();
            let _: () = redis::pipe()
                .sadd(self.key("names"), &name)
                .zadd(self.key(&format!("z:{name}")), entry.member(), entry.rating)
                .hset(self.key(&format!("h:{name}")), entry.member(), serde_json::to_string(&entry)?)
                .sadd(self.key(&format!("c:{}", entry.conn)), serde_json::to_string(&entry.pool)?)
                .query_async(&mut c)
                .await?;
            Ok(())
        })
    }

    fn leave<'a>(&'a self, conn: &'a str, pool: &'a PoolKey) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move {
            for e in self.conn_entries(conn).await?.into_iter().filter(|e| &e.pool == pool) {
                self.remove(&e.pool, &e.member()).await?;
            }
            let mut c = self.conn.clone();
            let _: () = c.srem(self.key(&format!("c:{conn}")), serde_json::to_string(pool)?).await?;
            Ok(())
        })
    }

    fn leave_conn<'a>(&'a self, conn: &'a str) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move {
            for e in self.conn_entries(conn).await? {
                self.remove(&e.pool, &e.member()).await?;
            }
            let mut c = self.conn.clone();
            let _: () = c.del(self.key(&format!("c:{conn}"))).await?;
            Ok(())
        })
    }

    fn leave_player<'a>(&'a self, player: &'a str) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move {
            let mut c = self.conn.clone();
            for e in self.all().await?.into_iter().filter(|e| e.player == player) {
                self.remove(&e.pool, &e.member()).await?;
                let _: () = c.srem(self.key(&format!("c:{}", e.conn)), serde_json::to_string(&e.pool)?).await?;
            }
            Ok(())
        })
    }

    fn refresh<'a>(&'a self, conn: &'a str, now_ms: i64) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move {
            let mut c = self.conn.clone();
            for mut e in self.conn_entries(conn).await? {
                e.seen_ms = now_ms;
                // Only while still there: a matcher may have paired it meanwhile.
                let _: i64 = redis::Script::new(
                    "if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) else return 0 end",
                )
                .key(self.key(&format!("h:{}", e.pool.name())))
                .arg(e.member())
                .arg(serde_json::to_string(&e)?)
                .invoke_async(&mut c)
                .await?;
            }
            Ok(())
        })
    }

    fn take_pairs(
        &self,
        now_ms: i64,
        w: Widening,
        blocks: BlockedPairs,
    ) -> BoxFuture<'_, anyhow::Result<Vec<(PoolEntry, PoolEntry)>>> {
        Box::pin(async move {
            let mut c = self.conn.clone();
            let lock = self.key("lock");
            let got: Option<String> = redis::cmd("SET")
                .arg(&lock)
                .arg(&self.instance)
                .arg("NX")
                .arg("PX")
                .arg(LOCK_MS)
                .query_async(&mut c)
                .await?;
            if got.is_none() {
                return Ok(Vec::new());
            }
            let result = async {
                let entries = self.all().await?;
                // Each pair is taken out in one script, and kept only when both entries were
                // still there: should this pass outlive its lock and another matcher run, an
                // entry still goes to one pairing only.
                let mut pairs = Vec::new();
                for (a, b) in pair(&entries, now_ms, &w, &blocks) {
                    let name = a.pool.name();
                    let took: i64 = redis::Script::new(TAKE_PAIR)
                        .key(self.key(&format!("z:{name}")))
                        .key(self.key(&format!("h:{name}")))
                        .arg(a.member())
                        .arg(b.member())
                        .invoke_async(&mut c)
                        .await?;
                    if took == 1 {
                        pairs.push((a, b));
                    }
                }
                for e in leftovers(&entries, &pairs, now_ms, &w) {
                    self.remove(&e.pool, &e.member()).await?;
                    let _: () = c.srem(self.key(&format!("c:{}", e.conn)), serde_json::to_string(&e.pool)?).await?;
                }
                Ok::<_, anyhow::Error>(pairs)
            }
            .await;
            // Release only our own lock.
            let _: i64 = redis::Script::new(
                "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end",
            )
            .key(&lock)
            .arg(&self.instance)
            .invoke_async(&mut c)
            .await?;
            result
        })
    }

    fn entries(&self) -> BoxFuture<'_, anyhow::Result<Vec<PoolEntry>>> {
        Box::pin(self.all())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(player: &str, rating: i32, joined_ms: i64, time: &str) -> PoolEntry {
        PoolEntry {
            player: player.into(),
            conn: format!("c-{player}"),
            user_id: None,
            guest_id: Some(player.into()),
            rating,
            pool: PoolKey { variant: "gold".into(), time: time.into(), rated: false },
            joined_ms,
            seen_ms: joined_ms,
        }
    }

    fn account(player: &str, rating: i32) -> PoolEntry {
        PoolEntry { user_id: Some(Uuid::new_v4()), guest_id: None, ..entry(player, rating, 0, "3+2") }
    }

    #[test]
    fn a_blocked_pair_is_never_made_and_unread_accounts_wait() {
        let w = Widening::default();
        let (a, b, c) = (account("a", 1500), account("b", 1500), account("c", 1600));
        let ids = [a.user_id.unwrap(), b.user_id.unwrap(), c.user_id.unwrap()];
        let mut blocks = BlockedPairs::none_among(ids);
        assert_eq!(names(&pair(&[a.clone(), b.clone(), c.clone()], 0, &w, &blocks)), [("a".into(), "b".into())]);
        blocks.add(ids[1], ids[0]);
        let es = [a.clone(), b.clone(), c.clone()];
        assert_eq!(names(&pair(&es, 0, &w, &blocks)), [("a".into(), "c".into())], "the closest pair is blocked");
        assert!(pair(&[a.clone(), b.clone()], 600_000, &w, &blocks).is_empty(), "never, however long they wait");
        let unread = BlockedPairs::none_among([ids[0]]);
        assert!(pair(&[a, b], 0, &w, &unread).is_empty(), "b's blocks were not read");
    }

    fn names(pairs: &[(PoolEntry, PoolEntry)]) -> Vec<(String, String)> {
        pairs.iter().map(|(a, b)| (a.player.clone(), b.player.clone())).collect()
    }

    #[test]
    fn closest_ratings_pair_first() {
        let w = Widening::default();
        let es = [entry("a", 1500, 0, "3+2"), entry("b", 1580, 0, "3+2"), entry("c", 1510, 0, "3+2")];
        assert_eq!(names(&pair(&es, 0, &w, &BlockedPairs::default())), [("a".into(), "c".into())]);
    }

    #[test]
    fn the_gap_widens_with_waiting() {
        let w = Widening::default();
        let es = [entry("a", 1500, 0, "3+2"), entry("b", 1800, 0, "3+2")];
        assert!(pair(&es, 3_000, &w, &BlockedPairs::default()).is_empty(), "100 + 3 x 50 < 300");
        assert_eq!(pair(&es, 4_000, &w, &BlockedPairs::default()).len(), 1, "100 + 4 x 50 >= 300");
        let far = [entry("a", 1000, 0, "3+2"), entry("b", 2100, 0, "3+2")];
        assert!(pair(&far, 600_000, &w, &BlockedPairs::default()).is_empty(), "never beyond the widest gap");
    }

    #[test]
    fn never_oneself_never_twice_never_across_pools() {
        let w = Widening::default();
        let mut twin = entry("a", 1500, 0, "3+2");
        twin.conn = "other-tab".into();
        assert!(pair(&[entry("a", 1500, 0, "3+2"), twin], 0, &w, &BlockedPairs::default()).is_empty());
        let es = [
            entry("a", 1500, 0, "3+2"),
            entry("b", 1500, 0, "3+2"),
            entry("a", 1500, 0, "5+0"),
            entry("c", 1500, 0, "5+0"),
        ];
        let pairs = pair(&es, 0, &w, &BlockedPairs::default());
        assert_eq!(pairs.len(), 1, "a is paired once: {:?}", names(&pairs));
        assert!(
            pair(&[entry("a", 1500, 0, "3+2"), entry("b", 1500, 0, "5+0")], 0, &w, &BlockedPairs::default()).is_empty()
        );
    }

    #[test]
    fn stale_entries_are_not_paired_and_are_dropped() {
        let w = Widening::default();
        let es = [entry("a", 1500, 0, "3+2"), entry("b", 1500, 40_000, "3+2")];
        assert!(pair(&es, 40_000, &w, &BlockedPairs::default()).is_empty());
        assert_eq!(leftovers(&es, &[], 40_000, &w).len(), 1);
    }

    #[tokio::test]
    async fn the_memory_store_removes_paired_players_everywhere() {
        let p = MemoryPools::default();
        for e in [entry("a", 1500, 0, "3+2"), entry("b", 1500, 0, "3+2"), entry("a", 1500, 0, "5+0")] {
            p.join(e).await.unwrap();
        }
        let pairs = p.take_pairs(0, Widening::default(), BlockedPairs::default()).await.unwrap();
        assert_eq!(pairs.len(), 1);
        assert!(p.entries().await.unwrap().is_empty(), "a's other pool entry went too");
    }
}
