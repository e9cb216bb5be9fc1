//! Property tests of explanations: for every computed strategy and random parameters,
//! each step of a wait starts from the figure the step before it produced, the explanation's
//! figures are exactly the recorded steps' figures in order, and its final figure is `wait_ms`.

use super::draws::Recording;
use super::explain;
use super::limits::{MAX_WAIT_MS, cap_ms, num};
use super::rng_from_seed;
use super::strategies::compute;
use super::wait_steps::Step;
use crate::model::{Backoff, Strategy};
use proptest::prelude::*;

fn strategy() -> impl proptest::strategy::Strategy<Value = Strategy> {
    prop_oneof![
        Just(Strategy::Exponential),
        Just(Strategy::ExponentialProportional),
        Just(Strategy::FullJitter),
        Just(Strategy::EqualJitter),
        Just(Strategy::DecorrelatedJitter),
        Just(Strategy::Fixed),
    ]
}

fn ms() -> impl proptest::strategy::Strategy<Value = u64> {
    prop_oneof![Just(0u64), 1u64..5_000, 1u64..=MAX_WAIT_MS, any::<u64>()]
}

/// The figures the text shows as `= N ms` (or `= x → N ms`), in order, as printed.
fn figures_in(text: &str) -> Vec<String> {
    text.split("= ")
        .skip(1)
        .filter_map(|rest| rest.split_once(" ms").map(|(n, _)| n))
        .filter_map(|n| n.split(' ').next_back())
        .map(str::to_owned)
        .collect()
}

/// The figures a step shows with `= N ms` (a cap that did not cut shows none).
fn figures_of(step: &Step) -> Vec<f64> {
    match *step {
        Step::Fixed { .. } => Vec::new(),
        Step::Cap { before, cap, .. } if before <= cap => Vec::new(),
        other => vec![other.value()],
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn explanations_are_the_recorded_steps(
        strategy in strategy(),
        b in ms(),
        c in proptest::option::of(ms()),
        w in ms(),
        p in 0.0f64..=1.0,
        hard_cap in any::<bool>(),
        n in prop_oneof![1u32..70, any::<u32>()],
        prev in proptest::option::of(ms()),
        seed in any::<u64>(),
    ) {
        let mut bo = Backoff::new(strategy);
        bo.base_delay_ms = b;
        bo.max_delay_ms = c;
        bo.jitter_window_ms = w;
        bo.jitter_ratio = p;
        bo.hard_cap = hard_cap;
        let mut rng = rng_from_seed(seed);
        let mut draws = Recording::new(&mut rng);
        let computed = compute(&bo, n, prev, &mut draws).expect("computed strategy");
        let steps = computed.steps.steps();
        // Each step starts from the figure before it.
        let cap = cap_ms(bo.max_delay_ms);
        for pair in steps.windows(2) {
            let (before, step) = (pair[0].value(), pair[1]);
            match step {
                Step::Cap { before: b2, value, .. } => {
                    prop_assert_eq!(b2, before);
                    prop_assert_eq!(value, before.min(cap));
                }
                Step::Window { jitter, value, .. } => prop_assert_eq!(value, before + jitter),
                Step::Factor { factor, value, .. } => prop_assert_eq!(value, (before * factor).ceil()),
                Step::FullDraw { high, value } => {
                    prop_assert_eq!(high, before);
                    prop_assert!((0.0..=high.ceil()).contains(&value));
                }
                Step::HalfPlusJitter { half, value, jitter } => {
                    prop_assert_eq!(half, before / 2.0);
                    prop_assert_eq!(value, (half + jitter).ceil());
                }
                Step::HardCap { value } => {
                    prop_assert!(before > cap);
                    prop_assert_eq!(value, cap);
                }
                Step::DayLimit { value } => {
                    prop_assert!(before > MAX_WAIT_MS as f64);
                    prop_assert_eq!(value, MAX_WAIT_MS as f64);
                }
                other => prop_assert!(false, "{other:?} can only start a wait"),
            }
        }
        prop_assert_eq!(computed.wait_ms as f64, computed.steps.last_value().max(0.0).ceil());
        // The text shows exactly those figures, and ends in the wait.
        let e = explain::explanation(&computed, draws.draws);
        let mut expected: Vec<String> =
            steps.iter().flat_map(figures_of).map(num).collect();
        let shown = figures_in(&e.text);
        let last_shown = steps.iter().rev().find(|s| {
            !matches!(s, Step::Cap { explicit: false, before, cap, .. } if before <= cap)
        });
        if let Some(Step::Cap { explicit: true, before, cap, .. }) = last_shown
            && before <= cap
        {
            // ` → cap c (not reached) = d ms` repeats the figure the cap let through.
            expected.push(num(computed.wait_ms as f64));
        }
        prop_assert_eq!(&shown, &expected, "{}", e.text);
        prop_assert!(
            e.text.ends_with(&format!("{} ms", num(computed.wait_ms as f64))),
            "final figure is the wait {}: {}", computed.wait_ms, e.text
        );
    }
}
