//! The live text timeline `retryscope run` prints: one line per attempt, one per wait, a summary.
//!
//! A pure fold over [`RunEvent`]s returning the text to print, so it is tested without a run.

use crate::model::{
    AttemptOutcome, OutcomeKind, RetryCause, RunEvent, RunOutcome, TLS_UNVERIFIED_NOTE, Verdict,
};
use chrono::{DateTime, FixedOffset};
use std::collections::HashMap;
use std::fmt::Write as _;

/// Folds events into printable text.
#[derive(Debug, Default)]
pub struct TextTimeline {
    seed: Option<u64>,
    starts: HashMap<u32, DateTime<FixedOffset>>,
    /// A wait line was started and waits for its `WaitFinished` to end it.
    wait_open: bool,
    /// The attempt whose line was started by `AttemptStarted` and waits for its
    /// `AttemptFinished` to complete it.
    attempt_open: Option<u32>,
    /// When the open attempt or wait began, ms since the run's start (its `offset_ms`).
    open_since_ms: f64,
}

impl TextTimeline {
    /// The text for `event` (possibly empty; a wait line is left open until the wait ends).
    pub fn render(&mut self, event: &RunEvent) -> String {
        let mut out = String::new();
        let close_wait = |out: &mut String, open: &mut bool| {
            if *open {
                out.push('\n');
                *open = false;
            }
        };
        match event {
            RunEvent::RunStarted {
                seed,
                profile,
                method,
                url,
                tls_unverified,
                ..
            } => {
                self.seed = Some(*seed);
                let _ = writeln!(out, "{method} {url}  profile \"{profile}\"  seed {seed}");
                if *tls_unverified {
                    out.push_str(TLS_UNVERIFIED_NOTE);
                    out.push('\n');
                }
            }
            RunEvent::AttemptStarted {
                attempt,
                started_at,
                offset_ms,
                ..
            } => {
                close_wait(&mut out, &mut self.wait_open);
                self.close_attempt(&mut out);
                self.starts.insert(*attempt, *started_at);
                // The start of the line, so an attempt in flight (e.g. a hanging server) shows.
                let _ = write!(
                    out,
                    "attempt {attempt}  {}  ",
                    started_at.format("%H:%M:%S%.3f%:z")
                );
                self.attempt_open = Some(*attempt);
                self.open_since_ms = *offset_ms;
            }
            RunEvent::AttemptFinished {
                attempt,
                outcome,
                hops,
                timings,
                verdict,
                ..
            } => {
                close_wait(&mut out, &mut self.wait_open);
                if self.attempt_open == Some(*attempt) {
                    self.attempt_open = None;
                } else {
                    self.close_attempt(&mut out);
                    let when = self
                        .starts
                        .get(attempt)
                        .map_or_else(|| "-".into(), |t| t.format("%H:%M:%S%.3f%:z").to_string());
                    let _ = write!(out, "attempt {attempt}  {when}  ");
                }
                let what = match outcome {
                    AttemptOutcome::Response(r) => r.status.to_string(),
                    AttemptOutcome::Error(e) => format!("{} error ({})", e.kind, e.message),
                };
                let verdict = match verdict {
                    Verdict::Success { .. } => verdict.label(),
                    // A polling verdict says what it is (`not ready: /state is …`).
                    Verdict::Retry {
                        reason,
                        cause: RetryCause::NotReady,
                    } => reason.clone(),
                    Verdict::Retry { reason, .. } => format!("retryable: {reason}"),
                    Verdict::Stop { reason } => format!("stop: {reason}"),
                };
                let _ = writeln!(out, "{what}  {:.1} ms  {verdict}", timings.total_ms);
                for hop in hops {
                    let _ = writeln!(
                        out,
                        "  redirect {} {} {} -> {}{}",
                        hop.status,
                        hop.method,
                        hop.url,
                        hop.location,
                        hop.dropped_note()
                    );
                }
            }
            RunEvent::BudgetChanged { change, .. } => {
                close_wait(&mut out, &mut self.wait_open);
                self.close_attempt(&mut out);
                let _ = writeln!(out, "  {}", change.text);
            }
            RunEvent::WaitScheduled {
                retry,
                planned_ms,
                explanation,
                offset_ms,
                ..
            } => {
                close_wait(&mut out, &mut self.wait_open);
                self.close_attempt(&mut out);
                let _ = write!(out, "wait {retry}  planned {planned_ms} ms  {explanation}");
                self.wait_open = true;
                self.open_since_ms = *offset_ms;
            }
            RunEvent::WaitFinished {
                retry,
                actual_ms,
                skipped,
                ..
            } => {
                let skipped = if *skipped { " (skipped)" } else { "" };
                if self.wait_open {
                    let _ = writeln!(out, "  -> actual {actual_ms:.1} ms{skipped}");
                    self.wait_open = false;
                } else {
                    let _ = writeln!(out, "wait {retry}  actual {actual_ms:.1} ms{skipped}");
                }
            }
            RunEvent::RunFinished {
                outcome,
                attempts,
                elapsed_ms,
                ..
            } => {
                out.push_str(&self.close_open(*elapsed_ms));
                out.push_str(&self.summary(outcome, *attempts, *elapsed_ms));
            }
        }
        out
    }

