//! The computed backoff strategies of DESIGN.md §2 (everything but `response_header` and `custom`).
//!
//! | strategy | formula (wait n, ms) | source |
//! |---|---|---|
//! | `exponential` | m = U[0, 2^n − 1]; d = min(b·m, c); wait = d + U[0, w] | ServiceNow cloud retry configuration (seed 001): "multiplier 0–1, 0–3, 0–7…", cap, then the additional delay window |
//! | `exponential_proportional` | wait = min(b·2^(n−1), c)·U[1−p, 1+p] | VBScript retry module (seed 000): base·2^(attempt−1)·(0.8…1.2); cap before the factor |
//! | `full_jitter` | wait = U[0, min(c, b·2^(n−1))] | AWS Architecture Blog, "Exponential Backoff And Jitter" (Marc Brooker, 2015) |
//! | `equal_jitter` | t = min(c, b·2^(n−1)); wait = t/2 + U[0, t/2] | same post |
//! | `decorrelated_jitter` | wait = min(c, U[b, 3·prev]), prev starts at b | same post |
//! | `fixed` | wait = min(b, c) + U[0, w] | constant delay with an additive window |
//!
//! Each formula is evaluated in f64 with the exponent clamped ([`super::limits`]), intermediate
//! ms values that the explanation shows as whole ms are rounded up, and the final wait is rounded
//! up to whole ms and clamped to [0, 24 h]. The max delay `c` is clamped to 24 h; `c` absent means
//! 24 h. With `hard_cap` the final wait (after every window or factor) is clamped to `c`.

use super::draws::Draws;
use super::limits::{MAX_WAIT_MS, cap_ms, ceil_ms, clamped_exponent, pow2, ratio};
use crate::model::{Backoff, Strategy};

/// The intermediate numbers of one computed wait, per strategy (enough to write its explanation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Steps {
    /// `m = U[0, 2^n − 1]; raw = ⌈b·m⌉; d = min(raw, c); j = ⌈U[0, w]⌉; wait = d + j`.
    Exponential {
        /// The exponent used (n clamped).
        exponent: u32,
        /// `2^n − 1`.
        high: f64,
        /// Multiplier drawn.
        m: f64,
        /// `⌈b·m⌉`, ms.
        raw: f64,
        /// `min(raw, c)`, ms.
        d: f64,
        /// Window draw, ms (0 without a window).
        jitter: f64,
    },
    /// `raw = ⌈b·2^(n−1)⌉; t = min(raw, c); wait = t·U[1−p, 1+p]`.
    Proportional {
        /// `⌈b·2^(n−1)⌉`, ms.
        raw: f64,
        /// `min(raw, c)`, ms.
        t: f64,
        /// Factor drawn (1 when p = 0).
        factor: f64,
        /// `1 − p`.
        low: f64,
        /// `1 + p`.
        high: f64,
    },
    /// `t = min(c, ⌈b·2^(n−1)⌉); wait = U[0, t]`.
    FullJitter {
        /// `⌈b·2^(n−1)⌉`, ms.
        raw: f64,
        /// `min(raw, c)`, ms.
        t: f64,
        /// The draw, ms.
        value: f64,
    },
    /// `t = min(c, ⌈b·2^(n−1)⌉); wait = t/2 + U[0, t/2]`.
    EqualJitter {
        /// `⌈b·2^(n−1)⌉`, ms.
        raw: f64,
        /// `min(raw, c)`, ms.
        t: f64,
        /// The draw from `U[0, t/2]`, ms.
        jitter: f64,
    },
    /// `x = U[b, 3·prev]; wait = min(c, x)`.
    Decorrelated {
        /// The previous wait (b before retry 1), ms.
        prev: f64,
        /// The draw, ms.
        value: f64,
    },
    /// `d = min(b, c); wait = d + ⌈U[0, w]⌉`.
    Fixed {
        /// `min(b, c)`, ms.
        d: f64,
        /// Window draw, ms.
        jitter: f64,
    },
}

/// What clamped the final wait after the formula, if anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FinalClamp {
    /// Nothing.
    None,
    /// `hard_cap`: clamped to `c`.
    HardCap,
    /// The 24 h ceiling.
    Day,
}

/// One computed wait with its intermediate numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Computed {
    /// Retry number n.
    pub(crate) retry: u32,
    /// Intermediate numbers.
    pub(crate) steps: Steps,
    /// The formula's value before any window/factor/jitter draw (after the cap), ms.
    pub(crate) unjittered: f64,
    /// Whether the max delay `c` cut a value (in the formula or by `hard_cap`).
    pub(crate) capped: bool,
    /// The formula's value before the final clamp, ms.
    pub(crate) formula: f64,
    /// The final clamp applied.
    pub(crate) clamp: FinalClamp,
    /// The final wait, whole ms.
    pub(crate) wait_ms: u64,
}

