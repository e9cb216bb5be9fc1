//! The batch's rate limit per host: each scheme + host + port gets its own
//! [`RateSchedule`]. The batch runner's coordinator asks [`HostRateLimiter::try_start`] before it
//! gives an item a concurrency slot, so an item waiting for its host's turn holds no slot (times
//! on tokio's clock, so a paused test clock applies).

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

    /// The key `url`'s starts are paced under (its scheme + host + port), or `None` when none
    /// is: no rate is set, or the URL has no host (it fails before sending).
    pub fn host_key(&self, url: &str) -> Option<String> {
        self.rate?;
        origin(url)
    }

    /// Books a start at host `key` (a [`Self::host_key`]) at `now` when one is free, or says
    /// when the next one is (`Err(at)`, nothing booked).
    ///
    /// # Errors
    /// `Err(at)`: the host's next start is at `at`.
    pub fn try_start(&self, key: &str, now: Instant) -> Result<(), Instant> {
        let Some(rate) = self.rate else {
            return Ok(());
        };
        let now_ms = self.ms(now);
        let mut hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        let schedule = match hosts.get_mut(key) {
            Some(s) => s,
            None => hosts
                .entry(key.to_owned())
                .or_insert_with(|| RateSchedule::new(rate)),
        };
        if let Some(wait) = wait_after(schedule, now_ms) {
            return Err(now + wait);
        }
        schedule.reserve(now_ms);
        Ok(())
    }

    /// When host `key` (a [`Self::host_key`]) has its next start free: `now` when it is free
    /// now (or unknown to the limiter, or no rate is set).
    pub fn next_start(&self, key: &str, now: Instant) -> Instant {
        let hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        hosts
            .get(key)
            .and_then(|s| wait_after(s, self.ms(now)))
            .map_or(now, |wait| now + wait)
    }

    /// Waits until a request to `url` may start, booking its start (for callers that hold
    /// nothing while they wait). A URL without a host never waits.
    pub async fn wait_turn(&self, url: &str) {
        let Some(wait) = self.book(url) else {
            return;
        };
        if wait > 0.0 {
            tokio::time::sleep(std::time::Duration::from_secs_f64(wait / 1000.0)).await;
        }
    }

    /// `now` in ms since the limiter was made.
    fn ms(&self, now: Instant) -> f64 {
        now.saturating_duration_since(self.epoch).as_secs_f64() * 1000.0
    }

    /// Books a slot for `url` now; the wait before it, ms (`None`: no limit applies).
    fn book(&self, url: &str) -> Option<f64> {
        let rate = self.rate?;
        let host = origin(url)?;
        let now_ms = self.ms(Instant::now());
        let mut hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        Some(
            hosts
                .entry(host)
                .or_insert_with(|| RateSchedule::new(rate))
                .reserve(now_ms),
        )
    }
}

/// The wait before `schedule`'s next start at `now_ms`, or `None` when it is free (a wait under
/// a microsecond is float rounding, not a wait: a timer could not be set for it).
fn wait_after(schedule: &RateSchedule, now_ms: f64) -> Option<std::time::Duration> {
    let wait_ms = schedule.wait_ms(now_ms);
    (wait_ms >= 0.001).then(|| std::time::Duration::from_secs_f64(wait_ms / 1000.0))
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
        assert_eq!(limiter.host_key("http://127.0.0.1:1/"), None);
        assert_eq!(limiter.try_start("http://127.0.0.1:1", t0), Ok(()));
    }

    /// `try_start` books only when a start is free and otherwise says when it will be.
    #[tokio::test(start_paused = true)]
    async fn try_start_books_a_free_start_or_names_the_next_one() {
        let limiter = HostRateLimiter::new(Some(4.0));
        let key = limiter.host_key("http://127.0.0.1:1/a").expect("a host");
        let t0 = Instant::now();
        assert_eq!(limiter.try_start(&key, t0), Ok(()));
        let next = t0 + Duration::from_millis(250);
        assert_eq!(limiter.try_start(&key, t0), Err(next));
        assert_eq!(
            limiter.try_start(&key, t0),
            Err(next),
            "asking books nothing"
        );
        assert_eq!(limiter.next_start(&key, t0), next);
        let other = limiter.host_key("http://127.0.0.1:2/").expect("a host");
        assert_eq!(
            limiter.try_start(&other, t0),
            Ok(()),
            "another host is free"
        );
        tokio::time::advance(Duration::from_millis(250)).await;
        assert_eq!(limiter.try_start(&key, Instant::now()), Ok(()));
    }
}
