//! `history export` formats: the run as one JSON document, a CSV of its attempts, HAR 1.2, and
//! the timeline plot as PNG.
//! All come from the stored records, which are already masked (DESIGN.md §9).

use super::exit::CliError;
use crate::model::AttemptOutcome;
use crate::store::{StoredRun, replay_events};
use std::fmt::Write as _;

/// The stored run's timeline plot as PNG bytes
/// ([`crate::interop::PNG_DEFAULT_WIDTH`] × [`crate::interop::PNG_DEFAULT_HEIGHT`] pixels),
/// drawn by the same renderer as `run --png` and the window's "Export PNG…".
///
/// # Errors
/// Exit 1 when the plot cannot be drawn or encoded.
pub fn png(stored: &StoredRun) -> Result<Vec<u8>, CliError> {
    let plot = crate::interop::TimelinePlot::from_events(&replay_events(stored, 1));
    crate::interop::render_png(
        &plot,
        crate::interop::PNG_DEFAULT_WIDTH,
        crate::interop::PNG_DEFAULT_HEIGHT,
    )
    .map_err(|e| CliError::failed(e.to_string()))
}

/// The stored run as HAR 1.2 (pretty JSON ending with a newline), built by the same
/// [`crate::interop::run_to_har`] as `run --har`: the run is replayed into its events
/// ([`replay_events`]) and the stored request (masked when recorded) gives the headers and body.
/// `_retryscope.outcome` is the recorded outcome (`interrupted` too, which the engine's kinds
/// lack), and an attempt that started but has no record has the `_error` "no answer recorded
/// (OUTCOME)", as `history show` and [`csv()`] say, and `time` -1 (not measured). An interrupted
/// run's `elapsed_ms` is null and `recorded_until_ms` says how far its records reach.
///
/// # Errors
/// Exit 1 when the document cannot be encoded.
pub fn har(stored: &StoredRun) -> Result<String, CliError> {
    let events = replay_events(stored, 1);
    let mut har = crate::interop::run_to_har(
        &events,
        &crate::interop::HarExport {
            request: Some(&stored.run.request),
            secrets: &[],
            include_secrets: false,
        },
    );
    if let Some(outcome) = stored.run.outcome {
        har["log"]["_retryscope"]["outcome"] = serde_json::json!(outcome.id());
    }
    if stored.run.outcome == Some(crate::store::RecordedOutcome::Interrupted) {
        // Never measured: how far the records reach is a lower bound, not the length.
        let facts = &mut har["log"]["_retryscope"];
        if let Some(m) = &stored.run.outcome_message {
            facts["message"] = serde_json::json!(m);
        }
        facts["elapsed_ms"] = serde_json::Value::Null;
        facts["recorded_until_ms"] = serde_json::json!(stored.recorded_until_ms());
    }
    if let (Some(u), Some(entries)) = (&stored.unanswered, har["log"]["entries"].as_array_mut()) {
        for entry in entries
            .iter_mut()
            .filter(|e| e["_retryscope"]["attempt"] == serde_json::json!(u.number))
        {
            entry["response"]["_error"] = serde_json::json!(unanswered_text(stored));
        }
    }
    serde_json::to_string_pretty(&har)
        .map(|s| s + "\n")
        .map_err(|e| CliError::failed(format!("cannot encode the run as HAR: {e}")))
}

/// What the exports say of an attempt that started but has no record: "no answer recorded
/// (interrupted)", "(cancelled)", or "(still running)" for a run without an outcome.
fn unanswered_text(stored: &StoredRun) -> String {
    format!(
        "no answer recorded ({})",
        stored.run.outcome.map_or("still running", |o| o.id())
    )
}

/// The run with its attempts as pretty JSON (ends with a newline); an attempt that started but
/// has no record is `unanswered` (number, start, method, URL).
///
/// # Errors
/// Exit 1 when the records cannot be encoded.
pub fn json(stored: &StoredRun) -> Result<String, CliError> {
    serde_json::to_string_pretty(stored)
        .map(|s| s + "\n")
        .map_err(|e| CliError::failed(format!("cannot encode the run as JSON: {e}")))
}

