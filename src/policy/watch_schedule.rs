//! A watch's schedule (DESIGN.md §12): slot k is due at `start + k · every`, moved by a jitter
//! drawn from a seeded RNG within `± jitter · every`; the watch ends after `count` slots or at
//! `until`. Times are wall-clock Unix ms: the monotonic clock stops while the machine sleeps, so
//! only the wall clock tells that slots passed. Pure: the caller passes the time.
//!
//! The one rule for a late slot: a slot whose time passed by more than half an interval before
//! it could be sent is missed (recorded, never sent late in a burst); a slot less late than
//! that is sent at once.

use rand::Rng;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};

/// Largest jitter ratio (exclusive): slots stay in order (each within half an interval of its own time).
pub const MAX_JITTER: f64 = 0.5;

/// When a watch's slots are due.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WatchSchedule {
    /// Slot 0's time before jitter, Unix ms.
    pub start_unix_ms: i64,
    /// Interval between slots, ms (≥ 1).
    pub every_ms: u64,
    /// Jitter ratio in `[0, MAX_JITTER)`: slot k moves by a uniform draw in
    /// `[-jitter · every, +jitter · every]`.
    pub jitter: f64,
    /// Seed of the jitter draws (slot k's draw depends on the seed and k only).
    pub seed: u64,
    /// Number of slots, when the watch ends after a count.
    pub count: Option<u64>,
    /// No slot is due at or after this time, Unix ms, when the watch ends at a time.
    pub until_unix_ms: Option<i64>,
}

/// What to do next at a given time ([`WatchSchedule::plan`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotPlan {
    /// Slots whose time passed by more than half an interval: missed, in order.
    pub missed: std::ops::Range<u64>,
    /// The next slot to send and its time (Unix ms; at or before `now` means "send now"), or
    /// `None` when the schedule has ended.
    pub next: Option<(u64, i64)>,
}

impl WatchSchedule {
    /// Slot `k`'s time, Unix ms: `start + k · every + jitter_k`, `jitter_k` drawn from a ChaCha8
    /// RNG seeded with `seed` and `k`.
    pub fn slot_time(&self, k: u64) -> i64 {
        let every = i64::try_from(self.every_ms).unwrap_or(i64::MAX);
        let base = self
            .start_unix_ms
            .saturating_add(i64::try_from(k).unwrap_or(i64::MAX).saturating_mul(every));
        let ratio = self.jitter.clamp(0.0, MAX_JITTER);
        if ratio == 0.0 {
            return base;
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(
            self.seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15),
        );
        #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
        let span = (ratio * self.every_ms as f64).round() as i64;
        if span == 0 {
            return base;
        }
        base.saturating_add(rng.random_range(-span..=span))
    }

    /// Whether slot `k` belongs to the schedule (before `count`, and due before `until`).
    pub fn has_slot(&self, k: u64) -> bool {
        self.count.is_none_or(|n| k < n)
            && self
                .until_unix_ms
                .is_none_or(|until| self.slot_time(k) < until)
    }

    /// Half an interval, ms: how late a slot may be and still be sent.
    pub fn grace_ms(&self) -> i64 {
        i64::try_from(self.every_ms / 2).unwrap_or(i64::MAX)
    }

