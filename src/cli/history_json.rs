//! `history show --json`: a recorded run's events as JSON Lines, told as recorded.
//!
//! The events are the replay's ([`crate::store::replay_events`]), with three corrections so
//! the lines say what the history knows rather than what a live run would have sent:
//! - `run_id` is the run's history id (the one `history show` / `export` take), not the
//!   in-process number a replay gets;
//! - an attempt that started but has no record is an `attempt_unanswered` line
//!   ("no answer recorded (interrupted)") before `run_finished`;
//! - an `interrupted` run's `run_finished` has `kind` `interrupted` (not the engine's `error`),
//!   its recorded message, `elapsed_ms` null (never measured) and `recorded_until_ms`, the
//!   last moment the records reach (the run lasted at least that long).

use super::exit::CliError;
use crate::model::RunEvent;
use crate::store::{RecordedOutcome, StoredRun};
use serde_json::{Value, json};

/// The JSON lines (without line ends) `history show --json` prints for `event` of `stored`.
///
/// # Errors
/// Exit 1 when an event cannot be encoded.
pub fn show_lines(stored: &StoredRun, event: &RunEvent) -> Result<Vec<String>, CliError> {
    let encode = |v: &Value| {
        serde_json::to_string(v)
            .map_err(|e| CliError::failed(format!("cannot encode event as JSON: {e}")))
    };
    let mut value = serde_json::to_value(event)
        .map_err(|e| CliError::failed(format!("cannot encode event as JSON: {e}")))?;
    value["run_id"] = json!(stored.run.id);
    let mut lines = Vec::new();
    if let RunEvent::RunFinished { .. } = event {
        if let (Some(u), Some(outcome)) = (&stored.unanswered, stored.run.outcome) {
            lines.push(encode(&json!({
                "event": "attempt_unanswered",
                "run_id": stored.run.id,
                "attempt": u.number,
                "message": format!("no answer recorded ({})", outcome.id()),
            }))?);
        }
        if stored.run.outcome == Some(RecordedOutcome::Interrupted) {
            value["outcome"]["kind"] = json!(RecordedOutcome::Interrupted.id());
            value["outcome"]["message"] = json!(
                stored
                    .run
                    .outcome_message
                    .as_deref()
                    .unwrap_or("interrupted: the process ended before the run finished")
            );
            value["elapsed_ms"] = Value::Null;
            value["recorded_until_ms"] = json!(stored.recorded_until_ms());
        }
    }
    lines.push(encode(&value)?);
    Ok(lines)
}
