//! Exact bounds of wait n for the computed strategies, for the editor's preview ("the true
//! maximum", DESIGN.md §2) and the property tests.
//!
//! Every computed formula is monotone in each of its draws, so the bound is the same code as the
//! wait itself ([`super::strategies::compute`]) with every draw at the end of its range; the
//! result includes the window `w`, the ratio `p`, `hard_cap`, whole-ms rounding and the 24 h
//! ceiling.

use super::draws::Extreme;
use super::limits::{cap_ms, ceil_ms};
use super::strategies::{compute, final_clamp};
use crate::model::{Backoff, Strategy};

/// The largest wait n the backoff can produce, ms; `None` for `response_header` and `custom`,
/// whose waits come from the server or a script rather than a formula.
///
/// For `decorrelated_jitter` the previous wait is the largest possible one of the same schedule:
/// `min(c, b·3^(n−1))` (b before retry 1).
///
/// ```
/// use retryscope::model::{Backoff, Strategy};
/// use retryscope::policy::max_wait_bound;
/// // Seed 001: m = U[0, 2^n − 1], d = min(b·m, c), + U[0, w]: wait 2 ≤ min(1000·3, 10000) + 1500.
/// let mut b = Backoff::new(Strategy::Exponential);
/// b.max_delay_ms = Some(10_000);
/// b.jitter_window_ms = 1500;
/// assert_eq!(max_wait_bound(&b, 2), Some(4500.0));
/// assert_eq!(max_wait_bound(&b, 9), Some(11_500.0));
/// b.hard_cap = true;
/// assert_eq!(max_wait_bound(&b, 9), Some(10_000.0));
/// ```
pub fn max_wait_bound(backoff: &Backoff, retry: u32) -> Option<f64> {
    bound(backoff, retry, Extreme::High)
}

/// The smallest wait n the backoff can produce, ms; `None` for `response_header` and `custom`.
///
/// ```
/// use retryscope::model::{Backoff, Strategy};
/// use retryscope::policy::{max_wait_bound, min_wait_bound};
/// // Seed 000: min(b·2^(n−1), c)·U[0.8, 1.2]: wait 3 ≥ 4000·0.8.
/// let b = Backoff::new(Strategy::ExponentialProportional);
/// assert_eq!(min_wait_bound(&b, 3), Some(3200.0));
/// // AWS full jitter: U[0, min(c, b·2^(n−1))]; decorrelated: min(c, U[b, 3·prev]).
/// let mut f = Backoff::new(Strategy::FullJitter);
/// f.max_delay_ms = Some(20_000);
/// assert_eq!((min_wait_bound(&f, 6), max_wait_bound(&f, 6)), (Some(0.0), Some(20_000.0)));
/// let mut d = Backoff::new(Strategy::DecorrelatedJitter);
/// d.max_delay_ms = Some(20_000);
/// assert_eq!((min_wait_bound(&d, 2), max_wait_bound(&d, 2)), (Some(1000.0), Some(9000.0)));
/// ```
pub fn min_wait_bound(backoff: &Backoff, retry: u32) -> Option<f64> {
    bound(backoff, retry, Extreme::Low)
}

/// The exact range `(min, max)` of wait n, ms, for any strategy a profile can hold:
/// [`min_wait_bound`] / [`max_wait_bound`] for the computed ones; for `response_header` the
/// fallback's range (with the outer `hard_cap` and 24 h ceiling), `None` without a fallback (the
/// wait then depends on the header alone); for `custom` `(0, c)`, c being the cap the script's
/// result is clamped to (24 h without one).
///
/// ```
/// use retryscope::model::{Backoff, Strategy};
/// use retryscope::policy::wait_range;
/// let mut h = Backoff::new(Strategy::ResponseHeader);
/// assert_eq!(wait_range(&h, 1), None);
/// h.fallback = Some(Box::new(Backoff::new(Strategy::Fixed)));
/// assert_eq!(wait_range(&h, 1), Some((1000.0, 1000.0)));
/// ```
pub fn wait_range(backoff: &Backoff, retry: u32) -> Option<(f64, f64)> {
    match backoff.strategy {
        Strategy::Custom => Some((0.0, cap_ms(backoff.max_delay_ms))),
        Strategy::ResponseHeader => {
            let fb = backoff.fallback.as_deref()?;
            let clamp = |x: f64| ceil_ms(final_clamp(backoff, x).0) as f64;
            Some((
                clamp(min_wait_bound(fb, retry)?),
                clamp(max_wait_bound(fb, retry)?),
            ))
        }
        _ => Some((
            min_wait_bound(backoff, retry)?,
            max_wait_bound(backoff, retry)?,
        )),
    }
}

fn bound(backoff: &Backoff, retry: u32, extreme: Extreme) -> Option<f64> {
    let prev = (backoff.strategy == Strategy::DecorrelatedJitter)
        .then(|| decorrelated_prev(backoff, retry, extreme));
    compute(backoff, retry, prev, &mut { extreme }).map(|c| c.wait_ms as f64)
}

/// The extreme previous wait of a decorrelated schedule before retry n.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "the value lies in [0, c] with c at most 24 h in ms; `as` floors it to whole ms"
)]
fn decorrelated_prev(backoff: &Backoff, retry: u32, extreme: Extreme) -> u64 {
    let b = backoff.base_delay_ms;
    if retry <= 1 {
        return b;
    }
    let c = cap_ms(backoff.max_delay_ms);
    let bf = b as f64;
    let value = match extreme {
        // min(c, max(b, 3·prev)) starting at prev = b.
        Extreme::High if c <= bf => c,
        Extreme::High => (bf * 3f64.powi(i32::try_from((retry - 1).min(60)).unwrap_or(60))).min(c),
        Extreme::Low => bf.min(c),
    };
    value as u64
}
