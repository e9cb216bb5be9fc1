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

/// A `response_header` backoff over `headers` (name, unit) with a max delay of `max_ms`, and
/// `fallback` computing the wait when no header gives one.
fn header_backoff(headers: &[(&str, HeaderUnit)], fallback: Backoff, max_ms: u64) -> Backoff {
    let mut bo = Backoff::new(Strategy::ResponseHeader);
    bo.max_delay_ms = Some(max_ms);
    bo.headers = headers
        .iter()
        .map(|(name, unit)| DelayHeader {
            name: (*name).into(),
            unit: *unit,
        })
        .collect();
    bo.fallback = Some(Box::new(fallback));
    bo
}

/// The policy of a profile waiting by `backoff`, every other field at its default; the profile
/// passes the checks a profile file gets.
fn policy_of(backoff: Backoff) -> Policy {
    let p = RetryProfile::new("headers", backoff);
    let issues = retryscope::profile::validate(&p);
    assert!(issues.is_empty(), "{issues:?}");
    Policy::new(p).expect("valid")
}

/// A policy that waits as `headers` say, up to 120 s, else a fixed 7 ms.
fn policy(headers: &[(&str, HeaderUnit)]) -> Policy {
    policy_of(header_backoff(headers, fixed_ms(7), 120_000))
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

/// The decision before retry 1 after `outcome`, with `time_left_ms` before the deadline and the
/// RNG seeded with `seed`.
fn decide_with(
    policy: &Policy,
    outcome: &AttemptOutcome,
    time_left_ms: Option<u64>,
    seed: u64,
) -> WaitDecision {
    let ctx = WaitContext {
        retry: 1,
        outcome,
        elapsed_ms: 0,
        prev_wait_ms: None,
        time_left_ms,
        now_unix_ms: 0,
    };
    policy.next_wait(&ctx, &mut rng_from_seed(seed))
}

/// [`decide_with`] after a 429 with `headers`, no deadline, seed 1.
fn decide(policy: &Policy, headers: &[(&str, &str)]) -> WaitDecision {
    decide_with(policy, &response(headers), None, 1)
}

/// The wait [`decide`] gives (ms) and its explanation.
fn wait(policy: &Policy, headers: &[(&str, &str)]) -> (u64, String) {
    wait_text(decide(policy, headers))
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
    let exhausted = ("RateLimit", "\"default\";r=0;t=30");
    // (headers, the wait in ms, what its explanation says)
    let cases = [
        (
            [exhausted, ("Retry-After", "5")],
            5000,
            "Retry-After \"5\" (seconds, wins over RateLimit)",
        ),
        // Without Retry-After, RateLimit decides, naming the policy and its quota.
        (
            [exhausted, ("RateLimit-Policy", "\"default\";q=100;w=60")],
            30_000,
            r#"(RateLimit t, policy "default" q=100 per 60 s) = 30000 ms"#,
        ),
        // An unusable Retry-After does not win.
        ([exhausted, ("Retry-After", "soon")], 30_000, "RateLimit t"),
    ];
    for (headers, want, said) in cases {
        let (ms, text) = wait(&p, &headers);
        assert_eq!(ms, want, "{headers:?}: {text}");
        assert!(text.contains(said), "{headers:?}: {text}");
    }
}

#[test]
fn ratelimit_with_quota_left_falls_back() {
    let p = policy(&[("RateLimit", HeaderUnit::RatelimitT)]);
    let (ms, text) = wait(&p, &[("RateLimit", "\"default\";r=5;t=30")]);
    assert_eq!(ms, 7, "{text}");
    assert!(text.contains("fallback"), "{text}");
}

#[test]
fn older_drafts_and_reset_headers_are_read() {
    let p = policy(&[
        ("RateLimit-Reset", HeaderUnit::RatelimitT),
        ("RateLimit", HeaderUnit::RatelimitT),
    ]);
    assert_eq!(wait(&p, &[("RateLimit-Reset", "12")]).0, 12_000);
    assert_eq!(
        wait(&p, &[("RateLimit", "limit=10, remaining=0, reset=9")]).0,
        9000
    );
}

#[test]
fn grpc_pushback_negative_or_garbage_stops_the_run() {
    let p = policy(&[("grpc-retry-pushback-ms", HeaderUnit::GrpcPushbackMs)]);
    for raw in ["-1", "soon", "", "1.5"] {
        match decide(&p, &[("grpc-retry-pushback-ms", raw)]) {
            WaitDecision::Stop { reason } => assert!(
                reason.contains("the server asked not to retry") && reason.contains("gRPC A6"),
                "{raw:?}: {reason}"
            ),
            other => panic!("{raw:?}: expected a stop, got {other:?}"),
        }
    }
    // Absent: the fallback decides (nothing was said).
    assert_eq!(wait(&p, &[]).0, 7);
    assert_eq!(wait(&p, &[("grpc-retry-pushback-ms", "250")]).0, 250);
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

// ---- combine: "clamp" (DESIGN.md §7: wait = min(max(header, computed), computed + X)) -------

/// A `response_header` policy over `headers` with `combine: "clamp"`, X = `x` ms, a `fallback`
/// backoff and a max delay of `max_ms`.
fn clamped(
    headers: &[(&str, HeaderUnit)],
    x: u64,
    fallback: Backoff,
    max_ms: u64,
    stop_above_max: bool,
) -> Policy {
    let mut bo = header_backoff(headers, fallback, max_ms);
    bo.combine = retryscope::model::Combine::Clamp;
    bo.clamp_above_ms = Some(x);
    bo.on_exceed_max = if stop_above_max {
        retryscope::model::OnExceedMax::Stop
    } else {
        retryscope::model::OnExceedMax::Cap
    };
    policy_of(bo)
}

fn fixed_ms(ms: u64) -> Backoff {
    let mut b = Backoff::new(Strategy::Fixed);
    b.base_delay_ms = ms;
    b
}

#[test]
fn clamp_bounds_retry_after_and_pushback_to_computed_plus_x() {
    let headers = [
        ("Retry-After", HeaderUnit::Seconds),
        ("grpc-retry-pushback-ms", HeaderUnit::GrpcPushbackMs),
    ];
    let p = clamped(&headers, 5000, fixed_ms(1000), 120_000, true);
    // (headers, expected wait): inside the window it is the server's; below it, the computed
    // wait; above it, computed + X.
    let cases: [(&[(&str, &str)], u64); 7] = [
        (&[("Retry-After", "2")], 2000),
        (&[("Retry-After", "60")], 6000),
        (&[("Retry-After", "0")], 1000),
        (&[("grpc-retry-pushback-ms", "30000")], 6000),
        (&[("grpc-retry-pushback-ms", "500")], 1000),
        (&[("grpc-retry-pushback-ms", "4500")], 4500),
        // No delay header: the fallback's wait as computed.
        (&[], 1000),
    ];
    for (hs, want) in cases {
        let (ms, text) = wait(&p, hs);
        assert_eq!(ms, want, "{hs:?}: {text}");
        if !hs.is_empty() {
            assert!(
                text.contains(&format!("clamp to [1000, 1000 + 5000] → {want} ms")),
                "{hs:?}: {text}"
            );
        }
    }
    // A pushback that says "do not retry" still stops the run under clamp (gRPC A6).
    let stop = decide(&p, &[("grpc-retry-pushback-ms", "-1")]);
    assert!(
        matches!(&stop, WaitDecision::Stop { reason } if reason.contains("asked not to retry")),
        "{stop:?}"
    );
}

#[test]
fn clamp_holds_its_window_for_a_random_fallback_on_every_seed() {
    let mut fb = Backoff::new(Strategy::FullJitter);
    fb.base_delay_ms = 1000;
    fb.max_delay_ms = Some(20_000);
    let p = clamped(
        &[("x-amz-retry-after", HeaderUnit::Milliseconds)],
        5000,
        fb,
        25_000,
        false,
    );
    for seed in 0..200 {
        // The fallback alone (no header) draws the same computed wait for the same seed.
        let (computed, _) = wait_text(decide_with(&p, &response(&[]), None, seed));
        let (high, text) = wait_text(decide_with(
            &p,
            &response(&[("x-amz-retry-after", "60000")]),
            None,
            seed,
        ));
        assert_eq!(high, computed + 5000, "seed {seed}: {text}");
        let (low, text) = wait_text(decide_with(
            &p,
            &response(&[("x-amz-retry-after", "0")]),
            None,
            seed,
        ));
        assert_eq!(low, computed, "seed {seed}: {text}");
    }
}

#[test]
fn a_clamped_wait_past_the_max_or_the_deadline_quotes_what_the_server_asked() {
    let headers = [("Retry-After", HeaderUnit::Seconds)];
    // Max delay 4 s, stop above it: 60 s clamps to 6 s, which is still too long.
    let p = clamped(&headers, 5000, fixed_ms(1000), 4000, true);
    let WaitDecision::Stop { reason } = decide(&p, &[("Retry-After", "60")]) else {
        panic!("expected a stop");
    };
    assert_eq!(
        reason,
        "server asked for 60 s (clamped to 6 s), max delay is 4 s"
    );
    // With cap, the clamped wait is cut to the max delay.
    let p = clamped(&headers, 5000, fixed_ms(1000), 4000, false);
    let (ms, text) = wait(&p, &[("Retry-After", "60")]);
    assert_eq!(ms, 4000, "{text}");
    // The time left before the deadline bounds it the same way; inside the window nothing is
    // clamped, and the server's figure is quoted alone.
    let p = clamped(&headers, 5000, fixed_ms(1000), 120_000, true);
    for (asked, said) in [
        (
            "60",
            "server asked for 60 s (clamped to 6 s), only 3 s left before the deadline",
        ),
        (
            "4",
            "server asked for 4 s, only 3 s left before the deadline",
        ),
    ] {
        let decision = decide_with(&p, &response(&[("Retry-After", asked)]), Some(3000), 1);
        let WaitDecision::Stop { reason } = decision else {
            panic!("{asked}: expected a stop, got {decision:?}");
        };
        assert_eq!(reason, said);
    }
}

#[test]
fn the_aws_2026_built_in_clamps_x_amz_retry_after_for_both_classes() {
    let profile = retryscope::profile::builtin("aws-standard-2026").expect("built-in");
    let p = Policy::new(profile).expect("valid");
    let with_status = |status: u16, value: &str| {
        let mut outcome = response(&[("x-amz-retry-after", value)]);
        if let AttemptOutcome::Response(r) = &mut outcome {
            r.status = status;
        }
        outcome
    };
    for seed in 0..50 {
        // Throttling (429): full jitter from 1 s, so computed ≤ 1000 and the wait ≤ 6000.
        let (ms, text) = wait_text(decide_with(&p, &with_status(429, "60000"), None, seed));
        assert!((5000..=6000).contains(&ms), "seed {seed}: {text}");
        assert!(text.contains("throttling"), "names the class: {text}");
        // Transient (503): full jitter from 50 ms, so the wait ≤ 5050.
        let (ms, text) = wait_text(decide_with(&p, &with_status(503, "60000"), None, seed));
        assert!((5000..=5050).contains(&ms), "seed {seed}: {text}");
    }
}
