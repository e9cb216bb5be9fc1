//! Built-in profiles: every one loads, validates and round-trips; ids are stable; numbers and
//! citations are the documented ones.

use retryscope::model::{BudgetCharge, BudgetScope, Combine, HeaderUnit, OutcomeClass, Strategy};
use retryscope::profile::{
    BUILTIN_SOURCES, builtin, builtin_ids, builtins, load_str, to_json_pretty, validate,
};

const IDS: [&str; 13] = [
    "servicenow-exponential",
    "servicenow-response-header",
    "vbscript-module",
    "aws-standard",
    "aws-standard-2026",
    "azure-sdk",
    "google-api-core",
    "grpc-a6",
    "polly-v8-standard",
    "envoy-route",
    "dapr-default",
    "curl-retry",
    "custom-example",
];

#[test]
fn every_builtin_loads_validates_and_round_trips() {
    assert_eq!(builtin_ids(), IDS);
    let all = builtins();
    assert_eq!(
        all.iter().map(|b| b.id).collect::<Vec<_>>(),
        IDS,
        "all load"
    );
    for (b, (_, source)) in all.into_iter().zip(BUILTIN_SOURCES) {
        // `builtin` parses without checking: the checked load must give the same profile.
        assert_eq!(
            load_str(source).expect("loads checked"),
            b.profile,
            "{}",
            b.id
        );
        assert!(validate(&b.profile).is_empty(), "{} is invalid", b.id);
        let again = load_str(&to_json_pretty(&b.profile)).expect("round-trips");
        assert_eq!(again, b.profile, "{} changes in a round-trip", b.id);
        assert!(!b.profile.name.is_empty());
        assert!(
            b.profile.description.len() > 80,
            "{} needs a description with its source",
            b.id
        );
    }
}

#[test]
fn custom_example_compiles() {
    let p = builtin("custom-example").expect("exists");
    assert_eq!(p.backoff.strategy, Strategy::Custom);
    assert!(
        p.backoff
            .script
            .as_deref()
            .is_some_and(|s| s.contains("fn get_delay(ctx)"))
    );
    retryscope::policy::Policy::new(p).expect("script compiles");
}

#[test]
fn servicenow_numbers_are_seed_001s() {
    let p = builtin("servicenow-exponential").expect("exists");
    assert_eq!(p.name, "ServiceNow example (exponential)");
    assert_eq!(p.max_retries, Some(3));
    assert_eq!(p.retry_on.status.to_string(), "429");
    assert_eq!(p.backoff.strategy, Strategy::Exponential);
    assert_eq!(
        (
            p.backoff.base_delay_ms,
            p.backoff.max_delay_ms,
            p.backoff.jitter_window_ms
        ),
        (1000, Some(10000), 1500)
    );
    let h = builtin("servicenow-response-header").expect("exists");
    assert_eq!(h.backoff.strategy, Strategy::ResponseHeader);
    assert_eq!(h.backoff.headers[0].name, "Retry-After");
    assert_eq!(h.backoff.headers[0].unit, HeaderUnit::Seconds);
    assert_eq!(h.backoff.jitter_window_ms, 1500);
    let f = h.backoff.fallback.as_deref().expect("fallback");
    assert_eq!(f.strategy, Strategy::Exponential);
    assert_eq!(
        (f.base_delay_ms, f.max_delay_ms, f.jitter_window_ms),
        (1000, Some(10000), 1500)
    );
}

#[test]
fn vbscript_numbers_are_seed_000s() {
    let p = builtin("vbscript-module").expect("exists");
    assert_eq!(p.max_retries, Some(3), "4 attempts");
    assert_eq!(p.backoff.strategy, Strategy::ExponentialProportional);
    assert_eq!(p.backoff.base_delay_ms, 1000);
    assert!((p.backoff.jitter_ratio - 0.2).abs() < 1e-12);
    assert_eq!(p.retry_on.status.to_string(), "408, 429, 500-599");
    assert!(p.retry_on.non_idempotent, "POST retried");
    assert_eq!(
        (
            p.timeouts.resolve_ms,
            p.timeouts.connect_ms,
            p.timeouts.read_ms
        ),
        (Some(5000), Some(5000), Some(30000))
    );
}

#[test]
fn vendor_numbers() {
    let aws = builtin("aws-standard").expect("exists");
    assert_eq!(aws.max_retries, Some(2), "3 attempts");
    assert_eq!(aws.backoff.strategy, Strategy::FullJitter);
    assert_eq!(
        (aws.backoff.base_delay_ms, aws.backoff.max_delay_ms),
        (1000, Some(20000))
    );
    assert!(
        aws.description
            .contains("AWS SDKs and Tools Reference Guide: Retry behavior")
    );

    let aws26 = builtin("aws-standard-2026").expect("exists");
    assert!(
        aws26.description.contains("ASSUMED"),
        "assumptions are marked"
    );
    assert_eq!(aws26.backoff.headers[0].name, "x-amz-retry-after");

    let azure = builtin("azure-sdk").expect("exists");
    assert_eq!(azure.max_retries, Some(3));
    assert_eq!(azure.backoff.combine, Combine::Max);
    let names: Vec<&str> = azure
        .backoff
        .headers
        .iter()
        .map(|h| h.name.as_str())
        .collect();
    assert_eq!(
        names,
        ["retry-after-ms", "x-ms-retry-after-ms", "Retry-After"]
    );
    let fb = azure.backoff.fallback.as_deref().expect("fallback");
    assert_eq!(fb.strategy, Strategy::ExponentialProportional);
    assert_eq!((fb.base_delay_ms, fb.max_delay_ms), (800, Some(60000)));
    assert_eq!(
        azure.retry_on.status.to_string(),
        "408, 429, 500, 502, 503, 504"
    );

    let google = builtin("google-api-core").expect("exists");
    assert_eq!(google.backoff.strategy, Strategy::FullJitter);
    assert_eq!(
        (google.backoff.base_delay_ms, google.backoff.max_delay_ms),
        (1000, Some(60000))
    );
    assert_eq!(google.deadline_ms, Some(120_000));

    let curl = builtin("curl-retry").expect("exists");
    assert_eq!(curl.backoff.strategy, Strategy::ExponentialProportional);
    assert!(
        curl.backoff.jitter_ratio.abs() < f64::EPSILON,
        "{}",
        curl.backoff.jitter_ratio
    );
    assert_eq!(
        (curl.backoff.base_delay_ms, curl.backoff.max_delay_ms),
        (1000, Some(600_000))
    );
    assert_eq!(
        curl.retry_on.status.to_string(),
        "408, 429, 500, 502, 503, 504, 522, 524"
    );
}

