//! Server delay headers beyond Retry-After: gRPC `grpc-retry-pushback-ms` (gRPC A6) and the IETF
//! `RateLimit` / `RateLimit-Policy` fields (draft-ietf-httpapi-ratelimit-headers-11, older
//! drafts leniently). Table cases plus properties: a generated well-formed value parses to the
//! generated number.

use proptest::prelude::*;
use retryscope::model::{
    AttemptOutcome, Backoff, DelayHeader, HeaderUnit, ResponseSummary, RetryProfile, Strategy,
};
use retryscope::policy::{
    Policy, WaitContext, WaitDecision, grpc_pushback_ms, parse_delay, parse_ratelimit,
    rng_from_seed,
};

fn policy(headers: &[(&str, HeaderUnit)]) -> Policy {
    let mut p: RetryProfile = serde_json::from_value(serde_json::json!({
        "format": "retryscope-profile/1",
        "name": "headers",
        "backoff": { "strategy": "fixed" }
    }))
    .expect("minimal profile");
    let mut bo = Backoff::new(Strategy::ResponseHeader);
    bo.max_delay_ms = Some(120_000);
    bo.headers = headers
        .iter()
        .map(|(name, unit)| DelayHeader {
            name: (*name).into(),
            unit: *unit,
        })
        .collect();
    let mut fb = Backoff::new(Strategy::Fixed);
    fb.base_delay_ms = 7;
    bo.fallback = Some(Box::new(fb));
    p.backoff = bo;
    Policy::new(p).expect("valid")
}

fn response(headers: &[(&str, &str)]) -> AttemptOutcome {
    AttemptOutcome::Response(ResponseSummary {
        status: 429,
        reason: String::new(),
        version: "HTTP/1.1".into(),
        headers: headers
            .iter()
            .map(|(n, v)| (n.to_ascii_lowercase(), (*v).to_owned()))
            .collect(),
        body: retryscope::model::BodyPreview::default(),
    })
}

fn decide(policy: &Policy, outcome: &AttemptOutcome) -> WaitDecision {
    let ctx = WaitContext {
        retry: 1,
        outcome,
        elapsed_ms: 0,
        prev_wait_ms: None,
        time_left_ms: None,
        now_unix_ms: 0,
    };
    policy.next_wait(&ctx, &mut rng_from_seed(1))
}

fn wait_text(d: WaitDecision) -> (u64, String) {
    match d {
        WaitDecision::Wait(e) => (e.wait_ms, e.text),
        other => panic!("expected a wait, got {other:?}"),
    }
}

