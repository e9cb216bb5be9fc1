//! Which batch items may start now under the rate per host ([`HostRateLimiter`]): an item whose
//! host has no free start is parked (in its host's line, oldest first) instead of taking a
//! concurrency slot, so items of other hosts go ahead of it (no head-of-line blocking). Parked
//! items are bounded ([`StartPacer::new`]'s `limit`): once full, the batch reads no further
//! ahead until a parked item starts.

use super::host_rate_limiter::HostRateLimiter;
use std::collections::{HashMap, VecDeque};
use tokio::time::Instant;

/// Parked items the batch runner keeps at most (beyond them, reading ahead stops).
pub const PARKED_LIMIT: usize = 1024;

/// What [`StartPacer::offer`] did with an item.
#[derive(Debug, PartialEq, Eq)]
pub enum Offer<T> {
    /// Its host has a start free now (booked): start it.
    Start(T),
    /// Parked until its host has a start free; [`StartPacer::take_ready`] returns it then.
    Parked,
    /// Not taken: the parked items are at their limit. Offer it again later.
    Full(T),
}

/// Items waiting for their host's turn, and the limiter that paces the hosts.
#[derive(Debug)]
pub struct StartPacer<T> {
    limiter: HostRateLimiter,
    /// Parked items per host key, oldest first, each with its parking number.
    parked: HashMap<String, VecDeque<(u64, T)>>,
    parked_total: usize,
    /// The next parking number (items are taken oldest first across hosts).
    next_seq: u64,
    limit: usize,
}

impl<T> StartPacer<T> {
    /// A pacer over `limiter` keeping at most `limit` items parked (at least 1).
    pub fn new(limiter: HostRateLimiter, limit: usize) -> Self {
        Self {
            limiter,
            parked: HashMap::new(),
            parked_total: 0,
            next_seq: 0,
            limit: limit.max(1),
        }
    }

    /// Items parked now.
    pub fn parked(&self) -> usize {
        self.parked_total
    }

    /// The key a request to `url` is paced under ([`HostRateLimiter::host_key`]; `None`: it is
    /// not paced, and nothing is allocated).
    pub fn host_key(&self, url: &str) -> Option<String> {
        self.limiter.host_key(url)
    }

    /// Offers `item`, paced under `key` (its [`Self::host_key`]), at `now`: it starts when its
    /// host has a start free and no item of that host is parked before it; else it is parked
    /// (or refused when full).
    pub fn offer(&mut self, key: Option<String>, item: T, now: Instant) -> Offer<T> {
        let Some(key) = key else {
            return Offer::Start(item);
        };
        let waiting = self.parked.get(&key).is_some_and(|q| !q.is_empty());
        if !waiting && self.limiter.try_start(&key, now).is_ok() {
            return Offer::Start(item);
        }
        if self.parked_total >= self.limit {
            return Offer::Full(item);
        }
        self.parked
            .entry(key)
            .or_default()
            .push_back((self.next_seq, item));
        self.next_seq += 1;
        self.parked_total += 1;
        Offer::Parked
    }

    /// The oldest parked item whose host has a start free at `now` (booked).
    pub fn take_ready(&mut self, now: Instant) -> Option<T> {
        let key = self
            .parked
            .iter()
            .filter(|(k, _)| self.limiter.next_start(k, now) <= now)
            .filter_map(|(k, line)| line.front().map(|(seq, _)| (*seq, k)))
            .min()?
            .1
            .clone();
        if self.limiter.try_start(&key, now).is_err() {
            return None;
        }
        let line = self.parked.get_mut(&key)?;
        let item = line.pop_front().map(|(_, item)| item);
        if line.is_empty() {
            self.parked.remove(&key);
        }
        if item.is_some() {
            self.parked_total -= 1;
        }
        item
    }

