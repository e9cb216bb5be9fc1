//! A batch's results as report rows: each queued item with what its recorded run
//! did (attempts, statuses, waits), for `retryscope batch --report` and the Batch tab's export.
//! The rows are written by `crate::interop::batch_report`, which masks them with the one
//! secrets rule.

use crate::interop::batch_report::BatchReport;
use crate::model::OutcomeKind;
use crate::model::{
    AttemptOutcome, BatchReportAttempt, BatchReportRow, BatchRequest, ErrorKind, Verdict,
};
use crate::store::{BatchError, BatchItemRecord, BatchQueue, StoredRun};

/// Items read from the queue per page.
const PAGE: u64 = 1000;

/// The report of batch `batch_id` (a full id or a unique prefix): every item in position order,
/// `title` naming it (the list file's name). Items whose run is in the history get its outcome,
/// elapsed time and attempts; the rest keep what the queue holds.
///
/// # Errors
/// An unknown batch, SQL and decode errors.
pub fn batch_report(
    queue: &BatchQueue,
    batch_id: &str,
    title: &str,
) -> Result<BatchReport, BatchError> {
    let batch = queue.batch(batch_id)?;
    let mut rows = Vec::new();
    let mut offset = 0;
    loop {
        let page = queue.items(&batch.id, None, offset, PAGE)?;
        let read = page.len() as u64;
        for item in page {
            let run = match &item.run_id {
                Some(id) => queue.recorded_run(id)?,
                None => None,
            };
            rows.push(report_row(&item, run.as_ref()));
        }
        if read < PAGE {
            break;
        }
        offset += read;
    }
    Ok(BatchReport {
        batch_id: batch.id,
        title: title.to_owned(),
        rows,
    })
}

/// One item's row: the queue's record, and its run when recorded.
pub fn report_row(item: &BatchItemRecord, run: Option<&StoredRun>) -> BatchReportRow {
    let request = BatchRequest {
        name: item.name.clone(),
        request: item.request.clone(),
        profile: item.profile.clone(),
        source_line: item.source_line,
    };
    let mut row = BatchReportRow::new(&request, item.position + 1, item.state);
    row.attempts = item.attempts;
    row.final_status = item.last_status;
    row.error_kind = item
        .error_kind
        .as_deref()
        .and_then(|id| ErrorKind::ALL.into_iter().find(|k| k.id() == id));
    row.reason = item.reason.clone().unwrap_or_default();
    row.assertion = crate::policy::split_failed_assertion(&row.reason)
        .1
        .map(str::to_owned);
    row.run_id.clone_from(&item.run_id);
    row.started_at = item.started_at;
    row.finished_at = item.ended_at;
    if let Some(stored) = run {
        row.outcome = stored
            .run
            .outcome
            .filter(|k| *k != OutcomeKind::Interrupted);
        row.elapsed_ms = stored.run.elapsed_ms.map(round_ms);
        row.attempts_detail = stored.answered().filter_map(report_attempt).collect();
    }
    row
}

fn report_attempt(a: &crate::model::AttemptRow) -> Option<BatchReportAttempt> {
    let r = a.result.as_ref()?;
    let (status, error_kind) = match &r.outcome {
        AttemptOutcome::Response(r) => (Some(r.status), None),
        AttemptOutcome::Error(e) => (None, Some(e.kind)),
    };
    let reason = match &r.verdict {
        Verdict::Retry { reason, .. } | Verdict::Stop { reason } => reason.clone(),
        Verdict::Success { condition } => condition.clone().unwrap_or_default(),
    };
    Some(BatchReportAttempt {
        attempt: a.number,
        status,
        error_kind,
        reason,
        wait_ms: a.wait.as_ref().filter(|w| !w.skipped).map(|w| w.planned_ms),
    })
}

/// Milliseconds as a whole number (negative and NaN read as 0).
fn round_ms(ms: f64) -> u64 {
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "clamped to 0..=u64::MAX first"
    )]
    let whole = ms.round().clamp(0.0, u64::MAX as f64) as u64;
    whole
}
