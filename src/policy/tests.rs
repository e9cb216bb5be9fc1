//! Unit tests of the policy: formulas (exact schedules, bounds, seeded golden values),
//! explanations and `response_header` (custom scripts: `script_tests.rs`).

use super::*;
use crate::model::{
    Backoff, Combine, DelayHeader, ErrorKind, HeaderUnit, NetError, OnExceedMax, ResponseSummary,
    Strategy,
};

pub(super) fn profile(backoff: Backoff) -> RetryProfile {
    RetryProfile::new("test", backoff)
}

/// The policy of a test profile waiting by `backoff`.
pub(super) fn policy_of(backoff: Backoff) -> Policy {
    Policy::new(profile(backoff)).expect("valid")
}

pub(super) fn response(status: u16, headers: &[(&str, &str)]) -> AttemptOutcome {
    AttemptOutcome::Response(ResponseSummary {
        status,
        reason: String::new(),
        version: "HTTP/1.1".into(),
        headers: headers
            .iter()
            .map(|(n, v)| (n.to_ascii_lowercase(), (*v).to_owned()))
            .collect(),
        body: crate::model::BodyPreview::default(),
    })
}

pub(super) fn ctx(retry: u32, outcome: &AttemptOutcome) -> WaitContext<'_> {
    WaitContext {
        retry,
        outcome,
        elapsed_ms: 0,
        prev_wait_ms: None,
        time_left_ms: None,
        now_unix_ms: 784_111_777_000,
    }
}

pub(super) fn wait(policy: &Policy, ctx: &WaitContext<'_>, rng: &mut PolicyRng) -> WaitExplanation {
    match policy.next_wait(ctx, rng) {
        WaitDecision::Wait(e) => e,
        other => panic!("expected a wait, got {other:?}"),
    }
}

pub(super) fn backoff(strategy: Strategy, b: u64, c: Option<u64>, w: u64) -> Backoff {
    let mut bo = Backoff::new(strategy);
    bo.base_delay_ms = b;
    bo.max_delay_ms = c;
    bo.jitter_window_ms = w;
    bo
}

/// Waits 1..=n of a schedule with the given seed.
fn schedule(bo: Backoff, n: u32, seed: u64) -> Vec<u64> {
    let policy = policy_of(bo);
    let outcome = response(503, &[]);
    let mut rng = rng_from_seed(seed);
    let mut prev = None;
    (1..=n)
        .map(|r| {
            let mut c = ctx(r, &outcome);
            c.prev_wait_ms = prev;
            let w = wait(&policy, &c, &mut rng).wait_ms;
            prev = Some(w);
            w
        })
        .collect()
}

fn computed_strategies() -> [Strategy; 6] {
    [
        Strategy::Exponential,
        Strategy::ExponentialProportional,
        Strategy::FullJitter,
        Strategy::EqualJitter,
        Strategy::DecorrelatedJitter,
        Strategy::Fixed,
    ]
}

#[test]
fn seeded_golden_values() {
    // ChaCha8 seeded with 42; b = 1000, c = 10000, w = 1500, p = 0.2. These must never change:
    // a seed replays a run on every machine and library version.
    let want: [(Strategy, [u64; 6]); 6] = [
        (
            Strategy::Exponential,
            [2108, 2225, 2246, 5827, 10358, 11353],
        ),
        (
            Strategy::ExponentialProportional,
            [1073, 2361, 3885, 8408, 9155, 8600],
        ),
        (Strategy::FullJitter, [682, 1901, 1711, 5019, 2886, 1500]),
        (Strategy::EqualJitter, [841, 1951, 2856, 6510, 6443, 5750]),
        (
            Strategy::DecorrelatedJitter,
            [2364, 6790, 9281, 10000, 9370, 5066],
        ),
        (Strategy::Fixed, [2023, 2426, 1642, 1942, 1433, 1225]),
    ];
    for (strategy, schedule_want) in want {
        let bo = backoff(strategy, 1000, Some(10_000), 1500);
        assert_eq!(schedule(bo, 6, 42), schedule_want, "{strategy:?}");
    }
}

