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
use super::limits::{MAX_EXPONENT, MAX_WAIT_MS, cap_ms, ceil_ms, clamped_exponent, pow2, ratio};
use super::wait_steps::{Step, StepLog};
use crate::model::{Backoff, Strategy};

/// One computed wait and the record of how it was reached.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Computed {
    /// Retry number n.
    pub(crate) retry: u32,
    /// The strategy evaluated.
    pub(crate) strategy: Strategy,
    /// Every step, in order; the last one's value is the final wait before rounding.
    pub(crate) steps: StepLog,
    /// The formula's value before any window/factor/jitter draw (after the cap), ms.
    pub(crate) unjittered: f64,
    /// Whether a cap cut a value (the max delay or its 24 h stand-in in the formula, or `hard_cap`).
    pub(crate) capped: bool,
    /// The final wait, whole ms.
    pub(crate) wait_ms: u64,
}

/// `b × 2^(n−1)` as a step: ⌈b·2^(n−1)⌉ ms (exponent clamped).
fn doubling(b: u64, n: u32) -> Step {
    let exponent = (i64::from(n) - 1).min(i64::from(MAX_EXPONENT));
    Step::Doubling {
        base: b,
        exponent,
        value: (b as f64 * pow2(exponent)).ceil(),
    }
}

/// The max delay applied to `before`: min(before, c), c = the max delay or 24 h without one.
fn cap(backoff: &Backoff, before: f64) -> Step {
    let c = cap_ms(backoff.max_delay_ms);
    Step::Cap {
        cap: c,
        explicit: backoff.max_delay_ms.is_some(),
        before,
        value: before.min(c),
    }
}

/// The additive window `+ ⌈U[0, w]⌉` after `before`; `None` when `w = 0` (no draw).
fn window(draws: &mut impl Draws, w: u64, before: f64) -> Option<Step> {
    (w > 0).then(|| {
        let jitter = draws.uniform("jitter", 0.0, w as f64).ceil();
        Step::Window {
            window: w,
            jitter,
            value: before + jitter,
        }
    })
}

/// Evaluates a computed strategy for retry `retry`, drawing from `draws`, recording each step.
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
    let (mut log, unjittered) = match backoff.strategy {
        Strategy::Exponential => {
            let exponent = clamped_exponent(retry);
            let high = pow2(i64::from(exponent)) - 1.0;
            let m = draws.uniform("multiplier", 0.0, high);
            let product = b as f64 * m;
            let mut log = StepLog::new(Step::Multiplier {
                exponent,
                high,
                m,
                base: b,
                product,
                value: product.ceil(),
            });
            let d = log.push(cap(backoff, log.last_value()));
            if let Some(step) = window(draws, backoff.jitter_window_ms, d) {
                log.push(step);
            }
            (log, d)
        }
        Strategy::ExponentialProportional => {
            let mut log = StepLog::new(doubling(b, retry));
            let t = log.push(cap(backoff, log.last_value()));
            let p = ratio(backoff.jitter_ratio);
            if p > 0.0 {
                let (low, high) = (1.0 - p, 1.0 + p);
                let factor = draws.uniform("factor", low, high);
                log.push(Step::Factor {
                    factor,
                    low,
                    high,
                    value: (t * factor).ceil(),
                });
            }
            (log, t)
        }
        Strategy::FullJitter => {
            let mut log = StepLog::new(doubling(b, retry));
            let t = log.push(cap(backoff, log.last_value()));
            let value = draws.uniform("jitter", 0.0, t).ceil();
            log.push(Step::FullDraw { high: t, value });
            (log, t)
        }
        Strategy::EqualJitter => {
            let mut log = StepLog::new(doubling(b, retry));
            let t = log.push(cap(backoff, log.last_value()));
            let half = t / 2.0;
            let jitter = draws.uniform("jitter", 0.0, half);
            log.push(Step::HalfPlusJitter {
                half,
                jitter,
                value: (half + jitter).ceil(),
            });
            (log, t)
        }
        Strategy::DecorrelatedJitter => {
            let prev = prev_wait_ms.unwrap_or(b) as f64;
            let high = 3.0 * prev;
            let value = draws.uniform("sleep", b as f64, high).ceil();
            let mut log = StepLog::new(Step::DecorrelatedDraw {
                base: b,
                prev,
                high,
                value,
            });
            log.push(cap(backoff, value));
            (log, high.min(cap_ms(backoff.max_delay_ms)))
        }
        Strategy::Fixed => {
            let mut log = StepLog::new(Step::Fixed { value: b as f64 });
            let d = log.push(cap(backoff, b as f64));
            if let Some(step) = window(draws, backoff.jitter_window_ms, d) {
                log.push(step);
            }
            (log, d)
        }
        Strategy::ResponseHeader | Strategy::Custom => return None,
    };
    let (value, clamp) = final_clamp(backoff, log.last_value());
    if let Some(step) = clamp {
        log.push(step);
    }
    Some(Computed {
        retry,
        strategy: backoff.strategy,
        steps: log,
        unjittered,
        capped: log.steps().iter().any(Step::cut),
        wait_ms: ceil_ms(value),
    })
}

/// Applies `hard_cap` (clamp to `c` when set) and then the 24 h ceiling to a final value, ms;
/// returns the value and the clamp's step when one applied.
pub(crate) fn final_clamp(backoff: &Backoff, value: f64) -> (f64, Option<Step>) {
    let c = cap_ms(backoff.max_delay_ms);
    if backoff.hard_cap && backoff.max_delay_ms.is_some() && value > c {
        (c, Some(Step::HardCap { value: c }))
    } else if value > MAX_WAIT_MS as f64 {
        let day = MAX_WAIT_MS as f64;
        (day, Some(Step::DayLimit { value: day }))
    } else {
        (value.max(0.0), None)
    }
}
