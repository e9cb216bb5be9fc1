//! One run's timeline: a pure fold of `RunEvent`s into attempt rows (DESIGN.md §6).
//!
//! What is kept is what was measured: offsets and durations from the events, `actual_ms` from
//! `WaitFinished`. The only planned figure shown is the wait in progress (planned ms plus a
//! countdown). No clock is read here: every `Instant` comes from the caller.

use super::attempt_row::{AttemptResult, AttemptRow, WaitRow};
use super::banner::Banner;
use crate::model::{RunEvent, RunId, RunOutcome};
use chrono::{DateTime, FixedOffset};
use std::time::Instant;

/// Where a run is right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Registered or between steps (no attempt in flight, no wait running), not finished.
    Starting,
    /// Attempt n is in flight.
    InFlight(u32),
    /// Wait n (before attempt n + 1) is running.
    Waiting(u32),
    /// `RunFinished` arrived.
    Finished,
}

/// The end of a run as folded from `RunFinished`.
#[derive(Debug, Clone, PartialEq)]
pub struct FinishedRun {
    /// The engine's outcome.
    pub outcome: RunOutcome,
    /// Attempts made.
    pub attempts: u32,
    /// Monotonic ms from run start to end.
    pub elapsed_ms: f64,
    /// The banner derived from the outcome.
    pub banner: Banner,
}

/// One run: header facts, attempt rows and the outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    run_id: RunId,
    title: String,
    seed: Option<u64>,
    profile: String,
    method: String,
    url: String,
    started_at: Option<DateTime<FixedOffset>>,
    tls_unverified: bool,
    attempts: Vec<AttemptRow>,
    finished: Option<FinishedRun>,
    /// Latest (monotonic ms since run start, when received) pair: maps `Instant`s to run time.
    anchor: Option<(f64, Instant)>,
}

impl Timeline {
    /// An empty timeline for run `run_id`; `title` labels its tab (e.g. `GET /status/503`).
    pub fn new(run_id: RunId, title: impl Into<String>) -> Self {
        Timeline {
            run_id,
            title: title.into(),
            seed: None,
            profile: String::new(),
            method: String::new(),
            url: String::new(),
            started_at: None,
            tls_unverified: false,
            attempts: Vec::new(),
            finished: None,
            anchor: None,
        }
    }

    /// Folds one event; `received` is when the UI got it. Events of other runs are ignored
    /// (returns false); so are events that refer to an attempt never started.
    pub fn apply(&mut self, event: &RunEvent, received: Instant) -> bool {
        if event.run_id() != self.run_id {
            return false;
        }
        match event {
            RunEvent::RunStarted {
                seed,
                profile,
                method,
                url,
                started_at,
                tls_unverified,
                ..
            } => {
                self.tls_unverified = *tls_unverified;
                self.seed = Some(*seed);
                self.profile.clone_from(profile);
                self.method.clone_from(method);
                self.url.clone_from(url);
                self.started_at = Some(*started_at);
                if self.title.is_empty() {
                    self.title = format!("{method} {}", url_path(url));
                }
                self.anchor = Some((0.0, received));
            }
            RunEvent::AttemptStarted {
                attempt,
                method,
                url,
                started_at,
                offset_ms,
                ..
            } => {
                let row = AttemptRow {
                    number: *attempt,
                    method: method.clone(),
                    url: url.clone(),
                    started_at: *started_at,
                    offset_ms: *offset_ms,
                    received,
                    result: None,
                    aborted_after_ms: None,
                    wait: None,
                    budget: Vec::new(),
                };
                match self.row_index(*attempt) {
                    Some(i) => self.attempts[i] = row,
                    None => self.attempts.push(row),
                }
                self.anchor = Some((*offset_ms, received));
            }
            RunEvent::AttemptFinished {
                attempt,
                outcome,
                hops,
                timings,
                verdict,
                ..
            } => {
                let Some(i) = self.row_index(*attempt) else {
                    return false;
                };
                let row = &mut self.attempts[i];
                row.result = Some(AttemptResult {
                    outcome: outcome.clone(),
                    hops: hops.clone(),
                    timings: *timings,
                    verdict: verdict.clone(),
                });
                self.anchor = Some((row.offset_ms + timings.total_ms, received));
            }
            RunEvent::BudgetChanged {
                attempt, change, ..
            } => {
                let Some(i) = self.row_index(*attempt) else {
                    return false;
                };
                self.attempts[i].budget.push(change.clone());
            }
            RunEvent::WaitScheduled {
                retry,
                planned_ms,
                explanation,
                offset_ms,
                ..
            } => {
                // Wait n follows attempt n.
                let Some(i) = self.row_index(*retry) else {
                    return false;
                };
                self.attempts[i].wait = Some(WaitRow {
                    retry: *retry,
                    planned_ms: *planned_ms,
                    explanation: explanation.clone(),
                    offset_ms: *offset_ms,
                    actual_ms: None,
                    skipped: false,
                    interrupted: false,
                    received,
                });
                self.anchor = Some((*offset_ms, received));
            }
            RunEvent::WaitFinished {
                retry,
                actual_ms,
                skipped,
                ..
            } => {
                let Some(wait) = self
                    .row_index(*retry)
                    .and_then(|i| self.attempts[i].wait.as_mut())
                else {
                    return false;
                };
                wait.actual_ms = Some(*actual_ms);
                wait.skipped = *skipped;
                self.anchor = Some((wait.offset_ms + actual_ms, received));
            }
            RunEvent::RunFinished {
                outcome,
                attempts,
                elapsed_ms,
                ..
            } => {
                // Close what the run's end cut short, at the measured end of the run.
                if let Some(last) = self.attempts.last_mut() {
                    if last.result.is_none() {
                        last.aborted_after_ms = Some((elapsed_ms - last.offset_ms).max(0.0));
                    }
                    if let Some(w) = last.wait.as_mut()
                        && w.actual_ms.is_none()
                    {
                        w.actual_ms = Some((elapsed_ms - w.offset_ms).max(0.0));
                        w.interrupted = true;
                    }
                }
                self.finished = Some(FinishedRun {
                    outcome: outcome.clone(),
                    attempts: *attempts,
                    elapsed_ms: *elapsed_ms,
                    banner: Banner::from_outcome(outcome, *attempts, *elapsed_ms),
                });
                self.anchor = Some((*elapsed_ms, received));
            }
        }
        true
    }

