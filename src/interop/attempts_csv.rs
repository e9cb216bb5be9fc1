//! A run's attempts as CSV (RFC 4180: comma-separated, CRLF line ends, fields with a comma,
//! quote or line break quoted), one row per attempt, for spreadsheets. With a retry budget the
//! last two columns hold its tokens before the attempt's first budget change and after its last
//! (the charge for the retry that follows, a refund or a success increment).
//!
//! A run that ended with an attempt or a wait still open (cancelled, or cut off by the end of
//! the process: a past run from the history) says so: the attempt's verdict is `cancelled` or
//! `interrupted` (reason `no answer recorded (…)`), and a cut-off wait adds `; the wait before
//! retry N was cut off (…)` to the reason of the attempt before it, whose verdict stays the
//! `retry` it was. For a cancelled run the open attempt's `duration_ms` or the open wait's
//! `measured_wait_ms` is how long it lasted until the run ended (as the text timeline's
//! "aborted after …" / "cut short after …"); for an interrupted one it is not known and stays
//! empty.

use super::secret_rule::mask_url;
use crate::model::{AttemptOutcome, OutcomeKind, RunEvent, mask_secret_values};
use std::fmt::Write as _;

/// The header row's columns.
pub const CSV_COLUMNS: [&str; 16] = [
    "attempt",
    "started_at",
    "method",
    "url",
    "status",
    "error_kind",
    "duration_ms",
    "resolve_ms",
    "headers_ms",
    "verdict",
    "reason",
    "planned_wait_ms",
    "measured_wait_ms",
    "explanation",
    "tokens_before",
    "tokens_after",
];

#[derive(Default, Clone)]
struct Row {
    cells: [String; 16],
    /// Its `AttemptFinished` came.
    answered: bool,
    /// Its wait was scheduled and has not finished.
    waiting: bool,
    /// Monotonic ms since the run started when its attempt began, then when its wait began.
    since_ms: f64,
}

/// Column of the verdict (`reason` follows it).
const VERDICT: usize = 9;

/// The attempts of the run in `events` as CSV text: a header row ([`CSV_COLUMNS`]) then one
/// row per attempt; empty cells where nothing was measured. URLs have their secrets masked and
/// every value in `secrets` is written `***`.
pub fn attempts_csv(events: &[RunEvent], secrets: &[String]) -> String {
    let mut rows: Vec<Row> = Vec::new();
    let row = |rows: &mut Vec<Row>, n: u32| -> Option<usize> {
        let i = usize::try_from(n).ok()?.checked_sub(1)?;
        (i < rows.len()).then_some(i)
    };
    for event in events {
        match event {
            RunEvent::AttemptStarted {
                attempt,
                method,
                url,
                started_at,
                offset_ms,
                ..
            } => {
                let mut r = Row {
                    since_ms: *offset_ms,
                    ..Row::default()
                };
                r.cells[0] = attempt.to_string();
                r.cells[1] = started_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, false);
                r.cells[2].clone_from(method);
                r.cells[3] = mask_url(url);
                rows.push(r);
            }
            RunEvent::AttemptFinished {
                attempt,
                outcome,
                timings,
                verdict,
                ..
            } => {
                let Some(i) = row(&mut rows, *attempt) else {
                    continue;
                };
                rows[i].answered = true;
                let c = &mut rows[i].cells;
                match outcome {
                    AttemptOutcome::Response(r) => c[4] = r.status.to_string(),
                    AttemptOutcome::Error(e) => c[5] = e.kind.to_string(),
                }
                c[6] = timings.total_ms.to_string();
                c[7] = timings
                    .resolve_ms
                    .map(|v| v.to_string())
                    .unwrap_or_default();
                c[8] = timings
                    .headers_ms
                    .map(|v| v.to_string())
                    .unwrap_or_default();
                // A success's reason is the `success_when` condition that held, if any.
                let (name, reason) = verdict.name_and_reason();
                name.clone_into(&mut c[9]);
                reason.unwrap_or_default().clone_into(&mut c[10]);
            }
            RunEvent::WaitScheduled {
                retry,
                planned_ms,
                explanation,
                offset_ms,
                ..
            } => {
                if let Some(i) = row(&mut rows, *retry) {
                    rows[i].waiting = true;
                    rows[i].since_ms = *offset_ms;
                    rows[i].cells[11] = planned_ms.to_string();
                    rows[i].cells[13].clone_from(&explanation.text);
                }
            }
            RunEvent::WaitFinished {
                retry, actual_ms, ..
            } => {
                if let Some(i) = row(&mut rows, *retry) {
                    rows[i].waiting = false;
                    rows[i].cells[12] = actual_ms.to_string();
                }
            }
            RunEvent::BudgetChanged {
                attempt, change, ..
            } => {
                if let Some(i) = row(&mut rows, *attempt) {
                    let c = &mut rows[i].cells;
                    if c[14].is_empty() {
                        c[14] = crate::policy::tokens_text(change.before);
                    }
                    c[15] = crate::policy::tokens_text(change.after);
                }
            }
            RunEvent::RunFinished {
                outcome,
                elapsed_ms,
                ..
            } => {
                // A cancelled run's end is measured; an interrupted one's (the process ended)
                // is only a lower bound, so how long its open part lasted is not known.
                let (how, ended_ms) = if outcome.kind == OutcomeKind::Cancelled {
                    ("cancelled", Some(*elapsed_ms))
                } else {
                    ("interrupted", None)
                };
                for (i, r) in rows.iter_mut().enumerate() {
                    cut_off(r, i + 1, how, ended_ms);
                }
            }
            RunEvent::RunStarted { .. } => {}
        }
    }
    let mut out = super::csv_cell::CsvText::new();
    out.row(CSV_COLUMNS);
    for r in rows {
        out.row(r.cells.iter().map(|c| mask_secret_values(c, secrets)));
    }
    out.finish()
}

