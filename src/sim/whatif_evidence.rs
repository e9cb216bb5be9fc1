//! The recorded attempts as samples of the endpoint's state over time (DESIGN.md §12): sorted by
//! when they were sent, each with its answer as an [`AttemptOutcome`] the policy can triage.

use crate::model::{AttemptOutcome, BodyPreview, NetError, ResponseSummary};
use crate::report::{AttemptResult, ObservedAttempt, ObservedRun};

/// A sample sent less than this before a moment counts as sent at it, ms.
pub(crate) const SAME_MS: f64 = 0.001;

/// Which recorded sample stands for the endpoint at a moment between two samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// The sample nearest in time (the earlier on a tie): the estimate.
    Nearest,
    /// Of the samples just before and just after, a failure if either failed: the low end.
    Worse,
    /// Of the two, a success if either succeeded: the high end.
    Better,
}

/// One recorded attempt.
#[derive(Debug, Clone)]
pub(crate) struct Sample {
    /// When it was sent, Unix ms.
    pub(crate) at_ms: f64,
    /// How long it took, ms.
    pub(crate) duration_ms: f64,
    /// Its answer, with the recorded delay headers.
    pub(crate) outcome: AttemptOutcome,
}

/// Recorded attempts in time order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Evidence {
    pub(crate) samples: Vec<Sample>,
}

impl Evidence {
    /// The attempts of the runs `runs[i]` for which `keep(i)` holds.
    pub(crate) fn new(runs: &[ObservedRun], keep: &dyn Fn(usize) -> bool) -> Self {
        let mut samples: Vec<Sample> = runs
            .iter()
            .enumerate()
            .filter(|(i, _)| keep(*i))
            .flat_map(|(_, run)| {
                let start = run.start_unix_ms() as f64;
                run.attempts.iter().map(move |a| Sample {
                    at_ms: start + a.offset_ms,
                    duration_ms: a.duration_ms.max(0.0),
                    outcome: outcome_of(a, start + a.offset_ms),
                })
            })
            .collect();
        samples.sort_by(|a, b| a.at_ms.total_cmp(&b.at_ms));
        Self { samples }
    }

    /// The index of the sample that stands for the endpoint at `t` (Unix ms) under `lookup`;
    /// `good[i]` says whether sample i is a success. `None` without samples. A sample sent at
    /// `t` (less than [`SAME_MS`] before it) stands for it under every lookup.
    pub(crate) fn pick(&self, t: f64, lookup: Lookup, good: &[bool]) -> Option<usize> {
        let after = self.samples.partition_point(|s| s.at_ms <= t);
        let before = after.checked_sub(1);
        let next = (after < self.samples.len()).then_some(after);
        match (before, next) {
            (None, None) => None,
            (Some(i), None) | (None, Some(i)) => Some(i),
            (Some(a), _) if t - self.samples[a].at_ms < SAME_MS => Some(a),
            (Some(a), Some(b)) => {
                let nearest = if t - self.samples[a].at_ms <= self.samples[b].at_ms - t {
                    a
                } else {
                    b
                };
                Some(match (lookup, good[a], good[b]) {
                    (Lookup::Worse, true, false) | (Lookup::Better, false, true) => b,
                    (Lookup::Worse, false, true) | (Lookup::Better, true, false) => a,
                    _ => nearest,
                })
            }
        }
    }
}

/// The recorded answer as an outcome: the status with the recorded delay headers (and a `Date`
/// of when it was sent, so an HTTP-date delay counts from there), or the error kind.
fn outcome_of(a: &ObservedAttempt, sent_unix_ms: f64) -> AttemptOutcome {
    match a.result {
        AttemptResult::Error(kind) => {
            AttemptOutcome::Error(NetError::new(kind, "as recorded at this time"))
        }
        AttemptResult::Status(status) => {
            let mut headers = a.delay_headers.clone();
            if !headers.is_empty() {
                #[allow(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    reason = "a Unix time in ms after 1970, far below u64::MAX"
                )]
                let at = std::time::UNIX_EPOCH
                    + std::time::Duration::from_millis(sent_unix_ms.max(0.0) as u64);
                headers.push(("Date".to_owned(), httpdate::fmt_http_date(at)));
            }
            AttemptOutcome::Response(ResponseSummary {
                status,
                reason: String::new(),
                version: "HTTP/1.1".to_owned(),
                headers,
                body: BodyPreview::default(),
            })
        }
    }
}
