//! The batch results as CSV (RFC 4180: CRLF line ends, fields with a comma, quote or line
//! break quoted), one row per item, for spreadsheets. Written with the `csv` crate; a cell a
//! spreadsheet would read as a formula (`=…`, `+…`, `-…`, `@…`) starts with `'`
//! ([`crate::interop::csv_cell::formula_safe`]).

use super::{BatchReport, masked_row::masked_row, snake};
use crate::model::BatchReportRow;

/// The header row's columns.
#[rustfmt::skip]
pub const REPORT_CSV_COLUMNS: [&str; 19] = [
    "position", "label", "state", "method", "url", "attempts", "final_status", "error_kind",
    "outcome", "reason", "assertion", "run_id", "started_at", "finished_at", "elapsed_ms",
    "attempt_results", "waits_ms", "profile", "source_line",
];

/// The cells of one (masked) row, in [`REPORT_CSV_COLUMNS`] order. `attempt_results` is
/// each attempt's status or error kind joined with `;` (`503;503;200`); `waits_ms` the
/// planned waits between them (`100;200`).
fn cells(row: &BatchReportRow) -> [String; 19] {
    let opt = |v: Option<String>| v.unwrap_or_default();
    [
        row.position.to_string(),
        row.label.clone(),
        row.state.to_string(),
        row.method.clone(),
        row.url.clone(),
        row.attempts.to_string(),
        opt(row.final_status.map(|s| s.to_string())),
        opt(row.error_kind.map(|k| k.to_string())),
        opt(row.outcome.map(|o| snake(&o))),
        row.reason.clone(),
        opt(row.assertion.clone()),
        opt(row.run_id.clone()),
        opt(row.started_at.as_ref().map(BatchReportRow::time)),
        opt(row.finished_at.as_ref().map(BatchReportRow::time)),
        opt(row.elapsed_ms.map(|ms| ms.to_string())),
        row.attempts_detail
            .iter()
            .map(crate::model::BatchReportAttempt::result)
            .collect::<Vec<_>>()
            .join(";"),
        row.attempts_detail
            .iter()
            .filter_map(|a| a.wait_ms.map(|ms| ms.to_string()))
            .collect::<Vec<_>>()
            .join(";"),
        opt(row.profile.clone()),
        opt(row.source_line.map(|l| l.to_string())),
    ]
}

/// `report` as CSV text ([`crate::interop::csv_cell::CsvText`]): the header row
/// ([`REPORT_CSV_COLUMNS`]) then one row per item, secrets masked ([`super::render_report`] has
/// the rule).
pub fn report_csv(report: &BatchReport, secrets: &[String]) -> String {
    let mut csv = crate::interop::csv_cell::CsvText::new();
    csv.row(REPORT_CSV_COLUMNS);
    for row in &report.rows {
        csv.row(cells(&masked_row(row, secrets)));
    }
    csv.finish()
}
