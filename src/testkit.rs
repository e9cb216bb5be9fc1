//! Test fixtures, not part of the product: builds realistic `RunEvent` sequences with exact
//! offsets, so tests and benchmarks of every layer (timeline, store, exports) can feed a run
//! without an engine, and [`ScriptedDialogs`], file pickers that answer from a script. Nothing
//! in the product calls it; it sits at the top of the library, apart from `ui/`, because store
//! and interop tests use it too.

use crate::model::secrets::{self, Masked};
use crate::model::{
    AttemptOutcome, BodyPreview, ErrorKind, NetError, OutcomeKind, ResponseSummary, RunEvent,
    RunFold, RunId, RunOutcome, Strategy, Timings, Verdict, WaitExplanation,
};
use crate::ui::file_dialogs::{DialogAnswer, DialogPurpose, DialogReply, FileDialogs};
use chrono::{DateTime, Duration as ChronoDuration, FixedOffset};
use std::collections::VecDeque;
use std::path::PathBuf;

/// One event plus when the UI receives it, ms after the run started.
pub type TimedEvent = (RunEvent, f64);

/// A run written step by step: each step appends the events the engine would send, with
/// offsets that follow from the given durations (`attempt` then `wait` then `attempt` …).
#[derive(Debug, Clone)]
pub struct EventScript {
    run_id: RunId,
    started_at: DateTime<FixedOffset>,
    method: String,
    url: String,
    /// Monotonic ms since run start of the end of the last step.
    clock_ms: f64,
    attempts: u32,
    events: Vec<TimedEvent>,
}

impl EventScript {
    /// Starts run `run_id` (`RunStarted` with seed 7 and profile `exponential`) at wall-clock
    /// `started_at`.
    pub fn new(run_id: RunId, method: &str, url: &str, started_at: DateTime<FixedOffset>) -> Self {
        let start = RunEvent::RunStarted {
            run_id,
            seed: 7,
            profile: "exponential".to_owned(),
            method: method.to_owned(),
            url: url.to_owned(),
            started_at,
            tls_unverified: false,
        };
        EventScript {
            run_id,
            started_at,
            method: method.to_owned(),
            url: url.to_owned(),
            clock_ms: 0.0,
            attempts: 0,
            events: vec![(start, 0.0)],
        }
    }

    /// Starts the next attempt now (`AttemptStarted`), leaving it in flight.
    #[must_use]
    pub fn start_attempt(mut self) -> Self {
        self.attempts += 1;
        #[allow(
            clippy::cast_possible_truncation,
            reason = "a scripted clock in ms, far below 2^53 µs"
        )]
        let started_at =
            self.started_at + ChronoDuration::microseconds((self.clock_ms * 1000.0) as i64);
        self.push(RunEvent::AttemptStarted {
            run_id: self.run_id,
            attempt: self.attempts,
            method: self.method.clone(),
            url: self.url.clone(),
            started_at,
            offset_ms: self.clock_ms,
        });
        self
    }

    /// Finishes the attempt in flight after `duration_ms` (`AttemptFinished`).
    #[must_use]
    pub fn finish_attempt(
        mut self,
        outcome: AttemptOutcome,
        verdict: Verdict,
        duration_ms: f64,
    ) -> Self {
        self.clock_ms += duration_ms;
        self.push(RunEvent::AttemptFinished {
            run_id: self.run_id,
            attempt: self.attempts,
            outcome,
            hops: Vec::new(),
            timings: Timings {
                resolve_ms: None,
                headers_ms: Some(duration_ms * 0.8),
                total_ms: duration_ms,
                ..Timings::default()
            },
            verdict,
        });
        self
    }

    /// Finishes the attempt in flight with measured `timings` (phases and all); it lasts
    /// `timings.total_ms`.
    #[must_use]
    pub fn finish_attempt_timed(
        mut self,
        outcome: AttemptOutcome,
        verdict: Verdict,
        timings: Timings,
    ) -> Self {
        self.clock_ms += timings.total_ms;
        self.push(RunEvent::AttemptFinished {
            run_id: self.run_id,
            attempt: self.attempts,
            outcome,
            hops: Vec::new(),
            timings,
            verdict,
        });
        self
    }

    /// A whole attempt: started now, finished after `duration_ms`.
    #[must_use]
    pub fn attempt(self, outcome: AttemptOutcome, verdict: Verdict, duration_ms: f64) -> Self {
        self.start_attempt()
            .finish_attempt(outcome, verdict, duration_ms)
    }

    /// Schedules wait n (n = attempts so far) of `planned_ms` (`WaitScheduled`), leaving it running.
    #[must_use]
    pub fn schedule_wait(mut self, planned_ms: u64) -> Self {
        let retry = self.attempts;
        self.push(RunEvent::WaitScheduled {
            run_id: self.run_id,
            retry,
            planned_ms,
            explanation: fixed_explanation(retry, planned_ms),
            offset_ms: self.clock_ms,
        });
        self
    }

    /// Ends the running wait after `actual_ms` (`WaitFinished`); `skipped` for "Retry now".
    #[must_use]
    pub fn end_wait(mut self, planned_ms: u64, actual_ms: f64, skipped: bool) -> Self {
        self.clock_ms += actual_ms;
        self.push(RunEvent::WaitFinished {
            run_id: self.run_id,
            retry: self.attempts,
            planned_ms,
            actual_ms,
            skipped,
        });
        self
    }

    /// A whole wait: scheduled for `planned_ms`, measured at `actual_ms`.
    #[must_use]
    pub fn wait(self, planned_ms: u64, actual_ms: f64) -> Self {
        self.schedule_wait(planned_ms)
            .end_wait(planned_ms, actual_ms, false)
    }

    /// Lets `ms` pass with no event (e.g. before a cancel arrives).
    #[must_use]
    pub fn idle(mut self, ms: f64) -> Self {
        self.clock_ms += ms;
        self
    }

    /// Ends the run now (`RunFinished`) with the engine's lowercase `message`.
    #[must_use]
    pub fn finish(mut self, kind: OutcomeKind, message: &str, last_status: Option<u16>) -> Self {
        self.push(RunEvent::RunFinished {
            run_id: self.run_id,
            outcome: RunOutcome {
                kind,
                message: message.to_owned(),
                last_status,
            },
            attempts: self.attempts,
            elapsed_ms: self.clock_ms,
        });
        self
    }

    /// The events with their receipt times, ms after the run started.
    pub fn events(&self) -> &[TimedEvent] {
        &self.events
    }

    /// The events, masked (no secret values), in order.
    pub fn masked_events(&self) -> Vec<Masked<RunEvent>> {
        self.events
            .iter()
            .map(|(e, _)| secrets::mask_event(e.clone(), &[]))
            .collect()
    }

    /// The masked events with their receipt times, ms after the run started.
    pub fn timed(&self) -> Vec<(Masked<RunEvent>, f64)> {
        self.events
            .iter()
            .map(|(e, ms)| (secrets::mask_event(e.clone(), &[]), *ms))
            .collect()
    }

    /// The run as folded so far.
    pub fn fold(&self) -> RunFold {
        RunFold::of_events(self.run_id, self.masked_events())
    }

    /// Monotonic ms since run start at the end of the last step.
    pub fn clock_ms(&self) -> f64 {
        self.clock_ms
    }

    fn push(&mut self, event: RunEvent) {
        self.events.push((event, self.clock_ms));
    }
}

