//! One run's log folded into rows (DESIGN.md §11 "Run log"): the header facts, one row per
//! attempt with the wait that followed it, and the end.
//!
//! The one fold of [`RunEvent`]s: a pure function of masked events (no clock, no I/O). Every
//! view of a run reads a [`RunFold`] — the window's timeline, the CLI's text timeline, the
//! attempts CSV, HAR, events JSON, the PNG plot and the history record — whether the run is
//! live or read back from the history ([`RunFold::from_rows`]).
//!
//! What is kept is what was measured: offsets and durations from the events, the measured wait
//! from `WaitFinished`. A run that ended with an attempt in flight or a wait running closes them
//! at its end (`aborted_after_ms`, a wait `interrupted`); for an [`OutcomeKind::Interrupted`]
//! run (its process ended) that end is only how far the records reach, so views say the length
//! is unknown.

use super::attempt::{AttemptOutcome, Hop, Timings, Verdict};
use super::budget::BudgetChange;
use super::event::{OutcomeKind, RunEvent, RunId, RunOutcome, WaitExplanation};
use super::secrets::Masked;
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

/// The run's own facts, from `RunStarted`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunHeader {
    /// RNG seed in use (replay with `--seed`).
    pub seed: u64,
    /// Profile name.
    pub profile: String,
    /// Method of attempt 1.
    pub method: String,
    /// URL of attempt 1 (masked).
    pub url: String,
    /// Wall-clock start with local offset.
    pub started_at: DateTime<FixedOffset>,
    /// True when TLS certificates were not verified in this run.
    #[serde(default)]
    pub tls_unverified: bool,
}

/// What came back from a finished attempt, as `AttemptFinished` reported it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptResult {
    /// Response (secret headers masked) or classified network error.
    pub outcome: AttemptOutcome,
    /// Redirect hops followed before the final response.
    pub hops: Vec<Hop>,
    /// Measured timings, ms on the engine's monotonic clock.
    pub timings: Timings,
    /// Triage verdict on this outcome.
    pub verdict: Verdict,
}

/// How an attempt is drawn and coloured (plot bars, table status, PNG).
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitRow {
    /// Retry number n this wait precedes.
    pub retry: u32,
    /// Planned wait, ms (from `WaitScheduled`).
    pub planned_ms: u64,
    /// Why the wait is as long as it is; `explanation.text` is shown verbatim.
    pub explanation: WaitExplanation,
    /// Monotonic ms since run start when the wait began.
    pub offset_ms: f64,
    /// Measured wait on the monotonic clock, ms (from `WaitFinished`, or until the run's end
    /// for a wait the run ended in); `None` while waiting.
    pub actual_ms: Option<f64>,
    /// True when the user pressed "Retry now".
    pub skipped: bool,
    /// True when the run ended during this wait (cancel, deadline, process ended) without
    /// `WaitFinished`.
    #[serde(default)]
    pub interrupted: bool,
}

impl WaitRow {
    /// Ms left of the planned wait when the run is `now_ms` ms old (0 when over); `None` once
    /// the wait has finished.
    pub fn remaining_ms(&self, now_ms: f64) -> Option<f64> {
        if self.actual_ms.is_some() {
            return None;
        }
        Some((self.planned_ms as f64 - (now_ms - self.offset_ms)).max(0.0))
    }
}

/// One attempt as measured: start, result (once finished) and the wait after it (if any).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptRow {
    /// Attempt number, 1-based.
    pub number: u32,
    /// Method sent.
    pub method: String,
    /// URL sent (masked).
    pub url: String,
    /// Wall-clock start with the local offset.
    pub started_at: DateTime<FixedOffset>,
    /// Monotonic ms since run start when the attempt began.
    pub offset_ms: f64,
    /// The result, `None` while in flight (and for an attempt the run's end cut off).
    #[serde(flatten)]
    pub result: Option<AttemptResult>,
    /// Set when the run ended while this attempt was in flight: the run's `elapsed_ms` minus
    /// `offset_ms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aborted_after_ms: Option<f64>,
    /// The wait after this attempt, when one was scheduled.
    pub wait: Option<WaitRow>,
    /// Retry budget changes this attempt's outcome caused (`BudgetChanged`), in order: the
    /// charge for the retry after it, a refusal, a refund or a success increment.
    #[serde(default)]
    pub budget: Vec<BudgetChange>,
}

