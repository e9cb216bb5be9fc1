//! Sleeping until an instant with sub-millisecond accuracy.
//!
//! tokio's timer has 1 ms granularity and rounds deadlines up, so a plain `sleep_until` wakes
//! 0–1 ms (more under load) late. Waits are what Retryscope measures, so the last
//! [`SPIN_MARGIN`] of each wait is spent yielding to the scheduler while polling the monotonic
//! clock (other tasks keep running; this costs at most about that much CPU per wait).
//!
//! Under tokio's paused test clock the yield loop watches the real clock, so it ends after at
//! most the margin in real time; a final `sleep_until` on tokio's clock then advances virtual
//! time to exactly the deadline.

use std::time::Duration;
use tokio::time::Instant;

/// How much of the end of a wait is spent yield-polling instead of on the timer.
pub(crate) const SPIN_MARGIN: Duration = Duration::from_millis(2);

/// Completes at `until` (tokio clock), late by microseconds rather than milliseconds.
pub(crate) async fn sleep_until_precise(until: Instant) {
    let now = Instant::now();
    if until <= now {
        return;
    }
    if until - now > SPIN_MARGIN {
        tokio::time::sleep_until(until - SPIN_MARGIN).await;
    }
    let remaining = until.saturating_duration_since(Instant::now());
    let real_until = std::time::Instant::now() + remaining;
    while std::time::Instant::now() < real_until {
        tokio::task::yield_now().await;
    }
    // Only under a paused clock is tokio's time still short of the deadline here.
    if Instant::now() < until {
        tokio::time::sleep_until(until).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn paused_clock_ends_exactly_at_the_deadline() {
        let start = Instant::now();
        sleep_until_precise(start + Duration::from_hours(1)).await;
        assert_eq!(start.elapsed(), Duration::from_hours(1));
    }

    #[tokio::test]
    async fn real_clock_is_never_early_and_rarely_late() {
        for ms in [0u64, 1, 3, 20] {
            let start = Instant::now();
            sleep_until_precise(start + Duration::from_millis(ms)).await;
            let took = start.elapsed();
            assert!(took >= Duration::from_millis(ms), "{ms} ms took {took:?}");
            // Generous: a loaded CI machine may deschedule us.
            assert!(
                took < Duration::from_millis(ms + 200),
                "{ms} ms took {took:?}"
            );
        }
    }
}
