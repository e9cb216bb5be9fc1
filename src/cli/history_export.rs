//! `history export` formats: the run as one JSON document, a CSV of its attempts, HAR 1.2, and
//! the timeline plot as PNG.
//! All come from the stored records, which are already masked (DESIGN.md §9).

use super::exit::CliError;
use crate::store::StoredRun;

/// The stored run's timeline plot as PNG bytes ([`crate::interop::TimelinePlot::png`], as
/// `run --png` and the window's "Export PNG…" draw it).
///
/// # Errors
/// Exit 1 when the plot cannot be drawn or encoded.
pub fn png(stored: &StoredRun) -> Result<Vec<u8>, CliError> {
    crate::interop::TimelinePlot::of_fold(&stored.fold)
        .png()
        .map_err(|e| CliError::failed(e.to_string()))
}

/// The stored run as HAR 1.2 (pretty JSON ending with a newline), by the same
/// [`crate::interop::run_to_har`] as `run --har`, from the run's fold and its stored request
/// (masked when recorded).
///
/// # Errors
/// Exit 1 when the document cannot be encoded.
pub fn har(stored: &StoredRun) -> Result<String, CliError> {
    let request = crate::model::secrets::mask_spec(&stored.run.request, &[]);
    let har = crate::interop::run_to_har(&stored.fold, Some(&request));
    serde_json::to_string_pretty(&har)
        .map(|s| s + "\n")
        .map_err(|e| CliError::failed(format!("cannot encode the run as HAR: {e}")))
}

/// The stored run's attempts as CSV ([`crate::interop::attempts_csv`], the window's "Copy as
/// CSV" too), `run_id` the history id.
pub fn csv(stored: &StoredRun) -> String {
    crate::interop::attempts_csv(&stored.fold, &stored.run.id)
}

/// The run with its attempts as pretty JSON (ends with a newline): `run` (the record),
/// `attempts` (the rows with a record) and, for an attempt that started but has no record,
/// `unanswered` (number, start, method, URL).
///
/// # Errors
/// Exit 1 when the records cannot be encoded.
pub fn json(stored: &StoredRun) -> Result<String, CliError> {
    let mut doc = serde_json::json!({
        "run": stored.run,
        "attempts": stored.answered().collect::<Vec<_>>(),
    });
    if let Some(u) = stored.unanswered() {
        doc["unanswered"] = serde_json::json!(u);
    }
    serde_json::to_string_pretty(&doc)
        .map(|s| s + "\n")
        .map_err(|e| CliError::failed(format!("cannot encode the run as JSON: {e}")))
}
