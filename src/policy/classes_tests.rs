//! Tests of format 2's policy parts (DESIGN.md §7): outcome classes and their backoff, the header
//! clamp, and summaries of huge or unlimited retry counts.

use super::tests::{ctx, response};
use super::*;
use crate::model::{
    Backoff, Combine, DelayHeader, ErrorKind, HeaderUnit, NetError, OutcomeClass, RetryProfile,
    Strategy,
};

#[allow(clippy::needless_pass_by_value, reason = "tests pass json! literals")]
fn profile(fields: serde_json::Value) -> RetryProfile {
    let mut doc = serde_json::json!({"format": crate::model::PROFILE_FORMAT, "name": "t",
        "backoff": {"strategy": "fixed", "base_delay_ms": 100}});
    for (k, v) in fields.as_object().cloned().unwrap_or_default() {
        doc[k] = v;
    }
    serde_json::from_value(doc).expect("test profile")
}

fn wait(policy: &Policy, retry: u32, outcome: &AttemptOutcome, seed: u64) -> WaitExplanation {
    super::tests::wait(policy, &ctx(retry, outcome), &mut rng_from_seed(seed))
}

#[test]
fn outcomes_fall_into_three_classes() {
    let p = profile(serde_json::json!({"throttling": {"status": [429, 503]}}));
    let err = |k| AttemptOutcome::Error(NetError::new(k, "x"));
    assert_eq!(classify(&p, &response(429, &[])), OutcomeClass::Throttling);
    assert_eq!(classify(&p, &response(503, &[])), OutcomeClass::Throttling);
    assert_eq!(classify(&p, &response(500, &[])), OutcomeClass::Transient);
    assert_eq!(
        classify(&p, &err(ErrorKind::Timeout)),
        OutcomeClass::Timeout
    );
    assert_eq!(
        classify(&p, &err(ErrorKind::ConnectTimeout)),
        OutcomeClass::Timeout
    );
    assert_eq!(
        classify(&p, &err(ErrorKind::Reset)),
        OutcomeClass::Transient
    );
    let default = profile(serde_json::json!({}));
    assert_eq!(
        default.throttling.status.to_string(),
        "429",
        "default [429]"
    );
    assert_eq!(
        classify(&default, &response(503, &[])),
        OutcomeClass::Transient
    );
}

#[test]
fn a_response_matching_throttling_response_is_throttling_and_waits_with_its_backoff() {
    // A provider that throttles with 400 + a header (as some AWS services do with a code).
    let p = profile(serde_json::json!({
        "retry_on": {"status": [400, 503]},
        "throttling": {
            "response": [{"header": "x-error-code", "equals": "Throttling"}],
            "backoff": {"strategy": "fixed", "base_delay_ms": 1000}
        }
    }));
    let policy = Policy::new(p).expect("policy");
    let throttled = response(400, &[("x-error-code", "Throttling")]);
    assert_eq!(policy.classify(&throttled), OutcomeClass::Throttling);
    assert_eq!(
        policy.classify(&response(400, &[])),
        OutcomeClass::Transient
    );
    assert_eq!(
        policy.classify(&response(429, &[])),
        OutcomeClass::Throttling
    );
    let t = wait(&policy, 1, &throttled, 1);
    assert_eq!(
        (t.wait_ms, t.text.as_str()),
        (
            1000,
            "retry 1 (throttling, throttling.backoff): fixed 1000 ms"
        )
    );
    let n = wait(&policy, 1, &response(400, &[]), 1);
    assert_eq!(n.wait_ms, 100);
    // A matcher that cannot compile is refused with its path.
    let bad = profile(serde_json::json!({
        "throttling": {"response": [{"body_matches": "("}]}
    }));
    let err = Policy::new(bad).expect_err("bad regex");
    assert!(err.to_string().contains("throttling.response[0]"), "{err}");
}

