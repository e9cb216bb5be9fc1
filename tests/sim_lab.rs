//! The strategy lab's pure simulations: distributions and warnings, the capacity server, a
//! profile among the contenders (triage, retries, budget, Retry-After), layered retries.

#![allow(
    clippy::float_cmp,
    reason = "means of whole counts and exact bounds of whole ms; the tests compare them exactly"
)]

use retryscope::model::{Backoff, RetryProfile, Strategy};
use retryscope::profile::builtin;
use retryscope::sim::{
    Contender, ContentionSetup, LabWarning, ServerModel, analyse_stack, contention, distribution,
    simulate_stack, warnings,
};

fn profile(id: &str) -> RetryProfile {
    builtin(id).expect("built-in")
}

#[test]
fn a_distribution_lies_inside_its_exact_bounds() {
    // Seed 000: min(b·2^(n−1), c)·U[0.8, 1.2], 3 retries.
    let p = profile("vbscript-module");
    let d = distribution(&p, 5000, 7, 0.5, &mut |_| true)
        .expect("simulates")
        .expect("not cancelled");
    assert_eq!((d.samples, d.retries.len()), (5000, 3));
    for (r, expected) in d
        .retries
        .iter()
        .zip([(800.0, 1200.0), (1600.0, 2400.0), (3200.0, 4800.0)])
    {
        assert_eq!(r.wait_bounds, Some(expected), "retry {}", r.retry);
        let (lo, hi) = expected;
        let w = r.wait;
        assert!(lo <= w.min && w.min <= w.p5 && w.p5 <= w.p50, "{w:?}");
        assert!(w.p50 <= w.p95 && w.p95 <= w.max && w.max <= hi, "{w:?}");
        // The median of a symmetric factor sits near the middle.
        assert!(
            (w.p50 - f64::midpoint(lo, hi)).abs() < (hi - lo) * 0.05,
            "{w:?}"
        );
        let counted: u32 = r.histogram.counts.iter().sum();
        assert_eq!(counted, r.reached);
        assert_eq!(r.histogram.low_ms as f64, w.min);
    }
    let third = &d.retries[2];
    assert_eq!(third.cumulative_bounds, Some((5600.0, 8400.0)));
    let c = third.cumulative;
    assert!(5600.0 <= c.min && c.max <= 8400.0, "{c:?}");
    // The same seed gives the same distribution; cancelling gives none.
    assert_eq!(distribution(&p, 5000, 7, 0.5, &mut |_| true), Ok(Some(d)));
    assert_eq!(distribution(&p, 5000, 7, 0.5, &mut |_| false), Ok(None));
}

#[test]
fn warnings_name_what_is_wrong() {
    // Seed 001: w = 1500 > b = 1000.
    let w = warnings(&profile("servicenow-exponential"), 0.5, 1);
    assert!(
        w.contains(&LabWarning::JitterWindowAboveBase {
            path: "backoff".into(),
            window_ms: 1500,
            base_ms: 1000
        }),
        "{w:?}"
    );
    // 10 retries capped at 4000 ms: b·2^(n−1) reaches it at retry 3.
    let mut p = profile("vbscript-module");
    p.max_retries = Some(10);
    p.backoff.max_delay_ms = Some(4000);
    p.deadline_ms = Some(20_000);
    let w = warnings(&p, 0.5, 1);
    let texts: Vec<String> = w.iter().map(ToString::to_string).collect();
    assert!(
        w.contains(&LabWarning::PinnedAtCap {
            path: "backoff".into(),
            from_retry: 3,
            count: Some(8),
            cap_ms: 4000
        }),
        "{texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("worst case ") && t.contains("passes the 20,000 ms deadline")),
        "{texts:?}"
    );
    // A header strategy without fallback.
    let mut h = profile("servicenow-response-header");
    h.backoff.fallback = None;
    assert!(
        warnings(&h, 0.5, 1).contains(&LabWarning::NoHeaderFallback {
            path: "backoff".into()
        })
    );
    // The AWS retry quota runs dry when every attempt fails, never when none does.
    let aws = profile("aws-standard");
    assert!(
        warnings(&aws, 1.0, 1)
            .iter()
            .any(|w| matches!(w, LabWarning::BudgetRunsDry(_)))
    );
    assert!(
        !warnings(&aws, 0.0, 1)
            .iter()
            .any(|w| matches!(w, LabWarning::BudgetRunsDry(_)))
    );
    // A plain full-jitter profile without cap or deadline is fine.
    let mut ok = profile("vbscript-module");
    ok.backoff = Backoff::new(Strategy::FullJitter);
    assert_eq!(warnings(&ok, 0.5, 1), vec![]);
}