#[test]
fn unknown_builtin_is_none() {
    assert!(builtin("nope").is_none());
}

/// Format 2 made the vendor built-ins exact: classes, quota, clamp.
#[test]
fn aws_quota_classes_and_clamp_are_the_documented_ones() {
    let legacy = builtin("aws-standard").expect("exists");
    let q = legacy.retry_budget.as_ref().expect("retry quota");
    assert_eq!((q.capacity, q.initial_tokens()), (500.0, 500.0));
    assert_eq!(
        (
            q.cost.of(OutcomeClass::Transient),
            q.cost.of(OutcomeClass::Timeout),
            q.cost.of(OutcomeClass::Throttling)
        ),
        (5.0, 10.0, 5.0)
    );
    assert!(q.refund_on_retry_success);
    assert_eq!(
        (q.success_increment, q.min_balance, q.scope),
        (1.0, 0.0, BudgetScope::Host)
    );
    assert_eq!(legacy.throttling.status.to_string(), "429");
    assert!(
        legacy.throttling.backoff.is_none(),
        "legacy: one backoff for every class"
    );

    let new = builtin("aws-standard-2026").expect("exists");
    let q = new.retry_budget.as_ref().expect("retry quota");
    assert_eq!((q.cost.transient, q.cost.throttling), (14.0, 5.0));
    assert_eq!(new.backoff.combine, Combine::Clamp);
    assert_eq!(new.backoff.clamp_above_ms, Some(5000));
    let fb = new.backoff.fallback.as_deref().expect("fallback");
    assert_eq!(
        (fb.strategy, fb.base_delay_ms, fb.max_delay_ms),
        (Strategy::FullJitter, 50, Some(20000))
    );
    let t = new.throttling.backoff.as_ref().expect("throttling backoff");
    assert_eq!((t.combine, t.clamp_above_ms), (Combine::Clamp, Some(5000)));
    let tfb = t.fallback.as_deref().expect("fallback");
    assert_eq!(
        (tfb.strategy, tfb.base_delay_ms, tfb.max_delay_ms),
        (Strategy::FullJitter, 1000, Some(20000))
    );
    assert!(
        !new.description
            .contains("Not expressible: throttling errors keep a 1 s base")
    );
}

#[test]
fn grpc_envoy_polly_dapr_numbers() {
    let g = builtin("grpc-a6").expect("exists");
    assert_eq!(g.max_retries, Some(3), "maxAttempts 4");
    assert_eq!(g.backoff.strategy, Strategy::ResponseHeader, "pushback");
    assert_eq!(
        g.backoff.headers[0].unit,
        retryscope::model::HeaderUnit::GrpcPushbackMs
    );
    assert_eq!(g.backoff.max_delay_ms, None, "a pushback is not capped");
    let gfb = g.backoff.fallback.as_deref().expect("A6's backoff");
    assert_eq!(
        (gfb.strategy, gfb.base_delay_ms, gfb.max_delay_ms),
        (Strategy::FullJitter, 100, Some(1000))
    );
    let t = g.retry_budget.as_ref().expect("retryThrottling");
    assert_eq!(
        (t.capacity, t.success_increment, t.min_balance),
        (10.0, 0.1, 5.0)
    );
    assert!(t.min_balance_exclusive && !t.refund_on_retry_success);
    assert_eq!(t.charge, BudgetCharge::Failure);
    assert!(g.description.contains("A6"));

    let e = builtin("envoy-route").expect("exists");
    assert_eq!(e.max_retries, Some(1), "num_retries 1");
    assert_eq!(
        (
            e.backoff.strategy,
            e.backoff.base_delay_ms,
            e.backoff.max_delay_ms
        ),
        (Strategy::Exponential, 25, Some(250))
    );
    assert_eq!(e.deadline_ms, Some(15000));

    let p = builtin("polly-v8-standard").expect("exists");
    assert_eq!(p.max_retries, Some(3));
    assert_eq!(p.backoff.strategy, Strategy::ResponseHeader);
    assert_eq!(
        (p.deadline_ms, p.timeouts.total_ms),
        (Some(30000), Some(10000))
    );
    assert!(
        p.description.contains("DecorrelatedJitterBackoffV2"),
        "says what it approximates"
    );

    let d = builtin("dapr-default").expect("exists");
    assert_eq!(
        (d.max_retries, d.backoff.strategy, d.backoff.base_delay_ms),
        (Some(3), Strategy::Fixed, 1000)
    );
    for id in [
        "grpc-a6",
        "envoy-route",
        "polly-v8-standard",
        "dapr-default",
    ] {
        let b = builtin(id).expect("exists");
        assert!(
            b.description.contains("not expressible"),
            "{id} lists what it cannot express"
        );
    }
}
