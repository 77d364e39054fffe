//! The in-process broker: one process, no external service.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{broadcast, mpsc};

use super::{BoxFuture, Broker, BrokerError, Subscription};

/// Messages buffered per channel for a slow subscriber before it skips.
const CAPACITY: usize = 256;

/// Channels as tokio broadcast senders.
#[derive(Debug, Default, Clone)]
pub struct MemoryBroker {
    channels: Arc<Mutex<HashMap<String, broadcast::Sender<String>>>>,
}

impl MemoryBroker {
    /// An empty broker.
    pub fn new() -> MemoryBroker {
        MemoryBroker::default()
    }

    /// How many channels it holds (those with a subscriber, and those not yet forgotten).
    pub fn channels(&self) -> usize {
        self.channels.lock().map_or(0, |mut m| {
            m.retain(|_, tx| tx.receiver_count() > 0);
            m.len()
        })
    }

    fn sender(&self, channel: &str) -> Result<broadcast::Sender<String>, BrokerError> {
        let mut map = self.channels.lock().map_err(|_| BrokerError::Unavailable("lock poisoned".into()))?;
        // Forget channels nobody listens to any more.
        map.retain(|_, tx| tx.receiver_count() > 0);
        Ok(map.entry(channel.to_string()).or_insert_with(|| broadcast::channel(CAPACITY).0).clone())
    }
}

impl Broker for MemoryBroker {
    fn publish<'a>(&'a self, channel: &'a str, message: &'a str) -> BoxFuture<'a, Result<(), BrokerError>> {
        Box::pin(async move {
            let map = self.channels.lock().map_err(|_| BrokerError::Unavailable("lock poisoned".into()))?;
            if let Some(tx) = map.get(channel) {
                // No receiver left is not an error: nobody was listening.
                let _ = tx.send(message.to_string());
            }
            Ok(())
        })
    }

    fn subscribe<'a>(&'a self, channel: &'a str) -> BoxFuture<'a, Result<Subscription, BrokerError>> {
        Box::pin(async move {
            let mut source = self.sender(channel)?.subscribe();
            let (tx, rx) = mpsc::channel(CAPACITY);
            tokio::spawn(async move {
                loop {
                    // The subscriber dropping its end (a round that stopped) ends this too, so
                    // that the channel's receiver goes and the channel is forgotten.
                    let received = tokio::select! {
                        () = tx.closed() => break,
                        r = source.recv() => r,
                    };
                    match received {
                        Ok(msg) => {
                            if tx.send(msg).await.is_err() {
                                break;
                            }
                        }
                        Err(broadcast::error::RecvError::Lagged(n)) => {
                            tracing::warn!(skipped = n, "a broker subscriber lagged");
                        }
                        Err(broadcast::error::RecvError::Closed) => break,
                    }
                }
            });
            Ok(Subscription::new(rx))
        })
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), BrokerError>> {
        Box::pin(async { Ok(()) })
    }

    fn kind(&self) -> &'static str {
        "memory"
    }

    fn is_alone(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn subscribers_get_messages_of_their_channel_only() {
        let broker = MemoryBroker::new();
        let mut a = broker.subscribe("game:a").await.unwrap();
        let mut b = broker.subscribe("game:b").await.unwrap();
        broker.publish("game:a", "one").await.unwrap();
        broker.publish("game:b", "two").await.unwrap();
        broker.publish("game:a", "three").await.unwrap();
        assert_eq!(a.recv().await.as_deref(), Some("one"));
        assert_eq!(a.recv().await.as_deref(), Some("three"));
        assert_eq!(b.recv().await.as_deref(), Some("two"));
    }

    #[tokio::test]
    async fn a_dropped_subscription_lets_its_channel_go() {
        let broker = MemoryBroker::new();
        let mut subs = Vec::new();
        for n in 0..50 {
            subs.push(broker.subscribe(&format!("game:{n}")).await.unwrap());
        }
        let mut kept = broker.subscribe("game:kept").await.unwrap();
        assert_eq!(broker.channels(), 51);
        drop(subs);
        // The forwarding tasks see their subscriber gone and end.
        while broker.channels() > 1 {
            tokio::task::yield_now().await;
        }
        broker.publish("game:kept", "still here").await.unwrap();
        assert_eq!(kept.recv().await.as_deref(), Some("still here"));
    }

    #[tokio::test]
    async fn publishing_to_nobody_is_fine() {
        MemoryBroker::new().publish("empty", "x").await.unwrap();
    }
}
