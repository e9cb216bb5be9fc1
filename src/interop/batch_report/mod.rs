//! Batch results out: the items of a batch as CSV ([`report_csv`]), JSON Lines
//! ([`report_json_lines`]) or JUnit XML ([`report_junit`]), from plain
//! [`BatchReportRow`]s the runner fills in.
//!
//! Every writer passes each row through the one secrets rule first (DESIGN.md §9,
//! [`crate::model::secrets`]): the URL's user info and secret query values, secret header
//! values, and every secret value the request sends (plus the caller's `secrets`, e.g. secret
//! variables) are written `***`, in the label, the reason and the assertion too. There is no
//! way to include secrets in a batch report.
//!
//! ```
//! use retryscope::interop::batch_report::{BatchReport, ReportFormat, render_report};
//! use retryscope::model::{BatchItemState, BatchReportRow, BatchRequest, RequestSpec};
//! let item = BatchRequest { name: Some("health".into()), request: RequestSpec::get("http://127.0.0.1:8080/status/200?key=k1"), profile: None, source_line: Some(1) };
//! let mut row = BatchReportRow::new(&item, 1, BatchItemState::Done);
//! row.attempts = 1;
//! row.final_status = Some(200);
//! let report = BatchReport { batch_id: "b1".into(), title: "smoke.jsonl".into(), rows: vec![row] };
//! let csv = render_report(ReportFormat::Csv, &report, &[]).unwrap();
//! assert!(csv.lines().nth(1).unwrap().starts_with("1,health,done,GET,http://127.0.0.1:8080/status/200?key=***,1,200,"));
//! ```

mod csv_report;
mod jsonl_report;
mod junit_report;
mod masked_row;

pub use csv_report::{REPORT_CSV_COLUMNS, report_csv};
pub use jsonl_report::report_json_lines;
pub use junit_report::{report_junit, xml_safe};

use crate::model::BatchReportRow;
use std::fmt;
use std::path::Path;
use std::str::FromStr;

/// The report formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReportFormat {
    /// One row per item (`.csv`).
    Csv,
    /// One JSON object per item (`.jsonl`, `.ndjson`).
    JsonLines,
    /// JUnit XML, one test case per item (`.xml`).
    Junit,
}

/// Each format in declaration order: its name, its file extension, the names [`FromStr`]
/// reads and the extensions [`ReportFormat::from_path`] reads (space-separated).
#[rustfmt::skip]
const FORMATS: [(ReportFormat, &str, &str, &str, &str); 3] = [
    (ReportFormat::Csv, "csv", "csv", "csv", "csv"),
    (ReportFormat::JsonLines, "jsonl", "jsonl", "jsonl ndjson json-lines", "jsonl ndjson"),
    (ReportFormat::Junit, "junit", "xml", "junit xml", "xml"),
];

impl ReportFormat {
    /// Every format.
    pub const ALL: [ReportFormat; 3] = [Self::Csv, Self::JsonLines, Self::Junit];

    /// The short name (`csv`, `jsonl`, `junit`).
    pub fn name(self) -> &'static str {
        FORMATS[self as usize].1
    }

    /// The file extension written (`csv`, `jsonl`, `xml`).
    pub fn extension(self) -> &'static str {
        FORMATS[self as usize].2
    }

    /// The format a report path's extension (any case) asks for: `.csv`, `.jsonl` /
    /// `.ndjson`, `.xml`.
    ///
    /// ```
    /// use retryscope::interop::batch_report::ReportFormat;
    /// use std::path::Path;
    /// assert_eq!(ReportFormat::from_path(Path::new("out/junit.XML")), Some(ReportFormat::Junit));
    /// assert_eq!(ReportFormat::from_path(Path::new("report.txt")), None);
    /// ```
    pub fn from_path(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        FORMATS
            .iter()
            .find(|r| r.4.split(' ').any(|e| e == ext))
            .map(|r| r.0)
    }
}

/// A report format name that is not one of `csv`, `jsonl`, `junit`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown report format `{0}` (formats: csv, jsonl, junit)")]
pub struct UnknownReportFormat(
    /// The name as given.
    pub String,
);

impl FromStr for ReportFormat {
    type Err = UnknownReportFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim().to_ascii_lowercase();
        let found = FORMATS.iter().find(|r| r.3.split(' ').any(|n| n == name));
        found
            .map(|r| r.0)
            .ok_or_else(|| UnknownReportFormat(s.to_owned()))
    }
}

impl fmt::Display for ReportFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A batch's results: what every report format is written from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BatchReport {
    /// The batch's id (JUnit: the suite's `id` and a `batch_id` property).
    pub batch_id: String,
    /// A title for the batch, e.g. the list file's name (JUnit: the suite's name and every
    /// test case's `classname`).
    pub title: String,
    /// The items, in batch order.
    pub rows: Vec<BatchReportRow>,
}

/// A report could not be written (the writers write to memory, so this is not expected).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReportError {
    /// A row could not be serialised as JSON.
    #[error("cannot write the JSON Lines report: {0}")]
    Json(String),
    /// The XML writer failed.
    #[error("cannot write the JUnit XML report: {0}")]
    Xml(String),
}

/// `report` in `format`, secrets masked: every secret value the request sends (URL user info,
/// secret query values, secret headers, by the one rule) and each of `secrets` (e.g. values of
/// secret variables) is written `***`.
///
/// # Errors
/// [`ReportError`] if a writer fails (not expected; they write to memory).
pub fn render_report(
    format: ReportFormat,
    report: &BatchReport,
    secrets: &[String],
) -> Result<String, ReportError> {
    match format {
        ReportFormat::Csv => Ok(report_csv(report, secrets)),
        ReportFormat::JsonLines => report_json_lines(report, secrets),
        ReportFormat::Junit => report_junit(report, secrets),
    }
}

/// A unit enum's serde name (`gave_up`).
fn snake<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}