impl AttemptRow {
    /// A row for an attempt that has just started.
    pub fn started(
        number: u32,
        method: String,
        url: String,
        started_at: DateTime<FixedOffset>,
        offset_ms: f64,
    ) -> Self {
        Self {
            number,
            method,
            url,
            started_at,
            offset_ms,
            result: None,
            aborted_after_ms: None,
            wait: None,
            budget: Vec::new(),
        }
    }

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

    /// The status (`503`) or error kind (`connect`); `None` without a result.
    pub fn short_label(&self) -> Option<String> {
        self.result.as_ref().map(|r| r.outcome.label())
    }

    /// Status code or error kind (`503`, `error: connect`); `in flight` or `aborted` before
    /// a result.
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

    /// The budget's tokens before this attempt's first change and after its last.
    pub fn budget_span(&self) -> Option<(f64, f64)> {
        Some((self.budget.first()?.before, self.budget.last()?.after))
    }

    /// The budget's tokens around this attempt, `tokens 500 → 486`, or `None` without changes.
    pub fn budget_label(&self) -> Option<String> {
        let (before, after) = self.budget_span()?;
        Some(format!(
            "tokens {} → {}",
            crate::policy::tokens_text(before),
            crate::policy::tokens_text(after)
        ))
    }

    /// Verdict as short text ([`Verdict::label`]); empty without a result.
    pub fn verdict_label(&self) -> String {
        self.result
            .as_ref()
            .map(|r| r.verdict.label())
            .unwrap_or_default()
    }
}

/// The end of a run, from `RunFinished` (or, for a run read back from the history, from its
/// record).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunFinish {
    /// How it ended, with the banner text.
    pub outcome: RunOutcome,
    /// Attempts made.
    pub attempts: u32,
    /// Monotonic ms from run start to end; for an [`OutcomeKind::Interrupted`] run how far its
    /// records reach (it lasted at least this long).
    pub elapsed_ms: f64,
}

impl RunFinish {
    /// Whether the end was measured (not a run whose process ended).
    pub fn measured(&self) -> bool {
        self.outcome.kind != OutcomeKind::Interrupted
    }
}

/// Where a run is right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Registered or between steps (no attempt in flight, no wait running), not finished.
    Starting,
    /// Attempt n is in flight.
    InFlight(u32),
    /// Wait n (before attempt n + 1) is running.
    Waiting(u32),
    /// The run ended.
    Finished,
}

/// One run's events folded into its header, attempt rows and end.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunFold {
    run_id: RunId,
    /// From `RunStarted`; `None` before it.
    pub header: Option<RunHeader>,
    /// Attempt rows in order.
    pub attempts: Vec<AttemptRow>,
    /// From `RunFinished`; `None` while the run goes on.
    pub finish: Option<RunFinish>,
}

impl RunFold {
    /// An empty fold for run `run_id`.
    pub fn new(run_id: RunId) -> Self {
        Self {
            run_id,
            ..Self::default()
        }
    }

    /// The fold of `events` (those of run `run_id`).
    pub fn of_events(run_id: RunId, events: impl IntoIterator<Item = Masked<RunEvent>>) -> Self {
        let mut fold = Self::new(run_id);
        for e in events {
            fold.apply(e);
        }
        fold
    }

