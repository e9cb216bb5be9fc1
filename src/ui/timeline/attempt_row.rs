//! One row of the timeline table: an attempt and the wait that followed it.

use crate::model::{AttemptOutcome, BudgetChange, Hop, Timings, Verdict, WaitExplanation};
use chrono::{DateTime, FixedOffset};
use std::time::Instant;

/// What came back from a finished attempt, exactly as `AttemptFinished` reported it.
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptResult {
    /// Response or classified network error (the full outcome, for the detail pane).
    pub outcome: AttemptOutcome,
    /// Redirect hops followed before the final response.
    pub hops: Vec<Hop>,
    /// Measured timings, ms on the engine's monotonic clock.
    pub timings: Timings,
    /// Triage verdict on this outcome.
    pub verdict: Verdict,
}

/// How an attempt is drawn and coloured (plot bars, table status).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttemptClass {
    /// No outcome yet.
    InFlight,
    /// The run ended while the attempt was in flight (grey).
    Aborted,
    /// Verdict `success` (green).
    Success,
    /// A response that triage marked retryable (amber).
    Retryable,
    /// A response that triage stopped on (red).
    Stopped,
    /// A network error, retried or not (purple).
    NetworkError,
}

/// The wait that followed an attempt (wait n follows attempt n, DESIGN.md §1).
#[derive(Debug, Clone, PartialEq)]
pub struct WaitRow {
    /// Retry number n this wait precedes.
    pub retry: u32,
    /// Planned wait, ms (from `WaitScheduled`).
    pub planned_ms: u64,
    /// Why the wait is as long as it is; `explanation.text` is shown verbatim.
    pub explanation: WaitExplanation,
    /// Monotonic ms since run start when the wait began (from `WaitScheduled`).
    pub offset_ms: f64,
    /// Measured wait on the monotonic clock, ms (from `WaitFinished`); `None` while waiting.
    pub actual_ms: Option<f64>,
    /// True when the user pressed "Retry now".
    pub skipped: bool,
    /// True when the run ended during this wait (cancel, deadline) without `WaitFinished`;
    /// `actual_ms` is then the run's `elapsed_ms` minus `offset_ms`.
    pub interrupted: bool,
    /// When the UI received `WaitScheduled` (drives the countdown).
    pub received: Instant,
}

impl WaitRow {
    /// Ms left of the planned wait at `now` (0 when over), counted from when the UI received
    /// `WaitScheduled`; `None` once the wait has finished.
    pub fn remaining_ms(&self, now: Instant) -> Option<f64> {
        if self.actual_ms.is_some() {
            return None;
        }
        let elapsed = now.saturating_duration_since(self.received).as_secs_f64() * 1000.0;
        Some((self.planned_ms as f64 - elapsed).max(0.0))
    }
}

/// One attempt as measured: start, result (once finished) and the wait after it (if any).
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptRow {
    /// Attempt number, 1-based.
    pub number: u32,
    /// Method sent.
    pub method: String,
    /// URL sent.
    pub url: String,
    /// Wall-clock start with the local offset.
    pub started_at: DateTime<FixedOffset>,
    /// Monotonic ms since run start when the attempt began.
    pub offset_ms: f64,
    /// When the UI received `AttemptStarted` (drives the in-flight bar).
    pub received: Instant,
    /// The result, `None` while in flight (and for an aborted attempt).
    pub result: Option<AttemptResult>,
    /// Set when the run ended while this attempt was in flight without `AttemptFinished`
    /// (cancel, deadline): the run's `elapsed_ms` minus `offset_ms`.
    pub aborted_after_ms: Option<f64>,
    /// The wait after this attempt, when one was scheduled.
    pub wait: Option<WaitRow>,
    /// Retry budget changes this attempt's outcome caused (`BudgetChanged`), in order: the
    /// charge for the retry after it, a refusal, a refund or a success increment.
    pub budget: Vec<BudgetChange>,
}

impl AttemptRow {
    /// Colour class: from the verdict, except network errors which are always `NetworkError`.
    pub fn class(&self) -> AttemptClass {
        match &self.result {
            None if self.aborted_after_ms.is_some() => AttemptClass::Aborted,
            None => AttemptClass::InFlight,
            Some(r) => match (&r.outcome, &r.verdict) {
                (AttemptOutcome::Error(_), _) => AttemptClass::NetworkError,
                (_, Verdict::Success { .. }) => AttemptClass::Success,
                (_, Verdict::Retry { .. }) => AttemptClass::Retryable,
                (_, Verdict::Stop { .. }) => AttemptClass::Stopped,
            },
        }
    }

    /// Measured duration, ms (`timings.total_ms`, or until the run ended for an aborted
    /// attempt); `None` while in flight.
    pub fn duration_ms(&self) -> Option<f64> {
        self.result
            .as_ref()
            .map(|r| r.timings.total_ms)
            .or(self.aborted_after_ms)
    }

    /// Monotonic ms since run start when the attempt ended; `None` while in flight.
    pub fn end_offset_ms(&self) -> Option<f64> {
        self.duration_ms().map(|d| self.offset_ms + d)
    }

    /// Status code or error kind (`503`, `error: connect`); `in flight` before the result.
    pub fn result_label(&self) -> String {
        match &self.result {
            None if self.aborted_after_ms.is_some() => "aborted".to_owned(),
            None => "in flight".to_owned(),
            Some(r) => match &r.outcome {
                AttemptOutcome::Response(resp) => resp.status.to_string(),
                AttemptOutcome::Error(e) => format!("error: {}", e.kind),
            },
        }
    }

    /// Body size that arrived, bytes; `None` for errors and in-flight attempts.
    pub fn response_bytes(&self) -> Option<u64> {
        match &self.result.as_ref()?.outcome {
            AttemptOutcome::Response(resp) => Some(resp.body.total_bytes),
            AttemptOutcome::Error(_) => None,
        }
    }

    /// The budget's tokens around this attempt, `tokens 500 → 486`, or `None` without changes
    /// (first change's `before` → last change's `after`).
    pub fn budget_label(&self) -> Option<String> {
        let (first, last) = (self.budget.first()?, self.budget.last()?);
        Some(format!(
            "tokens {} → {}",
            crate::policy::tokens_text(first.before),
            crate::policy::tokens_text(last.after)
        ))
    }

    /// Verdict as short text: `success`, `success: /state is "done"` (the `success_when`
    /// condition that held), `retry: 503 is retryable`, `stop: 404 is not retryable`.
    pub fn verdict_label(&self) -> String {
        self.result
            .as_ref()
            .map(|r| r.verdict.label())
            .unwrap_or_default()
    }
}