#[test]
fn retry_after_wins_over_ratelimit_whatever_the_order() {
    let p = policy(&[("RateLimit", HeaderUnit::RatelimitT)]);
    let (ms, text) = wait_text(decide(
        &p,
        &response(&[("RateLimit", "\"default\";r=0;t=30"), ("Retry-After", "5")]),
    ));
    assert_eq!(ms, 5000, "{text}");
    assert!(
        text.contains("Retry-After \"5\" (seconds, wins over RateLimit)"),
        "{text}"
    );
    // Without Retry-After, RateLimit decides, naming the policy and its quota.
    let (ms, text) = wait_text(decide(
        &p,
        &response(&[
            ("RateLimit", "\"default\";r=0;t=30"),
            ("RateLimit-Policy", "\"default\";q=100;w=60"),
        ]),
    ));
    assert_eq!(ms, 30_000);
    assert!(
        text.contains(r#"(RateLimit t, policy "default" q=100 per 60 s) = 30000 ms"#),
        "{text}"
    );
    // An unusable Retry-After does not win.
    let (ms, _) = wait_text(decide(
        &p,
        &response(&[
            ("RateLimit", "\"default\";r=0;t=30"),
            ("Retry-After", "soon"),
        ]),
    ));
    assert_eq!(ms, 30_000);
}

#[test]
fn ratelimit_with_quota_left_falls_back() {
    let p = policy(&[("RateLimit", HeaderUnit::RatelimitT)]);
    let (ms, text) = wait_text(decide(
        &p,
        &response(&[("RateLimit", "\"default\";r=5;t=30")]),
    ));
    assert_eq!(ms, 7, "{text}");
    assert!(text.contains("fallback"), "{text}");
}

#[test]
fn older_drafts_and_reset_headers_are_read() {
    let p = policy(&[
        ("RateLimit-Reset", HeaderUnit::RatelimitT),
        ("RateLimit", HeaderUnit::RatelimitT),
    ]);
    assert_eq!(
        wait_text(decide(&p, &response(&[("RateLimit-Reset", "12")]))).0,
        12_000
    );
    assert_eq!(
        wait_text(decide(
            &p,
            &response(&[("RateLimit", "limit=10, remaining=0, reset=9")])
        ))
        .0,
        9000
    );
}

#[test]
fn grpc_pushback_negative_or_garbage_stops_the_run() {
    let p = policy(&[("grpc-retry-pushback-ms", HeaderUnit::GrpcPushbackMs)]);
    for raw in ["-1", "soon", "", "1.5"] {
        match decide(&p, &response(&[("grpc-retry-pushback-ms", raw)])) {
            WaitDecision::Stop { reason } => assert!(
                reason.contains("the server asked not to retry") && reason.contains("gRPC A6"),
                "{raw:?}: {reason}"
            ),
            other => panic!("{raw:?}: expected a stop, got {other:?}"),
        }
    }
    // Absent: the fallback decides (nothing was said).
    assert_eq!(wait_text(decide(&p, &response(&[]))).0, 7);
    assert_eq!(
        wait_text(decide(&p, &response(&[("grpc-retry-pushback-ms", "250")]))).0,
        250
    );
}

fn token() -> impl proptest::strategy::Strategy<Value = String> {
    "[a-z][a-z0-9_]{0,8}"
}

proptest! {
    #[test]
    fn draft11_item_parses_to_its_t(name in token(), t in 0u32..1_000_000, quoted: bool) {
        let name_text = if quoted { format!("{name:?}") } else { name.clone() };
        let value = format!("{name_text};r=0;t={t}");
        let d = parse_ratelimit(&value).expect("well-formed");
        prop_assert_eq!(d.ms, u64::from(t) * 1000);
        prop_assert_eq!(d.policy, Some(name));
        prop_assert_eq!(parse_delay(&value, HeaderUnit::RatelimitT, 0).map(|d| d.ms), Some(u64::from(t) * 1000));
    }

    #[test]
    fn draft11_list_takes_the_largest_exhausted_reset(
        quotas in prop::collection::vec((0u32..5, 0u32..100_000), 1..6)
    ) {
        let value = quotas
            .iter()
            .enumerate()
            .map(|(i, (r, t))| format!("\"q{i}\";r={r};t={t}"))
            .collect::<Vec<_>>()
            .join(", ");
        let want = quotas.iter().filter(|(r, _)| *r == 0).map(|(_, t)| u64::from(*t) * 1000).max();
        prop_assert_eq!(parse_ratelimit(&value).map(|d| d.ms), want);
    }

    #[test]
    fn older_draft_dictionary_parses_to_its_reset(limit in 1u32..10_000, reset in 0u32..1_000_000, millis in 0u32..1000) {
        let value = format!("limit={limit}, remaining=0, reset={reset}.{millis:03}");
        prop_assert_eq!(
            parse_ratelimit(&value).map(|d| d.ms),
            Some(u64::from(reset) * 1000 + u64::from(millis))
        );
    }

    #[test]
    fn grpc_pushback_parses_any_non_negative_integer(ms in any::<u64>()) {
        prop_assert_eq!(grpc_pushback_ms(&ms.to_string()), Some(ms));
        prop_assert_eq!(grpc_pushback_ms(&format!("-{}", ms.max(1))), None);
    }
}
