//! The batch results as JSON Lines: one [`BatchReportRow`](crate::model::BatchReportRow)
//! object per line (its serde shape: empty fields left out, times as every report writes them,
//! [`BatchReportRow::time`](crate::model::BatchReportRow::time)), for `jq` and scripts.

use super::{BatchReport, ReportError, masked_row::masked_row};

/// `report` as JSON Lines text, one item per line (each line ends with `\n`), secrets masked
/// ([`super::render_report`] has the rule).
///
/// # Errors
/// [`ReportError::Json`] if a row cannot be serialised (not expected: rows are plain data).
pub fn report_json_lines(report: &BatchReport, secrets: &[String]) -> Result<String, ReportError> {
    let mut out = String::new();
    for row in &report.rows {
        let line = serde_json::to_string(&masked_row(row, secrets))
            .map_err(|e| ReportError::Json(e.to_string()))?;
        out.push_str(&line);
        out.push('\n');
    }
    Ok(out)
}
