//! Explanation text for computed waits (DESIGN.md §2), e.g.
//! `retry 2: exponential m=2.37 (U[0,3]) × 1000 = 2370 ms → cap 10000 → + jitter 812 (U[0,1500]) = 3182 ms`.

use super::limits::{MAX_EXPONENT, MAX_WAIT_MS, cap_ms, num};
use super::strategies::{Computed, FinalClamp, Steps};
use crate::model::{Backoff, Draw, WaitExplanation};
use std::fmt::Write;

/// The full explanation value of a computed wait.
pub(crate) fn explanation(
    backoff: &Backoff,
    computed: &Computed,
    draws: Vec<Draw>,
) -> WaitExplanation {
    WaitExplanation {
        retry: computed.retry,
        strategy: backoff.strategy,
        unjittered_ms: computed.unjittered,
        draws,
        capped: computed.capped,
        wait_ms: computed.wait_ms,
        text: format!("retry {}: {}", computed.retry, body(backoff, computed)),
    }
}

/// The text without the `retry n: ` prefix (also embedded after `→ fallback: `).
pub(crate) fn body(backoff: &Backoff, computed: &Computed) -> String {
    let b = backoff.base_delay_ms;
    let w = backoff.jitter_window_ms;
    let n = computed.retry;
    let mut out = String::new();
    let doubling = |out: &mut String, raw: f64| {
        let exponent = (i64::from(n) - 1).min(i64::from(MAX_EXPONENT));
        let _ = write!(out, "{b} × 2^{exponent} = {} ms", num(raw));
    };
    match computed.steps {
        Steps::Exponential {
            exponent,
            high,
            m,
            raw,
            d,
            jitter,
        } => {
            let high = if exponent <= 52 {
                num(high)
            } else {
                format!("2^{exponent}−1")
            };
            // b × m is rounded up to whole ms; the unrounded product is shown when they differ.
            let product = b as f64 * m;
            let m = if m < 1e6 { format!("{m:.4}") } else { num(m) };
            let _ = write!(out, "exponential m={m} (U[0,{high}]) × {b} = ");
            if product.is_finite() && product.fract() != 0.0 && product < 1e15 {
                // One decimal, as m has four: 0.9574 × 1000 reads 957.4, not 957.37.
                let _ = write!(out, "{product:.1} → ");
            }
            let _ = write!(out, "{} ms", num(raw));
            cap_step(&mut out, backoff, raw);
            window_step(&mut out, w, d, jitter);
        }
        Steps::Proportional {
            raw,
            t,
            factor,
            low,
            high,
        } => {
            out.push_str("exponential_proportional ");
            doubling(&mut out, raw);
            cap_step(&mut out, backoff, raw);
            if high > low {
                let _ = write!(
                    out,
                    " → × factor {factor:.3} (U[{},{}]) = {} ms",
                    num(low),
                    num(high),
                    num((t * factor).ceil())
                );
            }
        }
        Steps::FullJitter { raw, t, value } => {
            out.push_str("full_jitter ");
            doubling(&mut out, raw);
            cap_step(&mut out, backoff, raw);
            let _ = write!(out, " → U[0,{}] = {} ms", num(t), num(value.ceil()));
        }
        Steps::EqualJitter { raw, t, jitter } => {
            out.push_str("equal_jitter ");
            doubling(&mut out, raw);
            cap_step(&mut out, backoff, raw);
            let half = num(t / 2.0);
            let _ = write!(
                out,
                " → {half} + jitter {} (U[0,{half}]) = {} ms",
                num(jitter),
                num((t / 2.0 + jitter).ceil())
            );
        }
        Steps::Decorrelated { prev, value } => {
            let _ = write!(
                out,
                "decorrelated_jitter U[{b}, 3 × {} = {}] = {} ms",
                num(prev),
                num(3.0 * prev),
                num(value.ceil())
            );
            cap_step(&mut out, backoff, value);
        }
        Steps::Fixed { d, jitter } => {
            let _ = write!(out, "fixed {b} ms");
            cap_step(&mut out, backoff, b as f64);
            window_step(&mut out, w, d, jitter);
        }
    }
    clamp_step(&mut out, backoff, computed.clamp);
    if backoff.max_delay_ms.is_some()
        && out.ends_with(&format!(" → cap {}", num(cap_ms(backoff.max_delay_ms))))
    {
        let _ = write!(out, " (not reached) = {} ms", num(computed.wait_ms as f64));
    }
    out
}

/// The additive window's step ` → + jitter j (U[0,w]) = d + j ms`; nothing when `w` is 0.
fn window_step(out: &mut String, w: u64, d: f64, jitter: f64) {
    if w > 0 {
        let _ = write!(
            out,
            " → + jitter {} (U[0,{w}]) = {} ms",
            num(jitter),
            num(d + jitter)
        );
    }
}

/// ` → cap c` (not cut) / ` → cap c = c ms` (cut); without `c`, ` → limit 24 h = … ms` when cut.
/// A cap not reached at the end of the text gets ` (not reached) = d ms` (see [`body`]).
pub(crate) fn cap_step(out: &mut String, backoff: &Backoff, before: f64) {
    let c = cap_ms(backoff.max_delay_ms);
    if backoff.max_delay_ms.is_some() {
        if before > c {
            let _ = write!(out, " → cap {0} = {0} ms", num(c));
        } else {
            let _ = write!(out, " → cap {}", num(c));
        }
    } else if before > c {
        let _ = write!(out, " → limit 24 h = {MAX_WAIT_MS} ms");
    }
}

/// The final clamp's text: ` → hard cap c = c ms` or ` → limit 24 h = 86400000 ms`.
pub(crate) fn clamp_step(out: &mut String, backoff: &Backoff, clamp: FinalClamp) {
    match clamp {
        FinalClamp::None => {}
        FinalClamp::HardCap => {
            let _ = write!(
                out,
                " → hard cap {0} = {0} ms",
                num(cap_ms(backoff.max_delay_ms))
            );
        }
        FinalClamp::Day => {
            let _ = write!(out, " → limit 24 h = {MAX_WAIT_MS} ms");
        }
    }
}
