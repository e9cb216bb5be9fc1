//! The text timeline `retryscope run` prints as a run goes, and `history show` prints for a
//! past run: a header, one line per attempt (its redirect hops and budget changes below it),
//! one per wait, a summary.
//!
//! A view of the run's [`RunFold`]: each row's text only grows while the row is in progress
//! (`attempt 2  12:00:01.123+09:00  ` while in flight, then its status, duration and verdict),
//! so a live run prints, after each event, what its rows' text gained ([`TextTimeline::delta`]);
//! a past run prints the same text at once.

use crate::model::{
    AttemptOutcome, AttemptRow, RetryCause, RunFinish, RunFold, TLS_UNVERIFIED_NOTE, Verdict,
};
use std::fmt::Write as _;

/// What of a run's text has been printed.
#[derive(Debug, Default)]
pub struct TextTimeline {
    header_printed: bool,
    /// Rows printed whole.
    rows_printed: usize,
    /// Bytes printed of the row after them (still in progress).
    partial: usize,
}

impl TextTimeline {
    /// The text `fold` gained since the last call: the header once, then what its rows'
    /// text gained (a row in progress is left open; a run's end closes it: "aborted after …",
    /// "-> cut short after …", or for a run whose process ended "no answer recorded
    /// (interrupted)"). Not the summary ([`Self::summary`]).
    pub fn delta(&mut self, fold: &RunFold) -> String {
        let mut out = String::new();
        if let (false, Some(h)) = (self.header_printed, &fold.header) {
            let _ = writeln!(
                out,
                "{} {}  profile \"{}\"  seed {}",
                h.method, h.url, h.profile, h.seed
            );
            if h.tls_unverified {
                out.push_str(TLS_UNVERIFIED_NOTE);
                out.push('\n');
            }
            self.header_printed = true;
        }
        let finish = fold.finish.as_ref();
        while let Some(row) = fold.attempts.get(self.rows_printed) {
            let text = row_text(row, finish);
            out.push_str(text.get(self.partial..).unwrap_or_default());
            if finish.is_none() && self.rows_printed + 1 == fold.attempts.len() {
                self.partial = text.len();
                break;
            }
            self.rows_printed += 1;
            self.partial = 0;
        }
        out
    }

    /// The summary of `fold` once it ended (outcome, attempts, seconds; for a run whose process
    /// ended how far its records reach, as a lower bound) and the seed line; empty before.
    pub fn summary(&self, fold: &RunFold) -> String {
        let Some(f) = &fold.finish else {
            return String::new();
        };
        let mut out = if f.measured() {
            let label = f.outcome.kind.id().replace('_', " ");
            // The engine's messages mostly start with the outcome already
            // ("deadline reached: …", "succeeded on attempt …"): say it once.
            let first_word = label.split(' ').next().unwrap_or(&label);
            let summary = if f.outcome.message.starts_with(first_word) {
                f.outcome.message.clone()
            } else {
                format!("{label}: {}", f.outcome.message)
            };
            format!(
                "{summary}  ({}, {:.2} s)\n",
                crate::model::counted(u64::from(f.attempts), "attempt", "attempts"),
                f.elapsed_ms / 1000.0
            )
        } else {
            // Never measured: how far the records reach is a lower bound.
            let until = f.elapsed_ms;
            let at_least = if until < 1000.0 {
                format!("{until:.1} ms")
            } else {
                format!("{:.2} s", until / 1000.0)
            };
            format!(
                "{}  (at least {at_least}: the process ended later, when is not recorded)\n",
                f.outcome.message
            )
        };
        if let Some(h) = &fold.header {
            let _ = writeln!(out, "seed {0} (replay with --seed {0})", h.seed);
        }
        out
    }
}

