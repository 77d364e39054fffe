//! The Redis broker: Redis PUBLISH/SUBSCRIBE, so instances behind a load balancer share events.

use anyhow::Context;
use futures_util::StreamExt;
use redis::AsyncCommands;
use redis::aio::ConnectionManager;
use tokio::sync::mpsc;

use super::{BoxFuture, Broker, BrokerError, SeenAgo, Subscription};

/// Messages buffered per subscription.
const CAPACITY: usize = 256;

/// The longest wait for Redis: a connection, an answer, a subscription. A Redis that does not
/// answer costs a request this much at most (the features that need it fail; the rest goes on).
pub const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// A managed connection (reconnected after a failure) whose every command times out after
/// [`TIMEOUT`], and which gives up reconnecting after a few quick tries (the next command tries
/// again): the broker's and the pools' connection.
///
/// # Errors
/// An unreachable server.
pub async fn managed_connection(client: redis::Client) -> anyhow::Result<ConnectionManager> {
    let config = redis::aio::ConnectionManagerConfig::new()
        .set_connection_timeout(TIMEOUT)
        .set_response_timeout(TIMEOUT)
        .set_number_of_retries(2)
        .set_max_delay(500);
    ConnectionManager::new_with_config(client, config).await.context("connecting to Redis")
}

/// Publishes over a shared managed connection; each subscription has its own connection.
#[derive(Clone)]
pub struct RedisBroker {
    client: redis::Client,
    conn: ConnectionManager,
    prefix: String,
    presence: std::sync::Arc<redis::Script>,
}

/// How long a game's presence stays in Redis after its last record: a round that stopped writes
/// no more, and the database has what it wrote through (every 30 s at most), so the hashes of
/// finished games go soon.
pub const PRESENCE_TTL_MS: i64 = 2 * 60 * 1000;

/// The presence script: KEYS[1] the game's hash `{prefix}presence:{id}`, ARGV[1] its time to
/// live (ms), ARGV[2..] the seats connected now. Records them at Redis's clock (one clock for
/// every instance) and returns how many milliseconds ago each seat was recorded, white then
/// black, -1 for never.
const PRESENCE_SCRIPT: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 2, #ARGV do redis.call('HSET', KEYS[1], ARGV[i], now) end
if #ARGV > 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local seen = redis.call('HMGET', KEYS[1], 'white', 'black')
local ago = {}
for i = 1, 2 do
  if seen[i] then ago[i] = now - tonumber(seen[i]) else ago[i] = -1 end
end
return ago
";

impl std::fmt::Debug for RedisBroker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisBroker").field("prefix", &self.prefix).finish_non_exhaustive()
    }
}

impl RedisBroker {
    /// Connects; every channel name gets `prefix` in front.
    ///
    /// # Errors
    /// A malformed URL or an unreachable server.
    pub async fn connect(url: &str, prefix: &str) -> anyhow::Result<RedisBroker> {
        let client = redis::Client::open(url).context("redis.url is not a Redis URL")?;
        let conn = managed_connection(client.clone()).await?;
        let presence = std::sync::Arc::new(redis::Script::new(PRESENCE_SCRIPT));
        Ok(RedisBroker { client, conn, prefix: prefix.to_string(), presence })
    }

    fn channel(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }
}

fn unavailable(e: redis::RedisError) -> BrokerError {
    BrokerError::Unavailable(e.to_string())
}