/// Marks row `attempt` of a run that ended `how` (`cancelled`, `interrupted`) if its attempt
/// or its wait was still open then; with the run's end `ended_ms` (ms since it started, when
/// measured) the open part's duration goes in its column.
fn cut_off(r: &mut Row, attempt: usize, how: &str, ended_ms: Option<f64>) {
    // Whole µs, as the measured columns are.
    let lasted = ended_ms.map(|end| ((end - r.since_ms).max(0.0) * 1000.0).round() / 1000.0);
    if !r.answered {
        how.clone_into(&mut r.cells[VERDICT]);
        r.cells[VERDICT + 1] = format!("no answer recorded ({how})");
        if let Some(ms) = lasted {
            r.cells[6] = ms.to_string();
        }
    } else if r.waiting {
        if let Some(ms) = lasted {
            r.cells[12] = ms.to_string();
        }
        let reason = &mut r.cells[VERDICT + 1];
        if !reason.is_empty() {
            reason.push_str("; ");
        }
        let _ = write!(
            reason,
            "the wait before retry {attempt} was cut off ({how})"
        );
    }
    r.waiting = false;
    r.answered = true;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::OutcomeKind;
    use crate::testkit::{EventScript, response, retry};

    fn script() -> EventScript {
        let start = chrono::DateTime::parse_from_rfc3339("2026-12-01T10:00:00+00:00").unwrap();
        EventScript::new(1, "GET", "http://127.0.0.1:9/x", start)
    }

    /// The attempts CSV of the run `script` made.
    fn csv_of(script: &EventScript) -> String {
        let events: Vec<RunEvent> = script.events().iter().map(|(e, _)| e.clone()).collect();
        attempts_csv(&events, &[])
    }

    /// The cells of data row `n` (1-based) of `csv`.
    fn row(csv: &str, n: usize) -> Vec<String> {
        csv.split("\r\n")
            .nth(n)
            .unwrap()
            .split(',')
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn a_wait_cut_short_by_a_cancel_says_how_long_it_lasted() {
        let events = script()
            .attempt(response(503, &[], ""), retry("503 is retryable"), 2.0)
            .schedule_wait(5000)
            .idle(940.25)
            .finish(OutcomeKind::Cancelled, "cancelled", Some(503));
        let cells = row(&csv_of(&events), 1);
        assert_eq!(cells[11], "5000");
        assert_eq!(cells[12], "940.25", "{cells:?}");
        assert!(cells[10].contains("cut off (cancelled)"), "{cells:?}");
    }

    #[test]
    fn an_attempt_aborted_by_a_cancel_says_how_long_it_lasted() {
        let events =
            script()
                .start_attempt()
                .idle(1431.0)
                .finish(OutcomeKind::Cancelled, "cancelled", None);
        let cells = row(&csv_of(&events), 1);
        assert_eq!(cells[VERDICT], "cancelled");
        assert_eq!(cells[6], "1431", "{cells:?}");
    }

    #[test]
    fn an_interrupted_run_leaves_the_unknown_duration_empty() {
        let events =
            script()
                .start_attempt()
                .idle(1431.0)
                .finish(OutcomeKind::Error, "interrupted", None);
        let cells = row(&csv_of(&events), 1);
        assert_eq!(cells[VERDICT], "interrupted");
        assert_eq!(cells[6], "", "{cells:?}");
    }
}
