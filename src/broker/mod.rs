//! Publish/subscribe between the parts of the service and between instances.
//!
//! One trait, two implementations: [`memory::MemoryBroker`] (one process, the default) and
//! [`redis::RedisBroker`] (any number of instances sharing a Redis).

pub mod memory;
pub mod redis;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;

/// A boxed future, so the trait can be used as `dyn Broker`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What can go wrong talking to a broker.
#[derive(Debug, thiserror::Error)]
pub enum BrokerError {
    /// The backing service failed.
    #[error("broker unavailable: {0}")]
    Unavailable(String),
}

/// A channel subscription: messages in publication order until dropped.
#[derive(Debug)]
pub struct Subscription {
    rx: mpsc::Receiver<String>,
}

impl Subscription {
    /// Wraps a receiver fed by a broker.
    pub fn new(rx: mpsc::Receiver<String>) -> Subscription {
        Subscription { rx }
    }

    /// The next message, or `None` once the broker has gone away.
    pub async fn recv(&mut self) -> Option<String> {
        self.rx.recv().await
    }
}

/// Publish/subscribe on named channels. Messages are text (JSON by convention); delivery is
/// at most once, to the subscriptions open at publication time.
pub trait Broker: Send + Sync + fmt::Debug {
    /// Sends a message to every current subscriber of the channel.
    fn publish<'a>(&'a self, channel: &'a str, message: &'a str) -> BoxFuture<'a, Result<(), BrokerError>>;

    /// Starts receiving the messages of a channel. The subscription is active once this resolves.
    fn subscribe<'a>(&'a self, channel: &'a str) -> BoxFuture<'a, Result<Subscription, BrokerError>>;

    /// Whether the broker is reachable (for `/healthz`).
    fn ping(&self) -> BoxFuture<'_, Result<(), BrokerError>>;

    /// `memory` or `redis`.
    fn kind(&self) -> &'static str;

    /// Whether this instance is the only one (the in-process broker reaches no other), so that
    /// what only the instances share, such as who is connected, can stay in memory.
    fn is_alone(&self) -> bool {
        false
    }

    /// Records that the seats `alive` (`white`, `black`) of game `game` are connected to this
    /// instance now, and reads how long ago each seat was last recorded by any instance
    /// (milliseconds, white then black; `None` for a seat never recorded or forgotten). `Ok(None)`
    /// when the broker keeps no presence (the in-process one: the rounds' memory is the whole
    /// story).
    fn presence<'a>(
        &'a self,
        game: &'a str,
        alive: &'a [&'static str],
    ) -> BoxFuture<'a, Result<Option<SeenAgo>, BrokerError>> {
        let _ = (game, alive);
        Box::pin(async { Ok(None) })
    }
}

/// How long ago each seat of a game was last seen, in milliseconds: white, black.
pub type SeenAgo = [Option<i64>; 2];

/// The first wait before subscribing again after a subscription ended or failed.
const RETRY_FIRST: Duration = Duration::from_millis(100);
/// The longest wait between two attempts.
const RETRY_MAX: Duration = Duration::from_secs(5);

/// What a [`Feed`] delivers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// A message of the channel.
    Message(String),
    /// The subscription had ended (or had never started) and is active again: messages
    /// published meanwhile are lost, so the subscriber catches up from the database.
    Resumed,
}

/// A subscription that lasts: when the broker's subscription ends (a Redis connection killed, a
/// Redis restart) or cannot be opened, it subscribes again with exponential backoff (100 ms
/// doubling to 5 s, from 100 ms again once a subscription has lasted 5 s) and then delivers
/// [`Delivery::Resumed`]. Every subscriber of the service
/// (rounds, the lobby, account news) reads its channel through one.
///
/// [`Feed::next`] is cancel-safe (it can sit in a `tokio::select!`): the time of the next
/// attempt is kept in the feed, not in the future.
#[derive(Debug)]
pub struct Feed {
    broker: Arc<dyn Broker>,
    channel: String,
    sub: Option<Subscription>,
    retry_at: Instant,
    backoff: Duration,
    /// When the current subscription was opened.
    since: Instant,
}

impl Feed {
    /// Subscribes to `channel`. When that fails the feed keeps trying, and says
    /// [`Delivery::Resumed`] once it succeeds.
    pub async fn open(broker: Arc<dyn Broker>, channel: &str) -> Feed {
        let mut feed = Feed {
            broker,
            channel: channel.to_string(),
            sub: None,
            retry_at: Instant::now(),
            backoff: RETRY_FIRST,
            since: Instant::now(),
        };
        match feed.broker.subscribe(&feed.channel).await {
            Ok(s) => feed.sub = Some(s),
            Err(e) => feed.lost(&e.to_string()),
        }
        feed
    }

    /// Whether the subscription is active now.
    pub fn is_active(&self) -> bool {
        self.sub.is_some()
    }

    fn lost(&mut self, why: &str) {
        // A subscription that had lasted is a new outage: the backoff starts again.
        if self.sub.is_some() && self.since.elapsed() > RETRY_MAX {
            self.backoff = RETRY_FIRST;
        }
        tracing::warn!(channel = %self.channel, error = why, retry_ms = self.backoff.as_millis() as u64, "broker subscription lost, subscribing again");
        self.sub = None;
        self.retry_at = Instant::now() + self.backoff;
        self.backoff = (self.backoff * 2).min(RETRY_MAX);
    }

    /// The next message, or [`Delivery::Resumed`] after the subscription was restored.
    pub async fn next(&mut self) -> Delivery {
        loop {
            if let Some(sub) = self.sub.as_mut() {
                match sub.recv().await {
                    Some(text) => return Delivery::Message(text),
                    None => self.lost("the subscription ended"),
                }
                continue;
            }
            tokio::time::sleep_until(self.retry_at).await;
            match self.broker.subscribe(&self.channel).await {
                Ok(s) => {
                    tracing::info!(channel = %self.channel, "broker subscription restored");
                    self.sub = Some(s);
                    self.since = Instant::now();
                    return Delivery::Resumed;
                }
                Err(e) => self.lost(&e.to_string()),
            }
        }
    }
}