    /// Index of attempt `number` in [`Self::attempts`]; rows are in order, so this is usually
    /// `number - 1`.
    fn row_index(&self, number: u32) -> Option<usize> {
        let guess = (number as usize).checked_sub(1)?;
        if self.attempts.get(guess).is_some_and(|r| r.number == number) {
            return Some(guess);
        }
        // A new attempt (the usual case when a row is missing): no scan.
        if self.attempts.last().is_none_or(|r| r.number < number) {
            return None;
        }
        self.attempts.iter().rposition(|r| r.number == number)
    }

    /// Run id.
    pub fn run_id(&self) -> RunId {
        self.run_id
    }

    /// Tab title (from `add_run`, or `METHOD /path` from `RunStarted`).
    pub fn title(&self) -> &str {
        &self.title
    }

    /// Replaces the tab title.
    pub fn set_title(&mut self, title: impl Into<String>) {
        self.title = title.into();
    }

    /// Whether TLS certificates were not verified in this run.
    pub fn tls_unverified(&self) -> bool {
        self.tls_unverified
    }

    /// RNG seed, once `RunStarted` arrived.
    pub fn seed(&self) -> Option<u64> {
        self.seed
    }

    /// Profile name (empty before `RunStarted`).
    pub fn profile(&self) -> &str {
        &self.profile
    }

    /// Method of attempt 1 (empty before `RunStarted`).
    pub fn method(&self) -> &str {
        &self.method
    }

    /// URL of attempt 1 (empty before `RunStarted`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Wall-clock start with local offset, once `RunStarted` arrived.
    pub fn started_at(&self) -> Option<&DateTime<FixedOffset>> {
        self.started_at.as_ref()
    }

    /// Attempt rows in order.
    pub fn attempts(&self) -> &[AttemptRow] {
        &self.attempts
    }

    /// The end of the run, once `RunFinished` arrived.
    pub fn finished(&self) -> Option<&FinishedRun> {
        self.finished.as_ref()
    }

    /// True until `RunFinished` arrives.
    pub fn is_active(&self) -> bool {
        self.finished.is_none()
    }

    /// Where the run is now.
    pub fn phase(&self) -> Phase {
        if self.finished.is_some() {
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

    /// The wait in progress, if any.
    pub fn current_wait(&self) -> Option<&WaitRow> {
        match self.phase() {
            Phase::Waiting(_) => self.attempts.last().and_then(|r| r.wait.as_ref()),
            _ => None,
        }
    }

    /// Monotonic ms since run start at `now`: the latest event's offset plus the time since the
    /// UI received it (frozen at `elapsed_ms` once finished); `None` before any event.
    pub fn offset_at(&self, now: Instant) -> Option<f64> {
        let (offset, at) = self.anchor?;
        if self.finished.is_some() {
            return Some(offset);
        }
        Some(offset + now.saturating_duration_since(at).as_secs_f64() * 1000.0)
    }

    /// End of everything measured so far, ms since run start (last attempt end or wait end).
    pub fn measured_end_ms(&self) -> f64 {
        if let Some(f) = &self.finished {
            return f.elapsed_ms;
        }
        self.attempts.last().map_or(0.0, |r| {
            let attempt_end = r.end_offset_ms().unwrap_or(r.offset_ms);
            match &r.wait {
                Some(w) => w.offset_ms + w.actual_ms.unwrap_or(0.0),
                None => attempt_end,
            }
            .max(attempt_end)
        })
    }
}

/// The path and query of a URL (`http://h:1/status/503?x=1` → `/status/503?x=1`), or the URL.
pub(crate) fn url_path(url: &str) -> &str {
    url.split_once("://")
        .and_then(|(_, rest)| rest.find('/').map(|i| &rest[i..]))
        .unwrap_or(url)
}
