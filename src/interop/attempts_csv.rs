//! A run's attempts as CSV (RFC 4180: comma-separated, CRLF line ends, fields with a comma,
//! quote or line break quoted), one row per attempt, for spreadsheets. With a retry budget the
//! last two columns hold its tokens before the attempt's first budget change and after its last
//! (the charge for the retry that follows, a refund or a success increment).
//!
//! A run that ended with an attempt or a wait still open (cancelled, or cut off by the end of
//! the process: a past run from the history) says so: the attempt's verdict is `cancelled` or
//! `interrupted` (reason `no answer recorded (…)`), and a cut-off wait adds `; the wait before
//! retry N was cut off (…)` to the reason of the attempt before it, whose verdict stays the
//! `retry` it was.

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
                ..
            } => {
                let mut r = Row::default();
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
                ..
            } => {
                if let Some(i) = row(&mut rows, *retry) {
                    rows[i].waiting = true;
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
            RunEvent::RunFinished { outcome, .. } => {
                let how = if outcome.kind == OutcomeKind::Cancelled {
                    "cancelled"
                } else {
                    "interrupted"
                };
                for (i, r) in rows.iter_mut().enumerate() {
                    cut_off(r, i + 1, how);
                }
            }
            RunEvent::RunStarted { .. } => {}
        }
    }
    let mut out = String::new();
    let line = |out: &mut String, cells: &mut dyn Iterator<Item = String>| {
        let quoted: Vec<String> = cells.map(|c| super::csv_cell::csv_cell(&c)).collect();
        let _ = write!(out, "{}\r\n", quoted.join(","));
    };
    line(&mut out, &mut CSV_COLUMNS.iter().map(|c| (*c).to_owned()));
    for r in rows {
        line(
            &mut out,
            &mut r.cells.into_iter().map(|c| mask_secret_values(&c, secrets)),
        );
    }
    out
}

/// Marks row `attempt` of a run that ended `how` (`cancelled`, `interrupted`) if its attempt
/// or its wait was still open then.
fn cut_off(r: &mut Row, attempt: usize, how: &str) {
    if !r.answered {
        how.clone_into(&mut r.cells[VERDICT]);
        r.cells[VERDICT + 1] = format!("no answer recorded ({how})");
    } else if r.waiting {
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
