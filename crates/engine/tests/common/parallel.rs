//! Sums a count over many items on every core: the deep reference perft of the CI run.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The sum of `count` over `items`, computed by as many threads as the machine has cores.
pub fn parallel_sum<T: Sync>(items: &[T], count: impl Fn(&T) -> u64 + Sync) -> u64 {
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, items.len().max(1));
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut sum = 0;
                    while let Some(item) = items.get(next.fetch_add(1, Ordering::Relaxed)) {
                        sum += count(item);
                    }
                    sum
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).sum()
    })
}
