//! One batch item as the result reports (CSV, JSON Lines, JUnit XML) read it: plain data the
//! runner fills from its queue and history records. Values are as sent; the report writers
//! mask secrets (DESIGN.md §9), so a row may hold them.

use super::attempt::ErrorKind;
use super::batch_item_state::BatchItemState;
use super::batch_request::BatchRequest;
use super::event::OutcomeKind;
use super::request::KeyValue;
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

/// One attempt of an item's run, as the reports list it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BatchReportAttempt {
    /// 1-based attempt number (attempt 1 is the first try).
    pub attempt: u32,
    /// Response status, when a response arrived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Error kind, when no response arrived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<ErrorKind>,
    /// The verdict's reason (`503 is in retry_on.status`), empty when not known.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// The wait that followed this attempt, ms (planned); `None` after the last attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_ms: Option<u64>,
}

impl BatchReportAttempt {
    /// The result in one word: the status (`503`), else the error kind (`reset`), else `?`.
    pub fn result(&self) -> String {
        match (self.status, self.error_kind) {
            (Some(status), _) => status.to_string(),
            (None, Some(kind)) => kind.to_string(),
            (None, None) => "?".to_owned(),
        }
    }
}

/// One batch item in a result report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchReportRow {
    /// 1-based position of the item in its batch.
    pub position: u64,
    /// The item's label: its name, else `METHOD URL` ([`BatchRequest::label`]).
    pub label: String,
    /// Request method.
    pub method: String,
    /// Request URL as sent (masked by the writers).
    pub url: String,
    /// Request headers as sent (secret values masked by the writers); only the JSON Lines
    /// report writes them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<KeyValue>,
    /// The item's own profile name, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Line (or HAR entry) of the imported list the item came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_line: Option<u64>,
    /// Where the item is in its life.
    pub state: BatchItemState,
    /// Attempts made in its (last) run; 0 before it ran.
    pub attempts: u32,
    /// Status of the last response, when one arrived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_status: Option<u16>,
    /// Error kind of the last attempt, when it got no response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<ErrorKind>,
    /// How the run ended, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<OutcomeKind>,
    /// The reason in the run banner's words (`gave up after 4 attempts (503)`), or why the
    /// item is in its state (`cancelled before it was sent`); empty when there is none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// The batch assertion that failed, in words (`assertion --expect-status 200 failed: status
    /// 404, expected one of 200`), when that is why the item is `error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assertion: Option<String>,
    /// The run's id in history, when it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// When the item's run started (written as [`BatchReportRow::time`] writes it).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_time"
    )]
    pub started_at: Option<DateTime<FixedOffset>>,
    /// When it reached its state (for a final state), else `None`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_time"
    )]
    pub finished_at: Option<DateTime<FixedOffset>>,
    /// Elapsed time of the run, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_ms: Option<u64>,
    /// Every attempt, in order (may be empty when the runner does not have them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attempts_detail: Vec<BatchReportAttempt>,
}

impl BatchReportRow {
    /// A time as every report format writes it (CSV, JSON Lines, JUnit): RFC 3339 with
    /// milliseconds and the offset it was recorded with.
    ///
    /// ```
    /// use retryscope::model::BatchReportRow;
    /// let at = chrono::DateTime::parse_from_rfc3339("2026-12-01T18:00:00.250999Z").unwrap();
    /// assert_eq!(BatchReportRow::time(&at), "2026-12-01T18:00:00.250+00:00");
    /// ```
    pub fn time(at: &DateTime<FixedOffset>) -> String {
        at.to_rfc3339_opts(chrono::SecondsFormat::Millis, false)
    }

    /// A row for `item` at 1-based `position` in `state`, request fields filled from the item
    /// and everything about its run empty, for the runner to fill in.
    ///
    /// ```
    /// use retryscope::model::{BatchItemState, BatchReportRow, BatchRequest, RequestSpec};
    /// let item = BatchRequest { name: None, request: RequestSpec::get("http://127.0.0.1:1/x"), profile: None, source_line: Some(2) };
    /// let row = BatchReportRow::new(&item, 7, BatchItemState::Pending);
    /// assert_eq!((row.label.as_str(), row.position, row.source_line), ("GET http://127.0.0.1:1/x", 7, Some(2)));
    /// ```
    pub fn new(item: &BatchRequest, position: u64, state: BatchItemState) -> Self {
        Self {
            position,
            label: item.label(),
            method: item.request.method.clone(),
            url: item.request.url.clone(),
            headers: item.request.headers.clone(),
            profile: item.profile.clone(),
            source_line: item.source_line,
            state,
            attempts: 0,
            final_status: None,
            error_kind: None,
            outcome: None,
            reason: String::new(),
            assertion: None,
            run_id: None,
            started_at: None,
            finished_at: None,
            elapsed_ms: None,
            attempts_detail: Vec::new(),
        }
    }
}

/// `started_at` / `finished_at` as [`BatchReportRow::time`] writes them.
#[allow(
    clippy::ref_option,
    reason = "serde's serialize_with passes the field by reference"
)]
fn serialize_time<S: serde::Serializer>(
    at: &Option<DateTime<FixedOffset>>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match at {
        Some(at) => s.serialize_str(&BatchReportRow::time(at)),
        None => s.serialize_none(),
    }
}