/// `⌈b · 2^(n−1)⌉` in ms (f64, exponent clamped).
fn doubling(b: u64, n: u32) -> f64 {
    (b as f64 * pow2(i64::from(n) - 1)).ceil()
}

/// The additive window `⌈U[0, w]⌉` in ms; no draw when `w = 0`.
fn window(draws: &mut impl Draws, w: f64) -> f64 {
    if w > 0.0 {
        draws.uniform("jitter", 0.0, w).ceil()
    } else {
        0.0
    }
}

/// Evaluates a computed strategy for retry `retry`, drawing from `draws`.
///
/// `prev_wait_ms` is only read by `decorrelated_jitter` (None → b). Returns `None` for
/// `response_header` and `custom`, which are not formulas of their parameters alone.
pub(crate) fn compute(
    backoff: &Backoff,
    retry: u32,
    prev_wait_ms: Option<u64>,
    draws: &mut impl Draws,
) -> Option<Computed> {
    let b = backoff.base_delay_ms;
    let c = cap_ms(backoff.max_delay_ms);
    let w = backoff.jitter_window_ms as f64;
    let (steps, unjittered, capped, formula) = match backoff.strategy {
        Strategy::Exponential => {
            let exponent = clamped_exponent(retry);
            let high = pow2(i64::from(exponent)) - 1.0;
            let m = draws.uniform("multiplier", 0.0, high);
            let raw = (b as f64 * m).ceil();
            let d = raw.min(c);
            let jitter = window(draws, w);
            let steps = Steps::Exponential {
                exponent,
                high,
                m,
                raw,
                d,
                jitter,
            };
            (steps, d, raw > c, d + jitter)
        }
        Strategy::ExponentialProportional => {
            let raw = doubling(b, retry);
            let t = raw.min(c);
            let p = ratio(backoff.jitter_ratio);
            let (low, high) = (1.0 - p, 1.0 + p);
            let factor = if p > 0.0 {
                draws.uniform("factor", low, high)
            } else {
                1.0
            };
            let steps = Steps::Proportional {
                raw,
                t,
                factor,
                low,
                high,
            };
            (steps, t, raw > c, t * factor)
        }
        Strategy::FullJitter => {
            let raw = doubling(b, retry);
            let t = raw.min(c);
            let value = draws.uniform("jitter", 0.0, t);
            (Steps::FullJitter { raw, t, value }, t, raw > c, value)
        }
        Strategy::EqualJitter => {
            let raw = doubling(b, retry);
            let t = raw.min(c);
            let jitter = draws.uniform("jitter", 0.0, t / 2.0);
            (
                Steps::EqualJitter { raw, t, jitter },
                t,
                raw > c,
                t / 2.0 + jitter,
            )
        }
        Strategy::DecorrelatedJitter => {
            let prev = prev_wait_ms.unwrap_or(b) as f64;
            let value = draws.uniform("sleep", b as f64, 3.0 * prev);
            let steps = Steps::Decorrelated { prev, value };
            (steps, (3.0 * prev).min(c), value > c, value.min(c))
        }
        Strategy::Fixed => {
            let d = (b as f64).min(c);
            let jitter = window(draws, w);
            (Steps::Fixed { d, jitter }, d, b as f64 > c, d + jitter)
        }
        Strategy::ResponseHeader | Strategy::Custom => return None,
    };
    let (value, clamp) = final_clamp(backoff, formula);
    Some(Computed {
        retry,
        steps,
        unjittered,
        capped: capped || clamp == FinalClamp::HardCap,
        formula,
        clamp,
        wait_ms: ceil_ms(value),
    })
}

/// Applies `hard_cap` (clamp to `c` when set) and then the 24 h ceiling to a final value, ms.
pub(crate) fn final_clamp(backoff: &Backoff, value: f64) -> (f64, FinalClamp) {
    let c = cap_ms(backoff.max_delay_ms);
    if backoff.hard_cap && backoff.max_delay_ms.is_some() && value > c {
        (c, FinalClamp::HardCap)
    } else if value > MAX_WAIT_MS as f64 {
        (MAX_WAIT_MS as f64, FinalClamp::Day)
    } else {
        (value.max(0.0), FinalClamp::None)
    }
}