    /// The first part of what [`TextTimeline::render`] prints for `RunFinished` after
    /// `elapsed_ms`: the end of an attempt or wait the run ended during, which says so on its
    /// own line ("aborted after …", "-> cut short after …"); empty when none was open.
    pub fn close_open(&mut self, elapsed_ms: f64) -> String {
        let mut out = String::new();
        let lasted = (elapsed_ms - self.open_since_ms).max(0.0);
        if self.wait_open {
            let _ = writeln!(out, "  -> cut short after {lasted:.1} ms");
            self.wait_open = false;
        } else if self.attempt_open.is_some() {
            let _ = write!(out, "aborted after {lasted:.1} ms");
        }
        self.close_attempt(&mut out);
        out
    }

    /// Like [`Self::close_open`] for a run whose process ended (a recorded run found
    /// `interrupted`): how long the open wait or attempt lasted is not known, so it says so.
    pub fn close_interrupted(&mut self) -> String {
        let mut out = String::new();
        if self.wait_open {
            out.push_str("  -> interrupted during the wait (the process ended)\n");
            self.wait_open = false;
        } else if self.attempt_open.is_some() {
            out.push_str("no answer recorded (interrupted)");
        }
        self.close_attempt(&mut out);
        out
    }

    /// Like [`Self::close_open`] for a recorded run whose last attempt started but has no
    /// record (a cancelled run): that attempt's line says "no answer recorded (`how`)"; an
    /// open wait ends as [`Self::close_open`] ends it.
    pub fn close_unanswered(&mut self, how: &str, elapsed_ms: f64) -> String {
        if self.wait_open || self.attempt_open.is_none() {
            return self.close_open(elapsed_ms);
        }
        let mut out = format!("no answer recorded ({how})");
        self.close_attempt(&mut out);
        out
    }

    /// The second part of what [`TextTimeline::render`] prints for `RunFinished`: the summary
    /// line (outcome, attempts, seconds) and the seed line.
    pub fn summary(&self, outcome: &RunOutcome, attempts: u32, elapsed_ms: f64) -> String {
        let label = match outcome.kind {
            OutcomeKind::Succeeded => "succeeded",
            OutcomeKind::GaveUp => "gave up",
            OutcomeKind::Stopped => "stopped",
            OutcomeKind::Deadline => "deadline",
            OutcomeKind::Cancelled => "cancelled",
            OutcomeKind::Error => "error",
        };
        // The engine's messages mostly start with the outcome already
        // ("deadline reached: …", "succeeded on attempt …"): say it once.
        let first_word = label.split(' ').next().unwrap_or(label);
        let summary = if outcome.message.starts_with(first_word) {
            outcome.message.clone()
        } else {
            format!("{label}: {}", outcome.message)
        };
        let plural = if attempts == 1 { "" } else { "s" };
        let mut out = format!(
            "{summary}  ({attempts} attempt{plural}, {:.2} s)\n",
            elapsed_ms / 1000.0
        );
        if let Some(seed) = self.seed {
            let _ = writeln!(out, "seed {seed} (replay with --seed {seed})");
        }
        out
    }

    /// The summary of a recorded run whose process ended mid-run (`interrupted`): its length
    /// was never measured, so it says how far the records reach (`recorded_until_ms`, see
    /// [`crate::store::StoredRun::recorded_until_ms`]) as a lower bound, in ms below 1 s.
    pub fn summary_interrupted(&self, message: &str, recorded_until_ms: f64) -> String {
        let at_least = if recorded_until_ms < 1000.0 {
            format!("{recorded_until_ms:.1} ms")
        } else {
            format!("{:.2} s", recorded_until_ms / 1000.0)
        };
        let mut out = format!(
            "{message}  (at least {at_least}: the process ended later, when is not recorded)\n"
        );
        if let Some(seed) = self.seed {
            let _ = writeln!(out, "seed {seed} (replay with --seed {seed})");
        }
        out
    }

