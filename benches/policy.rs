//! Policy speed: 1,000,000 sampled waits of a 10-retry exponential profile
//! (seed 001 numbers: b = 1000 ms, c = 10 000 ms, w = 1500 ms). Target: < 100 ms on one core.
//!
//! The same million with a retry budget and a throttling class: each wait is
//! classed (a 429 every third attempt, else 503), takes the class's backoff and is charged to an
//! AWS-2026-style token bucket (refilled by a success at the end of each run).
//!
//! Run: `cargo bench --bench policy`.

use criterion::{Criterion, criterion_group, criterion_main};
use retryscope::model::{
    AttemptOutcome, Backoff, OutcomeClass, ResponseSummary, RetryProfile, Strategy,
};
use retryscope::policy::{
    RetryCharge, TokenBucket, backoff_for, classify, rng_from_seed, sample_wait_ms, simulate,
};
use std::hint::black_box;

fn exponential() -> Backoff {
    let mut b = Backoff::new(Strategy::Exponential);
    b.base_delay_ms = 1000;
    b.max_delay_ms = Some(10_000);
    b.jitter_window_ms = 1500;
    b
}

/// 100 000 runs × 10 retries = 1 000 000 waits.
fn million_waits(backoff: &Backoff) -> u64 {
    let mut rng = rng_from_seed(1);
    let mut total = 0u64;
    for _ in 0..100_000 {
        let mut prev = None;
        for retry in 1..=10 {
            let w = sample_wait_ms(backoff, retry, prev, &mut rng).unwrap_or(0);
            prev = Some(w);
            total = total.wrapping_add(w);
        }
    }
    total
}

fn status(code: u16) -> AttemptOutcome {
    AttemptOutcome::Response(ResponseSummary {
        status: code,
        reason: String::new(),
        version: "HTTP/1.1".into(),
        headers: Vec::new(),
        body: retryscope::model::BodyPreview::default(),
    })
}

/// 100 000 runs × 10 retries, each wait classed, drawn from its class's backoff and charged.
fn million_waits_with_budget(profile: &RetryProfile) -> u64 {
    let outcomes = [status(503), status(503), status(429)];
    let Some(budget) = profile.retry_budget.as_ref() else {
        return 0;
    };
    let mut bucket = TokenBucket::new(budget, "run");
    let mut rng = rng_from_seed(1);
    let mut total = 0u64;
    for run in 0..100_000usize {
        let mut prev = None;
        let mut last = None;
        for retry in 1..=10u32 {
            let outcome = &outcomes[(run + retry as usize) % 3];
            let class = classify(profile, outcome);
            let (backoff, _) = backoff_for(profile, class);
            // The policy's decision in numbers; the engine formats a change only to show it.
            if let Some(step) = bucket.failure_step(class, true) {
                last = Some(RetryCharge {
                    class,
                    cost: step.amount(),
                });
            }
            let w = sample_wait_ms(backoff, retry, prev, &mut rng).unwrap_or(0);
            prev = Some(w);
            total = total.wrapping_add(w);
        }
        bucket.success_step(last);
    }
    total.wrapping_add(u64::from(
        classify(profile, &outcomes[2]) == OutcomeClass::Throttling,
    ))
}

fn bench(c: &mut Criterion) {
    let backoff = exponential();
    let mut group = c.benchmark_group("policy");
    group.sample_size(20);
    group.bench_function("1M sampled waits, exponential, 10 retries", |b| {
        b.iter(|| million_waits(black_box(&backoff)));
    });
    let mut profile: RetryProfile = match serde_json::from_value(serde_json::json!({
        "format": "retryscope-profile/2",
        "name": "bench",
        "max_retries": 10,
        "backoff": { "strategy": "exponential", "base_delay_ms": 1000,
                     "max_delay_ms": 10000, "jitter_window_ms": 1500 }
    })) {
        Ok(p) => p,
        Err(e) => panic!("bench profile: {e}"),
    };
    profile.max_retries = Some(10);
    group.bench_function("simulate 1000 samples x 10 retries", |b| {
        b.iter(|| simulate(black_box(&profile), 1000, 7));
    });
    let mut classed = profile.clone();
    classed.throttling.backoff = Some({
        let mut t = exponential();
        t.base_delay_ms = 2000;
        t
    });
    classed.retry_budget = Some(retryscope::model::RetryBudget {
        capacity: 500.0,
        initial: None,
        cost: retryscope::model::BudgetCost {
            transient: 14.0,
            timeout: 14.0,
            throttling: 5.0,
        },
        refund_on_retry_success: true,
        success_increment: 1.0,
        min_balance: 0.0,
        min_balance_exclusive: false,
        charge: retryscope::model::BudgetCharge::Retry,
        scope: retryscope::model::BudgetScope::Run,
    });
    group.bench_function(
        "1M sampled waits, exponential, 10 retries, throttling class + retry budget",
        |b| {
            b.iter(|| million_waits_with_budget(black_box(&classed)));
        },
    );
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