fn capacity(clients: u32, per_second: f64, retry_after: bool) -> ContentionSetup {
    let mut s = ContentionSetup::post();
    s.clients = clients;
    s.runs = 10;
    s.model = ServerModel::Capacity {
        per_second,
        retry_after,
    };
    s.failure_status = 429;
    s
}

#[test]
fn a_capacity_server_turns_away_only_what_is_over_capacity() {
    let full = &Contender::standard(5, 2000)[1];
    // Under capacity: every client is served at once.
    let under = contention(&capacity(50, 100.0, false), full);
    assert_eq!((under.total_calls, under.gave_up), (50.0, 0.0));
    // Over capacity: 100 served at once, the other 200 retry until the bucket refills.
    let over = contention(&capacity(300, 100.0, false), full);
    assert_eq!(over.gave_up, 0.0);
    assert!(over.total_calls > 300.0, "{over:?}");
    // 200 more need two more seconds of capacity.
    assert!(over.completion_ms > 1900.0, "{over:?}");
    assert!(over.peak_load > over.mean_load, "{over:?}");
}

#[test]
fn a_profile_contends_with_its_own_rules() {
    // AWS standard: 3 attempts per client and a shared 500-token quota; lost OCC writes (503)
    // are retryable transient errors for it.
    let mut setup = ContentionSetup::post();
    setup.runs = 10;
    let aws = Contender::profile(&profile("aws-standard")).expect("compiles");
    let r = contention(&setup, &aws);
    assert!(r.gave_up > 0.0 && r.gave_up < 100.0, "{r:?}");
    assert!(r.total_calls <= 300.0, "at most 3 writes per client: {r:?}");
    // ServiceNow's example retries only 429: every lost write ends its client at once.
    let sn = Contender::profile(&profile("servicenow-exponential")).expect("compiles");
    let r = contention(&setup, &sn);
    assert_eq!(r.total_calls, 100.0, "{r:?}");
    assert_eq!(r.gave_up, 99.0, "only the first write wins: {r:?}");
    // Its response-header profile waits for Retry-After (1 s) plus up to 1.5 s.
    let rh = Contender::profile(&profile("servicenow-response-header")).expect("compiles");
    let r = contention(&capacity(20, 10.0, true), &rh);
    assert_eq!(r.gave_up, 0.0, "{r:?}");
    assert!(r.completion_ms >= 1000.0, "{r:?}");
}

#[test]
fn layered_retries_multiply_attempts() {
    let stack = [profile("servicenow-exponential"), profile("aws-standard")];
    let a = analyse_stack(&stack, 1.0, 429).expect("compiles");
    assert_eq!(a.worst_attempts, Some(12));
    assert_eq!(a.failure_chance, 1.0);
    // Inner: 3 attempts, each up to the default 30 s idle timeout, + full jitter ≤ 1000 +
    // 2000 ms; outer: 4 inner calls + 2500 + 4500 + 8500 ms.
    assert_eq!(a.worst_time_ms, Some(4 * (3 * 30_000 + 3000) + 15_500));
    // Both retry 429; 10 calls use 400 of the quota's 500 tokens, so none is refused.
    let s = simulate_stack(&stack, 1.0, 429, 10, 10, 3).expect("compiles");
    assert_eq!((s.mean_attempts, s.max_attempts), (12.0, 12));
    assert_eq!(s.success_share, 0.0);
    assert!(s.max_time_ms <= 12.0 * 10.0 + 27_500.0, "{s:?}");
    // A healthy server: one attempt each.
    let s = simulate_stack(&stack, 0.0, 429, 10, 10, 3).expect("compiles");
    assert_eq!((s.mean_attempts, s.success_share), (1.0, 1.0));
    // Half failing: the sample mean is near the expectation (which ignores budgets, so the
    // quota is taken out).
    let mut unbudgeted = stack.clone();
    unbudgeted[1].retry_budget = None;
    let a = analyse_stack(&unbudgeted, 0.5, 429).expect("compiles");
    let s = simulate_stack(&unbudgeted, 0.5, 429, 0, 4000, 3).expect("compiles");
    assert!(
        (s.mean_attempts - a.expected_attempts).abs() < 0.1,
        "{s:?} vs {a:?}"
    );
}