    /// A run read back from its parts (the history's records, masked when they were recorded):
    /// `rows` in order; a `finish` closes an attempt or wait left open as `RunFinished` would.
    pub fn from_rows(
        run_id: RunId,
        header: RunHeader,
        attempts: Vec<AttemptRow>,
        finish: Option<RunFinish>,
    ) -> Self {
        let mut fold = Self {
            run_id,
            header: Some(header),
            attempts,
            finish: None,
        };
        if let Some(f) = finish {
            fold.end(f);
        }
        fold
    }

    /// Attempts made: every attempt that started counts, finished or cut off (as the engine
    /// counts them in `RunFinished`, and the history once it marks a run interrupted).
    pub fn attempts_made(&self) -> u32 {
        let started = self.attempts.last().map_or(0, |row| row.number);
        started.max(self.finish.as_ref().map_or(0, |f| f.attempts))
    }

    /// Run id.
    pub fn run_id(&self) -> RunId {
        self.run_id
    }

    /// The same fold as run `run_id` (a past run opened in the window gets a fresh number).
    #[must_use]
    pub fn renumbered(mut self, run_id: RunId) -> Self {
        self.run_id = run_id;
        self
    }

    /// Folds one event. Events of other runs are ignored (returns false); so are events that
    /// refer to an attempt never started.
    pub fn apply(&mut self, event: Masked<RunEvent>) -> bool {
        if event.run_id() != self.run_id {
            return false;
        }
        match event.into_inner() {
            RunEvent::RunStarted {
                seed,
                profile,
                method,
                url,
                started_at,
                tls_unverified,
                ..
            } => {
                self.header = Some(RunHeader {
                    seed,
                    profile,
                    method,
                    url,
                    started_at,
                    tls_unverified,
                });
            }
            RunEvent::AttemptStarted {
                attempt,
                method,
                url,
                started_at,
                offset_ms,
                ..
            } => {
                let row = AttemptRow::started(attempt, method, url, started_at, offset_ms);
                match self.row_index(attempt) {
                    Some(i) => self.attempts[i] = row,
                    None => self.attempts.push(row),
                }
            }
            RunEvent::AttemptFinished {
                attempt,
                outcome,
                hops,
                timings,
                verdict,
                ..
            } => {
                let Some(row) = self.row_mut(attempt) else {
                    return false;
                };
                row.result = Some(AttemptResult {
                    outcome,
                    hops,
                    timings,
                    verdict,
                });
            }
            RunEvent::BudgetChanged {
                attempt, change, ..
            } => {
                let Some(row) = self.row_mut(attempt) else {
                    return false;
                };
                row.budget.push(change);
            }
            RunEvent::WaitScheduled {
                retry,
                planned_ms,
                explanation,
                offset_ms,
                ..
            } => {
                // Wait n follows attempt n.
                let Some(row) = self.row_mut(retry) else {
                    return false;
                };
                row.wait = Some(WaitRow {
                    retry,
                    planned_ms,
                    explanation,
                    offset_ms,
                    actual_ms: None,
                    skipped: false,
                    interrupted: false,
                });
            }
            RunEvent::WaitFinished {
                retry,
                actual_ms,
                skipped,
                ..
            } => {
                let Some(wait) = self.row_mut(retry).and_then(|r| r.wait.as_mut()) else {
                    return false;
                };
                wait.actual_ms = Some(actual_ms);
                wait.skipped = skipped;
            }
            RunEvent::RunFinished {
                outcome,
                attempts,
                elapsed_ms,
                ..
            } => self.end(RunFinish {
                outcome,
                attempts,
                elapsed_ms,
            }),
        }
        true
    }

    /// Ends the run as `RunFinished` does: what its end cut short (an attempt in flight, a
    /// running wait) is closed at `finish.elapsed_ms`.
    pub fn end(&mut self, finish: RunFinish) {
        let end = finish.elapsed_ms;
        if let Some(last) = self.attempts.last_mut() {
            if last.result.is_none() {
                last.aborted_after_ms = Some((end - last.offset_ms).max(0.0));
            }
            if let Some(w) = last.wait.as_mut()
                && w.actual_ms.is_none()
            {
                w.actual_ms = Some((end - w.offset_ms).max(0.0));
                w.interrupted = true;
            }
        }
        self.finish = Some(finish);
    }

