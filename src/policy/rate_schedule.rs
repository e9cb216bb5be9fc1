//! A start schedule for one host: at most `rate` starts per second, evenly spaced (a token
//! bucket of capacity 1, so a batch never bursts at a host). Pure: the caller passes the time.

/// When the next start at one host may happen, on the caller's monotonic clock (ms).
#[derive(Debug, Clone, PartialEq)]
pub struct RateSchedule {
    interval_ms: f64,
    next_ms: f64,
}

impl RateSchedule {
    /// A schedule of `rate` starts per second (`rate` > 0 and finite; anything else is taken
    /// as one start per hour rather than a division by zero). The first start is free.
    pub fn new(rate: f64) -> Self {
        let interval_ms = if rate.is_finite() && rate > 0.0 {
            1000.0 / rate
        } else {
            3_600_000.0
        };
        Self {
            interval_ms,
            next_ms: f64::NEG_INFINITY,
        }
    }

    /// Gap between two starts, ms.
    pub fn interval_ms(&self) -> f64 {
        self.interval_ms
    }

    /// How long a caller asking at `now_ms` would wait for its start, ms (0 when one is free
    /// now), without booking it.
    ///
    /// ```
    /// use retryscope::policy::RateSchedule;
    /// let mut s = RateSchedule::new(4.0);
    /// assert_eq!(s.wait_ms(1000.0), 0.0);
    /// s.reserve(1000.0);
    /// assert_eq!(s.wait_ms(1100.0), 150.0);
    /// assert_eq!(s.wait_ms(1100.0), 150.0, "asking books nothing");
    /// ```
    pub fn wait_ms(&self, now_ms: f64) -> f64 {
        (self.next_ms - now_ms).max(0.0)
    }

    /// Books the next start for a caller asking at `now_ms`; returns how long it must wait
    /// first, ms (0 when a start is free now). Callers that ask together get consecutive
    /// slots, one interval apart; an idle host does not save up starts for a burst.
    ///
    /// ```
    /// use retryscope::policy::RateSchedule;
    /// let mut s = RateSchedule::new(4.0); // 250 ms apart
    /// assert_eq!(s.reserve(1000.0), 0.0);
    /// assert_eq!(s.reserve(1000.0), 250.0);
    /// assert_eq!(s.reserve(1100.0), 400.0);
    /// assert_eq!(s.reserve(5000.0), 0.0, "idle time is not saved up");
    /// ```
    pub fn reserve(&mut self, now_ms: f64) -> f64 {
        let start = self.next_ms.max(now_ms);
        self.next_ms = start + self.interval_ms;
        start - now_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_callers_at_once_are_spread_over_the_interval() {
        let mut s = RateSchedule::new(10.0);
        let waits: Vec<f64> = (0..10).map(|_| s.reserve(0.0)).collect();
        let want: Vec<f64> = (0..10).map(|i| f64::from(i) * 100.0).collect();
        assert_eq!(waits, want);
        // Asking later takes the next free slot, not a fresh one.
        assert_eq!(s.reserve(250.0), 750.0);
    }

    #[test]
    fn a_bad_rate_is_slow_not_a_panic() {
        let mut s = RateSchedule::new(0.0);
        assert_eq!(s.reserve(0.0), 0.0);
        assert_eq!(s.reserve(0.0), 3_600_000.0);
        assert_eq!(RateSchedule::new(f64::NAN).interval_ms(), 3_600_000.0);
        assert_eq!(RateSchedule::new(0.5).interval_ms(), 2000.0);
    }
}
