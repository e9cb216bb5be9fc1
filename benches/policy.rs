//! Policy speed (issue 2 §7): 1,000,000 sampled waits of a 10-retry exponential profile
//! (seed 001 numbers: b = 1000 ms, c = 10 000 ms, w = 1500 ms). Target: < 100 ms on one core.
//!
//! Run: `cargo bench --bench policy`.

use criterion::{Criterion, criterion_group, criterion_main};
use retryscope::model::{Backoff, RetryProfile, Strategy};
use retryscope::policy::{rng_from_seed, sample_wait_ms, simulate};
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

fn bench(c: &mut Criterion) {
    let backoff = exponential();
    let mut group = c.benchmark_group("policy");
    group.sample_size(20);
    group.bench_function("1M sampled waits, exponential, 10 retries", |b| {
        b.iter(|| million_waits(black_box(&backoff)));
    });
    let mut profile: RetryProfile = match serde_json::from_value(serde_json::json!({
        "format": "retryscope-profile/1",
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
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
