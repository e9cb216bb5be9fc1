//! A run's attempts as CSV (RFC 4180: comma-separated, CRLF line ends, fields with a comma,
//! quote or line break quoted), one row per attempt, for spreadsheets: the window's "Copy as
//! CSV" and `history export --format csv`, from the run's [`RunFold`] (masked already).
//!
//! With a retry budget the last two columns hold its tokens before the attempt's first budget
//! change and after its last (the charge for the retry that follows, a refund or a success
//! increment). A run that ended with an attempt or a wait still open (cancelled, or cut off by
//! the end of the process) says so: the attempt's verdict is the run's outcome (`cancelled`,
//! `interrupted`) with the error message `no answer recorded (…)`, and a cut-off wait adds
//! `; the wait before retry N was cut off (…)` to the reason of the attempt before it, whose
//! verdict stays the `retry` it was. When the run's end was measured, the open attempt's
//! `total_ms` or the open wait's `wait_measured_ms` is how long it lasted until then; for an
//! interrupted run it is not known and stays empty.

use crate::model::{AttemptOutcome, AttemptRow, RunFold};
use std::fmt::Write as _;

/// The header row's columns.
#[rustfmt::skip]
pub const CSV_COLUMNS: [&str; 18] = [
    "run_id", "attempt", "started_at", "method", "url", "status", "error_kind", "error_message",
    "verdict", "reason", "total_ms", "dns_ms", "first_byte_ms", "wait_planned_ms",
    "wait_measured_ms", "wait_explanation", "tokens_before", "tokens_after",
];

/// The attempts of `fold` as CSV text: a header row ([`CSV_COLUMNS`]) then one row per attempt,
/// `run_id` in the first column (the history id, or the window's run number); empty cells where
/// nothing was measured, times in ms with three decimals.
pub fn attempts_csv(fold: &RunFold, run_id: &str) -> String {
    let ms = |v: Option<f64>| v.map(|x| format!("{x:.3}")).unwrap_or_default();
    // How the run ended, when its end cut an attempt or a wait off; whether that end was
    // measured (else the open part's length is unknown).
    let end = fold
        .finish
        .as_ref()
        .map(|f| (f.outcome.kind.id(), f.measured()));
    let mut out = super::csv_cell::CsvText::new();
    out.row(CSV_COLUMNS);
    for a in &fold.attempts {
        let mut c: [String; 18] = Default::default();
        run_id.clone_into(&mut c[0]);
        c[1] = a.number.to_string();
        c[2] = a.started_at.to_rfc3339();
        c[3].clone_from(&a.method);
        c[4].clone_from(&a.url);
        match &a.result {
            Some(r) => {
                match &r.outcome {
                    AttemptOutcome::Response(resp) => c[5] = resp.status.to_string(),
                    AttemptOutcome::Error(e) => {
                        c[6] = e.kind.to_string();
                        c[7].clone_from(&e.message);
                    }
                }
                // A success's reason is the `success_when` condition that held, if any.
                let (name, reason) = r.verdict.name_and_reason();
                name.clone_into(&mut c[8]);
                reason.unwrap_or_default().clone_into(&mut c[9]);
                c[10] = ms(Some(r.timings.total_ms));
                c[11] = ms(r.timings.resolve_ms);
                c[12] = ms(r.timings.headers_ms);
            }
            None => {
                if let Some((how, measured)) = end {
                    how.clone_into(&mut c[8]);
                    c[7] = format!("no answer recorded ({how})");
                    c[10] = ms(a.aborted_after_ms.filter(|_| measured));
                }
            }
        }
        if let Some(w) = &a.wait {
            c[13] = w.planned_ms.to_string();
            c[14] = ms(w
                .actual_ms
                .filter(|_| !w.interrupted || end.is_some_and(|e| e.1)));
            c[15].clone_from(&w.explanation.text);
            if let (true, Some((how, _))) = (w.interrupted, end) {
                cut_wait_reason(&mut c[9], a, how);
            }
        }
        if let Some((before, after)) = a.budget_span() {
            c[16] = crate::policy::tokens_text(before);
            c[17] = crate::policy::tokens_text(after);
        }
        out.row(&c);
    }
    out.finish()
}

/// Adds `the wait before retry N was cut off (how)` to `reason`.
fn cut_wait_reason(reason: &mut String, a: &AttemptRow, how: &str) {
    if !reason.is_empty() {
        reason.push_str("; ");
    }
    let retry = a.wait.as_ref().map_or(a.number, |w| w.retry);
    let _ = write!(reason, "the wait before retry {retry} was cut off ({how})");
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

    /// The cells of data row `n` (1-based) of the CSV of `script`'s run.
    fn row(script: &EventScript, n: usize) -> Vec<String> {
        attempts_csv(&script.fold(), "1")
            .split("\r\n")
            .nth(n)
            .unwrap()
            .split(',')
            .map(str::to_owned)
            .collect()
    }

    fn col(name: &str) -> usize {
        CSV_COLUMNS.iter().position(|c| *c == name).unwrap()
    }

    #[test]
    fn a_wait_cut_short_by_a_cancel_says_how_long_it_lasted() {
        let events = script()
            .attempt(response(503, &[], ""), retry("503 is retryable"), 2.0)
            .schedule_wait(5000)
            .idle(940.25)
            .finish(OutcomeKind::Cancelled, "cancelled", Some(503));
        let cells = row(&events, 1);
        assert_eq!(cells[col("wait_planned_ms")], "5000");
        assert_eq!(cells[col("wait_measured_ms")], "940.250", "{cells:?}");
        assert!(
            cells[col("reason")].contains("cut off (cancelled)"),
            "{cells:?}"
        );
    }

    #[test]
    fn an_attempt_aborted_by_a_cancel_says_how_long_it_lasted() {
        let events =
            script()
                .start_attempt()
                .idle(1431.0)
                .finish(OutcomeKind::Cancelled, "cancelled", None);
        let cells = row(&events, 1);
        assert_eq!(cells[col("verdict")], "cancelled");
        assert_eq!(
            cells[col("error_message")],
            "no answer recorded (cancelled)"
        );
        assert_eq!(cells[col("total_ms")], "1431.000", "{cells:?}");
    }

    #[test]
    fn an_interrupted_run_leaves_the_unknown_duration_empty() {
        let events = script().start_attempt().idle(1431.0).finish(
            OutcomeKind::Interrupted,
            "interrupted",
            None,
        );
        let cells = row(&events, 1);
        assert_eq!(cells[col("verdict")], "interrupted");
        assert_eq!(cells[col("total_ms")], "", "{cells:?}");
    }
}
