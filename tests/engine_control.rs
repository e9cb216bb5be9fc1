//! Cancel, skip-wait, deadline and wait timing: real loopback traffic, and a paused clock where
//! only the waits are virtual.

#![allow(clippy::unwrap_used)]

mod core_support;
mod engine_support;

use engine_support::*;
use retryscope::demo::DemoServer;
use retryscope::model::{ErrorKind, OutcomeKind, RequestSpec, RunEvent};
use retryscope::service::{CoreCommand, CoreEvent, CoreLink, LinkSetup};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

#[tokio::test]
async fn cancel_mid_wait_ends_the_run_promptly_as_cancelled() {
    let server = DemoServer::start(0).await.unwrap();
    let mut running = start(
        RequestSpec::get(server.url("/status/503")),
        fixed(60_000, 3),
    );
    running
        .until(|e| matches!(e, RunEvent::WaitScheduled { .. }))
        .await;
    let began = Instant::now();
    running.handle.cancel();
    let events = running.finish().await;
    let took = began.elapsed();
    let (outcome, n) = finished(&events);
    assert_eq!((outcome.kind, n), (OutcomeKind::Cancelled, 1));
    assert_eq!(outcome.message, "cancelled while waiting before retry 1");
    assert!(
        took < Duration::from_millis(500),
        "took {took:?} (target 50 ms)"
    );
}

#[tokio::test]
async fn cancel_mid_request_on_a_hanging_server_ends_the_run_promptly() {
    let server = DemoServer::start(0).await.unwrap();
    let mut running = start(RequestSpec::get(server.url("/hang")), fixed(10, 3));
    running
        .until(|e| matches!(e, RunEvent::AttemptStarted { .. }))
        .await;
    // Let the request reach the server so the cancel lands mid-request.
    for _ in 0..200 {
        if !server.log().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(server.log().len(), 1);
    let began = Instant::now();
    running.handle.cancel();
    let events = running.finish().await;
    let took = began.elapsed();
    let (outcome, attempts) = finished(&events);
    assert_eq!(outcome.kind, OutcomeKind::Cancelled);
    assert_eq!(outcome.message, "cancelled during attempt 1");
    assert_eq!(attempts, 1, "the aborted attempt counts as made");
    assert!(
        took < Duration::from_millis(500),
        "took {took:?} (target 50 ms)"
    );
}

#[tokio::test]
async fn skip_wait_ends_the_wait_and_starts_the_next_attempt_now() {
    let server = DemoServer::start(0).await.unwrap();
    let mut running = start(
        RequestSpec::get(server.url("/status/503?times=1")),
        fixed(60_000, 3),
    );
    running
        .until(|e| matches!(e, RunEvent::WaitScheduled { .. }))
        .await;
    running.handle.skip_wait();
    let events = running.finish().await;
    assert_eq!(kind(&events), OutcomeKind::Succeeded);
    let waits = waits(&events);
    assert_eq!(waits.len(), 1);
    let (planned, actual, skipped) = waits[0];
    assert_eq!(planned, 60_000);
    assert!(skipped);
    assert!(actual < 1000.0, "{actual}");
}

#[tokio::test]
async fn skip_during_an_attempt_does_not_shorten_the_wait_after_it() {
    let server = DemoServer::start(0).await.unwrap();
    let mut spec = RequestSpec::get(server.url("/slow?ms=2000"));
    spec.timeouts.read_ms = Some(300);
    let mut running = start(spec, fixed(150, 1));
    running
        .until(|e| matches!(e, RunEvent::AttemptStarted { .. }))
        .await;
    for _ in 0..100 {
        if !server.log().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    running.handle.skip_wait(); // attempt 1 is still waiting for its read timeout
    let events = running.finish().await;
    assert_eq!(labels(&events), ["timeout", "timeout"]);
    let (_, actual, skipped) = waits(&events)[0];
    assert!(!skipped && actual >= 150.0, "{actual} {skipped}");
}

#[tokio::test]
async fn deadline_stops_before_a_wait_that_would_pass_it() {
    let server = DemoServer::start(0).await.unwrap();
    let profile = profile(serde_json::json!({
        "max_retries": 10,
        "backoff": { "strategy": "fixed", "base_delay_ms": 200 },
        "deadline_ms": 300,
    }));
    let began = Instant::now();
    let events = run(RequestSpec::get(server.url("/status/503")), profile).await;
    let (outcome, n) = finished(&events);
    assert_eq!(
        (outcome.kind, n),
        (OutcomeKind::Deadline, 2),
        "{}",
        outcome.message
    );
    assert!(
        outcome.message.starts_with("deadline reached"),
        "{}",
        outcome.message
    );
    assert_eq!(waits(&events).len(), 1);
    assert!(began.elapsed() < Duration::from_millis(1500));
}

#[tokio::test]
async fn deadline_aborts_an_attempt_still_in_flight() {
    let server = DemoServer::start(0).await.unwrap();
    let profile = profile(serde_json::json!({
        "max_retries": 3,
        "backoff": { "strategy": "fixed", "base_delay_ms": 10 },
        "deadline_ms": 250,
    }));
    let began = Instant::now();
    let events = run(RequestSpec::get(server.url("/hang")), profile).await;
    let error = only_error(&events);
    assert_eq!(error.kind, ErrorKind::Timeout);
    assert!(
        error
            .message
            .starts_with("deadline reached during the attempt"),
        "{}",
        error.message
    );
    assert_eq!(kind(&events), OutcomeKind::Deadline);
    assert!(began.elapsed() < Duration::from_millis(1500));
}

#[tokio::test]
async fn real_gaps_at_the_server_are_at_least_the_scheduled_waits() {
    let server = DemoServer::start(0).await.unwrap();
    let events = run(
        RequestSpec::get(server.url("/status/503?times=3")),
        fixed(50, 3),
    )
    .await;
    assert_eq!(kind(&events), OutcomeKind::Succeeded);
    let planned: Vec<u64> = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::WaitScheduled { planned_ms, .. } => Some(*planned_ms),
            _ => None,
        })
        .collect();
    let log = server.log();
    assert_eq!((planned.len(), log.len()), (3, 4));
    for (i, wait) in planned.iter().enumerate() {
        let gap = log[i + 1].at_ms - log[i].at_ms;
        assert!(
            gap >= *wait as f64,
            "gap {gap} ms < planned {wait} ms before retry {}",
            i + 1
        );
    }
}

