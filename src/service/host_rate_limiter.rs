//! The batch's rate limit per host: each scheme + host + port gets its own
//! [`RateSchedule`], and an item waits for its slot (on tokio's clock, so a paused test clock
//! applies) before its first attempt.

use super::budget_registry::origin;
use crate::policy::RateSchedule;
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use tokio::time::Instant;

/// Paces item starts per host; shared by every item of a batch.
#[derive(Debug)]
pub struct HostRateLimiter {
    rate: Option<f64>,
    epoch: Instant,
    hosts: Mutex<HashMap<String, RateSchedule>>,
}

impl HostRateLimiter {
    /// A limiter of `rate` starts per second per host; `None` never waits.
    pub fn new(rate: Option<f64>) -> Self {
        Self {
            rate,
            epoch: Instant::now(),
            hosts: Mutex::new(HashMap::new()),
        }
    }

    /// Waits until a request to `url` may start. A URL without a host (it will fail before
    /// sending) never waits.
    pub async fn wait_turn(&self, url: &str) {
        let Some(wait) = self.book(url) else {
            return;
        };
        if wait > 0.0 {
            tokio::time::sleep(std::time::Duration::from_secs_f64(wait / 1000.0)).await;
        }
    }

    /// Books a slot for `url` now; the wait before it, ms (`None`: no limit applies).
    fn book(&self, url: &str) -> Option<f64> {
        let rate = self.rate?;
        let host = origin(url)?;
        let now_ms = self.epoch.elapsed().as_secs_f64() * 1000.0;
        let mut hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        Some(
            hosts
                .entry(host)
                .or_insert_with(|| RateSchedule::new(rate))
                .reserve(now_ms),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    /// Three items of one host at 2 per second start 0, 500 and 1000 ms in; another host's item
    /// does not wait for them.
    #[tokio::test(start_paused = true)]
    async fn starts_are_spaced_per_host_on_the_paused_clock() {
        let limiter = Arc::new(HostRateLimiter::new(Some(2.0)));
        let t0 = Instant::now();
        let mut tasks = Vec::new();
        for url in [
            "http://127.0.0.1:1/a",
            "http://127.0.0.1:1/b",
            "http://127.0.0.1:1/c",
            "http://127.0.0.1:2/other",
        ] {
            let l = Arc::clone(&limiter);
            tasks.push(tokio::spawn(async move {
                l.wait_turn(url).await;
                t0.elapsed()
            }));
        }
        let mut at = Vec::new();
        for t in tasks {
            at.push(t.await.expect("task"));
        }
        let ms: Vec<u128> = at.iter().map(Duration::as_millis).collect();
        assert_eq!(ms, vec![0, 500, 1000, 0]);
    }

    #[tokio::test(start_paused = true)]
    async fn no_rate_never_waits() {
        let limiter = HostRateLimiter::new(None);
        let t0 = Instant::now();
        for _ in 0..100 {
            limiter.wait_turn("http://127.0.0.1:1/").await;
        }
        assert_eq!(t0.elapsed(), Duration::ZERO);
    }
}
