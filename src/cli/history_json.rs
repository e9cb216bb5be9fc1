//! `history show --json`: a recorded run's events as JSON Lines, told as recorded.
//!
//! The events are the run fold's ([`crate::model::RunFold::events`]), with three corrections so
//! the lines say what the history knows rather than what a live run would have sent:
//! - `run_id` is the run's history id (the one `history show` / `export` take), not an
//!   in-process number;
//! - an attempt that started but has no record is an `attempt_unanswered` line
//!   ("no answer recorded (interrupted)") before `run_finished`;
//! - an `interrupted` run's `run_finished` has `elapsed_ms` null (never measured) and
//!   `recorded_until_ms`, the last moment the records reach (the run lasted at least that long).

use super::exit::CliError;
use crate::model::RunEvent;
use crate::store::StoredRun;
use serde_json::{Value, json};

/// The JSON Lines `history show --json` prints for `stored` (each line ends with `\n`).
///
/// # Errors
/// Exit 1 when an event cannot be encoded.
pub fn show_lines(stored: &StoredRun) -> Result<String, CliError> {
    let mut out = String::new();
    let mut push = |v: &Value| -> Result<(), CliError> {
        let line = serde_json::to_string(v)
            .map_err(|e| CliError::failed(format!("cannot encode event as JSON: {e}")))?;
        out.push_str(&line);
        out.push('\n');
        Ok(())
    };
    let finish = stored.fold.finish.as_ref();
    for event in stored.fold.events() {
        let mut value = serde_json::to_value(&*event)
            .map_err(|e| CliError::failed(format!("cannot encode event as JSON: {e}")))?;
        value["run_id"] = json!(stored.run.id);
        if let (RunEvent::RunFinished { .. }, Some(f)) = (&*event, finish) {
            if let Some(u) = stored.unanswered() {
                push(&json!({
                    "event": "attempt_unanswered",
                    "run_id": stored.run.id,
                    "attempt": u.number,
                    "message": format!("no answer recorded ({})", f.outcome.kind.id()),
                }))?;
            }
            if !f.measured() {
                value["elapsed_ms"] = Value::Null;
                value["recorded_until_ms"] = json!(f.elapsed_ms);
            }
        }
        push(&value)?;
    }
    Ok(out)
}