    /// Ends a started attempt line that never got its `AttemptFinished` (a cancelled attempt),
    /// so what follows starts on a fresh line.
    fn close_attempt(&mut self, out: &mut String) {
        if self.attempt_open.take().is_some() {
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{
        BodyPreview, ResponseSummary, RunOutcome, Strategy, Timings, WaitExplanation,
    };

    fn at() -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339("2026-01-02T12:00:01.123+09:00").expect("valid date")
    }

    fn response(status: u16) -> AttemptOutcome {
        AttemptOutcome::Response(ResponseSummary {
            status,
            reason: String::new(),
            version: "HTTP/1.1".into(),
            headers: Vec::new(),
            body: BodyPreview::default(),
        })
    }

    #[test]
    fn renders_a_three_attempt_run() {
        let mut t = TextTimeline::default();
        let mut text = String::new();
        let events = vec![
            RunEvent::RunStarted {
                run_id: 1,
                seed: 1234,
                profile: "P".into(),
                method: "GET".into(),
                url: "http://127.0.0.1:1/x".into(),
                started_at: at(),
                tls_unverified: false,
            },
            RunEvent::AttemptStarted {
                run_id: 1,
                attempt: 1,
                method: "GET".into(),
                url: "http://127.0.0.1:1/x".into(),
                started_at: at(),
                offset_ms: 0.0,
            },
            RunEvent::AttemptFinished {
                run_id: 1,
                attempt: 1,
                outcome: response(503),
                hops: Vec::new(),
                timings: Timings {
                    resolve_ms: None,
                    headers_ms: Some(10.0),
                    total_ms: 12.34,
                    ..Timings::default()
                },
                verdict: Verdict::retry("503 is retryable"),
            },
            RunEvent::WaitScheduled {
                run_id: 1,
                retry: 1,
                planned_ms: 812,
                explanation: WaitExplanation {
                    retry: 1,
                    strategy: Strategy::Fixed,
                    unjittered_ms: 800.0,
                    draws: Vec::new(),
                    capped: false,
                    wait_ms: 812,
                    text: "retry 1: fixed 800 + jitter 12 = 812 ms".into(),
                },
                offset_ms: 12.0,
            },
            RunEvent::WaitFinished {
                run_id: 1,
                retry: 1,
                planned_ms: 812,
                actual_ms: 812.6,
                skipped: false,
            },
            RunEvent::RunFinished {
                run_id: 1,
                outcome: RunOutcome {
                    kind: OutcomeKind::Succeeded,
                    message: "succeeded on attempt 2 after 0.9 s".into(),
                    last_status: Some(200),
                },
                attempts: 2,
                elapsed_ms: 900.0,
            },
        ];
        for e in &events {
            text.push_str(&t.render(e));
        }
        assert_eq!(
            text,
            "GET http://127.0.0.1:1/x  profile \"P\"  seed 1234\n\
             attempt 1  12:00:01.123+09:00  503  12.3 ms  retryable: 503 is retryable\n\
             wait 1  planned 812 ms  retry 1: fixed 800 + jitter 12 = 812 ms  -> actual 812.6 ms\n\
             succeeded on attempt 2 after 0.9 s  (2 attempts, 0.90 s)\n\
             seed 1234 (replay with --seed 1234)\n"
        );
    }

    /// `RunFinished` of a one-attempt run cancelled after `elapsed_ms`.
    fn cancelled(message: &str, elapsed_ms: f64) -> RunEvent {
        RunEvent::RunFinished {
            run_id: 1,
            outcome: RunOutcome {
                kind: OutcomeKind::Cancelled,
                message: message.into(),
                last_status: None,
            },
            attempts: 1,
            elapsed_ms,
        }
    }

    #[test]
    fn an_attempt_in_flight_shows_and_a_cancel_starts_a_fresh_line() {
        let mut t = TextTimeline::default();
        let started = t.render(&RunEvent::AttemptStarted {
            run_id: 1,
            attempt: 1,
            method: "GET".into(),
            url: "http://127.0.0.1:1/hang".into(),
            started_at: at(),
            offset_ms: 0.0,
        });
        assert_eq!(started, "attempt 1  12:00:01.123+09:00  ");
        let finished = t.render(&cancelled("cancelled during attempt 1", 1500.0));
        assert!(
            finished.starts_with(
                "aborted after 1500.0 ms\ncancelled during attempt 1  (1 attempt, 1.50 s)\n"
            ),
            "{finished:?}"
        );
    }

    #[test]
    fn a_wait_the_run_ended_during_says_how_long_it_lasted() {
        let mut t = TextTimeline::default();
        let scheduled = t.render(&RunEvent::WaitScheduled {
            run_id: 1,
            retry: 1,
            planned_ms: 5000,
            explanation: WaitExplanation {
                retry: 1,
                strategy: Strategy::Fixed,
                unjittered_ms: 5000.0,
                draws: Vec::new(),
                capped: false,
                wait_ms: 5000,
                text: "retry 1: fixed 5000 ms".into(),
            },
            offset_ms: 300.0,
        });
        assert_eq!(scheduled, "wait 1  planned 5000 ms  retry 1: fixed 5000 ms");
        let finished = t.render(&cancelled("cancelled while waiting before retry 1", 1000.0));
        assert!(
            finished.starts_with("  -> cut short after 700.0 ms\ncancelled while waiting"),
            "{finished:?}"
        );
    }
}
