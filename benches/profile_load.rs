//! Profile validation speed: loading a 10 MB profile through the shipped JSON Schema
//! and the semantic rules. Target: < 1 s. Two documents of 10 MiB: a valid one (a status list
//! of ~2 million entries) and one where every entry is wrong (the first 100 problems are listed
//! with line:column).
//!
//! Run: `cargo bench --bench profile_load`.

use criterion::{Criterion, criterion_group, criterion_main};
use retryscope::model::PROFILE_FORMAT;
use retryscope::profile::load_str;
use std::hint::black_box;

/// A profile of at least `bytes` bytes whose `retry_on.status` repeats `entry`.
fn big_profile(bytes: usize, entry: &str) -> String {
    let count = bytes / (entry.len() + 2) + 1;
    let entries = vec![entry; count].join(", ");
    format!(
        "{{\n  \"format\": \"{PROFILE_FORMAT}\",\n  \"name\": \"big\",\n  \"retry_on\": {{ \"status\": [{entries}] }},\n  \"backoff\": {{ \"strategy\": \"fixed\" }}\n}}\n"
    )
}

fn bench(c: &mut Criterion) {
    let valid = big_profile(10 * 1024 * 1024, "503");
    let invalid = big_profile(10 * 1024 * 1024, "\"5xx\"");
    let mut group = c.benchmark_group("profile_load");
    group.sample_size(10);
    group.bench_function("10 MiB valid profile", |b| {
        b.iter(|| black_box(load_str(black_box(&valid)).is_ok()));
    });
    group.bench_function("10 MiB profile, every status entry wrong", |b| {
        b.iter(|| black_box(load_str(black_box(&invalid)).is_err()));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