#[test]
fn explanation_text_follows_design() {
    let policy = policy_of(backoff(Strategy::Exponential, 1000, Some(10_000), 1500));
    let outcome = response(503, &[]);
    let e = wait(&policy, &ctx(1, &outcome), &mut rng_from_seed(42));
    assert_eq!(
        e.text,
        "retry 1: exponential m=0.6819 (U[0,1]) × 1000 = 681.9 → 682 ms → cap 10000 → + jitter 1426 (U[0,1500]) = 2108 ms"
    );
    assert_eq!(e.to_string(), e.text);
    assert_eq!(e.wait_ms, 2108);
    assert_eq!(e.unjittered_ms, 682.0);
    assert!(!e.capped);
    assert_eq!(e.strategy, Strategy::Exponential);
    let names: Vec<&str> = e.draws.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["multiplier", "jitter"]);
    assert_eq!((e.draws[0].low, e.draws[0].high), (0.0, 1.0));
    assert_eq!((e.draws[1].low, e.draws[1].high), (0.0, 1500.0));

    // Capped, then the window: c + w is reachable without hard_cap.
    let e = wait(&policy, &ctx(40, &outcome), &mut rng_from_seed(42));
    assert!(e.capped);
    assert!(
        e.text.contains("→ cap 10000 = 10000 ms → + jitter"),
        "{}",
        e.text
    );
    assert!(e.wait_ms > 10_000);

    let texts = [
        (
            Strategy::ExponentialProportional,
            3,
            "retry 3: exponential_proportional 1000 × 2^2 = 4000 ms → cap 10000 → × factor ",
        ),
        (
            Strategy::FullJitter,
            3,
            "retry 3: full_jitter 1000 × 2^2 = 4000 ms → cap 10000 → U[0,4000] = ",
        ),
        (
            Strategy::EqualJitter,
            3,
            "retry 3: equal_jitter 1000 × 2^2 = 4000 ms → cap 10000 → 2000 + jitter ",
        ),
        (
            Strategy::DecorrelatedJitter,
            1,
            "retry 1: decorrelated_jitter U[1000, 3 × 1000 = 3000] = ",
        ),
        (
            Strategy::Fixed,
            1,
            "retry 1: fixed 1000 ms → cap 10000 → + jitter ",
        ),
    ];
    for (strategy, retry, prefix) in texts {
        let policy = policy_of(backoff(strategy, 1000, Some(10_000), 1500));
        let e = wait(&policy, &ctx(retry, &outcome), &mut rng_from_seed(1));
        assert!(e.text.starts_with(prefix), "{}", e.text);
        assert!(
            e.text.ends_with(&format!("{} ms", e.wait_ms)) || e.text.ends_with("→ cap 10000"),
            "{}",
            e.text
        );
    }
}

#[test]
fn a_cap_not_reached_at_the_end_says_so() {
    // curl --retry: 1 s doubling, 600 s cap, no jitter: the text must still end in the wait.
    let policy = policy_of(backoff(Strategy::Exponential, 1000, Some(600_000), 0));
    let outcome = response(503, &[]);
    let fixed = policy_of(backoff(Strategy::Fixed, 1000, Some(600_000), 0));
    let e = wait(&fixed, &ctx(2, &outcome), &mut rng_from_seed(1));
    assert_eq!(
        e.text,
        "retry 2: fixed 1000 ms → cap 600000 (not reached) = 1000 ms"
    );
    let e = wait(&policy, &ctx(1, &outcome), &mut rng_from_seed(1));
    assert!(
        e.text
            .ends_with(&format!(" (not reached) = {} ms", e.wait_ms)),
        "{}",
        e.text
    );
}

