//! What a report and the what-if replay read of a recorded run: its start, how it ended and, per
//! attempt, when it started, how long it took, its status or error kind and the delay headers
//! the server sent. Plain data, secrets already masked (the history masks before it stores).

use crate::model::{ErrorKind, OutcomeKind};
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

/// One recorded run as evidence of the endpoint's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObservedRun {
    /// Run id (UUID v7).
    pub id: String,
    /// Wall-clock start with offset.
    pub started_at: DateTime<FixedOffset>,
    /// How it ended; `None` when it did not finish (the process died, or it is still running).
    pub outcome: Option<OutcomeKind>,
    /// Name of the profile it ran under.
    pub profile_name: String,
    /// Method of attempt 1.
    pub method: String,
    /// Whether the request carried an `Idempotency-Key` header (triage's method gate reads it).
    #[serde(default)]
    pub idempotency_key: bool,
    /// Its finished attempts, in order.
    pub attempts: Vec<ObservedAttempt>,
    /// Attempts made: an attempt started counts, finished or not ([`crate::model::RunFold::attempts_made`]).
    #[serde(default)]
    pub attempts_made: u32,
    /// Its outcome's message (masked, as recorded): `gave up after 3 attempts (503)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// One finished attempt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObservedAttempt {
    /// Start, ms since the run started (monotonic clock).
    pub offset_ms: f64,
    /// Duration, ms.
    pub duration_ms: f64,
    /// Its status or error kind.
    pub result: AttemptResult,
    /// The delay headers of its response (`Retry-After`, `RateLimit`, …; names as sent, values
    /// as sent), in response order; empty for a network error.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub delay_headers: Vec<(String, String)>,
}

/// An attempt's result: a response status or a network error kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptResult {
    /// An HTTP status.
    Status(u16),
    /// A classified network error (DESIGN.md §4).
    Error(ErrorKind),
}

impl AttemptResult {
    /// `503` or `reset`: the label figures group failures by.
    pub fn label(self) -> String {
        match self {
            Self::Status(s) => s.to_string(),
            Self::Error(k) => k.id().to_owned(),
        }
    }
}

/// An outcome's id as the history stores it (`succeeded`, `gave_up`, …); `unfinished` for none.
pub fn outcome_id(outcome: Option<OutcomeKind>) -> &'static str {
    outcome.map_or("unfinished", OutcomeKind::id)
}

impl ObservedRun {
    /// Whether the run ended `succeeded`.
    pub fn succeeded(&self) -> bool {
        self.outcome == Some(OutcomeKind::Succeeded)
    }

    /// Whether the run is a failure for the report: it ended without success for a reason
    /// that is the endpoint's or the policy's (`gave_up`, `stopped`, `deadline`, `error`). A
    /// cancelled or unfinished run is no evidence either way.
    pub fn failed(&self) -> bool {
        matches!(
            self.outcome,
            Some(
                OutcomeKind::GaveUp
                    | OutcomeKind::Stopped
                    | OutcomeKind::Deadline
                    | OutcomeKind::Error
            )
        )
    }

    /// Start as Unix ms.
    pub fn start_unix_ms(&self) -> i64 {
        self.started_at.timestamp_millis()
    }

    /// The end of its last attempt, ms since the start (0 without attempts): for a success,
    /// its time to success.
    pub fn last_attempt_end_ms(&self) -> f64 {
        self.attempts
            .last()
            .map_or(0.0, |a| a.offset_ms + a.duration_ms)
    }
}