#[test]
fn throttling_outcomes_wait_with_the_throttling_backoff_and_say_so() {
    let p = profile(serde_json::json!({
        "throttling": {"backoff": {"strategy": "fixed", "base_delay_ms": 1000}}
    }));
    let policy = Policy::new(p).expect("policy");
    let t = wait(&policy, 1, &response(429, &[]), 1);
    assert_eq!(t.wait_ms, 1000);
    assert_eq!(
        t.text,
        "retry 1 (throttling, throttling.backoff): fixed 1000 ms"
    );
    let n = wait(&policy, 2, &response(503, &[]), 1);
    assert_eq!(n.wait_ms, 100);
    assert_eq!(n.text, "retry 2 (transient, backoff): fixed 100 ms");
    // Without a throttling backoff the texts stay as they were.
    let plain = Policy::new(profile(serde_json::json!({}))).expect("policy");
    assert_eq!(
        wait(&plain, 1, &response(429, &[]), 1).text,
        "retry 1: fixed 100 ms"
    );
}

#[test]
fn a_custom_throttling_backoff_is_refused() {
    let mut p = profile(serde_json::json!({}));
    p.throttling.backoff = Some(Backoff::new(Strategy::Custom));
    assert!(
        matches!(Policy::new(p), Err(PolicyError::Invalid(m)) if m.contains("throttling.backoff"))
    );
}

fn clamp_profile(x: u64) -> Policy {
    let mut b = Backoff::new(Strategy::ResponseHeader);
    b.headers = vec![DelayHeader {
        name: "x-amz-retry-after".into(),
        unit: HeaderUnit::Milliseconds,
    }];
    b.combine = Combine::Clamp;
    b.clamp_above_ms = Some(x);
    b.max_delay_ms = Some(25_000);
    let mut fb = Backoff::new(Strategy::Fixed);
    fb.base_delay_ms = 1000;
    b.fallback = Some(Box::new(fb));
    let mut p = profile(serde_json::json!({}));
    p.backoff = b;
    Policy::new(p).expect("policy")
}

/// wait = min(max(header, computed), computed + X), computed = the fallback's 1000 ms.
#[test]
fn clamp_bounds_the_header_to_computed_plus_x() {
    let policy = clamp_profile(5000);
    let cases = [
        ("200", 1000),
        ("1000", 1000),
        ("3500", 3500),
        ("6000", 6000),
        ("9000", 6000),
    ];
    for (header, want) in cases {
        let e = wait(
            &policy,
            1,
            &response(429, &[("x-amz-retry-after", header)]),
            3,
        );
        assert_eq!(e.wait_ms, want, "header {header}: {}", e.text);
    }
    let e = wait(
        &policy,
        1,
        &response(429, &[("x-amz-retry-after", "9000")]),
        3,
    );
    assert_eq!(
        e.text,
        "retry 1: x-amz-retry-after \"9000\" (milliseconds) = 9000 ms; fallback: fixed 1000 ms; clamp to [1000, 1000 + 5000] → 6000 ms"
    );
    // No header: the fallback as before.
    assert_eq!(wait(&policy, 1, &response(429, &[]), 3).wait_ms, 1000);
}

#[test]
fn huge_and_unlimited_counts_are_summarised_not_listed() {
    let mut p = profile(serde_json::json!({"max_retries": 4_294_967_295_u64,
        "backoff": {"strategy": "exponential", "base_delay_ms": 100, "max_delay_ms": 10000}}));
    assert_eq!(listed_retries(&p), SIMULATE_MAX_RETRIES);
    assert_eq!(
        unlisted_retries_note(&p).as_deref(),
        Some(
            "retries 1001–4294967295 (4294966295 more) are not listed; each of their waits is at most 10000 ms"
        )
    );
    let stats = simulate(&p, 10, 1).expect("simulates");
    assert_eq!(
        stats.len(),
        SIMULATE_MAX_RETRIES as usize,
        "bounded, whatever the count"
    );
    p.max_retries = None;
    p.deadline_ms = Some(60_000);
    assert_eq!(listed_retries(&p), SIMULATE_MAX_RETRIES);
    assert_eq!(
        unlisted_retries_note(&p).as_deref(),
        Some(
            "retries after 1000 are not listed: unlimited retries go on until the 60000 ms deadline; each of their waits is at most 10000 ms"
        )
    );
    let stats = simulate(&p, 10, 1).expect("simulates");
    assert!(
        stats.iter().all(|s| s.cumulative.max <= 60_000.0),
        "the deadline ends every sample"
    );
    p.max_retries = Some(3);
    assert_eq!(unlisted_retries_note(&p), None);
    assert_eq!(retries_text(Some(0), None), "0 retries (1 attempts)");
}