/// Paused clock: the demo server runs on the same runtime, so sockets are real but time only
/// moves when the runtime is idle. No engine timeouts are set (they would be advanced over
/// while a socket is busy), so the only timers are the waits: hour-long waits finish at once,
/// and each measured wait equals the planned one exactly.
#[tokio::test(start_paused = true)]
async fn paused_clock_runs_hour_long_waits_instantly_and_measures_them_exactly() {
    let server = DemoServer::start(0).await.unwrap();
    let real = Instant::now();
    let events = run_untimed(
        RequestSpec::get(server.url("/status/503?times=2")),
        fixed(3_600_000, 3),
    )
    .await;
    assert_eq!(kind(&events), OutcomeKind::Succeeded);
    assert!(real.elapsed() < Duration::from_secs(10));
    let waits = waits(&events);
    assert_eq!(waits.len(), 2);
    for (planned, actual, _) in waits {
        assert_eq!(planned, 3_600_000);
        assert!((actual - 3_600_000.0).abs() < 1.0, "{actual}");
    }
    let log = server.log();
    assert!(log[1].at_ms - log[0].at_ms >= 3_600_000.0);
    let offsets: Vec<f64> = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::AttemptStarted { offset_ms, .. } => Some(*offset_ms),
            _ => None,
        })
        .collect();
    assert!(offsets[2] >= 7_200_000.0, "{offsets:?}");
}

#[tokio::test(start_paused = true)]
async fn paused_clock_deadline_counts_virtual_time_exactly() {
    let server = DemoServer::start(0).await.unwrap();
    let profile = profile(serde_json::json!({
        "max_retries": 10,
        "backoff": { "strategy": "fixed", "base_delay_ms": 240_000 },
        "deadline_ms": 600_000,
    }));
    let events = run_untimed(RequestSpec::get(server.url("/status/503")), profile).await;
    let (outcome, n) = finished(&events);
    // Attempts start at 0, 4 and 8 virtual minutes; a third wait would end at 12 > 10 minutes.
    assert_eq!(
        (outcome.kind, n),
        (OutcomeKind::Deadline, 3),
        "{}",
        outcome.message
    );
    assert!(
        outcome
            .message
            .contains("would pass the 600000 ms deadline"),
        "{}",
        outcome.message
    );
    let offsets: Vec<f64> = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::AttemptStarted { offset_ms, .. } => Some(*offset_ms),
            _ => None,
        })
        .collect();
    assert_eq!(offsets.len(), 3);
    for (offset, expected) in offsets.iter().zip([0.0, 240_000.0, 480_000.0]) {
        assert!((offset - expected).abs() < 5.0, "{offsets:?}");
    }
}

#[test]
fn a_core_link_runs_commands_on_the_core_and_wakes_the_caller() {
    let demo_rt = tokio::runtime::Runtime::new().unwrap();
    let server = demo_rt.block_on(DemoServer::start(0)).unwrap();
    let wakes = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&wakes);
    let mut engine = CoreLink::start(
        core_support::shared_core(),
        LinkSetup {
            waker: Arc::new(move || {
                counter.fetch_add(1, Ordering::SeqCst);
            }),
            data_dir: None,
            record_runs: false,
            body_cap: 0,
            batches: None,
            secrets: None,
        },
    );

    let ok_id = engine.next_run_id();
    let hang_id = engine.next_run_id();
    assert_ne!(ok_id, hang_id);
    assert!(engine.send(CoreCommand::Start {
        run_id: ok_id,
        spec: RequestSpec::get(server.url("/status/503?times=1")),
        profile: fixed(10, 3),
        seed: Some(1),
        secrets: Vec::new(),
    }));
    assert!(engine.send(CoreCommand::Start {
        run_id: hang_id,
        spec: RequestSpec::get(server.url("/hang")),
        profile: fixed(10, 3),
        seed: None,
        secrets: Vec::new(),
    }));

    let mut ends = Vec::new();
    let began = Instant::now();
    let mut cancelled = false;
    while ends.len() < 2 && began.elapsed() < Duration::from_secs(10) {
        match engine.try_recv() {
            Some(CoreEvent::Run(RunEvent::RunFinished {
                run_id, outcome, ..
            })) => ends.push((run_id, outcome.kind)),
            Some(CoreEvent::Run(RunEvent::AttemptStarted { run_id, .. }))
                if run_id == hang_id && !cancelled =>
            {
                cancelled = engine.send(CoreCommand::Cancel(hang_id));
            }
            Some(_) => {}
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    }
    ends.sort_by_key(|(id, _)| *id);
    assert_eq!(
        ends,
        [
            (ok_id, OutcomeKind::Succeeded),
            (hang_id, OutcomeKind::Cancelled)
        ]
    );
    assert!(wakes.load(Ordering::SeqCst) >= 8, "waker called per event");
    drop(engine);
    drop(server);
}