    /// When the next parked item's host has a start free (`None`: nothing is parked).
    pub fn next_ready(&self, now: Instant) -> Option<Instant> {
        self.parked
            .keys()
            .map(|k| self.limiter.next_start(k, now))
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    const SLOW: &str = "http://127.0.0.1:1/slow";
    const FAST: &str = "http://127.0.0.2:2/fast";

    /// Works `items` (url, label) with `slots` slots, each item taking `busy` once started, the
    /// way the batch runner's coordinator does; returns each label's start, ms after t0.
    async fn starts(
        pacer: &mut StartPacer<&'static str>,
        items: &[(&'static str, &'static str)],
        slots: usize,
        busy: Duration,
    ) -> Vec<(&'static str, u128)> {
        let t0 = Instant::now();
        let mut feed: VecDeque<_> = items.iter().copied().collect();
        let mut running: Vec<Instant> = Vec::new();
        let mut started = Vec::new();
        while !(feed.is_empty() && pacer.parked() == 0 && running.is_empty()) {
            let now = Instant::now();
            running.retain(|end| *end > now);
            while running.len() < slots {
                let item = if let Some(item) = pacer.take_ready(now) {
                    item
                } else {
                    let Some((url, label)) = feed.pop_front() else {
                        break;
                    };
                    match pacer.offer(pacer.host_key(url), label, now) {
                        Offer::Start(item) => item,
                        Offer::Parked => continue,
                        Offer::Full(_) => panic!("the limit is not reached here"),
                    }
                };
                started.push((item, now.duration_since(t0).as_millis()));
                running.push(now + busy);
            }
            let wake = running.iter().copied().chain(pacer.next_ready(now)).min();
            match wake {
                Some(at) => tokio::time::sleep_until(at).await,
                None => break,
            }
        }
        started
    }

    /// One slot, a slow host at 1 start per second and a fast one without parked items: the
    /// fast host's items all start while the slow host's second item waits for its turn,
    /// holding no slot (before, it waited in the slot and the fast items waited behind it).
    #[tokio::test(start_paused = true)]
    async fn a_fast_host_is_not_delayed_by_a_slow_host_rate_limit() {
        let mut pacer = StartPacer::new(HostRateLimiter::new(Some(1.0)), 16);
        let items = [
            (SLOW, "s1"),
            (SLOW, "s2"),
            (FAST, "f1"),
            (FAST, "f2"),
            (FAST, "f3"),
        ];
        let got = starts(&mut pacer, &items, 1, Duration::from_millis(10)).await;
        // f1..f3 are one host too, paced at 1/s like every host; they are not behind s2.
        assert_eq!(
            got,
            vec![
                ("s1", 0),
                ("f1", 10),
                ("s2", 1000),
                ("f2", 1010),
                ("f3", 2010)
            ]
        );
    }

    /// With many hosts at 1 start per second each and two slots, every host's first item starts
    /// at once (two at a time), none waits for another host's turn.
    #[tokio::test(start_paused = true)]
    async fn each_host_keeps_its_own_schedule_and_its_order() {
        let mut pacer = StartPacer::new(HostRateLimiter::new(Some(1.0)), 16);
        let items = [
            (SLOW, "s1"),
            (SLOW, "s2"),
            (SLOW, "s3"),
            (FAST, "f1"),
            (FAST, "f2"),
        ];
        let got = starts(&mut pacer, &items, 2, Duration::from_millis(1)).await;
        assert_eq!(
            got,
            vec![
                ("s1", 0),
                ("f1", 0),
                ("s2", 1000),
                ("f2", 1000),
                ("s3", 2000)
            ]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn parked_items_are_bounded_and_no_rate_parks_nothing() {
        let now = Instant::now();
        let mut pacer = StartPacer::new(HostRateLimiter::new(Some(1.0)), 2);
        assert_eq!(pacer.offer(pacer.host_key(SLOW), 1, now), Offer::Start(1));
        assert_eq!(pacer.offer(pacer.host_key(SLOW), 2, now), Offer::Parked);
        assert_eq!(pacer.offer(pacer.host_key(SLOW), 3, now), Offer::Parked);
        assert_eq!(pacer.offer(pacer.host_key(SLOW), 4, now), Offer::Full(4));
        assert_eq!(
            pacer.offer(pacer.host_key(FAST), 5, now),
            Offer::Start(5),
            "a host with a start free starts even when the parked items are full"
        );
        assert_eq!(pacer.offer(pacer.host_key(FAST), 6, now), Offer::Full(6));
        assert_eq!(pacer.take_ready(now), None);
        assert_eq!(pacer.next_ready(now), Some(now + Duration::from_secs(1)));
        let later = now + Duration::from_secs(1);
        assert_eq!(pacer.take_ready(later), Some(2));
        assert_eq!(pacer.take_ready(later), None, "one start per turn");
        assert_eq!(pacer.parked(), 1);

        let mut free = StartPacer::new(HostRateLimiter::new(None), 1);
        for i in 0..10 {
            assert_eq!(free.offer(free.host_key(SLOW), i, now), Offer::Start(i));
        }
        assert_eq!(free.next_ready(now), None);
    }
}
