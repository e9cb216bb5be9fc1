//! The one adapter from the history's stored run to the report's input.

use super::observed::{AttemptResult, ObservedAttempt, ObservedRun};
use crate::model::{AttemptOutcome, OutcomeKind, RunFold};
use crate::store::StoredRun;

/// `stored` as an [`ObservedRun`]: its finished attempts with their status or error kind and
/// the delay headers of their responses ([`crate::policy::is_delay_header`]). An interrupted run,
/// or one still running, has no outcome; an attempt that started but has no record is left out
/// of its attempts (nothing is known of its answer) and counted among those it made.
pub fn observed_run(stored: &StoredRun) -> ObservedRun {
    let run = &stored.run;
    observed(
        ObservedRun {
            id: run.id.clone(),
            started_at: run.started_at,
            outcome: run.outcome.filter(|k| *k != OutcomeKind::Interrupted),
            profile_name: run.profile_name.clone(),
            method: run.method.clone(),
            idempotency_key: run.request.has_idempotency_key(),
            attempts: Vec::new(),
            attempts_made: 0,
            message: run.outcome_message.clone(),
        },
        &stored.fold,
    )
}

/// A run that ended in this process, from its fold (a watch's slot, before it is read back
/// from the history): as [`observed_run`] would read it once stored. `None` before its
/// `RunStarted`.
pub fn observed_fold(id: &str, fold: &RunFold, idempotency_key: bool) -> Option<ObservedRun> {
    let header = fold.header.as_ref()?;
    Some(observed(
        ObservedRun {
            id: id.to_owned(),
            started_at: header.started_at,
            outcome: fold.finish.as_ref().map(|f| f.outcome.kind),
            profile_name: header.profile.clone(),
            method: header.method.clone(),
            idempotency_key,
            attempts: Vec::new(),
            attempts_made: 0,
            message: fold.finish.as_ref().map(|f| f.outcome.message.clone()),
        },
        fold,
    ))
}

/// `run` with the finished attempts of `fold` and the count of those it made.
fn observed(run: ObservedRun, fold: &RunFold) -> ObservedRun {
    ObservedRun {
        attempts_made: fold.attempts_made(),
        attempts: fold
            .attempts
            .iter()
            .filter_map(|row| Some((row.offset_ms, row.result.as_ref()?)))
            .map(|(offset_ms, a)| ObservedAttempt {
                offset_ms,
                duration_ms: a.timings.total_ms,
                result: match &a.outcome {
                    AttemptOutcome::Response(r) => AttemptResult::Status(r.status),
                    AttemptOutcome::Error(e) => AttemptResult::Error(e.kind),
                },
                delay_headers: match &a.outcome {
                    AttemptOutcome::Response(r) => r
                        .headers
                        .iter()
                        .filter(|(name, _)| crate::policy::is_delay_header(name))
                        .cloned()
                        .collect(),
                    AttemptOutcome::Error(_) => Vec::new(),
                },
            })
            .collect(),
        ..run
    }
}
