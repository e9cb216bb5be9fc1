//! Helpers shared by the engine integration tests (not a test target itself).

#![allow(dead_code, clippy::unwrap_used)]

use retryscope::engine::{RunHandle, RunOptions, start_run};
use retryscope::model::{
    AttemptOutcome, Hop, OutcomeKind, RequestSpec, RetryProfile, RunEvent, RunOutcome, Verdict,
};
use std::time::Duration;
use tokio::sync::mpsc;

/// A profile from JSON fields (format and name added).
pub fn profile(fields: serde_json::Value) -> RetryProfile {
    let mut doc = serde_json::json!({ "format": "retryscope-profile/1", "name": "test" });
    let serde_json::Value::Object(fields) = fields else {
        panic!("profile fields are an object")
    };
    for (k, v) in fields {
        doc[k] = v;
    }
    serde_json::from_value(doc).expect("valid test profile")
}

/// `fixed` waits of `wait_ms` (no jitter), at most `max_retries` retries, default triage.
pub fn fixed(wait_ms: u64, max_retries: u32) -> RetryProfile {
    profile(serde_json::json!({
        "max_retries": max_retries,
        "backoff": { "strategy": "fixed", "base_delay_ms": wait_ms },
    }))
}

/// A run in progress with its event receiver.
pub struct Running {
    pub handle: RunHandle,
    pub rx: mpsc::Receiver<RunEvent>,
    pub seen: Vec<RunEvent>,
}

/// Starts a run with seed 7.
pub fn start(spec: RequestSpec, profile: RetryProfile) -> Running {
    let (tx, rx) = mpsc::channel(4096);
    let handle = start_run(
        spec,
        profile,
        RunOptions {
            run_id: 1,
            seed: Some(7),
            budget: None,
        },
        tx,
        None,
    );
    Running {
        handle,
        rx,
        seen: Vec::new(),
    }
}

impl Running {
    /// Receives events until `pred` matches one (returned), within 20 s.
    pub async fn until(&mut self, pred: impl Fn(&RunEvent) -> bool) -> RunEvent {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let event = tokio::time::timeout_at(deadline, self.rx.recv())
                .await
                .expect("event within 20 s")
                .expect("channel open");
            self.seen.push(event.clone());
            if pred(&event) {
                return event;
            }
        }
    }

    /// Receives events until `RunFinished`; returns every event of the run.
    pub async fn finish(mut self) -> Vec<RunEvent> {
        self.until(|e| matches!(e, RunEvent::RunFinished { .. }))
            .await;
        self.seen
    }
}

/// Runs to the end without a test timeout (for a paused clock, where a timeout timer would be
/// advanced over while sockets are busy).
pub async fn run_untimed(spec: RequestSpec, profile: RetryProfile) -> Vec<RunEvent> {
    let mut running = start(spec, profile);
    while let Some(event) = running.rx.recv().await {
        let last = matches!(event, RunEvent::RunFinished { .. });
        running.seen.push(event);
        if last {
            break;
        }
    }
    running.seen
}

/// Runs to the end and returns every event.
pub async fn run(spec: RequestSpec, profile: RetryProfile) -> Vec<RunEvent> {
    start(spec, profile).finish().await
}

/// The `RunFinished` outcome and attempt count.
pub fn finished(events: &[RunEvent]) -> (RunOutcome, u32) {
    match events.last() {
        Some(RunEvent::RunFinished {
            outcome, attempts, ..
        }) => (outcome.clone(), *attempts),
        other => panic!("last event is not RunFinished: {other:?}"),
    }
}

/// Kind of the run's end.
pub fn kind(events: &[RunEvent]) -> OutcomeKind {
    finished(events).0.kind
}

/// Each `AttemptFinished`: outcome, hops, verdict.
pub fn attempts(events: &[RunEvent]) -> Vec<(AttemptOutcome, Vec<Hop>, Verdict)> {
    events
        .iter()
        .filter_map(|e| match e {
            RunEvent::AttemptFinished {
                outcome,
                hops,
                verdict,
                ..
            } => Some((outcome.clone(), hops.clone(), verdict.clone())),
            _ => None,
        })
        .collect()
}

/// Status labels of the attempts (`503`, `connect`…).
pub fn labels(events: &[RunEvent]) -> Vec<String> {
    attempts(events).iter().map(|(o, _, _)| o.label()).collect()
}

/// `(method, url)` of each `AttemptStarted`.
pub fn started(events: &[RunEvent]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            RunEvent::AttemptStarted { method, url, .. } => Some((method.clone(), url.clone())),
            _ => None,
        })
        .collect()
}

/// `(planned_ms, actual_ms, skipped)` of each `WaitFinished`.
pub fn waits(events: &[RunEvent]) -> Vec<(u64, f64, bool)> {
    events
        .iter()
        .filter_map(|e| match e {
            RunEvent::WaitFinished {
                planned_ms,
                actual_ms,
                skipped,
                ..
            } => Some((*planned_ms, *actual_ms, *skipped)),
            _ => None,
        })
        .collect()
}

/// The single network error of a one-attempt run.
pub fn only_error(events: &[RunEvent]) -> retryscope::model::NetError {
    match attempts(events).first() {
        Some((AttemptOutcome::Error(e), _, _)) => e.clone(),
        other => panic!("expected a network error, got {other:?}"),
    }
}