#[test]
fn exact_schedules_without_jitter() {
    let mut bo = backoff(Strategy::ExponentialProportional, 1000, Some(10_000), 0);
    bo.jitter_ratio = 0.0;
    assert_eq!(schedule(bo, 6, 1), [1000, 2000, 4000, 8000, 10_000, 10_000]);
    let bo = backoff(Strategy::Fixed, 750, None, 0);
    assert_eq!(schedule(bo, 4, 1), [750; 4]);
    // fixed: b above c is cut to c.
    let bo = backoff(Strategy::Fixed, 5000, Some(3000), 0);
    assert_eq!(schedule(bo, 2, 1), [3000; 2]);
    for strategy in [
        Strategy::FullJitter,
        Strategy::EqualJitter,
        Strategy::DecorrelatedJitter,
    ] {
        assert_eq!(
            schedule(backoff(strategy, 1000, Some(0), 0), 3, 1),
            [0; 3],
            "{strategy:?}"
        );
        assert_eq!(
            schedule(backoff(strategy, 0, None, 0), 3, 1),
            [0; 3],
            "{strategy:?}"
        );
    }
    // exponential with b = 0 is just the window.
    for w in schedule(backoff(Strategy::Exponential, 0, None, 100), 20, 3) {
        assert!(w <= 100);
    }
    // Proportional with p = 0 is seed 000's plain doubling, uncapped until 24 h.
    let mut bo = backoff(Strategy::ExponentialProportional, 1000, None, 0);
    bo.jitter_ratio = 0.0;
    let s = schedule(bo, 30, 1);
    assert_eq!(s[9], 512_000);
    assert_eq!(s[29], MAX_WAIT_MS);
}

#[test]
fn bounds_are_exact_for_known_cases() {
    let b = backoff(Strategy::Exponential, 1000, Some(10_000), 1500);
    assert_eq!(max_wait_bound(&b, 1), Some(2500.0));
    assert_eq!(max_wait_bound(&b, 3), Some(8500.0));
    assert_eq!(max_wait_bound(&b, u32::MAX), Some(11_500.0));
    assert_eq!(min_wait_bound(&b, 3), Some(0.0));
    let mut p = backoff(Strategy::ExponentialProportional, 1000, Some(10_000), 0);
    assert_eq!(max_wait_bound(&p, 5), Some(12_000.0));
    assert_eq!(min_wait_bound(&p, 5), Some(8000.0));
    p.hard_cap = true;
    assert_eq!(max_wait_bound(&p, 5), Some(10_000.0));
    let f = backoff(Strategy::FullJitter, 1000, Some(20_000), 0);
    assert_eq!(
        (min_wait_bound(&f, 2), max_wait_bound(&f, 2)),
        (Some(0.0), Some(2000.0))
    );
    let e = backoff(Strategy::EqualJitter, 1000, Some(20_000), 0);
    assert_eq!(
        (min_wait_bound(&e, 3), max_wait_bound(&e, 3)),
        (Some(2000.0), Some(4000.0))
    );
    let d = backoff(Strategy::DecorrelatedJitter, 1000, Some(20_000), 0);
    assert_eq!(max_wait_bound(&d, 1), Some(3000.0));
    assert_eq!(max_wait_bound(&d, 2), Some(9000.0));
    assert_eq!(max_wait_bound(&d, 3), Some(20_000.0));
    assert_eq!(min_wait_bound(&d, 3), Some(1000.0));
    let x = backoff(Strategy::Fixed, 1000, None, 500);
    assert_eq!(
        (min_wait_bound(&x, 9), max_wait_bound(&x, 9)),
        (Some(1000.0), Some(1500.0))
    );
    assert_eq!(max_wait_bound(&Backoff::new(Strategy::Custom), 1), None);
    assert_eq!(
        max_wait_bound(&Backoff::new(Strategy::ResponseHeader), 1),
        None
    );
    // No cap: clamped at 24 h.
    let big = backoff(Strategy::Exponential, u64::MAX, None, u64::MAX);
    assert_eq!(max_wait_bound(&big, u32::MAX), Some(MAX_WAIT_MS as f64));
}

