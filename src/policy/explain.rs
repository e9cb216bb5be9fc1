//! Explanation text for computed waits (DESIGN.md §2), rendered from the steps the wait was
//! computed with ([`super::wait_steps`]), e.g.
//! `retry 2: exponential m=2.37 (U[0,3]) × 1000 = 2370 ms → cap 10000 → + jitter 812 (U[0,1500]) = 3182 ms`.
//! Every figure in the text is a step's recorded value; nothing is recomputed here.

use super::limits::{MAX_WAIT_MS, num};
use super::strategies::Computed;
use super::wait_steps::Step;
use crate::model::{Draw, Strategy, WaitExplanation};
use std::fmt::Write;

/// The full explanation value of a computed wait.
pub(crate) fn explanation(computed: &Computed, draws: Vec<Draw>) -> WaitExplanation {
    WaitExplanation {
        retry: computed.retry,
        strategy: computed.strategy,
        unjittered_ms: computed.unjittered,
        draws,
        capped: computed.capped,
        wait_ms: computed.wait_ms,
        text: format!("retry {}: {}", computed.retry, body(computed)),
    }
}

/// The text without the `retry n: ` prefix (also embedded after `→ fallback: `): the strategy's
/// name, then each step. A max delay that did not cut, as the last step shown, reads
/// ` → cap c (not reached) = d ms` so the text always ends in the wait.
pub(crate) fn body(computed: &Computed) -> String {
    let mut out = String::new();
    let label = match computed.strategy {
        // The multiplier and the decorrelated draw name their strategy in their own step.
        Strategy::Exponential | Strategy::DecorrelatedJitter => "",
        other => other.id(),
    };
    out.push_str(label);
    let mut last_shown = None;
    for step in computed.steps.steps() {
        if step_text(&mut out, step) {
            last_shown = Some(*step);
        }
    }
    if let Some(Step::Cap {
        explicit: true,
        before,
        cap,
        value,
    }) = last_shown
        && before <= cap
    {
        let _ = write!(out, " (not reached) = {} ms", num(value));
    }
    out
}

/// Appends one step's text; returns false when the step shows nothing (a 24 h stand-in cap that
/// did not cut).
pub(crate) fn step_text(out: &mut String, step: &Step) -> bool {
    match *step {
        Step::Doubling {
            base,
            exponent,
            value,
        } => {
            let _ = write!(out, " {base} × 2^{exponent} = {} ms", num(value));
        }
        Step::Multiplier {
            exponent,
            high,
            m,
            base,
            product,
            value,
        } => {
            let high = if exponent <= 52 {
                num(high)
            } else {
                format!("2^{exponent}−1")
            };
            let m = if m < 1e6 { format!("{m:.4}") } else { num(m) };
            let _ = write!(out, "exponential m={m} (U[0,{high}]) × {base} = ");
            // b × m is rounded up to whole ms; the unrounded product is shown when they differ.
            if product.is_finite() && product.fract() != 0.0 && product < 1e15 {
                // One decimal, as m has four: 0.9574 × 1000 reads 957.4, not 957.37.
                let _ = write!(out, "{product:.1} → ");
            }
            let _ = write!(out, "{} ms", num(value));
        }
        Step::DecorrelatedDraw {
            base,
            prev,
            high,
            value,
        } => {
            let _ = write!(
                out,
                "decorrelated_jitter U[{base}, 3 × {} = {}] = {} ms",
                num(prev),
                num(high),
                num(value)
            );
        }
        Step::Fixed { value } => {
            let _ = write!(out, " {} ms", num(value));
        }
        Step::Cap {
            cap,
            explicit,
            before,
            ..
        } => match (explicit, before > cap) {
            (true, true) => {
                let _ = write!(out, " → cap {0} = {0} ms", num(cap));
            }
            (true, false) => {
                let _ = write!(out, " → cap {}", num(cap));
            }
            (false, true) => {
                let _ = write!(out, " → limit 24 h = {MAX_WAIT_MS} ms");
            }
            (false, false) => return false,
        },
        Step::Window {
            window,
            jitter,
            value,
        } => {
            let _ = write!(
                out,
                " → + jitter {} (U[0,{window}]) = {} ms",
                num(jitter),
                num(value)
            );
        }
        Step::Factor {
            factor,
            low,
            high,
            value,
        } => {
            let _ = write!(
                out,
                " → × factor {factor:.3} (U[{},{}]) = {} ms",
                num(low),
                num(high),
                num(value)
            );
        }
        Step::FullDraw { high, value } => {
            let _ = write!(out, " → U[0,{}] = {} ms", num(high), num(value));
        }
        Step::HalfPlusJitter {
            half,
            jitter,
            value,
        } => {
            let half = num(half);
            let _ = write!(
                out,
                " → {half} + jitter {} (U[0,{half}]) = {} ms",
                num(jitter),
                num(value)
            );
        }
        Step::HardCap { value } => {
            let _ = write!(out, " → hard cap {0} = {0} ms", num(value));
        }
        Step::DayLimit { value } => {
            let _ = write!(out, " → limit 24 h = {} ms", num(value));
        }
    }
    true
}
