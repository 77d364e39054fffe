//! The Redis broker: Redis PUBLISH/SUBSCRIBE, so instances behind a load balancer share events.

use anyhow::Context;
use futures_util::StreamExt;
use redis::AsyncCommands;
use redis::aio::ConnectionManager;
use tokio::sync::mpsc;

use super::{BoxFuture, Broker, BrokerError, Subscription};

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
}

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
        Ok(RedisBroker { client, conn, prefix: prefix.to_string() })
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
                while let Some(msg) = stream.next().await {
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
}
