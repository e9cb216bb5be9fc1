//! Retry budgets, outcome classes and unlimited retries in real runs against the demo server on
//! 127.0.0.1 (DESIGN.md §7), on tokio's paused clock with seeded RNGs.

mod engine_support;

use engine_support::*;
use retryscope::cli::timeline_text::TextTimeline;
use retryscope::demo::DemoServer;
use retryscope::engine::{RunOptions, start_run};
use retryscope::model::{
    BudgetChange, BudgetChangeKind, OutcomeClass, OutcomeKind, RequestSpec, RetryProfile, RunEvent,
};
use retryscope::profile::builtin;
use retryscope::service::BudgetRegistry;
use retryscope::ui::timeline::Timeline;
use tokio::sync::mpsc;

/// Every `BudgetChanged` of a run, in order.
fn budget(events: &[RunEvent]) -> Vec<BudgetChange> {
    events
        .iter()
        .filter_map(|e| match e {
            RunEvent::BudgetChanged { change, .. } => Some(change.clone()),
            _ => None,
        })
        .collect()
}

fn explanations(events: &[RunEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            RunEvent::WaitScheduled { explanation, .. } => Some(explanation.text.clone()),
            _ => None,
        })
        .collect()
}

/// Runs `profile` on `url` with the bucket `registry` hands out, run id `id`, seed 7.
async fn run_shared(
    registry: &BudgetRegistry,
    url: String,
    profile: RetryProfile,
    id: u64,
) -> Vec<RunEvent> {
    let (tx, mut rx) = mpsc::channel(4096);
    let budget = registry.bucket_for(&profile, &url);
    start_run(
        RequestSpec::get(url),
        profile,
        RunOptions {
            run_id: id,
            seed: Some(7),
            budget,
        },
        tx,
        None,
    );
    let mut seen = Vec::new();
    while let Some(e) = rx.recv().await {
        let last = matches!(e, RunEvent::RunFinished { .. });
        seen.push(e);
        if last {
            break;
        }
    }
    seen
}

/// The AWS 2026 built-in against the demo server, a throttling 429 (with
/// x-amz-retry-after) then a transient 503 then 200; both classes, their backoffs and the quota
/// are on the timeline (events, the window's fold, the CLI text).
#[tokio::test(start_paused = true)]
async fn aws_2026_shows_both_classes_and_its_quota() {
    let server = DemoServer::start(0).await.expect("demo server");
    let profile = builtin("aws-standard-2026").expect("built-in");
    let url = server.url("/sequence?codes=429,503&name=x-amz-retry-after&value=1500");
    let events = run_untimed(RequestSpec::get(url), profile).await;
    assert_eq!(labels(&events), ["429", "503", "200"]);
    assert_eq!(kind(&events), OutcomeKind::Succeeded);

    let changes = budget(&events);
    let summary: Vec<_> = changes
        .iter()
        .map(|c| (c.kind, c.class, c.before, c.after))
        .collect();
    assert_eq!(
        summary,
        [
            (
                BudgetChangeKind::Charge,
                Some(OutcomeClass::Throttling),
                500.0,
                495.0
            ),
            (
                BudgetChangeKind::Charge,
                Some(OutcomeClass::Transient),
                495.0,
                481.0
            ),
            (
                BudgetChangeKind::Refund,
                Some(OutcomeClass::Transient),
                481.0,
                495.0
            ),
        ]
    );
    assert_eq!(
        changes[0].scope, "run",
        "the engine alone: a bucket of its own"
    );
    assert_eq!(
        changes[1].text,
        "retry budget 495 → 481 of 500 tokens (a transient retry costs 14)"
    );

    let texts = explanations(&events);
    assert_eq!(texts.len(), 2);
    assert!(
        texts[0].starts_with("retry 1 (throttling, throttling.backoff): x-amz-retry-after \"1500\" (milliseconds) = 1500 ms; fallback: full_jitter"),
        "{}",
        texts[0]
    );
    assert!(texts[0].contains("clamp to ["), "{}", texts[0]);
    // The 503 carries the header too; its computed wait uses the transient 50 ms base.
    assert!(
        texts[1].starts_with("retry 2 (transient, backoff): x-amz-retry-after \"1500\""),
        "{}",
        texts[1]
    );
    assert!(
        texts[1].contains("fallback: full_jitter 50 × 2^1"),
        "{}",
        texts[1]
    );
    assert!(
        texts[0].contains("fallback: full_jitter 1000 × 2^0"),
        "{}",
        texts[0]
    );

    // The window's timeline: tokens on the rows of the retried attempts and of the success.
    let now = std::time::Instant::now();
    let mut timeline = Timeline::new(1, "");
    for e in &events {
        timeline.apply(retryscope::model::secrets::mask_event(e.clone(), &[]), now);
    }
    let rows: Vec<Option<String>> = timeline
        .attempts()
        .iter()
        .map(retryscope::model::AttemptRow::budget_label)
        .collect();
    assert_eq!(
        rows,
        [
            Some("tokens 500 → 495".to_owned()),
            Some("tokens 495 → 481".to_owned()),
            Some("tokens 481 → 495".to_owned())
        ]
    );
    // The CLI text timeline.
    let fold = retryscope::model::RunFold::of_events(
        1,
        events
            .iter()
            .map(|e| retryscope::model::secrets::mask_event(e.clone(), &[])),
    );
    let printed = TextTimeline::default().delta(&fold);
    assert!(
        printed.contains("  retry budget 500 → 495 of 500 tokens (a throttling retry costs 5)\n"),
        "{printed}"
    );
    assert!(
        printed.contains("  retry budget 481 → 495 of 500 tokens (the transient retry succeeded: its 14 refunded)\n"),
        "{printed}"
    );
    // JSON events carry the same fields.
    let json = serde_json::to_value(&events[events.len() - 2]).expect("json");
    assert_eq!(json["event"], "budget_changed");
    assert_eq!(json["change"]["kind"], "refund");
    assert_eq!(
        (
            json["change"]["before"].as_f64(),
            json["change"]["after"].as_f64()
        ),
        (Some(481.0), Some(495.0))
    );
}

