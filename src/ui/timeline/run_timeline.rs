//! One run's timeline in the window: the run's [`RunFold`] (the one fold of its masked events)
//! plus what only a live window needs: the tab title and when the latest event arrived, which
//! drives the now-line and the countdown. No clock is read here: every `Instant` comes from the
//! caller.

use super::banner::Banner;
pub use crate::model::Phase;
use crate::model::secrets::Masked;
use crate::model::{AttemptRow, RunEvent, RunFinish, RunFold, RunId, WaitRow};
use std::time::Instant;

/// The end of a run with its banner.
#[derive(Debug, Clone, PartialEq)]
pub struct FinishedRun {
    /// The fold's end: outcome, attempts, elapsed ms.
    pub finish: RunFinish,
    /// The banner derived from the outcome.
    pub banner: Banner,
}

impl std::ops::Deref for FinishedRun {
    type Target = RunFinish;
    fn deref(&self) -> &RunFinish {
        &self.finish
    }
}

/// The run time an event stands for (see [`Timeline::apply`]).
enum At {
    Offset(f64),
    AfterAttempt(u32, f64),
    AfterWait(u32, f64),
    Unchanged,
}

/// One run: its fold, tab title and the receive time of its latest event.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    fold: RunFold,
    title: String,
    finished: Option<FinishedRun>,
    /// Latest (monotonic ms since run start, when received) pair: maps `Instant`s to run time.
    anchor: Option<(f64, Instant)>,
}

impl Timeline {
    /// An empty timeline for run `run_id`; `title` labels its tab (e.g. `GET /status/503`).
    pub fn new(run_id: RunId, title: impl Into<String>) -> Self {
        Self::of_fold(RunFold::new(run_id), title)
    }

    /// The timeline of a run folded elsewhere (a past run read back from the history).
    pub fn of_fold(fold: RunFold, title: impl Into<String>) -> Self {
        let mut t = Timeline {
            fold,
            title: title.into(),
            finished: None,
            anchor: None,
        };
        t.settle(None);
        t
    }

    /// Folds one event; `received` is when the UI got it. Events of other runs are ignored
    /// (returns false); so are events that refer to an attempt never started.
    pub fn apply(&mut self, event: Masked<RunEvent>, received: Instant) -> bool {
        // The run time the event stands for: where the now-line is when it arrives.
        let at = match &*event {
            RunEvent::RunStarted { .. } => At::Offset(0.0),
            RunEvent::AttemptStarted { offset_ms, .. }
            | RunEvent::WaitScheduled { offset_ms, .. } => At::Offset(*offset_ms),
            RunEvent::RunFinished { elapsed_ms, .. } => At::Offset(*elapsed_ms),
            RunEvent::AttemptFinished {
                attempt, timings, ..
            } => At::AfterAttempt(*attempt, timings.total_ms),
            RunEvent::WaitFinished {
                retry, actual_ms, ..
            } => At::AfterWait(*retry, *actual_ms),
            RunEvent::BudgetChanged { .. } => At::Unchanged,
        };
        if !self.fold.apply(event) {
            return false;
        }
        let offset = match at {
            At::Offset(o) => Some(o),
            At::AfterAttempt(n, ms) => self.fold.row(n).map(|r| r.offset_ms + ms),
            At::AfterWait(n, ms) => self
                .fold
                .row(n)
                .and_then(|r| r.wait.as_ref())
                .map(|w| w.offset_ms + ms),
            At::Unchanged => None,
        };
        self.settle(offset.map(|o| (o, received)));
        true
    }

    /// Takes the title and the banner from the fold, and the new anchor if any.
    fn settle(&mut self, anchor: Option<(f64, Instant)>) {
        if let Some(a) = anchor {
            self.anchor = Some(a);
        }
        if self.title.is_empty()
            && let Some(h) = &self.fold.header
        {
            self.title = format!("{} {}", h.method, url_path(&h.url));
        }
        if self.finished.is_none()
            && let Some(f) = &self.fold.finish
        {
            self.finished = Some(FinishedRun {
                banner: Banner::from_outcome(&f.outcome, f.attempts, f.elapsed_ms),
                finish: f.clone(),
            });
        }
    }

    /// The run's fold.
    pub fn fold(&self) -> &RunFold {
        &self.fold
    }

    /// Run id.
    pub fn run_id(&self) -> RunId {
        self.fold.run_id()
    }

    /// Tab title (from `add_run`, or `METHOD /path` from `RunStarted`).
    pub fn title(&self) -> &str {
        &self.title
    }

    /// Replaces the tab title.
    pub fn set_title(&mut self, title: impl Into<String>) {
        self.title = title.into();
    }

    /// URL of attempt 1 (empty before `RunStarted`).
    pub fn url(&self) -> &str {
        self.fold.header.as_ref().map_or("", |h| &h.url)
    }

    /// True when the run was sent without verifying the server's TLS certificate.
    pub fn tls_unverified(&self) -> bool {
        self.fold.header.as_ref().is_some_and(|h| h.tls_unverified)
    }

    /// Attempt rows in order.
    pub fn attempts(&self) -> &[AttemptRow] {
        &self.fold.attempts
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
        self.fold.phase()
    }

    /// The wait in progress, if any.
    pub fn current_wait(&self) -> Option<&WaitRow> {
        match self.phase() {
            Phase::Waiting(_) => self.attempts().last().and_then(|r| r.wait.as_ref()),
            _ => None,
        }
    }

    /// Ms left of `wait`'s planned length at `now` (0 when over), counted from when the UI
    /// received its `WaitScheduled`; `None` once it has finished.
    pub fn remaining_ms(&self, wait: &WaitRow, now: Instant) -> Option<f64> {
        wait.remaining_ms(self.offset_at(now).unwrap_or(wait.offset_ms))
    }

    /// Monotonic ms since run start at `now`: the latest event's offset plus the time since the
    /// UI received it (frozen at `elapsed_ms` once finished); `None` before any event.
    pub fn offset_at(&self, now: Instant) -> Option<f64> {
        if let Some(f) = &self.finished {
            return Some(f.elapsed_ms);
        }
        let (offset, at) = self.anchor?;
        Some(offset + now.saturating_duration_since(at).as_secs_f64() * 1000.0)
    }

    /// End of everything measured so far, ms since run start (last attempt end or wait end).
    pub fn measured_end_ms(&self) -> f64 {
        self.fold.measured_end_ms()
    }
}

/// The path and query of a URL (`http://h:1/status/503?x=1` → `/status/503?x=1`), or the URL.
pub(crate) fn url_path(url: &str) -> &str {
    url.split_once("://")
        .and_then(|(_, rest)| rest.find('/').map(|i| &rest[i..]))
        .unwrap_or(url)
}