#[test]
fn sampled_waits_stay_within_bounds() {
    let outcome = response(503, &[]);
    for strategy in computed_strategies() {
        for (c, w, hard) in [
            (Some(10_000), 1500, false),
            (None, 0, false),
            (Some(3000), 700, true),
        ] {
            let mut bo = backoff(strategy, 1000, c, w);
            bo.hard_cap = hard;
            let policy = policy_of(bo.clone());
            let mut rng = rng_from_seed(9);
            let mut top = [0u64; 12];
            for _ in 0..300 {
                let mut prev = None;
                for retry in 1..=12u32 {
                    let (lo, hi) = (
                        min_wait_bound(&bo, retry).expect("computed"),
                        max_wait_bound(&bo, retry).expect("computed"),
                    );
                    let mut cx = ctx(retry, &outcome);
                    cx.prev_wait_ms = prev;
                    let e = wait(&policy, &cx, &mut rng);
                    let v = e.wait_ms as f64;
                    assert!(
                        lo <= v && v <= hi,
                        "{strategy:?} n={retry}: {v} not in [{lo}, {hi}]: {}",
                        e.text
                    );
                    if hard {
                        assert!(e.wait_ms <= 3000);
                    }
                    let slot = &mut top[retry as usize - 1];
                    *slot = (*slot).max(e.wait_ms);
                    prev = Some(e.wait_ms);
                }
            }
            // The upper bound is approached (sampling noise aside), so it is not loose.
            if strategy != Strategy::DecorrelatedJitter {
                for (i, t) in top.iter().enumerate() {
                    let retry = u32::try_from(i).expect("few retries") + 1;
                    let lo = min_wait_bound(&bo, retry).expect("computed");
                    let hi = max_wait_bound(&bo, retry).expect("computed");
                    assert!(
                        *t as f64 >= lo + (hi - lo) * 0.8 - 1.0,
                        "{strategy:?} n={retry}: max sample {t} far below {hi}"
                    );
                }
            }
        }
    }
}