    /// Drops every row but the last (a consumer that only needs the row in progress, such as
    /// the history recorder, keeps its memory flat over a long run).
    pub fn keep_last_row(&mut self) {
        let n = self.attempts.len();
        if n > 1 {
            self.attempts.drain(..n - 1);
        }
    }

    /// Index of attempt `number` in [`Self::attempts`] (rows are in order).
    fn row_index(&self, number: u32) -> Option<usize> {
        let first = self.attempts.first()?.number;
        let guess = number.checked_sub(first)? as usize;
        if self.attempts.get(guess).is_some_and(|r| r.number == number) {
            return Some(guess);
        }
        // A new attempt (the usual case when a row is missing): no scan.
        if self.attempts.last().is_none_or(|r| r.number < number) {
            return None;
        }
        self.attempts.iter().rposition(|r| r.number == number)
    }

    fn row_mut(&mut self, number: u32) -> Option<&mut AttemptRow> {
        let i = self.row_index(number)?;
        self.attempts.get_mut(i)
    }

    /// Row of attempt `number`, if it started.
    pub fn row(&self, number: u32) -> Option<&AttemptRow> {
        self.attempts.get(self.row_index(number)?)
    }

    /// Where the run is now.
    pub fn phase(&self) -> Phase {
        if self.finish.is_some() {
            return Phase::Finished;
        }
        match self.attempts.last() {
            Some(row) if row.result.is_none() => Phase::InFlight(row.number),
            Some(row) => match &row.wait {
                Some(w) if w.actual_ms.is_none() => Phase::Waiting(w.retry),
                _ => Phase::Starting,
            },
            None => Phase::Starting,
        }
    }

    /// End of everything measured so far, ms since run start: the run's end once finished,
    /// else the end of the last attempt or wait.
    pub fn measured_end_ms(&self) -> f64 {
        if let Some(f) = &self.finish {
            return f.elapsed_ms;
        }
        self.attempts.last().map_or(0.0, row_end_ms)
    }

    /// The last moment the rows reach, ms from the run's start: the end of the last finished
    /// attempt or measured wait, the start of a wait that never ended, or the start of an
    /// attempt that has no result. For a run whose process died this is all that is known of
    /// its length: it lasted at least this long.
    pub fn recorded_until_ms(&self) -> f64 {
        self.attempts.iter().map(row_end_ms).fold(0.0, f64::max)
    }

    /// The fold as the events it was folded from, in order, for views that print events
    /// (events JSON). A wait or attempt the run's end closed has no event of its own. Costs a
    /// masking pass per event.
    pub fn events(&self) -> Vec<Masked<RunEvent>> {
        let run_id = self.run_id;
        let mut out = Vec::new();
        if let Some(h) = &self.header {
            out.push(RunEvent::RunStarted {
                run_id,
                seed: h.seed,
                profile: h.profile.clone(),
                method: h.method.clone(),
                url: h.url.clone(),
                started_at: h.started_at,
                tls_unverified: h.tls_unverified,
            });
        }
        for row in &self.attempts {
            out.push(RunEvent::AttemptStarted {
                run_id,
                attempt: row.number,
                method: row.method.clone(),
                url: row.url.clone(),
                started_at: row.started_at,
                offset_ms: row.offset_ms,
            });
            if let Some(r) = &row.result {
                out.push(RunEvent::AttemptFinished {
                    run_id,
                    attempt: row.number,
                    outcome: r.outcome.clone(),
                    hops: r.hops.clone(),
                    timings: r.timings,
                    verdict: r.verdict.clone(),
                });
            }
            out.extend(row.budget.iter().map(|change| RunEvent::BudgetChanged {
                run_id,
                attempt: row.number,
                change: change.clone(),
            }));
            if let Some(w) = &row.wait {
                out.push(RunEvent::WaitScheduled {
                    run_id,
                    retry: w.retry,
                    planned_ms: w.planned_ms,
                    explanation: w.explanation.clone(),
                    offset_ms: w.offset_ms,
                });
                if let (Some(actual_ms), false) = (w.actual_ms, w.interrupted) {
                    out.push(RunEvent::WaitFinished {
                        run_id,
                        retry: w.retry,
                        planned_ms: w.planned_ms,
                        actual_ms,
                        skipped: w.skipped,
                    });
                }
            }
        }
        if let Some(f) = &self.finish {
            out.push(RunEvent::RunFinished {
                run_id,
                outcome: f.outcome.clone(),
                attempts: f.attempts,
                elapsed_ms: f.elapsed_ms,
            });
        }
        // Made of masked rows: masking again changes nothing, and keeps `Masked` the rule's own.
        out.into_iter()
            .map(|e| super::secrets::mask_event(e, &[]))
            .collect()
    }
}

