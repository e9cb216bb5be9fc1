//! Conditions speed: a `success_when` JSON-pointer check on a 1 MiB body.
//! Target: < 1 ms. Three bodies of 1 MiB: the pointer's member first (the walk stops at once),
//! last (every other member is skipped, never built), and absent (the whole body is scanned).
//! For contrast, `body_contains` over the same 1 MiB and parsing it into a `serde_json::Value`.
//!
//! Run: `cargo bench --bench conditions`.

use criterion::{Criterion, criterion_group, criterion_main};
use retryscope::model::{BodyPreview, ResponseMatcher, ResponseSummary};
use retryscope::policy::MatcherList;
use std::hint::black_box;

const MIB: usize = 1024 * 1024;

/// A JSON object of about 1 MiB: `{"state": …}` first or last, around 10,000 log records.
fn body(state_first: bool, with_state: bool) -> Vec<u8> {
    let mut items = Vec::new();
    let mut len = 0;
    let mut i = 0;
    while len < MIB - 100 {
        let item = format!(
            r#"{{"id":{i},"msg":"step {i} finished \"ok\"","tags":["a","b"],"ms":{}.5}}"#,
            i * 7
        );
        len += item.len() + 1;
        items.push(item);
        i += 1;
    }
    let log = format!(r#""log":[{}]"#, items.join(","));
    let text = match (with_state, state_first) {
        (false, _) => format!(r#"{{{log},"other":"pending"}}"#),
        (true, true) => format!(r#"{{"state":"done",{log}}}"#),
        (true, false) => format!(r#"{{{log},"state":"done"}}"#),
    };
    text.into_bytes()
}

fn response(bytes: Vec<u8>) -> ResponseSummary {
    ResponseSummary {
        status: 200,
        reason: "OK".into(),
        version: "HTTP/1.1".into(),
        headers: Vec::new(),
        body: BodyPreview {
            total_bytes: bytes.len() as u64,
            bytes,
            truncated: false,
        },
    }
}

fn list(v: serde_json::Value) -> MatcherList {
    let matchers: Vec<ResponseMatcher> = serde_json::from_value(v).expect("matchers");
    MatcherList::compile(&matchers, "success_when").expect("compiles")
}

fn bench(c: &mut Criterion) {
    let pointer = list(serde_json::json!([{"json_pointer": "/state", "equals": "done"}]));
    let contains = list(serde_json::json!([{"body_contains": "\"state\":\"done\""}]));
    let first = response(body(true, true));
    let last = response(body(false, true));
    let absent = response(body(false, false));
    assert!(first.body.bytes.len() >= MIB - 200);
    assert!(pointer.check(&first).is_ok() && pointer.check(&last).is_ok());
    assert!(pointer.check(&absent).is_err());
    let mut group = c.benchmark_group("conditions");
    group.sample_size(50);
    group.bench_function("json_pointer /state equals, 1 MiB, member first", |b| {
        b.iter(|| pointer.check(black_box(&first)).is_ok());
    });
    group.bench_function("json_pointer /state equals, 1 MiB, member last", |b| {
        b.iter(|| pointer.check(black_box(&last)).is_ok());
    });
    group.bench_function("json_pointer /state equals, 1 MiB, absent", |b| {
        b.iter(|| pointer.check(black_box(&absent)).is_ok());
    });
    group.bench_function("body_contains, 1 MiB, match last", |b| {
        b.iter(|| contains.check(black_box(&last)).is_ok());
    });
    group.bench_function("contrast: serde_json::Value parse of 1 MiB", |b| {
        b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(&last.body.bytes)).is_ok());
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