/// A response with `status`, `HTTP/1.1`, the given headers and a UTF-8 body.
pub fn response(status: u16, headers: &[(&str, &str)], body: &str) -> AttemptOutcome {
    AttemptOutcome::Response(summary(status, headers, body))
}

/// [`response`]'s summary.
pub fn summary(status: u16, headers: &[(&str, &str)], body: &str) -> ResponseSummary {
    ResponseSummary {
        status,
        reason: reason_phrase(status).to_owned(),
        version: "HTTP/1.1".to_owned(),
        headers: headers
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect(),
        body: BodyPreview {
            bytes: body.as_bytes().to_vec(),
            total_bytes: body.len() as u64,
            truncated: false,
        },
    }
}

/// A classified network error.
pub fn net_error(kind: ErrorKind, message: &str) -> AttemptOutcome {
    AttemptOutcome::Error(NetError {
        kind,
        message: message.to_owned(),
        dns: None,
    })
}

/// `Verdict::Retry` with `reason`.
pub fn retry(reason: &str) -> Verdict {
    Verdict::retry(reason)
}

/// `Verdict::Stop` with `reason`.
pub fn stop(reason: &str) -> Verdict {
    Verdict::Stop {
        reason: reason.to_owned(),
    }
}

fn fixed_explanation(retry: u32, planned_ms: u64) -> WaitExplanation {
    WaitExplanation {
        retry,
        strategy: Strategy::Fixed,
        unjittered_ms: planned_ms as f64,
        draws: Vec::new(),
        capped: false,
        wait_ms: planned_ms,
        text: format!("retry {retry}: fixed {planned_ms} ms = {planned_ms} ms"),
    }
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "",
    }
}

/// Test pickers: each request is answered at once with the next scripted path
/// (`None` = cancelled; an empty script answers `None`), or, for [`ScriptedDialogs::unavailable`],
/// with [`DialogReply::Unavailable`].
#[derive(Debug, Default)]
pub struct ScriptedDialogs {
    answers: VecDeque<Option<PathBuf>>,
    ready: VecDeque<DialogReply>,
    unavailable: Option<String>,
    /// Every request seen, in order.
    pub requests: Vec<DialogPurpose>,
}

impl ScriptedDialogs {
    /// Pickers that answer with `answers` in order.
    pub fn new(answers: impl IntoIterator<Item = Option<PathBuf>>) -> Self {
        Self {
            answers: answers.into_iter().collect(),
            ..Self::default()
        }
    }

    /// Pickers that never open, as on a desktop without portal or zenity; `reason` is what
    /// the reply says.
    pub fn unavailable(reason: &str) -> Self {
        Self {
            unavailable: Some(reason.to_owned()),
            ..Self::default()
        }
    }
}

impl FileDialogs for ScriptedDialogs {
    fn request(&mut self, purpose: DialogPurpose) {
        self.requests.push(purpose.clone());
        let reply = if let Some(reason) = &self.unavailable {
            DialogReply::Unavailable {
                purpose,
                reason: reason.clone(),
            }
        } else {
            // Tests: read at once, so an answer is complete on the next frame.
            let path = self.answers.pop_front().flatten();
            DialogReply::Answered(DialogAnswer::read(purpose, path))
        };
        self.ready.push_back(reply);
    }

    fn poll(&mut self) -> Option<DialogReply> {
        self.ready.pop_front()
    }
}
