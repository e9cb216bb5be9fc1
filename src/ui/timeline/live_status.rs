//! Status text of a run that has not finished: "Attempt 2 in flight…", "Next attempt in 1.8 s".

use super::run_timeline::{Phase, Timeline};
use super::units::{format_ms, format_secs};
use crate::model::OutcomeKind;
use std::time::Instant;

/// The live status line, or `None` once the run finished (the banner replaces it).
///
/// With `now` a running wait shows its countdown (planned ms minus the time since the UI
/// received `WaitScheduled`); without it (plain-text export) the planned ms.
pub fn live_status(timeline: &Timeline, now: Option<Instant>) -> Option<String> {
    Some(match timeline.phase() {
        Phase::Finished => return None,
        Phase::Starting => "Starting…".to_owned(),
        Phase::InFlight(n) => format!("Attempt {n} in flight…"),
        Phase::Waiting(n) => {
            let wait = timeline.current_wait()?;
            match now.and_then(|now| timeline.remaining_ms(wait, now)) {
                Some(left) => format!("Next attempt in {}", format_secs(left)),
                None => format!(
                    "Waiting {} before attempt {}",
                    format_ms(wait.planned_ms as f64),
                    n + 1
                ),
            }
        }
    })
}

/// The short state shown in a run's tab: `waiting 1.2 s`, `attempt 2 in flight`, `succeeded`.
pub fn short_status(timeline: &Timeline, now: Instant) -> String {
    match timeline.phase() {
        Phase::Starting => "starting".to_owned(),
        Phase::InFlight(n) => format!("attempt {n} in flight"),
        Phase::Waiting(_) => match timeline
            .current_wait()
            .and_then(|w| timeline.remaining_ms(w, now))
        {
            Some(left) => format!("waiting {}", format_secs(left)),
            None => "waiting".to_owned(),
        },
        // The outcome's id in words (`gave up`).
        Phase::Finished => timeline
            .finished()
            .map_or(OutcomeKind::Error, |f| f.outcome.kind)
            .id()
            .replace('_', " "),
    }
}