/// Column names of [`csv()`], in order.
pub const CSV_COLUMNS: [&str; 18] = [
    "run_id",
    "attempt",
    "started_at",
    "method",
    "url",
    "status",
    "error_kind",
    "error_message",
    "verdict",
    "reason",
    "total_ms",
    "dns_ms",
    "first_byte_ms",
    "wait_planned_ms",
    "wait_measured_ms",
    "wait_explanation",
    "tokens_before",
    "tokens_after",
];

/// One CSV row per attempt (RFC 4180: comma separated, fields quoted when needed, CRLF line
/// ends), with a header row of [`CSV_COLUMNS`]. `tokens_before` / `tokens_after` are the retry
/// budget's balance before the attempt's first budget change and after its last (empty without
/// a budget). An attempt that started but has no record is a last row with its start, no
/// status or timings, the verdict `interrupted` (or `cancelled`; empty while the run is still
/// running) and the error message "no answer recorded (interrupted)". When the run ended
/// during a wait, the reason of the attempt before it says "the wait before retry N was cut
/// off (interrupted)" after its own (as `interop::attempts_csv` does for the window's copy).
pub fn csv(stored: &StoredRun) -> String {
    let mut out = crate::interop::csv_cell::CsvText::new();
    out.row(CSV_COLUMNS);
    let opt = |v: Option<f64>| v.map(|x| format!("{x:.3}")).unwrap_or_default();
    let ended = stored.run.outcome.map(crate::store::RecordedOutcome::id);
    for (i, a) in stored.attempts.iter().enumerate() {
        let (status, kind, message) = match &a.outcome {
            AttemptOutcome::Response(r) => (r.status.to_string(), String::new(), String::new()),
            AttemptOutcome::Error(e) => (String::new(), e.kind.to_string(), e.message.clone()),
        };
        let (verdict, reason) = a.verdict.name_and_reason();
        let mut reason = reason.unwrap_or_default().to_owned();
        // The last attempt's wait never ended: the run ended (cancelled, process gone) in it.
        if let (Some(how), Some(w), true, None) = (
            ended,
            &a.wait,
            i + 1 == stored.attempts.len() && stored.unanswered.is_none(),
            a.wait.as_ref().and_then(|w| w.measured_ms),
        ) {
            if !reason.is_empty() {
                reason.push_str("; ");
            }
            let _ = write!(
                reason,
                "the wait before retry {} was cut off ({how})",
                w.explanation.retry
            );
        }
        let fields = [
            a.run_id.clone(),
            a.number.to_string(),
            a.started_at.to_rfc3339(),
            a.method.clone(),
            a.url.clone(),
            status,
            kind,
            message,
            verdict.to_owned(),
            reason,
            format!("{:.3}", a.timings.total_ms),
            opt(a.phases.dns_ms),
            opt(a.phases.first_byte_ms),
            a.wait
                .as_ref()
                .map(|w| w.planned_ms.to_string())
                .unwrap_or_default(),
            opt(a.wait.as_ref().and_then(|w| w.measured_ms)),
            a.wait
                .as_ref()
                .map(|w| w.explanation.text.clone())
                .unwrap_or_default(),
            a.budget
                .first()
                .map(|c| crate::policy::tokens_text(c.before))
                .unwrap_or_default(),
            a.budget
                .last()
                .map(|c| crate::policy::tokens_text(c.after))
                .unwrap_or_default(),
        ];
        out.row(&fields);
    }
    if let Some(u) = &stored.unanswered {
        let mut fields = vec![String::new(); CSV_COLUMNS.len()];
        fields[0].clone_from(&stored.run.id);
        fields[1] = u.number.to_string();
        fields[2] = u.started_at.to_rfc3339();
        fields[3].clone_from(&u.method);
        fields[4].clone_from(&u.url);
        fields[7] = unanswered_text(stored);
        // Cut off, not triaged: the verdict says how (nothing while the run is still going).
        ended.unwrap_or_default().clone_into(&mut fields[8]);
        out.row(&fields);
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    #[test]
    fn fields_with_commas_and_quotes_are_quoted() {
        let cell = |c: &str| {
            let mut csv = crate::interop::csv_cell::CsvText::new();
            csv.row([c]);
            csv.finish().trim_end().to_owned()
        };
        assert_eq!(cell("a,b \"c\""), "\"a,b \"\"c\"\"\"");
        assert_eq!(cell("plain"), "plain");
        assert_eq!(cell("=1+1"), "'=1+1", "a formula is text in a spreadsheet");
    }
}
