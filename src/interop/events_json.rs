//! A run's events as JSON Lines (our own format: one [`RunEvent`](crate::model::RunEvent) per
//! line, as `retryscope run --json` prints them), from the run's masked [`RunFold`].

use crate::model::RunFold;

/// The events of `fold` ([`RunFold::events`]) as JSON Lines (each line one event, `\n` ends).
pub fn events_json_lines(fold: &RunFold) -> String {
    let mut out = String::new();
    for e in fold.events() {
        if let Ok(line) = serde_json::to_string(&e) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}