    /// At wall-clock time `now` (Unix ms), with slots before `first` handled: the slots missed
    /// (due more than [`Self::grace_ms`] before `now`) and the next slot to send.
    pub fn plan(&self, first: u64, now: i64) -> SlotPlan {
        // Slots more than half an interval late, found without walking each one: the slot
        // index near `now` comes from arithmetic, then steps settle the jitter.
        let late_before = now.saturating_sub(self.grace_ms());
        let mut k = first;
        if self.slot_time(k) < late_before {
            let every = i64::try_from(self.every_ms.max(1)).unwrap_or(i64::MAX);
            let guess = (late_before - self.start_unix_ms).div_euclid(every);
            k = u64::try_from(guess)
                .unwrap_or(0)
                .saturating_sub(1)
                .max(first);
            while k > first && self.slot_time(k) >= late_before {
                k -= 1;
            }
            while self.slot_time(k) < late_before {
                k += 1;
            }
        }
        let mut end = k;
        // The missed slots stop where the schedule does.
        if !self.has_slot(k) {
            end = first;
            while end < k && self.has_slot(end) {
                end += 1;
            }
            return SlotPlan {
                missed: first..end,
                next: None,
            };
        }
        SlotPlan {
            missed: first..end,
            next: Some((k, self.slot_time(k))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_10s(count: Option<u64>) -> WatchSchedule {
        WatchSchedule {
            start_unix_ms: 1_000_000,
            every_ms: 10_000,
            jitter: 0.0,
            seed: 7,
            count,
            until_unix_ms: None,
        }
    }

    #[test]
    fn slot_k_is_start_plus_k_intervals_and_jitter_stays_within_its_share() {
        let s = every_10s(None);
        assert_eq!(s.slot_time(0), 1_000_000);
        assert_eq!(s.slot_time(3), 1_030_000);
        let j = WatchSchedule { jitter: 0.1, ..s };
        let mut moved = 0;
        for k in 0..500 {
            let off = j.slot_time(k) - s.slot_time(k);
            assert!(off.abs() <= 1000, "slot {k} moved {off} ms");
            moved += i32::from(off != 0);
        }
        assert!(moved > 400, "jitter moves most slots ({moved})");
        // Seeded: the same seed draws the same times, another seed others.
        assert_eq!(j.slot_time(42), j.slot_time(42));
        let other = WatchSchedule { seed: 8, ..j };
        assert!((0..20).any(|k| other.slot_time(k) != j.slot_time(k)));
    }

    #[test]
    fn a_slot_late_by_more_than_half_an_interval_is_missed_never_sent_late() {
        let s = every_10s(None);
        // On time and up to 5 s late: sent at once.
        assert_eq!(s.plan(0, 999_000).next, Some((0, 1_000_000)));
        assert_eq!(s.plan(0, 1_005_000).next, Some((0, 1_000_000)));
        assert!(s.plan(0, 1_005_000).missed.is_empty());
        // 5.001 s late: missed, the next one waited for.
        let p = s.plan(0, 1_005_001);
        assert_eq!((p.missed, p.next), (0..1, Some((1, 1_010_000))));
        // The machine slept an hour after slot 3: slots 4 … 363 missed, 364 sent now (on time).
        let p = s.plan(4, 1_000_000 + 3_640_000);
        assert_eq!((p.missed, p.next), (4..364, Some((364, 4_640_000))));
        // Jitter does not change the rule.
        let j = WatchSchedule { jitter: 0.3, ..s };
        let now = 1_000_000 + 3_640_000;
        let p = j.plan(4, now);
        for k in p.missed.clone() {
            assert!(j.slot_time(k) < now - 5000, "slot {k}");
        }
        let (next, at) = p.next.unwrap();
        assert_eq!(next, p.missed.end);
        assert!(at >= now - 5000);
    }

    #[test]
    fn the_schedule_ends_after_its_count_or_at_its_time() {
        let s = every_10s(Some(3));
        assert_eq!(s.plan(2, 1_020_000).next, Some((2, 1_020_000)));
        assert_eq!(s.plan(3, 1_030_000).next, None);
        // Asleep past the end: only the slots of the schedule are missed.
        let p = s.plan(1, 9_000_000);
        assert_eq!((p.missed, p.next), (1..3, None));
        let u = WatchSchedule {
            count: None,
            until_unix_ms: Some(1_025_000),
            ..s
        };
        assert!(u.has_slot(2) && !u.has_slot(3));
        assert_eq!(u.plan(3, 1_030_000).next, None);
    }
}
