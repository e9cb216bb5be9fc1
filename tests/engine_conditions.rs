//! Conditions on responses (DESIGN.md §8) and server delay headers, end to end against the demo
//! server on 127.0.0.1: polling `/job` until done, a 200 that says "rate limit exceeded",
//! `grpc-retry-pushback-ms` and `RateLimit`.

#![allow(clippy::unwrap_used)]

mod engine_support;

use engine_support::*;
use retryscope::demo::DemoServer;
use retryscope::model::{OutcomeKind, RequestSpec, RunEvent, Verdict};

fn verdicts(events: &[RunEvent]) -> Vec<Verdict> {
    attempts(events).into_iter().map(|(_, _, v)| v).collect()
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

fn polling(wait_ms: u64, max_retries: u32) -> retryscope::model::RetryProfile {
    profile(serde_json::json!({
        "max_retries": max_retries,
        "success_when": [{"json_pointer": "/state", "equals": "done"}],
        "backoff": { "strategy": "fixed", "base_delay_ms": wait_ms },
    }))
}

/// The issue's done-when: a polling profile waits until the job says done. Paused clock: the
/// one-minute polls take no real time, and each is measured exactly.
#[tokio::test(start_paused = true)]
async fn polling_the_job_endpoint_waits_until_done() {
    let server = DemoServer::start(0).await.unwrap();
    let events = run_untimed(
        RequestSpec::get(server.url("/job?ready_after=3&key=poll")),
        polling(60_000, 10),
    )
    .await;
    let (outcome, n) = finished(&events);
    assert_eq!(
        (outcome.kind, n),
        (OutcomeKind::Succeeded, 4),
        "{}",
        outcome.message
    );
    let pending = Verdict::not_ready(r#"/state is "pending", want "done""#);
    assert_eq!(
        verdicts(&events),
        [
            pending.clone(),
            pending.clone(),
            pending,
            // The success names the condition that held.
            Verdict::Success {
                condition: Some(r#"/state is "done""#.into())
            }
        ]
    );
    assert_eq!(server.log().len(), 4, "one request per poll");
    let waits = waits(&events);
    assert_eq!(waits.len(), 3);
    assert!(
        waits
            .iter()
            .all(|&(p, a, _)| p == 60_000 && (a - 60_000.0).abs() < 1.0)
    );
}

#[tokio::test(start_paused = true)]
async fn polling_gives_up_at_max_retries_naming_the_condition() {
    let server = DemoServer::start(0).await.unwrap();
    let events = run_untimed(
        RequestSpec::get(server.url("/job?ready_after=100&key=slow-job")),
        polling(1000, 2),
    )
    .await;
    let (outcome, n) = finished(&events);
    assert_eq!(
        (outcome.kind, n),
        (OutcomeKind::GaveUp, 3),
        "{}",
        outcome.message
    );
    assert_eq!(outcome.last_status, Some(200));
}

#[tokio::test(start_paused = true)]
async fn polling_stops_at_the_deadline() {
    let server = DemoServer::start(0).await.unwrap();
    let mut p = polling(4000, 100);
    p.deadline_ms = Some(10_000);
    let events = run_untimed(
        RequestSpec::get(server.url("/job?ready_after=100&key=deadline-job")),
        p,
    )
    .await;
    let (outcome, n) = finished(&events);
    assert_eq!(
        (outcome.kind, n),
        (OutcomeKind::Deadline, 3),
        "{}",
        outcome.message
    );
}

#[tokio::test]
async fn a_200_that_says_rate_limit_exceeded_is_retried() {
    let server = DemoServer::start(0).await.unwrap();
    let p = profile(serde_json::json!({
        "max_retries": 3,
        "retry_on": {"response": [{"body_contains": "rate limit exceeded"}]},
        "backoff": { "strategy": "fixed", "base_delay_ms": 5 },
    }));
    let events = run(
        RequestSpec::get(server.url("/soft-limit?times=2&key=soft")),
        p,
    )
    .await;
    assert_eq!(labels(&events), ["200", "200", "200"]);
    let retry = Verdict::retry(r#"body contains "rate limit exceeded""#);
    assert_eq!(verdicts(&events), [retry.clone(), retry, Verdict::SUCCESS]);
    assert_eq!(kind(&events), OutcomeKind::Succeeded);
}

#[tokio::test]
async fn a_header_matcher_polls_on_x_job_state() {
    let server = DemoServer::start(0).await.unwrap();
    let p = profile(serde_json::json!({
        "success_when": [{"header": "X-Job-State", "equals": "done"}],
        "backoff": { "strategy": "fixed", "base_delay_ms": 5 },
    }));
    let events = run(RequestSpec::get(server.url("/job?ready_after=1&key=h")), p).await;
    assert_eq!(
        verdicts(&events)[0],
        Verdict::not_ready(r#"header X-Job-State is "pending", want "done""#)
    );
    assert_eq!(kind(&events), OutcomeKind::Succeeded);
}

fn header_profile(name: &str, unit: &str) -> retryscope::model::RetryProfile {
    profile(serde_json::json!({
        "max_retries": 2,
        "backoff": {
            "strategy": "response_header",
            "headers": [{"name": name, "unit": unit}],
            "max_delay_ms": 60_000,
            "fallback": {"strategy": "fixed", "base_delay_ms": 7},
        },
    }))
}

#[tokio::test(start_paused = true)]
async fn grpc_pushback_is_a_delay_and_a_negative_one_stops() {
    let server = DemoServer::start(0).await.unwrap();
    let p = header_profile("grpc-retry-pushback-ms", "grpc_pushback_ms");
    let url =
        server.url("/header?name=grpc-retry-pushback-ms&value=1500&status=503&times=1&key=g1");
    let events = run_untimed(RequestSpec::get(url), p.clone()).await;
    assert_eq!(kind(&events), OutcomeKind::Succeeded);
    assert_eq!(waits(&events)[0].0, 1500);
    assert!(
        explanations(&events)[0]
            .contains(r#"grpc-retry-pushback-ms "1500" (gRPC pushback ms) = 1500 ms"#),
        "{:?}",
        explanations(&events)
    );
    let url = server.url("/header?name=grpc-retry-pushback-ms&value=-1&status=503&key=g2");
    let events = run_untimed(RequestSpec::get(url), p).await;
    let (outcome, n) = finished(&events);
    assert_eq!(
        (outcome.kind, n),
        (OutcomeKind::Stopped, 1),
        "{}",
        outcome.message
    );
    assert!(
        outcome.message.contains("the server asked not to retry"),
        "{}",
        outcome.message
    );
}

/// The `grpc-a6` built-in reads the pushback as gRPC does: 1500 ms from the server replaces
/// A6's backoff (whose cap is 1 s), and a 503 without it waits A6's U[0, 100 ms].
#[tokio::test(start_paused = true)]
async fn the_grpc_builtin_honours_pushback_beyond_max_backoff() {
    let server = DemoServer::start(0).await.unwrap();
    let p = retryscope::profile::builtin("grpc-a6").unwrap();
    let url =
        server.url("/header?name=grpc-retry-pushback-ms&value=1500&status=503&times=1&key=ga");
    let events = run_untimed(RequestSpec::get(url), p.clone()).await;
    assert_eq!(kind(&events), OutcomeKind::Succeeded);
    assert_eq!(waits(&events)[0].0, 1500, "{:?}", explanations(&events));
    let events = run_untimed(
        RequestSpec::get(server.url("/status/503?times=1&key=gb")),
        p,
    )
    .await;
    assert_eq!(kind(&events), OutcomeKind::Succeeded);
    assert!(waits(&events)[0].0 <= 100, "{:?}", explanations(&events));
    assert!(
        explanations(&events)[0].contains("fallback"),
        "{:?}",
        explanations(&events)
    );
}

#[tokio::test(start_paused = true)]
async fn ratelimit_structured_field_gives_the_reset() {
    let server = DemoServer::start(0).await.unwrap();
    let p = header_profile("RateLimit", "ratelimit_t");
    let url = server.url(
        "/header?name=RateLimit&value=%22default%22%3Br%3D0%3Bt%3D30&status=429&times=1&key=r1",
    );
    let events = run_untimed(RequestSpec::get(url), p).await;
    assert_eq!(kind(&events), OutcomeKind::Succeeded);
    assert_eq!(waits(&events)[0].0, 30_000);
    assert!(
        explanations(&events)[0].contains(r#"(RateLimit t, policy "default") = 30000 ms"#),
        "{:?}",
        explanations(&events)
    );
}
