//! Publish/subscribe between the parts of the service and between instances.
//!
//! One trait, two implementations: [`memory::MemoryBroker`] (one process, the default) and
//! [`redis::RedisBroker`] (any number of instances sharing a Redis).

pub mod memory;
pub mod redis;

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use tokio::sync::mpsc;

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
}