/// An exhausted quota stops the run with the reason, before any wait.
#[tokio::test(start_paused = true)]
async fn an_empty_budget_stops_with_the_reason() {
    let server = DemoServer::start(0).await.expect("demo server");
    let mut profile = builtin("aws-standard-2026").expect("built-in");
    if let Some(b) = profile.retry_budget.as_mut() {
        b.initial = Some(3.0);
    }
    let events = run_untimed(RequestSpec::get(server.url("/status/503")), profile).await;
    let (outcome, attempts) = finished(&events);
    assert_eq!((outcome.kind, attempts), (OutcomeKind::Stopped, 1));
    assert_eq!(
        outcome.message,
        "not retried: retry budget has 3 of 500 tokens, a transient retry costs 14"
    );
    assert!(explanations(&events).is_empty(), "no wait was scheduled");
    assert_eq!(budget(&events).len(), 1);
}

/// Host scope: overlapping runs to one host share the bucket (the legacy AWS quota here).
#[tokio::test(start_paused = true)]
async fn runs_to_one_host_share_the_bucket() {
    let server = DemoServer::start(0).await.expect("demo server");
    let registry = BudgetRegistry::new();
    let profile = builtin("aws-standard").expect("built-in");
    let (a, b) = tokio::join!(
        run_shared(
            &registry,
            server.url("/status/503?key=a"),
            profile.clone(),
            1
        ),
        run_shared(
            &registry,
            server.url("/status/503?key=b"),
            profile.clone(),
            2
        ),
    );
    // Each gives up after 3 attempts: 2 retries × 5 tokens each, from one bucket of 500.
    assert_eq!(
        (kind(&a), kind(&b)),
        (OutcomeKind::GaveUp, OutcomeKind::GaveUp)
    );
    let mut afters: Vec<f64> = budget(&a)
        .iter()
        .chain(&budget(&b))
        .map(|c| c.after)
        .collect();
    afters.sort_by(f64::total_cmp);
    assert_eq!(afters, [480.0, 485.0, 490.0, 495.0]);
    assert!(budget(&a)[0].scope.starts_with("host http://127.0.0.1:"));
    let later = run_shared(&registry, server.url("/status/200"), profile, 3).await;
    let inc = budget(&later);
    assert_eq!(
        (inc[0].kind, inc[0].before, inc[0].after),
        (BudgetChangeKind::SuccessIncrement, 480.0, 481.0)
    );
}

/// gRPC retryThrottling: every failure takes a token, retries only while tokens > 5.
#[tokio::test(start_paused = true)]
async fn grpc_throttling_over_two_runs() {
    let server = DemoServer::start(0).await.expect("demo server");
    let registry = BudgetRegistry::new();
    let profile = builtin("grpc-a6").expect("built-in");
    let first = run_shared(
        &registry,
        server.url("/status/503?key=g1"),
        profile.clone(),
        1,
    )
    .await;
    assert_eq!(kind(&first), OutcomeKind::GaveUp, "4 attempts");
    let afters: Vec<f64> = budget(&first).iter().map(|c| c.after).collect();
    assert_eq!(
        afters,
        [9.0, 8.0, 7.0, 6.0],
        "the last failure is charged too"
    );
    let second = run_shared(&registry, server.url("/status/503?key=g2"), profile, 2).await;
    let (outcome, attempts) = finished(&second);
    assert_eq!((outcome.kind, attempts), (OutcomeKind::Stopped, 1));
    assert_eq!(
        outcome.message,
        "not retried: retry budget has 5 of 10 tokens after this transient failure cost 1; retries need more than 5 left"
    );
}

/// `max_retries: null` retries until the deadline; `u32::MAX` behaves the same, nothing is
/// enumerated up front.
#[tokio::test(start_paused = true)]
async fn unlimited_and_u32_max_retries_stop_at_the_deadline() {
    let server = DemoServer::start(0).await.expect("demo server");
    for max in [serde_json::Value::Null, serde_json::json!(u32::MAX)] {
        let p = profile(serde_json::json!({
            "max_retries": max,
            "deadline_ms": 10_000,
            "backoff": {"strategy": "fixed", "base_delay_ms": 1000},
        }));
        let events = run_untimed(RequestSpec::get(server.url("/status/503")), p).await;
        let (outcome, attempts) = finished(&events);
        assert_eq!(
            outcome.kind,
            OutcomeKind::Deadline,
            "{max}: {}",
            outcome.message
        );
        assert!(
            (10..=11).contains(&attempts),
            "{max}: {attempts} attempts in 10 s of 1 s waits"
        );
    }
}