#[test]
fn extreme_parameters_never_panic_or_overflow() {
    let outcome = AttemptOutcome::Error(NetError {
        kind: ErrorKind::Connect,
        message: "refused".into(),
        dns: None,
    });
    for strategy in computed_strategies() {
        for b in [0, 1, u64::MAX] {
            for c in [None, Some(0), Some(1), Some(u64::MAX)] {
                for w in [0, u64::MAX] {
                    for p in [0.0, 1.0, -3.0, f64::NAN, f64::INFINITY] {
                        let mut bo = backoff(strategy, b, c, w);
                        bo.jitter_ratio = p;
                        let policy = policy_of(bo.clone());
                        for retry in [0, 1, 63, 64, 1024, u32::MAX] {
                            let mut cx = ctx(retry, &outcome);
                            cx.prev_wait_ms = Some(u64::MAX);
                            let e = wait(&policy, &cx, &mut rng_from_seed(retry.into()));
                            assert!(e.wait_ms <= MAX_WAIT_MS, "{}", e.text);
                            let hi = max_wait_bound(&bo, retry).expect("computed");
                            let lo = min_wait_bound(&bo, retry).expect("computed");
                            assert!(lo.is_finite() && hi.is_finite() && lo <= hi);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn decorrelated_uses_the_previous_wait() {
    let bo = backoff(Strategy::DecorrelatedJitter, 100, Some(1_000_000), 0);
    let policy = policy_of(bo);
    let outcome = response(503, &[]);
    let mut cx = ctx(5, &outcome);
    cx.prev_wait_ms = Some(10_000);
    let e = wait(&policy, &cx, &mut rng_from_seed(3));
    assert!((100..=30_000).contains(&e.wait_ms));
    assert_eq!((e.draws[0].low, e.draws[0].high), (100.0, 30_000.0));
}

pub(super) fn header_backoff(w: u64) -> Backoff {
    let mut bo = backoff(Strategy::ResponseHeader, 1000, Some(10_000), w);
    bo.fallback = Some(Box::new(backoff(
        Strategy::Exponential,
        1000,
        Some(10_000),
        0,
    )));
    bo
}

#[test]
fn response_header_seconds_plus_window() {
    let policy = policy_of(header_backoff(1500));
    let outcome = response(429, &[("Retry-After", "2")]);
    let e = wait(&policy, &ctx(1, &outcome), &mut rng_from_seed(42));
    let j = e.wait_ms - 2000;
    assert!(j <= 1500);
    assert_eq!(
        e.text,
        format!(
            "retry 1: Retry-After \"2\" (seconds) = 2000 ms + jitter {j} (U[0,1500]) = {} ms",
            e.wait_ms
        )
    );
    assert_eq!(e.strategy, Strategy::ResponseHeader);
    assert_eq!(e.unjittered_ms, 2000.0);
    assert_eq!(e.draws.len(), 1);
    // Without a window: exactly the header.
    let policy = policy_of(header_backoff(0));
    let e = wait(&policy, &ctx(1, &outcome), &mut rng_from_seed(42));
    assert_eq!(
        (e.wait_ms, e.text.as_str()),
        (2000, "retry 1: Retry-After \"2\" (seconds) = 2000 ms")
    );
    // `0` means retry now.
    let outcome = response(503, &[("retry-after", "0")]);
    assert_eq!(
        wait(&policy, &ctx(1, &outcome), &mut rng_from_seed(1)).wait_ms,
        0
    );
}

#[test]
fn response_header_dates_use_the_date_header() {
    let policy = policy_of(header_backoff(0));
    let outcome = response(
        503,
        &[
            ("Date", "Wed, 21 Oct 2015 07:28:00 GMT"),
            ("Retry-After", "Wed, 21 Oct 2015 07:28:05 GMT"),
        ],
    );
    let e = wait(&policy, &ctx(1, &outcome), &mut rng_from_seed(1));
    assert_eq!(e.wait_ms, 5000);
    assert!(e.text.contains("(HTTP-date) = 5000 ms"), "{}", e.text);
    // No Date header: the local clock (ctx.now_unix_ms) is the reference; a past date is 0.
    let outcome = response(503, &[("Retry-After", "Wed, 21 Oct 2015 07:28:05 GMT")]);
    let mut cx = ctx(1, &outcome);
    cx.now_unix_ms = 1_445_412_483_000; // 07:28:03
    assert_eq!(wait(&policy, &cx, &mut rng_from_seed(1)).wait_ms, 2000);
    cx.now_unix_ms = 1_445_412_490_000;
    assert_eq!(wait(&policy, &cx, &mut rng_from_seed(1)).wait_ms, 0);
}

#[test]
fn response_header_unusable_or_missing_falls_back() {
    let policy = policy_of(header_backoff(1500));
    let outcome = response(503, &[("Retry-After", "garbage")]);
    let e = wait(&policy, &ctx(2, &outcome), &mut rng_from_seed(5));
    assert!(
        e.text
            .starts_with("retry 2: unusable Retry-After: \"garbage\" → fallback: exponential m="),
        "{}",
        e.text
    );
    assert!(e.wait_ms <= 3000);
    for bad in ["-3", "", "  ", "1e5", "tomorrow"] {
        let outcome = response(503, &[("Retry-After", bad)]);
        let e = wait(&policy, &ctx(1, &outcome), &mut rng_from_seed(5));
        assert!(
            e.text.contains(&format!("unusable Retry-After: {bad:?}")),
            "{}",
            e.text
        );
    }
    let outcome = response(503, &[]);
    let e = wait(&policy, &ctx(1, &outcome), &mut rng_from_seed(5));
    assert!(
        e.text
            .starts_with("retry 1: no Retry-After header → fallback: exponential"),
        "{}",
        e.text
    );
    let err = AttemptOutcome::Error(NetError {
        kind: ErrorKind::Reset,
        message: "reset".into(),
        dns: None,
    });
    assert!(wait(&policy, &ctx(1, &err), &mut rng_from_seed(5)).wait_ms <= 1000);
    // No fallback: stop, saying why.
    let mut bo = header_backoff(0);
    bo.fallback = None;
    let policy = policy_of(bo);
    assert_eq!(
        policy.next_wait(&ctx(1, &outcome), &mut rng_from_seed(5)),
        WaitDecision::Stop {
            reason: "no Retry-After header and no fallback strategy is configured".into()
        }
    );
}

#[test]
fn response_header_tries_headers_in_order_with_units() {
    let mut bo = header_backoff(0);
    bo.headers = vec![
        DelayHeader {
            name: "retry-after-ms".into(),
            unit: HeaderUnit::Milliseconds,
        },
        DelayHeader {
            name: "x-ms-retry-after-ms".into(),
            unit: HeaderUnit::Milliseconds,
        },
        DelayHeader {
            name: "Retry-After".into(),
            unit: HeaderUnit::Seconds,
        },
        DelayHeader {
            name: "RateLimit".into(),
            unit: HeaderUnit::RatelimitT,
        },
    ];
    let policy = policy_of(bo);
    let outcome = response(
        429,
        &[("Retry-After", "3"), ("x-ms-retry-after-ms", "1500.5")],
    );
    let e = wait(&policy, &ctx(1, &outcome), &mut rng_from_seed(1));
    assert_eq!(e.wait_ms, 1501);
    assert!(
        e.text
            .starts_with("retry 1: x-ms-retry-after-ms \"1500.5\" (milliseconds) = 1501 ms"),
        "{}",
        e.text
    );
    let outcome = response(429, &[("retry-after-ms", "soon"), ("Retry-After", "3")]);
    let e = wait(&policy, &ctx(1, &outcome), &mut rng_from_seed(1));
    assert_eq!(e.wait_ms, 3000);
    assert!(
        e.text
            .starts_with("retry 1: unusable retry-after-ms: \"soon\"; Retry-After \"3\""),
        "{}",
        e.text
    );
    let outcome = response(429, &[("RateLimit", "\"default\";r=0;t=4")]);
    assert_eq!(
        wait(&policy, &ctx(1, &outcome), &mut rng_from_seed(1)).wait_ms,
        4000
    );
}

#[test]
fn response_header_above_max_stops_or_caps() {
    let policy = policy_of(header_backoff(0));
    let outcome = response(429, &[("Retry-After", "3600")]);
    assert_eq!(
        policy.next_wait(&ctx(1, &outcome), &mut rng_from_seed(1)),
        WaitDecision::Stop {
            reason: "server asked for 3600 s, max delay is 10 s".into()
        }
    );
    let mut cx = ctx(1, &outcome);
    cx.time_left_ms = Some(5000);
    let small = response(429, &[("Retry-After", "8")]);
    let mut cx_small = ctx(1, &small);
    cx_small.time_left_ms = Some(5000);
    assert_eq!(
        policy.next_wait(&cx_small, &mut rng_from_seed(1)),
        WaitDecision::Stop {
            reason: "server asked for 8 s, only 5 s left before the deadline".into()
        }
    );
    let mut bo = header_backoff(1500);
    bo.on_exceed_max = OnExceedMax::Cap;
    let policy = policy_of(bo);
    let e = wait(&policy, &ctx(1, &outcome), &mut rng_from_seed(1));
    assert!(e.capped);
    assert!((10_000..=11_500).contains(&e.wait_ms));
    assert!(
        e.text
            .contains("→ capped to 10000 ms (max delay is 10 s; on_exceed_max = cap)"),
        "{}",
        e.text
    );
    let e = wait(&policy, &cx, &mut rng_from_seed(1));
    assert!((5000..=6500).contains(&e.wait_ms), "{}", e.text);
    // hard_cap also clamps the window.
    let mut bo = header_backoff(1500);
    bo.on_exceed_max = OnExceedMax::Cap;
    bo.hard_cap = true;
    let policy = policy_of(bo);
    assert_eq!(
        wait(&policy, &ctx(1, &outcome), &mut rng_from_seed(1)).wait_ms,
        10_000
    );
}

#[test]
fn response_header_combine_max() {
    let mut bo = header_backoff(0);
    bo.combine = Combine::Max;
    bo.fallback = Some(Box::new(backoff(Strategy::Fixed, 4000, None, 0)));
    let policy = policy_of(bo);
    let outcome = response(429, &[("Retry-After", "2")]);
    let e = wait(&policy, &ctx(1, &outcome), &mut rng_from_seed(1));
    assert_eq!(e.wait_ms, 4000);
    assert!(
        e.text.contains("; fallback: fixed 4000 ms; max → 4000 ms"),
        "{}",
        e.text
    );
    let outcome = response(429, &[("Retry-After", "7")]);
    assert_eq!(
        wait(&policy, &ctx(1, &outcome), &mut rng_from_seed(1)).wait_ms,
        7000
    );
}

#[test]
fn policy_rejects_bad_fallback_and_missing_script() {
    let mut bo = header_backoff(0);
    bo.fallback = Some(Box::new(Backoff::new(Strategy::Custom)));
    assert!(
        matches!(Policy::new(profile(bo)), Err(PolicyError::Invalid(m)) if m.contains("fallback"))
    );
    let bo = Backoff::new(Strategy::Custom);
    assert!(
        matches!(Policy::new(profile(bo)), Err(PolicyError::Invalid(m)) if m.contains("backoff.script"))
    );
}