/// The text of one row as far as it goes (see the module doc); `finish` closes what the run's
/// end cut off.
fn row_text(row: &AttemptRow, finish: Option<&RunFinish>) -> String {
    let measured = finish.map(RunFinish::measured);
    let mut out = format!(
        "attempt {}  {}  ",
        row.number,
        row.started_at.format("%H:%M:%S%.3f%:z")
    );
    match (&row.result, measured) {
        (Some(r), _) => {
            let what = match &r.outcome {
                AttemptOutcome::Response(resp) => resp.status.to_string(),
                AttemptOutcome::Error(e) => format!("{} error ({})", e.kind, e.message),
            };
            let verdict = match &r.verdict {
                Verdict::Success { .. } => r.verdict.label(),
                // A polling verdict says what it is (`not ready: /state is …`).
                Verdict::Retry {
                    reason,
                    cause: RetryCause::NotReady,
                } => reason.clone(),
                Verdict::Retry { reason, .. } => format!("retryable: {reason}"),
                Verdict::Stop { reason } => format!("stop: {reason}"),
            };
            let _ = writeln!(out, "{what}  {:.1} ms  {verdict}", r.timings.total_ms);
            for hop in &r.hops {
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
        (None, Some(true)) => {
            let lasted = row.aborted_after_ms.unwrap_or(0.0);
            let _ = writeln!(out, "aborted after {lasted:.1} ms");
        }
        (None, Some(false)) => out.push_str("no answer recorded (interrupted)\n"),
        (None, None) => return out,
    }
    for change in &row.budget {
        let _ = writeln!(out, "  {}", change.text);
    }
    if let Some(w) = &row.wait {
        let _ = write!(
            out,
            "wait {}  planned {} ms  {}",
            w.retry, w.planned_ms, w.explanation
        );
        match (w.actual_ms, w.interrupted, measured) {
            (Some(lasted), true, Some(true)) => {
                let _ = writeln!(out, "  -> cut short after {lasted:.1} ms");
            }
            (_, true, _) => out.push_str("  -> interrupted during the wait (the process ended)\n"),
            (Some(actual), false, _) => {
                let skipped = if w.skipped { " (skipped)" } else { "" };
                let _ = writeln!(out, "  -> actual {actual:.1} ms{skipped}");
            }
            (None, ..) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{
        BodyPreview, OutcomeKind, ResponseSummary, RunEvent, RunOutcome, Strategy, Timings,
        WaitExplanation,
    };
    use chrono::{DateTime, FixedOffset};

    /// What `run` prints for `events`, one delta per event, then the summary.
    fn printed(events: Vec<RunEvent>) -> Vec<String> {
        let mut fold = RunFold::new(1);
        let mut text = TextTimeline::default();
        let mut out: Vec<String> = events
            .into_iter()
            .map(|e| {
                fold.apply(crate::model::secrets::mask_event(e, &[]));
                text.delta(&fold)
            })
            .collect();
        out.push(text.summary(&fold));
        out
    }

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
        assert_eq!(
            printed(events).concat(),
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
        let lines = printed(vec![
            RunEvent::AttemptStarted {
                run_id: 1,
                attempt: 1,
                method: "GET".into(),
                url: "http://127.0.0.1:1/hang".into(),
                started_at: at(),
                offset_ms: 0.0,
            },
            cancelled("cancelled during attempt 1", 1500.0),
        ]);
        assert_eq!(lines[0], "attempt 1  12:00:01.123+09:00  ");
        assert_eq!(lines[1], "aborted after 1500.0 ms\n");
        assert_eq!(
            lines[2],
            "cancelled during attempt 1  (1 attempt, 1.50 s)\n"
        );
    }

    #[test]
    fn a_wait_the_run_ended_during_says_how_long_it_lasted() {
        let script = crate::testkit::EventScript::new(1, "GET", "http://127.0.0.1:1/x", at())
            .attempt(response(503), Verdict::retry("503 is retryable"), 300.0)
            .schedule_wait(5000);
        let mut events: Vec<RunEvent> = script.events().iter().map(|(e, _)| e.clone()).collect();
        events.push(cancelled("cancelled while waiting before retry 1", 1000.0));
        let lines = printed(events);
        assert_eq!(
            lines[3],
            "wait 1  planned 5000 ms  retry 1: fixed 5000 ms = 5000 ms"
        );
        assert!(
            (lines[4].clone() + lines[5].as_str())
                .starts_with("  -> cut short after 700.0 ms\ncancelled while waiting"),
            "{lines:?}"
        );
    }

    #[test]
    fn a_past_run_whose_process_ended_says_what_is_not_known() {
        let script = crate::testkit::EventScript::new(1, "GET", "http://127.0.0.1:1/x", at())
            .attempt(response(503), Verdict::retry("503 is retryable"), 300.0)
            .schedule_wait(5000)
            .finish(
                OutcomeKind::Interrupted,
                "interrupted after 1 attempt",
                Some(503),
            );
        let mut text = TextTimeline::default();
        let fold = script.fold();
        let shown = text.delta(&fold) + text.summary(&fold).as_str();
        assert!(
            shown.contains("= 5000 ms  -> interrupted during the wait (the process ended)\n"),
            "{shown}"
        );
        assert!(
            shown.contains(
                "interrupted after 1 attempt  (at least 300.0 ms: the process ended later"
            ),
            "{shown}"
        );
    }
}
