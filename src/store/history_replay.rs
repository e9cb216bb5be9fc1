//! A stored run back as the [`RunEvent`]s it was recorded from, so every front end shows a
//! past run with the same code as a live one (e.g. the CLI's text timeline).

use super::history_records::{RecordedOutcome, StoredRun};
use crate::model::{OutcomeKind, RunEvent, RunId, RunOutcome};

/// The events of `stored`, in order, with `run_id` as the event run id. An interrupted run
/// ends with a `RunFinished` of kind `error` whose message says it was interrupted; a run still
/// in progress (no outcome) has no `RunFinished`. An attempt that started but has no record
/// ([`StoredRun::unanswered`]) is an `AttemptStarted` with no `AttemptFinished`.
pub fn replay_events(stored: &StoredRun, run_id: RunId) -> Vec<RunEvent> {
    let run = &stored.run;
    let mut events = vec![RunEvent::RunStarted {
        run_id,
        seed: run.seed,
        profile: run.profile_name.clone(),
        method: run.method.clone(),
        url: run.url.clone(),
        started_at: run.started_at,
        tls_unverified: !run.request.verify_tls,
    }];
    for a in &stored.attempts {
        events.push(RunEvent::AttemptStarted {
            run_id,
            attempt: a.number,
            method: a.method.clone(),
            url: a.url.clone(),
            started_at: a.started_at,
            offset_ms: a.offset_ms,
        });
        events.push(RunEvent::AttemptFinished {
            run_id,
            attempt: a.number,
            outcome: a.outcome.clone(),
            hops: a.hops.clone(),
            timings: a.timings,
            verdict: a.verdict.clone(),
        });
        // Recorded in the order the run sent them: after the attempt, before its wait.
        events.extend(a.budget.iter().map(|change| RunEvent::BudgetChanged {
            run_id,
            attempt: a.number,
            change: change.clone(),
        }));
        if let Some(w) = &a.wait {
            events.push(RunEvent::WaitScheduled {
                run_id,
                retry: w.explanation.retry,
                planned_ms: w.planned_ms,
                explanation: w.explanation.clone(),
                offset_ms: w.offset_ms,
            });
            if let Some(measured) = w.measured_ms {
                events.push(RunEvent::WaitFinished {
                    run_id,
                    retry: w.explanation.retry,
                    planned_ms: w.planned_ms,
                    actual_ms: measured,
                    skipped: w.skipped,
                });
            }
        }
    }
    if let Some(u) = &stored.unanswered {
        events.push(RunEvent::AttemptStarted {
            run_id,
            attempt: u.number,
            method: u.method.clone(),
            url: u.url.clone(),
            started_at: u.started_at,
            offset_ms: u.offset_ms,
        });
    }
    if let Some(outcome) = run.outcome {
        let kind = outcome.engine_kind().unwrap_or(OutcomeKind::Error);
        let message = match (outcome, &run.outcome_message) {
            (RecordedOutcome::Interrupted, _) | (_, None) => format!(
                "{} after {} attempt{}",
                outcome.id(),
                run.attempts,
                if run.attempts == 1 { "" } else { "s" }
            ),
            (_, Some(m)) => m.clone(),
        };
        let last = stored.attempts.last();
        events.push(RunEvent::RunFinished {
            run_id,
            outcome: RunOutcome {
                kind,
                message,
                last_status: run
                    .last_status
                    .or_else(|| last.and_then(|a| a.outcome.status())),
            },
            attempts: run.attempts,
            // Not measured (interrupted): as far as the records reach.
            elapsed_ms: run.elapsed_ms.unwrap_or_else(|| stored.recorded_until_ms()),
        });
    }
    events
}
