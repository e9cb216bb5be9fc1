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
        if let Some(text) = step_text(step) {
            out.push_str(&text);
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

/// One step's text; `None` when the step shows nothing (a 24 h stand-in cap that did not cut).
pub(crate) fn step_text(step: &Step) -> Option<String> {
    Some(match *step {
        Step::Doubling {
            base,
            exponent,
            value,
        } => format!(" {base} × 2^{exponent} = {} ms", num(value)),
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
            // b × m is rounded up to whole ms; the unrounded product is shown when they differ.
            // One decimal, as m has four: 0.9574 × 1000 reads 957.4, not 957.37.
            let unrounded = if product.is_finite() && product.fract() != 0.0 && product < 1e15 {
                format!("{product:.1} → ")
            } else {
                String::new()
            };
            format!(
                "exponential m={m} (U[0,{high}]) × {base} = {unrounded}{} ms",
                num(value)
            )
        }
        Step::DecorrelatedDraw {
            base,
            prev,
            high,
            value,
        } => format!(
            "decorrelated_jitter U[{base}, 3 × {} = {}] = {} ms",
            num(prev),
            num(high),
            num(value)
        ),
        Step::Fixed { value } => format!(" {} ms", num(value)),
        Step::Cap {
            cap,
            explicit,
            before,
            ..
        } => match (explicit, before > cap) {
            (true, true) => format!(" → cap {0} = {0} ms", num(cap)),
            (true, false) => format!(" → cap {}", num(cap)),
            (false, true) => format!(" → limit 24 h = {MAX_WAIT_MS} ms"),
            (false, false) => return None,
        },
        Step::Window {
            window,
            jitter,
            value,
        } => format!(
            " → + jitter {} (U[0,{window}]) = {} ms",
            num(jitter),
            num(value)
        ),
        Step::Factor {
            factor,
            low,
            high,
            value,
        } => format!(
            " → × factor {factor:.3} (U[{},{}]) = {} ms",
            num(low),
            num(high),
            num(value)
        ),
        Step::FullDraw { high, value } => format!(" → U[0,{}] = {} ms", num(high), num(value)),
        Step::HalfPlusJitter {
            half,
            jitter,
            value,
        } => {
            let half = num(half);
            format!(
                " → {half} + jitter {} (U[0,{half}]) = {} ms",
                num(jitter),
                num(value)
            )
        }
        Step::HardCap { value } => format!(" → hard cap {0} = {0} ms", num(value)),
        Step::DayLimit { value } => format!(" → limit 24 h = {} ms", num(value)),
    })
}
