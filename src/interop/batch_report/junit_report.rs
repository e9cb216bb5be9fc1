//! The batch results as JUnit XML, for CI dashboards (Jenkins, GitHub and other test report readers):
//! one `<testsuite>` per batch, one `<testcase>` per item named by its label. Written with
//! `quick-xml`; valid against the junit-10 structure of Jenkins' `xunit` plugin
//! (tests/fixtures/junit-schema/junit-10.xsd).
//!
//! - `done`: a passing test case.
//! - `error`: `<failure type="…" message="…">`: the message is one short line (the failed
//!   assertion, else the reason; at most [`FAILURE_MESSAGE_CHARS`] characters), the text holds
//!   the attempts (and, when the message is the assertion, the run's own words of the reason
//!   without it), each said once. `type` is the assertion (`assertion`), else the last attempt's error kind, else the
//!   run's outcome (`gave_up`).
//! - `cancelled`: `<skipped message="cancelled"/>`; `pending` / `running` (a report written
//!   before the batch ended): `<skipped message="not finished (pending)"/>`.
//! - `<system-out>`: the request, the state, the run id; for a case that did not fail, also the
//!   reason and each attempt with its status (or error kind), its verdict's reason and the wait
//!   after it (a failure has them in its text instead).

use super::{BatchReport, ReportError, masked_row::masked_row, snake};
use crate::model::{BatchItemState, BatchReportRow};
use quick_xml::Writer;
use quick_xml::events::attributes::Attribute;
use quick_xml::events::{BytesDecl, BytesText, Event};
use quick_xml::name::QName;
use std::borrow::Cow;
use std::fmt::Write as _;
use std::io;

/// `text` with every character XML 1.0 cannot hold (control characters other than tab, line
/// feed and carriage return; lone surrogates cannot occur in a `str`; U+FFFE, U+FFFF) replaced by
/// U+FFFD: escaping does not make them legal, and one would make the whole report unreadable.
///
/// ```
/// use retryscope::interop::batch_report::xml_safe;
/// assert_eq!(xml_safe("a\u{1}b\tc"), "a\u{fffd}b\tc");
/// ```
pub fn xml_safe(text: &str) -> Cow<'_, str> {
    let legal = |c: char| {
        matches!(c, '\t' | '\n' | '\r')
            || ('\u{20}'..='\u{d7ff}').contains(&c)
            || ('\u{e000}'..='\u{fffd}').contains(&c)
            || c >= '\u{10000}'
    };
    if text.chars().all(legal) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(
            text.chars()
                .map(|c| if legal(c) { c } else { '\u{fffd}' })
                .collect(),
        )
    }
}

/// Attribute `key="value"`: `value` made [`xml_safe`], escaped, and its tabs and line breaks
/// written as character references, so a reader gets them back (a literal one would be read
/// as a space: XML's attribute-value normalisation).
fn attr<'a>(key: &'a str, value: &str) -> Attribute<'a> {
    let escaped = quick_xml::escape::escape(xml_safe(value).as_ref())
        .replace('\t', "&#9;")
        .replace('\n', "&#10;")
        .replace('\r', "&#13;");
    Attribute {
        key: QName(key.as_bytes()),
        value: Cow::Owned(escaped.into_bytes()),
    }
}