impl Broker for RedisBroker {
    fn publish<'a>(&'a self, channel: &'a str, message: &'a str) -> BoxFuture<'a, Result<(), BrokerError>> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let _receivers: i64 = conn.publish(self.channel(channel), message).await.map_err(unavailable)?;
            Ok(())
        })
    }

    fn subscribe<'a>(&'a self, channel: &'a str) -> BoxFuture<'a, Result<Subscription, BrokerError>> {
        Box::pin(async move {
            let late = || BrokerError::Unavailable("Redis did not answer in time".into());
            let mut pubsub = tokio::time::timeout(TIMEOUT, self.client.get_async_pubsub())
                .await
                .map_err(|_| late())?
                .map_err(unavailable)?;
            tokio::time::timeout(TIMEOUT, pubsub.subscribe(self.channel(channel)))
                .await
                .map_err(|_| late())?
                .map_err(unavailable)?;
            let (tx, rx) = mpsc::channel(CAPACITY);
            tokio::spawn(async move {
                let mut stream = pubsub.into_on_message();
                loop {
                    // The subscriber dropping its end (a round that stopped) closes the
                    // connection: nothing is held for a channel nobody reads.
                    let msg = tokio::select! {
                        () = tx.closed() => break,
                        m = stream.next() => m,
                    };
                    let Some(msg) = msg else { break };
                    let Ok(text) = msg.get_payload::<String>() else {
                        tracing::warn!("a broker message was not text");
                        continue;
                    };
                    if tx.send(text).await.is_err() {
                        break;
                    }
                }
            });
            Ok(Subscription::new(rx))
        })
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), BrokerError>> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let _: String = redis::cmd("PING").query_async(&mut conn).await.map_err(unavailable)?;
            Ok(())
        })
    }

    fn kind(&self) -> &'static str {
        "redis"
    }

    fn presence<'a>(
        &'a self,
        game: &'a str,
        alive: &'a [&'static str],
    ) -> BoxFuture<'a, Result<Option<SeenAgo>, BrokerError>> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let key = format!("{}presence:{game}", self.prefix);
            let mut call = self.presence.key(key);
            call.arg(PRESENCE_TTL_MS);
            for seat in alive {
                call.arg(*seat);
            }
            let ago: Vec<i64> = call.invoke_async(&mut conn).await.map_err(unavailable)?;
            let seat = |i: usize| ago.get(i).copied().filter(|ms| *ms >= 0);
            Ok(Some([seat(0), seat(1)]))
        })
    }
}

/// Counts kept per instance and summed across instances in Redis (the open sockets of a client
/// address): each instance writes its own count of a key into the hash `{prefix}counts:{key}`,
/// field its instance id, value `count millis`; a field not written for [`STALE_MS`] (a dead
/// instance's) is left out of the sum. Every Redis call waits [`TIMEOUT`] at most; without an
/// answer the others' counts are taken as 0 (the per-instance cap still holds).
#[derive(Clone)]
pub struct SharedCounts {
    conn: ConnectionManager,
    prefix: String,
    instance: String,
}

impl std::fmt::Debug for SharedCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedCounts").field("prefix", &self.prefix).finish_non_exhaustive()
    }
}

/// How long an instance's count stands without being written again.
pub const STALE_MS: i64 = 60_000;

impl SharedCounts {
    /// Connects; keys get `prefix` in front.
    ///
    /// # Errors
    /// A malformed URL or an unreachable server.
    pub async fn connect(url: &str, prefix: &str) -> anyhow::Result<SharedCounts> {
        let client = redis::Client::open(url).context("redis.url is not a Redis URL")?;
        let conn = managed_connection(client).await?;
        Ok(SharedCounts { conn, prefix: prefix.to_string(), instance: uuid::Uuid::new_v4().simple().to_string() })
    }

    fn hash(&self, key: &str) -> String {
        format!("{}counts:{key}", self.prefix)
    }

    /// The other instances' counts of `key`, summed.
    pub async fn others(&self, key: &str) -> u64 {
        let mut conn = self.conn.clone();
        let fields: std::collections::HashMap<String, String> = match conn.hgetall(self.hash(key)).await {
            Ok(f) => f,
            Err(e) => {
                tracing::warn!(error = %e, "reading the shared counts failed: this instance's count only");
                return 0;
            }
        };
        let now = crate::domain::unix_ms(time::OffsetDateTime::now_utc());
        fields
            .iter()
            .filter(|(instance, _)| **instance != self.instance)
            .filter_map(|(_, v)| {
                let (n, at) = v.split_once(' ')?;
                let at: i64 = at.parse().ok()?;
                (now - at < STALE_MS).then(|| n.parse::<u64>().ok()).flatten()
            })
            .sum()
    }

    /// Writes this instance's count of `key` (removes it at 0).
    pub async fn set(&self, key: &str, count: u64) {
        let mut conn = self.conn.clone();
        let hash = self.hash(key);
        let result: redis::RedisResult<()> = if count == 0 {
            conn.hdel(&hash, &self.instance).await
        } else {
            let value = format!("{count} {}", crate::domain::unix_ms(time::OffsetDateTime::now_utc()));
            let set: redis::RedisResult<()> = conn.hset(&hash, &self.instance, value).await;
            match set {
                Ok(()) => conn.pexpire(&hash, STALE_MS * 2).await,
                Err(e) => Err(e),
            }
        };
        if let Err(e) = result {
            tracing::warn!(error = %e, "writing a shared count failed");
        }
    }
}