/// The last moment row `r` reaches, ms from the run's start (its attempt's end, or its start
/// without a result; its wait's end, or its start while it runs).
fn row_end_ms(r: &AttemptRow) -> f64 {
    let attempt_end = r.end_offset_ms().unwrap_or(r.offset_ms);
    r.wait.as_ref().map_or(attempt_end, |w| {
        attempt_end.max(w.offset_ms + w.actual_ms.unwrap_or(0.0))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::OutcomeKind;
    use crate::testkit::{EventScript, response, retry};

    fn script() -> EventScript {
        let start =
            chrono::DateTime::parse_from_rfc3339("2026-12-01T10:00:00+00:00").expect("valid date");
        EventScript::new(1, "GET", "http://127.0.0.1:9/x", start)
    }

    #[test]
    fn a_run_cut_off_in_a_wait_closes_it_at_the_end_and_the_events_come_back() {
        let s = script()
            .attempt(response(503, &[], ""), retry("503 is retryable"), 2.0)
            .schedule_wait(5000)
            .idle(940.25)
            .finish(OutcomeKind::Cancelled, "cancelled", Some(503));
        let fold = s.fold();
        let wait = fold.attempts[0].wait.as_ref().expect("a wait");
        assert_eq!(wait.actual_ms, Some(940.25));
        assert!(wait.interrupted);
        assert_eq!(fold.phase(), Phase::Finished);
        let again = RunFold::of_events(1, fold.events());
        assert_eq!(again, fold, "the events fold back to the same rows");
    }

    #[test]
    fn events_of_other_runs_and_unknown_attempts_are_ignored() {
        let mut fold = RunFold::new(2);
        let s = script().attempt(response(200, &[], ""), Verdict::SUCCESS, 1.0);
        for e in s.masked_events() {
            assert!(!fold.apply(e));
        }
        let mut fold = RunFold::new(1);
        let finished = s
            .masked_events()
            .into_iter()
            .nth(2)
            .expect("attempt finished");
        assert!(!fold.apply(finished), "no row for it");
    }

    #[test]
    fn keeping_the_last_row_still_folds_its_wait() {
        let s = script()
            .attempt(response(503, &[], ""), retry("503 is retryable"), 2.0)
            .wait(10, 10.0)
            .attempt(response(503, &[], ""), retry("503 is retryable"), 2.0)
            .wait(20, 21.0);
        let mut fold = RunFold::new(1);
        for e in s.masked_events() {
            assert!(fold.apply(e));
            fold.keep_last_row();
        }
        assert_eq!(fold.attempts.len(), 1);
        assert_eq!(
            fold.attempts[0].wait.as_ref().and_then(|w| w.actual_ms),
            Some(21.0)
        );
    }
}