/// Seconds with millisecond precision, as JUnit's `time` attributes hold them (`1.250`).
fn seconds(ms: u64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

/// Most characters of a `<failure>`'s `message` (longer ones end with `…`; the whole text is in
/// the failure's body or the reason).
pub const FAILURE_MESSAGE_CHARS: usize = 200;

/// One line per attempt: `attempt 1: 503 (503 is in retry_on.status); waited 100 ms`.
fn attempt_lines(row: &BatchReportRow) -> Vec<String> {
    row.attempts_detail
        .iter()
        .map(|a| {
            let mut line = format!("attempt {}: {}", a.attempt, a.result());
            if !a.reason.is_empty() {
                let _ = write!(line, " ({})", a.reason);
            }
            if let Some(ms) = a.wait_ms {
                let _ = write!(line, "; waited {ms} ms");
            }
            line
        })
        .collect()
}

/// `text` on one line, at most [`FAILURE_MESSAGE_CHARS`] characters.
fn short_line(text: &str) -> String {
    crate::model::quote::fit_chars(&text.replace(['\n', '\r'], " "), FAILURE_MESSAGE_CHARS)
}

/// The `<system-out>` text of one (masked) row; a failed row's reason and attempts are in its
/// `<failure>` instead.
fn system_out(row: &BatchReportRow) -> String {
    let failed = row.state == BatchItemState::Error;
    let attempts = crate::model::counted(u64::from(row.attempts), "attempt", "attempts");
    let mut out = format!(
        "{} {}\nstate: {}, {attempts}",
        row.method, row.url, row.state
    );
    if let Some(status) = row.final_status {
        let _ = write!(out, ", final status {status}");
    }
    if let Some(kind) = row.error_kind {
        let _ = write!(out, ", error {kind}");
    }
    if let Some(run_id) = &row.run_id {
        let _ = write!(out, "\nrun: {run_id}");
    }
    if let Some(profile) = &row.profile {
        let _ = write!(out, "\nprofile: {profile}");
    }
    if failed {
        return out;
    }
    if !row.reason.is_empty() {
        let _ = write!(out, "\nreason: {}", row.reason);
    }
    for line in attempt_lines(row) {
        out.push('\n');
        out.push_str(&line);
    }
    out
}

/// Counts and time of a suite.
struct Totals {
    tests: usize,
    failures: usize,
    skipped: usize,
    /// Wall time from the first start to the last finish, ms (0 when unknown).
    time_ms: u64,
}

fn totals(rows: &[BatchReportRow]) -> Totals {
    let first = rows.iter().filter_map(|r| r.started_at).min();
    let last = rows.iter().filter_map(|r| r.finished_at).max();
    let wall_ms = match (first, last) {
        (Some(a), Some(b)) => u64::try_from((b - a).num_milliseconds()).unwrap_or(0),
        _ => 0,
    };
    // Wall time from the first start to the last finish, but never less than one of its
    // cases (timestamps are whole ms; a case's time is measured on the monotonic clock).
    let longest_case = rows.iter().filter_map(|r| r.elapsed_ms).max().unwrap_or(0);
    let time_ms = wall_ms.max(longest_case);
    Totals {
        tests: rows.len(),
        failures: rows
            .iter()
            .filter(|r| r.state == BatchItemState::Error)
            .count(),
        skipped: rows
            .iter()
            .filter(|r| r.state != BatchItemState::Error && r.state != BatchItemState::Done)
            .count(),
        time_ms,
    }
}

/// Writes one `<testcase>`.
fn write_case(w: &mut Writer<Vec<u8>>, row: &BatchReportRow, classname: &str) -> io::Result<()> {
    let time = row.elapsed_ms.map(seconds);
    let mut case = w
        .create_element("testcase")
        .with_attribute(attr("name", &row.label))
        .with_attribute(attr("classname", classname));
    if let Some(time) = &time {
        case = case.with_attribute(attr("time", time.as_str()));
    }
    case.write_inner_content(|w| {
        match row.state {
            BatchItemState::Error => {
                let kind = if row.assertion.is_some() {
                    "assertion".to_owned()
                } else if let Some(kind) = row.error_kind {
                    kind.to_string()
                } else if let Some(outcome) = row.outcome {
                    snake(&outcome)
                } else {
                    "error".to_owned()
                };
                let headline = row.assertion.as_deref().unwrap_or(&row.reason);
                let message = short_line(headline);
                let mut lines = Vec::new();
                if message != headline {
                    // Cut short in the attribute: whole here, once.
                    lines.push(headline.to_owned());
                }
                // The run's own words, without the assertion its reason ends with.
                let run_words = crate::policy::split_failed_assertion(&row.reason).0;
                if row.assertion.is_some() && !run_words.is_empty() && run_words != headline {
                    lines.push(format!("reason: {run_words}"));
                }
                lines.extend(attempt_lines(row));
                let text = lines.join("\n");
                w.create_element("failure")
                    .with_attribute(attr("type", &kind))
                    .with_attribute(attr("message", &message))
                    .write_text_content(BytesText::new(&xml_safe(&text)))?;
            }
            BatchItemState::Cancelled | BatchItemState::Pending | BatchItemState::Running => {
                let message = match row.state {
                    BatchItemState::Cancelled => "cancelled".to_owned(),
                    other => format!("not finished ({other})"),
                };
                w.create_element("skipped")
                    .with_attribute(attr("message", &message))
                    .write_empty()?;
            }
            BatchItemState::Done => {}
        }
        w.create_element("system-out")
            .write_text_content(BytesText::new(&xml_safe(&system_out(row))))?;
        Ok(())
    })?;
    Ok(())
}

fn write_document(report: &BatchReport, rows: &[BatchReportRow]) -> io::Result<Vec<u8>> {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let t = totals(rows);
    let (tests, failures, skipped, time) = (
        t.tests.to_string(),
        t.failures.to_string(),
        t.skipped.to_string(),
        seconds(t.time_ms),
    );
    let (title, batch_id) = (report.title.as_str(), report.batch_id.as_str());
    let timestamp = rows
        .iter()
        .filter_map(|r| r.started_at)
        .min()
        .map(|at| BatchReportRow::time(&at));
    w.create_element("testsuites")
        .with_attribute(attr("name", "retryscope batch"))
        .with_attribute(attr("tests", tests.as_str()))
        .with_attribute(attr("failures", failures.as_str()))
        .with_attribute(attr("errors", "0"))
        .with_attribute(attr("time", time.as_str()))
        .write_inner_content(|w| {
            let mut suite = w
                .create_element("testsuite")
                .with_attribute(attr("name", title))
                .with_attribute(attr("id", batch_id))
                .with_attribute(attr("tests", tests.as_str()))
                .with_attribute(attr("failures", failures.as_str()))
                .with_attribute(attr("errors", "0"))
                .with_attribute(attr("skipped", skipped.as_str()))
                .with_attribute(attr("time", time.as_str()));
            if let Some(timestamp) = &timestamp {
                suite = suite.with_attribute(attr("timestamp", timestamp.as_str()));
            }
            suite.write_inner_content(|w| {
                w.create_element("properties").write_inner_content(|w| {
                    w.create_element("property")
                        .with_attribute(attr("name", "batch_id"))
                        .with_attribute(attr("value", batch_id))
                        .write_empty()?;
                    Ok(())
                })?;
                for row in rows {
                    write_case(w, row, title)?;
                }
                Ok(())
            })?;
            Ok(())
        })?;
    let mut bytes = w.into_inner();
    bytes.push(b'\n');
    Ok(bytes)
}

/// `report` as a JUnit XML document (UTF-8), secrets masked ([`super::render_report`] has the
/// rule); characters XML cannot hold become U+FFFD ([`xml_safe`]).
///
/// # Errors
/// [`ReportError::Xml`] if the XML writer fails (it writes to memory; not expected).
pub fn report_junit(report: &BatchReport, secrets: &[String]) -> Result<String, ReportError> {
    let rows: Vec<BatchReportRow> = report.rows.iter().map(|r| masked_row(r, secrets)).collect();
    let bytes = write_document(report, &rows).map_err(|e| ReportError::Xml(e.to_string()))?;
    String::from_utf8(bytes).map_err(|e| ReportError::Xml(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_message_is_one_short_line() {
        assert_eq!(short_line("a\nb"), "a b");
        let long = "x".repeat(FAILURE_MESSAGE_CHARS + 5);
        let cut = short_line(&long);
        assert_eq!(cut.chars().count(), FAILURE_MESSAGE_CHARS);
        assert!(cut.ends_with('…'));
    }

    fn row(state: BatchItemState) -> BatchReportRow {
        let item = crate::model::BatchRequest {
            name: None,
            request: crate::model::RequestSpec::get("http://127.0.0.1:1/x"),
            profile: None,
            source_line: None,
        };
        BatchReportRow::new(&item, 1, state)
    }

    #[test]
    fn a_failed_assertion_after_the_runs_words_is_written_once() {
        let assertion =
            "assertion --expect-status 200-299 failed: status 404, expected one of 200-299";
        let mut failed = row(BatchItemState::Error);
        failed.reason = format!("404 is not retryable; {assertion}");
        failed.assertion = Some(assertion.to_owned());
        let report = BatchReport {
            rows: vec![failed],
            ..BatchReport::default()
        };
        let xml = report_junit(&report, &[]).expect("writes");
        assert_eq!(xml.matches(assertion).count(), 1, "{xml}");
        assert!(xml.contains(&format!("message=\"{assertion}\"")), "{xml}");
        assert!(
            xml.contains("reason: 404 is not retryable\n")
                || xml.contains("reason: 404 is not retryable<"),
            "the run's words, without the assertion: {xml}"
        );
    }

    #[test]
    fn the_suite_time_is_never_below_one_of_its_cases() {
        let at =
            chrono::DateTime::parse_from_rfc3339("2026-12-04T10:00:00.000+00:00").expect("time");
        let mut row = row(BatchItemState::Done);
        row.started_at = Some(at);
        row.finished_at = Some(at + chrono::Duration::milliseconds(1_000));
        row.elapsed_ms = Some(1_001);
        assert_eq!(totals(&[row.clone()]).time_ms, 1_001);
        row.elapsed_ms = Some(900);
        assert_eq!(totals(&[row]).time_ms, 1_000, "the wall time when longer");
    }
}
